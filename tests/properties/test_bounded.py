"""Boundedness at its edges: a zero rotary gain, the claim's source on both branches, the sinusoid's RMS per
channel."""

import math

import pytest

import posenc
from posenc.encodings.rope import RoPE
from posenc.properties import EncodingView, bounded


class _ZeroGainRoPE(RoPE):
    """A user's RoPE whose attention factor is 0: every rotated query is the zero vector."""

    name = "zero_gain_rope"

    def frequencies(self, seq_len=None):
        inv_freq, _ = super().frequencies(seq_len)
        return inv_freq, 0.0


def test_a_zero_gain_has_an_infinite_spread_not_an_error():
    # gain 0 at every position: max / min is 0 / 0, reported as an infinite spread
    numbers = bounded(EncodingView(_ZeroGainRoPE(head_dim=4), 8, 4)).numbers
    assert numbers["gain_min"] == numbers["gain_max"] == 0.0
    assert math.isinf(numbers["gain_spread"])


def test_rotary_and_absolute_results_cite_the_tutorial_claim():
    # the claim is tutorial 001 §3.1's (module docstring), whichever branch measures it
    rotary = bounded(EncodingView(posenc.build("rope", head_dim=4), 8, 4))
    absolute = bounded(EncodingView(posenc.build("sinusoidal", dim=4), 8, 4))
    assert "tutorial 001 §3.1" in rotary.source
    assert rotary.source == absolute.source


def test_the_sinusoid_has_rms_one_over_root_two_per_channel():
    # each of the D/2 pairs is (sin a, cos a) with sin^2 + cos^2 = 1, so ||PE[p]||^2 = D/2 at every position and the
    # RMS per channel is sqrt(D/2) / sqrt(D) = 1/sqrt(2) ~ 0.7071, whatever D (here D = 8: norm 2, RMS 2 / 2.828)
    numbers = bounded(EncodingView(posenc.build("sinusoidal", dim=8), 16, 8)).numbers
    assert numbers["norm_max"] == pytest.approx(2.0)
    assert numbers["rms_per_channel_max"] == pytest.approx(1 / math.sqrt(2))
