"""How far apart positions stay, and how many channels that takes (tutorial 001 §3.2; tutorial 002).

:mod:`posenc.properties.uniqueness` checks any encoding's table; this module answers the questions about the sinusoid
and the binary code that go beyond one table:

- :func:`sinusoid_offset_distances`: the sinusoid's distance between two positions ``r`` apart, from the formula
  (float64), which is the same for every pair at that offset, so the nearest pair among the first ``n`` positions
  (:func:`nearest_by_length`) is read off one curve for ``n`` up to 100,000 and beyond;
- :func:`sinusoid_dims_needed`, :func:`binary_dims_needed`: the fewest channels that keep ``n`` positions apart (at a
  minimum distance, or as distinct float32 rows) for the sinusoid and for the binary code;
- :func:`decode_binary`: a binary code read back as the integers it writes (so two positions share a code only if
  they decode to the same integer).

Shapes: a table is ``[T, d]`` (positions x channels); ``w_i = base^(-2i/d)`` is pair ``i``'s frequency.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import torch

from posenc.errors import PosencError
from posenc.registry import build

__all__ = ["sinusoid_offset_distances", "nearest_by_length", "sinusoid_dims_needed", "binary_dims_needed",
           "decode_binary"]


def sinusoid_offset_distances(dim: int, max_offset: int, base: float = 10000.0, chunk: int = 20_000) -> np.ndarray:
    """``g[r - 1] = ||PE[p + r] - PE[p]||`` of the sinusoid for ``r = 1..max_offset``, the same for every ``p``:

        ||PE[p + r] - PE[p]||^2 = sum_i (sin((p+r) w_i) - sin(p w_i))^2 + (cos(..) - cos(..))^2 = sum_i 2 - 2 cos(r w_i)

    so the nearest pair among the first ``n`` positions is ``min(g[:n - 1])``. Float64, from the formula (``base``:
    10000, Vaswani et al. 2017 §3.5).
    """
    w = base ** (-np.arange(0, dim, 2, dtype=np.float64) / dim)  # [d/2]
    out = np.empty(max_offset, dtype=np.float64)
    for start in range(0, max_offset, chunk):
        r = np.arange(start + 1, min(max_offset, start + chunk) + 1, dtype=np.float64)  # [c]
        out[start:start + len(r)] = np.sqrt(np.maximum((2.0 - 2.0 * np.cos(np.outer(r, w))).sum(axis=1), 0.0))
    return out


def nearest_by_length(g: np.ndarray, lengths: Sequence[int]) -> dict[int, float]:
    """``{n: smallest distance between two of the first n positions}`` from :func:`sinusoid_offset_distances`."""
    running = np.minimum.accumulate(g)  # running[r - 1] = min over offsets 1..r
    return {int(n): float(running[n - 2]) for n in lengths}


def sinusoid_dims_needed(positions: int, min_distance: float, largest: int = 128) -> int:
    """The smallest even width ``d`` at which the first ``positions`` sinusoid positions are pairwise at least
    ``min_distance`` apart (:func:`sinusoid_offset_distances`); ``min_distance = 0`` asks for distinct float32 rows of
    posenc's table instead."""
    for dim in range(2, largest + 1, 2):
        if min_distance <= 0:
            table = build("sinusoidal", dim=dim).table(positions, dim)  # float32 [n, d]
            if torch.unique(table, dim=0).shape[0] == positions:
                return dim
        elif sinusoid_offset_distances(dim, positions - 1).min() >= min_distance:
            return dim
    raise PosencError(f"no width up to {largest} keeps {positions} positions {min_distance} apart")


def binary_dims_needed(positions: int) -> tuple[int, float]:
    """``(d, nearest distance)``: the fewest bits whose binary table gives ``positions`` distinct rows (posenc's
    ``binary`` encoding, checked on its float64 table), and the nearest distance between two of those rows."""
    dim = max(1, math.ceil(math.log2(positions)))
    table = build("binary", dim=dim).table(positions, dim, dtype=torch.float64)  # [n, d]
    if torch.unique(table, dim=0).shape[0] != positions:
        raise PosencError(f"the binary table with {dim} bits does not give {positions} distinct rows")
    nearest = torch.cdist(table, table) + torch.eye(positions, dtype=table.dtype) * 1e9
    return dim, float(nearest.min())


def decode_binary(codes: torch.Tensor) -> torch.Tensor:
    """The integers whose bits (channel ``j`` = bit ``j``, lowest first) are the rows of ``codes [N, d]``, in int64
    (channels past 62 must be 0: an int64 position has no bit 63 set)."""
    bits = codes.round().long()  # [N, d]
    if bool((bits[:, 63:] != 0).any()):
        raise PosencError("decode_binary reads int64 positions: channels 63 and above must be 0")
    width = min(codes.shape[1], 63)
    return (bits[:, :width] << torch.arange(width)).sum(dim=1)  # [N]
