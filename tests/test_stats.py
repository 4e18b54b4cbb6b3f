"""posenc.stats against scipy and against values worked by hand; every interval inside its statistic's range, none
from fewer than 3 units, none of zero width over units that vary."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sp

from posenc.errors import PosencError
from posenc.stats import (
    MIN_UNITS,
    POSITIVE,
    SHARE,
    Estimate,
    bootstrap,
    bootstrap_weights,
    exact,
    mean_reciprocal_rank,
    observed,
    over_seeds,
    ratio_over_seeds,
    spearman,
    wilson,
)


@pytest.mark.parametrize("k,n", [(0, 1), (1, 1), (0, 20), (3, 20), (18, 20), (20, 20), (137, 256), (1, 1000)])
def test_wilson_equals_scipy(k, n):
    ours = wilson(k, n)
    low, high = sp.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert ours.value == pytest.approx(k / n)
    assert ours.low == pytest.approx(low, abs=1e-12)
    assert ours.high == pytest.approx(high, abs=1e-12)
    assert ours.n == n and ours.method == "wilson"


def test_wilson_by_hand():
    # 18 of 20, z = 1.959964: centre (0.9 + z^2/40) / (1 + z^2/20) = 0.83538..., half-width 0.13650...
    e = wilson(18, 20)
    assert (round(e.low, 4), round(e.high, 4)) == (0.6990, 0.9721)


@pytest.mark.parametrize("k,n", [(-1, 5), (6, 5), (0, 0)])
def test_wilson_bad_counts(k, n):
    with pytest.raises(PosencError):
        wilson(k, n)


def test_over_seeds_equals_scipy_t_interval():
    values = [0.91, 0.87, 0.95]
    ours = over_seeds(values)
    low, high = sp.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=sp.sem(values))
    assert (ours.value, ours.low, ours.high) == pytest.approx((np.mean(values), low, high))
    assert ours.n == 3 and ours.method == "t"


@pytest.mark.parametrize("values", [[0.5], [0.5, 0.7]])
def test_fewer_than_three_units_have_no_interval(values):
    e = over_seeds(values)
    assert e.value == pytest.approx(np.mean(values)) and math.isinf(e.low) and math.isinf(e.high)
    assert not e.has_interval and e.n == len(values)
    assert f"no interval: n={len(values)}, an interval needs 3" in e.text()
    assert not bootstrap(values).has_interval and not over_seeds(values, log=True).has_interval
    (weighted,) = bootstrap_weights((len(values),), lambda w: w @ np.array(values))
    assert not weighted.has_interval
    assert over_seeds([0.5, 0.7, 0.6]).has_interval and MIN_UNITS == 3


def test_ratio_over_seeds_is_a_geometric_mean_with_a_log_scale_interval():
    e = ratio_over_seeds([2.0, 6.0, 12.0], [1.0, 2.0, 3.0])  # per seed: 2, 3, 4
    logs = np.log([2.0, 3.0, 4.0])
    low, high = sp.t.interval(0.95, 2, loc=logs.mean(), scale=sp.sem(logs))
    assert (e.value, e.low, e.high) == pytest.approx((24 ** (1 / 3), math.exp(low), math.exp(high)))
    assert e.method == "t-log" and e.bounds == POSITIVE
    with pytest.raises(PosencError, match="pairs values by seed"):
        ratio_over_seeds([1.0], [1.0, 2.0])


def test_ratio_over_seeds_is_a_t_interval_on_the_logs_of_paired_step_counts():
    a, b = [300.0, 420.0, 380.0], [250.0, 300.0, 330.0]
    logs = np.log(np.array(a) / np.array(b))
    ci = sp.t.interval(0.95, len(logs) - 1, loc=logs.mean(), scale=sp.sem(logs))
    e = ratio_over_seeds(a, b)
    assert e.value == pytest.approx(math.exp(logs.mean()))
    assert (e.low, e.high) == pytest.approx((math.exp(ci[0]), math.exp(ci[1])))



def test_bootstrap_is_scipys_percentile_bootstrap_with_the_draws_it_always_had():
    rng = np.random.default_rng(3)
    data = rng.normal(1.0, 2.0, size=200)
    ours = bootstrap(data, resamples=4000, seed=1)
    theirs = sp.bootstrap((data,), np.mean, n_resamples=4000, method="percentile",
                          rng=np.random.default_rng(1)).confidence_interval
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high), rel=1e-12)
    assert ours.value == pytest.approx(float(data.mean()))
    # the same unit indices, drawn by hand with the same generator: posenc's earlier percentile bootstrap
    picks = np.random.default_rng(1).integers(0, 200, size=(4000, 200))
    assert (ours.low, ours.high) == pytest.approx(tuple(np.quantile(data[picks].mean(1), [0.025, 0.975])),
                                                  rel=1e-12)


def test_bootstrap_is_reproducible_and_seeded():
    data = np.arange(30.0)
    assert bootstrap(data) == bootstrap(data)
    assert bootstrap(data, seed=1) != bootstrap(data, seed=2)


def test_bootstrap_of_rows_resamples_units_together():
    # a statistic of two columns: the ratio of their means; rows are resampled as units
    rows = np.column_stack([np.arange(1.0, 41.0), 2 * np.arange(1.0, 41.0)])
    e = bootstrap(rows, statistic=lambda x: float(x[:, 1].mean() / x[:, 0].mean()))
    assert e.value == pytest.approx(2.0) and e.low == pytest.approx(2.0) and e.high == pytest.approx(2.0)


def test_bootstrap_edges():
    assert math.isinf(bootstrap([1.0]).low)
    assert not bootstrap([1.0, 2.0, 3.0], statistic=lambda x: math.nan).has_interval  # undefined: no interval
    with pytest.raises(PosencError, match="at least one"):
        bootstrap([])
    with pytest.raises(PosencError, match="1-D or 2-D"):
        bootstrap(np.zeros((2, 2, 2)))


@pytest.mark.parametrize("a,b", [([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]), ([1, 1, 2, 3], [4, 3, 3, 1]),
                                 ([0.69, 0.55, 0.5, 0.33, 0.22], [0.2, 0.9, 0.5, 0.4, 0.1])])
def test_spearman_equals_scipy(a, b):
    assert spearman(a, b) == pytest.approx(sp.spearmanr(a, b).statistic)


def test_spearman_edges():
    assert math.isnan(spearman([1, 1, 1], [1, 2, 3]))
    with pytest.raises(PosencError):
        spearman([1], [1])
    with pytest.raises(PosencError):
        spearman([1, 2], [1, 2, 3])


def test_mean_reciprocal_rank_by_hand():
    scores = {"copy": {"a": 0.9, "b": 0.5, "c": 0.5}, "sort": {"a": 0.1, "b": 0.8, "c": 0.3}}
    # copy: a 1, b and c tie at rank 2; sort: b 1, c 2, a 3
    assert mean_reciprocal_rank(scores) == pytest.approx({"a": (1 + 1 / 3) / 2, "b": (1 / 2 + 1) / 2,
                                                          "c": (1 / 2 + 1 / 2) / 2})


def test_estimate_round_trip_and_validation():
    e = Estimate(0.5, 0.25, 0.75, 10, "bootstrap", SHARE)
    assert Estimate.from_dict(e.as_dict()) == e and e.as_dict()["bounds"] == [0.0, 1.0]
    old = {k: v for k, v in e.as_dict().items() if k != "bounds"}  # stored before estimates knew their range
    assert Estimate.from_dict(old).bounds == (-math.inf, math.inf)
    assert Estimate.from_dict(over_seeds([1.0], log=True).as_dict()).bounds == (0.0, math.inf)
    inf = over_seeds([1.0])
    assert Estimate.from_dict(inf.as_dict()).high == math.inf
    assert exact(3).text() == "3"
    with pytest.raises(PosencError, match="must contain its value"):
        Estimate(2.0, 0.0, 1.0)


def _loop_bootstrap(tables, sizes, resamples, seed, chunk, alpha):
    """Percentile bootstrap of the mean of a words x positions table (or of a 1-D sample), one resample at a
    time, drawing the same unit indices as the vectorised version (same generator, same call order)."""
    rng = np.random.default_rng(seed)
    stats = []
    for start in range(0, resamples, chunk):
        r = min(chunk, resamples - start)
        picks = [rng.integers(0, n, size=(r, n)) for n in sizes]
        for i in range(r):
            stats.append([t[np.ix_(*[p[i] for p in picks])].mean() for t in tables])
    return np.quantile(np.array(stats), [alpha, 1 - alpha], axis=0)


def test_bootstrap_weights_of_means_equal_a_loop_over_resamples():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=9), rng.exponential(size=9)  # two statistics of the same 9 windows
    ours = bootstrap_weights((9,), lambda w: np.stack([w @ x, w @ y], axis=1), resamples=600, chunk=250, seed=4)
    low, high = _loop_bootstrap([x, y], (9,), 600, 4, 250, 0.025)
    assert [e.value for e in ours] == pytest.approx([x.mean(), y.mean()])
    assert [e.low for e in ours] == pytest.approx(list(low)) and [e.high for e in ours] == pytest.approx(list(high))
    assert all(e.n == 9 and e.method == "bootstrap" for e in ours)


def test_two_way_bootstrap_weights_resample_rows_and_columns_apart():
    rng = np.random.default_rng(5)
    table = rng.normal(size=(6, 4)) + np.arange(4)  # words x positions
    (ours,) = bootstrap_weights((6, 4), lambda a, b: np.einsum("ri,ij,rj->r", a, table, b), resamples=500,
                                chunk=200, seed=1)
    low, high = _loop_bootstrap([table], (6, 4), 500, 1, 200, 0.025)
    assert (ours.value, ours.low, ours.high, ours.n) == pytest.approx((table.mean(), low[0], high[0], 4))


def test_bootstrap_weights_agree_with_scipy_on_a_mean():
    x = np.random.default_rng(7).normal(size=40)
    (ours,) = bootstrap_weights((40,), lambda w: w @ x, resamples=4000)
    ref = sp.bootstrap((x,), np.mean, n_resamples=4000, method="percentile", random_state=0).confidence_interval
    width = ref.high - ref.low
    assert ours.low == pytest.approx(ref.low, abs=0.1 * width) and ours.high == pytest.approx(ref.high, abs=0.1 * width)


def test_bootstrap_weights_edges():
    (one,) = bootstrap_weights((1,), lambda w: w @ np.array([2.5]))
    assert (one.value, one.low, one.high, one.n, one.method) == (2.5, -math.inf, math.inf, 1, "bootstrap")
    with pytest.raises(PosencError, match="one range for every statistic"):
        bootstrap_weights((5,), lambda w: np.stack([w @ np.ones(5)] * 3, axis=1), bounds=[SHARE, SHARE])
    with pytest.raises(PosencError, match="at least one unit of every kind"):
        bootstrap_weights((3, 0), lambda a, b: a.sum(1))
    with pytest.raises(PosencError, match="at least one unit"):
        bootstrap_weights((), lambda: np.zeros(1))


def test_edge_estimates_carry_their_count_and_method():
    one = bootstrap([1.5])
    assert (one.n, one.method) == (1, "bootstrap")
    assert (over_seeds([0.5]).n, over_seeds([0.5]).method) == (1, "t")
    assert bootstrap(np.arange(5.0)).n == 5
    assert Estimate(0.123456, 0.1, 0.2345, 4, "t").text() == "0.123 [0.1, 0.234]"  # 3 significant digits
    assert Estimate(0.123456, 0.1, 0.2345, 4, "t").text(2) == "0.12 [0.1, 0.23]"
    assert Estimate(1.0, -math.inf, math.inf).as_dict()["low"] == "-inf"


def test_jsonable_gives_plain_json_for_estimates_arrays_and_non_finite_numbers():
    import json

    import torch

    from posenc.stats import jsonable

    value = {1: np.float64(0.5), "e": exact(2.0), "t": torch.tensor([1.0, float("inf")]), "n": (np.int64(3), None),
             "nan": float("nan"), "flag": True, "other": object}
    out = jsonable(value)
    assert out["1"] == 0.5 and type(out["1"]) is float
    assert out["e"] == exact(2.0).as_dict()
    assert out["t"] == [1.0, "inf"]
    assert out["n"] == [3, None] and type(out["n"][0]) is int
    assert out["nan"] == "nan" and out["flag"] is True
    assert out["other"] == str(object)
    json.dumps(out, allow_nan=False)


# ---- every interval inside what its statistic can take, one test per kind --------------------------------------
def test_an_estimate_outside_its_range_is_refused():
    with pytest.raises(PosencError, match=r"interval must lie in its statistic's range \[0.0, 1.0\]"):
        Estimate(0.947, 0.691, 1.2, 3, "t", SHARE)  # the page once showed 0.947 [0.691, 1.2] for an accuracy
    with pytest.raises(PosencError, match="value must lie in its statistic's range"):
        Estimate(-3.0, -3.0, -3.0, 1, "observed", POSITIVE)
    with pytest.raises(PosencError, match="leave the statistic's range"):
        over_seeds([0.9, 1.2, 1.0], bounds=SHARE)  # an accuracy of 1.2 is a bug upstream
    assert not Estimate(0.5, -math.inf, math.inf, 2, "t", SHARE).has_interval  # no interval: nothing to check


def test_accuracies_over_seeds_stay_in_zero_one():
    """The t-interval is clipped to [0, 1]: where it would cross 1 (three seeds, one of them below the others) its
    upper end is 1 and its lower end the t-interval's own."""
    values = [1.0, 1.0, 0.85]
    low, high = sp.t.interval(0.95, 2, loc=np.mean(values), scale=sp.sem(values))
    assert high > 1  # unclipped, it leaves the range
    e = over_seeds(values, bounds=SHARE)
    assert (e.value, e.low, e.high) == pytest.approx((0.95, low, 1.0)) and e.bounds == SHARE
    rng = np.random.default_rng(0)
    for _ in range(200):  # any few accuracies, any spread
        sample = rng.choice([0.0, 1.0, rng.random()], size=int(rng.integers(3, 7)))
        a = over_seeds(sample, bounds=SHARE)
        assert 0.0 <= a.low <= a.value <= a.high <= 1.0
        d = over_seeds(sample - rng.random(len(sample)), bounds=(-1.0, 1.0))  # differences of accuracies
        assert -1.0 <= d.low <= d.high <= 1.0


def test_accuracies_over_trials_stay_in_zero_one():
    for n in range(1, 31):
        for k in range(n + 1):
            e = wilson(k, n)
            assert 0.0 <= e.low <= e.value <= e.high <= 1.0 and e.bounds == SHARE


def test_step_counts_stay_positive_on_a_log_scale():
    """Steps to a bar from three runs: the arithmetic t-interval goes below 0 steps, the log-scale one cannot; its
    value is the geometric mean and its ends exp of the t-interval of the logs."""
    steps = [100.0, 900.0, 60.0]
    low, _ = sp.t.interval(0.95, 2, loc=np.mean(steps), scale=sp.sem(steps))
    assert low < 0
    e = over_seeds(steps, log=True)
    logs = np.log(steps)
    lo, hi = sp.t.interval(0.95, 2, loc=logs.mean(), scale=sp.sem(logs))
    assert (e.value, e.low, e.high) == pytest.approx((math.exp(logs.mean()), math.exp(lo), math.exp(hi)))
    assert e.low > 0 and e.method == "t-log"
    with pytest.raises(PosencError, match="needs positive values"):
        over_seeds([0.0, 3.0, 4.0], log=True)


def test_bootstrapped_shares_stay_in_zero_one():
    rng = np.random.default_rng(2)
    hits = (rng.random((12, 40)) < 0.97).astype(float)  # windows x queries, nearly all hits
    e = bootstrap(hits, statistic=lambda rows: float(rows.mean()), bounds=SHARE)
    assert 0.0 <= e.low <= e.value <= e.high <= 1.0 and e.bounds == SHARE
    (w,) = bootstrap_weights((12,), lambda a: a @ hits.mean(1), bounds=SHARE)
    assert 0.0 <= w.low <= w.high <= 1.0 and w.bounds == SHARE
    assert observed(1.0, 4, SHARE).bounds == SHARE


# ---- a bootstrap over units that vary never has zero width -------------------------------------------------------
def test_a_bootstrap_that_does_not_reach_what_varies_raises():
    """A statistic that ignores its resample (here: the full sample's answer whatever it is given) has a zero-width
    interval although leaving one unit out moves it: the resampling is broken, and posenc says so."""
    data = np.arange(8.0)
    with pytest.raises(PosencError, match="zero-width interval .* leaving one unit out moves the statistic"):
        bootstrap(data, statistic=lambda x: float(np.mean(x)) if len(x) < 8 else 0.0)

    def whole_counts(w: np.ndarray) -> np.ndarray:  # 1 for resampled weights (multiples of 1/n), else 0
        return (np.abs(w * 8 - np.round(w * 8)) < 1e-9).all(1).astype(float)

    with pytest.raises(PosencError, match="zero-width"):
        bootstrap_weights((8,), whole_counts)


def test_zero_width_only_where_nothing_varies():
    assert bootstrap(np.full(6, 0.25)).half_width < 1e-12  # every unit the same: honestly no spread
    rows = np.column_stack([np.arange(1.0, 41.0), 2 * np.arange(1.0, 41.0)])  # a ratio the same for every unit
    assert bootstrap(rows, statistic=lambda x: float(x[:, 1].mean() / x[:, 0].mean())).half_width == 0
    rng = np.random.default_rng(4)
    for _ in range(20):  # units that differ: never zero width
        data = rng.normal(size=int(rng.integers(3, 30)))
        assert bootstrap(data).half_width > 0
        (w,) = bootstrap_weights((len(data),), lambda a, x=data: a @ x)
        assert w.half_width > 0


def test_the_defaults_are_95_percent_2000_resamples_and_seed_0():
    """Each default written out: what a call without options must equal."""
    data = np.random.default_rng(7).normal(size=40)
    theirs = sp.bootstrap((data,), np.mean, n_resamples=2000, confidence_level=0.95, method="percentile",
                          rng=np.random.default_rng(0)).confidence_interval
    ours = bootstrap(data)
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high), rel=1e-12)
    mean = lambda w: w @ data / 40  # noqa: E731
    (weighted,) = bootstrap_weights((40,), mean)
    assert weighted == bootstrap_weights((40,), mean, resamples=2000, confidence=0.95, seed=0)[0]
    for other in ({"resamples": 1000}, {"seed": 1}, {"confidence": 0.9}):  # each option changes the interval
        assert weighted != bootstrap_weights((40,), mean, **other)[0]


@pytest.mark.parametrize("confidence", [0.5, 0.9, 0.99])
def test_the_confidence_level_reaches_each_interval(confidence):
    k, n = 7, 25
    low, high = sp.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    assert (wilson(k, n, confidence).low, wilson(k, n, confidence).high) == pytest.approx((low, high), abs=1e-12)
    values = [0.91, 0.87, 0.95, 0.9]
    low, high = sp.t.interval(confidence, 3, loc=np.mean(values), scale=sp.sem(values))
    e = over_seeds(values, confidence)
    assert (e.low, e.high) == pytest.approx((low, high))
    data = np.arange(50.0) ** 1.5
    theirs = sp.bootstrap((data,), np.mean, n_resamples=500, confidence_level=confidence, method="percentile",
                          rng=np.random.default_rng(4)).confidence_interval
    e = bootstrap(data, resamples=500, confidence=confidence, seed=4)
    assert (e.low, e.high) == pytest.approx((theirs.low, theirs.high), rel=1e-12)


def test_an_observed_number_keeps_its_count_and_range():
    e = observed(0.75, 4, SHARE)
    assert (e.value, e.low, e.high, e.n, e.method, e.bounds) == (0.75, 0.75, 0.75, 4, "observed", SHARE)


def test_bootstrap_weights_keep_one_range_per_statistic():
    data = np.arange(1.0, 21.0)
    share, positive = bootstrap_weights((20,), lambda w: np.stack([w @ data / 20 / 21, w @ data / 20]),
                                        bounds=[SHARE, POSITIVE])
    assert share.bounds == SHARE and positive.bounds == POSITIVE
    assert 0.0 <= share.low <= share.high <= 1.0


def test_bootstrap_estimates_name_their_method_and_count():
    assert (bootstrap(np.arange(10.0)).method, bootstrap(np.arange(10.0)).n) == ("bootstrap", 10)
    few = bootstrap([1.0, 2.0])
    assert (few.method, few.n, few.has_interval) == ("bootstrap", 2, False)


def test_estimate_edges_of_its_range_and_round_off():
    # a statistic that can take one value only: a range of zero width is a range
    assert Estimate(0.5, 0.5, 0.5, 1, "exact", (0.5, 0.5)).bounds == (0.5, 0.5)
    # round-off is judged on the scale of every number given, the interval's ends included: an upper end 0.5 past a
    # range ending at 1e13 is round-off at that scale (1e-12 * 1e13 = 10), though the value is 1
    e = Estimate(1.0, 0.0, 1e13 + 0.5, 10, "t", (0.0, 1e13))
    assert e.high == 1e13 + 0.5


@pytest.mark.filterwarnings("ignore:The BCa confidence interval cannot be calculated")  # scipy, on the NaN resamples
def test_a_statistic_undefined_on_some_resamples_has_no_interval_but_keeps_its_count():
    # defined on the data (mean 2), undefined (NaN) on a resample that drew one unit three times: 3 of 27 resamples
    # of three units, so about 220 of 2000
    e = bootstrap([1.0, 2.0, 3.0], statistic=lambda x: math.nan if len(set(x)) == 1 else float(np.mean(x)))
    assert (e.value, e.n, e.method, e.has_interval) == (2.0, 3, "bootstrap", False)


@pytest.mark.parametrize("n", [MIN_UNITS - 1, MIN_UNITS, MIN_UNITS + 1])
def test_the_minimum_of_three_units_at_its_boundary_for_every_interval(n):
    """2 units: no interval from any of them; 3 and 4: an interval from each (a bootstrap of two kinds needs 3 of
    each: one kind short of it is enough to give none)."""
    values = [0.2, 0.5, 0.9, 0.4][:n]
    has = n >= 3
    assert over_seeds(values).has_interval is has
    assert over_seeds(values, log=True).has_interval is has
    assert bootstrap(values).has_interval is has
    (weighted,) = bootstrap_weights((n,), lambda w: w @ np.array(values))
    assert weighted.has_interval is has and weighted.n == n
    table = np.arange(4.0 * n).reshape(4, n) ** 1.5
    (short,) = bootstrap_weights((4, n), lambda a, b: np.einsum("ri,ij,rj->r", a, table, b))
    assert short.has_interval is has and short.n == min(4, n)
    (other,) = bootstrap_weights((n, 4), lambda a, b: np.einsum("ri,ij,rj->r", a, table.T, b))
    assert other.has_interval is has and other.n == min(4, n)
