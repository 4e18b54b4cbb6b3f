"""Figures for the report's tutorial checks on position tables and formulas (each a function returning a ``Figure``).

They draw numbers the experiments in :mod:`posenc.report.experiments.tables` and
:mod:`posenc.report.experiments.tutorial_tables` already computed, so a figure shows exactly what a verdict rests on.

- The naive codes of tutorial 000 §2.1-2.3: the integer code's growth and its missing relative map, the normalised
  code's length-dependent step, the binary code's jumps between neighbours.
- The sinusoid's properties (tutorials 001 §3, 002, 003 §14.8.3): bounded values, distinct positions, one linear map
  per offset, fast and slow channels, the same structure far past the trained range.
- Tutorial 002's worked example beside its printed values, tutorial 002's two figures (dimensions 2, 6, 12 over 128
  positions; positions 1 and 5) with the measured periods, the attention score an integer code allows, the nearest
  distance between positions by sequence length, and the dimensions each code needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.plots.style import GUIDE, SMALL, style_figures

__all__ = ["integer_growth_figure", "normalized_step_figure", "binary_jumps_figure", "bounded_values_figure",
           "unique_positions_figure", "relative_map_figure", "local_global_figure", "extrapolation_figure",
           "worked_example_figure", "dims_period_figure", "position_pair_figure", "relative_score_figure",
           "nearest_distance_figure", "compactness_figure", "offset_rule_figure", "parameter_ratio_figure"]


def _two_panels() -> tuple[Figure, Axes, Axes]:
    """A new 8 x 3 inch figure with two panels side by side."""
    fig = Figure(figsize=(8.0, 3.0), layout="constrained")
    a, b = fig.subplots(1, 2)
    return fig, a, b


def _table_2d(name: str, table: np.ndarray) -> np.ndarray:
    table = np.asarray(table)
    if table.ndim != 2 or 0 in table.shape:
        raise PosencError(f"{name} must be a non-empty 2-D table [positions, channels], got shape {table.shape}")
    return table


def integer_growth_figure(values: np.ndarray, train_len: int, residual: float, sinusoid_residual: float) -> Figure:
    """Tutorial 000 §2.1: the integer code ``PE[p, 0]`` against ``p`` beside the sinusoid's bound 1, the trained lengths
    shaded (left); the relative residual of the best linear map ``PE[p] -> PE[p+1]`` for the integer code and the
    sinusoid, log scale (right; 0 is drawn at 1e-16).

    Args:
        values: ``PE[p, 0]`` for ``p = 0, 1, ...``.
        train_len: positions ``0 .. train_len`` are shaded as trained.
        residual, sinusoid_residual: the two residuals.
    """
    fig, a, b = _two_panels()
    a.plot(np.arange(len(values)), values, label="integer PE[p, 0]")
    a.axhline(1.0, color="k", lw=GUIDE, ls="--", label="|sin|, |cos| bound")
    a.axvspan(0, train_len, color="C2", alpha=0.15, label="trained lengths")
    a.set(xlabel="position p", ylabel="value", title="integer code grows with p")
    a.legend()
    b.bar(["integer", "sinusoid"], [residual, max(sinusoid_residual, 1e-16)], color=["C3", "C0"])
    b.set(yscale="log", ylabel="relative residual", title="best linear map PE[p] -> PE[p+1]")
    return fig


def normalized_step_figure(codes: Mapping[int, np.ndarray], steps: Mapping[int, float]) -> Figure:
    """Tutorial 000 §2.2: the normalised code ``p / (n - 1)`` of the first positions for several lengths ``n`` (left:
    the same position gets a different code), and the step between neighbours against ``n``, log-log (right).

    Args:
        codes: ``{n: PE[0..n-1, 0]}``, one line each (points marked for ``n <= 10``).
        steps: ``{n: mean step between neighbours}``, in the order drawn.
    """
    if not codes or not steps:
        raise PosencError(f"nothing to draw: {len(codes)} codes and {len(steps)} steps; pass at least one of each")
    fig, a, b = _two_panels()
    for n, code in codes.items():
        a.plot(np.arange(len(code)), code, marker="o" if len(code) <= 10 else None, ms=3, label=f"n={n}")
    a.set(xlabel="position p", ylabel="PE[p]", title="same position, different code", xlim=(-0.5, 20))
    a.legend()
    b.loglog(list(steps), list(steps.values()), marker="o")
    b.set(xlabel="sequence length n", ylabel="step between neighbours", title="step = 1/(n-1)")
    return fig


def binary_jumps_figure(bits: np.ndarray, binary_jumps: np.ndarray, sinusoid_jumps: np.ndarray) -> Figure:
    """Tutorial 000 §2.3: the binary code of the first positions as an image, bit ``j`` against position (left), and the
    distance between neighbours ``||PE[p] - PE[p-1]||`` for ``p = 1, 2, ...``, binary (steps) and sinusoid (right).

    Args:
        bits: ``[positions, bits]``, the binary table's first rows.
        binary_jumps, sinusoid_jumps: the neighbour distances from ``p = 1`` on, one length.
    """
    bits = _table_2d("bits", bits)
    if len(binary_jumps) != len(sinusoid_jumps):
        raise PosencError(f"binary_jumps has {len(binary_jumps)} distances and sinusoid_jumps {len(sinusoid_jumps)}; "
                          "pass the same positions for both")
    fig, a, b = _two_panels()
    a.imshow(bits.T, aspect="auto", cmap="Blues", interpolation="nearest")
    a.set(xlabel="position p", ylabel="bit j", title=f"binary code, positions 0..{bits.shape[0] - 1}")
    p = np.arange(1, len(binary_jumps) + 1)
    b.plot(p, binary_jumps, drawstyle="steps-mid", label="binary")
    b.plot(p, sinusoid_jumps, label="sinusoid")
    b.set(xlabel="p", ylabel="||PE[p] - PE[p-1]||", title="distance between neighbours")
    b.legend()
    return fig


def bounded_values_figure(table: np.ndarray, values: np.ndarray, positions: int) -> Figure:
    """Tutorial 001 §3.1: the sinusoid's table for the first positions as an image (left), and a histogram of every
    value checked (right): all in [-1, 1].

    Args:
        table: ``[positions, d]``, the first rows of the table.
        values: every value checked, flat.
        positions: how many positions the values come from (in the title).
    """
    table = _table_2d("table", table)
    fig, a, b = _two_panels()
    a.imshow(table, aspect="auto", cmap="Blues", interpolation="nearest")
    a.set(xlabel="Col (encoding dim)", ylabel="Row (position)",
          title=f"PE[0..{table.shape[0] - 1}], d={table.shape[1]}")
    b.hist(values, bins=60, color="C0")
    b.set(xlabel="value", ylabel="count", title=f"all values, {positions} positions")
    return fig


def unique_positions_figure(distances: Mapping[int, np.ndarray], smallest: float, gram: np.ndarray) -> Figure:
    """Tutorial 001 §3.2: the distance from an anchor position to every position, one line per anchor, above the
    smallest distance between any two positions (left); the dot products ``PE[i] . PE[j]`` of the first positions
    (right).

    Args:
        distances: ``{anchor: ||PE[p] - PE[anchor]|| for every p}``.
        smallest: the smallest distance between two different positions (a dashed line).
        gram: ``[n, n]`` dot products of the first ``n`` positions.
    """
    gram = _table_2d("gram", gram)
    fig, a, b = _two_panels()
    for anchor, curve in distances.items():
        a.plot(curve, label=f"from position {anchor}")
    a.axhline(smallest, color="k", lw=GUIDE, ls="--", label="smallest distance between any two")
    a.set(xlabel="position p", ylabel="||PE[p] - PE[anchor]||", title="no other position comes close", ylim=(0, None))
    a.legend()
    image = b.imshow(gram, cmap="Blues")
    b.set(title=f"PE[i] . PE[j], i, j < {gram.shape[0]}", xlabel="j", ylabel="i")
    fig.colorbar(image, ax=b, shrink=0.8)
    return fig


def relative_map_figure(offsets: Sequence[int], residuals: Mapping[str, Sequence[float]], fitted: np.ndarray,
                        offset: int) -> Figure:
    """Tutorial 001 §3.3: the relative residual of the best linear map ``PE[p] -> PE[p+k]`` against the offset ``k``,
    one line per table, log scale (left; 0 is drawn at 1e-17); the fitted map ``M_offset``'s first channels, whose
    2x2 blocks are rotations for the sinusoid (right).

    Args:
        offsets: the offsets ``k``.
        residuals: ``{table: [residual per offset]}``.
        fitted: ``[c, c]``, the fitted map's first ``c`` channels.
        offset: the offset of ``fitted``.
    """
    for label, values in residuals.items():
        if len(values) != len(offsets):
            raise PosencError(f"{label!r} has {len(values)} residuals for {len(offsets)} offsets {list(offsets)}; "
                              "pass one residual per offset")
    fitted = _table_2d("fitted", fitted)
    fig, a, b = _two_panels()
    for label, values in residuals.items():
        a.semilogy(offsets, [max(v, 1e-17) for v in values], marker="o", label=label)
    a.set(xlabel="offset k", ylabel="relative residual", title="one linear map per offset?")
    a.legend()
    image = b.imshow(fitted, cmap="RdBu", vmin=-1, vmax=1)
    b.set(title=f"fitted M_{offset}, first {fitted.shape[0]} channels: 2x2 rotations", xlabel="out channel",
          ylabel="in channel")
    fig.colorbar(image, ax=b, shrink=0.8)
    return fig


def local_global_figure(table: np.ndarray, fast: int, slow: int, steps: np.ndarray, quarter: int,
                        shown: int = 200) -> Figure:
    """Tutorial 002: a fast and a slow channel of the table over the first ``shown`` positions (left), and how much each
    dimension moves from one position to the next, log scale, with the lowest and highest ``quarter`` dimensions
    shaded (right).

    Args:
        table: ``[T, d]`` position table.
        fast, slow: the two channels drawn on the left.
        steps: ``[d]``, the RMS change of each dimension from ``p`` to ``p + 1``.
        quarter: how many dimensions each shaded block spans.
    """
    table = _table_2d("table", table)
    d = table.shape[1]
    if not (0 <= fast < d and 0 <= slow < d) or len(steps) != d:
        raise PosencError(f"channels {fast} and {slow} and {len(steps)} steps for a table of {d} dimensions; pass "
                          f"channels in 0..{d - 1} and one step per dimension")
    fig, a, b = _two_panels()
    positions = np.arange(table.shape[0])
    a.plot(positions, table[:, fast], label=f"dim {fast} (fast)")
    a.plot(positions, table[:, slow], label=f"dim {slow} (slow)")
    a.set(xlabel="position p", ylabel="PE[p, j]", title="fast and slow channels", xlim=(0, shown))
    a.legend()
    b.semilogy(np.arange(d), steps)
    b.axvspan(0, quarter, color="C1", alpha=0.15, label="low quarter")
    b.axvspan(d - quarter, d, color="C2", alpha=0.15, label="high quarter")
    b.set(xlabel="dimension j", ylabel="RMS change p -> p+1", title="how fast each dim moves")
    b.legend()
    return fig


def extrapolation_figure(inside: np.ndarray, far: np.ndarray, far_start: int) -> Figure:
    """Tutorial 003 §14.8.3: the first channels of the table over the trained range ``0 .. L-1`` (left) and over as
    many positions from ``far_start`` on (right), dimension against position: the same structure far past it.

    Args:
        inside, far: ``[L, c]``, the first ``c`` channels at positions ``0 .. L-1`` and ``far_start ..``.
        far_start: the first far position.
    """
    inside, far = _table_2d("inside", inside), _table_2d("far", far)
    if inside.shape != far.shape:
        raise PosencError(f"inside has shape {inside.shape} and far {far.shape}; pass as many positions and channels "
                          "for both")
    fig, a, b = _two_panels()
    a.imshow(inside.T, aspect="auto", cmap="Blues", interpolation="nearest")
    a.set(title=f"trained range 0..{inside.shape[0] - 1}", xlabel="position", ylabel="dim")
    b.imshow(far.T, aspect="auto", cmap="Blues", interpolation="nearest",
             extent=(far_start, far_start + far.shape[0], far.shape[1], 0))
    b.set(title="far past it: same structure", xlabel="position", ylabel="dim")
    return fig


def worked_example_figure(measured: Sequence[float], printed: Sequence[float], labels: Sequence[str]) -> Figure:
    """Tutorial 002's worked example: posenc's ``PE[2]`` at d = 4 beside the document's printed vector, per channel."""
    fig = Figure(figsize=(6, 3), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(labels))
    ax.bar(x - 0.2, printed, width=0.4, label="tutorial 002, printed")
    ax.bar(x + 0.2, measured, width=0.4, label="posenc sinusoidal, d=4")
    ax.axhline(0, color="k", lw=GUIDE)
    ax.set_xticks(x, labels)
    ax.set(ylabel="value", title="position 2, d = 4")
    ax.legend()
    return fig


def dims_period_figure(table: np.ndarray, dims: Sequence[int], measured: Sequence[float],
                       formula: Sequence[float]) -> Figure:
    """Tutorial 002's figure 2: one panel per dimension ``j``, ``PE[p, j]`` for the table's positions, titled with the
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
        ax.plot(positions, table[:, j])
        ax.set(title=f"dim {j}: period {m:.2f} (formula {f:.2f})", xlabel="position p")
    axes[0].set_ylabel("PE[p, dim]")
    fig.suptitle(f"{table.shape[0]} positions, d = {table.shape[1]}: the higher the dimension, the longer the period")
    return fig


def position_pair_figure(table: np.ndarray, positions: Sequence[int], pair_difference: np.ndarray) -> Figure:
    """Tutorial 002's figure 3: the sin channels and the cos channels of two positions against the pair index ``i``, and
    the distance between the two positions within each pair ``||PE[a, 2i:2i+2] - PE[b, 2i:2i+2]||``."""
    fig = Figure(figsize=(12, 3.2), layout="constrained")
    axes = fig.subplots(1, 3)
    pairs = np.arange(table.shape[1] // 2)
    for ax, offset, name in ((axes[0], 0, "sin channels PE[p, 2i]"), (axes[1], 1, "cos channels PE[p, 2i+1]")):
        for p in positions:
            ax.plot(pairs, table[p, offset::2], marker=".", label=f"position {p}")
        ax.set(title=name, xlabel="pair index i")
        ax.legend()
    axes[2].semilogy(pairs, np.maximum(pair_difference, 1e-12), marker=".")
    axes[2].set(title=f"||PE[{positions[1]}] - PE[{positions[0]}]|| within each pair",
                xlabel="pair index i")
    return fig


def relative_score_figure(integer_values: np.ndarray, bound: float, integer_scores: np.ndarray,
                          sinusoid_scores: np.ndarray, offset: int) -> Figure:
    """Tutorial 000 §2.1: the integer code's growth, and the position-only attention score ``PE[i] . shift_k(PE)[j]``
    for the integer code and the sinusoid (rows: queries i, columns: keys j). A mark shows each row's highest key;
    the dashed line is the key ``offset`` places back."""
    fig = Figure(figsize=(12, 3.4), layout="constrained")
    a, b, c = fig.subplots(1, 3)
    a.plot(np.arange(len(integer_values)), integer_values, label="integer PE[p, 0]")
    a.axhline(bound, color="k", lw=GUIDE, ls="--", label="|sin|, |cos| bound")
    a.set(xlabel="position p", ylabel="value", title="the integer code grows with p")
    a.legend()
    for ax, scores, name in ((b, integer_scores, "integer"), (c, sinusoid_scores, "sinusoid")):
        ax.imshow(scores, aspect="auto", cmap="Blues", interpolation="nearest")
        queries = np.arange(scores.shape[0])
        ax.plot(scores.argmax(axis=1), queries, "r.", ms=3, label="highest key")
        ax.plot(queries - offset, queries, "k--", lw=GUIDE, label=f"key {offset} back")
        ax.set(xlim=(-0.5, scores.shape[1] - 0.5), ylim=(scores.shape[0] - 0.5, -0.5), xlabel="key j",
               ylabel="query i", title=f"{name}: PE[i] . PE[j + {offset}]")
        ax.legend(loc="lower left")
    return fig


def nearest_distance_figure(by_width: Mapping[str, Mapping[int, float]]) -> Figure:
    """Tutorial 002: the smallest distance between two of the first ``n`` positions, against ``n``, one line per width."""
    fig = Figure(figsize=(6.5, 3.2), layout="constrained")
    ax = fig.subplots()
    for label, curve in by_width.items():
        lengths = sorted(curve)
        ax.plot(lengths, [curve[n] for n in lengths], marker="o", ms=3, label=label)
    ax.set(xscale="log", yscale="log", xlabel="number of positions n", ylabel="nearest distance between two positions",
           title="does distinctness fall as sequences grow?")
    ax.legend()
    return fig


def compactness_figure(resolutions: Sequence[str], sinusoid_dims: Sequence[int], binary_dims: Sequence[int],
                       positions: int) -> Figure:
    """Tutorial 001 §3.2: the dimensions each code needs to keep ``positions`` positions apart, per resolution."""
    fig = Figure(figsize=(6.5, 3.2), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(resolutions))
    ax.bar(x - 0.2, sinusoid_dims, width=0.4, label="sinusoid")
    ax.bar(x + 0.2, binary_dims, width=0.4, label="binary")
    ax.set_xticks(x, resolutions, fontsize=SMALL)
    ax.set(ylabel="dimensions needed", title=f"{positions} positions, pairwise at least this far apart")
    ax.legend()
    return fig


def offset_rule_figure(offsets: Sequence[int], composition_error: Sequence[float],
                       shares: Mapping[str, Sequence[float]]) -> Figure:
    """Tutorial 001 §3.3: ``max |M_k - M_1^k|`` per offset, and the share of queries whose best key under the score
    ``PE[i] . (PE M_k)[j]`` is ``k`` places back, per table."""
    fig = Figure(figsize=(9, 3.2), layout="constrained")
    a, b = fig.subplots(1, 2)
    a.semilogy(offsets, np.maximum(np.asarray(composition_error), 1e-17), marker="o")
    a.set(xscale="log", xlabel="offset k", ylabel="max |M_k - M_1^k|", title="one rule: the k-step map is M_1^k")
    for label, values in shares.items():
        b.plot(offsets, values, marker="o", label=label)
    b.set(xscale="log", xlabel="offset k", ylabel="share of queries", ylim=(-0.02, 1.05),
          title="the fitted map finds the key k places back")
    b.legend()
    return fig


def parameter_ratio_figure(ratios: Mapping[str, Mapping[str, float]], claimed: float = 2.0) -> Figure:
    """Tutorial 003 §14.3.2: parameters after concatenating / after adding, per part of the model, per option."""
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    options = list(ratios)
    parts = list(next(iter(ratios.values())))
    x = np.arange(len(parts))
    width = 0.8 / max(1, len(options))
    for index, option in enumerate(options):
        ax.bar(x + (index - (len(options) - 1) / 2) * width, [ratios[option][p] for p in parts], width=width,
               label=f"d_ff = {option}")
    ax.axhline(claimed, color="k", lw=GUIDE, ls="--", label="'doubles' (tutorial 003)")
    ax.set_xticks(x, parts, fontsize=SMALL)
    ax.set(ylabel="concat / add", title="parameters of the later layers, d_model 512 -> 1024")
    ax.legend()
    return fig


style_figures(globals())  # every figure function above, in the house style
