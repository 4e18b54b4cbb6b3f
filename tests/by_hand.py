"""Reference computations written out again for the tests, shared by the test files of the library and of the report
that check the same quantity from both sides: the sinusoid from its formula and the nearest pair of a table's rows
(the distinctness properties and the claims that read them), and attention patterns with a known positional head
(the head probes and the report's head statistics), and lab run results whose in-distribution accuracy is set by hand
(the lab's comparisons and the report's task claims)."""

import types
from collections.abc import Sequence

import numpy as np
import torch


def numpy_sinusoid(length: int, dim: int) -> np.ndarray:
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...) (Vaswani et al. 2017 §3.5), written out again."""
    p = np.arange(length, dtype=np.float64)[:, None]
    angle = p / 10000.0 ** (np.arange(0, dim, 2, dtype=np.float64) / dim)  # [T, d/2]
    table = np.empty((length, dim))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def nearest_pair(table: np.ndarray) -> float:
    """The smallest distance between two rows of ``table [N, d]``."""
    gram = table @ table.T
    sq = np.diag(gram)[:, None] + np.diag(gram)[None, :] - 2 * gram
    np.fill_diagonal(sq, np.inf)
    return float(np.sqrt(max(sq.min(), 0.0)))


def offset_head(offset: int, length: int) -> torch.Tensor:
    """``[T, T]`` attention: every query's weight on key i + offset (itself where that key does not exist), a little
    elsewhere."""
    a = torch.full((length, length), 0.01)
    for i in range(length):
        j = i + offset
        a[i, j if 0 <= j < length else i] = 1.0
    return a / a.sum(-1, keepdim=True)


def mixed_head(rng: np.random.Generator, offset: int, share: float, length: int) -> torch.Tensor:
    """``[T, T]`` attention with its maximum on i + offset for about ``share`` of the queries, on a random key
    otherwise."""
    a = torch.full((length, length), 0.01)
    for i in range(length):
        j = i + offset
        if 0 <= j < length and rng.random() < share:
            a[i, j] = 1.0
        else:
            a[i, int(rng.integers(0, length))] = 1.0
    return a / a.sum(-1, keepdim=True)


def gate_results(inside: dict[tuple[str, str], float], encodings: Sequence[str], seeds: int = 3) -> list:
    """Results of task copy and reverse (L = 4, sizes 2, 4, 8): the same token accuracy ``inside[(task, enc)]`` at
    sizes 2 and 4 for every seed (so the mean over sizes is that number exactly, and the gate sees it alone), and an
    accuracy past L that differs by encoding (its place in ``encodings``) and seed (no ties in a ranking); exact match
    equals token accuracy."""
    out = []
    for (task, encoding), accuracy in inside.items():
        for s in range(seeds):
            past = 0.1 + 0.1 * list(encodings).index(encoding) + 0.01 * s
            by_length = {"2": accuracy, "4": accuracy, "8": past}
            out.append(types.SimpleNamespace(seed=s, config={"task": task, "label": encoding, "train_len": 4},
                                             metrics={"by_length": {n: {"token_accuracy": v, "exact_match": v}
                                                                    for n, v in by_length.items()}}))
    return out
