"""The figures of the report's checks on position tables draw the arrays they are given: line data, images, bars
and histograms equal to the input, titles that follow the input's shape, and clear errors for inputs that do not
line up."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from posenc.errors import PosencError
from posenc.plots.tutorial_checks import (
    binary_jumps_figure,
    bounded_values_figure,
    compactness_figure,
    extrapolation_figure,
    integer_growth_figure,
    local_global_figure,
    normalized_step_figure,
    relative_map_figure,
    unique_positions_figure,
)


def _data(values):
    return np.asarray(values, dtype=float).tolist()


def _sinusoid(length, d):
    # Vaswani et al. 2017: PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i), w_i = 10000^(-2i/d)
    angle = np.arange(length)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    table = np.empty((length, d))
    table[:, 0::2], table[:, 1::2] = np.sin(angle), np.cos(angle)
    return table


def test_integer_growth_line_span_and_residual_bars():
    values = np.arange(1, 513, dtype=float)  # the integer code p + 1
    fig = integer_growth_figure(values, 64, 0.25, 0.0)
    a, b = fig.axes
    code, bound = a.lines
    assert _data(code.get_xdata()) == list(range(512)) and _data(code.get_ydata()) == values.tolist()
    assert _data(bound.get_ydata()) == [1.0, 1.0]
    (span,) = a.patches  # the trained lengths, 0..64
    xs = span.get_path().transformed(span.get_patch_transform()).vertices[:, 0]
    assert (xs.min(), xs.max()) == (0, 64)
    assert [bar.get_height() for bar in b.patches] == [0.25, 1e-16]  # a zero residual drawn at the log floor
    assert [bar.get_facecolor() for bar in b.patches] == [to_rgba("C3"), to_rgba("C0")]
    assert b.get_yscale() == "log"


def test_normalized_codes_and_steps():
    codes = {n: np.arange(n) / (n - 1) for n in (3, 10, 100)}
    steps = {n: 1 / (n - 1) for n in (3, 10, 100, 1000)}
    a, b = normalized_step_figure(codes, steps).axes
    assert [line.get_label() for line in a.lines] == ["n=3", "n=10", "n=100"]
    for line, n in zip(a.lines, (3, 10, 100), strict=True):
        assert _data(line.get_ydata()) == codes[n].tolist()
    assert [line.get_marker() for line in a.lines] == ["o", "o", "None"]  # points marked up to 10 positions
    (step_line,) = b.lines
    assert _data(step_line.get_xdata()) == [3, 10, 100, 1000]
    assert _data(step_line.get_ydata()) == pytest.approx([0.5, 1 / 9, 1 / 99, 1 / 999])
    assert b.get_xscale() == "log" and b.get_yscale() == "log"
    assert b.get_title() == "step = 1/(n-1)"  # the rule the points above follow
    assert b.get_xlabel() == "sequence length n" and b.get_ylabel() == "step between neighbours"
    with pytest.raises(PosencError, match="nothing to draw"):
        normalized_step_figure({}, steps)


def test_binary_image_is_bit_by_position_and_jumps_start_at_1():
    bits = np.array([[(p >> j) & 1 for j in range(3)] for p in range(8)], dtype=float)  # 0..7, lowest bit first
    jumps = np.sqrt(np.abs(np.diff(bits, axis=0)).sum(axis=1))  # sqrt of flipped bits
    smooth = np.full(7, 0.5)
    a, b = binary_jumps_figure(bits, jumps, smooth).axes
    assert np.array_equal(a.images[0].get_array(), bits.T)  # rows: bits, columns: positions
    assert a.get_title() == "binary code, positions 0..7"
    binary, sinusoid = b.lines
    assert _data(binary.get_xdata()) == [1, 2, 3, 4, 5, 6, 7]
    assert _data(binary.get_ydata()) == jumps.tolist() and max(jumps) == pytest.approx(np.sqrt(3))  # 3 -> 4
    assert binary.get_drawstyle() == "steps-mid" and _data(sinusoid.get_ydata()) == smooth.tolist()
    with pytest.raises(PosencError, match="binary_jumps has 7 distances and sinusoid_jumps 6"):
        binary_jumps_figure(bits, jumps, smooth[:6])
    with pytest.raises(PosencError, match="bits must be a non-empty 2-D table"):
        binary_jumps_figure(bits[0], jumps, smooth)


def test_bounded_image_and_histogram():
    table = _sinusoid(16, 8)
    values = np.concatenate([table.ravel(), [-1.0, 1.0]])
    a, b = bounded_values_figure(table, values, 18).axes
    assert np.array_equal(a.images[0].get_array(), table)
    assert a.get_title() == "PE[0..15], d=8"
    heights = [bar.get_height() for bar in b.patches]
    assert len(heights) == 60 and sum(heights) == len(values)  # counts, every value in one of 60 bins
    assert b.get_title() == "all values, 18 positions"
    assert (b.get_xlabel(), b.get_ylabel()) == ("value", "count")  # a histogram: values along x, counts up


def test_unique_distances_and_gram():
    table = _sinusoid(32, 16)
    distances = {anchor: np.linalg.norm(table - table[anchor], axis=1) for anchor in (0, 16)}
    gram = table[:8] @ table[:8].T
    fig = unique_positions_figure(distances, 0.5, gram)
    a, b = fig.axes[:2]
    first, middle, smallest = a.lines
    assert _data(first.get_ydata()) == distances[0].tolist() and first.get_label() == "from position 0"
    assert _data(middle.get_ydata()) == distances[16].tolist() and middle.get_ydata()[16] == 0
    assert _data(smallest.get_ydata()) == [0.5, 0.5]
    assert np.array_equal(b.images[0].get_array(), gram) and np.diag(gram) == pytest.approx(8.0)  # d/2 pairs
    assert b.get_title() == "PE[i] . PE[j], i, j < 8"
    assert len(fig.axes) == 3  # the colour bar


def test_relative_map_residuals_and_fitted_map():
    offsets = [1, 4, 16]
    residuals = {"sinusoid": [0.0, 1e-20, 1e-12], "random table": [0.9, 0.95, 1.0]}
    k, w = 4, 1.0
    rotation = np.array([[np.cos(k * w), -np.sin(k * w)], [np.sin(k * w), np.cos(k * w)]])
    fig = relative_map_figure(offsets, residuals, rotation, k)
    a, b = fig.axes[:2]
    sinusoid, random_table = a.lines
    assert _data(sinusoid.get_xdata()) == offsets
    assert _data(sinusoid.get_ydata()) == [1e-17, 1e-17, 1e-12]  # zeros and round-off lifted to the log floor
    assert _data(random_table.get_ydata()) == [0.9, 0.95, 1.0]
    assert np.array_equal(b.images[0].get_array(), rotation)
    assert b.images[0].get_clim() == (-1, 1)
    assert b.get_title() == "fitted M_4, first 2 channels: 2x2 rotations"
    # PE[p] M = PE[p+k]: a row of M belongs to an input channel, and the image's rows run down its y axis
    assert b.get_ylabel() == "in channel" and b.get_xlabel() == "out channel"
    with pytest.raises(PosencError, match=r"'sinusoid' has 2 residuals for 3 offsets"):
        relative_map_figure(offsets, {"sinusoid": [0.0, 0.0]}, rotation, k)


def test_local_global_channels_and_steps():
    table = _sinusoid(300, 16)
    steps = np.sqrt((np.diff(table, axis=0) ** 2).mean(axis=0))
    a, b = local_global_figure(table, 2, 14, steps, 4).axes
    fast, slow = a.lines
    assert _data(fast.get_ydata()) == table[:, 2].tolist() and fast.get_label() == "dim 2 (fast)"
    assert _data(slow.get_ydata()) == table[:, 14].tolist() and slow.get_label() == "dim 14 (slow)"
    assert a.get_xlim() == (0, 200)
    (step_line,) = b.lines
    assert _data(step_line.get_ydata()) == steps.tolist() and steps[0] > 10 * steps[-1]  # fast dims move more
    spans = [p.get_path().transformed(p.get_patch_transform()).vertices[:, 0] for p in b.patches]
    assert [(s.min(), s.max()) for s in spans] == [(0, 4), (12, 16)]
    with pytest.raises(PosencError, match="channels 2 and 16 and 16 steps for a table of 16 dimensions"):
        local_global_figure(table, 2, 16, steps, 4)


def test_extrapolation_images_and_far_extent():
    inside = _sinusoid(64, 8)
    far = _sinusoid(100_064, 8)[100_000:]
    a, b = extrapolation_figure(inside, far, 100_000).axes
    assert np.array_equal(a.images[0].get_array(), inside.T)
    assert np.array_equal(b.images[0].get_array(), far.T)
    assert b.images[0].get_extent() == [100_000, 100_064, 8, 0]
    assert a.get_title() == "trained range 0..63"
    with pytest.raises(PosencError, match=r"inside has shape \(64, 8\) and far \(64, 4\)"):
        extrapolation_figure(inside, far[:, :4], 100_000)


def test_compactness_bars_stand_side_by_side_at_their_resolution():
    fig = compactness_figure(["0.5", "0.1", "0.01"], [6, 12, 40], [10, 10, 10], 1024)
    (ax,) = fig.axes
    sinusoid, binary = ax.containers
    assert [p.get_height() for p in sinusoid.patches] == [6, 12, 40]
    assert [p.get_height() for p in binary.patches] == [10, 10, 10]
    for i, (s, b) in enumerate(zip(sinusoid.patches, binary.patches, strict=True)):
        # both bars inside the slot of tick i, the sinusoid's left of the binary's, neither hiding the other
        assert i - 0.5 <= s.get_x() and s.get_x() + s.get_width() <= b.get_x() + 1e-12
        assert b.get_x() + b.get_width() <= i + 0.5
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.5", "0.1", "0.01"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["sinusoid", "binary"]
    assert ax.get_ylabel() == "dimensions needed" and ax.get_title().startswith("1024 positions")
