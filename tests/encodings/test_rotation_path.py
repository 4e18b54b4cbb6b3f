"""The rotary encodings share one path: RoPE's ``rotate`` (one validation, tables, per-pair factors) and one rotation,
:func:`posenc.kernels.apply_rope`. xPos is that path with its decay as the factors."""

import math

import pytest
import torch

import posenc
from posenc.encodings.xpos import xpos_center, xpos_zeta
from posenc.errors import PosencError
from posenc.kernels import apply_rope


def test_xpos_rotation_by_hand():
    # head_dim 2: one pair, inv_freq = base^0 = 1, so theta = p; zeta = (0 + 0.4 * 2) / (1.4 * 2) = 2/7.
    # q = (1, 0) at n = 3, k = (0, 1) at m = 1; centre c = (smallest + largest + 1) // 2 = 2
    xpos = posenc.build("xpos", head_dim=2)
    q = torch.tensor([1.0, 0.0]).view(1, 1, 1, 2)
    k = torch.tensor([0.0, 1.0]).view(1, 1, 1, 2)
    qx, kx = xpos.rotate(q, k, torch.tensor([3]), torch.tensor([1]))
    zeta = 2 / 7
    q_factor = zeta ** ((3 - 2) / 512)  # zeta^((n - c) / scale_base)
    k_factor = zeta ** (-(1 - 2) / 512)  # zeta^(-(m - c) / scale_base)
    want_q = [math.cos(3) * q_factor, math.sin(3) * q_factor]  # R(3) (1, 0) = (cos 3, sin 3)
    want_k = [-math.sin(1) * k_factor, math.cos(1) * k_factor]  # R(1) (0, 1) = (-sin 1, cos 1)
    assert qx.flatten().tolist() == pytest.approx(want_q, abs=1e-6)
    assert kx.flatten().tolist() == pytest.approx(want_k, abs=1e-6)
    assert float(xpos.scales(torch.tensor([3]), torch.tensor([1]))[0][0, 0]) == pytest.approx(q_factor, abs=1e-7)
    assert abs(float(xpos_zeta(2)[0]) - zeta) < 1e-15


@pytest.mark.parametrize("pairing", ["half", "interleaved"])
@pytest.mark.parametrize("rotary_dim", [16, 6])
@pytest.mark.parametrize("per_row", [False, True])
def test_xpos_equals_rope_tables_times_its_decay(pairing, rotary_dim, per_row):
    # the formula xPos applied before its rotation went through RoPE's rotate: tables multiplied by the decay, then the
    # one rotation; the shared path gives the same numbers bit for bit
    gen = torch.Generator().manual_seed(7)
    xpos = posenc.build("xpos", head_dim=16, pairing=pairing, rotary_dim=rotary_dim)
    q, k = torch.randn(2, 4, 5, 16, generator=gen), torch.randn(2, 2, 7, 16, generator=gen)
    if per_row:
        qp = torch.stack([torch.arange(5) + 100, torch.arange(5) * 3])
        kp = torch.stack([torch.arange(7) + 98, torch.arange(7) * 2])
    else:
        qp, kp = torch.arange(2, 7), torch.arange(7) + 900
    center = xpos_center(qp, kp)
    q_cos, q_sin = xpos.tables(qp)
    k_cos, k_sin = xpos.tables(kp)
    q_scale = xpos.decay(qp, center).float()
    k_scale = (1.0 / xpos.decay(kp, center)).float()
    want = apply_rope(q, k, q_cos * q_scale, q_sin * q_scale, k_cos * k_scale, k_sin * k_scale, pairing=pairing)
    got = xpos.rotate(q, k, qp, kp)
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])
    # and it is not plain RoPE: the decay moves every rotated channel, never the pass-through ones
    plain = posenc.build("rope", head_dim=16, pairing=pairing, rotary_dim=rotary_dim).rotate(q, k, qp, kp)
    assert not torch.allclose(got[0][..., :rotary_dim], plain[0][..., :rotary_dim])
    assert torch.equal(got[0][..., rotary_dim:], q[..., rotary_dim:])


def test_xpos_in_place_and_gradients_follow_the_shared_path():
    xpos = posenc.build("xpos", head_dim=8)
    gen = torch.Generator().manual_seed(3)
    q, k = torch.randn(1, 2, 4, 8, generator=gen), torch.randn(1, 2, 4, 8, generator=gen)
    pos = torch.arange(4) + 40
    out = xpos.rotate(q, k, pos, pos)
    qi, ki = q.clone(), k.clone()
    returned = xpos.rotate(qi, ki, pos, pos, inplace=True)
    assert returned[0] is qi and torch.equal(qi, out[0]) and torch.equal(ki, out[1])
    # the map q -> a R(theta) q is linear: its gradient for an upstream g is a R(-theta) g, so <grad, q> = <g, out>
    qg = q.clone().requires_grad_(True)
    g = torch.randn(q.shape, generator=gen)
    (grad,) = torch.autograd.grad((xpos.rotate(qg, k, pos, pos)[0] * g).sum(), qg)
    torch.testing.assert_close((grad * q).sum(), (g * out[0]).sum())


@pytest.mark.parametrize("name, options", [("rope", {}), ("xpos", {}), ("mrope", {"mrope_section": [4, 2, 2]})])
def test_every_rotary_encoding_checks_its_arguments_the_same_way(name, options):
    enc = posenc.build(name, head_dim=16, **options)
    q, pos = torch.randn(2, 4, 5, 16), torch.arange(5)
    with pytest.raises(PosencError, match=r"k has head_dim 8 but this encoding was built for head_dim 16; build it "
                                          r"with head_dim=8"):
        enc.rotate(q, torch.randn(2, 2, 5, 8), pos, pos)
    with pytest.raises(PosencError, match=r"q must have shape \[batch, heads, seq, head_dim\], got \[4, 5, 16\]"):
        enc.rotate(q[0], q, pos, pos)
    with pytest.raises(PosencError, match="q must be a floating-point tensor, got torch.int64"):
        enc.rotate(q.long(), q, pos, pos)
    with pytest.raises(PosencError, match=r"q heads \(4\) must be a multiple of k heads \(3\)"):
        enc.rotate(q, torch.randn(2, 3, 5, 16), pos, pos)
    with pytest.raises(PosencError, match="same batch size, got 2 and 1"):
        enc.rotate(q, q[:1], pos, pos)


def test_seq_len_picks_the_length_a_dynamic_scaling_is_evaluated_at():
    rope = posenc.build("rope", head_dim=8, scaling={"type": "dynamic", "factor": 2.0, "original_max_len": 16})
    q, pos = torch.randn(1, 1, 4, 8), torch.arange(4)
    at_64 = rope.rotate(q, q, pos, pos, seq_len=64)[0]
    cos, sin = rope.tables(pos, 64)
    torch.testing.assert_close(at_64, apply_rope(q, q, cos, sin, cos, sin)[0], rtol=0, atol=0)
    assert not torch.allclose(at_64, rope.rotate(q, q, pos, pos)[0])  # default: 1 + the largest position = 4
    with pytest.raises(PosencError, match="seq_len must be a positive integer .* got 0"):
        rope.rotate(q, q, pos, pos, seq_len=0)
