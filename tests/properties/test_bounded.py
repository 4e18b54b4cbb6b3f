"""Boundedness of rotary encodings at its edges: a zero gain, and the claim's source on both branches."""

import math

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
