"""SmolLM2's option of the head claims (posenc.report.experiments.decoder): the statistic on a tiny Llama whose heads
are built to look at the previous token, at the token itself and nowhere in particular, against the counts derived by
hand; the null's matched norms; the claims judged under
each option; quick mode; bad input."""

import math

import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaModel

from posenc.errors import PosencError
from posenc.probe.content import content_change, swap_words
from posenc.probe.heads import head_pass
from posenc.report.claims.pretrained import HEAD_MODEL
from posenc.report.experiments import decoder
from posenc.report.experiments.base import Context
from posenc.report.experiments.pretrained import MODEL_OPTIONS
from posenc.report.experiments.tutorial_semantics import content_estimates
from posenc.report.ledger import get_claim
from posenc.report.present import decoder as decoder_page
from posenc.report.verdict import QUICK_UNDECIDED, judge
from posenc.stats import Estimate

MINILM, SMOLLM2 = MODEL_OPTIONS
HEAD_DIM, HEADS, T = 8, 3, 12


def _rotate(q: torch.Tensor, angles: torch.Tensor) -> torch.Tensor:
    """Hugging Face's half pairing: element i turns with element i + d/2 by ``angles[i]`` (d/2 angles), counter-clockwise."""
    half = q.shape[-1] // 2
    x1, x2 = q[:half], q[half:]
    return torch.cat([x1 * angles.cos() - x2 * angles.sin(), x2 * angles.cos() + x1 * angles.sin()])


@pytest.fixture(scope="module")
def forced():
    """A one-layer Llama with every token's embedding the same vector, so each head's logits depend on the offset
    alone: q_i . k_j = q^T R((j - i) theta) k. Head 0: k = R(theta) q, so the logit is sum_f |q_f|^2 cos((j - i + 1)
    theta_f), largest at j = i - 1 (the previous token); head 1: k = q, largest at j = i (the token itself); head 2:
    q = 0, every logit 0 (uniform over the past, its maximum on the first key: offset -i, no fixed offset)."""
    config = LlamaConfig(vocab_size=64, hidden_size=HEAD_DIM * HEADS, intermediate_size=16, num_hidden_layers=1,
                         num_attention_heads=HEADS, num_key_value_heads=HEADS, max_position_embeddings=64,
                         attention_bias=False)
    torch.manual_seed(0)
    model = LlamaModel(config).eval()
    layer = model.layers[0]
    with torch.no_grad():
        e = torch.randn(config.hidden_size)
        model.embed_tokens.weight[:] = e
        c = layer.input_layernorm(e[None, None])[0, 0]  # what q_proj and k_proj read at every position
        theta = 10000.0 ** (-torch.arange(0, HEAD_DIM, 2).double() / HEAD_DIM)
        angles = theta.float()
        q = torch.full((HEAD_DIM,), 3.0)
        targets_q = [q, q, torch.zeros(HEAD_DIM)]
        targets_k = [_rotate(q, angles), q, torch.zeros(HEAD_DIM)]
        wq, wk = torch.zeros_like(layer.self_attn.q_proj.weight), torch.zeros_like(layer.self_attn.k_proj.weight)
        for h in range(HEADS):
            rows = slice(h * HEAD_DIM, (h + 1) * HEAD_DIM)
            wq[rows] = torch.outer(targets_q[h], c) / c.dot(c)
            wk[rows] = torch.outer(targets_k[h], c) / c.dot(c)
        layer.self_attn.q_proj.weight[:] = wq
        layer.self_attn.k_proj.weight[:] = wk
    return model


def _windows(count: int = 4) -> list[list[int]]:
    rng = np.random.default_rng(0)
    return [[1] + rng.integers(2, 60, T - 2).tolist() + [1] for _ in range(count)]


def test_the_forced_heads_give_the_counts_derived_by_hand(forced):
    windows = _windows()
    run = head_pass(forced, windows, swap_words(windows, 1, 1))
    judged = decoder.decoder_heads(run)
    # head 0: every query 1..T-1 has its maximum on the previous token (query 0 has none): fraction 1 at -1;
    # head 1: every query on itself: fraction 1 at 0; head 2: its maximum on key 0, offset -i, for query i
    assert [int(o) for o in judged.offsets[0]][:2] == [-1, 0]
    assert judged.fractions[0][0].value == judged.fractions[0][1].value == 1.0
    assert judged.fractions[0][2].value < 0.5
    assert judged.positional == [(0, 0, -1), (0, 1, 0)]
    counts = {k: judged.estimates[k].value for k in ("positional_heads", "adjacent_positional_heads",
                                                      "other_positional_heads")}
    assert counts == {"positional_heads": 2, "adjacent_positional_heads": 1, "other_positional_heads": 1}
    assert judged.estimates["positional_heads"].low == 2  # both decided: the count's interval is the point
    # every token has the same embedding, so the word swap moves nothing: exactly 0 in every head
    assert run["change"].shape == (4, 1, HEADS) and np.abs(run["change"]).max() < 1e-7
    found, numbers = decoder.content_statistics(run, judged)
    assert found["positional_heads_found"].value == 2 and numbers["per_head"] == {"L0H0": pytest.approx(0, abs=1e-7),
                                                                                  "L0H1": pytest.approx(0, abs=1e-7)}
    assert abs(found["content_change"].value) < 1e-7 and abs(found["other_heads_content_change"].value) < 1e-7


def test_content_statistics_are_minilms_on_the_pass(tiny_llama):
    body = tiny_llama.model.model
    windows = _windows(3)
    run = head_pass(body, windows, swap_words(windows, 1, 1))
    judged = decoder.decoder_heads(run)
    mine, _ = decoder.content_statistics(run, judged)
    theirs, _ = content_estimates(run["change"], judged.positional)
    assert repr(mine) == repr(theirs)  # NaN where no head is positional, in both


def test_the_null_has_the_models_norms_and_other_weights(tiny_llama):
    model = tiny_llama.model
    twin = decoder.null_model(model)
    assert not any(n.startswith("lm_head") for n, _ in twin.named_parameters())  # the transformer alone
    original = dict(model.model.named_parameters())
    for name, param in twin.named_parameters():
        mine = original[name]
        if param.dim() >= 2:
            torch.testing.assert_close(param.norm(dim=1), mine.norm(dim=1))
            assert not torch.allclose(param, mine)
        else:  # a vector keeps its values in another order
            torch.testing.assert_close(param.sort().values, mine.sort().values)
    again = decoder.null_model(model)
    assert all(torch.equal(a, b) for a, b in zip(twin.parameters(), again.parameters(), strict=True))


def test_two_passes_reads_the_null_on_the_same_windows(tiny_llama):
    run = decoder.two_passes(tiny_llama.model, tiny_llama.tokenizer, 3, 16)
    assert run["layers"] == 2 and run["heads"] == 4 and run["length"] == 16 and len(run["kinds"]) == 3
    assert run["trained"]["query_offsets"].shape == run["null"]["query_offsets"].shape == (3, 2, 4, 16)
    assert "change" in run["trained"] and "change" not in run["null"]
    assert set(run["cpu_s"]) == {"measured", "null"} and all(v >= 0 for v in run["cpu_s"].values())
    assert not np.array_equal(run["trained"]["per_window"]["hits"], run["null"]["per_window"]["hits"])


def test_the_claims_choose_the_model_and_read_smollm2_under_its_option_only():
    for claim_id in ("positional-heads", "voita-heads", "positional-head-content"):
        claim = get_claim(claim_id)
        assert claim.choice is HEAD_MODEL and claim.choice.headline == MINILM
        smol = claim.under(SMOLLM2)
        assert smol.tests and all(t.statistic.startswith("smollm2_") for t in (*smol.tests, *smol.requires))
        assert not any(t.statistic.startswith("smollm2_") for t in (*claim.under(MINILM).tests,
                                                                      *claim.under(MINILM).requires))
    assert {t.null for t in get_claim("positional-heads").under(SMOLLM2).tests} == {"null_smollm2_positional_heads"}
    content = get_claim("positional-head-content")
    assert content.hedged and [t.statistic for t in content.under(SMOLLM2).power] == [
        "smollm2_input_word_accuracy"]
    assert {t.null for t in content.under(SMOLLM2).tests} == {"null_smollm2_output_word_accuracy", ""}


def _count(low: float, high: float | None = None) -> Estimate:
    high = low if high is None else high
    return Estimate(low, low, high, 16, "bounds", (0.0, math.inf))


def _share(value: float, low: float, high: float) -> Estimate:
    return Estimate(value, low, high, 16, "bootstrap", (0.0, 1.0))


def test_smollm2_verdicts_against_the_null():
    heads = get_claim("positional-heads")
    assert judge(heads, {"smollm2_positional_heads": _count(3), "null_smollm2_positional_heads": _count(0)},
                 option=SMOLLM2).status == "supported"
    assert judge(heads, {"smollm2_positional_heads": _count(0), "null_smollm2_positional_heads": _count(0)},
                 option=SMOLLM2).status == "refuted"
    already = judge(heads, {"smollm2_positional_heads": _count(3), "null_smollm2_positional_heads": _count(2)},
                    option=SMOLLM2)
    assert already.status == "not testable" and "null_smollm2_positional_heads" in already.reason
    assert judge(heads, {"smollm2_positional_heads": _count(3), "null_smollm2_positional_heads": _count(0, 1)},
                 option=SMOLLM2).status == "inconclusive"
    voita = get_claim("voita-heads")
    at = {"smollm2_adjacent_positional_heads": _count(2), "null_smollm2_adjacent_positional_heads": _count(0),
          "smollm2_other_positional_heads": _count(0)}
    assert judge(voita, at, option=SMOLLM2).status == "supported"
    also_self = judge(voita, {**at, "smollm2_other_positional_heads": _count(1)}, option=SMOLLM2)
    assert also_self.status == "qualified" and also_self.condition.startswith("positional heads exist at -1")


def test_smollm2_content_is_refuted_only_with_power():
    claim = get_claim("positional-head-content")
    moved = {"smollm2_positional_heads_found": _count(2), "smollm2_content_change": _share(0.2, 0.15, 0.25),
             "smollm2_other_heads_content_change": _share(0.4, 0.35, 0.45),
             "smollm2_output_word_accuracy": _share(0.3, 0.25, 0.35),
             "null_smollm2_output_word_accuracy": _share(0.06, 0.05, 0.07),
             "smollm2_input_word_accuracy": _share(0.55, 0.5, 0.6)}
    assert judge(claim, moved, option=SMOLLM2).status == "supported"
    still = {**moved, "smollm2_content_change": _share(0.01, 0.005, 0.02)}
    assert judge(claim, still, option=SMOLLM2).status == "qualified"
    silent = {**moved, "smollm2_output_word_accuracy": _share(0.06, 0.05, 0.07)}
    assert judge(claim, silent, option=SMOLLM2).status == "refuted"
    blind = {**silent, "smollm2_input_word_accuracy": _share(0.1, 0.05, 0.15)}
    assert judge(claim, blind, option=SMOLLM2).status == "inconclusive"
    none = {**moved, "smollm2_positional_heads_found": _count(0)}
    assert judge(claim, none, option=SMOLLM2).status == "not testable"


def test_quick_mode_leaves_smollm2_undecided_without_loading_it():
    ctx = Context(quick=True)
    for part, page, claim_id in ((decoder._heads_part, decoder_page._heads_part, "positional-heads"),
                                 (decoder._heads_part, decoder_page._heads_part, "voita-heads"),
                                 (decoder._content_part, decoder_page._content_part, "positional-head-content")):
        estimates, numbers, shown = part(ctx)
        rows, setup, scope = page(estimates, numbers, shown)
        assert numbers == {"ran": False} and rows == [] and "not run in quick mode" in scope
        assert all(math.isnan(e.value) and not e.has_interval for e in estimates.values())
        verdict = judge(get_claim(claim_id), estimates, quick=True, option=SMOLLM2)
        assert verdict.status == QUICK_UNDECIDED and verdict.command == f"posenc report --claim {claim_id}"


def test_full_mode_reads_each_statistic_from_its_own_pass(tiny_llama, monkeypatch):
    # the SmolLM2 option's parts in full mode, on the tiny Llama in SmolLM2's place (the same two passes): each
    # estimate is the measured pass's, each null_ one the null pass's, and the numbers keep both
    run = decoder.two_passes(tiny_llama.model, tiny_llama.tokenizer, 3, 16)
    monkeypatch.setattr(decoder, "_smollm2", lambda count, length: {**run, "cpu_s": {"load": 0.0, **run["cpu_s"]}})
    judged, null = decoder.decoder_heads(run["trained"]), decoder.decoder_heads(run["null"])
    estimates, numbers, shown = decoder._heads_part(Context(quick=False))
    rows, _, _ = decoder_page._heads_part(estimates, numbers, shown)
    for key in ("positional_heads", "adjacent_positional_heads", "other_positional_heads"):
        assert estimates[f"smollm2_{key}"] == judged.estimates[key]
    for key in ("positional_heads", "adjacent_positional_heads"):
        assert estimates[f"null_smollm2_{key}"] == null.estimates[key]
    assert numbers["ran"] and numbers["layers"] == 2 and numbers["heads"] == 4 and rows
    assert numbers["null"]["estimates"]["positional_heads"][0] == null.estimates["positional_heads"].value


def test_decoder_outputs_read_each_head_through_the_shared_estimates(tiny_llama):
    # the SmolLM2 output reading on the tiny Llama: the same windows two_passes reads, the heads given by hand, and
    # the estimates those of output_estimates on head_outputs (no special tokens: Llama's tokenizer here is MiniLM's,
    # which adds [CLS] and [SEP], so both ends are left out of the queries)
    from posenc.corpora import special_tokens, text_windows
    from posenc.probe.head_output import head_outputs
    from posenc.report.experiments.tutorial_semantics import output_estimates

    model, tokenizer = tiny_llama.model, tiny_llama.tokenizer
    heads = [(1, 0, -1), (0, 2, 0)]
    estimates, numbers = decoder.decoder_outputs(model, tokenizer, 4, 16, heads)
    windows, _ = text_windows(tokenizer, 16, 4)
    prefix, suffix = special_tokens(tokenizer)
    outputs, inputs = head_outputs(model.model, windows, [0, 1])
    table = model.get_input_embeddings().weight.detach().numpy()
    want, _ = output_estimates(outputs, inputs, np.asarray(windows), heads, len(prefix), len(suffix), table)
    assert estimates == want and sorted(numbers["per_head"]) == ["L0H2", "L1H0"]
    assert all(0 <= e.low <= e.value <= e.high <= 1 and e.n == 4 for e in estimates.values())
    empty, _ = decoder.decoder_outputs(model, tokenizer, 4, 16, [])
    assert all(math.isnan(e.value) for e in empty.values())


def test_bad_input_is_refused_with_what_was_given(tiny_llama):
    body = tiny_llama.model.model
    with pytest.raises(PosencError, match="swapped windows"):
        decoder.content_statistics({"per_window": {}, "query_offsets": None}, None)
    with pytest.raises(PosencError, match=r"\[W, L, H\], got shape \[2, 3\]"):
        content_estimates(np.zeros((2, 3)), [])
    with pytest.raises(PosencError, match="on_original must be a function"):
        content_change(body, [[1, 2]], [[1, 2]], on_original="heads")
