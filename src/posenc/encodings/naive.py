"""The three naive absolute encodings that tutorial 000 §2.1-2.3 discusses and rejects.

- ``integer``: ``PE[p] = (p + start) * 1`` in every channel (tutorial 000 §2.1: "first token 1, second 2, ...").
- ``normalized``: ``PE[p] = p / (n - 1)`` in every channel, ``n`` the sequence length (tutorial 000 §2.2: 3 tokens give
  0, 0.5, 1), so the step between neighbours depends on the length.
- ``binary``: ``PE[p, j] = bit j of p`` (least significant bit in channel 0; tutorial 000 §2.3 and tutorial 001 §3.2's
  binary table), so neighbours can differ in many channels at once.

They are here to be measured: :mod:`posenc.properties` shows each flaw as a number.
"""

from __future__ import annotations

import math

import torch

from posenc.checks import whole_number
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo
from posenc.encodings.catalog import register
from posenc.errors import PosencError

__all__ = ["IntegerPE", "NormalizedPE", "BinaryPE"]

_SEED000 = "tutorial 000 §2 (naive encodings), cf. Vaswani et al. 2017 §3.5"


def _width(dim: int | None, requested: int | None, name: str) -> int:
    width = requested if requested is not None else dim
    if width is None:
        raise PosencError(f"{name}: the encoding width is unknown; pass dim=... or call embed on an input")
    return width


@register("integer")
class IntegerPE(AbsoluteEncoding):
    """``PE[p] = p + start`` repeated across channels (tutorial 000 §2.1). Grows without bound."""

    info = EncodingInfo(family="absolute", paper=_SEED000, hooks=("embed",), constant_across_channels=True)

    def __init__(self, dim: int | None = None, combine: str = "add", start: int = 1):
        super().__init__(dim, combine)
        if isinstance(start, bool) or not isinstance(start, int | float) or not math.isfinite(start):
            raise PosencError(f"integer: start must be a finite number (the value of position 0), got {start!r}; "
                              f"the seed uses 1")
        self.start = start

    def encode(self, positions: torch.Tensor, dim: int | None = None,
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
        width = _width(self.dim, dim, self.name)
        values = (positions.to(torch.float64) + self.start).to(dtype)  # [..., T]
        return values[..., None].expand(*values.shape, width)  # [..., T, dim]


@register("normalized")
class NormalizedPE(AbsoluteEncoding):
    """``PE[p] = p / (n - 1)`` in [0, 1] repeated across channels (tutorial 000 §2.2).

    ``n`` is ``length`` when given, else the number of positions in the call (so 3 tokens give 0, 0.5, 1).
    """

    info = EncodingInfo(family="absolute", paper=_SEED000, hooks=("embed",), constant_across_channels=True)

    def __init__(self, dim: int | None = None, combine: str = "add", length: int | None = None):
        super().__init__(dim, combine)
        if length is not None and not whole_number(length):
            raise PosencError(f"length must be a positive integer or None, got {length!r}")
        self.length = length

    def encode(self, positions: torch.Tensor, dim: int | None = None,
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
        width = _width(self.dim, dim, self.name)
        n = self.length if self.length is not None else positions.shape[-1]
        values = positions.to(torch.float64) / max(n - 1, 1)  # [..., T]
        return values.to(dtype)[..., None].expand(*values.shape, width)


@register("binary")
class BinaryPE(AbsoluteEncoding):
    """``PE[p, j] = (p >> j) & 1``: channel 0 holds the lowest bit (tutorial 000 §2.3, tutorial 001 §3.2).

    Positions ``>= 2^dim`` alias: only ``2^dim`` distinct vectors exist.
    """

    info = EncodingInfo(family="absolute", paper=_SEED000, hooks=("embed",))

    def encode(self, positions: torch.Tensor, dim: int | None = None,
               dtype: torch.dtype = torch.float32) -> torch.Tensor:
        width = _width(self.dim, dim, self.name)
        bits = torch.arange(min(width, 63), device=positions.device)  # [dim]
        values = ((positions[..., None] >> bits) & 1).to(dtype)  # [..., T, min(dim, 63)]
        if width > 63:  # bits past 63 of an int64 are zero
            values = torch.nn.functional.pad(values, (0, width - 63))
        return values
