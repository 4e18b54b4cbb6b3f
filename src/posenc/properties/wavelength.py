"""Wavelength of every dimension, and which dimensions are local or global (tutorial 002).

Claim (tutorial 002): "低维分量变化较快, 主要捕捉局部位置关系; 高维分量变化较慢, 可以用于编码全局信息" -- low dimensions
turn fast (short wavelength, local), high dimensions slowly (long wavelength, global).

- rotary encodings: ``lambda_i = 2 pi / inv_freq_i`` per pair, from ``frequencies()``;
- absolute tables whose channel pairs rotate (the sinusoid): ``lambda_i = 2 pi / |angle_i|`` with ``angle_i`` the
  angle of the 2x2 block that maps ``PE[p]`` to ``PE[p + 1]`` (see :mod:`posenc.properties.relative`); no formula is
  assumed, the table is read;
- other tables, per channel: a channel that flips between two levels at evenly spaced positions (binary bit j flips
  every ``2^j`` positions) has wavelength twice the spacing; a channel that flips fewer than twice within N never
  repeats (global); any other channel is not periodic.

A dimension is *local* when its wavelength is shorter than the length N, *global* otherwise. Holds when both kinds
exist and wavelengths never shrink as the dimension index grows. n.a. when no channel is periodic.

The same frequencies read other ways (tutorial 001 §3.2: binary bit ``j`` alternates every ``2^j`` numbers, and the
sinusoid lowers its frequency along the dimension in the same way; tutorial 002's figure: "the higher the dimension,
the longer the period"):

- :func:`pair_frequencies`: each channel pair's angular step per position, read off an interleaved sin/cos table,
  and :func:`order_violations`, how often a sequence fails to fall strictly;
- :func:`bit_flip_violations`: the (position, bit) pairs where a binary table's bit ``j`` does not flip exactly at the
  multiples of ``2^j``;
- :func:`fit_period`: the period of the sinusoid that best fits one sampled curve (least squares over a grid of
  frequencies, then refined).
"""

from __future__ import annotations

import math

import numpy as np
import torch

from posenc.properties.relative import fit_pair_blocks, pair_angles, relative_residual
from posenc.properties.result import FAILS, HOLDS, NotApplicable, PropertyResult
from posenc.properties.view import EncodingView

__all__ = ["wavelength", "table_wavelengths", "channel_periods", "pair_frequencies", "order_violations",
           "bit_flip_violations", "fit_period"]

CLAIM = "low dimensions are local (short wavelength), high dimensions global (long wavelength)"
SOURCE = "tutorial 002"


def channel_periods(table: torch.Tensor) -> list[float | None]:
    """Per channel of ``table [N, D]``: the period of a two-level channel flipping at even spacing, ``inf`` when it
    flips fewer than twice, ``None`` when it is not periodic."""
    lo, hi = table.min(dim=0).values, table.max(dim=0).values  # [D]
    above = table > (lo + hi) / 2  # [N, D]
    flips = above[1:] != above[:-1]  # [N-1, D]: a flip between p and p + 1
    count = flips.sum(dim=0)  # [D]
    index = torch.arange(flips.shape[0])[:, None].expand_as(flips)
    big = flips.shape[0] + 1
    first = torch.where(flips, index, big).min(dim=0).values  # [D]
    second = torch.where(flips & (index > first), index, big).min(dim=0).values
    gap = (second - first).clamp(min=1)  # [D]
    on_grid = (~flips | ((index - first) % gap == 0)).all(dim=0)  # every flip at first + m * gap
    expected = (flips.shape[0] - 1 - first) // gap + 1  # flips a regular wave has after the first
    two_level = ((table == lo) | (table == hi)).all(dim=0)
    periodic = two_level & on_grid & (count == expected)
    return [math.inf if c < 2 else (2.0 * g if ok else None)
            for c, g, ok in zip(count.tolist(), gap.tolist(), periodic.tolist(), strict=True)]


def table_wavelengths(view: EncodingView) -> tuple[list[float], str]:
    """Wavelength per dimension (pair or channel) of an absolute table, and which unit it is counted in."""
    table = view.table
    n, width = table.shape
    if width % 2 == 0:
        x = table[:-1].view(n - 1, width // 2, 2)
        y = table[1:].view(n - 1, width // 2, 2)
        blocks, residual = fit_pair_blocks(x, y)
        exact = relative_residual(residual, y) <= 10 * view.tolerance
        det = torch.linalg.det(blocks)
        orthogonal = bool((det > 0).all()) and float(
            (blocks.transpose(1, 2) @ blocks / det.abs()[:, None, None] - torch.eye(2, dtype=blocks.dtype)).abs().amax()
        ) <= 1e-6
        if exact and orthogonal:
            angle = pair_angles(blocks).abs()  # [P], radians per position
            return [2 * math.pi / a if a > 0 else math.inf for a in angle.tolist()], "pair"
    periods = channel_periods(table)
    if not any(p is not None and math.isfinite(p) for p in periods):
        raise NotApplicable(f"no channel of {view.name}'s table oscillates (its channels are "
                            f"{'monotone or constant' if all(p == math.inf for p in periods) else 'not periodic'}), "
                            f"so no dimension has a wavelength")
    if any(p is None for p in periods):
        raise NotApplicable(f"{sum(p is None for p in periods)} of {width} channels of {view.name}'s table are not "
                            f"periodic, so wavelengths are not defined")
    return [float(p) for p in periods], "channel"


def wavelength(view: EncodingView) -> PropertyResult:
    """Wavelength of each dimension; local (< N) versus global (>= N); and whether it grows with the index."""
    if view.family == "rotary":
        inv_freq, _ = view.frequencies
        lengths, unit = (2 * math.pi / inv_freq).tolist(), "pair"
    else:
        view.require("absolute", "dimensions with wavelengths belong to tables and rotations")
        lengths, unit = table_wavelengths(view)
    local = [i for i, lam in enumerate(lengths) if lam < view.length]
    first_global = next((i for i, lam in enumerate(lengths) if lam >= view.length), None)
    ordered = all(b >= a * (1 - 1e-9) for a, b in zip(lengths, lengths[1:], strict=False))
    finite = [lam for lam in lengths if math.isfinite(lam)]
    numbers = {
        "n_local": len(local),
        "n_global": len(lengths) - len(local),
        "unit": unit,
        "first_global_index": first_global,
        "wavelength_min": min(lengths),
        "wavelength_max_finite": max(finite) if finite else None,
        "nondecreasing": ordered,
        "wavelengths": [round(lam, 6) if math.isfinite(lam) else "inf" for lam in lengths],
    }
    ok = ordered and 0 < len(local) < len(lengths)
    reason = (f"{len(local)} of {len(lengths)} {unit}s are local (wavelength < {view.length}), "
              f"{len(lengths) - len(local)} global")
    if first_global is not None:
        reason += f"; the first global {unit} is {first_global}"
    if not ordered:
        reason += "; wavelengths do not grow with the index"
    elif not local:
        reason += "; no dimension is local at this length"
    elif len(local) == len(lengths):
        reason += "; no dimension is global at this length"
    return PropertyResult("wavelength", HOLDS if ok else FAILS, numbers, reason, CLAIM, SOURCE)


def pair_frequencies(table: torch.Tensor) -> torch.Tensor:
    """Each channel pair's angular step per position, read off an interleaved sin/cos table ``[T, d]``: the angle
    between ``(PE[p, 2i], PE[p, 2i+1])`` and the same pair at ``p + 1``, averaged over ``p`` -> ``[d/2]`` (float64).
    For the sinusoid it is ``w_i = 10000^(-2i/d)``; a table whose pairs do not rotate gives other numbers."""
    pairs = table.double().reshape(table.shape[0], -1, 2)  # [T, d/2, (sin, cos)]
    a, b = pairs[:-1], pairs[1:]
    cross = a[..., 1] * b[..., 0] - a[..., 0] * b[..., 1]  # sin(step) for (sin, cos) pairs
    dot = (a * b).sum(-1)  # cos(step)
    return torch.atan2(cross, dot).mean(dim=0)  # [d/2]


def order_violations(values: torch.Tensor) -> int:
    """How many neighbours ``values[i + 1] >= values[i]``: 0 when ``values`` falls strictly along the index."""
    return int((values[1:] >= values[:-1]).sum())


def bit_flip_violations(table: torch.Tensor) -> int:
    """Count of (position, bit) where bit ``j`` of a binary table ``[T, d]`` changes and ``p`` is not a multiple of
    ``2^j``, or stays and ``p`` is one: bit ``j`` must alternate exactly every ``2^j`` numbers (tutorial 001 §3.2)."""
    length, width = table.shape
    p = torch.arange(1, length)[:, None]  # [T - 1, 1]
    flips = table[1:] != table[:-1]  # [T - 1, d]
    expected = (p % (2 ** torch.arange(width))[None, :]) == 0  # [T - 1, d]
    return int((flips != expected).sum())


def fit_period(values: np.ndarray, shortest: float = 2.5, longest: float | None = None) -> float:
    """The period (in positions) of the sinusoid that best fits ``values[p]``, ``p = 0..T-1``: least squares of
    ``a sin(w p) + b cos(w p) + c`` over a grid of ``w``, refined around the best grid point. Exact (to the
    optimiser's tolerance) for a sampled pure sinusoid whose period is shorter than the window allows."""
    from scipy.optimize import minimize_scalar

    x = np.asarray(values, dtype=np.float64)
    p = np.arange(len(x), dtype=np.float64)
    longest = longest or 4.0 * len(x)

    def residuals(w: np.ndarray) -> np.ndarray:
        """Least-squares residual of the fit at each frequency in ``w [G]``, from the 3x3 normal equations."""
        design = np.stack([np.sin(np.outer(w, p)), np.cos(np.outer(w, p)), np.ones((len(w), len(p)))], axis=2)
        gram = np.einsum("gti,gtj->gij", design, design)  # [G, 3, 3]
        coef = np.linalg.solve(gram, np.einsum("gti,t->gi", design, x)[..., None])[..., 0]  # [G, 3]
        return ((np.einsum("gti,gi->gt", design, coef) - x) ** 2).sum(axis=1)

    grid = np.geomspace(2 * math.pi / longest, 2 * math.pi / shortest, 800)  # steps of 0.7%, far inside the fit's
    # main lobe (about 2 pi / T wide)
    k = int(residuals(grid).argmin())
    low, high = grid[max(0, k - 1)], grid[min(len(grid) - 1, k + 1)]
    best = minimize_scalar(lambda w: float(residuals(np.array([w]))[0]), bounds=(low, high), method="bounded",
                           options={"xatol": 1e-13})
    return float(2 * math.pi / best.x)
