"""The numbers of seed_training.py's experiments on runs that miss the bar (issue #19, item 3).

test_seed_claims.py recomputes the step ratios and the cosine statistics on synthetic runs in which every run but
NoPE's reaches the bar, and test_seed_training_chance.py the chance baseline. Left to this file: the requirements
``add_reached``, ``sinusoid_reached`` and ``learned_reached`` (shares of runs that reach the bar) and the ratios when
some runs never reach it (such a run counts at its last step), against numpy and scipy by hand.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from posenc.report.experiments import seed_training as sr
from posenc.report.experiments.base import Context

SEEDS = 3
FULL = Context(quick=False)  # three seeds
#: steps to the bar per (task, encoding): one per seed; None never reached it (the run stopped at CAP)
STEPS = {("copy", "learned"): [410, 380, 455], ("copy", "sinusoidal"): [300, None, 330],
         ("copy", "sinusoidal-concat"): [350, 290, 500], ("local", "learned"): [200, 240, None],
         ("local", "sinusoidal"): [260, 310, 250], ("local", "sinusoidal-concat"): [None, 420, 380],
         ("local", "nope"): [None, None, None]}
NOPE_BEST = [0.41, 0.63, 0.52]


def _runs() -> dict:
    out = {}
    for (task, label), steps in STEPS.items():
        for s, reached in enumerate(steps):
            best = NOPE_BEST[s] if label == "nope" else 0.96
            off = 0.005 if task == "local" else 0.0  # a different trace for every learned run
            trace = [[0, 0.2 + 0.01 * s + off, 0.1 + 0.005 * s], [40, 0.1 + 0.02 * s, 0.05 + off]]
            out[(task, label, s)] = {"curve": [[0, 0.1], [20, best - 0.05], [40, best]], "steps_to_bar": reached,
                                     "steps": sr.CAP if reached is None else int(reached) + 1, "cpu_s": 0.0,
                                     "trace": trace if label == "learned" else []}
    return out


def _counted(task: str, label: str) -> list[float]:
    """Steps per seed as the claims count them: a run that never reached the bar at its last step (CAP)."""
    return [float(sr.CAP if s is None else s) for s in STEPS[(task, label)]]


def _geometric_t(a: list[float], b: list[float]) -> tuple[float, float, float]:
    logs = np.log(np.array(a) / np.array(b))
    low, high = sps.t.interval(0.95, len(logs) - 1, loc=logs.mean(), scale=sps.sem(logs))
    return math.exp(logs.mean()), math.exp(low), math.exp(high)


@pytest.fixture
def runs(monkeypatch) -> dict:
    fake = _runs()
    monkeypatch.setattr(sr, "lab_runs", lambda seeds, workers=1: fake)
    return fake


def test_add_vs_concat_with_runs_that_miss_the_bar(runs):
    e = sr.seed_add_vs_concat_training(FULL).estimates
    a = _counted("copy", "sinusoidal-concat") + _counted("local", "sinusoidal-concat")
    b = _counted("copy", "sinusoidal") + _counted("local", "sinusoidal")
    value, low, high = _geometric_t(a, b)
    ratio = e["concat_over_add_steps"]
    assert (ratio.value, ratio.low, ratio.high) == pytest.approx((value, low, high), rel=1e-12)
    assert e["add_reached"].value == pytest.approx(5 / 6)  # copy seed 1 with the added sinusoid never reached it


def test_learned_convergence_with_runs_that_miss_the_bar(runs):
    e = sr.seed_learned_convergence(FULL).estimates
    value, low, high = _geometric_t(_counted("copy", "learned") + _counted("local", "learned"),
                                    _counted("copy", "sinusoidal") + _counted("local", "sinusoidal"))
    ratio = e["learned_over_sinusoid_steps"]
    assert (ratio.value, ratio.low, ratio.high) == pytest.approx((value, low, high), rel=1e-12)
    assert e["sinusoid_reached"].value == pytest.approx(5 / 6)


def test_local_dependency_with_runs_that_miss_the_bar(runs):
    m = sr.seed_local_dependency(FULL)
    value, low, high = _geometric_t(_counted("local", "sinusoidal"), _counted("local", "learned"))
    ratio = m.estimates["sinusoid_over_learned_steps"]
    assert (ratio.value, ratio.low, ratio.high) == pytest.approx((value, low, high), rel=1e-12)
    assert m.estimates["learned_reached"].value == pytest.approx(2 / 3)  # local seed 2 never reached it
    assert m.estimates["nope_best_accuracy"].value == max(NOPE_BEST)
    assert [d["learned"] for d in m.numbers["pairs"]] == _counted("local", "learned")


def test_orthogonality_statistics_per_run(runs):
    m = sr.seed_orthogonality_training(FULL)
    chance = sr.chance_abs_cos(32)
    for option, column in (("raw cosine", 1), ("centred cosine", 2)):
        start = [runs[(t, "learned", s)]["trace"][0][column] for t in ("copy", "local") for s in range(SEEDS)]
        end = [runs[(t, "learned", s)]["trace"][-1][column] for t in ("copy", "local") for s in range(SEEDS)]
        v = m.variants[option]
        assert v["init_over_chance"].value == pytest.approx(math.exp(np.mean(np.log(np.array(start) / chance))),
                                                            rel=1e-12)  # a ratio: geometric mean
        assert v["final_over_init"].value == pytest.approx(math.exp(np.mean(np.log(np.array(end) / start))),
                                                           rel=1e-12)
