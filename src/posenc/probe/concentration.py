"""Is a table's variance spread evenly over its dimensions? Variance per coordinate dimension and per principal
direction, against isotropic Gaussian tables of the same shape.

- :func:`top_share`: the share of the total variance in the largest ``fraction`` of the variances;
- :func:`dims_for_share`: the fewest principal directions holding a share of the variance (an effective dimension);
- :func:`isotropic_spectra`: what an isotropic table of ``n`` rows and ``d`` columns gives: its per-dimension
  variances and its covariance eigenvalues, drawn from the Wishart distribution the sample covariance of ``n``
  Gaussian rows follows (Bartlett decomposition, :class:`scipy.stats.wishart`), without drawing the table.

Shapes: a table ``[n, d]`` (rows are words or positions).
"""

from __future__ import annotations

import math

import numpy as np

from posenc.errors import PosencError

__all__ = ["spectra", "top_share", "dims_for_share", "isotropic_spectra"]


def spectra(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(variance per dimension [d], covariance eigenvalues [d], descending)`` of ``table [n, d]`` (rows centred,
    ``n - 1`` in the denominator, float64)."""
    x = np.asarray(table, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] < 2:
        raise PosencError(f"spectra needs a table [rows >= 2, d], got shape {x.shape}")
    centred = x - x.mean(axis=0)
    cov = centred.T @ centred / (x.shape[0] - 1)  # [d, d]
    return np.diag(cov).copy(), np.linalg.eigvalsh(cov)[::-1].copy()


def top_share(values: np.ndarray, fraction: float = 0.1) -> float:
    """Share of ``sum(values)`` held by the largest ``ceil(fraction * len(values))`` values (``fraction`` of them
    under equal values)."""
    v = np.sort(np.asarray(values, dtype=np.float64))[::-1]
    if not 0 < fraction <= 1 or v.size == 0 or v.sum() <= 0:
        raise PosencError(f"top_share needs positive values and 0 < fraction <= 1, got {v.size} values, "
                          f"fraction {fraction}")
    return float(v[:math.ceil(fraction * v.size)].sum() / v.sum())


def dims_for_share(eigenvalues: np.ndarray, share: float = 0.9) -> int:
    """The fewest principal directions (largest eigenvalues first) whose variance reaches ``share`` of the total."""
    v = np.sort(np.asarray(eigenvalues, dtype=np.float64))[::-1]
    cumulative = np.cumsum(np.maximum(v, 0.0)) / np.maximum(v, 0.0).sum()
    return int(np.searchsorted(cumulative, share - 1e-12) + 1)


def isotropic_spectra(n: int, d: int, seeds: int, start: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``seeds`` draws of :func:`spectra` for a table of ``n`` rows of N(0, I_d) (``n - 1 >= d``): the sample
    covariance is Wishart(``n - 1``, I / (``n - 1``)), drawn directly; seeds ``start, start + 1, ...``."""
    from scipy.stats import wishart

    if n - 1 < d:
        raise PosencError(f"isotropic_spectra draws a full-rank covariance: needs n - 1 >= d, got n={n}, d={d}")
    out = []
    for seed in range(start, start + seeds):
        cov = wishart.rvs(df=n - 1, scale=np.eye(d) / (n - 1), random_state=np.random.default_rng(seed))
        out.append((np.diag(cov).copy(), np.linalg.eigvalsh(cov)[::-1].copy()))
    return out
