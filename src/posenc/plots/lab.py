"""Metric against length, one line per encoding, a band of ±1 std over seeds (the lab's summary dict).

One panel per task (char-LM: one per protocol). A dashed vertical line marks the training length; lengths an
encoding cannot run (a learned table past its rows) are drawn as an ``x`` on the axis floor.
"""

from __future__ import annotations

from typing import Any

import matplotlib
from matplotlib.figure import Figure

__all__ = ["metric_vs_length"]


def metric_vs_length(summary: dict[str, Any], panel_width: float = 4.2) -> Figure:
    """A ``Figure`` of every series in ``summary`` (from :func:`posenc.lab.summarize`)."""
    keys = list(summary["series"])
    fig = Figure(figsize=(panel_width * max(1, len(keys)), 3.6), layout="constrained")
    if not keys:
        ax = fig.add_subplot()
        ax.text(0.5, 0.5, "no finished runs", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    axes = fig.subplots(1, len(keys), squeeze=False)[0]
    for ax, key in zip(axes, keys, strict=True):
        charlm = key.startswith("charlm/")
        labels = list(summary["series"][key])
        colors = matplotlib.colormaps["tab10" if len(labels) <= 10 else "tab20"]
        for index, label in enumerate(labels):
            row = summary["series"][key][label]
            lengths = sorted(int(n) for n in row)
            ran = [n for n in lengths if row[str(n)]["mean"] is not None]
            means = [row[str(n)]["mean"] for n in ran]
            stds = [row[str(n)]["std"] for n in ran]
            (line,) = ax.plot(ran, means, marker="o", markersize=3, label=label, color=colors(index % colors.N),
                              linestyle="-" if index < 10 else "--")
            ax.fill_between(ran, [m - s for m, s in zip(means, stds, strict=True)],
                            [m + s for m, s in zip(means, stds, strict=True)], color=line.get_color(), alpha=0.15)
            blocked = [n for n in lengths if row[str(n)]["mean"] is None]
            if blocked:
                ax.plot(blocked, [0.0] * len(blocked), "x", color=line.get_color(), clip_on=False,
                        transform=ax.get_xaxis_transform())
        ax.axvline(summary["train_len"][key], color="grey", linestyle="--", linewidth=1)
        ax.set_xscale("log", base=2)
        metric = summary.get("metrics", {}).get(key, summary["metric"])
        metric = "perplexity" if metric == "ppl" else metric
        if charlm:
            ax.set_yscale("log")
        ax.set_xlabel("evaluation length" + (" L_valid (characters)" if charlm else " (task size n)"))
        ax.set_ylabel(metric)
        ax.set_title(key)
        ax.legend(fontsize="small")
    fig.suptitle(f"{summary['sweep']}: metric against length (dashed: training length; x: cannot run)")
    return fig
