"""The statistics every sampled number in posenc carries: an estimate with its 95% interval.

One type, :class:`Estimate` (value, interval, sample count, method), and the few ways posenc gets one:

- :func:`exact`: a number that is not sampled (a table's largest value): its interval is the value itself;
- :func:`wilson`: an accuracy or share, ``k`` successes of ``n`` trials (Wilson 1927, the score interval);
- :func:`bootstrap`: any statistic of samples (windows, sequences, words), percentile bootstrap (Efron 1979) with
  a fixed seed, so the same samples give the same interval on every run;
- :func:`bootstrap_weights`: the same percentile bootstrap, vectorised, for many statistics at once and for two
  kinds of units resampled independently (words and positions: the two-way bootstrap);
- :func:`over_seeds`: the mean of a few training seeds, Student-t interval (one seed has no interval: ``(-inf, inf)``).

And the rank statistics the report needs: :func:`spearman` (ties share their mean rank) and
:func:`mean_reciprocal_rank` (Kazemnejad et al. 2023's summary). The tests compare each with scipy.

Where numbers are written out, :func:`jsonable` gives their JSON form: estimates as :meth:`Estimate.as_dict`, numpy
and torch scalars and arrays as plain Python (through their ``tolist``), infinities and NaN as strings.

Everything here is pure numpy/scipy on plain numbers: no torch, no posenc imports.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from posenc.errors import PosencError

__all__ = ["Estimate", "exact", "wilson", "bootstrap", "bootstrap_weights", "over_seeds", "ratio_over_seeds",
           "spearman", "mean_reciprocal_rank", "jsonable", "CONFIDENCE", "BOOTSTRAP_RESAMPLES"]

#: every interval in posenc is a 95% interval
CONFIDENCE = 0.95
#: resamples per bootstrap interval (enough for stable 2.5% / 97.5% percentiles of smooth statistics)
BOOTSTRAP_RESAMPLES = 2000


@dataclass(frozen=True)
class Estimate:
    """A measured number with its 95% interval.

    Attributes:
        value: the point estimate.
        low, high: the interval (``low <= value <= high``; equal to ``value`` for exact numbers, infinite when the
            sample is too small to say anything, e.g. one seed).
        n: how many independent samples it rests on (trials, windows, seeds; 1 for an exact number).
        method: ``"exact"``, ``"wilson"``, ``"bootstrap"``, ``"t"`` (seeds) or ``"bounds"`` (the range a count
            can take when undecided items fall either way).
    """

    value: float
    low: float
    high: float
    n: int = 1
    method: str = "exact"

    def __post_init__(self) -> None:
        if math.isnan(self.value):
            return
        if not (self.low <= self.value + 1e-12 * max(1.0, abs(self.value))
                and self.value <= self.high + 1e-12 * max(1.0, abs(self.value))):
            raise PosencError(f"an estimate's interval must contain its value, got {self.value} in "
                              f"[{self.low}, {self.high}]")

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: infinities as strings."""
        def plain(x: float) -> float | str:
            return x if math.isfinite(x) else str(x)

        return {"value": plain(self.value), "low": plain(self.low), "high": plain(self.high), "n": self.n,
                "method": self.method}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Estimate:
        return cls(float(data["value"]), float(data["low"]), float(data["high"]), int(data["n"]),
                   str(data["method"]))

    def text(self, digits: int = 3) -> str:
        """``0.812 [0.790, 0.833]``; an exact number alone; an unbounded interval says why."""
        v = f"{self.value:.{digits}g}"
        if self.method == "exact":
            return v
        if not (math.isfinite(self.low) and math.isfinite(self.high)):
            return f"{v} [no interval from n={self.n}]"
        return f"{v} [{self.low:.{digits}g}, {self.high:.{digits}g}]"


def exact(value: float) -> Estimate:
    """A number that is computed, not sampled: its interval is the point."""
    value = float(value)
    return Estimate(value, value, value, 1, "exact")


def wilson(successes: int, trials: int, confidence: float = CONFIDENCE) -> Estimate:
    """The Wilson score interval for ``successes`` of ``trials`` (Wilson 1927).

    >>> e = wilson(18, 20)
    >>> round(e.value, 2), round(e.low, 3), round(e.high, 3)
    (0.9, 0.699, 0.972)
    """
    if trials < 1:
        raise PosencError(f"a Wilson interval needs at least one trial, got trials={trials}")
    if not 0 <= successes <= trials:
        raise PosencError(f"successes must lie in 0..trials={trials}, got {successes}")
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + confidence / 2))
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return Estimate(p, max(0.0, min(p, centre - spread)), min(1.0, max(p, centre + spread)), trials, "wilson")


def bootstrap(samples: Sequence[float] | np.ndarray, statistic: Callable[[np.ndarray], float] | None = None,
              resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0) -> Estimate:
    """Percentile bootstrap interval of ``statistic`` (default: the mean) over ``samples`` (Efron 1979).

    ``samples`` is 1-D (one value per independent unit: a window, a sequence, a word) or 2-D (one row per unit,
    resampled together, for statistics of several columns). The resampling is seeded, so the interval is the same
    on every run. Fewer than 2 samples give an unbounded interval.
    """
    data = np.asarray(samples, dtype=np.float64)
    if data.ndim not in (1, 2):
        raise PosencError(f"bootstrap samples must be 1-D or 2-D (one row per unit), got shape {data.shape}")
    n = data.shape[0]
    stat = statistic or (lambda x: float(np.mean(x)))
    if n == 0:
        raise PosencError("bootstrap needs at least one sample, got none")
    value = float(stat(data))
    if n < 2:
        return Estimate(value, -math.inf, math.inf, n, "bootstrap")
    rng = np.random.default_rng(seed)
    index = rng.integers(0, n, size=(resamples, n))
    draws = np.array([stat(data[i]) for i in index], dtype=np.float64)
    alpha = (1 - confidence) / 2
    low, high = (float(x) for x in np.quantile(draws, [alpha, 1 - alpha]))
    return Estimate(value, min(low, value), max(high, value), n, "bootstrap")


def bootstrap_weights(sizes: Sequence[int], statistic: Callable[..., np.ndarray],
                      resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0,
                      chunk: int = 250) -> list[Estimate]:
    """Percentile bootstrap of statistics written as functions of unit weights, vectorised over resamples.

    ``sizes`` gives the number of units of each kind (``(windows,)``; or ``(words, positions)``, each kind resampled
    on its own: the two-way bootstrap of a words x positions table, Owen 2007). A resample of ``n`` units with
    replacement is a weight vector ``counts / n`` (each unit's count in the resample; the weights sum to 1).
    ``statistic(w_1, ..., w_k)`` takes one ``[r, n_i]`` weight array per kind and returns ``[r]`` or ``[r, m]``
    (``m`` statistics at once), for example a weighted mean ``w @ x`` or a ratio of weighted sums. The point
    estimates are the statistic at equal weights ``1 / n``. Seeded like :func:`bootstrap`; a kind with fewer than
    2 units gives unbounded intervals. Returns ``m`` estimates (one for a ``[r]`` statistic).
    """
    sizes = [int(n) for n in sizes]
    if not sizes or min(sizes) < 1:
        raise PosencError(f"bootstrap_weights needs at least one unit of every kind, got sizes {sizes}")

    def evaluate(weights: list[np.ndarray]) -> np.ndarray:
        out = np.asarray(statistic(*weights), dtype=np.float64)
        return out.reshape(len(weights[0]), -1)  # [r, m]

    value = evaluate([np.full((1, n), 1.0 / n) for n in sizes])[0]  # [m]
    if min(sizes) < 2:
        return [Estimate(float(v), -math.inf, math.inf, min(sizes), "bootstrap") for v in value]
    rng = np.random.default_rng(seed)
    draws = []
    for start in range(0, resamples, chunk):
        r = min(chunk, resamples - start)
        weights = []
        for n in sizes:
            picks = rng.integers(0, n, size=(r, n)) + n * np.arange(r)[:, None]  # unit index, offset per resample
            weights.append(np.bincount(picks.ravel(), minlength=r * n).reshape(r, n) / n)
        draws.append(evaluate(weights))
    alpha = (1 - confidence) / 2
    low, high = np.quantile(np.concatenate(draws), [alpha, 1 - alpha], axis=0)  # [m] each
    return [Estimate(float(v), min(float(lo), float(v)), max(float(hi), float(v)), min(sizes), "bootstrap")
            for v, lo, hi in zip(value, low, high, strict=True)]


def over_seeds(values: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """Mean of per-seed values with a Student-t interval; one seed has no interval (``(-inf, inf)``)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        raise PosencError("over_seeds needs at least one seed's value, got none")
    mean = float(data.mean())
    if data.size < 2:
        return Estimate(mean, -math.inf, math.inf, 1, "t")
    from scipy.stats import t

    half = float(t.ppf(0.5 + confidence / 2, data.size - 1)) * float(data.std(ddof=1)) / math.sqrt(data.size)
    return Estimate(mean, mean - half, mean + half, int(data.size), "t")


def ratio_over_seeds(numerators: Sequence[float], denominators: Sequence[float]) -> Estimate:
    """Per-seed ratios ``numerator / denominator`` (paired by seed), averaged with :func:`over_seeds`."""
    if len(numerators) != len(denominators):
        raise PosencError(f"ratio_over_seeds pairs values by seed: got {len(numerators)} numerators and "
                          f"{len(denominators)} denominators")
    return over_seeds([a / b for a, b in zip(numerators, denominators, strict=True)])


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties sharing their mean rank."""
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = np.arange(1, len(x) + 1)
    for value in np.unique(x):
        tied = x == value
        if tied.sum() > 1:
            ranks[tied] = ranks[tied].mean()
    return ranks


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation (Pearson correlation of the ranks; ties share their mean rank). Constant input
    has no correlation: NaN."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise PosencError(f"spearman needs two 1-D sequences of one length, got shapes {x.shape} and {y.shape}")
    if len(x) < 2:
        raise PosencError(f"spearman needs at least 2 pairs, got {len(x)}")
    rx, ry = _ranks(x), _ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denom = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    return float((rx * ry).sum() / denom) if denom else math.nan


def mean_reciprocal_rank(scores: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """``{name: mean over groups of 1 / rank}``, ranking names within each group by ``scores[group][name]``,
    higher first; ties share the better rank (Kazemnejad et al. 2023's summary over tasks)."""
    reciprocal: dict[str, list[float]] = {}
    for group in scores.values():
        for name, value in group.items():
            rank = 1 + sum(other > value for other in group.values())
            reciprocal.setdefault(name, []).append(1.0 / rank)
    return {name: sum(v) / len(v) for name, v in reciprocal.items()}


def jsonable(value: Any) -> Any:
    """``value`` as plain JSON: an :class:`Estimate` as its dict, dicts (keys as strings), lists and tuples element
    by element, numpy / torch scalars and arrays through ``tolist``, NaN and infinities as strings, anything else
    not JSON as its ``str``."""
    if isinstance(value, Estimate):
        return value.as_dict()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        return jsonable(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)
