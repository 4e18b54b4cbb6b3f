"""The numbers of research.py's experiments (FIRE, KERPLE, p-RoPE, CoPE) on synthetic lab results.

``training.run_lab`` is replaced by made-up per-seed results in the lab's own format; every statistic a claim reads
is computed again here with loops, numpy and scipy (t-intervals: ``scipy.stats.t``), and the verdict rule is checked
on hand-made estimates at the edges of its thresholds.
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest
from scipy import stats as sps

from posenc.report.experiments import research as rs
from posenc.report.experiments import training as tr
from posenc.report.experiments.base import Context
from posenc.report.ledger import get_claim
from posenc.report.verdict import judge
from posenc.stats import Estimate, exact

FULL = Context(quick=False, extended=True)
SEEDS = 3
L = 64
#: encoding -> perplexity at L, 2L, 4L, 8L (seed 0; seed s multiplies length index i by 1 + 0.02 s i, and FIRE's
#: seed 2 is worse at 8L than seed 0 and 1, so per-seed pairing matters)
PPL = {"rope": (4.9, 6.0, 9.0, 14.0), "alibi": (5.1, 5.2, 5.3, 5.35), "sinusoidal": (5.0, 9.0, 20.0, 45.0),
       "t5": (5.0, 5.8, 7.5, 10.0), "nope": (5.3, 8.0, 15.0, 30.0), "fire": (4.95, 5.0, 5.1, 5.2),
       "kerple": (5.0, 5.3, 6.0, 7.0), "p_rope": (4.92, 6.1, 9.5, 15.0)}
#: (task, encoding) -> (token accuracy at sizes <= L, past L)
COUNTING = {("selective_copy", "cope"): (0.99, 0.90), ("selective_copy", "rope"): (0.98, 0.40),
            ("selective_copy", "learned"): (0.99, 0.0), ("count", "cope"): (0.97, 0.85),
            ("count", "rope"): (0.99, 0.70), ("count", "learned"): (0.96, 0.10)}
TASK_L, SIZES = 8, (4, 8, 16)


def _ppl(encoding: str, i: int, seed: int) -> float:
    p = PPL[encoding][i] * (1 + 0.02 * seed * i)
    return p * (1.3 if (encoding, i, seed) == ("fire", 3, 2) else 1.0)


def _results(sweep: dict, ctx: Context) -> list:
    out = []
    if sweep["name"].startswith(("report-charlm", "report-research-lm", "report-prope")):
        for encoding in sweep["grid"]["encoding"]:
            for s in range(SEEDS):
                by_length = {str(L * 2 ** i): {"ppl": _ppl(encoding, i, s)} for i in range(4)}
                out.append(types.SimpleNamespace(seed=s, config={"label": encoding},
                                                 metrics={"by_length": {"nonoverlap": by_length}}))
        return out[::-1]
    assert sweep["name"].startswith("report-counting")
    for task in rs.COUNTING_TASKS:
        for encoding in rs.COUNTING_ENCODINGS:
            for s in range(SEEDS):
                inside, past = COUNTING[(task, encoding)]
                by_length = {str(n): {"token_accuracy": min(1.0, (inside if n <= TASK_L else past) + 0.01 * s * (n % 3)),
                                      "exact_match": 0.5} for n in SIZES}
                out.append(types.SimpleNamespace(seed=s, config={"task": task, "label": encoding,
                                                                 "train_len": TASK_L},
                                                 metrics={"by_length": by_length}))
    return out[::-1]


@pytest.fixture(autouse=True)
def fake_lab(monkeypatch):
    monkeypatch.setattr(tr, "run_lab", _results)


def _t(values, low: float = -math.inf, high: float = math.inf) -> tuple[float, float, float]:
    """Mean and 95% t-interval, clipped to what the statistic can take (``[low, high]``)."""
    v = np.asarray(values, dtype=float)
    half = sps.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return float(v.mean()), max(low, float(v.mean() - half)), min(high, float(v.mean() + half))


def _close(estimate: Estimate, expected: tuple[float, float, float]) -> bool:
    return np.allclose([estimate.value, estimate.low, estimate.high], expected, rtol=1e-9, atol=1e-12)


def test_fire_and_kerple_margins_against_rope_and_alibi_by_hand():
    m = rs.lab_fire_kerple(FULL)
    assert set(m.variants) == {"2L", "4L", "8L"} and m.estimates == m.variants["8L"]
    for k, option in enumerate(("2L", "4L", "8L"), start=1):
        for enc in ("fire", "kerple"):
            per_seed = [math.log(_ppl(enc, k, s)) - min(math.log(_ppl("rope", k, s)), math.log(_ppl("alibi", k, s)))
                        for s in range(SEEDS)]
            assert _close(m.variants[option][f"{enc}_minus_best"], _t(per_seed)), (option, enc)
    # only the two baselines and the two research encodings are read: t5, nope and the sinusoid are not compared
    assert set(m.numbers["ppl"]) == {"rope", "alibi", "fire", "kerple"}


def test_prope_difference_at_the_trained_length_by_hand():
    m = rs.lab_prope(FULL)
    per_seed = [math.log(_ppl("p_rope", 0, s)) - math.log(_ppl("rope", 0, s)) for s in range(SEEDS)]
    assert _close(m.estimates["prope_minus_rope"], _t(per_seed))
    assert set(m.numbers["ppl"]) == {"rope", "p_rope"}


def test_cope_counting_margins_by_hand():
    m = rs.lab_cope_counting(FULL)

    def acc(task, enc, s, past):
        sizes = [n for n in SIZES if (n > TASK_L) == past]
        inside, out = COUNTING[(task, enc)]
        return float(np.mean([min(1.0, (out if past else inside) + 0.01 * s * (n % 3)) for n in sizes]))

    for task in rs.COUNTING_TASKS:
        per_seed = [acc(task, "cope", s, True) - max(acc(task, "rope", s, True), acc(task, "learned", s, True))
                    for s in range(SEEDS)]
        assert _close(m.estimates[f"{task}_margin"], _t(per_seed, -1.0, 1.0)), task  # accuracy differences
    inside = {t: _t([acc(t, "cope", s, False) for s in range(SEEDS)], 0.0, 1.0) for t in rs.COUNTING_TASKS}
    past = {t: _t([acc(t, "cope", s, True) for s in range(SEEDS)], 0.0, 1.0) for t in rs.COUNTING_TASKS}
    assert inside["count"][2] == 1.0 and m.estimates["cope_in_distribution"].high == 1.0  # clipped: an accuracy
    assert _close(m.estimates["cope_in_distribution"], min(inside.values()))  # count: 0.97 < 0.99
    assert _close(m.estimates["cope_past_L"], min(past.values()))  # count: 0.85 < 0.90


def test_the_research_sweeps_differ_from_the_report_sweeps_only_in_their_encodings():
    for quick in (True, False):
        lm, research = tr.lm_sweep(quick, 3), rs.research_lm_sweep(quick, 3)
        assert research["base"] == lm["base"] and research["seeds"] == lm["seeds"]
        assert rs.prope_sweep(quick, 3)["base"] == lm["base"]
        tasks, counting = tr.task_sweep(quick, 3), rs.counting_sweep(quick, 3)
        assert counting["base"] == tasks["base"] and counting["seeds"] == tasks["seeds"]
    assert rs.research_lm_sweep(False, 3)["grid"] == {"encoding": ["fire", "kerple"]}


def _e(value, low, high) -> Estimate:
    return Estimate(value, low, high, 3, "t")


@pytest.mark.parametrize("interval, status", [((-0.2, -0.3, -0.01), "supported"), ((0.1, 0.01, 0.2), "refuted"),
                                              ((-0.05, -0.1, 0.02), "inconclusive")])
def test_fire_and_kerple_verdicts_at_the_edges(interval, status):
    for claim_id, stat in (("fire-extrapolates", "fire_minus_best"), ("kerple-extrapolates", "kerple_minus_best")):
        assert judge(get_claim(claim_id), {stat: _e(*interval)}).status == status


@pytest.mark.parametrize("interval, status", [((0.0, -0.01, 0.019), "supported"), ((0.05, 0.021, 0.08), "refuted"),
                                              ((0.01, -0.01, 0.03), "inconclusive")])
def test_prope_non_inferiority_at_log_1_02(interval, status):
    assert get_claim("p-rope-in-distribution").tests[0].threshold == pytest.approx(0.019802627)  # log 1.02
    assert judge(get_claim("p-rope-in-distribution"), {"prope_minus_rope": _e(*interval)}).status == status


def test_cope_verdicts():
    claim = get_claim("cope-counts")
    good = {"cope_in_distribution": _e(0.99, 0.97, 1.0), "cope_past_L": _e(0.98, 0.96, 0.99),
            "selective_copy_margin": _e(0.5, 0.4, 0.6), "count_margin": _e(0.2, 0.1, 0.3),
            "tasks_with_room": exact(2.0)}
    assert judge(claim, good).status == "supported"
    # the ceiling rule: a baseline at the ceiling on one task leaves nothing to beat there
    assert judge(claim, {**good, "tasks_with_room": exact(1.0)}).status == "not testable"
    assert judge(claim, {**good, "cope_in_distribution": _e(0.9, 0.85, 0.93)}).status == "inconclusive"
    assert judge(claim, {**good, "count_margin": _e(-0.2, -0.3, -0.1)}).status == "qualified"
    both_lose = {**good, "count_margin": _e(-0.2, -0.3, -0.1), "selective_copy_margin": _e(-0.1, -0.2, -0.05)}
    assert judge(claim, both_lose).status == "refuted"
    assert judge(claim, {**good, "cope_past_L": _e(0.6, 0.5, 0.7)}).status == "qualified"
