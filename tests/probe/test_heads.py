"""Head statistics on hand-built attention patterns, the positional-head judgement with intervals over windows and
query positions against an independent computation, and hooks that capture the same weights the model returns; the
passes over a model's windows (a tiny Llama whose heads are built to look at the previous token, at the token itself
and nowhere in particular, against the counts derived by hand), each kind of text's judgement, and a head's share on
one offset by bins of query positions."""


import numpy as np
import pytest
import torch
from transformers import LlamaConfig, LlamaForCausalLM, LlamaModel

from by_hand import mixed_head, offset_head
from posenc.errors import PosencError
from posenc.probe.capture import attention_modules, capture
from posenc.probe.content import content_change, content_statistics, swap_words
from posenc.probe.heads import (
    HeadAccumulator,
    by_kind,
    decoder_heads,
    distance_bins,
    fraction_at,
    head_pass,
    head_summary_pass,
    position_bins,
    positional_heads,
    query_shares,
    two_passes,
    voita_fractions,
)
from posenc.stats import bootstrap_weights
from tolerance import bound

T = 20


def _offset_head(offset: int) -> torch.Tensor:
    """All weight on key i + offset (on itself where that falls outside the sequence)."""
    a = torch.zeros(T, T)
    for i in range(T):
        j = i + offset
        a[i, j if 0 <= j < T else i] = 1.0
    return a


def _uniform_causal_head() -> torch.Tensor:
    return torch.ones(T, T).tril() / torch.arange(1, T + 1)[:, None]


def test_pure_previous_token_head_fires_and_uniform_does_not():
    acc = HeadAccumulator(n_layers=1, n_heads=3, max_len=T)
    for _ in range(3):  # three identical windows: every interval is a point
        acc.add(0, torch.stack([_offset_head(-1), _uniform_causal_head(), _offset_head(+1)]))  # [H, T, T]
    out = acc.summary()
    # offset -1: every query 1..T-1 (T-1 of them, all that have a previous token) has its max at -1
    assert out["voita_offset"][0][0] == -1 and out["voita_fraction"][0][0] == pytest.approx(1.0)
    assert out["positional"][0] == [True, False, True]
    assert out["voita_offset"][0][2] == +1
    # uniform causal: each query's argmax is the first key (ties -> index 0), a different offset for each query
    assert out["voita_fraction"][0][1] < 0.2
    # Clark et al.: previous-token attention is 1 for the offset -1 head, next 0; the reverse for +1
    assert out["previous"][0][0] == pytest.approx(1.0) and out["next"][0][0] == pytest.approx(0.0)
    assert out["next"][0][2] == pytest.approx(1.0)
    assert out["previous_heads_over_half"] == [[0, 0]] and out["next_heads_over_half"] == [[0, 2]]
    assert [h[:3] for h in out["positional_heads"]] == [[0, 0, -1], [0, 2, 1]] and out["undecided_heads"] == []


def test_one_window_decides_nothing():
    """One window has no interval: even a perfect previous-token head is undecided, not positional."""
    acc = HeadAccumulator(n_layers=1, n_heads=2, max_len=T)
    acc.add(0, torch.stack([_offset_head(-1), _uniform_causal_head()]))
    out = acc.summary()
    assert out["positional_heads"] == [] and len(out["undecided_heads"]) == 2
    count = out["estimates"]["positional_heads"]
    assert (count["value"], count["low"], count["high"]) == (1.0, 0.0, 2.0)


def _mixed_head(rng: np.random.Generator, share: float) -> torch.Tensor:
    """A head whose maximum sits on the previous token for about ``share`` of the queries, elsewhere otherwise."""
    a = torch.full((T, T), 0.01)
    for i in range(T):
        if i > 0 and rng.random() < share:
            a[i, i - 1] = 1.0
        else:
            a[i, int(rng.integers(i + 2, i + 12)) % T if i + 2 < T else 0] = 1.0
    return a / a.sum(-1, keepdim=True)


def test_positional_heads_against_an_independent_computation():
    """Voita fractions, best offsets and their two-way bootstrap intervals (windows and query positions resampled
    independently), recomputed with loops and index resampling."""
    rng = np.random.default_rng(7)
    windows = [torch.stack([_mixed_head(rng, s) for s in (0.97, 0.9, 0.3)]) for _ in range(12)]  # [H, T, T] each
    acc = HeadAccumulator(n_layers=1, n_heads=3, max_len=T, max_offset=3)
    for w in windows:
        acc.add(0, w)
    judged = positional_heads(acc.summary(), query_offsets=acc.query_offsets())
    # by hand: per window, query and head, whether its argmax sits at offset o (only where i + o is inside)
    offsets = list(range(-3, 4))
    hit = np.zeros((12, T, 3, 7))
    inside = np.zeros((T, 7))
    for k, w in enumerate(windows):
        for oi, o in enumerate(offsets):
            for i in range(T):
                if 0 <= i + o < T:
                    inside[i, oi] = 1
                    for h in range(3):
                        hit[k, i, h, oi] = int(int(np.argmax(w[h, i].numpy())) == i + o)
    pooled = hit.sum((0, 1)) / (12 * inside.sum(0))  # [H, O]
    check = np.random.default_rng(12345)
    draws_w, draws_t = check.integers(0, 12, size=(4000, 12)), check.integers(0, T, size=(4000, T))
    for h in range(3):
        best = int(pooled[h].argmax())
        assert judged.offsets[0, h] == best - 3
        estimate = judged.fractions[0][h]
        assert estimate.value == pytest.approx(pooled[h, best], abs=1e-12)
        resampled = np.array([hit[np.ix_(dw, dt)][:, :, h, best].sum() / (len(dw) * inside[dt, best].sum())
                              for dw, dt in zip(draws_w, draws_t, strict=True)])
        low, high = np.quantile(resampled, [0.025, 0.975])
        width = high - low  # two Monte Carlo runs of one interval: their ends agree to a small part of its width
        assert estimate.low == pytest.approx(low, abs=0.1 * width + 1e-9)
        assert estimate.high == pytest.approx(high, abs=0.1 * width + 1e-9)
        assert 0.0 <= estimate.low <= estimate.high <= 1.0
    # the heads were built on the previous token for about 97%, 90% and 30% of the queries: the first is positional
    # (its interval [0.94, 1] wholly above 0.9), the second undecided (its interval [0.89, 0.99] straddles 0.9), the
    # third neither (its interval wholly below)
    assert judged.positional == [(0, 0, -1)] and judged.undecided == [(0, 1, -1)]


def test_a_head_that_misses_the_same_query_in_every_window_has_an_interval_of_its_own():
    """The 0.9921 [0.9921, 0.9921] of a head with 126 of 127 queries on the previous token in every window: its
    per-window share never varies, so resampling windows alone gives zero width. What varies is which query
    misses; the two-way bootstrap resamples query positions too and gives a real interval, inside [0, 1]."""
    miss = 5  # query 5 looks at itself in every window; every other query at the previous token
    head = _offset_head(-1)
    head[miss] = 0
    head[miss, miss] = 1.0
    acc = HeadAccumulator(n_layers=1, n_heads=1, max_len=T)
    for _ in range(8):
        acc.add(0, head[None])
    judged = positional_heads(acc.summary(), query_offsets=acc.query_offsets())
    share = judged.fractions[0][0]
    per_window = np.full(8, (T - 2) / (T - 1))  # 18 of the 19 queries that have a previous token, in every window
    (windows_only,) = bootstrap_weights((8,), lambda w: w @ per_window)
    assert windows_only.half_width < 1e-12  # the wrong unit: nothing varies between windows
    assert share.value == pytest.approx((T - 2) / (T - 1)) and share.half_width > 0
    assert 0.0 <= share.low < share.value <= share.high <= 1.0 and share.method == "bootstrap"


def _previous_token_judgement(threshold: float):
    """Three identical windows of a head that always looks at the previous token: each query's share is 1, so its
    interval is the point [1, 1] (nothing varies between windows or queries)."""
    acc = HeadAccumulator(n_layers=1, n_heads=1, max_len=T)
    for _ in range(3):
        acc.add(0, _offset_head(-1)[None])
    return positional_heads(acc.summary(), threshold, query_offsets=acc.query_offsets())


@pytest.mark.parametrize("threshold,positional", [(1.0 - 1e-9, [(0, 0, -1)]), (1.0, []), (1.0 + 1e-9, [])])
def test_a_head_is_positional_only_when_its_interval_lies_wholly_above_the_bar(threshold, positional):
    judged = _previous_token_judgement(threshold)
    share = judged.fractions[0][0]
    assert (share.value, share.low, share.high) == (1.0, 1.0, 1.0)
    assert judged.positional == positional
    assert judged.undecided == []  # a point interval is never undecided: on the bar it fails it


def test_the_positional_bar_is_voita_s_ninety_percent_and_the_neighbour_bar_one_half():
    import inspect

    from posenc.probe.heads import CLARK_THRESHOLD, VOITA_THRESHOLD

    assert (VOITA_THRESHOLD, CLARK_THRESHOLD) == (0.9, 0.5)  # Voita et al. 2019; Clark et al. 2019: over half
    assert inspect.signature(positional_heads).parameters["threshold"].default == 0.9
    assert inspect.signature(HeadAccumulator.summary).parameters["threshold"].default == 0.9


def test_query_shares_checks_its_shapes():
    from posenc.errors import PosencError

    with pytest.raises(PosencError, match="one shape"):
        query_shares(np.zeros((3, 4, 2)), np.zeros((3, 4)))


def test_positional_count_brackets_straddling_heads():
    """A head whose windows alternate 16/19 and 19/19 queries on the previous token (pooled 175/190 = 0.921)
    straddles 0.9: it is undecided, and the count's interval spans it."""
    acc = HeadAccumulator(n_layers=1, n_heads=3, max_len=T)
    rng = np.random.default_rng(0)

    def exact_share(hits: int) -> torch.Tensor:  # previous-token maximum on exactly `hits` of the T - 1 queries
        a = _offset_head(-1)
        for i in range(1 + hits, T):
            a[i] = 0
            a[i, int(rng.integers(i + 1, T)) if i + 1 < T else 0] = 1.0
        return a

    for k in range(10):
        acc.add(0, torch.stack([_offset_head(-1), exact_share(16 if k % 2 else 19), _uniform_causal_head()]))
    judged = positional_heads(acc.summary(), query_offsets=acc.query_offsets())
    assert [p[:2] for p in judged.positional] == [(0, 0)]
    assert [p[:2] for p in judged.undecided] == [(0, 1)]
    count = judged.estimates["positional_heads"]
    assert judged.fractions[0][1].value == pytest.approx(175 / 190)
    assert (count.value, count.low, count.high) == (2.0, 1.0, 2.0)  # head 0 surely, head 1 maybe


def test_mass_by_distance_by_hand():
    acc = HeadAccumulator(n_layers=1, n_heads=2, max_len=T)
    acc.add(0, torch.stack([_offset_head(-1), _uniform_causal_head()]))
    out = acc.summary()
    mass = np.asarray(out["mass_by_distance"])[0]  # [H, bins]
    # offset -1 head: query 0 keeps its weight at distance 0, the other T-1 queries at distance 1
    assert mass[0, 0] == pytest.approx(1 / T) and mass[0, 1] == pytest.approx((T - 1) / T)
    assert out["mean_distance"][0][0] == pytest.approx((T - 1) / T)
    # uniform causal: query i spreads 1/(i+1) over distances 0..i, mean distance i/2; averaged over i: (T-1)/4
    # (float32 weights summed by a matmul over the T * T entries, each entry 1/(i+1) rounded: T * T + 1 steps)
    f32 = bound(torch.float32, T * T + 1)
    assert out["mean_distance"][0][1] == pytest.approx((T - 1) / 4, rel=f32)
    np.testing.assert_allclose(mass.sum(-1), 1.0, rtol=f32)


def test_voita_counts_only_queries_with_the_offset_inside():
    hits, valid = voita_fractions(_offset_head(-3)[None], max_offset=4)
    offsets = list(range(-4, 5))
    assert valid[offsets.index(-3)] == T - 3 and valid[offsets.index(0)] == T
    assert hits[0, offsets.index(-3)] == T - 3 and hits[0, offsets.index(0)] == 3


def test_distance_bins():
    assert distance_bins(20) == [0, 1, 2, 3, 4, 6, 8, 12, 16, 24]


def test_hooks_capture_what_output_attentions_returns():
    """Layer-by-layer capture gives the same statistics as all layers' weights returned at once."""
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                         num_attention_heads=4, num_key_value_heads=2)
    model = LlamaForCausalLM(config).eval()
    model.set_attn_implementation("sdpa")  # capture switches to eager and back
    ids = torch.randint(0, 64, (1, 24))
    hooked = HeadAccumulator(3, 4, max_len=24)
    with capture(model, hooked.add), torch.no_grad():
        model(ids)
    assert model.config._attn_implementation == "sdpa"
    model.set_attn_implementation("eager")
    reference = HeadAccumulator(3, 4, max_len=24)
    with torch.no_grad():
        for layer, weights in enumerate(model(ids, output_attentions=True).attentions):
            reference.add(layer, weights)
    a, b = hooked.summary(), reference.summary()
    for key in ("voita_fraction", "previous", "next", "mass_by_distance", "mean_distance"):
        np.testing.assert_allclose(a[key], b[key], atol=1e-6)
    assert len(attention_modules(model)) == 3


def test_voita_fractions_stay_on_the_attentions_device():
    """Every tensor is made on the attention's device (checked on the meta device, which mixes with no other)."""
    hits, valid = voita_fractions(torch.ones(2, 5, 5, device="meta"), max_offset=2)
    assert (hits.device.type, valid.device.type) == ("meta", "meta") and hits.shape == (2, 5)


def test_windows_of_different_lengths_by_hand():
    """A window of 2 tokens with all weight on the previous token and one of a single token (no previous token):
    the previous-token share is 1/1, the mass by distance covers every bin even for these short windows."""
    acc = HeadAccumulator(n_layers=1, n_heads=1, max_len=T)
    acc.add(0, torch.tensor([[[1.0, 0.0], [1.0, 0.0]]]))  # [H, T, T]: query 1 on key 0
    acc.add(0, torch.ones(1, 1, 1, 1))  # [B, H, T, T]
    acc.add(0, torch.tensor([[[1.0, 0.0], [1.0, 0.0]]]))
    out = acc.summary()
    assert out["windows"] == 3
    assert out["previous"] == [[1.0]] and out["next"] == [[0.0]]
    mass = np.asarray(out["mass_by_distance"])  # [L, H, bins]
    assert mass.shape == (1, 1, len(distance_bins(T - 1)) - 1)
    # 5 queries: 3 keep their weight at distance 0, 2 at distance 1
    np.testing.assert_allclose(mass[0, 0], [3 / 5, 2 / 5] + [0.0] * (mass.shape[-1] - 2))


# the positional-head counts split by offset, and the seed of the summary's intervals

def test_adjacent_and_other_positional_heads_are_counted_by_offset():
    # three heads on offsets -1, +1 and +3, three identical windows: every query with its offset inside the window
    # hits, so each fraction is the point 1 > 0.9 and all three are positional; offsets +-1 are the adjacent ones
    acc = HeadAccumulator(n_layers=1, n_heads=3, max_len=T)
    for _ in range(3):
        acc.add(0, torch.stack([_offset_head(-1), _offset_head(+1), _offset_head(+3)]))
    estimates = acc.summary()["estimates"]
    assert [estimates[k]["value"] for k in ("positional_heads", "adjacent_positional_heads",
                                            "other_positional_heads")] == [3.0, 2.0, 1.0]


def test_the_summary_s_intervals_follow_its_seed():
    # random attention over five windows: the bootstrap resamples differ from seed to seed, so the intervals do too,
    # while one seed always gives the same intervals
    gen = torch.Generator().manual_seed(0)
    acc = HeadAccumulator(n_layers=1, n_heads=2, max_len=T)
    for _ in range(5):
        acc.add(0, (3 * torch.randn(2, T, T, generator=gen)).softmax(-1))
    first, again, other = acc.summary(seed=1), acc.summary(seed=1), acc.summary(seed=2)
    for key in ("voita_interval", "previous_interval", "next_interval"):
        assert first[key] == again[key]
        assert first[key] != other[key], key


def test_the_head_pass_equals_the_probes_functions_run_apart(tiny_llama):
    """One forward per original window feeds both the head probe and the content change: the same numbers as
    capture with a HeadAccumulator and content_change run apart."""
    body = tiny_llama.model.model
    rng = np.random.default_rng(0)
    windows = [[1] + rng.integers(2, 60, 10).tolist() + [1] for _ in range(3)]
    swapped = swap_words(windows, 1, 1)
    run = head_pass(body, windows, swapped)
    alone = HeadAccumulator(2, 4, max_len=12)
    with torch.no_grad(), capture(body, alone.add):
        for ids in windows:
            batch = torch.tensor([ids])
            body(input_ids=batch, attention_mask=torch.ones_like(batch))
    for key, value in alone.per_window().items():
        np.testing.assert_allclose(run["per_window"][key], value, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(run["query_offsets"], alone.query_offsets())
    np.testing.assert_allclose(run["change"], content_change(body, windows, swapped), atol=1e-9)
    plain = head_pass(body, windows)
    assert "change" not in plain
    np.testing.assert_array_equal(plain["query_offsets"], run["query_offsets"])

    with pytest.raises(PosencError, match="at least one window"):
        head_pass(body, [])
    with pytest.raises(PosencError, match=r"one non-zero length, got lengths \[3, 4\]"):
        head_pass(body, [[1, 2, 3], [1, 2, 3, 4]])


# ---------------------------------------------------------------------------------------------------------------
# the passes over a model's windows: a tiny Llama with heads built by hand, and a decoder beside its null
# ---------------------------------------------------------------------------------------------------------------
HEAD_DIM, HEADS, FORCED_T = 8, 3, 12


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


def _forced_windows(count: int = 4) -> list[list[int]]:
    rng = np.random.default_rng(0)
    return [[1] + rng.integers(2, 60, FORCED_T - 2).tolist() + [1] for _ in range(count)]


def test_the_forced_heads_give_the_counts_derived_by_hand(forced):
    windows = _forced_windows()
    run = head_pass(forced, windows, swap_words(windows, 1, 1))
    judged = decoder_heads(run)
    # head 0: every query 1..FORCED_T-1 has its maximum on the previous token (query 0 has none): fraction 1 at -1;
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
    found, numbers = content_statistics(run, judged)
    assert found["positional_heads_found"].value == 2 and numbers["per_head"] == {"L0H0": pytest.approx(0, abs=1e-7),
                                                                                  "L0H1": pytest.approx(0, abs=1e-7)}
    assert abs(found["content_change"].value) < 1e-7 and abs(found["other_heads_content_change"].value) < 1e-7


def test_two_passes_reads_the_null_on_the_same_windows(tiny_llama):
    run = two_passes(tiny_llama.model, tiny_llama.tokenizer, 3, 16)
    assert run["layers"] == 2 and run["heads"] == 4 and run["length"] == 16 and len(run["kinds"]) == 3
    assert run["trained"]["query_offsets"].shape == run["null"]["query_offsets"].shape == (3, 2, 4, 16)
    assert "change" in run["trained"] and "change" not in run["null"]
    assert set(run["cpu_s"]) == {"measured", "null"} and all(v >= 0 for v in run["cpu_s"].values())
    assert not np.array_equal(run["trained"]["per_window"]["hits"], run["null"]["per_window"]["hits"])


# ---------------------------------------------------------------------------------------------------------------
# each kind of text's judgement, and one head's share by bins of query positions
# ---------------------------------------------------------------------------------------------------------------
KIND_T = 24


def test_heads_by_kind_of_text_equal_a_separate_accumulation():
    """``by_kind``: the judgement on one kind's windows, cut from the pooled per-window counts, equals feeding
    only that kind's windows to a fresh accumulator."""
    rng = np.random.default_rng(7)
    kinds = ["plays", "reference"] * 3 + ["plays"]
    windows = [torch.stack([offset_head(-1, KIND_T), mixed_head(rng, 1, 0.95 if k == "plays" else 0.3, KIND_T)])
               for k in kinds]
    pooled = HeadAccumulator(n_layers=1, n_heads=2, max_len=KIND_T)
    for w in windows:
        pooled.add(0, w)
    judged = by_kind({"summary": pooled.summary(), "kinds": kinds, "argmax": pooled.query_offsets()})
    assert set(judged) == {"plays", "reference"}
    for kind in ("plays", "reference"):
        alone = HeadAccumulator(n_layers=1, n_heads=2, max_len=KIND_T)
        for w, k in zip(windows, kinds, strict=True):
            if k == kind:
                alone.add(0, w)
        expected = positional_heads(alone.summary(), query_offsets=alone.query_offsets())
        assert judged[kind].positional == expected.positional and judged[kind].windows == kinds.count(kind)
        assert judged[kind].estimates["positional_heads"] == expected.estimates["positional_heads"]
    assert [o for _, _, o in judged["plays"].positional][:1] == [-1]  # the pure previous-token head in every kind


def test_position_bins_and_fraction_at_by_hand():
    rng = np.random.default_rng(1)
    windows, t = 6, 10
    argmax = rng.integers(-3, 3, size=(windows, 2, 3, t)).astype(np.int16)  # [W, L, H, T] offsets
    bins = position_bins(argmax, 1, 2, -1, 4)  # queries 0..3, 4..7, 8..9
    for index, (a, b) in enumerate(((0, 4), (4, 8), (8, 10))):
        valid = sum(1 for i in range(a, b) if i - 1 >= 0)
        hits = sum(int(argmax[w, 1, 2, i] == -1) for w in range(windows) for i in range(a, b) if i >= 1)
        assert bins[index].value == pytest.approx(hits / (valid * windows))
        if b - a >= 3:
            assert 0.0 <= bins[index].low <= bins[index].value <= bins[index].high <= 1.0
        else:  # two query positions: too few for an interval
            assert not bins[index].has_interval
    estimate = fraction_at({"argmax": argmax}, 1, 2, -1)  # queries 1..9 have a previous token
    hits = sum(int(argmax[w, 1, 2, i] == -1) for w in range(windows) for i in range(1, t))
    assert estimate.value == pytest.approx(hits / ((t - 1) * windows))
    assert 0.0 <= estimate.low < estimate.value < estimate.high <= 1.0  # windows and query positions resampled


def test_the_summary_pass_keeps_the_summary_and_each_querys_argmax_offset(tiny_llama):
    """head_summary_pass: its summary is a HeadAccumulator's fed by capture, and its argmax offsets are those of
    output_attentions=True, unclipped."""
    body = tiny_llama.model.model
    rng = np.random.default_rng(0)
    windows = [[1] + rng.integers(2, 60, 14).tolist() + [1] for _ in range(3)]
    run = head_summary_pass(body, windows, 16)
    alone = HeadAccumulator(2, 4, max_len=16)
    with torch.no_grad(), capture(body, alone.add):
        for ids in windows:
            batch = torch.tensor([ids])
            body(input_ids=batch, attention_mask=torch.ones_like(batch))
    assert run["summary"]["positional_heads"] == alone.summary()["positional_heads"]
    np.testing.assert_allclose(run["summary"]["per_window"]["hits"], alone.per_window()["hits"])
    assert run["argmax"].shape == (3, 2, 4, 16) and run["argmax"].dtype == np.int16
    with torch.no_grad(), capture(body, lambda layer, weights: None):
        for k, ids in enumerate(windows):
            attentions = body(input_ids=torch.tensor([ids]), output_attentions=True).attentions
            for layer, weights in enumerate(attentions):
                expected = weights[0].argmax(-1) - torch.arange(16)  # [H, T]
                np.testing.assert_array_equal(run["argmax"][k, layer], expected.numpy())
