"""Figures for the report's remaining tutorial claims on mechanisms (each a function returning a ``Figure``), drawn from
the numbers :mod:`posenc.report.experiments.tutorial_mechanics` computed:

- tutorial 000 intro: how much reordering the words changes an RNN's outputs, against self-attention without positions;
- tutorial 001 §3.2: the binary code's bits against position, and the sinusoid's frequency per channel pair;
- tutorial 002: the time to build the sinusoid's table against its width, beside a forward pass of the blocks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.plots.style import GUIDE, SMALL, style_figures

__all__ = ["order_effect_figure", "frequency_order_figure", "table_cost_figure"]


def order_effect_figure(effects: Mapping[str, float], attention: float, bar: float) -> Figure:
    """Bars: the smallest order effect of each recurrent kind and the largest of self-attention without positions,
    on a log scale, with the bar a real effect must clear.

    Args:
        effects: recurrent kind -> smallest ``max |h(x[perm]) - h(x)[perm]| / mean |h|``.
        attention: the position-free self-attention's largest effect (round-off).
        bar: the threshold of a real effect.
    """
    if not effects:
        raise PosencError("order_effect_figure needs at least one recurrent kind's effect")
    names = [*effects, "self-attention,\nno positions"]
    values = [max(v, 1e-12) for v in (*effects.values(), attention)]
    fig = Figure(figsize=(6.0, 3.0), layout="constrained")
    ax = fig.subplots()
    ax.bar(range(len(names)), values, color=["C0"] * len(effects) + ["C3"])
    ax.axhline(bar, color="k", lw=GUIDE, ls="--", label=f"bar {bar:g}")
    ax.set_yscale("log")
    ax.set_xticks(range(len(names)), names, fontsize=SMALL)
    ax.set(ylabel="order effect (relative)", title="reordering the words: does the output change?")
    ax.legend()
    return fig


def frequency_order_figure(bits: np.ndarray, frequencies: np.ndarray) -> Figure:
    """Left: the binary code, bit ``j`` against position (bit 0 alternates every number, bit 1 every two, ...).
    Right: the sinusoid's frequency per channel pair, read off its table, on a log scale.

    Args:
        bits: ``[positions, bits]``, the binary table.
        frequencies: ``[d/2]``, radians per position of each pair.
    """
    bits, frequencies = np.asarray(bits), np.asarray(frequencies)
    if bits.ndim != 2 or frequencies.ndim != 1 or 0 in bits.shape or frequencies.size == 0:
        raise PosencError(f"frequency_order_figure needs bits [positions, bits] and frequencies [pairs], got "
                          f"{bits.shape} and {frequencies.shape}")
    fig = Figure(figsize=(8.0, 3.0), layout="constrained")
    a, b = fig.subplots(1, 2)
    shown = bits[:32]
    a.imshow(shown.T, aspect="auto", cmap="Blues", interpolation="nearest")
    a.set(xlabel="position", ylabel="bit j", title=f"binary, positions 0..{len(shown) - 1}")
    b.semilogy(np.arange(len(frequencies)), frequencies)
    b.set(xlabel="channel pair i", ylabel="radians per position", title="sinusoid: frequency per pair")
    return fig


def table_cost_figure(widths: Sequence[int], table_ms: Sequence[float], forward_ms: float) -> Figure:
    """The time to build the sinusoid's table against its width (log-log), with the forward pass of the blocks at
    d_model = 512 as a horizontal line.

    Args:
        widths: the table widths ``d``.
        table_ms: the time per width (a low quantile of repeats), milliseconds.
        forward_ms: the blocks' forward pass, milliseconds.
    """
    if len(widths) != len(table_ms) or not widths:
        raise PosencError(f"table_cost_figure needs one time per width, got {len(widths)} widths and "
                          f"{len(table_ms)} times")
    fig = Figure(figsize=(6.0, 3.0), layout="constrained")
    ax = fig.subplots()
    ax.loglog(widths, table_ms, marker="o", label="sinusoid table")
    ax.axhline(forward_ms, color="C3", ls="--", label="forward of the blocks (d_model 512)")
    ax.set(xlabel="width d", ylabel="milliseconds", title="the table's cost against its width")
    ax.legend()
    return fig


style_figures(globals())  # every figure function above, in the house style
