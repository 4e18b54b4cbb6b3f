"""The figures of the remaining mechanism claims hold the numbers they are given and refuse inputs that do not line
up."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from posenc.errors import PosencError
from posenc.plots.tutorial_mechanics import frequency_order_figure, order_effect_figure, table_cost_figure


def test_order_effect_bars_lift_zero_to_the_log_floor():
    ax = order_effect_figure({"RNN": 1.4, "GRU": 1.2}, 0.0, 1e-3).axes[0]
    assert [b.get_height() for b in ax.patches] == [1.4, 1.2, 1e-12]
    assert ax.patches[2].get_facecolor() == to_rgba("C3")
    assert [t.get_text() for t in ax.get_xticklabels()][:2] == ["RNN", "GRU"]
    assert np.asarray(ax.lines[0].get_ydata(), dtype=float).tolist() == [1e-3, 1e-3]
    with pytest.raises(PosencError):
        order_effect_figure({}, 0.0, 1e-3)


def test_frequency_figure_draws_the_bits_and_the_frequencies():
    bits = np.array([[(p >> j) & 1 for j in range(4)] for p in range(40)])
    w = 10000.0 ** (-np.arange(0, 16, 2) / 16)
    a, b = frequency_order_figure(bits, w).axes
    np.testing.assert_array_equal(a.images[0].get_array(), bits[:32].T)
    np.testing.assert_allclose(b.lines[0].get_ydata(), w)
    with pytest.raises(PosencError):
        frequency_order_figure(bits[0], w)


def test_table_cost_figure_lines():
    ax = table_cost_figure([64, 128], [0.5, 0.9], 300.0).axes[0]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.5, 0.9])
    assert np.asarray(ax.lines[1].get_ydata(), dtype=float).tolist() == [300.0, 300.0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert ax.get_xlabel() == "width d" and ax.get_ylabel() == "milliseconds"
    assert ax.get_title() == "the table's cost against its width"
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["sinusoid table",
                                                                   "forward of the blocks (d_model 512)"]
    with pytest.raises(PosencError, match="one time per width"):
        table_cost_figure([64], [0.5, 0.9], 1.0)
