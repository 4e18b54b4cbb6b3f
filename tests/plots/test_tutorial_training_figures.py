"""The training figures: per task, every seed's validation curve, the mean over seeds per encoding (a seed that
stopped early holds its last value), and the bar the claims read."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from posenc.plots.tutorial_training import validation_curves_figure


def _data(values):
    return np.asarray(values, dtype=float).tolist()


def test_validation_curves_mean_over_seeds_and_legend_per_encoding():
    # rope: one seed stops at step 10 (reached the bar); at step 20 it counts with its last accuracy 0.7
    curves = {"copy": {"rope": [[[0, 0.1], [10, 0.5], [20, 0.9]], [[0, 0.3], [10, 0.7]]],
                       "nope": [[[0, 0.2], [10, 0.2], [20, 0.4]]]},
              "sort": {"rope": [[[0, 0.0], [5, 1.0]]]}}
    fig = validation_curves_figure(curves, 0.95)
    copy, sort = fig.axes
    assert [copy.get_title(), sort.get_title()] == ["copy", "sort"]
    labelled = {line.get_label(): line for line in copy.lines if not line.get_label().startswith("_")}
    assert set(labelled) == {"rope", "nope"}
    rope, nope = labelled["rope"], labelled["nope"]
    assert _data(rope.get_xdata()) == [0, 10, 20]
    assert _data(rope.get_ydata()) == pytest.approx([(0.1 + 0.3) / 2, (0.5 + 0.7) / 2, (0.9 + 0.7) / 2])
    assert _data(nope.get_ydata()) == pytest.approx([0.2, 0.2, 0.4])
    seeds = [line for line in copy.lines if to_rgba(line.get_color()) == to_rgba(rope.get_color()) and line is not rope]
    assert sorted(_data(line.get_ydata()) for line in seeds) == [[0.1, 0.5, 0.9], [0.3, 0.7]]
    assert [t.get_text() for t in copy.get_legend().get_texts()] == ["rope", "nope"]
    assert [t.get_text() for t in sort.get_legend().get_texts()] == ["rope"]
    for ax in (copy, sort):
        assert any(_data(line.get_ydata()) == [0.95, 0.95] for line in ax.lines)
        assert ax.get_ylabel() == "validation token accuracy" and ax.get_xlabel() == "training step"
