"""Figures of the lab (:mod:`posenc.lab`: train short, test long), each a function returning a ``Figure``.

- :func:`metric_vs_length`: the lab's summary dict, metric against length, one line per encoding, a band of ±1 std
  over seeds, one panel per task (char-LM: one per protocol). A dashed vertical line marks the training length;
  lengths an encoding cannot run (a learned table past its rows) are drawn as an ``x`` on the axis floor.
- :func:`accuracy_by_size_figure`: accuracy against task size in units of the trained size, one line per encoding
  with its 95% interval over seeds as a band.
- :func:`in_distribution_bars_figure`: accuracy at the trained sizes, one group of bars per task, one bar per
  encoding with its 95% interval.
- :func:`perplexity_by_length_figure`: a char-LM's perplexity against evaluation context, one line per encoding
  with its 95% interval as a band.

An interval is a ``(value, low, high)`` triple; a bound that is not finite (one seed) is drawn at the value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.plots.style import GUIDE, SMALL, style_figures

__all__ = ["metric_vs_length", "accuracy_by_size_figure", "in_distribution_bars_figure",
           "perplexity_by_length_figure"]

#: ``(value, low, high)``: a mean and its 95% interval
Interval = Sequence[float]


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
        ax.axvline(summary["train_len"][key], color="grey", linestyle="--", linewidth=GUIDE)
        ax.set_xscale("log", base=2)
        metric = summary.get("metrics", {}).get(key, summary["metric"])
        metric = "perplexity" if metric == "ppl" else metric
        if metric == "perplexity":  # grows by factors: a log scale keeps short and long contexts readable
            ax.set_yscale("log")
        ax.set_xlabel(f"evaluation length: {summary.get('length_axis', {}).get(key, 'length')}")
        ax.set_ylabel(metric)
        ax.set_title(key)
        ax.legend()
    fig.suptitle(f"{summary['sweep']}: metric against length (dashed: training length; x: cannot run)")
    return fig


def _bounds(interval: Interval, floor: float | None, ceiling: float | None) -> tuple[float, float]:
    """The band drawn for ``(value, low, high)``: each bound clipped to ``[floor, ceiling]``, at the value where it
    is not finite."""
    value, low, high = (float(x) for x in interval)
    if math.isfinite(low):
        low = low if floor is None else max(floor, low)
    else:
        low = value
    if math.isfinite(high):
        high = high if ceiling is None else min(ceiling, high)
    else:
        high = value
    return low, high


def _checked(curves: Mapping[str, Mapping[Any, Interval]], what: str) -> None:
    if not curves or not any(curves.values()):
        raise PosencError(f"no {what} to draw (got {dict(curves)!r}); pass {{label: {{length: (value, low, high)}}}} "
                          "with at least one point")
    for label, points in curves.items():
        for x, interval in points.items():
            if len(interval) != 3:
                raise PosencError(f"{label!r} at {x!r}: expected an interval (value, low, high), got {interval!r}")


def _line_with_band(ax: Axes, label: str, points: Mapping[Any, Interval], floor: float | None = None,
                    ceiling: float | None = None) -> None:
    """One line through the values of ``points`` (sorted by x) and its intervals as a band in the line's colour."""
    xs = sorted(points)
    bands = [_bounds(points[x], floor, ceiling) for x in xs]
    line = ax.plot(xs, [float(points[x][0]) for x in xs], marker="o", label=label)[0]
    ax.fill_between(xs, [b[0] for b in bands], [b[1] for b in bands], facecolor=line.get_color(), edgecolor="none",
                    alpha=0.15)


def accuracy_by_size_figure(curves: Mapping[str, Mapping[float, Interval]], trained: float, title: str,
                            metric: str = "token_accuracy") -> Figure:
    """Accuracy (mean over tasks) against task size / trained size, one line per encoding with its 95% interval as
    a band (clipped to [0, 1]); a dashed line marks the trained size.

    Args:
        curves: ``{encoding: {size / L: (value, low, high)}}``, drawn in this order (an encoding with no sizes is
            left out).
        trained: the trained size in the same units (1.0).
        title: the panel's title.
        metric: the metric's key (``"token_accuracy"``, ``"exact_match"``), shown on the y axis.
    """
    _checked(curves, "accuracy curves")
    fig = Figure(figsize=(7.5, 3.2), layout="constrained")
    ax = fig.subplots()
    for label, points in curves.items():
        if points:
            _line_with_band(ax, label, points, floor=0.0, ceiling=1.0)
    ax.axvline(trained, color="k", lw=GUIDE, ls="--")
    ax.text(trained, 1.02, " trained up to here", fontsize=SMALL, va="bottom")
    ax.set(xlabel="task size / trained size L", ylabel=f"{metric.replace('_', ' ')} (mean over tasks)",
           title=title, ylim=(0, 1.08))
    ax.legend(ncol=3)
    return fig


def in_distribution_bars_figure(tasks: Sequence[str], accuracy: Mapping[str, Sequence[Interval]], bar: float,
                                title: str = "in distribution: learned vs fixed") -> Figure:
    """Token accuracy at the trained sizes, one group per task and one bar per encoding, its 95% interval as an
    error bar (clipped to [0, 1]); a dashed line marks the accuracy ``bar`` that counts as learned.

    Args:
        tasks: the tasks, left to right.
        accuracy: ``{encoding: [(value, low, high) per task]}``.
        bar: the accuracy that counts as having learned a task.
    """
    if not accuracy:
        raise PosencError("no encodings to draw; pass {encoding: [(value, low, high) per task]}")
    for label, values in accuracy.items():
        if len(values) != len(tasks):
            raise PosencError(f"{label!r} has {len(values)} intervals for {len(tasks)} tasks {list(tasks)}; pass "
                              "one (value, low, high) per task")
    fig = Figure(figsize=(6, 3), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / len(accuracy)
    for index, (label, values) in enumerate(accuracy.items()):
        offset = (index - (len(accuracy) - 1) / 2) * width
        bands = [_bounds(v, 0.0, 1.0) for v in values]
        below = [v[0] - b[0] if math.isfinite(v[1]) else 0 for v, b in zip(values, bands, strict=True)]
        above = [b[1] - v[0] if math.isfinite(v[2]) else 0 for v, b in zip(values, bands, strict=True)]
        ax.bar([i + offset for i in range(len(tasks))], [v[0] for v in values], width=width, label=label,
               yerr=[below, above], capsize=2)
    ax.axhline(bar, color="k", lw=GUIDE, ls="--")
    ax.set_xticks(list(range(len(tasks))), list(tasks))
    ax.set(ylabel="token accuracy, sizes <= L", title=title, ylim=(0, 1.05))
    ax.legend()
    return fig


def perplexity_by_length_figure(curves: Mapping[str, Mapping[int, Interval]], train_len: int) -> Figure:
    """A char-LM's perplexity against evaluation context (log-log), one line per encoding with its 95% interval over
    seeds as a band; a dashed line marks the training context, and every evaluated length is a labelled tick.

    Args:
        curves: ``{encoding: {length: (value, low, high)}}``.
        train_len: the training context in characters.
    """
    _checked(curves, "perplexity curves")
    fig = Figure(figsize=(6.5, 3.2), layout="constrained")
    ax = fig.subplots()
    lengths = sorted({n for points in curves.values() for n in points})
    for label, points in curves.items():
        _line_with_band(ax, label, points)
    ax.axvline(train_len, color="k", lw=GUIDE, ls="--")
    ax.set(xscale="log", yscale="log", xlabel="evaluation context (characters)", ylabel="perplexity",
           title=f"char-LM trained at context {train_len} (band: 95% over seeds)")
    ax.minorticks_off()  # log axes' minor labels would overprint the evaluation lengths
    ax.set_xticks(lengths, [str(n) for n in lengths])
    ax.legend()
    return fig


style_figures(globals())  # every figure function above, in the house style
