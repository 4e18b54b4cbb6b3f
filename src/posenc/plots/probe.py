"""Figures of the model probe (:mod:`posenc.probe`): each function takes probe results and returns a ``Figure``."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.plots.style import GUIDE, HOUSE, SMALL, style_figures

__all__ = ["geometry_figure", "decodability_figure", "four_terms_figure", "heads_figure", "distance_figure",
           "rope_frequency_figure", "rope_distance_figure", "window_length_figure", "term_shares_figure",
           "orthogonality_figure", "dimension_split_figure", "embedding_scale_figure"]


def geometry_figure(geo: dict[str, Any], cos_raw: np.ndarray, cos_centred: np.ndarray,
                    cos_gaussian: np.ndarray) -> Figure:
    """Left: histograms of word/position cosines (raw, centred, Gaussian chance). Right: subspace overlap against k
    for the top-k PCA subspaces, against random subspaces."""
    fig = Figure(figsize=(10, 4), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    bins = np.linspace(min(cos_raw.min(), cos_gaussian.min(), cos_centred.min()),
                       max(cos_raw.max(), cos_gaussian.max(), cos_centred.max()), 120)
    for values, label in ((cos_gaussian, f"Gaussian chance (d={geo['dim']})"), (cos_centred, "centred"),
                          (cos_raw, f"raw (mean angle {geo['raw']['angle_mean']:.1f} deg)")):
        ax.hist(values, bins=bins, histtype="step", density=True, label=label, linewidth=HOUSE["lines.linewidth"])
    ax.axvline(0, color="grey", linewidth=GUIDE)
    ax.set(title="cosine(word, position)", xlabel="cosine", ylabel="density")
    ax.legend()
    subs = geo["subspace"]["k"]
    ks = [s["k"] for s in subs]
    bx.plot(ks, [s["overlap"] for s in subs], "o-", label="word vs position PCA subspaces")
    mean = np.array([s["random_overlap_mean"] for s in subs])
    std = np.array([s["random_overlap_std"] for s in subs])
    bx.errorbar(ks, mean, yerr=2 * std, fmt="s--", label="random subspaces (+/- 2 sd)")
    bx.set(title="subspace overlap (mean cos^2 of principal angles)", xlabel="k", ylabel="overlap", xscale="log")
    bx.legend()
    return fig


def decodability_figure(dec: dict[str, Any]) -> Figure:
    """Absolute (MAE, clipped) and relative (error %) decodability: model against sinusoid and random controls."""
    fig = Figure(figsize=(8, 3.5), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    names = ["model", "sinusoid", "random"]
    ax.bar(names, [dec[n]["absolute_mae_clipped"] for n in names], color=["C0", "C2", "C7"])
    ax.axhline(dec["chance_absolute_mae"], color="grey", linestyle="--", label="uniform guess")
    ax.set(title="absolute position: MAE (clipped)", ylabel="positions")
    ax.legend()
    bx.bar(names, [dec[n]["relative_error_pct"] for n in names], color=["C0", "C2", "C7"])
    bx.axhline(50, color="grey", linestyle="--", label="chance")
    bx.set(title="relative order: error %", ylabel="%")
    bx.legend()
    return fig


def four_terms_figure(split: Any, summary: dict[str, Any], head: int | None = None, tokens: int = 64) -> Figure:
    """Top: the five parts of one head's layer-0 logits (first ``tokens`` tokens; default the head with the largest
    position-position share). Bottom: each part's share of within-query logit variance, for every head."""
    shares = summary["shares_within_rows"]
    if head is None:
        head = int(np.argmax([s["pp"] for s in shares]))
    names = ("ww", "wp", "pw", "pp", "rest")
    titles = {"ww": "word-word", "wp": "word-position", "pw": "position-word", "pp": "position-position",
              "rest": "remainder"}
    fig = Figure(figsize=(14, 6.5), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[1.1, 1])
    axes = top.subplots(1, 5)
    for ax, name in zip(axes, names, strict=True):
        term = split.terms[name][head, :tokens, :tokens].numpy()
        limit = float(np.abs(term).max()) or 1.0
        image = ax.imshow(term, cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
        ax.set(title=f"{titles[name]}", xlabel="key", ylabel="query" if name == "ww" else None)
        top.colorbar(image, ax=ax, shrink=0.7)
    top.suptitle(f"layer 0, head {head}: parts of the logits (relative error of the sum "
                 f"{summary['relative_error']:.1e})")
    ax = bottom.subplots()
    x = np.arange(len(shares))
    width = 0.16
    for i, name in enumerate(names):
        ax.bar(x + (i - 2) * width, [s[name] for s in shares], width, label=titles[name])
    ax.set(xticks=x, xlabel="head", ylabel="share of within-query variance", title="variance share of each part")
    ax.legend(ncols=5)
    return fig


def heads_figure(heads: dict[str, Any]) -> Figure:
    """Per layer x head: attention on the previous token, on the next token, and the Voita fraction (positional
    heads marked with their offset)."""
    fig = Figure(figsize=(13, 4.2), layout="constrained")
    panels = [("previous", "attention on previous token"), ("next", "attention on next token"),
              ("voita_fraction", "Voita: share of queries on the best fixed offset")]
    for ax, (key, title) in zip(fig.subplots(1, 3), panels, strict=True):
        values = np.asarray(heads[key])
        image = ax.imshow(values, cmap="viridis", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
        ax.set(title=title, xlabel="head", ylabel="layer")
        fig.colorbar(image, ax=ax, shrink=0.8)
        if key == "voita_fraction":
            for layer, head, offset, _ in heads["positional_heads"]:
                ax.text(head, layer, f"{offset:+d}", ha="center", va="center", color="red", fontsize=SMALL)
    return fig


def distance_figure(heads: dict[str, Any]) -> Figure:
    """Attention mass per distance bin, averaged over the heads of each layer (mass per token of bin width)."""
    edges = np.asarray(heads["distance_bin_edges"])
    mass = np.asarray(heads["mass_by_distance"])  # [L, H, nb]
    width = np.diff(edges)
    centres = np.where(edges[:-1] == 0, 0.5, np.sqrt(np.maximum(edges[:-1], 1) * np.maximum(edges[1:] - 1, 1)))
    fig = Figure(figsize=(6.5, 4.2), layout="constrained")
    ax = fig.subplots()
    colours = np.linspace(0, 1, mass.shape[0])
    import matplotlib

    cmap = matplotlib.colormaps["plasma"]
    used = mass.sum(-1).mean(-1) > 0
    for layer in np.nonzero(used)[0]:
        density = mass[layer].mean(0) / width
        ax.plot(centres, density, color=cmap(colours[layer] * 0.9), label=f"layer {layer}")
    ax.set(xscale="log", yscale="log", xlabel="distance |i - j| (tokens)", ylabel="attention mass per token",
           title="attention mass against distance (mean over heads)")
    if mass.shape[0] <= 8:
        ax.legend(ncols=2)
    else:
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize

        scale = ScalarMappable(Normalize(0, (mass.shape[0] - 1) / 0.9), cmap)
        fig.colorbar(scale, ax=ax, label="layer", shrink=0.8)
    return fig


def rope_frequency_figure(rope: dict[str, Any]) -> Figure:
    """Share of |q|^2 and |k|^2 in each rotary pair (fastest left), averaged over heads, per layer."""
    q = np.asarray(rope["q_pair_share"]).mean(1)  # [L, R/2]
    k = np.asarray(rope["k_pair_share"]).mean(1)
    fig = Figure(figsize=(12, 4.5), layout="constrained")
    for ax, values, name in zip(fig.subplots(1, 2), (q, k), ("query", "key"), strict=True):
        image = ax.imshow(values, aspect="auto", cmap="magma", interpolation="nearest")
        ax.set(title=f"{name}: share of norm^2 per rotary pair (uniform = {1 / values.shape[1]:.3f})",
               xlabel="rotary pair i (fast -> slow)", ylabel="layer")
        fig.colorbar(image, ax=ax, shrink=0.8)
    return fig


def rope_distance_figure(rope: dict[str, Any], layers: list[int] | None = None) -> Figure:
    """Mean logit against distance for real q/k, random q/k and the mean-vector part, for a few layers."""
    curves = rope["logit_vs_distance"]
    real, random, mean = (np.asarray(curves[n]).mean(1) for n in ("real", "random", "mean"))  # [L, D]
    distances = np.asarray(rope["distances"], dtype=float)
    n_layers = real.shape[0]
    layers = layers or sorted({0, n_layers // 3, 2 * n_layers // 3, n_layers - 1})
    fig = Figure(figsize=(4 * len(layers), 3.8), layout="constrained")
    x = np.maximum(distances, 0.5)
    for ax, layer in zip(np.atleast_1d(fig.subplots(1, len(layers))), layers, strict=True):
        ax.plot(x, real[layer], "o-", label="real q/k", markersize=3)
        ax.plot(x, mean[layer], "s--", label="mean q, mean k", markersize=3)
        ax.plot(x, random[layer], "^:", label="random q/k", markersize=3)
        ax.set(xscale="log", title=f"layer {layer}", xlabel="distance (tokens)", ylabel="mean logit")
    ax.legend()
    return fig


# ---------------------------------------------------------------------------------------------------------------
# the report's MiniLM figures: measured values with their 95% intervals (posenc.stats.Estimate)
# ---------------------------------------------------------------------------------------------------------------
def _bars(ax: Any, x: np.ndarray, estimates: list[Any], **style: Any) -> None:
    """Points at ``estimate.value`` with 95% interval bars (an unbounded interval draws no bar)."""
    values = np.array([e.value for e in estimates])
    low = np.array([e.low if np.isfinite(e.low) else e.value for e in estimates])
    high = np.array([e.high if np.isfinite(e.high) else e.value for e in estimates])
    ax.errorbar(x, values, yerr=[values - low, high - values], capsize=3, **style)


def window_length_figure(lengths: list[int], tracked: dict[str, list[Any]], bins: dict[int, list[Any]],
                         bin_width: int, fractions: np.ndarray, offsets: np.ndarray, threshold: float,
                         headline: int) -> Figure:
    """Positional heads by window length.

    Left: Voita fractions (share of queries whose maximum sits on the head's offset) against the window length,
    one line per tracked head (``tracked[label]``: one estimate per length), with 95% intervals and the threshold.
    Middle: for the same head (the first tracked), the share by query position, in bins of ``bin_width`` queries,
    for each window length (``bins[length]``). Right: every head's fraction at the ``headline`` length
    (``fractions [L, H]``), annotated with its offset.
    """
    fig = Figure(figsize=(13, 3.8), layout="constrained")
    a, b, c = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1.2, 1.3]})
    for i, (label, estimates) in enumerate(tracked.items()):
        _bars(a, np.array(lengths) * (1 + 0.02 * i), estimates, fmt="o-", label=label)
    a.axhline(threshold, color="k", lw=GUIDE, ls="--", label=f"Voita's bar ({threshold:.0%})")
    a.set(xscale="log", xlabel="window length (tokens)", ylabel="share of queries on the head's offset",
          title="the best heads by window length", ylim=(0, 1.02))
    a.set_xticks(lengths, [str(n) for n in lengths])
    a.minorticks_off()
    a.legend()
    first = next(iter(tracked))
    for length, estimates in bins.items():
        starts = np.arange(len(estimates)) * bin_width
        _bars(b, starts + bin_width / 2, estimates, fmt="s-", label=f"{length}-token windows")
    b.axhline(threshold, color="k", lw=GUIDE, ls="--")
    b.set(xlabel="query position", ylabel="share of queries on the offset", ylim=(0, 1.02),
          title=f"{first}: where in the window it holds")
    b.legend()
    image = c.imshow(fractions, cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for layer in range(fractions.shape[0]):
        for head in range(fractions.shape[1]):
            c.text(head, layer, f"{offsets[layer, head]:+d}", ha="center", va="center", fontsize=SMALL,
                   color="w" if fractions[layer, head] < 0.6 else "k")
    c.set(xlabel="head", ylabel="layer", title=f"Voita fraction, {headline}-token windows")
    fig.colorbar(image, ax=c, shrink=0.8)
    return fig


def term_shares_figure(per_head: dict[str, list[Any]], by_length: dict[int, dict[str, Any]], headline: int,
                       threshold: float) -> Figure:
    """The four-term split with intervals.

    Left: per head, each of the four terms' share of the four terms' variance (``per_head["ww_of_four"]``, ...)
    at the ``headline`` length, with the expert bar ``threshold``. Right: against the window length, the mean
    variance share of the cross terms (wp + pw), of the remainder, and the largest per-head cross share.
    """
    fig = Figure(figsize=(12, 3.8), layout="constrained")
    a, b = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.7, 1]})
    titles = {"ww": "word-word", "wp": "word-position", "pw": "position-word", "pp": "position-position"}
    heads = np.arange(len(per_head["ww_of_four"]))
    for i, name in enumerate(titles):
        _bars(a, heads + (i - 1.5) * 0.18, per_head[f"{name}_of_four"], fmt="o", ms=3, label=titles[name])
    a.axhline(threshold, color="k", lw=GUIDE, ls="--", label=f"expert bar ({threshold:.0%})")
    a.set(xlabel="head (layer 0)", ylabel="share of the four terms' variance", ylim=(0, 1.02),
          title=f"which term drives each head ({headline}-token windows)")
    a.set_xticks(heads)
    a.legend(ncols=3)
    lengths = sorted(by_length)
    for key, label in (("cross_share", "word-position + position-word (mean over heads)"),
                       ("max_head_cross_share", "word-position + position-word (largest head)"),
                       ("rest_share", "remainder: biases, LayerNorm (mean)")):
        _bars(b, np.array(lengths), [by_length[n][key] for n in lengths], fmt="o-", label=label)
    b.set(xscale="log", xlabel="window length (tokens)", ylabel="share of logit variance",
          title="variance shares by window length")
    b.set_xticks(lengths, [str(n) for n in lengths])
    b.minorticks_off()
    b.legend()
    return fig


def orthogonality_figure(samples: dict[str, Any], margin: float, histograms: dict[str, np.ndarray]) -> Figure:
    """Word-position orthogonality by sample.

    Left: the mean angle (with 95% interval) of each sample of word rows against all position rows
    (``samples[label]``: an estimate, or a plain number for published values), inside the band ``90 +- margin``.
    Right: histograms of the angles (``histograms[label]``: flat arrays of degrees).
    """
    fig = Figure(figsize=(12, 3.8), layout="constrained")
    a, b = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1]})
    labels = list(samples)
    y = np.arange(len(labels))[::-1]
    for yi, label in zip(y, labels, strict=True):
        value = samples[label]
        if hasattr(value, "low"):
            low = value.low if np.isfinite(value.low) else value.value
            high = value.high if np.isfinite(value.high) else value.value
            a.errorbar([value.value], [yi], xerr=[[value.value - low], [high - value.value]], fmt="o", color="C0",
                       capsize=3)
        else:
            a.plot([value], [yi], "D", color="C3")
    a.axvspan(90 - margin, 90 + margin, color="C2", alpha=0.15, label=f"nearly orthogonal: 90 +- {margin:.2f} deg")
    a.axvline(90, color="k", lw=GUIDE)
    a.set_yticks(y, labels, fontsize=SMALL)
    a.set(xlabel="mean angle, word vs position (degrees)", title="mean angle by sample (95% intervals)")
    a.legend(loc="lower left")
    for label, angles in histograms.items():
        b.hist(angles, bins=100, histtype="step", density=True, label=label, linewidth=HOUSE["lines.linewidth"])
    b.axvline(90, color="k", lw=GUIDE)
    b.set(xlabel="angle (degrees)", ylabel="density", title="angles of every word-position pair")
    b.legend()
    return fig


def dimension_split_figure(share_per_dim: np.ndarray, blocks: list[tuple[int, int]], r2_sum: list[Any],
                           r2_table: list[float], share_by_block: list[Any]) -> Figure:
    """Position against meaning by dimension: the per-dimension share of the input's variance from position (left,
    block means with 95% intervals), and the held-out R^2 of position from each block of word + position sums beside
    the position table alone (right)."""
    fig = Figure(figsize=(8, 3), layout="constrained")
    a, b = fig.subplots(1, 2)
    a.plot(np.arange(len(share_per_dim)), share_per_dim, lw=GUIDE, color="0.6", label="per dimension")
    for (lo, hi), e in zip(blocks, share_by_block, strict=True):
        a.fill_between([lo, hi - 1], e.low, e.high, color="C0", alpha=0.3)
        a.hlines(e.value, lo, hi - 1, color="C0")
    a.set(xlabel="dimension", ylabel="share of variance from position", title="position share of word + position")
    a.legend()
    x = np.arange(len(blocks))
    values = np.array([e.value for e in r2_sum])
    b.bar(x - 0.2, values, width=0.4, color="C0", label="word + position",
          yerr=[values - np.array([e.low for e in r2_sum]), np.array([e.high for e in r2_sum]) - values], capsize=3)
    b.bar(x + 0.2, r2_table, width=0.4, color="C1", label="position table alone")
    b.set_xticks(x, [f"{lo}-{hi - 1}" for lo, hi in blocks])
    b.set(xlabel="dimensions", ylabel="held-out R^2 of position", title="linear decoding by quarter")
    b.legend()
    return fig


def embedding_scale_figure(word_norms: np.ndarray, position_norms: np.ndarray, model: str,
                           rms: dict[str, float], colors: list[str]) -> Figure:
    """The size of position vectors against word vectors.

    Left: density histograms of the L2 norms of a model's trained word rows and of its position rows (``model``
    titles the panel). Right: RMS per channel of the sinusoid against embedding scales, one bar each on a log axis
    (``rms``: ``{label: value}``, left to right, in ``colors``: one matplotlib colour per bar).
    """
    if len(colors) != len(rms):
        raise PosencError(f"{len(colors)} colours {colors} for {len(rms)} bars {list(rms)}; pass one colour per bar")
    fig = Figure(figsize=(7, 3), layout="constrained")
    a, b = fig.subplots(1, 2)
    a.hist(word_norms, bins=60, alpha=0.7, density=True, label="trained word rows")
    a.hist(position_norms, bins=60, alpha=0.7, density=True, label="position rows")
    a.set(xlabel="L2 norm", ylabel="density", title=model)
    a.legend()
    b.bar(list(rms), list(rms.values()), color=list(colors))
    b.set(ylabel="RMS per channel", yscale="log", title="the sinusoid vs embedding scales")
    return fig


style_figures(globals())  # every figure function above, in the house style
