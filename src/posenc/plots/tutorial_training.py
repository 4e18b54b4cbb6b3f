"""Figures for the report's tutorial claims that train small models (each a function returning a ``Figure``):
validation curves by encoding, and the word/position embedding angle through training."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from posenc.plots.style import GUIDE, style_figures

__all__ = ["validation_curves_figure", "orthogonality_figure"]


def validation_curves_figure(curves: Mapping[str, Mapping[str, Sequence[Sequence[Sequence[float]]]]],
                             bar: float) -> Figure:
    """One panel per task: in-distribution validation accuracy against the training step, one line per encoding
    (the mean over seeds at each step any seed reached; thin lines: single seeds), and the bar the claims read.

    Args:
        curves: ``{task: {encoding: [[[step, accuracy], ...] per seed]}}``.
        bar: the accuracy whose crossing the claims time.
    """
    tasks = list(curves)
    fig = Figure(figsize=(5 * max(1, len(tasks)), 3.3), layout="constrained")
    axes = fig.subplots(1, max(1, len(tasks)), squeeze=False)[0]
    for ax, task in zip(axes, tasks, strict=False):
        for index, (encoding, runs) in enumerate(curves[task].items()):
            color = f"C{index}"
            for run in runs:
                steps, acc = zip(*run, strict=True) if run else ((), ())
                ax.plot(steps, acc, color=color, lw=GUIDE, alpha=0.4)
            longest = max(runs, key=len)
            mean = [np.mean([r[i][1] if i < len(r) else r[-1][1] for r in runs]) for i in range(len(longest))]
            ax.plot([s for s, _ in longest], mean, color=color, label=encoding)
        ax.axhline(bar, color="k", lw=GUIDE, ls="--")
        ax.set(title=task, xlabel="training step", ylabel="validation token accuracy", ylim=(0, 1.02))
        ax.legend()
    return fig


def orthogonality_figure(traces: Mapping[str, Sequence[Sequence[Sequence[float]]]], chance: float) -> Figure:
    """Mean |cos| between word and position embeddings over training, divided by the value for independent random
    directions (1: as orthogonal as chance), one line per run; one panel per measure (raw, centred).

    Args:
        traces: ``{label: [[[step, raw, centred], ...] per run]}``.
        chance: mean |cos| of independent random directions at the model's width.
    """
    fig = Figure(figsize=(10, 3.3), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for column, (ax, name) in enumerate(zip(axes, ("raw cosine", "centred cosine"), strict=True)):
        for index, (label, runs) in enumerate(traces.items()):
            for number, run in enumerate(runs):
                steps = [r[0] for r in run]
                ax.plot(steps, [r[1 + column] / chance for r in run], color=f"C{index}",
                        label=label if number == 0 else None)
        ax.axhline(1.0, color="k", lw=GUIDE, ls="--", label="independent random directions")
        ax.set(title=name, xlabel="training step", ylabel="mean |cos| / chance")
        ax.legend()
    return fig


style_figures(globals())  # every figure function above, in the house style
