"""Binary counting beside the encoding's columns (tutorial 001 §3.2, after d2l §11.6).

Left: the bits of 0..n-1 (bit 0, the lowest, first): bit j alternates every 2^j numbers. Right: the encoding's first
positions and dimensions as a heatmap: its columns also alternate more slowly as the dimension grows, but with
continuous values instead of bits.
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure

from posenc.checks import whole_number
from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.plots.common import position_table
from posenc.plots.style import SMALL, style_figures

__all__ = ["binary_figure", "bits"]


def bits(n: int) -> torch.Tensor:
    """``[n, b]`` with ``b = max(1, ceil(log2 n))``: ``bits[p, j] = (p >> j) & 1``."""
    width = max(1, (n - 1).bit_length())
    return (torch.arange(n)[:, None] >> torch.arange(width)) & 1


def binary_figure(encoding: PositionalEncoding, length: int = 64, d_model: int = 32, n: int = 8) -> Figure:
    """Bits of ``0..n-1`` (left) beside ``PE[0..length-1, 0..d_model-1]`` (right)."""
    if not whole_number(n, 2):
        raise PosencError(f"n must be an integer >= 2 (the numbers 0..n-1 are written in binary), got {n!r}")
    table, what = position_table(encoding, length, d_model, "binary")
    fig = Figure(figsize=(8, 4), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1, 3])
    b = bits(n)
    left.imshow(b.numpy(), cmap="Blues", aspect="auto", vmin=0, vmax=1, interpolation="nearest")
    for p in range(n):
        for j in range(b.shape[1]):
            left.text(j, p, str(int(b[p, j])), ha="center", va="center", fontsize=SMALL)
        left.set(title=f"binary of 0..{n - 1}", xlabel="bit j (lowest first)", ylabel="number",
                 xticks=range(b.shape[1]), yticks=range(n))
    image = right.imshow(table.numpy(), cmap="Blues", aspect="auto", interpolation="nearest")
    right.set(title=f"{encoding.name}: {what}", xlabel="Col (encoding dim)", ylabel="Row (position)")
    fig.colorbar(image, ax=right, shrink=0.8)
    return fig


style_figures(globals())  # every figure function above, in the house style
