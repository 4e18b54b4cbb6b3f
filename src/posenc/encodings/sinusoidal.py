"""Sinusoidal position encoding (Vaswani et al. 2017, "Attention Is All You Need", §3.5).

    PE[p, 2i]   = sin(p / base^(2i/d))
    PE[p, 2i+1] = cos(p / base^(2i/d))

Bounded in [-1, 1], norm sqrt(d/2) at every position, and for each offset k every pair is rotated by a fixed
2x2 matrix R(k w_i) independent of p (tutorial 001 §3.3). Computed from int64 positions in float64, stored float32.

Two layouts of the same values are in use: ``"interleaved"`` (the paper's equation above: sin and cos alternate) and
``"concat"`` (``[sin(p w_0) .. sin(p w_{d/2-1}) | cos(p w_0) .. cos(p w_{d/2-1})]``, as tensor2tensor's
``get_timing_signal_1d`` and many diffusion-model timestep embeddings lay them out). :func:`convert_sinusoidal_layout`
moves a table (or a weight whose last axis is laid out so) from one to the other.
"""

from __future__ import annotations

import math

import torch

from posenc.checks import whole_number
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo, check_allocation
from posenc.encodings.catalog import register
from posenc.errors import PosencError

__all__ = ["SinusoidalPE", "sinusoidal_table", "sinusoidal_frequencies", "convert_sinusoidal_layout", "LAYOUTS"]

#: channel layouts of a sinusoidal table
LAYOUTS = ("interleaved", "concat")


def _check_layout(layout: str, name: str = "layout") -> None:
    if layout not in LAYOUTS:
        raise PosencError(f"{name} must be 'interleaved' (sin, cos alternate; Vaswani et al.) or 'concat' "
                          f"([sin | cos]), got {layout!r}")


def convert_sinusoidal_layout(table: torch.Tensor, source: str, target: str) -> torch.Tensor:
    """Reorder the last axis ``[..., d]`` of a sinusoidal table between ``"interleaved"`` and ``"concat"``.

    ``interleaved[..., 2i] = concat[..., i]`` (sin) and ``interleaved[..., 2i + 1] = concat[..., d/2 + i]`` (cos);
    converting there and back is the identity.
    """
    _check_layout(source, "source")
    _check_layout(target, "target")
    d = table.shape[-1]
    if d % 2:
        raise PosencError(f"a sinusoidal table has an even width (sin and cos per frequency), got {d}")
    if source == target:
        return table
    if source == "interleaved":  # [..., d/2, 2] -> [..., 2, d/2]
        return table.unflatten(-1, (d // 2, 2)).transpose(-1, -2).flatten(-2)
    return table.unflatten(-1, (2, d // 2)).transpose(-1, -2).flatten(-2)


def sinusoidal_frequencies(dim: int, base: float = 10000.0) -> torch.Tensor:
    """``w_i = base^(-2i/d)`` for i = 0..d/2-1 (float64)."""
    if not whole_number(dim, 2) or dim % 2:
        raise PosencError(f"the sinusoidal encoding pairs sin and cos channels, so its width must be an even "
                          f"integer >= 2, got {dim!r}; use an even d_model such as 512")
    _check_base(base)
    check_allocation(16 * dim, f"the frequencies of a sinusoidal table {dim} channels wide", "use a width of a real "
                     "model (64 to 4096)")
    return 1.0 / float(base) ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)


def _check_base(base: object) -> None:
    if isinstance(base, bool) or not isinstance(base, int | float) or not 1 < base < math.inf:
        raise PosencError(f"base must be a finite number > 1, got {base!r}; the paper uses 10000")


def sinusoidal_table(positions: torch.Tensor, dim: int, base: float = 10000.0,
                     dtype: torch.dtype = torch.float32, layout: str = "interleaved") -> torch.Tensor:
    """``PE`` for integer positions ``[..., T]`` -> ``[..., T, dim]`` in ``dtype`` (computed in float64), in the
    ``"interleaved"`` or ``"concat"`` layout."""
    _check_layout(layout)
    w = sinusoidal_frequencies(dim, base).to(positions.device)  # [d/2]
    angle = positions.to(torch.float64)[..., None] * w  # [..., T, d/2]
    if layout == "concat":
        return torch.cat([angle.sin(), angle.cos()], dim=-1).to(dtype)  # [..., T, d]: [sin | cos]
    pe = torch.stack([angle.sin(), angle.cos()], dim=-1)  # [..., T, d/2, 2]: (sin, cos) per pair
    return pe.flatten(-2).to(dtype)  # [..., T, d]: PE[:, 0::2] = sin, PE[:, 1::2] = cos


@register("sinusoidal")
class SinusoidalPE(AbsoluteEncoding):
    """Fixed sin/cos table (Vaswani et al. 2017, §3.5).

    Args:
        dim: width of the table (``None``: the width of the input it is added to).
        combine: ``"add"`` (the Transformer's choice) or ``"concat"``.
        base: wavelength base, 10000 in the paper.
        layout: ``"interleaved"`` (the paper) or ``"concat"`` (``[sin | cos]``).

    Example (tutorial 002: position 2 with d=4 is (sin 2, cos 2, sin 0.02, cos 0.02))::

        >>> import torch, posenc
        >>> posenc.build("sinusoidal", dim=4).table(3)[2]
        tensor([ 0.9093, -0.4161,  0.0200,  0.9998])
    """

    info = EncodingInfo(family="absolute", paper="Vaswani et al. 2017, Attention Is All You Need", hooks=("embed",))

    def __init__(self, dim: int | None = None, combine: str = "add", base: float = 10000.0,
                 layout: str = "interleaved"):
        super().__init__(dim, combine)
        _check_layout(layout)
        self.layout = layout
        _check_base(base)
        if dim is not None:
            sinusoidal_frequencies(dim, base)  # validates an odd width now, not at the first call
        self.base = float(base)

    def encode(self, positions: torch.Tensor, dim: int | None = None,
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
        width = dim if dim is not None else self.dim
        if width is None:
            raise PosencError("sinusoidal: pass dim=... (or call embed on an input, which supplies its width)")
        return sinusoidal_table(positions, width, self.base, dtype, self.layout)
