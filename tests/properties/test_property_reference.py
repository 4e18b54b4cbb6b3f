"""Fast paths against plain reference computations on random inputs (hypothesis)."""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.properties.uniqueness import first_duplicate_length, min_distance_by_length


def _brute_curve(table: np.ndarray) -> np.ndarray:
    """curve[L-1] = min over p < q < L of |PE[p] - PE[q]|, by two loops."""
    n = len(table)
    curve = np.full(n, np.inf)
    best = np.inf
    for q in range(1, n):
        best = min(best, np.linalg.norm(table[:q] - table[q], axis=1).min())
        curve[q] = best
    return curve


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 40), d=st.integers(1, 6), repeat=st.integers(1, 3), seed=st.integers(0, 2**31 - 1),
       scale=st.sampled_from([1e-3, 1.0, 1e3]))
def test_min_distance_curve_matches_brute_force(n, d, repeat, seed, scale):
    rng = np.random.default_rng(seed)
    table = rng.normal(size=(n, d)) * scale
    table = np.concatenate([table] * repeat + [np.zeros((n, 1))], axis=1)  # repeated and constant channels
    curve, (p, q) = min_distance_by_length(torch.tensor(table))
    expected = _brute_curve(table)
    assert np.allclose(curve.numpy()[1:], expected[1:], rtol=1e-9, atol=0)
    assert np.isclose(np.linalg.norm(table[p] - table[q]), expected[-1], rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(rows=st.lists(st.integers(0, 5), min_size=1, max_size=30), width=st.integers(1, 4))
def test_first_duplicate_matches_a_scan(rows, width):
    table = torch.tensor([[float(v)] * width for v in rows], dtype=torch.float32)
    expected = next((q + 1 for q in range(len(rows)) if rows[q] in rows[:q]), None)
    assert first_duplicate_length(table) == expected
