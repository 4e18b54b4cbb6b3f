"""What an encoding does to positions, as a heatmap (positions x dims, like d2l's ``show_heatmaps``).

- embed encodings: the table ``PE[p, j]``;
- rotate encodings: ``cos(theta_{p,i})`` of each rotary pair, the rotation each position applies;
- bias encodings: the bias ``b[h, i, j]`` of the first head against query and key positions;
- NoPE: an empty panel that says there is nothing to draw.
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure

from posenc.encodings.base import AbsoluteEncoding, PositionalEncoding, default_positions

__all__ = ["encoding_matrix", "heatmap"]


def encoding_matrix(encoding: PositionalEncoding, length: int, d_model: int) -> tuple[torch.Tensor, str, str, str]:
    """``(matrix, title, xlabel, ylabel)`` of what the encoding does at positions ``0..length-1``."""
    inner = getattr(encoding, "inner", encoding)  # a wrapper draws what it wraps, at plain positions
    positions = default_positions(length)
    if isinstance(inner, AbsoluteEncoding):
        width = inner.dim or d_model
        return inner.encode(positions, width), f"{encoding.name}: PE[p, j]", "Col (encoding dim)", "Row (position)"
    if hasattr(inner, "tables"):
        cos, _ = inner.tables(positions, length)  # [T, R/2]
        return cos, f"{encoding.name}: cos(theta) per rotary pair", "rotary pair i", "position p"
    bias = inner.bias(positions, positions)
    if bias is not None:
        return bias[0].detach(), f"{encoding.name}: bias of head 0", "key position j", "query position i"
    factor = inner.query_scale(positions)
    if factor is not None:
        return factor[:, None], f"{encoding.name}: factor on each query's logits", "", "position p"
    if inner.info.biases_from_content or inner.info.biases_from_input:
        return (torch.zeros(length, d_model), f"{encoding.name}: positions from content (no fixed table)", "dim",
                "position")
    return torch.zeros(length, d_model), f"{encoding.name}: no position information", "dim", "position"


def heatmap(encoding: PositionalEncoding, length: int = 128, d_model: int = 64, cmap: str = "Blues") -> Figure:
    """A heatmap ``Figure`` of :func:`encoding_matrix`."""
    matrix, title, xlabel, ylabel = encoding_matrix(encoding, length, d_model)
    fig = Figure(figsize=(4.5, 4.5), layout="constrained")
    ax = fig.add_subplot()
    image = ax.imshow(matrix.detach().float().numpy(), aspect="auto", cmap=cmap, interpolation="nearest")
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    fig.colorbar(image, ax=ax, shrink=0.8)
    return fig
