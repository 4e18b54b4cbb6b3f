"""The chance baseline of the orthogonality experiment: a trace that starts at the independent chance value (by
quadrature, not the Gamma-function formula) reads "init / chance = 1". The chance level itself is checked exactly,
by quadrature and by simulation in tests/lab/test_embeddings.py."""

import pytest
from scipy import integrate

from posenc.report.experiments import tutorial_training as sr
from posenc.report.experiments.base import Context


def _quadrature(d: int) -> float:
    weight = (d - 3) / 2
    numerator = integrate.quad(lambda t: t * (1 - t * t) ** weight, 0, 1, epsabs=0, epsrel=1e-13, limit=200)[0]
    denominator = integrate.quad(lambda t: (1 - t * t) ** weight, 0, 1, epsabs=0, epsrel=1e-13, limit=200)[0]
    return numerator / denominator


def _fake_runs(seeds: int, start: float) -> dict:
    trace = [[0, start, start], [40, start / 2, start / 2]]
    return {(task, label, s): {"curve": [[0, 0.1]], "steps_to_bar": None, "steps": 40, "cpu_s": 0.0,
                               "trace": trace if label == "learned" else [],
                               "sparse_share": [0.5, 0.5] if label == "learned" else [],
                               "enrichment": [[1.0, 1.0], [1.0, 1.0]] if label == "learned" else []}
            for s in range(seeds) for task, label in sr.RUNS}


def test_the_experiment_reports_the_independent_chance_of_its_32_dimensional_rows(monkeypatch):
    # the experiment's rows are 32 wide (d_model 32: see tests/lab/test_traced.py::test_one_short_run); a trace that starts
    # at exactly the independent chance value must read "init / chance = 1"
    independent = _quadrature(32)
    monkeypatch.setattr(sr, "lab_runs", lambda seeds, workers=1: _fake_runs(seeds, independent))
    from posenc.report.present import shown

    ctx = Context(quick=True)
    measurement = shown("orthogonality_training", sr.orthogonality_training(ctx), ctx)
    assert measurement.numbers["chance"] == pytest.approx(independent, rel=1e-9)
    chance_row = next(r for r in measurement.rows if r.quantity.startswith("chance"))
    assert chance_row.measured == pytest.approx(independent, rel=1e-9)
    for option in sr.MEASURES:
        assert measurement.numbers["by_measure"][option]["init_over_chance"]["value"] == pytest.approx(1.0, rel=1e-9)


