"""The reference RoPE apply against hand-derived rotations and its own gradient."""

import math

import pytest
import torch

from posenc.kernels.reference import rope_apply_reference


def _quarter_turn(pairs: int) -> tuple[torch.Tensor, torch.Tensor]:
    return torch.zeros(1, pairs), torch.ones(1, pairs)  # cos 0, sin 1: theta = pi/2 at one position


def test_half_pairing_quarter_turn():
    # half pairing pairs (x0, x2) and (x1, x3); a quarter turn maps (a, b) -> (-b, a):
    # (1, 3) -> (-3, 1), (2, 4) -> (-4, 2), so [1, 2, 3, 4] -> [-3, -4, 1, 2]
    x = torch.tensor([1.0, 2.0, 3.0, 4.0]).view(1, 1, 1, 4)
    out = rope_apply_reference(x, *_quarter_turn(2), "half")
    assert out.flatten().tolist() == [-3.0, -4.0, 1.0, 2.0]


def test_interleaved_pairing_quarter_turn():
    # interleaved pairs (x0, x1) and (x2, x3): (1, 2) -> (-2, 1), (3, 4) -> (-4, 3)
    x = torch.tensor([1.0, 2.0, 3.0, 4.0]).view(1, 1, 1, 4)
    out = rope_apply_reference(x, *_quarter_turn(2), "interleaved")
    assert out.flatten().tolist() == [-2.0, 1.0, -4.0, 3.0]


def test_partial_rotary_passes_the_tail_through():
    # R = 2 of head_dim 6: only (x0, x1) turns by 60 degrees: (1, 0) -> (cos 60, sin 60) = (0.5, sqrt(3)/2)
    x = torch.tensor([1.0, 0.0, 7.0, 8.0, 9.0, 10.0]).view(1, 1, 1, 6)
    theta = torch.tensor([[math.pi / 3]])
    out = rope_apply_reference(x, theta.cos(), theta.sin(), "half").flatten()
    torch.testing.assert_close(out[:2], torch.tensor([0.5, math.sqrt(3) / 2]))
    assert out[2:].tolist() == [7.0, 8.0, 9.0, 10.0]


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_minus_theta_undoes_theta(pairing):
    x = torch.randn(2, 3, 5, 10, dtype=torch.float64)
    theta = torch.rand(5, 4, dtype=torch.float64) * 100
    there = rope_apply_reference(x, theta.cos(), theta.sin(), pairing, torch.float64)
    back = rope_apply_reference(there, theta.cos(), -theta.sin(), pairing, torch.float64)
    torch.testing.assert_close(back, x, rtol=0, atol=1e-12)


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
def test_gradcheck_float64(pairing):
    x = torch.randn(1, 2, 3, 6, dtype=torch.float64, requires_grad=True)
    theta = torch.rand(2, 3, 2, dtype=torch.float64) * 10  # per-row tables [B, T, R/2]... with B = 2 below
    x2 = torch.randn(2, 2, 3, 6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: rope_apply_reference(v, theta[0].cos(), theta[0].sin(), pairing,
                                                                   torch.float64), (x,))
    assert torch.autograd.gradcheck(lambda v: rope_apply_reference(v, theta.cos(), theta.sin(), pairing,
                                                                   torch.float64), (x2,))


def test_pair_channels_by_hand():
    from posenc.kernels.reference import pair_channels

    x = torch.arange(6.0)
    assert [t.tolist() for t in pair_channels(x, "half")] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert [t.tolist() for t in pair_channels(x, "interleaved")] == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]
