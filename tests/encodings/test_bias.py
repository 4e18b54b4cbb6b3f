"""ALiBi and T5: hand-derived slopes and buckets."""

import pytest
import torch

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
