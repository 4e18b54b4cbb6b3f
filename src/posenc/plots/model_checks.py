"""Figures for the report's seed checks on posenc's own small Transformer with random weights (nothing trained),
each a function returning a ``Figure``: does the model see word order, is the feed-forward layer blind to position,
and what a linear read-out recovers from the sum and from the concatenation of word and position vectors.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.plots.style import GUIDE, SMALL, style_figures

__all__ = ["word_order_figure", "ffn_permutation_figure", "add_concat_readout_figure"]


def _same_length(values: Mapping[str, float], colors: Sequence[str]) -> None:
    if len(colors) != len(values):
        raise PosencError(f"{len(colors)} colours {list(colors)} for {len(values)} bars {list(values)}; pass one colour "
                          "per bar")


def word_order_figure(differences: Mapping[str, float], colors: Sequence[str], same: float) -> Figure:
    """One bar per model (log scale): how differently it treats "you love I" and "I love you" reversed, the largest
    relative difference over seeds; a dashed line at ``same``, below which the two count as the same.

    Args:
        differences: ``{model label: relative difference}``, left to right (0 is drawn at 1e-9, the log axis' floor).
        colors: one matplotlib colour per bar.
        same: the difference below which a model cannot tell the orders apart.
    """
    _same_length(differences, colors)
    fig = Figure(figsize=(8, 3), layout="constrained")
    ax = fig.subplots()
    names = list(differences)
    ax.bar(range(len(names)), [max(differences[k], 1e-9) for k in names], color=list(colors))
    ax.set_xticks(range(len(names)), names, fontsize=SMALL)
    ax.set(yscale="log", ylabel="relative difference", title="does the model see 'you love I' differently "
                                                             "from 'I love you' reversed?")
    ax.axhline(same, color="k", lw=GUIDE, ls="--")
    return fig


def ffn_permutation_figure(errors: Mapping[str, float], colors: Sequence[str]) -> Figure:
    """One bar per case (log scale): the largest absolute difference between the outputs for permuted inputs and the
    permuted outputs (0: the layer only permutes its outputs, blind to position).

    Args:
        errors: ``{case: max abs difference}``, left to right (0 is drawn at 1e-10, the log axis' floor).
        colors: one matplotlib colour per bar.
    """
    _same_length(errors, colors)
    fig = Figure(figsize=(6, 3), layout="constrained")
    ax = fig.subplots()
    ax.bar(list(errors), [max(v, 1e-10) for v in errors.values()], color=list(colors))
    ax.set(yscale="log", ylabel="max abs difference", title="permute inputs: are outputs just permuted?")
    return fig


#: the read-outs drawn, with their line styles: solid for the sum, dashed for the concatenation
READOUTS = (("add_token", "-o"), ("add_position", "-s"), ("concat_token", "--o"), ("concat_position", "--s"))


def add_concat_readout_figure(widths: Sequence[int], readout: Mapping[str, Mapping[str, float]]) -> Figure:
    """Linear read-out accuracy of the token and of the position, from ``E[w] + PE[p]`` (solid) and from
    ``[E[w]; PE[p]]`` (dashed), against the width ``d`` (log scale).

    Args:
        widths: the widths, in the order drawn.
        readout: ``{str(width): {"add_token" | "add_position" | "concat_token" | "concat_position": accuracy}}``.
    """
    for d in widths:
        missing = [key for key, _ in READOUTS if key not in readout.get(str(d), {})]
        if missing:
            raise PosencError(f"readout has no {', '.join(missing)} at width {d} (widths {list(widths)}, readout keys "
                              f"{list(readout)}); pass every read-out at every width")
    fig = Figure(figsize=(6.5, 3), layout="constrained")
    ax = fig.subplots()
    for key, style in READOUTS:
        ax.plot(widths, [readout[str(d)][key] for d in widths], style, label=key.replace("_", ": "))
    ax.set(xscale="log", xlabel="width d", ylabel="linear read-out accuracy", title="what survives the sum?",
           ylim=(0, 1.05))
    ax.set_xticks(widths, [str(d) for d in widths])
    ax.legend()
    return fig


style_figures(globals())  # every figure function above, in the house style
