"""Wavelengths read from tables whose channel pairs rotate: a growing rotation, and frequencies in the wrong order;
the same frequencies read other ways (pair steps, bit flips, a fitted period) against tables written out by hand."""

import math

import numpy as np
import pytest
import torch

from posenc.encodings.base import AbsoluteEncoding, EncodingInfo
from posenc.properties import EncodingView, wavelength
from posenc.properties.result import NotApplicable
from posenc.properties.wavelength import (
    bit_flip_violations,
    fit_period,
    order_violations,
    pair_frequencies,
    table_wavelengths,
)


class _RotatingTable(AbsoluteEncoding):
    """``PE[p] = growth^p (sin p w_i, cos p w_i)`` per pair i, in float64."""

    name = "rotating_table"
    info = EncodingInfo(family="absolute", paper="test", hooks=("embed",))

    def __init__(self, freqs: list[float], growth: float = 1.0):
        super().__init__(dim=2 * len(freqs))
        self.freqs, self.growth = torch.tensor(freqs, dtype=torch.float64), growth

    def encode(self, positions, dim=None, dtype=torch.float32):
        p = positions.to(torch.float64)[..., None]  # [..., 1]
        angle = p * self.freqs
        scale = self.growth ** p
        return torch.stack([scale * angle.sin(), scale * angle.cos()], dim=-1).flatten(-2).to(dtype)


def test_a_rotation_times_a_growing_scale_still_has_the_rotation_s_wavelengths():
    # PE[p + 1] = PE[p] (1.01 R(w_i)) pair by pair: the block is a rotation by w_i times the scale 1.01, so the
    # wavelengths are 2 pi / w_i = 2 pi and 20 pi; at length 32 pair 0 is local, pair 1 global
    result = wavelength(EncodingView(_RotatingTable([1.0, 0.1], growth=1.01), 32, 4))
    assert result.numbers["unit"] == "pair"
    assert result.numbers["wavelengths"] == [pytest.approx(2 * math.pi, abs=1e-6), pytest.approx(20 * math.pi, abs=1e-6)]
    assert result.verdict == "holds"


def test_wavelengths_that_shrink_with_the_index_are_named_after_the_counts():
    # frequencies 0.1 then 1: wavelengths 20 pi (global at length 32) then 2 pi (local), so they shrink
    result = wavelength(EncodingView(_RotatingTable([0.1, 1.0]), 32, 4))
    assert result.verdict == "fails"
    assert result.reason == ("1 of 2 pairs are local (wavelength < 32), 1 global; the first global pair is 0; "
                             "wavelengths do not grow with the index")


class _NoisyRotatingTable(_RotatingTable):
    """The sinusoid of ``_RotatingTable`` plus ``eps`` times a fixed random pattern (seeded), in float64."""

    def __init__(self, freqs: list[float], eps: float):
        super().__init__(freqs)
        self.eps = eps

    def encode(self, positions, dim=None, dtype=torch.float32):
        clean = super().encode(positions, dim, dtype=torch.float64)
        pattern = torch.randn(clean.shape, generator=torch.Generator().manual_seed(7), dtype=torch.float64)
        return (clean + self.eps * pattern).to(dtype)


def _fit_of(table: torch.Tensor) -> tuple[float, float]:
    """(relative residual, largest deviation from a scaled rotation) of the pair blocks fitted to ``table``."""
    from posenc.properties.relative import fit_pair_blocks, relative_residual

    n, width = table.shape
    x, y = table[:-1].view(n - 1, width // 2, 2), table[1:].view(n - 1, width // 2, 2)
    blocks, residual = fit_pair_blocks(x, y)
    det = torch.linalg.det(blocks)
    normed = blocks.transpose(1, 2) @ blocks / det.abs()[:, None, None]
    return relative_residual(residual, y), float((normed - torch.eye(2, dtype=torch.float64)).abs().amax())


@pytest.mark.parametrize("times, unit", [(9.5, "pair"), (10.5, None)])
def test_a_pair_fit_counts_as_exact_up_to_ten_times_the_tolerance(times, unit):
    # a float64 table (tolerance 1e-9) whose pair fits leave a residual of 9.5 or 10.5 tolerances, while the fitted
    # blocks stay rotations far inside the orthogonality check's 1e-6: the residual alone decides. At 9.5 the pairs'
    # wavelengths are read; at 10.5 the table is not a rotation, and its noisy channels are not periodic either
    freqs, length = [1.0, 0.1], 32
    probe = 1e-6  # the residual grows linearly with the noise's size: measure it once, then aim
    slope = _fit_of(_NoisyRotatingTable(freqs, probe).encode(torch.arange(length), dtype=torch.float64))[0] / probe
    encoding = _NoisyRotatingTable(freqs, times * 1e-9 / slope)
    view = EncodingView(encoding, length, 4)
    residual, deviation = _fit_of(view.table)
    assert view.tolerance == 1e-9
    assert residual / view.tolerance == pytest.approx(times, abs=0.05)
    assert deviation < 1e-7
    if unit is None:
        with pytest.raises(NotApplicable, match="not periodic"):
            table_wavelengths(view)
    else:
        lengths, got = table_wavelengths(view)
        assert got == unit
        assert lengths == [pytest.approx(2 * math.pi, rel=1e-6), pytest.approx(20 * math.pi, rel=1e-6)]


def numpy_sinusoid(positions: np.ndarray, dim: int) -> np.ndarray:
    """PE[p, 2i] = sin(p / 10000^(2i/d)), PE[p, 2i+1] = cos(...) (Vaswani et al. 2017 §3.5), written out again."""
    angle = np.asarray(positions, dtype=np.float64)[:, None] / 10000.0 ** (np.arange(0, dim, 2) / dim)
    table = np.empty((len(angle), dim))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def test_bit_flip_violations_counts_missing_and_extra_flips():
    table = torch.tensor([[(p >> j) & 1 for j in range(4)] for p in range(16)], dtype=torch.float64)
    assert bit_flip_violations(table) == 0
    broken = table.clone()
    broken[5, 2] = 1 - broken[5, 2]  # bit 2 of position 5 flipped: flips at 5 and 6 appear, none missing
    assert bit_flip_violations(broken) == 2


def test_pair_frequencies_read_the_sinusoid_and_order_violations():
    dim = 16
    table = torch.from_numpy(numpy_sinusoid(np.arange(40), dim))
    w = pair_frequencies(table)
    np.testing.assert_allclose(w.numpy(), 10000.0 ** (-np.arange(0, dim, 2) / dim), rtol=1e-10)
    assert order_violations(w) == 0
    assert order_violations(torch.tensor([3.0, 2.0, 2.0, 5.0, 1.0])) == 2  # 2 >= 2 and 5 >= 2


def test_fit_period_of_a_sampled_sinusoid():
    assert fit_period(np.sin(2 * math.pi * np.arange(100) / 7.3 + 0.4)) == pytest.approx(7.3, rel=1e-8)
