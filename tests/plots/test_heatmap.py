"""The bias heatmap past MAX_BIAS_SIDE positions: evaluated at an even sample of positions (exact there, since the
bias depends on the two positions alone), drawn where each belongs, at a size that does not grow with the length."""

import numpy as np
import pytest
import torch

import posenc
from posenc.plots.heatmap import MAX_BIAS_SIDE, encoding_matrix, heatmap


def test_a_long_bias_is_sampled_and_exact_at_the_samples():
    alibi = posenc.build("alibi", n_heads=2)  # head 0: slope 2^-4 (2 heads: 1/16, 1/256)
    length = 50_000
    matrix, title, _, _ = encoding_matrix(alibi, length, 64)
    assert list(matrix.shape) == [MAX_BIAS_SIDE, MAX_BIAS_SIDE]
    assert title == f"alibi: bias of head 0 ({MAX_BIAS_SIDE} of {length} positions)"
    sampled = np.round(np.linspace(0, length - 1, MAX_BIAS_SIDE))  # the positions drawn, by hand
    want = -(1 / 16) * np.abs(sampled[:, None] - sampled[None, :])
    assert np.allclose(matrix.numpy(), want, rtol=1e-6, atol=1e-3)
    assert float(matrix[0, -1]) == pytest.approx(-(length - 1) / 16)  # the corners are the ends of the range


def test_a_short_bias_is_drawn_whole():
    matrix, title, _, _ = encoding_matrix(posenc.build("alibi", n_heads=2), 16, 64)
    assert list(matrix.shape) == [16, 16] and "of 16 positions" not in title


def test_the_sampled_image_spans_the_true_positions():
    fig = heatmap(posenc.build("t5", n_heads=2), 5000, 64)
    image = fig.axes[0].images[0]
    assert tuple(image.get_extent()) == (-0.5, 4999.5, 4999.5, -0.5)
    assert image.get_array().shape == (MAX_BIAS_SIDE, MAX_BIAS_SIDE)
    assert bool(torch.isfinite(torch.as_tensor(image.get_array().data)).all())
