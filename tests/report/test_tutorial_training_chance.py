"""The chance baseline of the orthogonality experiment against independent computations.

``orthogonality_training`` divides the mean |cos| between word and position rows by ``chance_abs_cos(d)``, the
mean |cos| of two independent uniformly random directions in ``d`` dimensions. Checked here three ways, none of which
uses the Gamma-function formula:

- exact values by hand for d = 2..5: the cosine of two random directions has density proportional to
  ``(1 - t^2)^((d - 3) / 2)`` on [-1, 1], so ``E|t| = int_0^1 t (1 - t^2)^((d-3)/2) dt / int_0^1 (1 - t^2)^((d-3)/2) dt``:
  d = 2 (t = cos of a uniform angle): 2/pi; d = 3 (t uniform on [-1, 1], Archimedes): 1/2; d = 4: 4 / (3 pi);
  d = 5: (1/4) / (2/3) = 3/8;
- that ratio of integrals by numerical quadrature for larger d;
- a numpy simulation of Gaussian pairs with a fixed seed, with a tolerance of 4 standard errors. At d = 32 the
  large-d approximation ``sqrt(2 / (pi d))`` is 0.78% low (0.14105 against 0.14215): 6.6 standard errors with
  400,000 pairs, so the simulation tells the two apart.
"""

import math

import numpy as np
import pytest
import torch
from scipy import integrate

from posenc.report.experiments import tutorial_training as sr
from posenc.report.experiments.base import Context


def _quadrature(d: int) -> float:
    weight = (d - 3) / 2
    numerator = integrate.quad(lambda t: t * (1 - t * t) ** weight, 0, 1, epsabs=0, epsrel=1e-13, limit=200)[0]
    denominator = integrate.quad(lambda t: (1 - t * t) ** weight, 0, 1, epsabs=0, epsrel=1e-13, limit=200)[0]
    return numerator / denominator


def _simulated(d: int, pairs: int, seed: int) -> tuple[float, float]:
    """Mean and standard error of |cos| between independent Gaussian vectors (uniform directions), in chunks."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(pairs // 100_000):
        u, v = rng.standard_normal((100_000, d)), rng.standard_normal((100_000, d))
        values.append(np.abs((u * v).sum(1)) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1))
    values = np.concatenate(values)
    return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))


@pytest.mark.parametrize("d,exact", [(2, 2 / math.pi), (3, 0.5), (4, 4 / (3 * math.pi)), (5, 3 / 8)])
def test_chance_is_exact_in_small_dimensions(d, exact):
    assert sr.chance_abs_cos(d) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("d", [2, 6, 7, 32, 64, 384])
def test_chance_equals_the_ratio_of_integrals(d):
    assert sr.chance_abs_cos(d) == pytest.approx(_quadrature(d), rel=1e-9)


@pytest.mark.parametrize("d", [8, 32])
def test_chance_equals_a_simulation_within_four_standard_errors(d):
    mean, se = _simulated(d, 400_000, seed=20240 + d)
    assert abs(sr.chance_abs_cos(d) - mean) < 4 * se, (sr.chance_abs_cos(d), mean, se)
    assert abs(math.sqrt(2 / (math.pi * d)) - mean) > 4 * se  # the approximation is told apart at this size


def test_initial_tables_of_the_experiments_size_sit_at_chance():
    """At initialisation the experiment compares 10 word rows N(0, 1) with 12 position rows N(0, 0.02^2) in 32
    dimensions: independent Gaussian rows, whose raw mean |cos| averages to chance. 2,000 independent draws of such
    tables, through the experiment's own embedding_cosines; tolerance 4 standard errors over draws."""
    gen = torch.Generator().manual_seed(7)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # 2,000 tiny products: one thread is 100 times faster on a busy machine
    try:
        draws = np.array([sr.embedding_cosines(torch.randn(10, 32, generator=gen),
                                               0.02 * torch.randn(12, 32, generator=gen))[0] for _ in range(2000)])
    finally:
        torch.set_num_threads(threads)
    se = draws.std(ddof=1) / math.sqrt(len(draws))
    assert abs(draws.mean() - sr.chance_abs_cos(32)) < 4 * se


def _fake_runs(seeds: int, start: float) -> dict:
    trace = [[0, start, start], [40, start / 2, start / 2]]
    return {(task, label, s): {"curve": [[0, 0.1]], "steps_to_bar": None, "steps": 40, "cpu_s": 0.0,
                               "trace": trace if label == "learned" else [],
                               "sparse_share": [0.5, 0.5] if label == "learned" else [],
                               "enrichment": [[1.0, 1.0], [1.0, 1.0]] if label == "learned" else []}
            for s in range(seeds) for task, label in sr.RUNS}


def test_the_experiment_reports_the_independent_chance_of_its_32_dimensional_rows(monkeypatch):
    # the experiment's rows are 32 wide (d_model 32: see test_tutorial_claims.test_one_short_run); a trace that starts
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


def test_learned_rows_are_the_trained_table_of_a_learned_encoding_and_none_otherwise():
    from posenc.lab.train import RunConfig, build_model
    from posenc.report.experiments.tutorial_training import learned_rows

    for encoding, has_table in (("learned", True), ("sinusoidal", False), ("rope", False), ("nope", False)):
        model = build_model(RunConfig(task="copy", encoding=encoding, train_len=4, d_model=16, n_heads=2), 0)
        rows = learned_rows(model, 3)
        if has_table:
            assert rows.shape == (3, 16) and torch.equal(rows, model.input.encoding.weight.detach()[:3])
        else:
            assert rows is None, encoding
