"""The numbers of field.py's experiments (PoPE, FoX, DAPE, iRoPE) on synthetic lab results.

``training.run_lab`` is replaced by made-up per-seed results in the lab's own format; every statistic a claim reads
is computed again here with loops, numpy and scipy (t-intervals: ``scipy.stats.t``), and the verdict rule is checked
on hand-made estimates at the edges of its threshold.
"""

from __future__ import annotations

import math
import types

import numpy as np
import pytest
from scipy import stats as sps

from posenc.lab.grid import Sweep
from posenc.lab.train import RunConfig
from posenc.report.experiments import field as fd
from posenc.report.experiments import training as tr
from posenc.report.experiments.base import Context
from posenc.report.ledger import get_claim
from posenc.report.verdict import judge
from posenc.stats import Estimate

FULL = Context(quick=False, extended=True)
SEEDS = 3
L = 64
#: label -> perplexity at L, 2L, 4L, 8L (seed 0; seed s multiplies length index i by 1 + 0.03 s i, and PoPE's seed 1
#: is worse at 8L, so per-seed pairing matters)
PPL = {"rope": (4.9, 6.0, 9.0, 14.0), "kerple": (5.0, 5.3, 6.0, 7.0), "pope": (4.95, 5.5, 7.0, 9.0),
       "fox": (4.9, 5.1, 5.2, 5.4), "dape": (4.9, 5.2, 5.6, 6.5), "nope": (5.3, 8.0, 15.0, 30.0),
       fd.HYBRID: (4.95, 5.8, 8.0, 11.0)}


def _ppl(label: str, i: int, seed: int) -> float:
    p = PPL[label][i] * (1 + 0.03 * seed * i)
    return p * (1.4 if (label, i, seed) == ("pope", 3, 1) else 1.0)


def _label(variant: dict) -> str:
    return RunConfig.from_dict({"task": "charlm", **variant}).label  # the label the lab gives the run


def _results(sweep: dict, ctx: Context) -> list:
    grid = sweep["grid"]
    variants = grid.get("variant") or [{"encoding": e} for e in grid["encoding"]]
    out = []
    for variant in variants:
        for s in range(SEEDS):
            by_length = {str(L * 2 ** i): {"ppl": _ppl(_label(variant), i, s)} for i in range(4)}
            out.append(types.SimpleNamespace(seed=s, config={"label": _label(variant)},
                                             metrics={"by_length": {"nonoverlap": by_length}}))
    return out[::-1]


@pytest.fixture(autouse=True)
def fake_lab(monkeypatch):
    monkeypatch.setattr(tr, "run_lab", _results)


def _t(values) -> tuple[float, float, float]:
    v = np.asarray(values, dtype=float)
    half = sps.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))
    return float(v.mean()), float(v.mean() - half), float(v.mean() + half)


def _close(estimate: Estimate, expected: tuple[float, float, float]) -> bool:
    return np.allclose([estimate.value, estimate.low, estimate.high], expected, rtol=1e-9, atol=1e-12)


def test_pope_fox_dape_margins_by_hand():
    m = fd.lab_field_lm(FULL)
    assert set(m.variants) == {"2L", "4L", "8L"} and m.estimates == m.variants["8L"]
    for k, option in enumerate(("2L", "4L", "8L"), start=1):
        for enc, base in (("pope", "rope"), ("fox", "rope"), ("dape", "kerple")):
            per_seed = [math.log(_ppl(enc, k, s)) - math.log(_ppl(base, k, s)) for s in range(SEEDS)]
            assert _close(m.variants[option][f"{enc}_minus_{base}"], _t(per_seed)), (option, enc)
    assert set(m.numbers["ppl"]) == {"rope", "kerple", "pope", "fox", "dape"}


def test_irope_margin_by_hand():
    m = fd.lab_irope(FULL)
    for k, option in enumerate(("2L", "4L", "8L"), start=1):
        per_seed = [math.log(_ppl(fd.HYBRID, k, s)) - min(math.log(_ppl("rope", k, s)), math.log(_ppl("nope", k, s)))
                    for s in range(SEEDS)]
        assert _close(m.variants[option]["hybrid_minus_best"], _t(per_seed)), option
    assert set(m.numbers["ppl"]) == {"rope", "nope", fd.HYBRID}


def test_the_sweeps_differ_from_the_char_lm_sweep_only_where_they_must():
    for quick in (True, False):
        lm = tr.lm_sweep(quick, 3)
        field, irope = fd.field_lm_sweep(quick, 3), fd.irope_sweep(quick, 3)
        assert field["base"] == lm["base"] and field["seeds"] == lm["seeds"]
        assert irope["base"] == {**lm["base"], "n_layers": 4} and irope["seeds"] == lm["seeds"]
    assert fd.field_lm_sweep(False, 3)["grid"] == {"encoding": ["rope", "kerple", "pope", "fox", "dape"]}
    # RoPE's and KERPLE's runs are keyed like the char-LM and research sweeps' own: the store shares them
    base = tr.lm_sweep(False, 3)["base"]
    field_runs = {config.label: config for config, _ in Sweep.from_dict(fd.field_lm_sweep(False, 3)).runs()}
    assert field_runs["kerple"].as_dict() == RunConfig.from_dict({**base, "encoding": "kerple"}).as_dict()
    hybrid = RunConfig.from_dict({**fd.irope_sweep(False, 3)["base"], "encoding": "rope", "schedule": fd.IROPE})
    assert hybrid.label == fd.HYBRID and hybrid.model.n_layers == 4


def _e(value, low, high) -> Estimate:
    return Estimate(value, low, high, 3, "t")


@pytest.mark.parametrize("interval, status", [((-0.2, -0.3, -0.01), "supported"), ((0.1, 0.01, 0.2), "refuted"),
                                              ((-0.05, -0.1, 0.02), "inconclusive")])
def test_verdicts_at_the_edges(interval, status):
    for claim_id, stat in (("pope-extrapolates", "pope_minus_rope"), ("fox-extrapolates", "fox_minus_rope"),
                           ("dape-extrapolates", "dape_minus_kerple"), ("nope-layer-pattern", "hybrid_minus_best")):
        assert judge(get_claim(claim_id), {stat: _e(*interval)}).status == status


def test_every_interval_on_the_page_stays_inside_its_statistics_range(monkeypatch):
    """Perplexities near 1 that vary a lot between seeds: a t-interval on the raw scale reaches below 1 (seed values
    1.01, 1.02, 4.0: mean 2.01, half-width 4.30 * 1.72 / sqrt 3 = 4.28), where no perplexity lies; every row's
    interval must stay in its statistic's range."""
    def spread(label: str, i: int, seed: int) -> float:
        return (1.01, 1.02, 4.0)[seed] * (1 + 0.1 * i) + 0.01 * len(label)

    monkeypatch.setitem(globals(), "_ppl", spread)  # the made-up lab reads _ppl
    from posenc.report.present import shown

    for name, experiment in (("lab_field_lm", fd.lab_field_lm), ("lab_irope", fd.lab_irope)):
        m = shown(name, experiment(FULL), FULL)
        for row in m.rows:
            e = row.measured
            assert isinstance(e, Estimate) and e.has_interval, row.quantity
            lo, hi = e.bounds
            assert lo <= e.low <= e.value <= e.high <= hi, (row.quantity, e)
            if not row.quantity.startswith("hybrid:") and "log perplexity" not in row.quantity:
                assert e.bounds == (1.0, math.inf) and e.low >= 1.0, (row.quantity, e)
