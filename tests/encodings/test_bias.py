"""ALiBi and T5: hand-derived slopes and buckets."""

import math

import pytest
import torch
from offset_cases import offset_cases

import posenc
from posenc.encodings.alibi import alibi_slopes
from posenc.encodings.t5 import t5_bucket
from posenc.errors import PosencError


def test_alibi_slopes_8_heads():
    # n = 8: m_h = 2^(-8h/8) = 2^-h, h = 1..8 -> 1/2 .. 1/256
    torch.testing.assert_close(alibi_slopes(8), torch.tensor([2.0 ** -h for h in range(1, 9)], dtype=torch.float64))


def test_alibi_slopes_12_heads():
    # n = 12: the 8 slopes of 8 heads, then every other slope of 16 heads (2^(-8h/16), h = 1, 3, 5, 7)
    expected = [2.0 ** -h for h in range(1, 9)] + [2.0 ** (-h / 2) for h in (1, 3, 5, 7)]
    torch.testing.assert_close(alibi_slopes(12), torch.tensor(expected, dtype=torch.float64))


def test_alibi_bias_values():
    bias = posenc.build("alibi", n_heads=2).bias(torch.arange(3), torch.arange(3))
    # 2 heads: slopes 2^-4 = 1/16 and 2^-8 = 1/256; bias = -m |i - j|
    expected0 = -torch.tensor([[0, 1, 2], [1, 0, 1], [2, 1, 0]], dtype=torch.float32) / 16
    torch.testing.assert_close(bias[0], expected0)
    assert bias.shape == (2, 3, 3)


def test_alibi_per_row_positions_give_a_batched_bias():
    bias = posenc.build("alibi", n_heads=4).bias(torch.tensor([[0, 1], [5, 6]]), torch.tensor([[0, 1], [5, 6]]))
    assert bias.shape == (2, 4, 2, 2)
    torch.testing.assert_close(bias[0], bias[1])  # only distances matter


def test_alibi_any_number_of_heads_and_bad_heads():
    assert alibi_slopes(5).shape == (5,) and alibi_slopes(1).tolist() == [2.0 ** -8]
    with pytest.raises(PosencError, match="heads"):
        posenc.build("alibi", n_heads=0)


def test_t5_buckets_by_hand():
    # bidirectional, 32 buckets, max_distance 128: 16 per direction, exact below 8, then
    # 8 + floor(log(d / 8) / log(128 / 8) * 8), capped at 15; r > 0 adds 16
    r = torch.tensor([0, -3, 3, -8, -15, -16, -127, -200, 200])
    expected = [0, 3, 19, 8, 9, 10, 15, 15, 31]
    # d=15: log(15/8)/log(16)*8 = 1.81 -> 9;  d=16: log(2)/log(16)*8 = 2 -> 10;  d=127: 7.97 -> 15
    assert t5_bucket(r, True, 32, 128).tolist() == expected


def test_t5_causal_buckets_ignore_the_future():
    # causal: distance = max(-r, 0), 32 buckets, exact below 16
    r = torch.tensor([5, 0, -1, -15, -16, -500])
    assert t5_bucket(r, False, 32, 128).tolist()[:4] == [0, 0, 1, 15]
    assert t5_bucket(r, False, 32, 128).tolist()[-1] == 31


def test_t5_bias_is_learned_per_bucket_and_head():
    t5 = posenc.build("t5", n_heads=3)
    bias = t5.bias(torch.arange(4), torch.arange(4))
    assert bias.shape == (3, 4, 4)
    bias.sum().backward()
    assert t5.embedding.weight.grad is not None


def test_t5_bad_options():
    with pytest.raises(PosencError):
        posenc.build("t5", n_heads=2, num_buckets=3)


def _t5_bucket_by_formula(r: int, bidirectional: bool, num_buckets: int = 32, max_distance: int = 128) -> int:
    """Raffel et al. 2020 (T5's _relative_position_bucket) on one Python int r = key - query, written out again."""
    offset = 0
    if bidirectional:
        num_buckets //= 2
        offset = num_buckets if r > 0 else 0
        d = abs(r)
    else:
        d = max(-r, 0)
    exact = num_buckets // 2
    if d < exact:
        return offset + d
    return offset + min(num_buckets - 1, exact + int(math.log(d / exact) / math.log(max_distance / exact)
                                                       * (num_buckets - exact)))


def _t5_with_bucket_ids(**options):
    """A T5 bias whose table holds w[bucket, h] = bucket + 100 h, so each bias value names its bucket and head."""
    t5 = posenc.build("t5", **options)
    with torch.no_grad():
        buckets, heads = t5.embedding.weight.shape
        t5.embedding.weight.copy_(torch.arange(buckets)[:, None] + 100.0 * torch.arange(heads)[None, :])
    return t5


def test_t5_position_errors_name_the_argument():
    t5 = posenc.build("t5", n_heads=2)
    with pytest.raises(PosencError, match="^q_positions must hold integers"):
        t5.bias(torch.arange(3.0), torch.arange(3))
    with pytest.raises(PosencError, match="^k_positions must hold integers"):
        t5.bias(torch.arange(3), torch.arange(3.0))


def test_t5_repr_lists_its_options_and_a_scale_only_when_not_one():
    assert posenc.build("t5", n_heads=2).extra_repr() == (
        "n_heads=2, num_buckets=32, max_distance=128, bidirectional=True")
    assert posenc.build("t5", n_heads=2, num_buckets=8, max_distance=16, bidirectional=False,
                        scale=0.5).extra_repr() == "n_heads=2, num_buckets=8, max_distance=16, bidirectional=False, scale=0.5"


def test_t5_bias_unequal_query_and_key_lengths_against_hand_buckets():
    # bidirectional, 32 buckets, max_distance 128: r = key - query; |r| < 8 exact, else 8 + floor(log(|r|/8) /
    # log(16) * 8) capped at 15; r > 0 adds 16. Row q=40: r = -40 -30 -12 -3 0 4 10 60 103, e.g. |r| = 40:
    # log(5)/log(16)*8 = 4.64 -> 12; r = +10: 16 + 8 + floor(0.64) = 24; r = +60: 16 + 8 + floor(5.81) = 29.
    q_pos = torch.tensor([40, 43, 45])
    k_pos = torch.tensor([0, 10, 28, 37, 40, 44, 50, 100, 143])
    hand = [[12, 11, 9, 3, 0, 20, 24, 29, 31],
            [12, 12, 9, 6, 3, 17, 23, 29, 31],
            [12, 12, 10, 8, 5, 1, 21, 29, 31]]
    assert hand == [[_t5_bucket_by_formula(int(k - q), True) for k in k_pos] for q in q_pos]
    t5 = _t5_with_bucket_ids(n_heads=2)
    bias = t5.bias(q_pos, k_pos)
    assert bias.shape == (2, 3, 9)  # [H, Tq, Tk]: a transposed bias is [H, Tk, Tq]
    expected = torch.tensor(hand, dtype=torch.float32)
    torch.testing.assert_close(bias, torch.stack([expected, expected + 100.0]), rtol=0, atol=0)
    # per-row positions: row 1 is row 0 shifted by 7, so only the offsets matter, and the bias is batched
    per_row = t5.bias(torch.stack([q_pos, q_pos + 7]), torch.stack([k_pos, k_pos + 7]))
    assert per_row.shape == (2, 2, 3, 9)
    torch.testing.assert_close(per_row[0], bias, rtol=0, atol=0)
    torch.testing.assert_close(per_row[1], bias, rtol=0, atol=0)


def test_t5_causal_bias_for_a_cached_decoding_step_against_hand_buckets():
    # causal, 32 buckets: d = max(-r, 0), exact below 16, else 16 + floor(log(d/16) / log(8) * 16) capped at 31.
    # Two new queries at 100, 101 over 7 cached keys: d = 100 -> 16 + floor(14.10) = 30; d = 50 -> 16 + 8 = 24;
    # d = 16 -> 16; d = 17 -> 16 + floor(0.47) = 16; future keys (r > 0) share bucket 0 with r = 0.
    q_pos = torch.tensor([100, 101])
    k_pos = torch.tensor([0, 50, 84, 99, 100, 101, 102])
    hand = [[30, 24, 16, 1, 0, 0, 0],
            [30, 24, 16, 2, 1, 0, 0]]
    assert hand == [[_t5_bucket_by_formula(int(k - q), False) for k in k_pos] for q in q_pos]
    bias = _t5_with_bucket_ids(n_heads=3, bidirectional=False).bias(q_pos, k_pos)
    assert bias.shape == (3, 2, 7)
    expected = torch.tensor(hand, dtype=torch.float32)
    torch.testing.assert_close(bias, torch.stack([expected + 100.0 * h for h in range(3)]), rtol=0, atol=0)


# -- T5 through the offset table (posenc.encodings.offsets) against a lookup per pair ---------------------------------



@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("case", list(offset_cases()))
def test_t5_bias_and_its_gradient_equal_a_lookup_per_pair(case, bidirectional):
    q, k = offset_cases()[case]
    torch.manual_seed(0)
    t5 = posenc.build("t5", n_heads=3, bidirectional=bidirectional, scale=0.5)
    with torch.no_grad():
        t5.embedding.weight.normal_()
    # direct, float64: scale * w[bucket(key - query), h], the bucket of each pair by the formula written out above
    qq, kk = torch.broadcast_tensors(q[..., :, None], k[..., None, :])  # [(B,) Tq, Tk]
    bucket_of = {r: _t5_bucket_by_formula(r, bidirectional) for r in set((kk - qq).flatten().tolist())}
    buckets = torch.tensor([bucket_of[r] for r in (kk - qq).flatten().tolist()]).view(qq.shape)
    table = t5.embedding.weight.detach().double().requires_grad_()
    direct = 0.5 * table[buckets].movedim(-1, -3)  # [(B,) H, Tq, Tk]
    bias = t5.bias(q, k)
    assert bias.shape == direct.shape
    torch.testing.assert_close(bias.double(), direct, rtol=0, atol=0)  # a lookup times 1/2: exact
    upstream = torch.randn(direct.shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    (bias * upstream.float()).sum().backward()
    (want,) = torch.autograd.grad((direct * upstream).sum(), table)
    torch.testing.assert_close(t5.embedding.weight.grad.double(), want, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("case", list(offset_cases()))
def test_offset_table_finds_every_pair_its_offset_and_stays_small(case):
    from posenc.encodings.offsets import offsets_of

    q, k = offset_cases()[case]
    offsets = offsets_of(q, k)
    relative = (q[..., :, None] - k[..., None, :]).reshape(-1, q.shape[-1], k.shape[-1])  # [B', Tq, Tk]
    assert torch.equal(offsets.values[offsets.full_index()], relative)
    # the range of the offsets (Tq + Tk - 1 columns for consecutive positions), never more columns than pairs
    span = int(q.max() - q.min() + k.max() - k.min()) + 1
    assert offsets.values.numel() <= min(relative.numel(), span)
    assert (offsets.starts is not None) == (case in ("consecutive keys, shifted", "keys after the queries",
                                                     "per-row, a KV cache each", "per-row queries, shared keys"))


def test_offset_rows_keep_the_table_columns_and_find_their_offsets():
    from posenc.encodings.offsets import offsets_of

    for q, k, consecutive in [(torch.tensor([[4, 5, 6], [0, 1, 2]]), torch.tensor([[1, 2], [3, 4]]), True),
                              (torch.tensor([[4, 5, 6], [0, 1, 2]]), torch.tensor([[1, 3], [3, 0]]), False)]:
        offsets = offsets_of(q, k)
        assert (offsets.starts is not None) == consecutive  # whole rows (starts) or a column per pair (index)
        part = offsets.rows(1, 1, 3)  # row 1, queries 1 and 2
        assert torch.equal(part.values, offsets.values) and (part.Tq, part.Tk, part.batch) == (2, 2, torch.Size())
        # the part's pairs read the offsets q - k of those queries: (1 - k, 2 - k)
        assert torch.equal(part.values[part.full_index()][0], q[1, 1:, None] - k[1, None, :])


# gather_offsets makes one indexing call below 2^15 = 32768 pairs and one index_select per (row, head) from there on:
# 151 x 217 = 32767, 128 x 256 = 32768, 99 x 331 = 32769 pairs, with consecutive keys (whole rows) and scattered ones
# (a column per pair), filled into a new tensor (autograd) or into out=
@pytest.mark.parametrize("Tq,Tk", [(151, 217), (128, 256), (99, 331)])
@pytest.mark.parametrize("keys", ["consecutive", "scattered"])
def test_offset_gather_on_both_sides_of_its_loop_switch(Tq, Tk, keys):
    from posenc.encodings import offsets as offsets_module
    from posenc.encodings.offsets import gather_offsets, offset_bias, offsets_of

    assert offsets_module._LOOP_MIN_PAIRS == 1 << 15
    g = torch.Generator().manual_seed(Tq)
    q = torch.arange(40, 40 + Tq)
    k = torch.arange(3, 3 + Tk) if keys == "consecutive" else torch.randint(0, 400, (Tk,), generator=g)
    weight = torch.tensor([0.5, -0.25], dtype=torch.float64, requires_grad=True)

    def curve(d):  # [n] offsets -> [2, n]: one line per head
        return weight[:, None] * d.double()[None]

    bias = offset_bias(q, k, curve)
    d = (q[:, None] - k[None, :]).double()  # [Tq, Tk], the offsets worked directly
    torch.testing.assert_close(bias, weight[:, None, None].detach() * d, rtol=0, atol=0)
    bias.sum().backward()  # d bias_sum / d weight_h = sum of all offsets
    torch.testing.assert_close(weight.grad, d.sum().expand(2), rtol=1e-12, atol=0)
    offsets = offsets_of(q, k)
    out = torch.empty(2, Tq, Tk, dtype=torch.float64)
    with torch.no_grad():
        gather_offsets(curve(offsets.values), offsets, out=out)
    torch.testing.assert_close(out, bias.detach(), rtol=0, atol=0)


@pytest.mark.parametrize(("k", "values"), [
    ([0, 1], [1, 0, -1]),  # offsets 0, -1, 1, 0: the range 1..-1 (3 columns <= 4 pairs)
    ([0, 2], [1, 0, -1, -2]),  # offsets 0, -2, 1, -1: the range 1..-2, 4 columns == 4 pairs: still the range
    ([0, 3], [-3, -2, 0, 1]),  # offsets 0, -3, 1, -2: the range would be 5 columns > 4 pairs: the offsets that occur
])
def test_offset_values_switch_from_the_range_to_the_occurring_offsets_past_one_column_per_pair(k, values):
    from posenc.encodings.offsets import offsets_of

    q, k = torch.tensor([0, 1]), torch.tensor(k)
    offsets = offsets_of(q, k)
    assert offsets.values.tolist() == values
    assert torch.equal(offsets.values[offsets.full_index()][0], q[:, None] - k[None, :])
