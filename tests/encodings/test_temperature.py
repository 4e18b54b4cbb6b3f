"""Llama 4's attention temperature: the factor by hand, its properties, and its effect in attention."""

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

import posenc
from posenc.errors import PosencError
from posenc.model.transformer import attend


def test_factor_by_hand():
    t = posenc.build("temperature", attn_scale=0.1, floor_scale=8192)
    p = torch.tensor([0, 8190, 8191, 16383, 81919, 10**9])
    # floor((p + 1) / 8192) = 0, 0, 1, 2, 10, 122070
    want = [1.0, 1.0, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(3), 1 + 0.1 * math.log(11),
            1 + 0.1 * math.log(122071)]
    torch.testing.assert_close(t.query_scale(p), torch.tensor(want), rtol=1e-6, atol=0)


@given(st.integers(0, 10**7), st.integers(1, 5000), st.floats(0, 2))
def test_factor_is_one_before_the_first_floor_and_never_falls(p, floor_scale, attn_scale):
    t = posenc.build("temperature", attn_scale=attn_scale, floor_scale=floor_scale)
    f = t.query_scale(torch.tensor([p, p + 1]))
    if p + 1 < floor_scale:
        assert float(f[0]) == 1.0
    assert float(f[1]) >= float(f[0]) >= 1.0


def test_batched_positions_and_bad_options():
    t = posenc.build("temperature", attn_scale=0.5, floor_scale=2)
    assert t.query_scale(torch.tensor([[0, 1], [3, 4]])).shape == (2, 2)
    with pytest.raises(PosencError, match="floor_scale must be a positive integer"):
        posenc.build("temperature", floor_scale=0)
    with pytest.raises(PosencError, match="attn_scale must be a finite number >= 0"):
        posenc.build("temperature", attn_scale=float("nan"))


def test_attention_scales_each_querys_logits_by_its_factor():
    t = posenc.build("temperature", attn_scale=0.5, floor_scale=2)
    g = torch.Generator().manual_seed(0)
    q, k, v = torch.randn(1, 2, 5, 4, generator=g), torch.randn(1, 2, 5, 4, generator=g), torch.randn(1, 2, 5, 4,
                                                                                                    generator=g)
    positions = torch.arange(5)
    got = attend(q, k, v, t, positions, positions, None, causal=True)
    factor = 1 + 0.5 * torch.log1p(torch.floor((positions + 1.0) / 2))  # Hugging Face's expression
    logits = (q * factor[:, None]) @ k.transpose(-1, -2) / 2.0
    logits = logits.masked_fill(torch.ones(5, 5, dtype=torch.bool).triu(1), float("-inf"))
    torch.testing.assert_close(got, logits.softmax(-1) @ v, rtol=1e-5, atol=1e-6)
    plain = attend(q, k, v, posenc.build("nope"), positions, positions, None, causal=True)
    assert (got - plain).abs().max() > 1e-2
