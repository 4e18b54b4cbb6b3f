"""Perplexity against evaluation length, one line per RoPE scaling (context extension of a pretrained model).

One panel per protocol (non-overlapping windows, sliding window); a dashed line marks the model's native length.
Reads the dict :func:`posenc.extend.run_extend` returns.
"""

from __future__ import annotations

from typing import Any

from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from posenc.errors import PosencError

__all__ = ["extend_figure"]

_TITLES = {"nonoverlap": "non-overlapping windows", "sliding": "sliding window (stride {f:g} L)"}


def extend_figure(result: dict[str, Any]) -> Figure:
    """A ``Figure``: perplexity (log scale) against length, one line per scaling, one panel per protocol."""
    tables = result.get("ppl") or {}
    if not tables:
        raise PosencError("the result holds no perplexity table; run run_extend with at least one protocol")
    native = result.get("native_len")
    fig = Figure(figsize=(5.2 * len(tables), 4.2), layout="constrained")
    axes = fig.subplots(1, len(tables), squeeze=False)[0]
    for ax, (protocol, table) in zip(axes, tables.items(), strict=True):
        all_lengths = sorted({int(n) for row in table.values() for n in row})
        for scaling, row in table.items():
            lengths = sorted(int(n) for n in row)
            ax.plot(lengths, [row[str(n)]["ppl"] for n in lengths], marker="o", label=scaling)
        if native:
            ax.axvline(native, color="grey", linestyle="--", linewidth=1, label=f"native {native}")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(all_lengths, [str(n) for n in all_lengths])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(ScalarFormatter())
        fraction = (result.get("config") or {}).get("stride_fraction", 0.5)
        ax.set(title=_TITLES.get(protocol, protocol).format(f=fraction), xlabel="evaluation length (tokens)", ylabel="perplexity")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    model = (result.get("config") or {}).get("model", "")
    fig.suptitle(f"{model}: perplexity by length and RoPE scaling")
    return fig
