"""Figures for the report's remaining tutorial claims on meaning, words and positions in a pretrained model (each a
function returning a ``Figure``), drawn from the numbers :mod:`posenc.report.experiments.tutorial_semantics` computed:

- tutorial 000 §3.2: each analogy's target rank from the composed vector and from its words alone, against the ranks
  random triples give;
- tutorial 001 §4: the word table's variance per dimension and the position table's cumulative variance over principal
  directions, against isotropic tables of the same shapes;
- tutorial 001 §6: how well linear probes read the position and the token after every module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.plots.style import GUIDE, SMALL, style_figures

__all__ = ["analogy_figure", "spectra_figure", "layer_probe_figure"]


def analogy_figure(ranks: Mapping[str, int], single: Mapping[str, Mapping[str, int]], chance: np.ndarray,
                   vocabulary: int) -> Figure:
    """Left: per analogy, the target's rank from the composed vector and from each of its words alone (log scale,
    1 = nearest). Right: the ranks random triples give their random target.

    Args:
        ranks: analogy -> the target's rank from the composed vector.
        single: analogy -> {word: the target's rank from that word alone}.
        chance: the ranks of random triples.
        vocabulary: how many words were ranked.
    """
    if set(ranks) != set(single) or not ranks:
        raise PosencError(f"analogy_figure needs the same analogies in ranks and single, got {sorted(ranks)} and "
                          f"{sorted(single)}")
    fig = Figure(figsize=(9.0, 3.2), layout="constrained")
    a, b = fig.subplots(1, 2)
    labels, values, colours = [], [], []
    for name, rank in ranks.items():
        labels.append(f"{name}\n(sum)")
        values.append(rank)
        colours.append("C0")
        for word, r in single[name].items():
            labels.append(f"{word} alone")
            values.append(r)
            colours.append("C7")
    a.bar(range(len(values)), values, color=colours)
    a.set_yscale("log")
    a.set_xticks(range(len(values)), labels, fontsize=SMALL)
    a.set(ylabel="rank of the target (1 = nearest)", title="analogies in the word table")
    b.hist(np.asarray(chance), bins=40, color="C7")
    b.set(xlabel=f"rank among {vocabulary:,} words", ylabel="random triples", title="chance")
    return fig


def spectra_figure(word_variances: np.ndarray, isotropic_variances: Sequence[np.ndarray],
                   position_eigenvalues: np.ndarray, isotropic_eigenvalues: Sequence[np.ndarray]) -> Figure:
    """Left: the word table's variance per dimension as a share of the total, largest first, against isotropic
    tables'. Right: the position table's cumulative share of variance over principal directions, against isotropic
    tables'.

    Args:
        word_variances: ``[d]`` per coordinate dimension.
        isotropic_variances: the same for each isotropic table.
        position_eigenvalues: ``[d]`` covariance eigenvalues of the position table.
        isotropic_eigenvalues: the same for each isotropic table of the position table's shape.
    """
    if not len(isotropic_variances) or not len(isotropic_eigenvalues):
        raise PosencError("spectra_figure needs at least one isotropic table of each shape")

    def shares(v: np.ndarray) -> np.ndarray:
        v = np.sort(np.asarray(v, dtype=np.float64))[::-1]
        return v / v.sum()

    fig = Figure(figsize=(9.0, 3.2), layout="constrained")
    a, b = fig.subplots(1, 2)
    for i, v in enumerate(isotropic_variances):
        a.plot(shares(v), color="C7", lw=GUIDE, label="isotropic" if i == 0 else None)
    a.plot(shares(word_variances), color="C0", label="MiniLM words")
    a.set(xlabel="dimension (sorted)", ylabel="share of variance", yscale="log", title="words: variance per dimension")
    a.legend()
    for i, v in enumerate(isotropic_eigenvalues):
        b.plot(np.cumsum(shares(v)), color="C7", lw=GUIDE, label="isotropic" if i == 0 else None)
    b.plot(np.cumsum(shares(position_eigenvalues)), color="C1", label="MiniLM positions")
    b.axhline(0.9, color="k", lw=GUIDE, ls="--")
    b.set(xlabel="principal directions", ylabel="cumulative share", title="positions: room taken")
    b.legend()
    return fig


def layer_probe_figure(points: Sequence[str], position: Sequence[float], token: Sequence[float],
                       position_chance: float, token_chance: float) -> Figure:
    """The share of tokens whose position and whose identity a linear probe reads after each module, with the
    chance levels.

    Args:
        points: module names in order ("embeddings", "layer 1 attention", "layer 1 FFN", ...).
        position, token: one accuracy per module.
        position_chance, token_chance: chance levels.
    """
    if not len(points) == len(position) == len(token) or not points:
        raise PosencError(f"layer_probe_figure needs one accuracy per module, got {len(points)} modules, "
                          f"{len(position)} and {len(token)} accuracies")
    fig = Figure(figsize=(8.0, 3.2), layout="constrained")
    ax = fig.subplots()
    x = np.arange(len(points))
    ax.plot(x, position, marker="o", label="position (1 of 128)")
    ax.plot(x, token, marker="s", label="token")
    ax.axhline(position_chance, color="C0", ls=":", lw=GUIDE)
    ax.axhline(token_chance, color="C1", ls=":", lw=GUIDE, label="chance")
    ax.set_xticks(x, [p.replace("layer ", "L").replace(" attention", " att") for p in points], fontsize=SMALL,
                  rotation=45)
    ax.set(ylim=(0, 1.02), ylabel="read by a linear probe", title="what each module's output still carries")
    ax.legend()
    return fig


style_figures(globals())  # every figure function above, in the house style
