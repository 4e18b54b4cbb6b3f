"""Geometry of learned word and position embeddings, with the chance baselines that make it mean something.

Tutorial 001 §4.1 takes BERT's word rows 100..1099 (``W [1000, d]``) and all position rows (``P [512, d]``), computes
every cosine ``cos[i, j] = <w_i, p_j> / (|w_i| |p_j|)`` (a ``[1000, 512]`` matrix) and the angles
``arccos(cos) * 180 / pi``, and calls a mean angle near 90 degrees "almost orthogonal". But two independent random
vectors in ``d`` dimensions already have cosine mean 0 and standard deviation ``1 / sqrt(d)`` (0.0361 at d=768,
0.0510 at d=384), so that figure alone cannot show learned orthogonality. Beside the tutorial's statistics this module
reports:

- ``baseline``: the same statistics for Gaussian vectors of this dimension (the chance level), for the position rows
  with their coordinates shuffled (same values and norms, no shared directions), and for other word rows in place of
  the positions (is a position any more orthogonal to a word than another word is?);
- ``centred``: the statistics after subtracting each set's mean vector (a shared offset direction, common in trained
  embeddings, shifts every cosine; Mu & Viswanath 2018, "All-but-the-Top");
- ``subspace``: principal angles between the top-k PCA subspaces of words and positions (Björck & Golub 1973:
  ``cos theta_i`` are the singular values of ``U_w^T U_p``), against two random k-dimensional subspaces of R^d, whose
  mean squared cosine is ``k / d``;
- ``norms``: mean norms of word and position rows.

And the one judgement of the question "are word and position vectors nearly orthogonal?", which ``posenc probe``,
``posenc report`` and the Python API all call: :func:`orthogonality`. It measures the mean angle over every pair of
the chosen word rows and all position rows, with a 95% interval from a two-way bootstrap over words and positions
(:func:`posenc.stats.bootstrap_weights`), and calls the pair of sets nearly orthogonal when the whole interval of
``|mean angle - 90|`` lies below :func:`near_orthogonal_margin` (``asin(1/sqrt(d))``, 2.93 degrees at d=384: the
angle by which one random pair of directions typically misses 90 degrees). The rows it judges by default are the
trained ones: :func:`placeholder_rows` finds BERT's ``[unused...]`` rows, which no text produces, so training never
updated them; 895 of the tutorial's 1000 rows 100..1099 are such placeholders.

Shapes: ``words [N, d]``, ``positions [P, d]``; every statistic is computed in float64 (the bootstrap's weighted
means in float32).
"""

from __future__ import annotations

import collections
import math
import re
from collections.abc import Iterable
from typing import Any

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from posenc.errors import PosencError
from posenc.stats import Estimate, bootstrap_weights

__all__ = ["embedding_tables", "cosine_matrix", "pair_stats", "tutorial_examples", "gaussian_baseline",
           "principal_angles", "pca", "subspace_comparison", "geometry", "verdict", "format_tutorial_layout",
           "WORD_ROWS", "placeholder_rows", "trained_rows", "frequent_rows", "near_orthogonal_margin",
           "orthogonality", "initial_table_orthogonality", "BERT_INIT_STD", "principal_k", "subspace_share",
           "ORTHOGONAL_ENRICHMENT", "orthogonality_against_chance"]

#: the tutorial's sample of word rows
WORD_ROWS = (100, 1100)
#: BERT's reserved vocabulary entries, which no text produces: ``[unused0]``, ``[unused1]``, ...
PLACEHOLDER = re.compile(r"\[unused\d+\]")
#: BERT initialises its embedding tables from N(0, 0.02^2) (``initializer_range``, Devlin et al. 2019)
BERT_INIT_STD = 0.02


def embedding_tables(model: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """``(word [V, d], position [P, d])`` tables of a model with learned absolute positions.

    Raises a PosencError naming the probes that do apply when the model has no position table (RoPE, ALiBi, ...).
    The tables come back on the CPU (the statistics run in NumPy), in the model's dtype.
    """
    words = model.get_input_embeddings().weight
    for name, module in model.named_modules():
        leaf = name.rsplit(".", 1)[-1]
        if leaf in ("position_embeddings", "wpe", "embed_positions") and isinstance(module, torch.nn.Embedding):
            return words.detach().cpu(), module.weight.detach().cpu()
    kind = getattr(model.config, "model_type", "?")
    raise PosencError(f"model type {kind!r} has no learned position-embedding table, so the word/position geometry, "
                      f"the position decodability and the four-term split do not apply; the probes that do apply "
                      f"are the attention heads (and, for RoPE models, the rotary frequency usage)")


def cosine_matrix(words: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``cos[i, j] = <w_i, p_j> / (|w_i| |p_j|)``: ``[N, d] x [P, d] -> [N, P]`` float64."""
    w = np.asarray(words, dtype=np.float64)
    p = np.asarray(positions, dtype=np.float64)
    w = w / np.linalg.norm(w, axis=1, keepdims=True)
    p = p / np.linalg.norm(p, axis=1, keepdims=True)
    return w @ p.T


def _angles(cos: np.ndarray) -> np.ndarray:
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def pair_stats(cos: np.ndarray, angles: np.ndarray | None = None) -> dict[str, float]:
    """The tutorial's statistics over every word/position pair: cosine mean, std, mean |cos|; angle mean, std, range
    (``angles``: the angles of ``cos`` in degrees, if already computed)."""
    angles = _angles(cos) if angles is None else angles
    return {"cos_mean": float(cos.mean()), "cos_std": float(cos.std()), "cos_abs_mean": float(np.abs(cos).mean()),
            "angle_mean": float(angles.mean()), "angle_std": float(angles.std()),
            "angle_min": float(angles.min()), "angle_max": float(angles.max())}


def tutorial_examples(cos: np.ndarray, word: int = 10, position: int = 5) -> dict[str, dict[str, float]]:
    """The tutorial's examples: word 0 / position 0, word 0 / position 1, word 10 / position 5 (cos and angle), word 10
    against all positions and position 5 against all words (cos and angle ranges). Indices are into the sample."""
    angles = _angles(cos)

    def pair(i: int, j: int) -> dict[str, float]:
        return {"cos": float(cos[i, j]), "angle": float(angles[i, j])}

    def spread(c: np.ndarray, a: np.ndarray) -> dict[str, float]:
        return {"cos_min": float(c.min()), "cos_max": float(c.max()), "angle_min": float(a.min()),
                "angle_max": float(a.max())}

    return {"word0_pos0": pair(0, 0), "word0_pos1": pair(0, 1), f"word{word}_pos{position}": pair(word, position),
            f"word{word}_all_positions": spread(cos[word], angles[word]),
            f"pos{position}_all_words": spread(cos[:, position], angles[:, position])}


def gaussian_baseline(n_words: int, n_positions: int, dim: int, seed: int = 0) -> dict[str, float]:
    """Statistics of independent standard Gaussian vectors: cosine mean ~0, std ~1/sqrt(d), angle mean ~90."""
    rng = np.random.default_rng(seed)
    return pair_stats(cosine_matrix(rng.standard_normal((n_words, dim)), rng.standard_normal((n_positions, dim))))


def _shuffle_coordinates(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.take_along_axis(x, rng.permuted(np.tile(np.arange(x.shape[1]), (x.shape[0], 1)), axis=1), axis=1)


def principal_angles(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Principal angles (degrees, ascending) between the column spaces of orthonormal ``a [d, k]`` and ``b [d, k]``.

    ``cos theta_i = sigma_i(a^T b)`` (Björck & Golub 1973).
    """
    sigma = np.linalg.svd(a.T @ b, compute_uv=False)
    return np.degrees(np.arccos(np.clip(sigma, -1.0, 1.0)))


def pca(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal directions ``[d, d]`` (columns, by falling variance) of the centred rows of ``x [n, d]`` and the
    variance share of each, from the eigendecomposition of the ``[d, d]`` scatter matrix (cheap for a large vocabulary).
    """
    centred = x - x.mean(axis=0)
    eigval, eigvec = np.linalg.eigh(centred.T @ centred)  # ascending
    eigval, eigvec = np.clip(eigval[::-1], 0.0, None), eigvec[:, ::-1]
    return eigvec, eigval / eigval.sum()


def subspace_comparison(words: np.ndarray, positions: np.ndarray, ks: tuple[int, ...] = (1, 5, 10, 20, 50),
                        n_random: int = 50, seed: int = 0) -> dict[str, Any]:
    """Principal angles between the top-k PCA subspaces of words and positions, against random subspaces.

    For each k: the principal angles, their mean squared cosine (overlap; 0 = orthogonal subspaces, 1 = the same
    subspace), and the same overlap for ``n_random`` pairs of uniformly random k-dimensional subspaces (mean and std;
    expectation ``k / d``). Also the share of variance the top-k directions of each set hold.
    """
    d = words.shape[1]
    rng = np.random.default_rng(seed)
    out: dict[str, Any] = {"dim": d, "k": []}
    basis_w, share_w = pca(words)
    basis_p, share_p = pca(positions)
    for k in ks:
        if k > min(d, positions.shape[0] - 1, words.shape[0] - 1):
            continue
        uw, up = basis_w[:, :k], basis_p[:, :k]  # [d, k] each
        var_w, var_p = float(share_w[:k].sum()), float(share_p[:k].sum())
        angles = principal_angles(uw, up)
        random = []
        for _ in range(n_random):
            qa, _ = np.linalg.qr(rng.standard_normal((d, k)))
            qb, _ = np.linalg.qr(rng.standard_normal((d, k)))
            random.append(float(np.mean(np.cos(np.radians(principal_angles(qa, qb))) ** 2)))
        out["k"].append({
            "k": k, "angles": [float(a) for a in angles], "angle_min": float(angles.min()),
            "angle_mean": float(angles.mean()), "overlap": float(np.mean(np.cos(np.radians(angles)) ** 2)),
            "random_overlap_mean": float(np.mean(random)), "random_overlap_std": float(np.std(random)),
            "random_overlap_expected": k / d, "word_variance_share": var_w, "position_variance_share": var_p})
    return out


def principal_k(share: np.ndarray, level: float) -> int:
    """How many leading principal directions hold at least ``level`` of the variance (``share``: each direction's
    share, falling, as :func:`pca` returns it)."""
    if not 0 < level <= 1:
        raise PosencError(f"level must lie in (0, 1], got {level!r}")
    return int(min(len(share), np.searchsorted(np.cumsum(share), level - 1e-12) + 1))


def subspace_share(words: np.ndarray, positions: np.ndarray, level: float = 0.5, seed: int = 0,
                   position_level: float = 0.9) -> dict[str, Any]:
    """How much of the position table's variance lies inside the word table's principal subspace (tutorial 001's "two
    nearly orthogonal subspaces", judged as subspaces rather than as single rows).

    Both tables are centred. ``U`` holds the ``k`` leading principal directions of the words, the fewest that hold
    ``level`` of their variance (where meaning is dense: tutorial 001's 语义的富集). The position table's share inside is
    ``sum_t |U^T p_t|^2 / sum_t |p_t|^2``, with a 95% interval from a bootstrap over position rows (``U`` fixed: it
    rests on the far more numerous word rows). A table with isotropic random rows puts ``k / d`` of its variance in
    any ``k``-dimensional subspace, so ``enrichment = share / (k / d)`` is 1 for random tables and 0 for a position
    table orthogonal to the words' subspace. Also the principal angles between ``U`` and the positions' own leading
    subspace (the fewest directions holding ``position_level`` of their variance).

    Returns ``{"k", "dim", "share", "enrichment"}`` (the last two :class:`~posenc.stats.Estimate`), ``chance``
    (``k / d``), ``k_positions``, ``angles`` (degrees, ascending) and ``angle_min``.
    """
    w = np.asarray(words, np.float64)
    p = np.asarray(positions, np.float64)
    if w.shape[1] != p.shape[1] or len(w) < 2 or len(p) < 2:
        raise PosencError(f"words [N, d] and positions [P, d] need one width and at least 2 rows each, got "
                          f"{w.shape} and {p.shape}")
    d = w.shape[1]
    basis_w, share_w = pca(w)
    k = principal_k(share_w, level)
    u = basis_w[:, :k]  # [d, k]
    centred = p - p.mean(axis=0)
    inside = ((centred @ u) ** 2).sum(1)  # [P]
    total = (centred ** 2).sum(1)
    chance = k / d

    def statistic(b: np.ndarray) -> np.ndarray:
        ratio = (b @ inside) / (b @ total)
        return np.stack([ratio, ratio / chance], axis=1)

    share, enrichment = bootstrap_weights((len(p),), statistic, seed=seed)
    basis_p, share_p = pca(p)
    k_p = principal_k(share_p, position_level)
    angles = principal_angles(u, basis_p[:, :k_p])
    return {"k": k, "dim": d, "level": level, "share": share, "enrichment": enrichment, "chance": chance,
            "k_positions": k_p, "angles": [float(a) for a in angles], "angle_min": float(angles.min())}


#: "orthogonal" against chance: the positions put under half of chance's share of their variance in the words'
#: principal subspace (enrichment 1: random vectors of that dimension; 0: orthogonal subspaces; halfway between)
ORTHOGONAL_ENRICHMENT = 0.5


def orthogonality_against_chance(words: np.ndarray, positions: np.ndarray, level: float = 0.5,
                                 bar: float = ORTHOGONAL_ENRICHMENT, std: float = BERT_INIT_STD,
                                 rng: np.random.Generator | None = None, seed: int = 0) -> dict[str, Any]:
    """The one definition of "word and position vectors are (near-)orthogonal" that the report's claims share
    (tutorial 001 §4: "训练初期,他们确实不是近似正交的", at the start of training they are not near-orthogonal).

    Two sets of vectors count as orthogonal when they are *more* orthogonal than chance: random vectors of the same
    dimension already meet at about 90 degrees, so an angle near 90 says nothing, and chance overlap counts as *not*
    orthogonal. The statistic is :func:`subspace_share`'s enrichment, the share of the (centred) position table's
    variance inside the words' principal subspace (the fewest directions holding ``level`` of the word variance)
    over the share ``k/d`` isotropic random rows put there:

        enrichment = (sum_t |U^T p_t|^2 / sum_t |p_t|^2) / (k / d)      1 for chance, 0 for orthogonal subspaces

    and the sets are orthogonal when its 95% interval lies wholly below ``bar`` (halfway), not orthogonal when it
    lies at or above, undecided when it straddles. The null is computed by the same code on tables of the same
    shapes drawn from N(0, std^2) (random vectors of this dimension; BERT's initialisation by default), from ``rng``
    (default ``numpy.random.default_rng(seed)``): words first, then positions.

    Returns :func:`subspace_share`'s dict for the given tables, plus ``null`` (the same dict for the random tables),
    ``bar`` and ``orthogonal`` / ``null_orthogonal`` (``"yes"``, ``"no"`` or ``"undecided"``).

    >>> rng = np.random.default_rng(0)
    >>> words = np.concatenate([rng.normal(size=(400, 4)), np.zeros((400, 4))], axis=1)   # words in dims 0..3
    >>> positions = np.concatenate([np.zeros((64, 4)), rng.normal(size=(64, 4))], axis=1)  # positions in 4..7
    >>> out = orthogonality_against_chance(words, positions)
    >>> out["orthogonal"], out["null_orthogonal"]
    ('yes', 'no')
    """
    w, p = np.asarray(words, np.float64), np.asarray(positions, np.float64)
    measured = subspace_share(w, p, level, seed=seed)
    draw = np.random.default_rng(seed) if rng is None else rng
    null = subspace_share(draw.normal(0.0, std, w.shape), draw.normal(0.0, std, p.shape), level, seed=seed)
    return {**measured, "null": null, "bar": bar, "orthogonal": _judge(measured["enrichment"], bar),
            "null_orthogonal": _judge(null["enrichment"], bar)}


def placeholder_rows(tokenizer: Any) -> np.ndarray:
    """Vocabulary rows of placeholder tokens (``[unused0]``, ...): reserved entries no text produces, so training
    never updated them (BERT's vocabulary has 994; rows 100..1099 hold 895 of them). Sorted row indices."""
    vocab = tokenizer.get_vocab()
    return np.array(sorted(i for token, i in vocab.items() if PLACEHOLDER.fullmatch(token)), dtype=np.int64)


def trained_rows(tokenizer: Any, n_rows: int) -> np.ndarray:
    """Every row of an ``n_rows`` word table except the placeholders: the rows training could shape."""
    return np.setdiff1d(np.arange(n_rows), placeholder_rows(tokenizer))


def frequent_rows(tokenizer: Any, texts: Iterable[str], count: int = 1000) -> np.ndarray:
    """The ``count`` token ids most frequent in ``texts`` (no special tokens added; ties broken by the lower id):
    the words a text actually uses."""
    counter: collections.Counter[int] = collections.Counter()
    for text in texts:
        counter.update(tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])
    if len(counter) < count:
        raise PosencError(f"the text has {len(counter)} distinct tokens, fewer than the {count} asked for; pass more "
                          f"text or a smaller count")
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    return np.array(sorted(i for i, _ in ranked[:count]), dtype=np.int64)


def near_orthogonal_margin(dim: int) -> float:
    """``asin(1 / sqrt(d))`` in degrees: how far from 90 degrees one pair of random directions in ``d``
    dimensions typically lies (its cosine has standard deviation ``1 / sqrt(d)``; FACTS §2). A mean angle closer
    to 90 degrees than this is "nearly orthogonal". 2.93 degrees at d=384, 2.07 at d=768."""
    if dim < 2:
        raise PosencError(f"the margin needs a dimension >= 2, got {dim}")
    return math.degrees(math.asin(1.0 / math.sqrt(dim)))


def _judge(estimate: Estimate, threshold: float) -> str:
    """``"yes"`` when the whole interval lies below ``threshold``, ``"no"`` when it lies at or above it,
    ``"undecided"`` when it straddles it (the report's verdict rule for a ``<`` test)."""
    if estimate.high < threshold:
        return "yes"
    if estimate.low >= threshold:
        return "no"
    return "undecided"


def orthogonality(words: torch.Tensor | np.ndarray, positions: torch.Tensor | np.ndarray,
                  rows: np.ndarray | None = None, margin: float | None = None, seed: int = 0) -> dict[str, Any]:
    """Are word rows ``rows`` (default all) and every position row nearly orthogonal? The one judgement.

    The mean angle ``(1/(N P)) sum_ij arccos cos(w_i, p_j)`` with a 95% interval from the two-way bootstrap
    (words and positions resampled independently), and ``|mean angle - 90|`` with its interval; ``nearly
    orthogonal`` is ``"yes"`` when that interval lies wholly below ``margin`` (default
    :func:`near_orthogonal_margin` of the dimension), ``"no"`` when it lies wholly above, else ``"undecided"``.

    Returns ``{"angle_mean", "angle_offset"}`` as :class:`~posenc.stats.Estimate`, ``cos_mean`` (a number),
    ``margin_deg``, ``nearly_orthogonal``, ``n_words``, ``n_positions``, ``dim``, and the tutorial's statistics of these
    pairs (:func:`pair_stats`) as ``stats``.
    """
    w_all, p = _as_array(words), _as_array(positions)
    w = w_all if rows is None else w_all[np.asarray(rows)]
    n, d = w.shape
    if n < 2 or p.shape[0] < 2:
        raise PosencError(f"orthogonality needs at least 2 word rows and 2 position rows, got {n} and {p.shape[0]}")
    margin = near_orthogonal_margin(d) if margin is None else float(margin)
    cos = cosine_matrix(w, p)  # [N, P]
    angles64 = _angles(cos)
    angles = angles64.astype(np.float32)

    def statistic(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if len(a) == 1:  # the point estimate, in float64; the resamples in float32 (the costly part)
            mean = ((a @ angles64) * b).sum(1)
        else:
            mean = ((a.astype(np.float32) @ angles) * b).sum(1, dtype=np.float64)  # [r]: a^T angles b
        return np.stack([mean, np.abs(mean - 90.0)], axis=1)  # [r, 2]

    angle_mean, offset = bootstrap_weights((n, p.shape[0]), statistic, seed=seed, bounds=[(0.0, 180.0), (0.0, 90.0)])
    return {"angle_mean": angle_mean, "angle_offset": offset, "cos_mean": float(cos.mean()),
            "margin_deg": margin, "nearly_orthogonal": _judge(offset, margin), "n_words": int(n),
            "n_positions": int(p.shape[0]), "dim": int(d), "stats": pair_stats(cos, angles64)}


def initial_table_orthogonality(n_words: int, n_positions: int, dim: int, std: float = BERT_INIT_STD,
                                seed: int = 0, margin: float | None = None) -> dict[str, Any]:
    """:func:`orthogonality` of tables drawn as BERT initialises them (every entry N(0, std^2)), before any
    training. Only the rows compared are drawn: the rows of a larger table are independent draws of the same law."""
    rng = np.random.default_rng(seed)
    words = rng.normal(0.0, std, size=(n_words, dim))
    positions = rng.normal(0.0, std, size=(n_positions, dim))
    return orthogonality(words, positions, margin=margin, seed=seed)


def _as_array(x: torch.Tensor | np.ndarray) -> np.ndarray:
    return np.asarray(x.detach().double().numpy() if isinstance(x, torch.Tensor) else x, dtype=np.float64)


def geometry(words: torch.Tensor | np.ndarray, positions: torch.Tensor | np.ndarray,
             word_rows: tuple[int, int] = WORD_ROWS, seed: int = 0, judged_rows: np.ndarray | None = None,
             judged_label: str = "trained rows (placeholders left out)") -> dict[str, Any]:
    """Everything above for word rows ``word_rows`` (the tutorial's 100..1099) against all position rows, and
    ``orthogonality``: :func:`orthogonality` on ``judged_rows`` (e.g. :func:`trained_rows`; default the tutorial's
    rows), the judgement :func:`verdict` reports."""
    with threadpool_limits(limits=1, user_api="blas"):  # small matrices: more BLAS threads only contend
        out = _geometry(words, positions, word_rows, seed)
    lo, hi = word_rows
    rows, label = ((np.arange(lo, hi), f"tutorial-sample rows {lo}..{hi - 1}") if judged_rows is None else
                   (np.asarray(judged_rows), judged_label))
    judged = orthogonality(words, positions, rows, seed=seed)
    out["orthogonality"] = {**judged, "angle_mean": judged["angle_mean"].as_dict(),
                            "angle_offset": judged["angle_offset"].as_dict(), "rows_label": label}
    return out


def _geometry(words: torch.Tensor | np.ndarray, positions: torch.Tensor | np.ndarray, word_rows: tuple[int, int],
              seed: int) -> dict[str, Any]:
    w_all, p = _as_array(words), _as_array(positions)
    lo, hi = word_rows
    if w_all.shape[0] < hi or lo < 0 or hi - lo < 11:
        raise PosencError(f"word rows {lo}..{hi - 1} need a vocabulary of at least {hi} rows and at least 11 rows, "
                          f"the model has {w_all.shape[0]}; pass word_rows inside the vocabulary")
    if p.shape[0] < 6:
        raise PosencError(f"the position table has {p.shape[0]} rows; the tutorial's examples need at least 6")
    w = w_all[lo:hi]
    n, d = w.shape
    rng = np.random.default_rng(seed)
    cos = cosine_matrix(w, p)
    other = np.delete(w_all, np.arange(lo, hi), axis=0)
    other = other[rng.choice(other.shape[0], size=min(p.shape[0], other.shape[0]), replace=False)]
    centred = cosine_matrix(w - w.mean(axis=0), p - p.mean(axis=0))
    return {
        "dim": d, "word_rows": [lo, hi - 1], "n_positions": int(p.shape[0]),
        "raw": pair_stats(cos),
        "examples": tutorial_examples(cos),
        "baseline": {
            "gaussian": pair_stats(cosine_matrix(rng.standard_normal((n, d)), rng.standard_normal((p.shape[0], d)))),
            "gaussian_expected": {"cos_mean": 0.0, "cos_std": 1.0 / math.sqrt(d), "angle_mean": 90.0},
            "shuffled_positions": pair_stats(cosine_matrix(w, _shuffle_coordinates(p, rng))),
            "other_words": pair_stats(cosine_matrix(w, other)),
        },
        "centred": {**pair_stats(centred), "examples": tutorial_examples(centred)},
        "mean_vectors": {"cos_word_mean_position_mean": float(cosine_matrix(w.mean(0)[None], p.mean(0)[None])[0, 0]),
                         "word_mean_norm_share": float(np.linalg.norm(w.mean(0)) / np.linalg.norm(w, axis=1).mean()),
                         "position_mean_norm_share": float(np.linalg.norm(p.mean(0))
                                                           / np.linalg.norm(p, axis=1).mean())},
        "subspace": subspace_comparison(w_all, p, seed=seed),
        "norms": {"word_mean": float(np.linalg.norm(w, axis=1).mean()),
                  "word_std": float(np.linalg.norm(w, axis=1).std()),
                  "word_vocab_mean": float(np.linalg.norm(w_all, axis=1).mean()),
                  "position_mean": float(np.linalg.norm(p, axis=1).mean()),
                  "position_std": float(np.linalg.norm(p, axis=1).std())},
    }


def verdict(geo: dict[str, Any]) -> str:
    """What the numbers support, in words (the tutorial's claim: word and position vectors are "almost orthogonal").

    The orthogonality judgement is ``geo["orthogonality"]`` (from :func:`orthogonality`, the one the report uses);
    the rest describes the tutorial's sample beside chance, the centred statistics, the subspaces and the norms.
    """
    raw, gauss, cen = geo["raw"], geo["baseline"]["gaussian"], geo["centred"]
    d = geo["dim"]
    lines = [f"The tutorial's sample (word rows {geo['word_rows'][0]}..{geo['word_rows'][1]}): mean angle "
             f"{raw['angle_mean']:.2f} deg (cosine {raw['cos_mean']:+.4f} +/- {raw['cos_std']:.4f}); Gaussian "
             f"vectors of d={d}: {gauss['angle_mean']:.2f} deg (cosine {gauss['cos_mean']:+.4f} +/- "
             f"{gauss['cos_std']:.4f})."]
    judged = geo.get("orthogonality")
    if judged:
        mean, offset = (Estimate.from_dict(judged[k]) for k in ("angle_mean", "angle_offset"))
        answer = {"yes": "nearly orthogonal", "no": "not nearly orthogonal",
                  "undecided": "undecided (the interval straddles the margin)"}[judged["nearly_orthogonal"]]
        lines.append(f"Judged on {judged['n_words']} {judged['rows_label']} x {judged['n_positions']} positions: "
                     f"mean angle {mean.text(4)} deg, |mean - 90| = {offset.text(3)} deg (95% intervals, two-way "
                     f"bootstrap over words and positions) against the margin {judged['margin_deg']:.2f} deg "
                     f"(asin(1/sqrt(d)), how far one random pair typically misses 90): {answer}. Random vectors "
                     f"are as orthogonal, so this says nothing about learned separation.")
    m = geo["mean_vectors"]
    lines.append(f"Centred (each set's mean removed): mean angle {cen['angle_mean']:.2f} deg, cosine "
                 f"{cen['cos_mean']:+.4f} +/- {cen['cos_std']:.4f}; the two mean vectors have cosine "
                 f"{m['cos_word_mean_position_mean']:+.3f}, so "
                 + ("most of the raw offset comes from a direction both sets share."
                    if abs(cen["cos_mean"]) < 0.5 * abs(raw["cos_mean"]) else
                    "the offset survives centring.")
                 + f" Centred cosines spread {cen['cos_std'] / gauss['cos_std']:.2f} times as wide as chance.")
    subs = [s for s in geo["subspace"]["k"] if s["k"] in (5, 10, 20)]
    if subs:
        parts = [f"k={s['k']}: overlap {s['overlap']:.3f} vs random {s['random_overlap_mean']:.3f} +/- "
                 f"{s['random_overlap_std']:.3f}" for s in subs]
        ratio = np.mean([s["overlap"] / max(s["random_overlap_mean"], 1e-12) for s in subs])
        if ratio > 2:
            tail = "the main directions of the two sets overlap more than random subspaces do"
        elif ratio < 0.5:
            tail = "the main directions of the two sets overlap less than random subspaces do"
        else:
            tail = "the main directions of the two sets overlap about as much as random subspaces"
        lines.append("Subspaces (mean cos^2 of principal angles between top-k PCA subspaces, whole vocabulary): "
                     + "; ".join(parts) + f" -- {tail}.")
    n = geo["norms"]
    lines.append(f"Norms: word rows {geo['word_rows'][0]}..{geo['word_rows'][1]} {n['word_mean']:.2f} (whole "
                 f"vocabulary {n['word_vocab_mean']:.2f}), position {n['position_mean']:.2f}.")
    return " ".join(lines)


def format_tutorial_layout(geo: dict[str, Any], key: str = "raw") -> str:
    """The statistics printed in tutorial 001's layout, each beside its Gaussian baseline and centred value."""
    raw, gauss, cen = geo[key], geo["baseline"]["gaussian"], geo["centred"]
    ex = geo["examples"]
    word_key = next(k for k in ex if k.endswith("_all_positions"))
    pos_key = next(k for k in ex if k.endswith("_all_words"))
    pair_key = next(k for k in ex if k.startswith("word") and k.count("_") == 1 and k not in ("word0_pos0",
                                                                                                "word0_pos1"))
    lines = ["========== cosine statistics ==========   (Gaussian chance | centred)",
             f"  mean:       {raw['cos_mean']:.6f}   ({gauss['cos_mean']:+.6f} | {cen['cos_mean']:+.6f})",
             f"  std:        {raw['cos_std']:.6f}   ({gauss['cos_std']:.6f} | {cen['cos_std']:.6f})",
             f"  mean |cos|: {raw['cos_abs_mean']:.6f}   ({gauss['cos_abs_mean']:.6f} | {cen['cos_abs_mean']:.6f})",
             "", "========== angle statistics ==========",
             f"  mean angle: {raw['angle_mean']:.2f} deg   ({gauss['angle_mean']:.2f} | {cen['angle_mean']:.2f})",
             f"  angle std:  {raw['angle_std']:.2f} deg   ({gauss['angle_std']:.2f} | {cen['angle_std']:.2f})",
             f"  range:      [{raw['angle_min']:.2f}, {raw['angle_max']:.2f}] deg   "
             f"([{gauss['angle_min']:.2f}, {gauss['angle_max']:.2f}] | [{cen['angle_min']:.2f}, {cen['angle_max']:.2f}])",
             "", "========== examples =========="]
    for name, label in (("word0_pos0", "first word, first position"), ("word0_pos1", "first word, second position"),
                        (pair_key, pair_key.replace("_", " / "))):
        lines.append(f"  {label}: cos {ex[name]['cos']:.6f}, angle {ex[name]['angle']:.2f} deg")
    for name in (word_key, pos_key):
        e = ex[name]
        lines.append(f"  {name.replace('_', ' ')}: cos {e['cos_min']:.6f} ~ {e['cos_max']:.6f}, "
                     f"angle {e['angle_min']:.2f} ~ {e['angle_max']:.2f} deg")
    return "\n".join(lines)
