"""Wavelengths read from tables whose channel pairs rotate: a growing rotation, and frequencies in the wrong order."""

import math

import pytest
import torch

from posenc.encodings.base import AbsoluteEncoding, EncodingInfo
from posenc.properties import EncodingView, wavelength


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
