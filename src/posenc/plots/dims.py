"""Single dimensions of the encoding over positions (tutorial 002, figure 2: dims 2, 6 and 12 over 128 positions).

    PE[p, 2i] = sin(p / 10000^(2i/d))   -> dimension 2 turns fastest, 12 slowest of the three

Each panel is one dimension ``PE[:, j]`` against the position p; a higher dimension has a longer period.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.plots.common import position_table
from posenc.plots.style import style_figures

__all__ = ["dims_figure"]


def dims_figure(encoding: PositionalEncoding, length: int = 128, d_model: int = 64,
                dims: Sequence[int] = (2, 6, 12)) -> Figure:
    """One panel per dimension ``j`` in ``dims``: ``PE[p, j]`` for ``p = 0..length-1``."""
    table, what = position_table(encoding, length, d_model, "dims")
    bad = [j for j in dims if not 0 <= j < table.shape[1]]
    if bad or not dims:
        raise PosencError(f"dims must be indices in 0..{table.shape[1] - 1} (the table's width), got {list(dims)}; "
                          f"draw a wider table (--d-model {max(list(dims) or [0]) + 1} or more) or pass dims below "
                          f"{table.shape[1]} to dims_figure")
    fig = Figure(figsize=(4 * len(dims), 3), layout="constrained")
    axes = fig.subplots(1, len(dims), sharey=True, squeeze=False)[0]
    positions = list(range(length))
    for ax, j in zip(axes, dims, strict=True):
        ax.plot(positions, table[:, j].tolist())
        ax.set(title=f"dim {j}", xlabel="position p")
    axes[0].set_ylabel(f"{what}[p, dim]")
    fig.suptitle(f"{encoding.name}: single dimensions over {length} positions")
    return fig


style_figures(globals())  # every figure function above, in the house style
