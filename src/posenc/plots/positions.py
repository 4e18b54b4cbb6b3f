"""Whole position vectors across dimensions (tutorial 002, figure 3: positions 1 and 5).

The sin channels (even dims) and the cos channels (odd dims) are drawn apart, one line per position, against the pair
index i: low pairs swing between -1 and 1, high pairs barely move (sin -> 0, cos -> 1), which is why two positions
differ mostly in their low dimensions.
"""

from __future__ import annotations

from collections.abc import Sequence

from matplotlib.figure import Figure

from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.plots.common import position_table
from posenc.plots.style import style_figures

__all__ = ["positions_figure"]


def positions_figure(encoding: PositionalEncoding, length: int = 128, d_model: int = 64,
                     positions: Sequence[int] = (1, 5)) -> Figure:
    """Two panels (even dims, odd dims); one line per position in ``positions``: ``PE[p, 2i]`` / ``PE[p, 2i+1]``."""
    bad = [p for p in positions if not 0 <= p < length]
    if bad or not positions:
        raise PosencError(f"positions must be in 0..{length - 1}, got {list(positions)}; pass a larger --length")
    table, what = position_table(encoding, length, d_model, "positions")
    pairs = list(range(table.shape[1] // 2))
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, offset, name in ((axes[0], 0, "even dims 2i (sin)"), (axes[1], 1, "odd dims 2i+1 (cos)")):
        for p in positions:
            ax.plot(pairs, table[p, offset::2][: len(pairs)].tolist(), marker=".", label=f"position {p}")
        ax.set(title=name, xlabel="pair index i")
        ax.legend()
    axes[0].set_ylabel(what)
    fig.suptitle(f"{encoding.name}: positions {', '.join(map(str, positions))} across dimensions")
    return fig


style_figures(globals())  # every figure function above, in the house style
