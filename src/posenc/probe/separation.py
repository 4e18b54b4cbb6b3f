"""What the sum of a word row and a position row keeps: the word's direction (is the word still the nearest one?),
and both parts, recovered by a linear map or by a decoder that searches the two tables.

For ``x = E[w] + P[p]`` (a word table ``E [V, d]``, a position table ``P [N, d]``):

- :func:`nearest_by_cosine`: the candidate row nearest to each vector in direction;
- :func:`angles_deg`: the angle between two sets of vectors, row by row;
- :func:`fit_linear`, :func:`apply_linear`: a least-squares affine map from the sums to one part (what a later
  linear layer can learn), fitted on some pairs and applied to others;
- :func:`nearest_by_distance`: the candidate row nearest in Euclidean distance (``argmax x . r - |r|^2 / 2``);
- :func:`alternating_decode`: both parts from the sum by turns: the position given the mean word, the word given
  that position, the position given that word, and so on (each step the least-squares choice of one part with the
  other fixed).
"""

from __future__ import annotations

import numpy as np

from posenc.errors import PosencError

__all__ = ["nearest_by_cosine", "nearest_by_distance", "angles_deg", "fit_linear", "apply_linear",
           "alternating_decode"]

_CHUNK = 512


def nearest_by_cosine(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index into ``rows [C, d]`` of the row with the highest cosine to each of ``x [n, d]`` -> ``[n]``."""
    r = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-30)
    v = x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-30)
    return np.concatenate([(v[i:i + _CHUNK] @ r.T).argmax(axis=1) for i in range(0, len(v), _CHUNK)])


def nearest_by_distance(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Index into ``rows [C, d]`` of the row nearest in Euclidean distance to each of ``x [n, d]`` -> ``[n]``
    (``argmax x . r - |r|^2 / 2``, the products in float32: a search over tens of thousands of rows)."""
    r = np.asarray(rows, dtype=np.float32)
    v = np.asarray(x, dtype=np.float32)
    half = 0.5 * (r * r).sum(axis=1)  # [C]
    return np.concatenate([(v[i:i + _CHUNK] @ r.T - half).argmax(axis=1) for i in range(0, len(v), _CHUNK)])


def angles_deg(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The angle in degrees between ``a[i]`` and ``b[i]`` (``[n, d]`` each) -> ``[n]``."""
    cos = np.einsum("ij,ij->i", a, b) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-30)
    return np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))


def fit_linear(x: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Least-squares ``W [d + 1, k]`` with ``[x, 1] @ W ~ target`` (``x [n, d]``, ``target [n, k]``, n > d), by the
    normal equations (float64; the sums of two tables are far from collinear)."""
    if x.shape[0] <= x.shape[1]:
        raise PosencError(f"fit_linear needs more pairs than dimensions, got {x.shape[0]} pairs of {x.shape[1]}")
    design = np.hstack([x, np.ones((len(x), 1))])
    return np.linalg.solve(design.T @ design, design.T @ target)


def apply_linear(x: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.hstack([x, np.ones((len(x), 1))]) @ weights


def alternating_decode(x: np.ndarray, words: np.ndarray, positions: np.ndarray,
                       rounds: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """``(word index [n], position index [n])`` decoded from sums ``x [n, d]`` of a row of ``words [V, d]`` and a
    row of ``positions [N, d]``: start from the position nearest to ``x - mean(words)``, then ``rounds`` times the
    nearest word to ``x - P[p]`` and the nearest position to ``x - E[w]``."""
    if rounds < 1:
        raise PosencError(f"alternating_decode needs at least one round, got {rounds}")
    p = nearest_by_distance(x - words.mean(axis=0), positions)
    w = np.zeros(len(x), dtype=np.int64)
    for _ in range(rounds):
        w = nearest_by_distance(x - positions[p], words)
        p = nearest_by_distance(x - words[w], positions)
    return w, p
