"""What an encoding does to positions, as a heatmap (positions x dims, like d2l's ``show_heatmaps``).

- embed encodings: the table ``PE[p, j]``;
- rotate encodings: ``cos(theta_{p,i})`` of each rotary pair, the rotation each position applies (axial RoPE at
  patch indices ``p``, each read as its row and column, as the encoding reads 1-D positions);
- bias encodings: the bias ``b[h, i, j]`` of the first head against query and key positions; past
  :data:`MAX_BIAS_SIDE` positions at an evenly spaced sample of them (the bias is ``T x T``: 15 000 positions would
  take 15 GB and 50 s, and no image shows more rows than it has pixels), each drawn where it belongs;
- NoPE: an empty panel that says there is nothing to draw.
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure

from posenc.encodings.base import AbsoluteEncoding, PositionalEncoding, default_positions
from posenc.encodings.mrope import SectionedRotary
from posenc.plots.style import style_figures

__all__ = ["encoding_matrix", "heatmap", "MAX_BIAS_SIDE"]

#: the most query (and key) positions a bias heatmap evaluates; longer ranges are sampled evenly
MAX_BIAS_SIDE = 1024


def _drawn(encoding: PositionalEncoding, length: int, d_model: int) -> tuple[torch.Tensor, str, str, str, tuple | None]:
    """:func:`encoding_matrix` and the image's extent (``None``: one row per position)."""
    inner = getattr(encoding, "inner", encoding)  # a wrapper draws what it wraps, at plain positions
    positions = default_positions(length)
    if isinstance(inner, AbsoluteEncoding):
        width = inner.dim or d_model
        return (inner.encode(positions, width), f"{encoding.name}: PE[p, j]", "Col (encoding dim)", "Row (position)",
                None)
    if hasattr(inner, "tables"):
        cos, _ = inner.tables(positions, length)  # [T, R/2]
        return cos, f"{encoding.name}: cos(theta) per rotary pair", "rotary pair i", "position p", None
    if isinstance(inner, SectionedRotary):  # axial RoPE: no 1-D table; patch p is at (row, column) of the grid
        cos, _ = inner.axis_tables(inner.to_axes(positions, length, 1, "positions"))  # [1, T, R/2]
        return (cos[0], f"{encoding.name}: cos(theta) per rotary pair at patch p = (row, column)", "rotary pair i",
                "patch position p", None)
    sampled = length > MAX_BIAS_SIDE
    if sampled:  # a relative bias is exact at any positions: evaluate it at an even sample of them
        positions = torch.linspace(0, length - 1, MAX_BIAS_SIDE, dtype=torch.float64).round().long()
    bias = inner.bias(positions, positions)
    if bias is not None:
        title = f"{encoding.name}: bias of head 0" + (f" ({MAX_BIAS_SIDE} of {length} positions)" if sampled else "")
        extent = (-0.5, length - 0.5, length - 0.5, -0.5) if sampled else None
        return bias[0].detach(), title, "key position j", "query position i", extent
    factor = inner.query_scale(default_positions(length))  # a number for every query, or one per query
    if isinstance(factor, torch.Tensor):
        return factor[:, None], f"{encoding.name}: factor on each query's logits", "", "position p", None
    if inner.info.biases_from_content:
        return (torch.zeros(length, d_model), f"{encoding.name}: positions from content (no fixed table)", "dim",
                "position", None)
    return torch.zeros(length, d_model), f"{encoding.name}: no position information", "dim", "position", None


def encoding_matrix(encoding: PositionalEncoding, length: int, d_model: int) -> tuple[torch.Tensor, str, str, str]:
    """``(matrix, title, xlabel, ylabel)`` of what the encoding does at positions ``0..length-1`` (a bias past
    :data:`MAX_BIAS_SIDE` positions at an even sample of them, which the title says)."""
    return _drawn(encoding, length, d_model)[:4]


def heatmap(encoding: PositionalEncoding, length: int = 128, d_model: int = 64, cmap: str = "Blues") -> Figure:
    """A heatmap ``Figure`` of :func:`encoding_matrix`."""
    matrix, title, xlabel, ylabel, extent = _drawn(encoding, length, d_model)
    fig = Figure(figsize=(4.5, 4.5), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(matrix.detach().float().numpy(), aspect="auto", cmap=cmap, interpolation="nearest",
                      extent=extent)
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


style_figures(globals())  # every figure function above, in the house style
