"""Uniqueness: no two positions share a vector (tutorial 001 §3.2, tutorial 002 "位置编码向量是唯一的").

Two numbers per encoding:

- the smallest distance between two positions, ``min_{p<q<L} ||PE[p] - PE[q]||``, for every length ``L <= N`` (one
  pass: ``m[q] = min_{p<q} ||PE[p] - PE[q]||`` then a running minimum over ``q``). Absolute tables are compared in
  float64 through Gram blocks, ``||a - b||^2 = |a|^2 + |b|^2 - 2 a.b`` on the centred table, and the minimum is
  recomputed directly. Rotary encodings are compared as rotations: ``||R(p) - R(q)||_F^2 / 2 = g^2 sum_i (2 - 2 cos((q -
  p) w_i))`` depends only on ``q - p``, so the minimum runs over offsets (the xPos decay is left out: it scales, it
  does not rotate);
- the first length at which the table stored in float32 (what the hook returns) and in bfloat16 holds two equal rows
  (``None``: no two equal rows up to ``N``).

Holds when the smallest distance is positive (beyond rounding) and the float32 table has no equal rows.
"""

from __future__ import annotations

import numpy as np
import torch

from posenc.properties.result import FAILS, HOLDS, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["uniqueness", "min_distance_by_length", "offset_distances", "first_duplicate_length"]

CLAIM = "every position has its own vector"
SOURCE = "tutorial 001 §3.2; tutorial 002"

_BLOCK = 512


def min_distance_by_length(table: torch.Tensor) -> tuple[torch.Tensor, tuple[int, int]]:
    """``(curve [N], (p, q))``: ``curve[L-1]`` is the smallest distance between two of the first ``L`` rows (``inf``
    at ``L = 1``), ``(p, q)`` the earliest closest pair. ``table [N, D]`` float64.

    Repeated channels are merged first (a channel present c times counts with weight sqrt(c)), so the integer
    table, one value in every channel, costs one channel.
    """
    columns, counts = torch.unique(table, dim=1, return_counts=True)  # repeated channels count once, weighted
    x = columns * counts.to(table.dtype).sqrt()  # [N, D'] with the same pairwise distances as the table
    x = x - x.mean(dim=0)  # centring keeps |a|^2 small, so the Gram form loses little
    sq = (x * x).sum(dim=-1)  # [N]
    n = x.shape[0]
    nearest = torch.full((n,), float("inf"), dtype=x.dtype)  # m[q] = min_{p<q} d^2(p, q)
    partner = torch.zeros(n, dtype=torch.long)
    for start in range(1, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        gram = x[start:stop] @ x[:stop].T  # [b, stop]
        d2 = sq[start:stop, None] + sq[None, :stop] - 2 * gram  # [b, stop]
        rows = torch.arange(start, stop)[:, None]
        d2.masked_fill_(torch.arange(stop)[None, :] >= rows, float("inf"))  # keep p < q
        nearest[start:stop], partner[start:stop] = d2.min(dim=-1)
    smallest = nearest.min()
    q = int(torch.nonzero(nearest <= smallest + 1e-9 * smallest.abs()).flatten()[0])  # the earliest closest pair
    p = int(partner[q])
    curve = torch.cummin(nearest.clamp(min=0), dim=0).values.sqrt()  # [N]
    exact = float((table[q] - table[p]).norm())  # recomputed without the Gram form
    return curve.clamp(min=exact), (p, q)


def offset_distances(inv_freq: torch.Tensor, n: int, gain: float = 1.0) -> torch.Tensor:
    """``D(delta) = g sqrt(sum_i 2 - 2 cos(delta w_i))`` for ``delta = 0..n-1`` (float64 ``[n]``): the distance
    between the rotation tables of any two positions ``delta`` apart."""
    delta = torch.arange(n, dtype=torch.float64)[:, None]  # [n, 1]
    return gain * (2 - 2 * torch.cos(delta * inv_freq.to(torch.float64))).sum(dim=-1).clamp(min=0).sqrt()


def first_duplicate_length(rows: torch.Tensor) -> int | None:
    """Smallest ``L`` such that the first ``L`` rows of ``rows [N, D]`` hold two bit-for-bit equal rows (after
    folding -0.0 into 0.0), or ``None``."""
    rows = (rows.detach().cpu() + 0).contiguous()  # -0.0 + 0 = +0.0
    int_type = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[rows.element_size()]
    bits = rows.view(int_type).numpy().astype(np.int64)  # [N, D]
    weights = np.random.default_rng(0).integers(1, 2**62, size=bits.shape[1], dtype=np.int64)
    with np.errstate(over="ignore"):
        keys = (bits * weights).sum(axis=1)  # [N]: a hash of each row (wrapping int64)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    earlier = first[inverse]  # [N]: first row with the same hash
    for q in np.flatnonzero(earlier < np.arange(len(keys))):  # ascending
        if np.array_equal(bits[q], bits[earlier[q]]):
            return int(q) + 1
        same = np.flatnonzero((keys[:q] == keys[q]) & (bits[:q] == bits[q]).all(axis=1))
        if same.size:
            return int(q) + 1
    return None


def _lengths(n: int) -> list[int]:
    out, length = [], 16
    while length < n:
        out.append(length)
        length *= 4
    return out + [n]


def uniqueness(view: EncodingView) -> PropertyResult:
    """Smallest distance between two positions (by length) and the first duplicate row in float32 / bfloat16."""
    if view.family == "rotary":
        inv_freq, factor = view.frequencies
        dist = offset_distances(inv_freq, view.length, factor)  # [N]
        delta = int(dist[1:].argmin()) + 1
        curve = torch.cummin(torch.cat([torch.tensor([float("inf")], dtype=dist.dtype), dist[1:]]), dim=0).values
        pair = (0, delta)
        rows32 = view.rotation_table32
        compared = "rotation tables R(p), Frobenius distance / sqrt 2"
    else:
        view.require("absolute", "a bias depends on i - j only, positions have no vector of their own")
        curve, pair = min_distance_by_length(view.table)
        rows32 = view.table32
        compared = f"{view.table_dtype} tables"
    smallest = float(curve[-1])
    scale = float(view.table.norm(dim=-1).mean()) if view.family == "absolute" else float(view.frequencies[1])
    dup32 = first_duplicate_length(rows32)
    dup16 = first_duplicate_length(rows32.to(torch.bfloat16))
    numbers = {
        "min_distance": smallest,
        "closest_pair": list(pair),
        "min_distance_by_length": {str(L): float(curve[L - 1]) for L in _lengths(view.length)},
        "first_duplicate_length_float32": dup32,
        "first_duplicate_length_bfloat16": dup16,
    }
    ok = smallest > max(scale, 1.0) * view.tolerance and dup32 is None
    reason = f"smallest distance {smallest:.4g} between positions {pair[0]} and {pair[1]} ({compared})"
    if dup32 is not None:
        reason += f"; the float32 table repeats a row by length {dup32}"
    reason += ("; in bfloat16 two rows are equal by length " + str(dup16)) if dup16 else "; bfloat16 rows all differ"
    return PropertyResult("uniqueness", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)
