"""The numbers of tutorial_tables.py's experiments that test_tutorial_claims.py does not yet recompute (issue #19, item 3).

test_tutorial_claims.py checks the integer read-out, the parameter counts, the nearest distances, the dimensions needed,
the offset rule's composition and recognition, the worked example, the measured periods, the position-pair
statistics and the model readings against independent computations. Left to this file:

- ``sinusoid_offset_rule``'s baseline ``max_random_share`` (the claim's requirement): the random table's best full
  linear maps by ``np.linalg.lstsq`` and the share of queries whose best key is k back, by numpy (the binary
  baseline is shown on the page but read by no test: its rank-8 table gives tied scores, whose argmax depends on
  round-off, so it is not compared here);
- ``dims_figure``'s three statistics (the claim reads them, not the periods): from the formula's periods
  ``2 pi 10000^(2i/d)``, by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from posenc.report.experiments import tutorial_tables as st
from posenc.report.experiments.base import Context

QUICK = Context(quick=True)


pytestmark = pytest.mark.usefixtures("one_thread")


def _share_k_back(table: np.ndarray, k: int) -> float:
    """Share of queries i = k..T-1 whose highest score PE[i] . (PE[j] M_k) over keys j = 0..T-k-1 is j = i - k,
    with M_k the best full least-squares map PE[p] -> PE[p + k]."""
    m = np.linalg.lstsq(table[:-k], table[k:], rcond=None)[0]
    scores = table[k:] @ (table[:-k] @ m).T  # [queries, keys]
    return float(np.mean(scores.argmax(axis=1) == np.arange(len(table) - k)))


def test_offset_rule_baselines_against_numpy():
    n = st.sinusoid_offset_rule(QUICK).numbers
    random_table = torch.randn(256, 64, generator=torch.Generator().manual_seed(0), dtype=torch.float64).numpy()
    random_shares = [_share_k_back(random_table, k) for k in st.RULE_OFFSETS]
    assert n["shares"]["random table"] == pytest.approx(random_shares, abs=1e-12)
    assert n["max_random_share"] == max(random_shares)
    assert 0 < max(random_shares) < 0.9  # 0.891: below the test's bar 0.99 (the requirement's since revision 2)
    # the null: 5 random tables (seeds 0..4) through the same worst-offset share the sinusoid's test reads
    worst = []
    for seed in range(st.NULL_TABLES):
        table = torch.randn(256, 64, generator=torch.Generator().manual_seed(seed), dtype=torch.float64).numpy()
        worst.append(min(_share_k_back(table, k) for k in st.RULE_OFFSETS))
    assert n["null_worst_shares"] == pytest.approx(worst, abs=1e-12)
    assert worst[0] == min(random_shares)
    null = st.sinusoid_offset_rule(QUICK).estimates["null_recognition_share"]
    assert null.value == pytest.approx(np.mean(worst)) and null.n == 5
    assert null.high < 0.99  # the bar separates the null from the sinusoid's 1.0


@pytest.mark.parametrize("option", st.FIGURE_WIDTHS)
def test_dims_figure_statistics_from_the_formula_periods(option):
    dim = int(option[2:])
    _, measured, formula, stats = st._period_estimates(dim)
    periods = [2 * math.pi * 10000.0 ** (2 * (j // 2) / dim) for j in (2, 6, 12)]  # dims 2, 6, 12: pairs 1, 3, 6
    assert formula == pytest.approx(periods, rel=1e-12)
    assert stats["min_periods_in_window"] == pytest.approx(128 / periods[2], rel=1e-6)  # the longest period
    assert stats["min_period_ratio"] == pytest.approx(min(periods[1] / periods[0], periods[2] / periods[1]),
                                                      rel=1e-6)
    assert stats["max_period_error"] < 1e-6
    assert stats["max_period_error"] == pytest.approx(
        max(abs(m - f) / f for m, f in zip(measured, periods, strict=True)), rel=1e-6, abs=1e-15)


def test_dims_figure_headline_is_the_first_width():
    m = st.dims_figure(QUICK)
    assert st.FIGURE_WIDTHS[0] == "d=64"
    for key, estimate in m.estimates.items():
        assert estimate.value == m.variants["d=64"][key].value == m.numbers["by_width"]["d=64"][key]
