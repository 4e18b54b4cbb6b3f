"""tests/tolerance.py: machine epsilons by hand, the bound against sums that really round."""

import numpy as np
import pytest
import torch

from tolerance import bound, eps


@pytest.mark.parametrize(("dtype", "bits"), [("float64", 52), ("float32", 23), ("float16", 10), ("bfloat16", 7)])
def test_eps_is_two_to_minus_the_mantissa_bits(dtype, bits):
    assert eps(dtype) == 2.0**-bits
    assert eps(getattr(torch, dtype)) == 2.0**-bits == torch.finfo(getattr(torch, dtype)).eps
    if dtype != "bfloat16":
        assert eps(np.dtype(dtype)) == eps(getattr(np, dtype)) == float(np.finfo(dtype).eps)


def test_bound_by_hand():
    assert bound("float32") == 1.1920928955078125e-07
    assert bound(torch.float32, 10) == 10 * 1.1920928955078125e-07
    assert bound(np.float64, 3, scale=2.0) == 6 * 2.220446049250313e-16
    assert bound("bfloat16", 2, scale=0.0) == 0.0


def test_the_float32_sum_of_the_issue_is_inside_its_bound_and_outside_numpys_default():
    """The heads test summed one head's mass over 10 distance bins to 1.0000001072883606: 0.9 eps off, where
    numpy's default rtol of 1e-7 allows 0.84 eps and the rule allows 10 eps."""
    got = 1.0000001072883606
    assert abs(got - 1.0) > 1e-7
    assert abs(got - 1.0) <= bound("float32", 10)


def test_the_bound_holds_for_float32_sums_in_every_order():
    """Summing the same float32 terms one by one, pairwise and reversed lands within n eps of the float64 sum
    (relative to the sum of magnitudes), and the orders disagree, so the bound is not slack for free."""
    rng = np.random.default_rng(0)
    n = 1000
    x = rng.standard_normal(n).astype(np.float32)
    exact = float(np.sum(x.astype(np.float64)))
    scale = float(np.sum(np.abs(x.astype(np.float64))))
    one_by_one = np.float32(0)
    for v in x:
        one_by_one = np.float32(one_by_one + v)
    sums = [float(one_by_one), float(np.sum(x)), float(np.sum(x[::-1])), float(torch.from_numpy(x).sum())]
    assert len(set(sums)) > 1
    for s in sums:
        assert abs(s - exact) <= bound("float32", n, scale=scale)


def test_an_off_by_one_term_is_far_outside_the_bound():
    """A sum of 10 terms of 0.1 that drops one is 10% off, some 84,000 bounds away: the bound still catches it."""
    x = np.full(10, 0.1, dtype=np.float32)
    assert abs(float(x[:-1].sum()) - 1.0) > 1000 * bound("float32", 10)
    assert abs(float(x.sum()) - 1.0) <= bound("float32", 10)


@pytest.mark.parametrize("bad", ["float8", torch.int64, "int32", None])
def test_a_dtype_without_an_epsilon_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="no machine epsilon for dtype"):
        eps(bad)


@pytest.mark.parametrize("ops", [0, -1, 2.5, True])
def test_ops_must_be_a_positive_int(ops):
    with pytest.raises(ValueError, match="number of rounding steps"):
        bound("float32", ops)


def test_scale_must_not_be_negative():
    with pytest.raises(ValueError, match="magnitude >= 0"):
        bound("float32", 2, scale=-1.0)
