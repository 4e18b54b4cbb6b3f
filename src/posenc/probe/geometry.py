"""Geometry of learned word and position embeddings, with the chance baselines that make it mean something.

Seed 001 §4.1 takes BERT's word rows 100..1099 (``W [1000, d]``) and all position rows (``P [512, d]``), computes
every cosine ``cos[i, j] = <w_i, p_j> / (|w_i| |p_j|)`` (a ``[1000, 512]`` matrix) and the angles
``arccos(cos) * 180 / pi``, and calls a mean angle near 90 degrees "almost orthogonal". But two independent random
vectors in ``d`` dimensions already have cosine mean 0 and standard deviation ``1 / sqrt(d)`` (0.0361 at d=768,
0.0510 at d=384), so that figure alone cannot show learned orthogonality. Beside the seed's statistics this module
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

Shapes: ``words [N, d]``, ``positions [P, d]``; every statistic is computed in float64.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from threadpoolctl import threadpool_limits

from posenc.errors import PosencError

__all__ = ["embedding_tables", "cosine_matrix", "pair_stats", "seed_examples", "gaussian_baseline",
           "principal_angles", "pca", "subspace_comparison", "geometry", "verdict", "format_seed_layout",
           "WORD_ROWS"]

#: the seed's sample of word rows
WORD_ROWS = (100, 1100)


def embedding_tables(model: Any) -> tuple[torch.Tensor, torch.Tensor]:
    """``(word [V, d], position [P, d])`` tables of a model with learned absolute positions.

    Raises a PosencError naming the probes that do apply when the model has no position table (RoPE, ALiBi, ...).
    """
    words = model.get_input_embeddings().weight
    for name, module in model.named_modules():
        leaf = name.rsplit(".", 1)[-1]
        if leaf in ("position_embeddings", "wpe", "embed_positions") and isinstance(module, torch.nn.Embedding):
            return words.detach(), module.weight.detach()
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


def pair_stats(cos: np.ndarray) -> dict[str, float]:
    """The seed's statistics over every word/position pair: cosine mean, std, mean |cos|; angle mean, std, range."""
    angles = _angles(cos)
    return {"cos_mean": float(cos.mean()), "cos_std": float(cos.std()), "cos_abs_mean": float(np.abs(cos).mean()),
            "angle_mean": float(angles.mean()), "angle_std": float(angles.std()),
            "angle_min": float(angles.min()), "angle_max": float(angles.max())}


def seed_examples(cos: np.ndarray, word: int = 10, position: int = 5) -> dict[str, dict[str, float]]:
    """The seed's examples: word 0 / position 0, word 0 / position 1, word 10 / position 5 (cos and angle), word 10
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


def geometry(words: torch.Tensor | np.ndarray, positions: torch.Tensor | np.ndarray,
             word_rows: tuple[int, int] = WORD_ROWS, seed: int = 0) -> dict[str, Any]:
    """Everything above for word rows ``word_rows`` (the seed's 100..1099) against all position rows."""
    with threadpool_limits(limits=1, user_api="blas"):  # small matrices: more BLAS threads only contend
        return _geometry(words, positions, word_rows, seed)


def _geometry(words: torch.Tensor | np.ndarray, positions: torch.Tensor | np.ndarray, word_rows: tuple[int, int],
              seed: int) -> dict[str, Any]:
    w_all = np.asarray(words.detach().double().numpy() if isinstance(words, torch.Tensor) else words, np.float64)
    p = np.asarray(positions.detach().double().numpy() if isinstance(positions, torch.Tensor) else positions,
                   np.float64)
    lo, hi = word_rows
    if w_all.shape[0] < hi or lo < 0 or hi - lo < 11:
        raise PosencError(f"word rows {lo}..{hi - 1} need a vocabulary of at least {hi} rows and at least 11 rows, "
                          f"the model has {w_all.shape[0]}; pass word_rows inside the vocabulary")
    if p.shape[0] < 6:
        raise PosencError(f"the position table has {p.shape[0]} rows; the seed's examples need at least 6")
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
        "examples": seed_examples(cos),
        "baseline": {
            "gaussian": pair_stats(cosine_matrix(rng.standard_normal((n, d)), rng.standard_normal((p.shape[0], d)))),
            "gaussian_expected": {"cos_mean": 0.0, "cos_std": 1.0 / math.sqrt(d), "angle_mean": 90.0},
            "shuffled_positions": pair_stats(cosine_matrix(w, _shuffle_coordinates(p, rng))),
            "other_words": pair_stats(cosine_matrix(w, other)),
        },
        "centred": {**pair_stats(centred), "examples": seed_examples(centred)},
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
    """What the numbers support, in words (the seed's claim: word and position vectors are "almost orthogonal")."""
    raw, gauss, cen = geo["raw"], geo["baseline"]["gaussian"], geo["centred"]
    d = geo["dim"]
    chance_sd = 1.0 / math.sqrt(d)
    z = raw["cos_mean"] / chance_sd  # in units of the spread of one random pair's cosine
    n_pairs = (geo["word_rows"][1] - geo["word_rows"][0] + 1) * geo["n_positions"]
    lines = [f"Raw: mean angle {raw['angle_mean']:.2f} deg (cosine {raw['cos_mean']:+.4f} +/- {raw['cos_std']:.4f}); "
             f"Gaussian chance at d={d}: {gauss['angle_mean']:.2f} deg (cosine {gauss['cos_mean']:+.4f} +/- "
             f"{gauss['cos_std']:.4f}, expected std 1/sqrt(d) = {chance_sd:.4f})."]
    if abs(z) < 0.5:
        lines.append("The mean cosine is within half a chance standard deviation of 0: as near orthogonal as random "
                     "vectors, which is what any unrelated high-dimensional vectors give, so pairwise cosines are no "
                     "evidence of learned orthogonality.")
    else:
        lines.append(f"The mean cosine is {z:+.1f} times the spread of one random pair (and the mean of {n_pairs} "
                     f"random pairs stays within about {chance_sd / math.sqrt(n_pairs):.5f} of 0): word and position "
                     f"vectors are {'less' if z > 0 else 'more'} orthogonal than random vectors of this dimension, "
                     f"so 'almost orthogonal' is {'not supported by the raw vectors' if z > 0 else 'supported'}.")
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
            tail = "the main directions of the two sets overlap more than random subspaces do: not separated"
        elif ratio < 0.5:
            tail = "the main directions of the two sets overlap less than random subspaces do: learned separation"
        else:
            tail = "the main directions of the two sets overlap about as much as random subspaces: no evidence either way"
        lines.append("Subspaces (mean cos^2 of principal angles between top-k PCA subspaces): " + "; ".join(parts)
                     + f" -- {tail}.")
    n = geo["norms"]
    lines.append(f"Norms: word rows {geo['word_rows'][0]}..{geo['word_rows'][1]} {n['word_mean']:.2f} (whole "
                 f"vocabulary {n['word_vocab_mean']:.2f}), position {n['position_mean']:.2f}.")
    return " ".join(lines)


def format_seed_layout(geo: dict[str, Any], key: str = "raw") -> str:
    """The statistics printed in seed 001's layout, each beside its Gaussian baseline and centred value."""
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
