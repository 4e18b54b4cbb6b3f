"""Positional attention heads: the Voita rule, previous/next-token attention, attention mass against distance.

- Voita et al. 2019 ("Analyzing Multi-Head Self-Attention: Specialized Heads Do the Heavy Lifting", §4.1): a head is
  *positional* if in at least 90% of queries its maximum attention weight sits on one fixed relative offset
  ``o = j - i`` (in practice -1 or +1). The fraction for offset ``o`` counts only the queries ``i`` for which
  ``i + o`` is inside the sequence.
- Clark et al. 2019 ("What Does BERT Look At?", §3): the mean attention a head puts on the previous token
  ``mean_i A[i, i-1]`` and on the next ``mean_i A[i, i+1]``; on BERT-base 4 heads put more than 50% on the previous
  token and 5 on the next.
- Attention mass against distance: ``m(b) = (1/T) sum_i sum_{j : |i-j| in bin b} A[i, j]`` over distance bins
  (``sum_b m(b) = 1``), and the mean attention distance ``(1/T) sum_ij A[i, j] |i - j|``.

Attention arrives one layer at a time (``[B, H, T, T]``, see :mod:`posenc.probe.capture`) and is folded into running
sums, so any number of windows costs the memory of one layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from posenc.errors import PosencError

__all__ = ["HeadAccumulator", "distance_bins", "VOITA_THRESHOLD", "voita_fractions", "prev_next"]

VOITA_THRESHOLD = 0.9
#: offsets -MAX_OFFSET..MAX_OFFSET are candidates for the Voita rule
MAX_OFFSET = 8


def distance_bins(max_distance: int) -> list[int]:
    """Bin edges ``[0, 1, 2, 3, 4, 6, 8, 12, 16, ...]`` (exact up to 4, then half-octaves) past ``max_distance``."""
    edges = [0, 1, 2, 3, 4]
    while edges[-1] <= max_distance:
        last = edges[-1]
        edges.append(last * 3 // 2 if last & (last - 1) == 0 else last * 4 // 3)  # 4, 6, 8, 12, 16, 24, ...
    return edges


def voita_fractions(attention: torch.Tensor, max_offset: int = MAX_OFFSET) -> tuple[torch.Tensor, torch.Tensor]:
    """``(hits [H, 2K+1], valid [2K+1])`` for offsets ``-K..K`` of one sequence's attention ``[H, T, T]``.

    ``hits[h, o]``: queries whose largest weight sits at offset ``o``; ``valid[o]``: queries with ``i + o`` inside.
    """
    heads, t, _ = attention.shape
    offsets = torch.arange(-max_offset, max_offset + 1)
    argmax = attention.argmax(-1) - torch.arange(t)  # [H, T] offset of each query's maximum
    hits = (argmax[..., None] == offsets).sum(1)  # [H, 2K+1]
    starts = (-offsets).clamp(min=0)
    valid = (torch.minimum(torch.full_like(offsets, t), t - offsets) - starts).clamp(min=0)  # [2K+1]
    return hits, valid


def prev_next(attention: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Sums (not means) over queries of ``A[i, i-1]`` and ``A[i, i+1]`` for ``[H, T, T]`` -> ``([H], [H])``."""
    prev = torch.diagonal(attention, offset=-1, dim1=-2, dim2=-1).sum(-1)
    nxt = torch.diagonal(attention, offset=1, dim1=-2, dim2=-1).sum(-1)
    return prev, nxt


@dataclass
class HeadAccumulator:
    """Running head statistics over layers and windows; feed it with :meth:`add`, read it with :meth:`summary`.

    Args:
        n_layers, n_heads: the model's shape.
        max_len: the longest window that will be fed (fixes the distance bins).
        max_offset: candidate offsets ``-K..K`` of the Voita rule.
    """

    n_layers: int
    n_heads: int
    max_len: int
    max_offset: int = MAX_OFFSET
    edges: list[int] = field(init=False)
    _hits: np.ndarray = field(init=False, repr=False)
    _valid: np.ndarray = field(init=False, repr=False)
    _prev: np.ndarray = field(init=False, repr=False)
    _next: np.ndarray = field(init=False, repr=False)
    _mass: np.ndarray = field(init=False, repr=False)
    _distance: np.ndarray = field(init=False, repr=False)
    _queries: np.ndarray = field(init=False, repr=False)
    _neighbours: np.ndarray = field(init=False, repr=False)
    _onehot: dict[int, tuple[torch.Tensor, torch.Tensor]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.edges = distance_bins(self.max_len - 1)
        n_off = 2 * self.max_offset + 1
        shape = (self.n_layers, self.n_heads)
        self._hits = np.zeros((*shape, n_off))
        self._valid = np.zeros((self.n_layers, n_off))
        self._prev, self._next, self._distance = np.zeros(shape), np.zeros(shape), np.zeros(shape)
        self._mass = np.zeros((*shape, len(self.edges) - 1))
        self._queries = np.zeros(self.n_layers)  # queries seen (T per window)
        self._neighbours = np.zeros(self.n_layers)  # queries with a previous (or next) token (T - 1 per window)
        self._onehot = {}

    def _bins(self, t: int) -> tuple[torch.Tensor, torch.Tensor]:
        if t not in self._onehot:
            dist = (torch.arange(t)[:, None] - torch.arange(t)[None, :]).abs()  # [T, T]
            index = torch.bucketize(dist, torch.tensor(self.edges[1:]), right=True)  # [T, T] bin of |i - j|
            onehot = torch.nn.functional.one_hot(index.flatten(), len(self.edges) - 1).float()  # [T*T, nb]
            self._onehot = {t: (onehot, dist.flatten().float())}  # keep one length only
        return self._onehot[t]

    def add(self, layer: int, attention: torch.Tensor) -> None:
        """Fold in one layer's weights ``[B, H, T, T]`` (or ``[H, T, T]``)."""
        weights = attention.float()
        if weights.dim() == 3:
            weights = weights[None]
        batch, heads, t, _ = weights.shape
        if t > self.max_len:
            raise PosencError(f"window of {t} tokens is longer than max_len={self.max_len}; build the accumulator "
                              f"with max_len >= {t}")
        onehot, dist = self._bins(t)
        for b in range(batch):
            a = weights[b]  # [H, T, T]
            hits, valid = voita_fractions(a, self.max_offset)
            self._hits[layer] += hits.numpy()
            self._valid[layer] += valid.numpy()
            prev, nxt = prev_next(a)
            self._prev[layer] += prev.numpy()
            self._next[layer] += nxt.numpy()
            flat = a.reshape(heads, t * t)  # [H, T*T]
            self._mass[layer] += (flat @ onehot).numpy()
            self._distance[layer] += (flat @ dist).numpy()
            self._queries[layer] += t
            self._neighbours[layer] += t - 1

    def summary(self) -> dict[str, Any]:
        """Per layer and head: Voita offset, fraction and verdict; previous/next attention; mass by distance bin."""
        fractions = self._hits / np.maximum(self._valid[:, None, :], 1)  # [L, H, 2K+1]
        best = fractions.argmax(-1)  # [L, H]
        best_frac = np.take_along_axis(fractions, best[..., None], -1)[..., 0]
        offsets = best - self.max_offset
        queries = np.maximum(self._queries[:, None], 1)
        neighbours = np.maximum(self._neighbours[:, None], 1)
        prev, nxt = self._prev / neighbours, self._next / neighbours
        mass = self._mass / queries[..., None]
        positional = best_frac >= VOITA_THRESHOLD
        return {
            "voita_threshold": VOITA_THRESHOLD,
            "voita_offset": offsets.tolist(), "voita_fraction": best_frac.tolist(),
            "positional": positional.tolist(),
            "positional_heads": [[int(l), int(h), int(offsets[l, h]), float(best_frac[l, h])]
                                 for l, h in zip(*np.nonzero(positional), strict=True)],
            "previous": prev.tolist(), "next": nxt.tolist(),
            "previous_heads_over_half": [[int(l), int(h)] for l, h in zip(*np.nonzero(prev > 0.5), strict=True)],
            "next_heads_over_half": [[int(l), int(h)] for l, h in zip(*np.nonzero(nxt > 0.5), strict=True)],
            "distance_bin_edges": self.edges, "mass_by_distance": mass.tolist(),
            "mean_distance": (self._distance / queries).tolist(),
        }
