"""What ``posenc show`` draws: a bias past MAX_BIAS_SIDE positions at an even sample of positions (exact there,
since the bias depends on the two positions alone, drawn where each belongs at a size that does not grow with the
length), and the encodings without a table or a fixed bias."""

import math
import re

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


def test_a_temperature_draws_its_factor_by_position():
    matrix, title, _, _ = encoding_matrix(posenc.build("temperature", attn_scale=0.5, floor_scale=2), 4, 8)
    want = [1.0, 1 + 0.5 * math.log(2), 1 + 0.5 * math.log(2), 1 + 0.5 * math.log(3)]
    torch.testing.assert_close(matrix[:, 0], torch.tensor(want))
    assert "factor" in title


def test_pope_draws_the_cosine_of_each_channels_phase():
    matrix, _, _, _ = encoding_matrix(posenc.build("pope", head_dim=4, n_heads=1), 3, 4)
    theta = torch.tensor([10000.0 ** (-c / 4) for c in range(4)], dtype=torch.float64)
    torch.testing.assert_close(matrix.double(), (torch.arange(3.0, dtype=torch.float64)[:, None] * theta).cos(),
                               rtol=1e-6, atol=1e-7)


def test_content_encodings_say_they_have_no_table():
    for name in ("fox", "dape", "cope"):
        encoding = posenc.build_for_model(name, d_model=8, n_heads=2, head_dim=4)
        assert "positions from content" in encoding_matrix(encoding, 4, 8)[1]
    assert "no position information" in encoding_matrix(posenc.build("nope"), 4, 8)[1]


def test_a_length_dependent_rope_draws_the_angles_in_force_at_that_length():
    # dynamic NTK (emozilla 2023): past L0 the base grows to base * (s L / L0 - (s - 1))^(d / (d - 2))
    d, s, original, length = 16, 2.0, 8, 32
    rope = posenc.build("rope", head_dim=d, scaling={"type": "dynamic", "factor": s, "original_max_len": original})
    matrix = encoding_matrix(rope, length, d)[0].double()
    p = torch.arange(length, dtype=torch.float64)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float64)

    def cos(base):
        return (p * base ** (-i / d)).cos()

    grown = 10000.0 * (s * length / original - (s - 1)) ** (d / (d - 2))
    torch.testing.assert_close(matrix, cos(grown), rtol=1e-5, atol=1e-6)
    assert not torch.allclose(matrix, cos(10000.0), atol=1e-3)  # the angles of the original length differ


def test_every_encoding_draws_one_row_per_position_and_says_so():
    # whatever the branch (table, rotation, bias, factor, or nothing to draw), rows are positions 0..length-1
    for name in posenc.available():
        encoding = posenc.build_for_model(name, d_model=8, n_heads=2, head_dim=4)
        matrix, _, _, ylabel = encoding_matrix(encoding, 6, 8)
        assert matrix.shape[0] == 6, name
        assert re.search(r"\bposition\b", ylabel), (name, ylabel)


def test_axial_rope_draws_its_angles_at_each_patchs_row_and_column():
    # patch p of a grid 3 wide is at row r = p // 3, column c = p % 3. head_dim 8: 4 pairs, the first two turn by
    # the row and the last two by the column, each axis with the frequencies of a 4-wide RoPE, 10000^(-2i/4) = 1, 0.01
    axial = posenc.build("axial_rope", head_dim=8, grid_width=3)
    matrix, title, _, ylabel = encoding_matrix(axial, 7, 8)
    p = torch.arange(7, dtype=torch.float64)
    r, c = torch.div(p, 3, rounding_mode="floor"), p % 3
    theta = torch.stack([r, 0.01 * r, c, 0.01 * c], dim=1)  # [T, 4]
    torch.testing.assert_close(matrix.double(), theta.cos(), rtol=1e-6, atol=1e-6)
    assert matrix.shape == (7, 4) and "row, column" in title and "position" in ylabel
