"""M-RoPE's ``tables`` at text positions (every axis the same position) are RoPE's tables: the sections only choose
which axis each frequency reads, and at text positions every axis reads the same number. Checked against
``posenc.build("rope")`` with the same base, width and scaling, for ``[T]`` and ``[B, T]`` positions, float32 and
float64, contiguous and interleaved sections."""

from __future__ import annotations

import pytest
import torch

import posenc


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_text_positions_give_ropes_tables(interleaved, dtype):
    mrope = posenc.build("mrope", head_dim=12, mrope_section=[2, 2, 2], interleaved=interleaved, base=500.0)
    rope = posenc.build("rope", head_dim=12, base=500.0)
    flat = torch.tensor([0, 1, 2, 7, 30])
    batched = torch.tensor([[0, 1, 2, 3, 4], [5, 9, 11, 40, 41]])
    for positions in (flat, batched):
        cos, sin = mrope.tables(positions, dtype=dtype)
        want_cos, want_sin = rope.tables(positions, dtype=dtype)
        assert cos.shape == want_cos.shape == (*positions.shape, 6)
        assert cos.dtype == sin.dtype == dtype
        torch.testing.assert_close(cos, want_cos.to(dtype), rtol=0, atol=0 if dtype == torch.float64 else 1e-6)
        torch.testing.assert_close(sin, want_sin.to(dtype), rtol=0, atol=0 if dtype == torch.float64 else 1e-6)


def test_text_positions_by_hand():
    # one pair per axis: inv_freq = base^(-2i/6) = 1, 1/10, 1/100 for base 1000; position 2 -> angles 2, 0.2, 0.02
    mrope = posenc.build("mrope", head_dim=6, mrope_section=[1, 1, 1], base=1000.0)
    cos, sin = mrope.tables(torch.tensor([0, 2]), dtype=torch.float64)
    angles = torch.tensor([[0.0, 0.0, 0.0], [2.0, 0.2, 0.02]], dtype=torch.float64)
    torch.testing.assert_close(cos, angles.cos(), rtol=0, atol=1e-15)
    torch.testing.assert_close(sin, angles.sin(), rtol=0, atol=1e-15)
