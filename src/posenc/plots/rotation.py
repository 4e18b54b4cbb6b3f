"""The 2x2 rotation of tutorial 001 §3.3, drawn on one channel pair.

    [sin((p+k) w), cos((p+k) w)] = [sin(p w), cos(p w)] [[cos kw, -sin kw], [sin kw, cos kw]]

The pair ``(PE[p, 2i], PE[p, 2i+1])`` of every position is a point; the points of the sinusoid lie on a circle. Arrows
go from a few positions p to ``p + k``; hollow markers show the fitted map ``B`` (least squares over all p, see
:mod:`posenc.properties.relative`) applied to ``PE[p]``: they land on ``PE[p + k]`` exactly when one rotation serves
every p. The title gives the fitted angle against ``k w_i`` when the encoding has frequencies.
"""

from __future__ import annotations

import math

from matplotlib.figure import Figure

from posenc.encodings.base import PositionalEncoding
from posenc.errors import PosencError
from posenc.plots.common import position_table
from posenc.plots.style import GUIDE, style_figures
from posenc.properties.relative import fit_pair_blocks, pair_angles

__all__ = ["rotation_figure"]


def rotation_figure(encoding: PositionalEncoding, length: int = 64, d_model: int = 64, pair: int = 4,
                    offset: int = 3, starts: int = 6) -> Figure:
    """Points of channel pair ``pair`` for positions ``0..length-1``, arrows ``p -> p + offset`` for the first
    ``starts`` positions, and the fitted 2x2 map applied to them."""
    table, what = position_table(encoding, length, d_model, "rotation")
    if not 0 <= pair < table.shape[1] // 2:
        raise PosencError(f"the rotation figure draws channel pair {pair}, but a table {table.shape[1]} channels wide "
                          f"has pairs 0..{table.shape[1] // 2 - 1}; draw a wider table (--d-model {2 * pair + 2} or "
                          f"more) or pass a smaller pair to rotation_figure")
    if not 1 <= offset < length:
        raise PosencError(f"offset must be in 1..{length - 1}, got {offset}")
    xy = table[:, 2 * pair: 2 * pair + 2]  # [N, 2]
    blocks, _ = fit_pair_blocks(xy[:-offset, None, :], xy[offset:, None, :])  # [1, 2, 2]
    block = blocks[0]
    starts = min(starts, length - offset)
    mapped = xy[:starts] @ block  # [starts, 2]: the map applied to PE[p]
    fig = Figure(figsize=(5, 5), layout="constrained")
    ax = fig.add_subplot()
    ax.plot(xy[:, 0].tolist(), xy[:, 1].tolist(), color="0.8", lw=GUIDE, zorder=1)
    ax.scatter(xy[:, 0].tolist(), xy[:, 1].tolist(), s=12, color="tab:blue", label=f"PE[p], p = 0..{length - 1}",
               zorder=2)
    for p in range(starts):
        ax.annotate("", xy=xy[p + offset].tolist(), xytext=xy[p].tolist(),
                    arrowprops={"arrowstyle": "->", "color": "tab:orange"})
    ax.scatter(mapped[:, 0].tolist(), mapped[:, 1].tolist(), s=60, facecolors="none", edgecolors="tab:red",
               label=f"PE[p] M({offset})", zorder=3)
    angle = float(pair_angles(blocks)[0])
    title = f"{encoding.name}: pair {pair} (dims {2 * pair}, {2 * pair + 1}), offset k = {offset}\n"
    title += f"fitted angle {angle:.4f} rad"
    inv = getattr(getattr(encoding, "inner", encoding), "inv_freq", None)
    if inv is None and hasattr(encoding, "base") and hasattr(encoding, "encode"):
        inv_i = float(encoding.base) ** (-2 * pair / table.shape[1])
        title += f", k w_i = {math.remainder(offset * inv_i, 2 * math.pi):.4f}"
    elif inv is not None:
        title += f", k w_i = {math.remainder(offset * float(inv[pair]), 2 * math.pi):.4f}"
    ax.set(title=title, xlabel=f"{what}[p, {2 * pair}]", ylabel=f"{what}[p, {2 * pair + 1}]", aspect="equal")
    ax.legend(loc="lower left")
    return fig


style_figures(globals())  # every figure function above, in the house style
