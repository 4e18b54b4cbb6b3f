"""Statistics of word and position rows (:mod:`posenc.lab.embeddings`): cosines and their chance level (exactly, by
quadrature and by simulation), where position's variance lies against meaning's, and the division's permutation null.

``chance_abs_cos(d)``, the mean |cos| of two independent uniformly random directions in ``d`` dimensions, is checked
three ways, none of which uses the Gamma-function formula:

- exact values by hand for d = 2..5: the cosine of two random directions has density proportional to
  ``(1 - t^2)^((d - 3) / 2)`` on [-1, 1], so ``E|t| = int_0^1 t (1 - t^2)^((d-3)/2) dt / int_0^1 (1 - t^2)^((d-3)/2) dt``:
  d = 2 (t = cos of a uniform angle): 2/pi; d = 3 (t uniform on [-1, 1], Archimedes): 1/2; d = 4: 4 / (3 pi);
  d = 5: (1/4) / (2/3) = 3/8;
- that ratio of integrals by numerical quadrature for larger d;
- a numpy simulation of Gaussian pairs with a fixed seed, with a tolerance of 4 standard errors. At d = 32 the
  large-d approximation ``sqrt(2 / (pi d))`` is 0.78% low (0.14105 against 0.14215): 6.6 standard errors with
  400,000 pairs, so the simulation tells the two apart.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from scipy import integrate

from posenc.lab.embeddings import (
    PERMUTATIONS,
    chance_abs_cos,
    embedding_cosines,
    permuted_division,
    quarter_shares,
    sparse_dims_share,
)


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
    assert chance_abs_cos(d) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize("d", [2, 6, 7, 32, 64, 384])
def test_chance_equals_the_ratio_of_integrals(d):
    assert chance_abs_cos(d) == pytest.approx(_quadrature(d), rel=1e-9)


@pytest.mark.parametrize("d", [8, 32])
def test_chance_equals_a_simulation_within_four_standard_errors(d):
    mean, se = _simulated(d, 400_000, seed=20240 + d)
    assert abs(chance_abs_cos(d) - mean) < 4 * se, (chance_abs_cos(d), mean, se)
    assert abs(math.sqrt(2 / (math.pi * d)) - mean) > 4 * se  # the approximation is told apart at this size


def test_initial_tables_of_the_experiments_size_sit_at_chance():
    """At initialisation the experiment compares 10 word rows N(0, 1) with 12 position rows N(0, 0.02^2) in 32
    dimensions: independent Gaussian rows, whose raw mean |cos| averages to chance. 2,000 independent draws of such
    tables, through the experiment's own embedding_cosines; tolerance 4 standard errors over draws."""
    gen = torch.Generator().manual_seed(7)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # 2,000 tiny products: one thread is 100 times faster on a busy machine
    try:
        draws = np.array([embedding_cosines(torch.randn(10, 32, generator=gen),
                                               0.02 * torch.randn(12, 32, generator=gen))[0] for _ in range(2000)])
    finally:
        torch.set_num_threads(threads)
    se = draws.std(ddof=1) / math.sqrt(len(draws))
    assert abs(draws.mean() - chance_abs_cos(32)) < 4 * se


def test_cosines_and_chance():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 8)), rng.normal(size=(7, 8)) + 3.0
    raw, centred = embedding_cosines(torch.from_numpy(a), torch.from_numpy(b))
    cos = (a / np.linalg.norm(a, axis=1, keepdims=True)) @ (b / np.linalg.norm(b, axis=1, keepdims=True)).T
    ac, bc = a - a.mean(0), b - b.mean(0)
    cc = (ac / np.linalg.norm(ac, axis=1, keepdims=True)) @ (bc / np.linalg.norm(bc, axis=1, keepdims=True)).T
    assert raw == pytest.approx(np.abs(cos).mean()) and centred == pytest.approx(np.abs(cc).mean())
    u = rng.normal(size=(200_000, 32))
    v = rng.normal(size=(200_000, 32))
    sample = np.abs((u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)).mean()
    assert chance_abs_cos(32) == pytest.approx(sample, rel=0.01)


def test_sparse_dims_share_and_quarters_by_hand():
    rng = np.random.default_rng(2)
    words = rng.normal(size=(10, 8)) * np.array([3, 3, 3, 3, 0.1, 0.1, 0.1, 0.1])  # meaning dense in dims 0-3
    positions = rng.normal(size=(12, 8))
    w_var, p_var = words.var(0), positions.var(0)
    sparse = np.argsort(w_var, kind="stable")[:4]
    got = sparse_dims_share(torch.from_numpy(words), torch.from_numpy(positions))
    assert got == pytest.approx(p_var[sparse].sum() / p_var.sum()) and set(sparse) == {4, 5, 6, 7}
    low, high = quarter_shares(torch.from_numpy(words))
    assert (low, high) == pytest.approx((w_var[:2].sum() / w_var.sum(), w_var[-2:].sum() / w_var.sum()))


def test_tied_word_variances_take_the_lower_dimensions_first():
    """sparse_dims_share where the word rows' variances tie: the dimensions of equal variance are taken in index order,
    so the share does not depend on how a sort orders equal keys."""
    d = 32
    words = torch.ones(5, d)  # every word row the same: every dimension's variance 0, all tied
    steps = torch.arange(6, dtype=torch.float64)[:, None]  # 6 positions, variance 35/12 wherever they vary
    low = torch.cat([steps.expand(6, d // 2), torch.zeros(6, d // 2, dtype=torch.float64)], dim=1)
    high = low.flip(1)
    # ties in index order: the "sparse" half is dims 0..15, which hold all of `low`'s variance and none of `high`'s
    assert sparse_dims_share(words, low) == 1.0
    assert sparse_dims_share(words, high) == 0.0
    # half the varying dims on each side of 16: 8 * 35/12 of 16 * 35/12
    mixed = torch.cat([low[:, 8:24], low[:, :8], low[:, 24:]], dim=1)
    assert torch.count_nonzero(mixed.var(0)[:16]) == 8
    assert sparse_dims_share(words, mixed) == 0.5


def test_the_permutation_null_of_equal_shares_is_exactly_zero():
    e = permuted_division([0.3] * 16)
    assert (e.value, e.low, e.high, e.n) == (pytest.approx(0.0), pytest.approx(0.0), pytest.approx(0.0),
                                             PERMUTATIONS)


def test_the_permutation_null_by_hand():
    """8 dimensions, shares 1 on two of them and 0 on six; the lowest quarter (2 dims) minus the highest (2 dims) is
    (L - H) / 2 with L, H the ones in each: of the 28 placements of the two ones, 1 gives +1, 8 give +0.5, 10 give 0,
    8 give -0.5, 1 gives -1. Mean 0; P(+1) = 1/28 > 2.5%, so the central 95% runs from -1 to 1."""
    e = permuted_division([1.0, 1.0] + [0.0] * 6, permutations=20_000, seed=3)
    assert e.value == pytest.approx(0.0, abs=0.01)
    assert (e.low, e.high) == (pytest.approx(-1.0), pytest.approx(1.0))
    e = permuted_division([1.0] + [0.0] * 7, permutations=20_000, seed=3)  # one 1: +-0.5 w.p. 1/4 each
    assert (e.low, e.high) == (pytest.approx(-0.5), pytest.approx(0.5)) and e.value == pytest.approx(0.0, abs=0.01)
