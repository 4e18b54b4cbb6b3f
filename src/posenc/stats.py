"""The statistics every sampled number in posenc carries: an estimate with its 95% interval.

One type, :class:`Estimate` (value, interval, unit count, method, and the range the statistic can take), and the few
ways posenc gets one:

- :func:`exact`: a number that is computed, not sampled (a table's largest value): its interval is the value itself;
- :func:`observed`: a number read off sampled runs that has no interval of its own (how many of the runs reached a
  bar, the best of a few runs): judged like an exact number, but its value would change with more runs;
- :func:`wilson`: an accuracy or share, ``k`` successes of ``n`` trials (Wilson 1927, the score interval);
- :func:`bootstrap`: any statistic of samples (windows, sequences, words): ``scipy.stats.bootstrap``'s percentile
  interval (Efron 1979) with a fixed seed, so the same samples give the same interval on every run;
- :func:`bootstrap_weights`: the same percentile bootstrap for what scipy's does not cover: many statistics at once,
  written as functions of unit weights, and two kinds of units resampled independently (words and positions,
  windows and query positions: the two-way bootstrap, Owen 2007);
- :func:`over_seeds`: the mean of a few independent units (training seeds, windows) with a Student-t interval, on
  the values' own scale or, for positive quantities (step counts, ratios), on a log scale;
  :func:`ratio_over_seeds`: the geometric mean of paired ratios with its interval on the log scale.

Three rules hold for every interval, checked where an estimate is made:

- it lies inside what its statistic can take (``bounds``: accuracies and shares in [0, 1] (:data:`SHARE`), counts
  and ratios at or above 0 (:data:`POSITIVE`)); an interval outside is refused (:class:`Estimate` raises). A
  t-interval is clipped to the range: the true mean lies in the range, so the clipped interval covers it whenever the
  t-interval does. Positive quantities whose spread is multiplicative take ``log=True`` instead;
- it rests on at least :data:`MIN_UNITS` independent units: with fewer, the number has no interval (shown alone,
  ``has_interval`` False) and cannot decide a verdict (:func:`posenc.report.verdict.judge`);
- a bootstrap over units whose statistic varies never returns a zero-width interval: if every resample gives the
  same value although leaving one unit out changes it, the resampling is broken and :func:`bootstrap` raises. (A
  statistic that is the same for every unit, e.g. a share that is 126/127 in every window, has zero width over those
  units honestly: resample the unit that varies instead, as :func:`posenc.probe.heads.query_shares` resamples query
  positions beside windows.)

And the rank statistics the report needs: :func:`spearman` (``scipy.stats.spearmanr``) and
:func:`mean_reciprocal_rank` (Kazemnejad et al. 2023's summary).

Where numbers are written out, :func:`jsonable` gives their JSON form: estimates as :meth:`Estimate.as_dict`, numpy
and torch scalars and arrays as plain Python (through their ``tolist``), infinities and NaN as strings.

Everything here is pure numpy/scipy on plain numbers: no torch, no posenc imports.
"""

from __future__ import annotations

import inspect
import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from posenc.errors import PosencError

__all__ = ["Estimate", "exact", "observed", "wilson", "bootstrap", "bootstrap_weights", "over_seeds",
           "ratio_over_seeds", "spearman", "mean_reciprocal_rank", "jsonable", "CONFIDENCE", "BOOTSTRAP_RESAMPLES",
           "MIN_UNITS", "UNBOUNDED", "SHARE", "POSITIVE", "CORRELATION"]

#: every interval in posenc is a 95% interval
CONFIDENCE = 0.95
#: resamples per bootstrap interval (enough for stable 2.5% / 97.5% percentiles of smooth statistics)
BOOTSTRAP_RESAMPLES = 2000
#: the fewest independent units an interval may rest on (a t-interval from 2 has 1 degree of freedom: its 95%
#: half-width is 12.7 standard errors, and a bootstrap of 2 units has 3 distinct resamples)
MIN_UNITS = 3
#: what a statistic can take: anything
UNBOUNDED = (-math.inf, math.inf)
#: an accuracy, share or proportion
SHARE = (0.0, 1.0)
#: a count, a norm, a ratio of positive numbers
POSITIVE = (0.0, math.inf)
#: a correlation coefficient
CORRELATION = (-1.0, 1.0)
#: methods whose interval is the value itself
POINT_METHODS = ("exact", "observed")


def _tolerance(*values: float) -> float:
    """Round-off allowed when checking that a value lies in an interval or a range."""
    finite = [abs(v) for v in values if math.isfinite(v)]
    return 1e-12 * max([1.0, *finite])


@dataclass(frozen=True)
class Estimate:
    """A measured number with its 95% interval.

    Attributes:
        value: the point estimate.
        low, high: the interval (``low <= value <= high``; equal to ``value`` for exact and observed numbers;
            ``-inf, inf`` when it rests on fewer than :data:`MIN_UNITS` units: no interval).
        n: how many independent units it rests on (trials, windows, seeds; 1 for an exact number).
        method: ``"exact"``, ``"observed"``, ``"wilson"``, ``"bootstrap"``, ``"t"`` (mean over units), ``"t-log"``
            (geometric mean, t-interval on the log scale) or ``"bounds"`` (the range a count can take when undecided
            items fall either way).
        bounds: the range the statistic can take (:data:`SHARE`, :data:`POSITIVE`, ...): the value and a finite
            interval must lie inside it.
    """

    value: float
    low: float
    high: float
    n: int = 1
    method: str = "exact"
    bounds: tuple[float, float] = UNBOUNDED

    def __post_init__(self) -> None:
        lo, hi = self.bounds
        if not lo <= hi:
            raise PosencError(f"an estimate's range must be (low, high) with low <= high, got {self.bounds}")
        if math.isnan(self.value):
            return
        tol = _tolerance(self.value, self.low, self.high)
        if not lo - tol <= self.value <= hi + tol:
            raise PosencError(f"an estimate's value must lie in its statistic's range [{lo}, {hi}], got {self.value} "
                              f"({self.method}, n={self.n})")
        if not (self.low <= self.value + tol and self.value <= self.high + tol):
            raise PosencError(f"an estimate's interval must contain its value, got {self.value} in "
                              f"[{self.low}, {self.high}]")
        if self.has_interval and not (lo - tol <= self.low and self.high <= hi + tol):
            raise PosencError(f"an interval must lie in its statistic's range [{lo}, {hi}], got {self.value} "
                              f"[{self.low}, {self.high}] ({self.method}, n={self.n}); clip it to the range or "
                              f"compute it on a scale where the range is open (log for positive quantities)")

    @property
    def has_interval(self) -> bool:
        """False when the estimate rests on too few units for an interval (``low, high = -inf, inf``)."""
        return not (self.low == -math.inf and self.high == math.inf)

    @property
    def sampled(self) -> bool:
        """Whether the number comes from sampled data (its precision depends on how much was sampled)."""
        return self.method != "exact"

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: infinities as strings."""
        def plain(x: float) -> float | str:
            return x if math.isfinite(x) else str(x)

        return {"value": plain(self.value), "low": plain(self.low), "high": plain(self.high), "n": self.n,
                "method": self.method, "bounds": [plain(self.bounds[0]), plain(self.bounds[1])]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Estimate:
        bounds = data.get("bounds") or UNBOUNDED
        return cls(float(data["value"]), float(data["low"]), float(data["high"]), int(data["n"]),
                   str(data["method"]), (float(bounds[0]), float(bounds[1])))

    def text(self, digits: int = 3) -> str:
        """``0.812 [0.790, 0.833]``; an exact number alone; a number without an interval says why."""
        v = f"{self.value:.{digits}g}"
        if self.method in POINT_METHODS:
            return v
        if not self.has_interval:
            return f"{v} [no interval: n={self.n}, an interval needs {MIN_UNITS}]"
        return f"{v} [{self.low:.{digits}g}, {self.high:.{digits}g}]"


def _check_bounds(bounds: tuple[float, float]) -> tuple[float, float]:
    lo, hi = (float(b) for b in bounds)
    if not lo <= hi:
        raise PosencError(f"bounds must be (low, high) with low <= high, got {bounds}")
    return lo, hi


def _inside(value: float, low: float, high: float, n: int, method: str,
            bounds: tuple[float, float]) -> Estimate:
    """An estimate whose interval is widened to contain the value and clipped to the statistic's range."""
    lo, hi = bounds
    low, high = min(low, value), max(high, value)
    return Estimate(value, min(max(low, lo), hi), max(min(high, hi), lo), n, method, bounds)


def _no_interval(value: float, n: int, method: str, bounds: tuple[float, float]) -> Estimate:
    return Estimate(value, -math.inf, math.inf, n, method, bounds)


def exact(value: float) -> Estimate:
    """A number that is computed, not sampled: its interval is the point."""
    value = float(value)
    return Estimate(value, value, value, 1, "exact")


def observed(value: float, n: int, bounds: tuple[float, float] = UNBOUNDED) -> Estimate:
    """A number read off ``n`` sampled runs with no interval of its own (how many reached a bar, the best of them):
    judged as it is, like an exact number, but marked as sampled (more runs could change it)."""
    value = float(value)
    return Estimate(value, value, value, int(n), "observed", _check_bounds(bounds))


def wilson(successes: int, trials: int, confidence: float = CONFIDENCE) -> Estimate:
    """The Wilson score interval for ``successes`` of ``trials`` (Wilson 1927), inside [0, 1] by construction.

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
    return _inside(p, centre - spread, centre + spread, trials, "wilson", SHARE)


def _zero_width(low: float, high: float) -> bool:
    return high - low <= _tolerance(low, high)


def _varies(values: np.ndarray) -> bool:
    """Whether the values differ by more than round-off."""
    finite = values[np.isfinite(values)]
    return finite.size > 1 and float(finite.max() - finite.min()) > 1e-9 * max(1.0, float(np.abs(finite).max()))


def _generator_argument(seed: int) -> dict[str, Any]:
    """``rng=`` (scipy >= 1.15) or ``random_state=`` (older) for ``scipy.stats.bootstrap``."""
    from scipy.stats import bootstrap as scipy_bootstrap

    name = "rng" if "rng" in inspect.signature(scipy_bootstrap).parameters else "random_state"
    return {name: np.random.default_rng(seed)}


def bootstrap(samples: Sequence[float] | np.ndarray, statistic: Callable[[np.ndarray], float] | None = None,
              resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0,
              bounds: tuple[float, float] = UNBOUNDED) -> Estimate:
    """Percentile bootstrap interval of ``statistic`` (default: the mean) over ``samples`` (Efron 1979), computed by
    ``scipy.stats.bootstrap``.

    ``samples`` is 1-D (one value per independent unit: a window, a sequence, a word) or 2-D (one row per unit,
    resampled together, for statistics of several columns). ``bounds`` is the range the statistic can take. The
    resampling is seeded, so the interval is the same on every run. Fewer than :data:`MIN_UNITS` units give no
    interval. A zero-width interval although the statistic changes when one unit is left out raises.
    """
    from scipy.stats import bootstrap as scipy_bootstrap

    data = np.asarray(samples, dtype=np.float64)
    if data.ndim not in (1, 2):
        raise PosencError(f"bootstrap samples must be 1-D or 2-D (one row per unit), got shape {data.shape}")
    n = data.shape[0]
    stat = statistic or (lambda x: float(np.mean(x)))
    if n == 0:
        raise PosencError("bootstrap needs at least one sample, got none")
    bounds = _check_bounds(bounds)
    value = float(stat(data))
    if n < MIN_UNITS or math.isnan(value):
        return _no_interval(value, n, "bootstrap", bounds)
    index = np.arange(n, dtype=np.float64)  # scipy resamples unit indices; the statistic reads those units' rows

    def on_units(units: np.ndarray, axis: int = -1) -> np.ndarray:  # units [..., n] -> the statistic [...]
        picks = units.astype(np.intp)
        flat = picks.reshape(-1, n)
        return np.array([stat(data[row]) for row in flat], dtype=np.float64).reshape(picks.shape[:-1])

    result = scipy_bootstrap((index,), on_units, n_resamples=resamples, confidence_level=confidence,
                             method="percentile", vectorized=True, **_generator_argument(seed))
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if math.isnan(low) or math.isnan(high):  # the statistic is undefined on some resamples: no interval
        return _no_interval(value, n, "bootstrap", bounds)
    if _zero_width(low, high):
        units = np.unique(np.linspace(0, n - 1, min(n, 64)).round().astype(int))  # up to 64, spread over the sample
        leave_one_out = np.array([stat(np.delete(data, i, axis=0)) for i in units], dtype=np.float64)
        _refuse_zero_width(value, leave_one_out, n)
    return _inside(value, low, high, n, "bootstrap", bounds)


def _refuse_zero_width(value: float, leave_one_out: np.ndarray, n: int) -> None:
    """Raise when the statistic changes as one unit is left out, although no resample moved it."""
    if _varies(np.append(leave_one_out, value)):
        raise PosencError(f"the bootstrap gave a zero-width interval ({value:.6g}) over {n} units although leaving one "
                          f"unit out moves the statistic (to between {np.nanmin(leave_one_out):.6g} and "
                          f"{np.nanmax(leave_one_out):.6g}): the resampling does not reach what varies")


def bootstrap_weights(sizes: Sequence[int], statistic: Callable[..., np.ndarray],
                      resamples: int = BOOTSTRAP_RESAMPLES, confidence: float = CONFIDENCE, seed: int = 0,
                      chunk: int = 250,
                      bounds: tuple[float, float] | Sequence[tuple[float, float]] = UNBOUNDED) -> list[Estimate]:
    """Percentile bootstrap of statistics written as functions of unit weights, vectorised over resamples: what
    ``scipy.stats.bootstrap`` does not cover (many statistics at once; two kinds of units resampled apart).

    ``sizes`` gives the number of units of each kind (``(windows,)``; or ``(words, positions)``, each kind resampled
    on its own: the two-way bootstrap of a words x positions table, Owen 2007). A resample of ``n`` units with
    replacement is a weight vector ``counts / n`` (each unit's count in the resample; the weights sum to 1).
    ``statistic(w_1, ..., w_k)`` takes one ``[r, n_i]`` weight array per kind and returns ``[r]`` or ``[r, m]``
    (``m`` statistics at once), for example a weighted mean ``w @ x`` or a ratio of weighted sums. The point
    estimates are the statistic at equal weights ``1 / n``. ``bounds``: the range of every statistic (one pair), or
    one pair per statistic. Seeded like :func:`bootstrap`; a kind with fewer than :data:`MIN_UNITS` units gives no
    intervals. Returns ``m`` estimates (one for a ``[r]`` statistic). A zero-width interval although the statistic
    changes when one unit is left out raises (see the module docstring).
    """
    sizes = [int(n) for n in sizes]
    if not sizes or min(sizes) < 1:
        raise PosencError(f"bootstrap_weights needs at least one unit of every kind, got sizes {sizes}")

    def evaluate(weights: list[np.ndarray]) -> np.ndarray:
        out = np.asarray(statistic(*weights), dtype=np.float64)
        return out.reshape(len(weights[0]), -1)  # [r, m]

    value = evaluate([np.full((1, n), 1.0 / n) for n in sizes])[0]  # [m]
    ranges = _ranges(bounds, len(value))
    if min(sizes) < MIN_UNITS:
        return [_no_interval(float(v), min(sizes), "bootstrap", b) for v, b in zip(value, ranges, strict=True)]
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
    flat = [i for i in range(len(value)) if _zero_width(float(low[i]), float(high[i]))]
    if flat:
        leave_one_out = _leave_one_out(sizes, evaluate)  # [units, m]
        for i in flat:
            _refuse_zero_width(float(value[i]), leave_one_out[:, i], sum(sizes))
    return [_inside(float(v), float(lo), float(hi), min(sizes), "bootstrap", b)
            for v, lo, hi, b in zip(value, low, high, ranges, strict=True)]


def _ranges(bounds: tuple[float, float] | Sequence[tuple[float, float]], m: int) -> list[tuple[float, float]]:
    """One range per statistic from one pair or a sequence of pairs."""
    pairs = list(bounds)
    if len(pairs) == 2 and all(isinstance(b, (int, float, np.floating, np.integer)) for b in pairs):
        return [_check_bounds(tuple(pairs))] * m  # type: ignore[arg-type]
    if len(pairs) != m:
        raise PosencError(f"bootstrap_weights: give one range for every statistic or one for all; got {len(pairs)} "
                          f"ranges for {m} statistics")
    return [_check_bounds(b) for b in pairs]


def _leave_one_out(sizes: list[int], evaluate: Callable[[list[np.ndarray]], np.ndarray],
                   most: int = 64) -> np.ndarray:
    """The statistics with one unit left out, for up to ``most`` units of every kind spread over its range, each
    evaluated on its own (as the point estimate is, so a statistic with a more precise single-row path uses it):
    ``[units, m]``."""
    rows = []
    for kind, n in enumerate(sizes):
        for unit in np.unique(np.linspace(0, n - 1, min(n, most)).round().astype(int)):
            dropped = np.full((1, n), 1.0 / (n - 1))
            dropped[0, unit] = 0.0
            rows.append(evaluate([dropped if k == kind else np.full((1, m), 1.0 / m) for k, m in enumerate(sizes)]))
    return np.concatenate(rows)


def over_seeds(values: Sequence[float] | np.ndarray, confidence: float = CONFIDENCE,
               bounds: tuple[float, float] = UNBOUNDED, log: bool = False) -> Estimate:
    """Mean of per-unit values (training seeds, windows) with a Student-t interval.

    ``bounds``: the range a value can take (accuracies :data:`SHARE`, differences of accuracies ``(-1, 1)``); the
    interval is clipped to it (the true mean lies in the range, so clipping keeps the coverage). ``log=True``, for
    positive quantities whose spread is multiplicative (step counts, ratios): the geometric mean with the t-interval
    of the logarithms, back on the original scale (always above 0). Fewer than :data:`MIN_UNITS` values give no
    interval.
    """
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        raise PosencError("over_seeds needs at least one seed's value, got none")
    if log:
        if not np.all(data > 0):
            raise PosencError(f"a log-scale interval needs positive values, got {data.tolist()}")
        logs = over_seeds(np.log(data), confidence)
        if not logs.has_interval:
            return _no_interval(math.exp(logs.value), logs.n, "t-log", POSITIVE)
        return Estimate(math.exp(logs.value), math.exp(logs.low), math.exp(logs.high), logs.n, "t-log", POSITIVE)
    bounds = _check_bounds(bounds)
    tol = _tolerance(*bounds)
    if np.any(data < bounds[0] - tol) or np.any(data > bounds[1] + tol):
        raise PosencError(f"over_seeds: values {data.tolist()} leave the statistic's range [{bounds[0]}, "
                          f"{bounds[1]}]")
    mean = min(max(float(data.mean()), bounds[0]), bounds[1])
    if data.size < MIN_UNITS:
        return _no_interval(mean, int(data.size), "t", bounds)
    from scipy.stats import t

    half = float(t.ppf(0.5 + confidence / 2, data.size - 1)) * float(data.std(ddof=1)) / math.sqrt(data.size)
    return _inside(mean, mean - half, mean + half, int(data.size), "t", bounds)


def ratio_over_seeds(numerators: Sequence[float], denominators: Sequence[float]) -> Estimate:
    """The geometric mean of per-unit ratios ``numerator / denominator`` (paired by seed or unit), with the
    t-interval of their logarithms (:func:`over_seeds` with ``log=True``): a ratio's interval stays above 0."""
    if len(numerators) != len(denominators):
        raise PosencError(f"ratio_over_seeds pairs values by seed: got {len(numerators)} numerators and "
                          f"{len(denominators)} denominators")
    return over_seeds([a / b for a, b in zip(numerators, denominators, strict=True)], log=True)


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman's rank correlation, ``scipy.stats.spearmanr`` (ties share their mean rank); constant input has no
    correlation: NaN."""
    from scipy.stats import spearmanr

    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise PosencError(f"spearman needs two 1-D sequences of one length, got shapes {x.shape} and {y.shape}")
    if len(x) < 2:
        raise PosencError(f"spearman needs at least 2 pairs, got {len(x)}")
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(spearmanr(x, y).statistic)


def mean_reciprocal_rank(scores: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """``{name: mean over groups of 1 / rank}``, ranking names within each group by ``scores[group][name]``,
    higher first; ties share the better rank (Kazemnejad et al. 2023's summary over tasks): ``scipy.stats.rankdata``
    with ``method="min"`` of the negated scores."""
    from scipy.stats import rankdata

    reciprocal: dict[str, list[float]] = {}
    for group in scores.values():
        ranks = rankdata([-float(value) for value in group.values()], method="min")
        for name, rank in zip(group, ranks, strict=True):
            reciprocal.setdefault(name, []).append(1.0 / float(rank))
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
