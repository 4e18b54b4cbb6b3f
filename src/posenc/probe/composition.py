"""Meaning in a word table by vector arithmetic: analogies by adding and subtracting rows (3CosAdd, Mikolov et al.
2013, "Linguistic Regularities in Continuous Space Word Representations"), and how close two words are against
random pairs of the same table.

Rows are compared by cosine. An analogy ``sum(positive) - sum(negative)`` ranks every candidate word by its cosine
with that vector, the query words left out (as Mikolov et al. do); rank 1 is the nearest. The control that the
composition does more than one of its words (Linzen 2016, "Issues in evaluating semantic spaces using word
analogies"): the target's rank from each positive word alone.

Shapes: a table ``[V, d]``; row indices are token ids.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from posenc.errors import PosencError

__all__ = ["unit_rows", "analogy_rank", "nearest_words", "single_word_ranks", "random_analogy_ranks", "random_pair_cosines",
           "pair_cosine"]


def unit_rows(table: np.ndarray) -> np.ndarray:
    """The rows of ``table [V, d]`` scaled to unit length (float64); a zero row stays zero."""
    x = np.asarray(table, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def _rank(unit: np.ndarray, query: np.ndarray, target: int, candidates: np.ndarray, exclude: Sequence[int]) -> int:
    """1 + how many candidates (``exclude`` left out) have a higher cosine with ``query`` than ``target``."""
    skip = np.asarray(list(exclude), dtype=np.int64)
    if target in skip or not np.any(candidates == target):
        raise PosencError(f"the target row {target} is not among the candidates (or is a query word)")
    norm = np.linalg.norm(query)
    if norm == 0:
        raise PosencError("the analogy's vector is zero; its words cancel")
    sims = unit @ (query / norm)  # [V]
    higher = sims[candidates] > sims[target]  # [C]
    return int(1 + higher.sum() - np.isin(candidates[higher], skip).sum())


def nearest_words(unit: np.ndarray, positive: Sequence[int], negative: Sequence[int], candidates: np.ndarray,
                  count: int = 5) -> list[int]:
    """The ``count`` candidates nearest to the analogy's vector, the query words left out (what outranks a target)."""
    positive, negative = [int(w) for w in positive], [int(w) for w in negative]
    query = unit[positive].sum(axis=0) - (unit[negative].sum(axis=0) if negative else 0.0)
    pool = candidates[~np.isin(candidates, [*positive, *negative])]
    sims = unit[pool] @ query
    return [int(i) for i in pool[np.argsort(-sims)[:count]]]


def analogy_rank(unit: np.ndarray, positive: Sequence[int], negative: Sequence[int], target: int,
                 candidates: np.ndarray) -> int:
    """Rank (1 = nearest) of ``target`` among ``candidates`` by cosine with ``sum(unit[positive]) -
    sum(unit[negative])``, the query words excluded (3CosAdd)."""
    positive, negative = [int(w) for w in positive], [int(w) for w in negative]
    query = unit[positive].sum(axis=0) - (unit[negative].sum(axis=0) if negative else 0.0)
    return _rank(unit, query, target, candidates, [*positive, *negative])


def single_word_ranks(unit: np.ndarray, positive: Sequence[int], negative: Sequence[int], target: int,
                      candidates: np.ndarray) -> list[int]:
    """The target's rank from each positive word alone (the same candidates and exclusions as the analogy): what
    the composition must beat to do more than one of its words does."""
    return [_rank(unit, unit[w], target, candidates, [*positive, *negative]) for w in positive]


def random_analogy_ranks(unit: np.ndarray, candidates: np.ndarray, n_positive: int, n_negative: int, count: int,
                         seed: int = 0) -> np.ndarray:
    """Chance: ``count`` analogies of random candidate words (``n_positive`` added, ``n_negative`` subtracted)
    and a random target among the rest, each target's rank as :func:`analogy_rank` gives it -> ``[count]``."""
    rng = np.random.default_rng(seed)
    ranks = np.empty(count, dtype=np.int64)
    for i in range(count):
        words = rng.choice(candidates, size=n_positive + n_negative + 1, replace=False)
        ranks[i] = analogy_rank(unit, words[:n_positive], words[n_positive:-1], int(words[-1]), candidates)
    return ranks


def random_pair_cosines(unit: np.ndarray, candidates: np.ndarray, count: int, seed: int = 0) -> np.ndarray:
    """Cosines of ``count`` random pairs of two different candidate words -> ``[count]``."""
    if len(candidates) < 2:
        raise PosencError("random_pair_cosines needs at least two candidate words")
    rng = np.random.default_rng(seed)
    a = rng.choice(candidates, size=count)
    b = rng.choice(candidates, size=count)
    same = a == b
    while same.any():  # redraw the pairs of one word with itself
        b[same] = rng.choice(candidates, size=int(same.sum()))
        same = a == b
    return np.einsum("ij,ij->i", unit[a], unit[b])


def pair_cosine(unit: np.ndarray, a: int, b: int) -> float:
    return float(unit[a] @ unit[b])
