"""Figures hold the data they claim: line data against formulas derived here, images against the tables."""

import math

import numpy as np
import pytest
from matplotlib.figure import Figure

import posenc
from posenc.errors import PosencError
from posenc.plots.binary import binary_figure
from posenc.plots.decay import decay_figure
from posenc.plots.dims import dims_figure
from posenc.plots.figures import make_figure, save_figure
from posenc.plots.heatmap import encoding_matrix, heatmap
from posenc.plots.kinds import PLOT_KINDS
from posenc.plots.positions import positions_figure
from posenc.plots.ramp import ramp_figure
from posenc.plots.rotation import rotation_figure


def _w(d):
    return 10000.0 ** (-np.arange(0, d, 2) / d)  # sinusoid frequencies, Vaswani et al. 2017


def test_dims_figure_lines_are_the_sinusoid():
    # even dim j = 2i is sin(p w_i), w_i = 10000^(-j/d)
    d, n = 64, 128
    fig = dims_figure(posenc.build("sinusoidal", dim=d), length=n, d_model=d)
    assert isinstance(fig, Figure)
    axes = [ax for ax in fig.axes if ax.lines]
    assert [ax.get_title() for ax in axes] == ["dim 2", "dim 6", "dim 12"]
    p = np.arange(n)
    for ax, j in zip(axes, (2, 6, 12), strict=True):
        x, y = ax.lines[0].get_data()
        assert np.array_equal(x, p)
        assert np.allclose(y, np.sin(p * 10000.0 ** (-j / d)), atol=1e-12)


def test_dims_figure_names_the_encoding_and_length_and_labels_the_axes():
    fig = dims_figure(posenc.build("rope", head_dim=16), length=40, d_model=16, dims=(0, 5))
    axes = [ax for ax in fig.axes if ax.lines]
    assert len(axes) == 2 and [ax.get_xlabel() for ax in axes] == ["position p"] * 2
    assert fig.get_suptitle() == "rope: single dimensions over 40 positions"


def test_positions_figure_lines():
    d = 64
    fig = positions_figure(posenc.build("sinusoidal", dim=d), length=16, d_model=d, positions=(1, 5))
    even, odd = [ax for ax in fig.axes if ax.lines]
    for line, p in zip(even.lines, (1, 5), strict=True):
        assert np.allclose(line.get_ydata(), np.sin(p * _w(d)), atol=1e-12)
    for line, p in zip(odd.lines, (1, 5), strict=True):
        assert np.allclose(line.get_ydata(), np.cos(p * _w(d)), atol=1e-12)
        assert line.get_label() == f"position {p}"


def test_rope_dims_use_the_rotation_table():
    # rotary tables are drawn in the sinusoid's layout: dim 2 is sin(p * inv_freq_1), inv_freq_1 = 10000^(-2/d)
    fig = dims_figure(posenc.build("rope", head_dim=32), length=64, d_model=32, dims=(2,))
    y = [ax for ax in fig.axes if ax.lines][0].lines[0].get_ydata()
    assert np.allclose(y, np.sin(np.arange(64) * 10000.0 ** (-2 / 32)), atol=1e-12)


def test_binary_figure_images():
    fig = binary_figure(posenc.build("sinusoidal", dim=32), length=64, d_model=32, n=8)
    left, right = [ax for ax in fig.axes if ax.images]
    bits = np.array([[(p >> j) & 1 for j in range(3)] for p in range(8)])  # 0..7 in 3 bits, lowest first
    assert np.array_equal(left.images[0].get_array(), bits)
    table = np.empty((64, 32))
    angle = np.arange(64)[:, None] * _w(32)
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    assert np.allclose(right.images[0].get_array(), table, atol=1e-12)


def test_rotation_figure_maps_onto_the_next_points():
    # for the sinusoid the fitted 2x2 map is the rotation by k w_i: PE[p] M(k) lands on PE[p + k]
    d, pair, k = 64, 4, 3
    fig = rotation_figure(posenc.build("sinusoidal", dim=d), length=64, d_model=d, pair=pair, offset=k, starts=6)
    ax = fig.axes[0]
    points, mapped = ax.collections[0].get_offsets(), ax.collections[1].get_offsets()
    w = 10000.0 ** (-2 * pair / d)
    p = np.arange(64)
    assert np.allclose(points, np.stack([np.sin(p * w), np.cos(p * w)], 1), atol=1e-12)
    assert np.allclose(mapped, np.stack([np.sin((p[:6] + k) * w), np.cos((p[:6] + k) * w)], 1), atol=1e-9)
    assert f"fitted angle {k * w:.4f}" in ax.get_title()
    # the sinusoid has no inv_freq: the title computes k w_i from its base, w_4 = 10000^(-8/64) = 0.3162, k w_4 = 0.9487
    assert f"k w_i = {k * w:.4f}" in ax.get_title() and f"{k * w:.4f}" == "0.9487"


def test_decay_figure_is_the_roformer_bound():
    # d = 128: (1/64) sum_j |sum_{i<j} e^{i r theta_i}| by cumulative sums in numpy; 32.5 at r = 0
    fig = decay_figure(posenc.build("rope", head_dim=128), length=300, d_model=128)
    y = fig.axes[0].lines[0].get_ydata()
    theta = 10000.0 ** (-np.arange(0, 128, 2) / 128)
    r = np.arange(300)[:, None]
    expected = np.abs(np.cumsum(np.exp(1j * r * theta), axis=1)).mean(axis=1)
    assert np.allclose(y, expected, rtol=1e-10)
    assert y[0] == pytest.approx(32.5)


def test_decay_figure_alibi_heads():
    fig = decay_figure(posenc.build("alibi", n_heads=4), length=100, d_model=16)
    lines = fig.axes[0].lines
    assert len(lines) == 5  # four heads and their mean
    r = np.arange(100)
    for h, line in enumerate(lines[:4], start=1):
        assert np.allclose(line.get_ydata(), np.exp(-(2.0 ** (-8 * h / 4)) * r), rtol=1e-6)  # slopes 2^(-8h/n)


def test_ramp_figure_yarn_ends():
    # YaRN keeps the fastest pairs (ratio 1) and divides the slowest by s = 4
    fig = ramp_figure(posenc.build("rope", head_dim=128, scaling={"type": "yarn", "factor": 4.0}), length=4096,
                      d_model=128)
    y = fig.axes[0].lines[0].get_ydata()
    assert y[0] == pytest.approx(1.0) and y[-1] == pytest.approx(0.25)
    assert np.all(np.diff(y) <= 1e-12)
    assert sorted(line.get_ydata()[0] for line in fig.axes[0].lines[1:]) == [0.25, 1.0]


def test_figures_that_do_not_apply_raise_clear_errors():
    with pytest.raises(PosencError, match="cannot draw 'dims'"):
        dims_figure(posenc.build("alibi"), length=16, d_model=16)
    with pytest.raises(PosencError, match="cannot draw 'ramp'"):
        ramp_figure(posenc.build("rope", head_dim=16), length=64, d_model=16)
    with pytest.raises(PosencError, match="cannot draw 'decay'"):
        decay_figure(posenc.build("sinusoidal", dim=16), length=64, d_model=16)
    with pytest.raises(PosencError, match="dims must be"):
        dims_figure(posenc.build("sinusoidal", dim=8), length=16, d_model=8, dims=(12,))
    with pytest.raises(PosencError, match="length must be"):
        dims_figure(posenc.build("sinusoidal", dim=8), length=2, d_model=8)
    with pytest.raises(PosencError, match="unknown figure kind"):
        make_figure("sinusoidal", "pie")


def test_every_kind_draws_for_some_encoding(tmp_path):
    cases = {"heatmap": ("alibi", {}), "dims": ("binary", {}), "positions": ("learned", {}),
             "binary": ("rope", {}), "rotation": ("xpos", {}), "decay": ("xpos", {}),
             "ramp": ("rope", {"scaling": {"type": "llama3", "factor": 8.0}})}
    assert set(cases) == set(PLOT_KINDS)
    for kind, (name, options) in cases.items():
        fig = make_figure(name, kind, options=options)
        path = save_figure(fig, tmp_path / f"{kind}.png")
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(PosencError) as refused:
        save_figure(Figure(), tmp_path / "x.txt")
    assert str(refused.value) == ("a figure file must end in .png, .svg, .pdf, .jpg or .jpeg, got 'x.txt'; e.g. "
                                  "'x.png'")
    assert list(tmp_path.glob("x.*")) == []


def test_heatmap_still_serves_show():
    matrix, title, _, _ = encoding_matrix(posenc.build("sinusoidal", dim=8), 16, 8)
    assert matrix.shape == (16, 8) and "sinusoidal" in title
    assert math.isclose(float(matrix[2, 0]), math.sin(2), abs_tol=1e-6)
    assert isinstance(heatmap(posenc.build("rope", head_dim=8), 16, 8), Figure)
