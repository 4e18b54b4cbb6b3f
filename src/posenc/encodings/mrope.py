"""Multimodal RoPE (M-RoPE): sections of each head turn with separate position axes (Qwen2-VL, Qwen3-VL).

Each token has one position per axis, ``(t, h, w)`` (temporal, height, width) for Qwen2-VL. Rotary pair ``i`` turns
by the position of the axis that owns it::

    theta_{p,i} = p[axis(i)] * inv_freq_i,         inv_freq_i = base^(-2i/R)   (i = 0..R/2-1)

``mrope_section = (s_t, s_h, s_w)`` with ``s_t + s_h + s_w = R/2`` says how many pairs each axis owns:

- contiguous (Wang et al. 2024, "Qwen2-VL", §2.1): pairs ``0..s_t-1`` follow t, the next ``s_h`` follow h, the last
  ``s_w`` follow w;
- interleaved (Qwen Team 2025, Qwen3-VL: "interleaved-MRoPE"): pairs go t, h, w, t, h, w, ... (pair ``i`` follows h
  when ``i % 3 == 1`` and ``i < 3 s_h``, w when ``i % 3 == 2`` and ``i < 3 s_w``, t otherwise), so every axis spans
  the whole frequency range.

Text tokens carry the same position on every axis, and M-RoPE is then exactly RoPE. The rotation goes through
:func:`posenc.kernels.apply_rope` (pairing ``half`` as both models, or ``interleaved``).

Positions: ``[T]`` or ``[B, T]`` (text: one position for every axis) or ``[A, B, T]`` (one row per axis; a batch of
one broadcasts).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, PositionalEncoding, check_head_layout, check_positions, math_dtype
from posenc.encodings.catalog import register
from posenc.encodings.rope_scaling import RopeScaling, compute_inv_freq
from posenc.errors import PosencError
from posenc.kernels import apply_rope, check_pairing, check_qk

__all__ = ["MRoPE", "SectionedRotary", "axis_positions", "mrope_axes", "rotary_width"]


def axis_positions(positions: torch.Tensor, axes: int, length: int, batch: int, name: str) -> torch.Tensor:
    """Positions as int64 ``[A, B', T]`` (``B'`` is 1 or ``batch``): ``[T]`` and ``[B, T]`` repeat on every axis."""
    if isinstance(positions, torch.Tensor) and positions.dim() == 3:
        if positions.shape[0] != axes:
            raise PosencError(f"{name} has {positions.shape[0]} axes (shape {list(positions.shape)}) but this encoding "
                              f"turns by {axes} position axes; pass [{axes}, B, T] or one position per token ([T])")
        rows = [check_positions(p, length, f"{name}[{a}]", batch=batch) for a, p in enumerate(positions)]
        return torch.stack(rows)  # [A, B', T]
    positions = check_positions(positions, length, name, batch=batch)
    positions = positions[None] if positions.dim() == 1 else positions  # [B', T]
    return positions[None].expand(axes, -1, -1)  # [A, B', T]


def mrope_axes(sections: Sequence[int], interleaved: bool = False) -> torch.Tensor:
    """The axis of each rotary pair ``[sum(sections)]`` (int64) for M-RoPE sections, contiguous or interleaved."""
    pairs = int(sum(sections))
    if not interleaved:
        return torch.repeat_interleave(torch.arange(len(sections)), torch.tensor(list(sections)))
    axis = torch.zeros(pairs, dtype=torch.long)
    i = torch.arange(pairs)
    for a in range(1, len(sections)):  # axis a owns pairs i = a, a + A, a + 2A, ... below A * s_a
        axis[(i % len(sections) == a) & (i < len(sections) * sections[a])] = a
    return axis



def rotary_width(family: str, head_dim: object, rotary_dim: object) -> int:
    """The rotated width of a sectioned rotary encoding (``rotary_dim``, default ``head_dim``), checked: both even
    integers, the rotated width at most the head's."""
    if not whole_number(head_dim, 2) or head_dim % 2:
        raise PosencError(f"{family} rotates pairs of channels, so head_dim must be an even integer >= 2, "
                          f"got {head_dim!r}")
    rotary_dim = head_dim if rotary_dim is None else rotary_dim
    if not whole_number(rotary_dim, 2) or rotary_dim % 2 or rotary_dim > head_dim:
        raise PosencError(f"rotary_dim must be an even integer in 2..head_dim ({head_dim}), got {rotary_dim!r}")
    return int(rotary_dim)

class SectionedRotary(PositionalEncoding):
    """RoPE whose pair ``i`` turns by position axis ``axis[i]``: the shared machinery of M-RoPE and axial RoPE.

    Subclasses set ``head_dim``, ``rotary_dim``, ``pairing``, ``attention_factor`` and the buffers ``inv_freq``
    ``[R/2]`` (float64) and ``pair_axis`` ``[R/2]`` (int64), and may override :meth:`to_axes` (how 1-D or 2-D
    positions become one row per axis).
    """

    axes: int = 1

    def to_axes(self, positions: torch.Tensor, length: int, batch: int, name: str) -> torch.Tensor:
        return axis_positions(positions, self.axes, length, batch, name)

    def axis_tables(self, axis_pos: torch.Tensor,
                    dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` ``[B', T, R/2]`` in ``dtype`` (float32, or float64 for float64 inputs) from positions
        ``[A, B', T]`` (angles in float64)."""
        pos = axis_pos.to(torch.float64)[self.pair_axis.to(axis_pos.device)]  # [R/2, B', T]: each pair's axis
        theta = pos.permute(1, 2, 0) * self.inv_freq.to(axis_pos.device)  # [B', T, R/2]
        return (theta.cos() * self.attention_factor).to(dtype), (theta.sin() * self.attention_factor).to(dtype)

    def rotate(self, q: torch.Tensor, k: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
               inplace: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
        """Rotate ``q [B, H, Tq, Dh]`` and ``k [B, Hk, Tk, Dh]`` at positions ``[T]``, ``[B, T]`` or ``[A, B, T]``."""
        check_head_layout(q, q_positions, "q", "q_positions")  # [B, T, H, Dh] is named before any size check
        check_head_layout(k, k_positions, "k", "k_positions")
        check_qk(q, k, head_dim=self.head_dim)
        work = math_dtype(q, k)  # float64 tables and math for float64 inputs, else float32
        q_axes = self.to_axes(q_positions, q.shape[2], q.shape[0], "q_positions").to(q.device)
        k_axes = self.to_axes(k_positions, k.shape[2], k.shape[0], "k_positions").to(k.device)
        q_cos, q_sin = self.axis_tables(q_axes, work)
        k_cos, k_sin = self.axis_tables(k_axes, work)
        return apply_rope(q, k, q_cos, q_sin, k_cos, k_sin, pairing=self.pairing, inplace=inplace)


@register("mrope")
class MRoPE(SectionedRotary):
    """Multimodal RoPE over temporal / height / width positions (Qwen2-VL §2.1; Qwen3-VL interleaved).

    Args:
        head_dim: width of each query/key head ``Dh``.
        mrope_section: pairs per axis, summing to ``rotary_dim / 2`` (Qwen2-VL: ``(16, 24, 24)`` of 128 channels).
            Default: thirds of the pairs, the remainder on the first axis.
        interleaved: ``False`` for Qwen2-VL's contiguous sections, ``True`` for Qwen3-VL's t, h, w, t, h, w order.
        base, pairing, rotary_dim, scaling: as for :class:`posenc.encodings.rope.RoPE` (length-dependent
            scalings are refused).

    Example::

        >>> import torch, posenc
        >>> m = posenc.build("mrope", head_dim=12, mrope_section=[2, 2, 2])
        >>> q = torch.randn(1, 2, 4, 12)
        >>> thw = torch.stack([torch.zeros(4), torch.arange(4) // 2, torch.arange(4) % 2]).long()[:, None]  # [3, 1, 4]
        >>> m.rotate(q, q, thw, thw)[0].shape
        torch.Size([1, 2, 4, 12])
    """

    info = EncodingInfo(family="rotary", paper="Wang et al. 2024, Qwen2-VL (arXiv:2409.12191) §2.1; Qwen3-VL 2025",
                        hooks=("rotate",))

    def __init__(self, head_dim: int = 64, mrope_section: Sequence[int] | None = None, interleaved: bool = False,
                 base: float = 10000.0, pairing: str = "half", rotary_dim: int | None = None,
                 scaling: dict[str, Any] | str | RopeScaling | None = None):
        super().__init__()
        rotary_dim = rotary_width("M-RoPE", head_dim, rotary_dim)
        check_pairing(pairing)
        pairs = rotary_dim // 2
        if mrope_section is None:
            third = pairs // 3
            mrope_section = (pairs - 2 * third, third, third)
        sections = list(mrope_section)
        if not sections or not all(whole_number(s, 0) for s in sections):
            raise PosencError(f"mrope_section must be a list of non-negative integers (pairs per axis), "
                              f"got {mrope_section!r}")
        if sum(sections) != pairs:
            raise PosencError(f"mrope_section {sections} sums to {sum(sections)} pairs ({2 * sum(sections)} "
                              f"channels) but the rotary width is {rotary_dim} channels = {pairs} pairs; give "
                              f"sections that sum to {pairs} (e.g. {[pairs - 2 * (pairs // 3)] + [pairs // 3] * 2})")
        if interleaved:
            owned = torch.bincount(mrope_axes(sections, True), minlength=len(sections)).tolist()
            if owned != sections:
                raise PosencError(f"interleaved mrope_section {sections} does not fit {pairs} pairs: axis a > 0 owns "
                                  f"every {len(sections)}-th pair from pair a, which gives {owned}; give the later "
                                  f"axes at most {pairs // len(sections)} pairs each")
        scaling = RopeScaling.parse(scaling)
        if scaling.length_dependent:
            raise PosencError(f"M-RoPE takes fixed scalings only, got the length-dependent {scaling.type!r}")
        inv_freq, factor = compute_inv_freq(rotary_dim, base, scaling)
        self.head_dim, self.rotary_dim, self.pairing, self.base = head_dim, rotary_dim, pairing, float(base)
        self.mrope_section, self.interleaved, self.scaling = tuple(sections), bool(interleaved), scaling
        self.axes = len(sections)
        self.attention_factor = factor
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # [R/2] float64
        self.register_buffer("pair_axis", mrope_axes(sections, self.interleaved), persistent=False)  # [R/2]

    def frequencies(self, seq_len: int | None = None) -> tuple[torch.Tensor, float]:
        """``(inv_freq [R/2], attention_factor)``: the frequencies at text positions (every axis equal)."""
        return self.inv_freq, self.attention_factor

    def tables(self, positions: torch.Tensor, seq_len: int | None = None,
               dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
        """``(cos, sin)`` ``[..., T, R/2]`` in ``dtype`` (float32 or float64) at 1-D (text) positions ``[T]`` or
        ``[B, T]``."""
        cos, sin = self.axis_tables(axis_positions(positions, self.axes, positions.shape[-1],
                                                   positions.shape[0] if positions.dim() == 2 else 1, "positions"),
                                    dtype)
        return (cos[0], sin[0]) if positions.dim() == 1 else (cos, sin)

    def extra_repr(self) -> str:
        return (f"head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, base={self.base:g}, "
                f"mrope_section={list(self.mrope_section)}, interleaved={self.interleaved}, pairing={self.pairing!r}, "
                f"scaling={self.scaling.as_dict()}")
