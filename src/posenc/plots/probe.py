"""Figures of the model probe (:mod:`posenc.probe`): each function takes probe results and returns a ``Figure``."""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.figure import Figure

__all__ = ["geometry_figure", "decodability_figure", "four_terms_figure", "heads_figure", "distance_figure",
           "rope_frequency_figure", "rope_distance_figure"]


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
        ax.hist(values, bins=bins, histtype="step", density=True, label=label, linewidth=1.5)
    ax.axvline(0, color="grey", linewidth=0.8)
    ax.set(title="cosine(word, position)", xlabel="cosine", ylabel="density")
    ax.legend(fontsize=8)
    subs = geo["subspace"]["k"]
    ks = [s["k"] for s in subs]
    bx.plot(ks, [s["overlap"] for s in subs], "o-", label="word vs position PCA subspaces")
    mean = np.array([s["random_overlap_mean"] for s in subs])
    std = np.array([s["random_overlap_std"] for s in subs])
    bx.errorbar(ks, mean, yerr=2 * std, fmt="s--", label="random subspaces (+/- 2 sd)")
    bx.set(title="subspace overlap (mean cos^2 of principal angles)", xlabel="k", ylabel="overlap", xscale="log")
    bx.legend(fontsize=8)
    return fig


def decodability_figure(dec: dict[str, Any]) -> Figure:
    """Absolute (MAE, clipped) and relative (error %) decodability: model against sinusoid and random controls."""
    fig = Figure(figsize=(8, 3.5), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    names = ["model", "sinusoid", "random"]
    ax.bar(names, [dec[n]["absolute_mae_clipped"] for n in names], color=["C0", "C2", "C7"])
    ax.axhline(dec["chance_absolute_mae"], color="grey", linestyle="--", label="uniform guess")
    ax.set(title="absolute position: MAE (clipped)", ylabel="positions")
    ax.legend(fontsize=8)
    bx.bar(names, [dec[n]["relative_error_pct"] for n in names], color=["C0", "C2", "C7"])
    bx.axhline(50, color="grey", linestyle="--", label="chance")
    bx.set(title="relative order: error %", ylabel="%")
    bx.legend(fontsize=8)
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
    ax.legend(fontsize=8, ncols=5)
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
                ax.text(head, layer, f"{offset:+d}", ha="center", va="center", color="red", fontsize=7)
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
        ax.legend(fontsize=7, ncols=2)
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
    ax.legend(fontsize=8)
    return fig
