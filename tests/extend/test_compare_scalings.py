"""Comparing scalings on an extension run's results (:mod:`posenc.extend.compare_scalings`) against independent
computations: per-window losses from a tiny random Llama (no download) through posenc's :func:`token_nll`; the
intervals against scipy (paired t: ``ttest_rel``; bootstrap: ``scipy.stats.bootstrap``; Wilson: ``binomtest``), the
point values against numpy by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from extend_models import NATIVE, tiny_llama
from scipy import stats as sps

from posenc.extend.compare_scalings import paired_ppl_ratio, passkey_counts, window_ppl
from posenc.stats import wilson


@pytest.fixture(scope="module")
def window_losses() -> dict[str, np.ndarray]:
    """Mean token loss of 6 windows of 2x the native length, without and with a linear scaling (s = 2)."""
    from posenc.extend import patch_model, scaled_rope, token_nll

    ids = torch.randint(0, 128, (6, 2 * NATIVE), generator=torch.Generator().manual_seed(3))
    out = {}
    for scaling in ("none", "linear"):
        model = tiny_llama()
        patch_model(model, scaled_rope(model.config, scaling, 2.0, native_len=NATIVE))
        out[scaling] = np.array([float(token_nll(model, w).double().mean()) for w in ids])
    return out


def test_window_perplexity_and_its_bootstrap_interval(window_losses):
    nll = window_losses["none"]
    est = window_ppl(nll)
    # the point: exp of the mean loss (every window scores the same number of tokens)
    assert est.value == pytest.approx(math.exp(nll.mean()), rel=1e-12) and est.n == 6
    # the interval: scipy's percentile bootstrap of the same statistic (its own resampling; 20000 draws)
    ref = sps.bootstrap((nll,), lambda x, axis: np.exp(np.mean(x, axis=axis)), n_resamples=20000,
                        method="percentile", random_state=1).confidence_interval
    width = ref.high - ref.low
    assert abs(est.low - ref.low) < 0.1 * width and abs(est.high - ref.high) < 0.1 * width


def test_paired_ratio_is_a_paired_t_interval_on_log_perplexity(window_losses):
    a, b = window_losses["linear"], window_losses["none"]
    est = paired_ppl_ratio(a, b)
    assert est.value == pytest.approx(math.exp(np.mean(a - b)), rel=1e-12)
    ci = sps.ttest_rel(a, b).confidence_interval(0.95)
    assert est.low == pytest.approx(math.exp(ci.low), rel=1e-9)
    assert est.high == pytest.approx(math.exp(ci.high), rel=1e-9)
    # paired by window: windows of very different difficulty (the same offset in both) change nothing
    hard = np.linspace(0, 3, b.size)
    paired = paired_ppl_ratio(a + hard, b + hard)
    assert (paired.low, paired.high) == pytest.approx((est.low, est.high), rel=1e-9)


@pytest.mark.parametrize("windows, interval", [(2, False), (3, True)])
def test_window_intervals_rest_on_three_windows(windows, interval):
    nll = [2.0, 2.5, 3.1][:windows]
    for est in (window_ppl(nll), paired_ppl_ratio(nll, [1.9, 2.1, 2.2][:windows])):
        assert est.has_interval is interval and est.n == windows, est
    # two windows: the point alone, exp(mean loss) = exp(2.25) and exp(mean(0.1, 0.4)) = exp(0.25)
    assert window_ppl(nll).value == pytest.approx(math.exp(sum(nll) / windows))


def test_window_intervals_stay_in_their_range_and_have_width_where_windows_vary():
    # losses near 0 (perplexity near its floor 1) that vary: the interval stays at or above 1 and is not a point
    nll = np.array([0.0, 0.001, 0.3, 0.002, 0.0])
    ppl = window_ppl(nll)
    assert ppl.bounds == (1.0, math.inf) and 1.0 <= ppl.low < ppl.value < ppl.high
    # a ratio paired by window, on the log scale: above 0 however far the windows spread
    ratio = paired_ppl_ratio(nll, nll + np.array([5.0, -4.0, 3.0, -6.0, 0.5]))
    assert ratio.bounds == (0.0, math.inf) and 0.0 < ratio.low < ratio.value < ratio.high
    # windows that do not vary: zero width is honest there (exp(2) exactly, every resample alike)
    flat = window_ppl([2.0, 2.0, 2.0, 2.0])
    assert (flat.low, flat.value, flat.high) == pytest.approx((math.exp(2),) * 3)


@pytest.mark.parametrize("k", [0, 7, 20])
def test_passkey_counts_give_the_wilson_interval(k):
    trials = [{"depth": 1.0, "correct": i < k} for i in range(20)]
    table = {"yarn": {"12288": {"trials": trials}}}
    ((key, (correct, n)),) = passkey_counts(table).items()
    assert key == ("yarn", 12288, 1.0) and (correct, n) == (k, 20)
    ci = sps.binomtest(k, 20).proportion_ci(confidence_level=0.95, method="wilson")
    est = wilson(correct, n)
    assert est.low == pytest.approx(ci.low, abs=1e-9) and est.high == pytest.approx(ci.high, abs=1e-9)
