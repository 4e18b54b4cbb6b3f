"""The figures of the remaining meaning claims hold the numbers they are given and refuse inputs that do not line
up."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from posenc.errors import PosencError
from posenc.plots.tutorial_semantics import analogy_figure, layer_probe_figure, spectra_figure


def test_analogy_bars_are_the_ranks_in_order():
    fig = analogy_figure({"a": 9, "b": 2}, {"a": {"x": 12, "y": 40}, "b": {"z": 5}}, np.arange(1, 101), 100)
    bars, hist = fig.axes
    assert [p.get_height() for p in bars.patches] == [9, 12, 40, 2, 5]
    assert sum(p.get_height() for p in hist.patches) == 100
    with pytest.raises(PosencError):
        analogy_figure({"a": 1}, {"b": {}}, np.arange(3), 3)


def test_spectra_figure_draws_shares():
    rng = np.random.default_rng(0)
    words = np.array([4.0, 3.0, 2.0, 1.0])
    iso = [rng.uniform(0.9, 1.1, 4) for _ in range(2)]
    positions = np.array([8.0, 1.0, 0.5, 0.5])
    a, b = spectra_figure(words, iso, positions, iso).axes
    np.testing.assert_allclose(a.lines[-1].get_ydata(), [0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(b.lines[-2].get_ydata(), [0.8, 0.9, 0.95, 1.0])  # the line before the 0.9 mark
    assert [t.get_text() for t in a.get_legend().get_texts()] == ["isotropic", "MiniLM words"]
    assert [t.get_text() for t in b.get_legend().get_texts()] == ["isotropic", "MiniLM positions"]
    assert a.get_ylabel() == "share of variance" and b.get_ylabel() == "cumulative share"
    assert np.asarray(b.lines[-1].get_ydata(), dtype=float).tolist() == [0.9, 0.9]
    with pytest.raises(PosencError):
        spectra_figure(words, [], positions, iso)


def test_layer_probe_figure_lines():
    ax = layer_probe_figure(["embeddings", "layer 1 attention"], [0.5, 0.4], [1.0, 0.9], 1 / 128, 0.06).axes[0]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [0.5, 0.4])
    np.testing.assert_allclose(ax.lines[1].get_ydata(), [1.0, 0.9])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["embeddings", "L1 att"]
    with pytest.raises(PosencError):
        layer_probe_figure(["a"], [0.5, 0.4], [1.0], 0.1, 0.1)


def test_spectra_figure_tells_the_tables_apart_by_colour():
    """The isotropic references are one grey; the word table (left) and the position table (right) each have a colour
    of their own, so neither model line reads as a reference nor as the other table."""
    iso = [np.ones(4), np.ones(4)]
    a, b = spectra_figure(np.array([4.0, 3.0, 2.0, 1.0]), iso, np.array([8.0, 1.0, 0.5, 0.5]), iso).axes
    grey = {to_rgba(line.get_color()) for line in [*a.lines[:2], *b.lines[:2]]}
    assert len(grey) == 1  # one colour for every isotropic table
    words, positions = to_rgba(a.lines[-1].get_color()), to_rgba(b.lines[-2].get_color())  # b's last: the 0.9 mark
    assert words not in grey and positions not in grey
    assert words != positions
