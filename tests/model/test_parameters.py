"""Parameters of posenc's Transformer per part (posenc.model.parameters), against counts by hand."""

from __future__ import annotations

import pytest

from posenc.model.parameters import parameter_counts


def _block_params(width: int, d_ff: int) -> int:
    """One pre-norm block by hand: q, k, v, out without bias (4 W^2), FFN W F + F + F W + W, two LayerNorms 4 W."""
    return 4 * width * width + 2 * width * d_ff + d_ff + width + 4 * width


@pytest.mark.parametrize("concat", [False, True])
def test_parameter_counts_by_hand(concat):
    counts = parameter_counts(64, concat, n_layers=3, n_heads=4, vocab=100)
    width = 128 if concat else 64  # concatenating a 64-wide code makes the model twice as wide
    assert counts["width"] == width
    assert counts["blocks"] == 3 * _block_params(width, 4 * width)
    assert counts["attention"] == 3 * 4 * width * width
    assert counts["layernorm"] == 3 * 4 * width + 2 * width
    assert counts["head"] == 100 * width
