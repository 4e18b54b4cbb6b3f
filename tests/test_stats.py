"""posenc.stats against scipy and against values worked by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sp

from posenc.errors import PosencError
from posenc.stats import (
    Estimate,
    bootstrap,
    bootstrap_weights,
    exact,
    mean_reciprocal_rank,
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


def test_one_seed_has_no_interval():
    e = over_seeds([0.5])
    assert e.value == 0.5 and math.isinf(e.low) and math.isinf(e.high)
    assert "no interval" in e.text()


def test_ratio_over_seeds_pairs_by_seed():
    e = ratio_over_seeds([2.0, 6.0], [1.0, 2.0])  # per seed: 2, 3
    assert e.value == pytest.approx(2.5)
    with pytest.raises(PosencError, match="pairs values by seed"):
        ratio_over_seeds([1.0], [1.0, 2.0])


def test_bootstrap_agrees_with_scipy_percentile_interval():
    rng = np.random.default_rng(3)
    data = rng.normal(1.0, 2.0, size=200)
    ours = bootstrap(data, resamples=4000)
    theirs = sp.bootstrap((data,), np.mean, n_resamples=4000, method="percentile", random_state=1).confidence_interval
    se = 2.0 / math.sqrt(200)
    # two independent Monte Carlo runs of the same interval: endpoints agree to a small fraction of the SE
    assert ours.low == pytest.approx(theirs.low, abs=0.1 * se)
    assert ours.high == pytest.approx(theirs.high, abs=0.1 * se)
    assert ours.value == pytest.approx(float(data.mean()))


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
    e = Estimate(0.5, 0.25, 0.75, 10, "bootstrap")
    assert Estimate.from_dict(e.as_dict()) == e
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
