"""The figures of the report's checks on position tables draw the arrays they are given: line data, images, bars
and histograms equal to the input, titles that follow the input's shape, and clear errors for inputs that do not
line up."""

import re

import numpy as np
import pytest
from matplotlib.category import StrCategoryLocator
from matplotlib.colors import to_rgba
from matplotlib.text import Text
from matplotlib.ticker import FixedLocator

from posenc.errors import PosencError
from posenc.plots import tutorial_checks
from posenc.plots.tutorial_checks import (
    binary_jumps_figure,
    bounded_values_figure,
    compactness_figure,
    dims_period_figure,
    extrapolation_figure,
    integer_growth_figure,
    local_global_figure,
    nearest_distance_figure,
    normalized_step_figure,
    offset_rule_figure,
    parameter_ratio_figure,
    position_pair_figure,
    relative_map_figure,
    relative_score_figure,
    unique_positions_figure,
    worked_example_figure,
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


def test_worked_example_bars_stand_side_by_side_per_channel():
    measured = _sinusoid(3, 4)[2]  # PE[2] at d = 4
    printed = np.round(measured, 4)
    labels = ["sin(2 w_0)", "cos(2 w_0)", "sin(2 w_1)", "cos(2 w_1)"]
    (ax,) = worked_example_figure(measured.tolist(), printed.tolist(), labels).axes
    reference, ours = ax.containers
    assert [p.get_height() for p in reference.patches] == printed.tolist()
    assert [p.get_height() for p in ours.patches] == measured.tolist()
    for i, (r, m) in enumerate(zip(reference.patches, ours.patches, strict=True)):
        # both bars of channel i inside its tick's slot, the measured one right beside the printed one
        assert i - 0.5 <= r.get_x() and m.get_x() == pytest.approx(r.get_x() + r.get_width())
        assert m.get_x() + m.get_width() <= i + 0.5
    assert [t.get_text() for t in ax.get_xticklabels()] == labels


def _figures():
    """One figure of each kind the module draws, from small inputs: ``{name: figure}``."""
    table = _sinusoid(64, 8)
    bits = np.array([[(p >> j) & 1 for j in range(3)] for p in range(8)], dtype=float)
    steps = np.sqrt((np.diff(table, axis=0) ** 2).mean(axis=0))
    integer = np.arange(16, dtype=float)[:, None] * np.ones(4)
    k = 2
    figures = {
        "integer_growth_figure": integer_growth_figure(np.arange(1, 65, dtype=float), 16, 0.25, 0.0),
        "normalized_step_figure": normalized_step_figure({n: np.arange(n) / (n - 1) for n in (3, 10)},
                                                         {3: 0.5, 10: 1 / 9}),
        "binary_jumps_figure": binary_jumps_figure(bits, np.ones(7), np.full(7, 0.5)),
        "bounded_values_figure": bounded_values_figure(table[:16], table.ravel(), 64),
        "unique_positions_figure": unique_positions_figure({0: np.linalg.norm(table - table[0], axis=1)}, 0.5,
                                                           table[:8] @ table[:8].T),
        "relative_map_figure": relative_map_figure([1, 4], {"sinusoid": [0.0, 1e-12]}, np.eye(4), 4),
        "local_global_figure": local_global_figure(table, 0, 6, steps, 2),
        "extrapolation_figure": extrapolation_figure(table[:32], _sinusoid(132, 8)[100:], 100),
        "worked_example_figure": worked_example_figure(table[2, :4].tolist(), table[2, :4].tolist(),
                                                       ["a", "b", "c", "d"]),
        "dims_period_figure": dims_period_figure(table, (2, 6), [6.3, 63.0], [6.28, 62.8]),
        "position_pair_figure": position_pair_figure(table, (1, 5), np.abs(table[5] - table[1])[::2]),
        "relative_score_figure": relative_score_figure(integer[:, 0], 1.0, integer[k:] @ integer[:-k].T,
                                                       table[k:16] @ table[:16 - k].T, k),
        "nearest_distance_figure": nearest_distance_figure({"d=8": {4: 0.5, 16: 0.3}}),
        "compactness_figure": compactness_figure(["0.5", "0.1"], [6, 12], [10, 10], 64),
        "offset_rule_figure": offset_rule_figure([1, 2, 4], [0.0, 1e-12, 1e-10], {"sinusoid": [1.0, 1.0, 0.9]}),
        "parameter_ratio_figure": parameter_ratio_figure({"2048": {"attention": 2.0, "ffn": 1.5},
                                                          "4096": {"attention": 2.0, "ffn": 1.3}}),
    }
    assert set(figures) == set(tutorial_checks.__all__)  # a new figure joins the rules below
    return figures


def _names_its_ticks(ax):
    """Whether the x ticks are placed one by one, each with a name (bars per category), not read off a scale."""
    ticks = ax.get_xticklabels()
    placed = isinstance(ax.xaxis.get_major_locator(), (FixedLocator, StrCategoryLocator))
    return placed and bool(ticks) and all(t.get_text() for t in ticks)


def test_every_data_panel_says_what_its_axes_measure():
    for name, fig in _figures().items():
        panels = [ax for ax in fig.axes if ax.lines or ax.patches or ax.images]  # not the colour bars
        assert panels, name
        for ax in panels:
            # x: a label, unless every tick is named (bars per category)
            assert ax.get_xlabel() or _names_its_ticks(ax), (name, ax.get_title())
            if name == "position_pair_figure":
                continue  # its panels name their quantity in the title (PE[p, 2i], ||PE[a] - PE[b]||), no y label
            # y: a label, on the panel or on one it shares its y axis with (a row of panels labels the first)
            shared = ax.get_shared_y_axes().get_siblings(ax)
            assert any(other.get_ylabel() for other in shared), (name, ax.get_title())


def test_the_two_codes_have_one_name_in_every_figure():
    # the integer-growth bars are named as the relative-score panels name the same two codes
    figures = _figures()
    _, bars = figures["integer_growth_figure"].axes
    panels = [ax for ax in figures["relative_score_figure"].axes if ax.images]
    names = [ax.get_title().split(":")[0] for ax in panels]
    assert [t.get_text() for t in bars.get_xticklabels()] == names
    _, jumps = figures["binary_jumps_figure"].axes
    assert names[1] in [line.get_label() for line in jumps.lines]  # the smooth code beside the binary one


def test_every_figure_writes_in_lowercase_sentence_style():
    # titles, labels, legends and notes are sentences in lower case: no word of four or more capitals
    for name, fig in _figures().items():
        texts = [t.get_text() for t in fig.findobj(Text)]
        assert any(texts), name
        assert [text for text in texts if re.search(r"\b[A-Z]{4,}\b", text)] == [], name


def test_rows_of_panels_give_each_panel_four_inches():
    """The tutorial's rows of equal panels line up on the page: every panel 4 inches wide, as dims_period_figure
    lays out one per dimension, so a three-panel row is 12 inches and a two-panel row 8 (the height is each
    figure's own; offset_rule_figure, a wider pair at 9 inches, is not one of these rows)."""
    figures = _figures()
    two = ("integer_growth_figure", "normalized_step_figure", "binary_jumps_figure", "bounded_values_figure",
           "unique_positions_figure", "relative_map_figure", "local_global_figure", "extrapolation_figure",
           "dims_period_figure")  # dims_period_figure drawn above with two dimensions
    panels = {**dict.fromkeys(two, 2), "position_pair_figure": 3, "relative_score_figure": 3}
    for name, count in panels.items():
        fig = figures[name]
        assert len([ax for ax in fig.axes if ax.get_label() != "<colorbar>"]) == count, name
        assert fig.get_size_inches()[0] == 4 * count, name
