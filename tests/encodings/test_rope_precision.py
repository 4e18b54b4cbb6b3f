"""Every rotary encoding follows its input's precision: float64 q and k are rotated by float64 tables with float64 math
(equal to the formula evaluated in numpy float64 to 1e-12 at positions up to 2^20), while float32 inputs keep their
float32 tables and the fused path they had.

The encodings come from the registry: every one whose hook is ``rotate`` and that rotates through
:func:`posenc.kernels.apply_rope` (RoPE's subclasses and the sectioned ones: M-RoPE, VideoRoPE, axial RoPE). PoPE
(magnitudes and phases, not a rotation) has its own precision test in ``test_pope.py``.
"""

import numpy as np
import pytest
import torch

from posenc.encodings import catalog
from posenc.encodings.mrope import SectionedRotary
from posenc.encodings.rope import RoPE
from posenc.encodings.rope_scaling import SCALINGS
from posenc.kernels import apply_rope, select_provider
from posenc.kernels.reference import rope_apply_reference

HEAD_DIM = 16
TOP = 2 ** 20


def _rotating_names() -> list[str]:
    return [name for name in catalog.available()
            if "rotate" in catalog.get_class(name).info.hooks
            and issubclass(catalog.get_class(name), RoPE | SectionedRotary)]


ROTATING = _rotating_names()

#: one spec per scaling type (the test below checks that every type of SCALINGS has one)
SCALING_SPECS = {
    "default": {"type": "default"},
    "linear": {"type": "linear", "factor": 4.0},
    "ntk": {"type": "ntk", "factor": 4.0},
    "dynamic": {"type": "dynamic", "factor": 4.0, "original_max_len": 2048},
    "yarn": {"type": "yarn", "factor": 4.0, "original_max_len": 2048},
    "llama3": {"type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
               "original_max_len": 8192},
    "longrope": {"type": "longrope", "factor": 4.0, "original_max_len": 4096,
                 "short_factor": [1.0 + 0.1 * i for i in range(HEAD_DIM // 2)],
                 "long_factor": [1.0 + 0.5 * i for i in range(HEAD_DIM // 2)]},
    "proportional": {"type": "proportional", "partial_rotary_factor": 0.5},
}


def test_the_registry_names_every_rotating_family():
    # a guard on the selection above: the families this test is about are all found by it
    assert {"rope", "xpos", "p_rope", "mrope", "videorope", "axial_rope"} <= set(ROTATING)
    assert set(SCALING_SPECS) == set(SCALINGS)


# -- the formula in numpy float64 ------------------------------------------------------------------------------------
def _rotate64(x: np.ndarray, cos: np.ndarray, sin: np.ndarray, pairing: str) -> np.ndarray:
    """``(x1 cos - x2 sin, x2 cos + x1 sin)`` on the first ``R`` channels of ``x [B, H, T, Dh]``; ``cos [B|1, T, R/2]``."""
    half = cos.shape[-1]
    rot = 2 * half
    c, s = cos[:, None], sin[:, None]  # over heads
    if pairing == "half":
        x1, x2 = x[..., :half], x[..., half:rot]
    else:
        x1, x2 = x[..., 0:rot:2], x[..., 1:rot:2]
    out = x.copy()
    if pairing == "half":
        out[..., :half], out[..., half:rot] = x1 * c - x2 * s, x2 * c + x1 * s
    else:
        out[..., 0:rot:2], out[..., 1:rot:2] = x1 * c - x2 * s, x2 * c + x1 * s
    return out


def _axis_positions(enc, positions: torch.Tensor) -> np.ndarray:
    """``[A, 1, T]`` int64 positions as numpy: sectioned encodings take them as given, RoPE's family has one axis."""
    pos = positions.numpy()
    return pos if pos.ndim == 3 else pos[None, None]


def _angles64(enc, positions: torch.Tensor) -> tuple[np.ndarray, float]:
    """``theta [1, T, R/2]`` in float64 from each pair's axis, and the attention factor."""
    axis_pos = _axis_positions(enc, positions)  # [A, 1, T]
    if isinstance(enc, RoPE):
        seq_len = int(axis_pos.max()) + 1
        inv_freq, factor = enc.frequencies(seq_len)
        pair_axis = np.zeros(inv_freq.numel(), dtype=np.int64)
    else:
        inv_freq, factor, pair_axis = enc.inv_freq, enc.attention_factor, enc.pair_axis.numpy()
    inv = inv_freq.double().numpy()
    pos = axis_pos[pair_axis].astype(np.float64)  # [R/2, 1, T]: each pair's own axis
    return np.moveaxis(pos, 0, -1) * inv, float(factor)  # [1, T, R/2]


def _expected64(enc, q: torch.Tensor, k: torch.Tensor, q_pos: torch.Tensor, k_pos: torch.Tensor):
    """What ``rotate`` must give for float64 ``q``, ``k``, computed from the formula in numpy float64."""
    q_theta, factor = _angles64(enc, q_pos)
    k_theta, _ = _angles64(enc, k_pos)
    q_gain, k_gain = np.full(q_theta.shape, factor), np.full(k_theta.shape, factor)
    if enc.name == "xpos":  # zeta_i^(+-(p - c) / scale_base), c the middle of the call's positions
        rot = enc.rotary_dim
        zeta = (np.arange(0, rot, 2) + enc.gamma * rot) / ((1 + enc.gamma) * rot)
        lo = min(int(q_pos.min()), int(k_pos.min()))
        hi = max(int(q_pos.max()), int(k_pos.max()))
        center = (lo + hi + 1) // 2
        q_gain = q_gain * zeta ** ((q_pos.numpy().astype(np.float64) - center)[None, :, None] / enc.scale_base)
        k_gain = k_gain * zeta ** (-(k_pos.numpy().astype(np.float64) - center)[None, :, None] / enc.scale_base)
    q_out = _rotate64(q.double().numpy(), np.cos(q_theta) * q_gain, np.sin(q_theta) * q_gain, enc.pairing)
    k_out = _rotate64(k.double().numpy(), np.cos(k_theta) * k_gain, np.sin(k_theta) * k_gain, enc.pairing)
    return q_out, k_out, (np.cos(q_theta) * q_gain, np.sin(q_theta) * q_gain)


def _positions(enc, count: int, gen: torch.Generator) -> torch.Tensor:
    """Positions reaching 2^20: ``[T]`` for RoPE's family (a window near 2^20 for xPos, whose decay limits the span of
    one call), ``[A, 1, T]`` with a different position on every axis for the sectioned encodings."""
    if enc.name == "xpos":
        return torch.randint(TOP - 2000, TOP + 1, (count,), generator=gen)
    if isinstance(enc, SectionedRotary):
        pos = torch.randint(0, TOP + 1, (enc.axes, 1, count), generator=gen)
        pos[:, 0, 0] = TOP
        return pos
    pos = torch.randint(0, TOP + 1, (count,), generator=gen)
    pos[:3] = torch.tensor([0, 1, TOP])
    return pos


def _check_close64(got: torch.Tensor, want: np.ndarray) -> None:
    assert got.dtype == torch.float64
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def _cases():
    for name in ROTATING:
        for pairing in ("half", "interleaved"):
            yield pytest.param(name, {"pairing": pairing}, id=f"{name}-{pairing}")
    yield pytest.param("rope", {"rotary_dim": 6}, id="rope-partial")
    yield pytest.param("rope", {"base": 500000.0}, id="rope-base-500000")
    for kind, spec in SCALING_SPECS.items():
        yield pytest.param("rope", {"scaling": spec}, id=f"rope-{kind}")
    yield pytest.param("mrope", {"interleaved": True}, id="mrope-qwen3-sections")
    yield pytest.param("mrope", {"scaling": SCALING_SPECS["yarn"]}, id="mrope-yarn")
    yield pytest.param("videorope", {"temporal": 3}, id="videorope-temporal-3")


def _build(name: str, options: dict):
    return catalog.build(name, head_dim=HEAD_DIM, **options)


@pytest.mark.parametrize(("name", "options"), list(_cases()))
def test_float64_inputs_rotate_in_float64(name, options):
    enc = _build(name, options)
    gen = torch.Generator().manual_seed(11)
    q = torch.randn(2, 4, 9, HEAD_DIM, generator=gen, dtype=torch.float64)  # GQA: 4 query heads on 2 key heads
    k = torch.randn(2, 2, 7, HEAD_DIM, generator=gen, dtype=torch.float64)
    q_pos, k_pos = _positions(enc, 9, gen), _positions(enc, 7, gen)
    q_out, k_out = enc.rotate(q, k, q_pos, k_pos)
    want_q, want_k, _ = _expected64(enc, q, k, q_pos, k_pos)
    _check_close64(q_out, want_q)
    _check_close64(k_out, want_k)


@pytest.mark.parametrize(("name", "options"), list(_cases()))
def test_float32_inputs_keep_float32_tables_and_their_path(name, options):
    enc = _build(name, options)
    gen = torch.Generator().manual_seed(12)
    q = torch.randn(1, 2, 9, HEAD_DIM, generator=gen)
    k = torch.randn(1, 2, 9, HEAD_DIM, generator=gen)
    pos = _positions(enc, 9, gen)
    q_out, k_out = enc.rotate(q, k, pos, pos)
    assert q_out.dtype == k_out.dtype == torch.float32
    want_q, want_k, (cos64, sin64) = _expected64(enc, q, k, pos, pos)
    # float32 tables (the float64 values rounded once) and float32 math: the float32 reference path's numbers
    cos32, sin32 = torch.from_numpy(cos64).float(), torch.from_numpy(sin64).float()
    ref_q = rope_apply_reference(q, cos32, sin32, enc.pairing)
    torch.testing.assert_close(q_out, ref_q, rtol=0, atol=2e-6 * float(ref_q.abs().max()))
    # and still float32-accurate only: 1e-12 is a float64 promise
    assert np.abs(q_out.double().numpy() - want_q).max() > 1e-12
    if hasattr(enc, "tables"):  # 1-D (text) positions: the same tables as before, float32
        text = pos if pos.dim() == 1 else pos[0, 0]
        cos, sin = enc.tables(text)
        assert cos.dtype == sin.dtype == torch.float32


@pytest.mark.parametrize("name", [n for n in ROTATING if hasattr(catalog.get_class(n), "tables")])
def test_tables_in_float64_are_not_rounded_through_float32(name):
    enc = _build(name, {})
    positions = torch.tensor([0, 1, 12345, TOP - 1, TOP])
    cos, sin = enc.tables(positions, dtype=torch.float64)
    assert cos.dtype == sin.dtype == torch.float64
    cos32, sin32 = enc.tables(positions)  # the cached float32 tables are unchanged
    assert cos32.dtype == torch.float32
    torch.testing.assert_close(cos32, cos.float(), rtol=0, atol=0)
    torch.testing.assert_close(sin32, sin.float(), rtol=0, atol=0)
    axes = positions[None, None].expand(getattr(enc, "axes", 1), 1, -1) if isinstance(enc, SectionedRotary) \
        else positions
    theta, factor = _angles64(enc, axes)
    np.testing.assert_allclose(cos.numpy(), (np.cos(theta) * factor)[0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(sin.numpy(), (np.sin(theta) * factor)[0], rtol=0, atol=1e-15)


def test_a_float64_query_with_a_float32_key_keeps_each_precision():
    rope = catalog.build("rope", head_dim=HEAD_DIM)
    gen = torch.Generator().manual_seed(13)
    q = torch.randn(1, 2, 5, HEAD_DIM, generator=gen, dtype=torch.float64)
    k = torch.randn(1, 2, 5, HEAD_DIM, generator=gen)
    pos = torch.tensor([0, 3, 70000, TOP - 1, TOP])
    q_out, k_out = rope.rotate(q, k, pos, pos)
    want_q, want_k, _ = _expected64(rope, q, k, pos, pos)
    _check_close64(q_out, want_q)
    assert k_out.dtype == torch.float32
    np.testing.assert_allclose(k_out.numpy(), want_k, rtol=0, atol=1e-6 * np.abs(want_k).max())


def test_float64_gradients_pass_gradcheck():
    # the backward pass of a float64 rotation is the float64 rotation by -theta: torch's finite differences agree
    rope = catalog.build("rope", head_dim=8, scaling=SCALING_SPECS["yarn"])
    gen = torch.Generator().manual_seed(14)
    q = torch.randn(1, 2, 3, 8, generator=gen, dtype=torch.float64, requires_grad=True)
    k = torch.randn(1, 1, 3, 8, generator=gen, dtype=torch.float64, requires_grad=True)
    pos = torch.tensor([5, 70000, TOP])
    assert torch.autograd.gradcheck(lambda a, b: rope.rotate(a, b, pos, pos), (q, k))


def test_apply_rope_rotates_float64_with_float64_math():
    # float64 tensors go to the plain-torch path, which then computes in float64 (it computed in float32 before)
    assert select_provider("cpu", torch.float64) == "reference"
    gen = torch.Generator().manual_seed(15)
    theta = torch.rand(6, 4, generator=gen, dtype=torch.float64) * TOP
    q = torch.randn(1, 2, 6, 8, generator=gen, dtype=torch.float64)
    cos, sin = theta.cos(), theta.sin()
    for pairing in ("half", "interleaved"):
        q_out, _ = apply_rope(q, q, cos, sin, cos, sin, pairing=pairing)
        _check_close64(q_out, _rotate64(q.numpy(), cos.numpy()[None], sin.numpy()[None], pairing))


def test_xpos_in_float64_spans_float64s_range():
    # float64 factors reach far past float32's limit (33 995 positions): a span of 100 000 is rotated, and right
    xpos = catalog.build("xpos", head_dim=HEAD_DIM)
    assert xpos.max_span(torch.float64) > 100_000 > xpos.max_span(torch.float32)
    gen = torch.Generator().manual_seed(16)
    q = torch.randn(1, 1, 4, HEAD_DIM, generator=gen, dtype=torch.float64)
    pos = torch.tensor([TOP - 100_000, TOP - 50_000, TOP - 1, TOP - 99_999])
    q_out, k_out = xpos.rotate(q, q, pos, pos)
    want_q, want_k, _ = _expected64(xpos, q, q, pos, pos)
    np.testing.assert_allclose(q_out.numpy(), want_q, rtol=1e-12, atol=0)
    np.testing.assert_allclose(k_out.numpy(), want_k, rtol=1e-12, atol=0)
