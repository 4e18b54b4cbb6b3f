"""2-D axial RoPE for image patches: rows turn one half of the rotary pairs, columns the other.

A patch at row ``y`` and column ``x`` rotates pair ``i`` of the rotary width ``R`` by::

    theta_i = y * f_i            for i = 0..R/4-1        f_i = base^(-4i/R) = base^(-2i/(R/2))
    theta_i = x * f_{i - R/4}    for i = R/4..R/2-1

so each axis gets RoFormer's frequencies over half the width (Heo et al. 2024, "Rotary Position Embedding for Vision
Transformer", §3.2 "axial frequency", eq. 10; the layout of Qwen2-VL's vision tower: ``cat(y f, x f)`` then
``rotate_half``). Because every pair sees one axis only, ``<R(y1, x1) q, R(y2, x2) k>`` depends on ``(y1 - y2, x1 - x2)``
alone: relative in both axes.

Positions: ``[2, B, T]`` (row, column per token), or ``[T]`` / ``[B, T]`` patch indices in row-major order on a grid
``grid_width`` patches wide (``y = p // grid_width``, ``x = p % grid_width``).
"""

from __future__ import annotations

import torch

from posenc.checks import whole_number
from posenc.encodings.base import EncodingInfo, check_positions
from posenc.encodings.catalog import register
from posenc.encodings.mrope import SectionedRotary, axis_positions
from posenc.encodings.rope_scaling import check_base
from posenc.errors import PosencError
from posenc.kernels import check_pairing

__all__ = ["AxialRoPE", "axial_inv_freq"]


def axial_inv_freq(rotary_dim: int, base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """``(inv_freq [R/2] float64, pair_axis [R/2] int64)``: ``f`` twice, the first copy on rows (axis 0)."""
    quarter = rotary_dim // 4
    f = 1.0 / float(base) ** (torch.arange(quarter, dtype=torch.float64) * 4 / rotary_dim)  # [R/4]
    return torch.cat([f, f]), torch.cat([torch.zeros(quarter, dtype=torch.long), torch.ones(quarter, dtype=torch.long)])


@register("axial_rope")
class AxialRoPE(SectionedRotary):
    """2-D axial RoPE over patch rows and columns (Heo et al. 2024, arXiv:2403.13298, §3.2).

    Args:
        head_dim: width of each query/key head ``Dh``.
        base: frequency base (10000, as Qwen2-VL's vision tower).
        rotary_dim: channels rotated (a multiple of 4: two axes of pairs); default ``head_dim``.
        pairing: ``"half"`` (Qwen2-VL vision, ``i`` with ``i + R/2``) or ``"interleaved"``.
        grid_width: patches per row, used to read 1-D patch indices as (row, column).

    Example::

        >>> import torch, posenc
        >>> ax = posenc.build("axial_rope", head_dim=8, grid_width=3)
        >>> q = torch.randn(1, 1, 6, 8)
        >>> yx = torch.stack([torch.arange(6) // 3, torch.arange(6) % 3])[:, None]  # [2, 1, 6]
        >>> torch.allclose(ax.rotate(q, q, yx, yx)[0], ax.rotate(q, q, torch.arange(6), torch.arange(6))[0])
        True
    """

    info = EncodingInfo(family="rotary", paper="Heo et al. 2024, RoPE for Vision Transformer (arXiv:2403.13298)",
                        hooks=("rotate",))
    axes = 2

    def __init__(self, head_dim: int = 64, base: float = 10000.0, rotary_dim: int | None = None,
                 pairing: str = "half", grid_width: int = 16):
        super().__init__()
        rotary_dim = head_dim if rotary_dim is None else rotary_dim
        for label, value in (("head_dim", head_dim), ("rotary_dim", rotary_dim)):
            if not whole_number(value, 4) or value % 4:
                raise PosencError(f"axial RoPE splits the rotary pairs between rows and columns, so {label} must be "
                                  f"a multiple of 4, got {value!r}")
        if rotary_dim > head_dim:
            raise PosencError(f"rotary_dim ({rotary_dim}) cannot exceed head_dim ({head_dim})")
        check_pairing(pairing)
        if not whole_number(grid_width):
            raise PosencError(f"grid_width (patches per row) must be a positive integer, got {grid_width!r}")
        check_base(base)
        self.head_dim, self.rotary_dim, self.pairing, self.base = head_dim, rotary_dim, pairing, float(base)
        self.grid_width, self.attention_factor = grid_width, 1.0
        inv_freq, pair_axis = axial_inv_freq(rotary_dim, self.base)
        self.register_buffer("inv_freq", inv_freq, persistent=False)  # [R/2] float64
        self.register_buffer("pair_axis", pair_axis, persistent=False)  # [R/2] int64: 0 rows, 1 columns

    def to_axes(self, positions: torch.Tensor, length: int, batch: int, name: str) -> torch.Tensor:
        """``[2, B', T]`` (row, column): given as such, or read from row-major patch indices."""
        if isinstance(positions, torch.Tensor) and positions.dim() == 3:
            return axis_positions(positions, 2, length, batch, name)
        positions = check_positions(positions, length, name, batch=batch)
        positions = positions[None] if positions.dim() == 1 else positions  # [B', T]
        return torch.stack([positions // self.grid_width, positions % self.grid_width])  # [2, B', T]

    def extra_repr(self) -> str:
        return (f"head_dim={self.head_dim}, rotary_dim={self.rotary_dim}, base={self.base:g}, "
                f"pairing={self.pairing!r}, grid_width={self.grid_width}")
