"""Figures of context extension (a pretrained model run past its native length with a RoPE scaling).

- :func:`extend_figure`: perplexity against evaluation length, one line per scaling (with its 95% interval over
  windows where there is one), one panel per protocol; a dashed line marks the model's native length.
- :func:`passkey_heatmap`: passkey accuracy by needle depth (rows) and prompt length (columns), one panel per
  scaling, each cell ``correct/trials``; cells not run are grey.

Both read what :func:`posenc.extend.run_extend` returns (the passkey trials counted per cell by
:func:`posenc.extend.compare_scalings.passkey_cells`), and draw into a new ``Figure`` or into a given one (a
``SubFigure`` of a larger page figure).

- :func:`extension_summary_figure`: the two stacked in one figure, perplexity by length above the passkey heatmap
  (what the report shows for a context-extension claim).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure, SubFigure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from posenc.errors import PosencError
from posenc.plots.style import GUIDE, SMALL, style_figures

__all__ = ["extend_figure", "passkey_heatmap", "extension_summary_figure"]

_TITLES = {"nonoverlap": "non-overlapping windows", "sliding": "sliding window (stride {f:g} L)"}


def extend_figure(result: dict[str, Any], figure: Figure | SubFigure | None = None) -> Figure | SubFigure:
    """Perplexity (log scale) against length, one line per scaling, one panel per protocol.

    Where a cell holds ``ppl_interval`` (two or more windows) the line carries it as an error bar.
    """
    tables = result.get("ppl") or {}
    if not tables:
        raise PosencError("the result holds no perplexity table; run run_extend with at least one protocol")
    native = result.get("native_len")
    fig = figure if figure is not None else Figure(figsize=(5.2 * len(tables), 4.2), layout="constrained")
    axes = fig.subplots(1, len(tables), squeeze=False)[0]
    for ax, (protocol, table) in zip(axes, tables.items(), strict=True):
        all_lengths = sorted({int(n) for row in table.values() for n in row})
        for scaling, row in table.items():
            lengths = sorted(int(n) for n in row)
            values = np.array([row[str(n)]["ppl"] for n in lengths])
            intervals = [row[str(n)].get("ppl_interval") for n in lengths]
            if any(intervals):
                low = np.array([i[0] if i else v for i, v in zip(intervals, values, strict=True)])
                high = np.array([i[1] if i else v for i, v in zip(intervals, values, strict=True)])
                ax.errorbar(lengths, values, yerr=[values - low, high - values], marker="o", capsize=3,
                            label=scaling)
            else:
                ax.plot(lengths, values, marker="o", label=scaling)
        if native:
            ax.axvline(native, color="grey", linestyle="--", linewidth=GUIDE, label=f"native {native}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(all_lengths, [str(n) for n in all_lengths])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(ScalarFormatter())
        fraction = (result.get("config") or {}).get("stride_fraction", 0.5)
        ax.set(title=_TITLES.get(protocol, protocol).format(f=fraction), xlabel="evaluation length (tokens)",
               ylabel="perplexity")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    model = (result.get("config") or {}).get("model", "")
    fig.suptitle(f"{model}: perplexity by length and RoPE scaling")
    return fig


def passkey_heatmap(cells: Mapping[str, Mapping[tuple[int, float], tuple[int, int]]], native_len: int | None = None,
                    figure: Figure | SubFigure | None = None, title: str | None = None) -> Figure | SubFigure:
    """Passkey accuracy by depth (rows, 0 = needle at the start) and length (columns), one panel per scaling.

    Each cell is coloured by its accuracy and labelled ``correct/trials``; a (length, depth) that some scaling ran
    and this one did not is grey. A dashed line separates lengths within ``native_len`` from those past it.

    Args:
        cells: ``{scaling: {(length, depth): (correct, trials)}}``, the trials counted
            (:func:`posenc.extend.compare_scalings.passkey_cells` of run_extend's ``"passkey"``).
        native_len: the model's native context (``None``: no line).
        figure: draw into this figure or subfigure (``None``: a new ``Figure``).
    """
    if not any(cells.values()):
        raise PosencError("the passkey table is empty; run run_extend with passkey=True")
    lengths = sorted({n for c in cells.values() for n, _ in c})
    depths = sorted({d for c in cells.values() for _, d in c})
    fig = figure if figure is not None else Figure(figsize=(1.2 + 0.9 * len(lengths) * len(cells),
                                                            1.4 + 0.45 * len(depths)), layout="constrained")
    axes = fig.subplots(1, len(cells), squeeze=False, sharey=True)[0]
    image = None
    for ax, (scaling, table) in zip(axes, cells.items(), strict=True):
        grid = np.full((len(depths), len(lengths)), np.nan)  # [depths, lengths]
        for (n, d), (k, total) in table.items():
            grid[depths.index(d), lengths.index(n)] = k / total
        ax.set_facecolor("#d9d9d9")
        image = ax.imshow(np.ma.masked_invalid(grid), cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="auto")
        for (n, d), (k, total) in table.items():
            ax.text(lengths.index(n), depths.index(d), f"{k}/{total}", ha="center", va="center", fontsize=SMALL)
        if native_len is not None and lengths[0] <= native_len < lengths[-1]:
            boundary = sum(n <= native_len for n in lengths) - 0.5
            ax.axvline(boundary, color="k", linestyle="--", linewidth=GUIDE)
        ax.set_xticks(range(len(lengths)), [str(n) for n in lengths], fontsize=SMALL)
        ax.set_yticks(range(len(depths)), [f"{d:g}" for d in depths], fontsize=SMALL)
        ax.set(title=scaling, xlabel="prompt length (tokens)")
    axes[0].set_ylabel("needle depth")
    fig.colorbar(image, ax=list(axes), label="accuracy", shrink=0.9)
    fig.suptitle(title or "passkey retrieval by depth and length" + (f" (native {native_len})" if native_len
                                                                      else ""), fontsize="medium")
    return fig


def extension_summary_figure(ppl: Mapping[str, Mapping[str, Mapping[str, Any]]], protocol: str, native_len: int,
                             model: str, cells: Mapping[str, Mapping[tuple[int, float], tuple[int, int]]],
                             trials: int) -> Figure:
    """Perplexity by length with intervals (top, :func:`extend_figure` for one protocol) and passkey accuracy by
    depth and length (bottom, :func:`passkey_heatmap`), one figure.

    Args:
        ppl: ``{scaling: {length: {"ppl": value, "ppl_interval": [low, high]}}}``, the perplexity table of
            ``protocol`` (as in run_extend's ``"ppl"``).
        protocol: the protocol the table was measured with (``"nonoverlap"``, ``"sliding"``).
        native_len: the model's native context, marked in both panels.
        model: the model's name, in the title.
        cells: the passkey trials counted per cell, as :func:`passkey_heatmap` takes them.
        trials: passkey trials per cell, in the heatmap's title.
    """
    if not ppl or not all(ppl.values()):
        raise PosencError(f"the {protocol} perplexity table has a scaling without lengths or no scaling at all (got "
                          f"{dict(ppl)!r}); pass {{scaling: {{length: {{'ppl': value}}}}}}")
    fig = Figure(figsize=(8.5, 7.5), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1.0])
    extend_figure({"ppl": {protocol: ppl}, "native_len": native_len, "config": {"model": model}}, figure=top)
    passkey_heatmap(cells, native_len, figure=bottom,
                    title=f"passkey retrieval, {trials} trials per cell (grey: not run within the budget)")
    return fig


style_figures(globals())  # every figure function above, in the house style
