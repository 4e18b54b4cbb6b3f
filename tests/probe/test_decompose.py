"""The four-term split adds up to the model's own layer-0 logits (relative error <= 1e-4)."""

import math

import numpy as np
import pytest
import torch
from transformers import BertConfig, BertModel, LlamaConfig, LlamaModel

from posenc.corpora import shakespeare_text
from posenc.errors import PosencError
from posenc.probe.decompose import TERMS, FourTermSplit, four_term_split, term_statistics


def test_minilm_parts_add_up_on_shakespeare(minilm):
    ids = minilm.tokenizer(shakespeare_text(3000), return_tensors="pt", truncation=True, max_length=256).input_ids[0]
    split = four_term_split(minilm.model, ids)
    assert set(split.terms) == set(TERMS)
    assert split.terms["pp"].shape == (12, ids.numel(), ids.numel())
    assert split.relative_error <= 1e-4
    shares = split.variance_shares()
    assert len(shares) == 12 and all(s["ww"] >= 0 and s["pp"] >= 0 for s in shares)


def _tiny_bert(**overrides):
    config = BertConfig(vocab_size=120, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=96, max_position_embeddings=64, type_vocab_size=2, **overrides)
    model = BertModel(config).eval()
    with torch.no_grad():  # non-trivial LayerNorm and biases, so the remainder has work to do
        norm = model.embeddings.LayerNorm
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0, 0.3)
        attention = model.encoder.layer[0].attention.self
        attention.query.bias.normal_(0, 0.5)
        attention.key.bias.normal_(0, 0.5)
        model.embeddings.token_type_embeddings.weight.normal_(0, 0.5)
    return model


def test_tiny_random_bert_parts_add_up():
    model = _tiny_bert()
    ids = torch.randint(0, 120, (40,))
    split = four_term_split(model, ids)
    assert split.relative_error <= 1e-4
    # the reference is the model's own computation: its softmax is the attention the model returns
    model.set_attn_implementation("eager")
    with torch.no_grad():
        weights = model(ids[None], output_attentions=True).attentions[0][0]  # [H, T, T]
    torch.testing.assert_close(split.reference.softmax(-1).float(), weights, atol=1e-5, rtol=1e-4)


def test_without_the_remainder_the_parts_do_not_add_up():
    """The remainder (LayerNorm bias, token type, projection biases) is a real part, not a rounding term."""
    split = four_term_split(_tiny_bert(), torch.randint(0, 120, (30,)))
    four = split.terms["ww"] + split.terms["wp"] + split.terms["pw"] + split.terms["pp"]
    error = float(torch.linalg.norm(four - split.reference) / torch.linalg.norm(split.reference))
    assert error > 1e-2


def test_llama_is_refused():
    model = LlamaModel(LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                   num_attention_heads=2))
    with pytest.raises(PosencError, match="BERT-style encoder"):
        four_term_split(model, torch.arange(10))


def test_sums_by_hand():
    """Within-query sums of squares per head, recomputed with numpy from the parts themselves."""
    split = four_term_split(_tiny_bert(), torch.randint(0, 120, (25,)))
    sums = split.sums()
    assert sums.shape == (4, 6)
    for column, x in enumerate([*(split.terms[t] for t in TERMS), split.reference]):
        x = x.numpy()
        for h in range(4):
            centred = x[h] - x[h].mean(axis=1, keepdims=True)
            assert sums[h, column] == pytest.approx(float((centred ** 2).sum()), rel=1e-12)


def _hand_statistics(sums, entries):
    """The statistics of term_statistics written out head by head with plain numpy."""
    pooled = sums.sum(0)  # [H, 6]: ww, wp, pw, pp, rest, total
    count = entries.sum()
    spread = np.sqrt(pooled[:, :5] / count)  # [H, 5]
    share = pooled[:, :5] / pooled[:, 5:6]
    four = pooled[:, :4].sum(1)
    mean = spread.mean(0)
    return {"ww_spread": mean[0], "rest_spread": mean[4],
            "cross_to_main_spread": (mean[1] + mean[2]) / (mean[0] + mean[3]),
            "max_head_cross_to_main_spread": max((spread[h, 1] + spread[h, 2]) / (spread[h, 0] + spread[h, 3])
                                                 for h in range(len(spread))),
            "cross_share": (share[:, 1] + share[:, 2]).mean(), "rest_share": share[:, 4].mean(),
            "max_head_cross_share": (share[:, 1] + share[:, 2]).max(),
            "max_head_word_share": (pooled[:, 0] / four).max(), "max_head_position_share": (pooled[:, 3] / four).max()}


def test_term_statistics_against_numpy():
    rng = np.random.default_rng(0)
    windows, heads = 9, 5
    sums = rng.uniform(0.5, 2.0, size=(windows, heads, 6))
    sums[..., 5] = sums[..., :5].sum(-1) * rng.uniform(0.8, 1.2, size=(windows, heads))  # a total near the sum
    entries = np.full(windows, 64.0 * 64.0)
    estimates, per_head = term_statistics(sums, entries)
    for key, value in _hand_statistics(sums, entries).items():
        assert estimates[key].value == pytest.approx(value, rel=1e-12), key
    assert len(per_head["pp_of_four"]) == heads
    assert per_head["pp_of_four"][2].value == pytest.approx(sums[:, 2, 3].sum() / sums[:, 2, :4].sum())
    # the interval of a statistic is the percentile interval of window resamples, here redone by index
    check = np.random.default_rng(5)
    draws = [_hand_statistics(sums[i], entries[i])["max_head_cross_share"]
             for i in check.integers(0, windows, size=(3000, windows))]
    low, high = np.quantile(draws, [0.025, 0.975])
    se = float(np.std(draws))
    assert estimates["max_head_cross_share"].low == pytest.approx(low, abs=0.2 * se)
    assert estimates["max_head_cross_share"].high == pytest.approx(high, abs=0.2 * se)
    assert math.isinf(term_statistics(sums[:1], entries[:1])[0]["cross_share"].high)  # one window: no interval


def test_a_pure_position_head_is_a_position_expert():
    """A head whose logits are all position-position has share 1 of the four terms; one with word-word only, 0."""
    sums = np.zeros((4, 2, 6))
    sums[:, 0, 3] = 2.0  # head 0: only pp
    sums[:, 1, 0] = 3.0  # head 1: only ww
    sums[..., 5] = sums[..., :5].sum(-1)
    estimates, per_head = term_statistics(sums, np.full(4, 100.0))
    assert estimates["max_head_position_share"].value == pytest.approx(1.0)
    assert estimates["max_head_word_share"].value == pytest.approx(1.0)
    assert per_head["pp_of_four"][1].value == 0.0 and per_head["ww_of_four"][0].value == 0.0
    assert estimates["cross_share"].value == 0.0


def test_flatness_sums_by_hand():
    """Word-position along each query's row (the key's position varies), position-word down each key's column (the
    query's position varies), each beside the term's whole variation; recomputed with numpy from the terms."""
    split = four_term_split(_tiny_bert(), torch.randint(0, 120, (25,)))
    got = split.flatness_sums()
    assert got.shape == (4, 4)
    wp, pw = split.terms["wp"].numpy(), split.terms["pw"].numpy()
    for h in range(4):
        along_wp = sum(((wp[h, i] - wp[h, i].mean()) ** 2).sum() for i in range(25))
        along_pw = sum(((pw[h, :, j] - pw[h, :, j].mean()) ** 2).sum() for j in range(25))
        whole = [((x[h] - x[h].mean()) ** 2).sum() for x in (wp, pw)]
        assert got[h] == pytest.approx([along_wp, whole[0], along_pw, whole[1]], rel=1e-10)


def test_a_term_constant_along_positions_is_flat():
    """A word-position term that depends on the query's word only (constant along key positions) has no variation
    along positions; a pure position pattern has all of it there."""
    from posenc.probe.decompose import flatness_statistics

    flat = np.zeros((3, 2, 4))
    flat[:, 0] = [0.0, 5.0, 0.0, 2.0]  # head 0: both terms constant along positions
    flat[:, 1] = [4.0, 4.0, 1.0, 1.0]  # head 1: all their variation runs along positions
    e = flatness_statistics(flat)
    assert e["cross_along_positions"].value == pytest.approx(0.5)
    assert e["max_head_cross_along_positions"].value == pytest.approx(1.0)
    assert e["wp_along_positions"].value == pytest.approx(0.5) and e["pw_along_positions"].value == pytest.approx(0.5)


def test_dimension_sums_by_hand():
    """Each query/key dimension's share of a four term: the within-query sum of squares of s q^a_i[d] k^b_j[d],
    from the projections by numpy; summed over dimensions with the cross-dimension products they add the head's."""
    from posenc.probe.decompose import FOUR, dimension_statistics

    model = _tiny_bert()
    split = four_term_split(model, torch.randint(0, 120, (20,)))
    got = split.dimension_sums()
    assert got.shape == (4, 12, 4)
    q, k = split.projected["q"], split.projected["k"]
    for column, term in enumerate(FOUR):
        a, b = q[term[0]].numpy(), k[term[1]].numpy()  # [H, T, Dh]
        for h in (0, 3):
            for d in (0, 7, 11):
                x = split.scale * np.outer(a[h, :, d], b[h, :, d])  # [T, T]
                expected = ((x - x.mean(axis=1, keepdims=True)) ** 2).sum()
                assert got[h, d, column] == pytest.approx(expected, rel=1e-10)
        # the dimensions' products add up to the term itself
        np.testing.assert_allclose(split.scale * np.einsum("hid,hjd->hij", a, b), split.terms[term].numpy(),
                                   rtol=1e-10, atol=1e-12)
    estimates, of_four = dimension_statistics(np.stack([got, got]))
    pooled = got / got.sum(-1, keepdims=True)
    np.testing.assert_allclose(of_four, pooled, rtol=1e-12)
    assert estimates["max_dim_word_share"].value == pytest.approx(pooled[..., 0].max())
    assert estimates["max_dim_position_share"].value == pytest.approx(pooled[..., 3].max())
    assert estimates["position_dims"].value == pytest.approx((pooled[..., 3] > 0.5).mean())


def test_a_dimension_is_an_expert_only_past_half_of_its_four_terms():
    """Shares in eighths (exact in binary), the same in 3 windows: ww 4/8 = 0.5 (on the bar: no expert), ww 5/8
    (a word expert), pp 4/8 (no expert) and pp 6/8 (a position expert): 1 of 4 dimensions each."""
    import inspect

    from posenc.probe.decompose import dimension_statistics

    one = np.array([[4.0, 2, 2, 0], [5, 1, 1, 1], [0, 2, 2, 4], [0, 1, 1, 6]])  # [Dh, 4]: ww, wp, pw, pp
    estimates, of_four = dimension_statistics(np.broadcast_to(one, (3, 1, 4, 4)).copy())
    np.testing.assert_array_equal(of_four[0], one / 8)
    assert (estimates["word_dims"].value, estimates["position_dims"].value) == (0.25, 0.25)
    assert (estimates["max_dim_word_share"].value, estimates["max_dim_position_share"].value) == (5 / 8, 6 / 8)
    # a bar just below one half makes the dimensions on it experts too
    lower, _ = dimension_statistics(np.broadcast_to(one, (3, 1, 4, 4)).copy(), expert=0.5 - 1e-9)
    assert (lower["word_dims"].value, lower["position_dims"].value) == (0.5, 0.5)
    assert inspect.signature(dimension_statistics).parameters["expert"].default == 0.5


def test_variance_shares_by_hand():
    """One head, two queries, two keys; the logits R split as ww + pp (the rest zero).

        R = [[1, 3], [2, 2]],  ww = [[1, 2], [2, 2]],  pp = [[0, 1], [0, 0]]

    Within rows (each query's mean over keys removed, then the mean square over all four entries):
    R -> [[-1, 1], [0, 0]]: 2/4 = 0.5; ww and pp -> [[-0.5, 0.5], [0, 0]]: 0.5/4 = 0.125 each, shares 0.25; the
    two are equal after centring, so their covariance adds the other 0.5. Over all entries (the unbiased variance,
    the same 1/3 for every part): R's squared deviations from 2 sum to 2, ww's from 1.75 and pp's from 0.25 to 0.75
    each: shares 0.375, covariance 0.25."""
    zero = torch.zeros(1, 2, 2, dtype=torch.float64)
    reference = torch.tensor([[[1.0, 3.0], [2.0, 2.0]]], dtype=torch.float64)
    terms = {"ww": torch.tensor([[[1.0, 2.0], [2.0, 2.0]]], dtype=torch.float64), "wp": zero, "pw": zero,
             "pp": torch.tensor([[[0.0, 1.0], [0.0, 0.0]]], dtype=torch.float64), "rest": zero}
    split = FourTermSplit(terms, reference, 0.0)
    (within,) = split.variance_shares()
    assert within == pytest.approx({"ww": 0.25, "wp": 0.0, "pw": 0.0, "pp": 0.25, "rest": 0.0, "covariance": 0.5})
    (whole,) = split.variance_shares(within_rows=False)
    assert whole == pytest.approx({"ww": 0.375, "wp": 0.0, "pw": 0.0, "pp": 0.375, "rest": 0.0, "covariance": 0.25})


def test_split_statistics_are_the_three_functions_together():
    from posenc.probe.decompose import dimension_statistics, flatness_statistics, split_statistics

    rng = np.random.default_rng(4)
    sums = {"sums": rng.uniform(1, 2, (5, 3, 6)), "entries": np.full(5, 64.0),
            "flat_sums": rng.uniform(1, 2, (5, 3, 4)), "dim_sums": rng.uniform(1, 2, (5, 3, 4, 4))}
    for expert in (0.5, 0.3):
        want = {**term_statistics(sums["sums"], sums["entries"])[0], **flatness_statistics(sums["flat_sums"]),
                **dimension_statistics(sums["dim_sums"], expert=expert)[0]}
        assert split_statistics(sums, expert=expert) == want
    assert split_statistics(sums) == split_statistics(sums, expert=0.5)
