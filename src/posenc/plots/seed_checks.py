"""Figures for the report's seed checks on tables and formulas (each a function returning a ``Figure``).

They draw numbers the experiments in :mod:`posenc.report.experiments.seed_tables` already computed, so a figure shows
exactly what a verdict rests on: the worked example of seed 002 beside its printed values, seed 002's two figures
(dimensions 2, 6, 12 over 128 positions; positions 1 and 5) with the measured periods, the attention score an integer
code allows, the nearest distance between positions by sequence length, and the dimensions each code needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

__all__ = ["worked_example_figure", "dims_period_figure", "position_pair_figure", "relative_score_figure",
           "nearest_distance_figure", "compactness_figure", "offset_rule_figure", "parameter_ratio_figure"]


def worked_example_figure(measured: Sequence[float], printed: Sequence[float], labels: Sequence[str]) -> Figure:
    """Seed 002's worked example: posenc's ``PE[2]`` at d = 4 beside the document's printed vector, per channel."""
    fig = Figure(figsize=(6, 3), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(labels))
    ax.bar(x - 0.2, printed, width=0.4, label="seed 002, printed")
    ax.bar(x + 0.2, measured, width=0.4, label="posenc sinusoidal, d=4")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xticks(x, labels)
    ax.set(ylabel="value", title="position 2, d = 4")
    ax.legend(fontsize=7)
    return fig


def dims_period_figure(table: np.ndarray, dims: Sequence[int], measured: Sequence[float],
                       formula: Sequence[float]) -> Figure:
    """Seed 002's figure 2: one panel per dimension ``j``, ``PE[p, j]`` for the table's positions, titled with the
    period read off the curve and the formula's period ``2 pi 10000^(2i/d)``.

    Args:
        table: ``[T, d]`` position table.
        dims: the dimensions drawn.
        measured, formula: the period of each dimension, in positions.
    """
    fig = Figure(figsize=(4 * len(dims), 3), layout="constrained")
    axes = fig.subplots(1, len(dims), sharey=True, squeeze=False)[0]
    positions = np.arange(table.shape[0])
    for ax, j, m, f in zip(axes, dims, measured, formula, strict=True):
        ax.plot(positions, table[:, j], lw=1.1)
        ax.set(title=f"dim {j}: period {m:.2f} (formula {f:.2f})", xlabel="position p")
    axes[0].set_ylabel("PE[p, dim]")
    fig.suptitle(f"{table.shape[0]} positions, d = {table.shape[1]}: the higher the dimension, the longer the period")
    return fig


def position_pair_figure(table: np.ndarray, positions: Sequence[int], pair_difference: np.ndarray) -> Figure:
    """Seed 002's figure 3: the sin channels and the cos channels of two positions against the pair index ``i``, and
    the distance between the two positions within each pair ``||PE[a, 2i:2i+2] - PE[b, 2i:2i+2]||``."""
    fig = Figure(figsize=(12, 3.2), layout="constrained")
    axes = fig.subplots(1, 3)
    pairs = np.arange(table.shape[1] // 2)
    for ax, offset, name in ((axes[0], 0, "sin channels PE[p, 2i]"), (axes[1], 1, "cos channels PE[p, 2i+1]")):
        for p in positions:
            ax.plot(pairs, table[p, offset::2], marker=".", lw=1, label=f"position {p}")
        ax.set(title=name, xlabel="pair index i")
        ax.legend(fontsize=7)
    axes[2].semilogy(pairs, np.maximum(pair_difference, 1e-12), marker=".", lw=1)
    axes[2].set(title=f"||PE[{positions[1]}] - PE[{positions[0]}]|| within each pair",
                xlabel="pair index i")
    return fig


def relative_score_figure(integer_values: np.ndarray, bound: float, integer_scores: np.ndarray,
                          sinusoid_scores: np.ndarray, offset: int) -> Figure:
    """Seed 000 §2.1: the integer code's growth, and the position-only attention score ``PE[i] . shift_k(PE)[j]``
    for the integer code and the sinusoid (rows: queries i, columns: keys j). A mark shows each row's highest key;
    the dashed line is the key ``offset`` places back."""
    fig = Figure(figsize=(12, 3.4), layout="constrained")
    a, b, c = fig.subplots(1, 3)
    a.plot(np.arange(len(integer_values)), integer_values, label="integer PE[p, 0]")
    a.axhline(bound, color="k", lw=0.8, ls="--", label="|sin|, |cos| bound")
    a.set(xlabel="position p", ylabel="value", title="the integer code grows with p")
    a.legend(fontsize=7)
    for ax, scores, name in ((b, integer_scores, "integer"), (c, sinusoid_scores, "sinusoid")):
        ax.imshow(scores, aspect="auto", cmap="Blues", interpolation="nearest")
        queries = np.arange(scores.shape[0])
        ax.plot(scores.argmax(axis=1), queries, "r.", ms=3, label="highest key")
        ax.plot(queries - offset, queries, "k--", lw=0.7, label=f"key {offset} back")
        ax.set(xlim=(-0.5, scores.shape[1] - 0.5), ylim=(scores.shape[0] - 0.5, -0.5), xlabel="key j",
               ylabel="query i", title=f"{name}: PE[i] . PE[j + {offset}]")
        ax.legend(fontsize=7, loc="lower left")
    return fig


def nearest_distance_figure(by_width: Mapping[str, Mapping[int, float]]) -> Figure:
    """Seed 002: the smallest distance between two of the first ``n`` positions, against ``n``, one line per width."""
    fig = Figure(figsize=(6.5, 3.2), layout="constrained")
    ax = fig.subplots()
    for label, curve in by_width.items():
        lengths = sorted(curve)
        ax.plot(lengths, [curve[n] for n in lengths], marker="o", ms=3, label=label)
    ax.set(xscale="log", yscale="log", xlabel="number of positions n", ylabel="nearest distance between two positions",
           title="does distinctness fall as sequences grow?")
    ax.legend(fontsize=7)
    return fig


def compactness_figure(resolutions: Sequence[str], sinusoid_dims: Sequence[int], binary_dims: Sequence[int],
                       positions: int) -> Figure:
    """Seed 001 §3.2: the dimensions each code needs to keep ``positions`` positions apart, per resolution."""
    fig = Figure(figsize=(6.5, 3.2), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(resolutions))
    ax.bar(x - 0.2, sinusoid_dims, width=0.4, label="sinusoid")
    ax.bar(x + 0.2, binary_dims, width=0.4, label="binary")
    ax.set_xticks(x, resolutions, fontsize=8)
    ax.set(ylabel="dimensions needed", title=f"{positions} positions, pairwise at least this far apart")
    ax.legend(fontsize=7)
    return fig


def offset_rule_figure(offsets: Sequence[int], composition_error: Sequence[float],
                       shares: Mapping[str, Sequence[float]]) -> Figure:
    """Seed 001 §3.3: ``max |M_k - M_1^k|`` per offset, and the share of queries whose best key under the score
    ``PE[i] . (PE M_k)[j]`` is ``k`` places back, per table."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    a, b = fig.subplots(1, 2)
    a.semilogy(offsets, np.maximum(np.asarray(composition_error), 1e-17), marker="o")
    a.set(xscale="log", xlabel="offset k", ylabel="max |M_k - M_1^k|", title="one rule: the k-step map is M_1^k")
    for label, values in shares.items():
        b.plot(offsets, values, marker="o", label=label)
    b.set(xscale="log", xlabel="offset k", ylabel="share of queries", ylim=(-0.02, 1.05),
          title="the fitted map finds the key k places back")
    b.legend(fontsize=7)
    return fig


def parameter_ratio_figure(ratios: Mapping[str, Mapping[str, float]], claimed: float = 2.0) -> Figure:
    """Seed 003 §14.3.2: parameters after concatenating / after adding, per part of the model, per option."""
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    options = list(ratios)
    parts = list(next(iter(ratios.values())))
    x = np.arange(len(parts))
    width = 0.8 / max(1, len(options))
    for index, option in enumerate(options):
        ax.bar(x + (index - (len(options) - 1) / 2) * width, [ratios[option][p] for p in parts], width=width,
               label=f"d_ff = {option}")
    ax.axhline(claimed, color="k", lw=0.8, ls="--", label="'doubles' (seed 003)")
    ax.set_xticks(x, parts, fontsize=8)
    ax.set(ylabel="concat / add", title="parameters of the later layers, d_model 512 -> 1024")
    ax.legend(fontsize=7)
    return fig
