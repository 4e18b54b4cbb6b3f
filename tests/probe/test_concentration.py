"""Variance spread over dimensions (posenc.probe.concentration) against numpy and Gaussian tables."""

import numpy as np
import pytest

from posenc.errors import PosencError
from posenc.probe.concentration import dims_for_share, isotropic_spectra, spectra, top_share


def test_top_share_and_dims_for_share_by_hand():
    assert top_share(np.array([1.0, 4.0, 3.0, 2.0]), 0.25) == pytest.approx(0.4)  # 4 of 10
    assert top_share(np.array([1.0, 4.0, 3.0, 2.0]), 0.3) == pytest.approx(0.7)  # ceil(1.2) = 2 values: 7 of 10
    assert top_share(np.ones(384), 0.1) == pytest.approx(39 / 384)
    assert dims_for_share(np.array([5.0, 3.0, 1.0, 1.0]), 0.8) == 2  # 5 + 3 = 8 of 10
    assert dims_for_share(np.array([5.0, 3.0, 1.0, 1.0]), 0.81) == 3
    with pytest.raises(PosencError):
        top_share(np.zeros(4), 0.1)


def test_spectra_against_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 6)) * np.array([1, 2, 3, 1, 1, 1]) + 5.0
    variances, eigenvalues = spectra(x)
    np.testing.assert_allclose(variances, x.var(axis=0, ddof=1))
    np.testing.assert_allclose(eigenvalues, np.sort(np.linalg.eigvalsh(np.cov(x.T)))[::-1])
    singular = np.linalg.svd(x - x.mean(axis=0), compute_uv=False)
    np.testing.assert_allclose(eigenvalues, singular ** 2 / 199)


def test_isotropic_spectra_match_drawn_gaussian_tables():
    n, d = 3000, 40
    drawn = isotropic_spectra(n, d, 30)
    diag = np.stack([s[0] for s in drawn])
    assert abs(diag.mean() - 1) < 0.01
    assert abs(diag.var() - 2 / (n - 1)) < 0.3 * 2 / (n - 1)  # chi-square(n - 1) / (n - 1)
    rng = np.random.default_rng(5)
    tables = [spectra(rng.normal(size=(n, d))) for _ in range(30)]
    for index in (0, 1):  # the top-10% share of variances and of eigenvalues: the same distribution
        wishart = np.mean([top_share(s[index]) for s in drawn])
        gaussian = np.mean([top_share(s[index]) for s in tables])
        assert wishart == pytest.approx(gaussian, rel=0.01)
    with pytest.raises(PosencError, match="n - 1 >= d"):
        isotropic_spectra(10, 20, 1)
