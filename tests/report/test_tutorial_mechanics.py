"""The remaining tutorial claims on mechanisms (tutorial_mechanics.py): each experiment's numbers against independent
computations (by hand, numpy, Python integers), and each claim's verdict on hand-made estimates at its edges."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc import resources
from posenc.report.claims import claims_of
from posenc.report.experiments import tutorial_mechanics as sm
from posenc.report.experiments.base import Context
from posenc.report.ledger import get_claim
from posenc.report.present import shown
from posenc.report.verdict import judge
from posenc.stats import Estimate, exact

CTX = Context(quick=True)
CLAIMS = {c.id: c for c in claims_of("tutorial_mechanics")}

pytestmark = pytest.mark.usefixtures("one_thread")


def numpy_sinusoid(positions: np.ndarray, dim: int) -> np.ndarray:
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...) (Vaswani et al. 2017 §3.5), written out again."""
    angle = np.asarray(positions, dtype=np.float64)[:, None] / 10000.0 ** (np.arange(0, dim, 2) / dim)
    table = np.empty((len(angle), dim))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def verdict(claim_id: str, **estimates: Estimate) -> str:
    return judge(get_claim(claim_id), estimates).status


# ---------------------------------------------------------------------------------------------------------------
# the experiments
# ---------------------------------------------------------------------------------------------------------------
def test_rnn_order_inputs_reorder_the_sentences():
    vocab, inputs = sm._order_inputs()
    first = [vocab[w] for w in sm.NOT_SENTENCES[0].split()]
    second = [vocab[w] for w in sm.NOT_SENTENCES[1].split()]
    (_, love, love_perm), (_, ids, perm) = inputs[:2]
    assert ids.tolist() == first and ids[perm].tolist() == second
    assert love[love_perm].tolist() == [vocab["you"], vocab["love"], vocab["I"]]
    assert all(sorted(p.tolist()) == list(range(len(first))) for _, _, p in inputs[2:])
    # the names the setup line lists, in the page's own words
    assert [name for name, _, _ in inputs] == [
        "'I love you' -> 'you love I'", "the 'not' sentences",
        *(f"random permutation {i} of the first 'not' sentence" for i in (1, 2, 3))]


def test_rnn_order_numbers():
    m = sm.rnn_order(CTX)
    n = m.numbers
    assert n["rnn_min_order_effect"] == min(r["min_order_effect"] for r in n["by_kind"].values())
    assert n["rnn_min_position_gap"] == min(r["min_position_gap"] for r in n["by_kind"].values())
    assert n["attention_max_order_effect"] < 1e-5  # no positions: it only reorders its outputs
    assert n["attention_max_position_gap"] == 0.0  # one token everywhere: every position the same
    assert all(r["min_order_effect"] > 0.1 for r in n["by_kind"].values())


def test_elman_rnn_contracts_along_a_run_of_one_token():
    # h_t = tanh(W x + b + U h_{t-1}) with the same x is a contraction when |U| < 1: neighbours meet geometrically
    torch.manual_seed(0)
    rnn = torch.nn.RNN(8, 8, batch_first=True)
    with torch.no_grad():
        rnn.weight_hh_l0.mul_(0.5 / torch.linalg.matrix_norm(rnn.weight_hh_l0, ord=2))
        h = rnn(torch.ones(1, 30, 8))[0][0]
    steps = (h[1:] - h[:-1]).norm(dim=1)
    assert steps[-1] < steps[0] * 0.5 ** 20 * 10


def test_binary_capacity_numbers():
    m = sm.binary_capacity(CTX)
    n = m.numbers
    edges = {2 ** k + o for k in range(63) for o in (-1, 0, 1)} | {2 ** 63 - 1}
    assert n["positions_checked"] == len(set(range(8192)) | edges)
    assert n["largest_position"] == 2 ** 63 - 1
    assert n["decode_errors"] == 0 and n["values_outside_0_1"] == 0
    assert n["channels_in_use"] == 63  # 2^63 - 1 sets bits 0..62
    assert n["small_code_duplicates"] == 16 - 8  # 3 bits: 8 codes for 16 positions


def test_frequency_order_numbers():
    n = sm.frequency_order(CTX).numbers
    assert n["binary_flips_per_bit"] == [255 // 2 ** j for j in range(8)]  # bit j flips at every multiple of 2^j
    assert n["binary_violations"] == 0 and n["sinusoid_order_violations"] == 0
    # the 256 pairs shuffled by torch.randperm(256) seeded 0: the frequencies fall strictly with the pair's index, so
    # a shuffled pair breaks the order exactly where the permutation descends
    perm = torch.randperm(256, generator=torch.Generator().manual_seed(0))
    assert n["shuffled_order_violations"] == int((perm[1:] < perm[:-1]).sum())
    assert n["frequency_vs_formula"] < 1e-6  # float32 table
    assert n["first_frequencies"][0] == pytest.approx(1.0, abs=1e-6)


def test_sinusoid_cost_memory_and_the_aggregation_of_timings(monkeypatch):
    # a clock under which every table takes d microseconds, the empty call 1 us and the block 1 ms: the ratios are
    # then known exactly. Each repeat times the tables in COST_WIDTHS order (the d = 64 table twice, side by side),
    # the empty call, then the block.
    calls = []
    cycle = len(sm.COST_WIDTHS) + 3

    def fake_seconds(fn):
        calls.append(fn)
        i = (len(calls) - 1) % cycle
        times = [64e-6] + [1e-6 * d for d in sm.COST_WIDTHS] + [1e-6, 1e-3]
        return times[i]

    monkeypatch.setattr(resources, "thread_seconds", fake_seconds)
    m = sm.sinusoid_cost(CTX)
    assert len(calls) == 21 * cycle
    n = m.numbers
    assert n["memory_growth"] == 2048 / 64
    block_params = 4 * 512 * 512 + (512 * 2048 + 2048 + 2048 * 512 + 512) + 2 * 2 * 512  # q, k, v, out; FFN; 2 LNs
    assert n["blocks_bytes"] == 6 * block_params * 4
    assert n["memory_share"] == pytest.approx(512 * 512 * 4 / (6 * block_params * 4))
    assert m.estimates["time_growth"].value == pytest.approx(2048 / 64)
    assert m.estimates["time_growth_null"].value == pytest.approx(1.0)  # the same table timed again
    assert m.estimates["step_share"].value == pytest.approx(512e-6 / (512e-6 + 6e-3))
    assert m.estimates["step_share_null"].value == pytest.approx(1e-6 / (1e-6 + 6e-3))
    assert m.estimates["step_share"].low == pytest.approx(m.estimates["step_share"].value)  # no spread: constant


def test_cost_statistics_read_the_low_quantile_so_load_on_some_repeats_does_not_move_them():
    # 20 repeats of a 1 ms table beside a 10 ms block; then the same with 5 repeats slowed 30-fold by load (a
    # quarter of them): the 0.1 quantile ('lower') is the 2nd smallest of 20, untouched by the slow repeats
    quiet = np.column_stack([np.full(20, 1e-3), np.full(20, 1e-2)])
    loaded = quiet.copy()
    loaded[[1, 4, 9, 13, 17]] *= 30
    assert sm.step_share(quiet) == pytest.approx(1e-3 / (1e-3 + 6e-2))
    assert sm.step_share(loaded) == sm.step_share(quiet)
    assert sm.cost_ratio(loaded) == pytest.approx(10.0)
    # the median would have moved with a load on half the repeats; the low quantile does not
    half = quiet.copy()
    half[::2, 0] *= 30
    assert sm.low_quantile(half[:, 0]) == pytest.approx(1e-3)
    assert float(np.median(half[:, 0])) > 1e-3


def test_sinusoid_cost_null_is_the_same_statistic_on_the_same_repeats():
    m = shown("sinusoid_cost", sm.sinusoid_cost(CTX), CTX)
    growth, null = m.estimates["time_growth"], m.estimates["time_growth_null"]
    share, share_null = m.estimates["step_share"], m.estimates["step_share_null"]
    assert growth.n == null.n == share.n == share_null.n == 21
    assert growth.value > 0 and 0 < share.value < 1 and 0 <= share_null.value < share.value
    claim = next(c for c in claims_of("tutorial_mechanics") if c.id == "sinusoid-cost")
    by = {t.statistic: t for t in claim.tests}
    assert by["time_growth"].null == "time_growth_null" and by["step_share"].null == "step_share_null"
    assert by["memory_growth"].no_null and by["memory_share"].no_null
    assert m.scope


def test_worked_update_numbers_by_hand():
    n = sm.worked_update(CTX).numbers
    fixed, learned = n["sinusoid"], n["learned"]
    assert fixed["gradient"] == pytest.approx(-0.4, abs=1e-7)
    assert fixed["embedding_after"] == float(np.float32(np.float32(0.9) - np.float32(0.1) * np.float32(-0.4)))
    assert fixed["pe_value"] == pytest.approx(math.sin(2), abs=1e-7)  # PE[2, 0] = sin(2 / 10000^0)
    assert fixed["pe_change"] == 0.0 and fixed["trainable_parameters"] == 0
    assert fixed["combined_after"] == pytest.approx(0.94 + math.sin(2), abs=1e-6)
    assert learned["combined_before"] == pytest.approx(1.0, abs=1e-7)  # the document's 0.9 + 0.1
    assert learned["pe_value_after"] == pytest.approx(0.14, abs=1e-7)  # the table's entry takes the same step
    assert learned["combined_after"] == pytest.approx(1.08, abs=1e-6)  # not the document's 1.04
    assert n["document_new_value"] == pytest.approx(0.94) and n["document_new_combined"] == pytest.approx(1.04)


def _numpy_rope(x: np.ndarray, p: int, dim: int) -> np.ndarray:
    """Rotate ``x [dim]`` to position ``p``, pairing channel i with i + dim/2 (GPT-NeoX / Hugging Face)."""
    half = dim // 2
    angle = p * 10000.0 ** (-np.arange(half) * 2 / dim)
    a, b = x[:half], x[half:]
    return np.concatenate([a * np.cos(angle) - b * np.sin(angle), b * np.cos(angle) + a * np.sin(angle)])


def test_rope_offset_only_against_numpy():
    m = sm.rope_offset_only(CTX)
    n = m.numbers
    assert n["rope_max_spread"] < 1e-5
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, sm.ROPE_VECTORS, sm.ROPE_HEAD_DIM, generator=gen).double().numpy()
    starts = sm.ROPE_STARTS.numpy()
    spreads = []
    for v in range(sm.ROPE_VECTORS):
        scores = [_numpy_rope(q[v], s + 5, 64) @ _numpy_rope(k[v], s, 64) for s in starts[:4]]
        assert max(scores) - min(scores) < 1e-9 * np.linalg.norm(q[v]) * np.linalg.norm(k[v])  # exact in float64
        scale = math.sqrt(q[v] @ q[v] + 32) * math.sqrt(k[v] @ k[v] + 32)
        for r in sm.ROPE_OFFSETS:
            added = [(q[v] + numpy_sinusoid([s + r], 64)[0]) @ (k[v] + numpy_sinusoid([s], 64)[0]) for s in starts]
            spreads.append((max(added) - min(added)) / scale)
    assert n["added_min_spread"] == pytest.approx(min(spreads), rel=1e-4)


def test_input_shapes_numbers():
    n = sm.input_shapes(CTX).numbers
    assert n["added"] == {"token embedding": [4, 16, 512], "position embedding": [16, 512],
                          "combined": [4, 16, 512]}
    assert n["concatenated"]["combined"] == [4, 16, 1024]
    assert n["shape_mismatches"] == 0 and n["concat_mismatches"] == 1


def test_nothing_measured_has_no_numbers():
    m = sm.nothing_measured(CTX)
    assert m.numbers == {} and m.estimates == {}


# ---------------------------------------------------------------------------------------------------------------
# the claims
# ---------------------------------------------------------------------------------------------------------------
def test_the_claims_are_registered_seed_claims():
    assert set(CLAIMS) == {"rnn-word-order", "binary-512-positions", "binary-alternation", "sinusoid-cost",
                           "worked-update", "rope-relative-explicit", "input-shapes", "ffn-would-mix",
                           "start-attends-verbs", "static-vs-dynamic"}
    for claim in CLAIMS.values():
        assert get_claim(claim.id) is claim and claim.origin == "tutorial" and claim.quote
        assert all(t.basis for t in (*claim.tests, *claim.requires)), claim.id


def test_rnn_word_order_edges():
    ok = {"rnn_min_order_effect": exact(0.9), "rnn_min_position_gap": exact(0.01),
          "attention_max_order_effect": exact(1e-7)}
    assert verdict("rnn-word-order", **ok) == "supported"
    assert verdict("rnn-word-order", **{**ok, "rnn_min_position_gap": exact(1e-6)}) == "qualified"
    assert verdict("rnn-word-order", **{**ok, "rnn_min_order_effect": exact(1e-4),
                                        "rnn_min_position_gap": exact(1e-6)}) == "refuted"
    assert verdict("rnn-word-order", **{**ok, "attention_max_order_effect": exact(0.5)}) == "not testable"


def test_exact_count_claims_edges():
    assert verdict("binary-512-positions", decode_errors=exact(0), small_code_duplicates=exact(8)) == "supported"
    assert verdict("binary-512-positions", decode_errors=exact(3), small_code_duplicates=exact(8)) == "refuted"
    assert verdict("binary-512-positions", decode_errors=exact(0), small_code_duplicates=exact(0)) == "not testable"
    ok = {"binary_violations": exact(0), "sinusoid_order_violations": exact(0), "shuffled_order_violations": exact(9)}
    assert verdict("binary-alternation", **ok) == "supported"
    assert verdict("binary-alternation", **{**ok, "sinusoid_order_violations": exact(1)}) == "qualified"
    assert verdict("binary-alternation", **{**ok, "shuffled_order_violations": exact(0)}) == "not testable"
    assert verdict("input-shapes", shape_mismatches=exact(0), concat_mismatches=exact(1)) == "supported"
    assert verdict("input-shapes", shape_mismatches=exact(1), concat_mismatches=exact(1)) == "refuted"


def test_sinusoid_cost_edges():
    ok = {"memory_growth": exact(32), "time_growth": Estimate(30, 20, 40, 7, "bootstrap"),
          "step_share": Estimate(0.05, 0.04, 0.06, 7, "bootstrap"), "memory_share": exact(0.2),
          "time_growth_null": Estimate(1.0, 0.9, 1.1, 7, "bootstrap"),
          "step_share_null": Estimate(1e-6, 5e-7, 2e-6, 7, "bootstrap")}
    assert verdict("sinusoid-cost", **ok) == "supported"
    v = judge(get_claim("sinusoid-cost"), {**ok, "step_share": Estimate(0.002, 0.001, 0.003, 7, "bootstrap")})
    assert v.status == "qualified" and "under 1% of a forward pass" in v.condition
    assert verdict("sinusoid-cost", **{**ok, "step_share": Estimate(0.01, 0.005, 0.02, 7, "bootstrap")}) == \
        "inconclusive"
    assert verdict("sinusoid-cost", **{**ok, "time_growth": Estimate(1.0, 0.9, 1.1, 7, "bootstrap"),
                                       "memory_growth": exact(1.0)}) == "refuted"
    # a timer whose empty call already reads past the bar cannot tell a table's cost from nothing
    assert verdict("sinusoid-cost", **{**ok, "step_share_null": Estimate(0.02, 0.015, 0.03, 7, "bootstrap")}) == \
        "not testable"


def test_worked_update_and_rope_edges():
    ok = {"embedding_error": exact(2e-9), "combined_error": exact(2e-9), "sinusoid_trainable_parameters": exact(0),
          "sinusoid_change": exact(0), "learned_change": exact(0.04)}
    assert verdict("worked-update", **ok) == "supported"
    assert verdict("worked-update", **{**ok, "sinusoid_trainable_parameters": exact(4)}) == "qualified"
    assert verdict("worked-update", **{**ok, "learned_change": exact(0.0)}) == "not testable"
    ok = {"rope_max_spread": exact(1e-7), "added_min_spread": exact(0.3)}
    assert verdict("rope-relative-explicit", **ok) == "supported"
    assert verdict("rope-relative-explicit", **{**ok, "added_min_spread": exact(1e-8)}) == "qualified"
    assert verdict("rope-relative-explicit", **{**ok, "rope_max_spread": exact(0.1)}) == "refuted"


@pytest.mark.parametrize("claim_id", ["ffn-would-mix", "start-attends-verbs", "static-vs-dynamic"])
def test_claims_that_cannot_be_tested_as_written(claim_id):
    claim = get_claim(claim_id)
    assert claim.untestable and not claim.tests
    v = judge(claim, {})
    assert v.status == "not testable" and claim.untestable in v.reason
