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
  other fixed);
- :func:`draw_pairs`: uniform draws of (word, other word, position, other position) to compare such sums on;
- :func:`linear_readout_accuracy`: the accuracy of the least-squares linear classifier (with intercept, one-hot
  targets) that reads one part's label from the vectors, fitted and scored on the same vectors (what a linear layer
  can recover at best; tutorial 003 §14.3: does adding lose information that concatenating keeps?).
"""

from __future__ import annotations

import numpy as np
import torch

from posenc.errors import PosencError

__all__ = ["nearest_by_cosine", "nearest_by_distance", "angles_deg", "fit_linear", "apply_linear",
           "alternating_decode", "draw_pairs", "linear_readout_accuracy"]

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


def draw_pairs(count: int, candidates: np.ndarray, n_positions: int, seed: int) -> tuple[np.ndarray, ...]:
    """``count`` independent draws of (word, other word, position, other position), uniform: words from
    ``candidates``, positions from ``0..n_positions - 1``. Where the other word is the word, it is drawn once more
    (each clash its own draw, so the other words stay uniform); where the other position is the position, it moves
    to the next one (cyclically)."""
    rng = np.random.default_rng(seed)
    w, v = rng.choice(candidates, size=count), rng.choice(candidates, size=count)
    p, q = rng.integers(0, n_positions, size=count), rng.integers(0, n_positions, size=count)
    clash_w, clash_p = w == v, p == q
    v[clash_w] = rng.choice(candidates, size=int(clash_w.sum()))  # a rare clash left in would give angle 0
    q[clash_p] = (q[clash_p] + 1) % n_positions
    return w, v, p, q


def linear_readout_accuracy(x: torch.Tensor, labels: torch.Tensor, n_classes: int) -> float:
    """Accuracy of the least-squares linear classifier (with intercept) from ``x [N, D]`` to one-hot labels."""
    design = torch.cat([x, torch.ones(len(x), 1, dtype=x.dtype)], dim=1)  # [N, D + 1]
    onehot = torch.nn.functional.one_hot(labels, n_classes).to(x.dtype)  # [N, C]
    weights = torch.linalg.lstsq(design, onehot, driver="gelsd").solution  # [D + 1, C]
    return float(((design @ weights).argmax(dim=1) == labels).double().mean())
