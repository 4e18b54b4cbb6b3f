"""The lab's report figures draw the intervals they are given: lines through the values, bands and error bars at the
bounds (clipped where the function clips, collapsed to the value where a bound is not finite)."""

import math

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.container import BarContainer

from posenc.errors import PosencError
from posenc.plots.lab import (
    accuracy_by_size_figure,
    in_distribution_bars_figure,
    metric_vs_length,
    perplexity_by_length_figure,
)


def _data(values):
    return np.asarray(values, dtype=float).tolist()


def _bars(ax):
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def _band_y(collection):
    """The y range a fill_between band covers."""
    ys = np.concatenate([path.vertices[:, 1] for path in collection.get_paths()])
    return float(ys.min()), float(ys.max())


def test_accuracy_lines_hold_the_values_and_bands_are_clipped_to_0_1():
    curves = {"rope": {2.0: (0.2, -0.1, 0.3), 0.5: (0.9, 0.8, 1.3)},  # unsorted on purpose
              "nope": {1.0: (0.6, -math.inf, math.inf)}}  # one seed: no interval
    fig = accuracy_by_size_figure(curves, 1.0, "a title", "exact_match")
    (ax,) = fig.axes
    rope, nope, trained = ax.lines
    assert _data(rope.get_xdata()) == [0.5, 2.0] and _data(rope.get_ydata()) == [0.9, 0.2]
    assert _data(nope.get_xdata()) == [1.0] and _data(nope.get_ydata()) == [0.6]
    assert _data(trained.get_xdata()) == [1.0, 1.0] and trained.get_linestyle() == "--"
    rope_band, nope_band = ax.collections
    assert _band_y(rope_band) == pytest.approx((0.0, 1.0))  # -0.1 -> 0, 1.3 -> 1
    assert _band_y(nope_band) == pytest.approx((0.6, 0.6))  # infinite bounds drawn at the value
    assert to_rgba(rope_band.get_facecolor()[0], 1.0) == to_rgba(rope.get_color(), 1.0)
    assert ax.get_ylabel() == "exact match (mean over tasks)" and ax.get_title() == "a title"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["rope", "nope"]


def test_accuracy_axis_spans_a_share_and_the_trained_mark_is_labelled_at_its_line():
    fig = accuracy_by_size_figure({"rope": {0.5: (0.9, 0.8, 1.0), 4.0: (0.1, 0.0, 0.2)}}, 2.0, "t")
    (ax,) = fig.axes
    trained = ax.lines[-1]
    assert _data(trained.get_xdata()) == [2.0, 2.0]
    (label,) = [t for t in ax.texts if t.get_text().strip() == "trained up to here"]
    x, y = label.get_position()
    assert x == 2.0  # beside the dashed line, not somewhere else on the axis
    low, high = ax.get_ylim()
    assert low == 0 and 1.0 < high <= 1.1  # accuracy runs 0..1; just enough room above 1 for the label
    assert 1.0 < y < high


def test_accuracy_figure_refuses_nothing_and_bad_intervals():
    with pytest.raises(PosencError, match="no accuracy curves"):
        accuracy_by_size_figure({}, 1.0, "t")
    with pytest.raises(PosencError, match=r"'rope' at 1.0: expected an interval \(value, low, high\)"):
        accuracy_by_size_figure({"rope": {1.0: (0.5, 0.4)}}, 1.0, "t")


def test_in_distribution_bars_grouped_by_task_with_clipped_error_bars():
    accuracy = {"learned": [(0.9, 0.8, 1.2), (0.5, -math.inf, math.inf)],
                "sinusoidal": [(0.7, -0.2, 0.75), (0.4, 0.3, 0.5)]}
    fig = in_distribution_bars_figure(["copy", "sort"], accuracy, 0.95)
    (ax,) = fig.axes
    learned, sinusoidal = _bars(ax)
    # two encodings: width 0.8 / 2, centres 0.2 either side of each task
    assert [p.get_x() + p.get_width() / 2 for p in learned.patches] == pytest.approx([-0.2, 0.8])
    assert [p.get_x() + p.get_width() / 2 for p in sinusoidal.patches] == pytest.approx([0.2, 1.2])
    assert [p.get_width() for p in learned.patches] == pytest.approx([0.4, 0.4])
    assert [p.get_height() for p in sinusoidal.patches] == pytest.approx([0.7, 0.4])
    segments = [s[:, 1].tolist() for s in learned.errorbar.lines[2][0].get_segments()]
    assert segments == [pytest.approx([0.8, 1.0]), pytest.approx([0.5, 0.5])]  # 1.2 clipped; no interval: none
    segments = [s[:, 1].tolist() for s in sinusoidal.errorbar.lines[2][0].get_segments()]
    assert segments == [pytest.approx([0.0, 0.75]), pytest.approx([0.3, 0.5])]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["copy", "sort"]
    assert any(_data(line.get_ydata()) == [0.95, 0.95] for line in ax.lines)
    assert ax.get_title() == "in distribution: learned vs fixed"


def test_in_distribution_bars_three_encodings_share_the_group():
    accuracy = {e: [(0.5, 0.4, 0.6)] for e in ("a", "b", "c")}
    ax = in_distribution_bars_figure(["copy"], accuracy, 0.95).axes[0]
    centres = [p.get_x() + p.get_width() / 2 for c in _bars(ax) for p in c.patches]
    assert centres == pytest.approx([-0.8 / 3, 0.0, 0.8 / 3])


def test_in_distribution_bars_refuse_a_missing_task():
    with pytest.raises(PosencError, match=r"'learned' has 1 intervals for 2 tasks"):
        in_distribution_bars_figure(["copy", "sort"], {"learned": [(0.9, 0.8, 1.0)]}, 0.95)
    with pytest.raises(PosencError, match="no encodings"):
        in_distribution_bars_figure(["copy"], {}, 0.95)


def test_perplexity_lines_bands_and_length_ticks():
    curves = {"alibi": {32: (5.0, 4.0, 6.0), 64: (5.5, 5.0, 6.5), 128: (6.0, -math.inf, math.inf)},
              "sinusoidal": {32: (5.0, 4.5, 5.5), 256: (40.0, 30.0, 50.0)}}
    fig = perplexity_by_length_figure(curves, 32)
    (ax,) = fig.axes
    alibi, sinusoidal, trained = ax.lines
    assert _data(alibi.get_xdata()) == [32, 64, 128] and _data(alibi.get_ydata()) == [5.0, 5.5, 6.0]
    assert _data(sinusoidal.get_ydata()) == [5.0, 40.0]
    assert _data(trained.get_xdata()) == [32, 32]
    assert _band_y(ax.collections[0]) == pytest.approx((4.0, 6.5))  # no clipping for perplexity
    assert _band_y(ax.collections[1]) == pytest.approx((4.5, 50.0))
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["32", "64", "128", "256"]
    assert ax.get_title() == "char-LM trained at context 32 (band: 95% over seeds)"
    assert ax.get_xlabel() == "evaluation context (characters)" and ax.get_ylabel() == "perplexity"


def test_perplexity_figure_refuses_empty_curves():
    with pytest.raises(PosencError, match="no perplexity curves"):
        perplexity_by_length_figure({"alibi": {}}, 32)


def _cell(mean, std=0.0):
    return {"mean": mean, "std": None if mean is None else std}


def test_metric_vs_length_marks_lengths_that_cannot_run_on_the_axis_floor():
    # a learned table with 8 rows: sizes 16 and 32 cannot run; they are drawn as x at y = 0 of the panel, whatever
    # the y range
    row = {"4": _cell(1.0), "8": _cell(0.5, 0.1), "16": _cell(None), "32": _cell(None)}
    summary = {"sweep": "s", "metric": "exact_match", "series": {"copy": {"learned": row}}, "train_len": {"copy": 4}}
    (ax,) = metric_vs_length(summary).axes
    (ran,) = [line for line in ax.lines if line.get_label() == "learned"]
    assert _data(ran.get_xdata()) == [4, 8] and _data(ran.get_ydata()) == [1.0, 0.5]
    (blocked,) = [line for line in ax.lines if line.get_marker() == "x"]
    assert _data(blocked.get_xdata()) == [16, 32]
    floor = ax.transAxes.transform((0, 0))[1]
    display = blocked.get_transform().transform(blocked.get_xydata())
    assert display[:, 1] == pytest.approx([floor, floor])  # on the bottom edge of the panel
    assert display[:, 0] == pytest.approx(ax.transData.transform([(16, 0.5), (32, 0.5)])[:, 0])
    assert to_rgba(blocked.get_color()) == to_rgba(ran.get_color())
    (train,) = [line for line in ax.lines if line.get_linestyle() == "--"]
    assert _data(train.get_xdata()) == [4, 4]
