"""Every figure is drawn in the house style (:mod:`posenc.plots.style`): each figure function of the package runs
under ``HOUSE``, and what it draws holds only the house's text sizes and line widths, whatever matplotlib's own
settings are when it is called."""

import importlib
import inspect
import pkgutil

import matplotlib
import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.legend import Legend
from matplotlib.text import Text
from test_extension_summary_figure import _passkey, _ppl
from test_model_check_figures import _readout
from test_probe_figures import _figures as probe_figures
from test_table_check_figures import _figures as table_check_figures

import posenc
import posenc.plots
from posenc.plots import (
    binary,
    decay,
    dims,
    extend,
    figures,
    heatmap,
    lab,
    model_checks,
    positions,
    ramp,
    rotation,
    tutorial_mechanics,
    tutorial_semantics,
    tutorial_training,
)
from posenc.plots.style import HOUSE, SIZES, WIDTHS, is_styled, styled

#: settings far from the house's: a figure that reads one of them at any point shows it
AWAY = {"font.size": 13.0, "axes.labelsize": 13.0, "xtick.labelsize": 13.0, "ytick.labelsize": 13.0,
        "axes.titlesize": 15.0, "figure.titlesize": 15.0, "legend.fontsize": 11.0, "lines.linewidth": 3.0}


def _figure_functions():
    """``{"module.name": function}``: every public function of ``posenc.plots`` that returns a figure."""
    found = {}
    for info in pkgutil.iter_modules(posenc.plots.__path__):
        module = importlib.import_module(f"posenc.plots.{info.name}")
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            if not inspect.isfunction(value):
                continue
            returns = inspect.signature(value).return_annotation  # a string: the modules postpone annotations
            if "Figure" in str(returns) or returns is inspect.Signature.empty and name.endswith("_figure"):
                found[f"{info.name}.{name}"] = value
    return found


def test_every_figure_function_runs_in_the_house_style():
    functions = _figure_functions()
    assert len(functions) >= 50 and "heatmap.heatmap" in functions and "lab.metric_vs_length" in functions
    assert [name for name, function in functions.items() if not is_styled(function)] == []


def test_the_wrapper_keeps_the_function_and_leaves_the_settings_as_they_were():
    def draw(encoding: str, length: int = 3) -> float:
        """Draw."""
        return matplotlib.rcParams["legend.fontsize"]

    styled_draw = styled(draw)
    assert (styled_draw.__name__, styled_draw.__doc__) == ("draw", "Draw.")
    assert inspect.signature(styled_draw) == inspect.signature(draw)
    assert not is_styled(draw) and is_styled(styled_draw)
    with matplotlib.rc_context(AWAY):
        assert styled_draw("x") == HOUSE["legend.fontsize"]
        assert matplotlib.rcParams["legend.fontsize"] == AWAY["legend.fontsize"]


def _curves():
    return {"rope": {0.5: (0.9, 0.8, 1.0), 2.0: (0.2, 0.1, 0.3)}, "nope": {1.0: (0.6, 0.5, 0.7)}}


def _drawn():
    """``{"module.name": figure}``: figures of every module, from small inputs (most from the modules' own tests)."""
    rng = np.random.default_rng(0)
    sinusoid = posenc.build("sinusoidal", dim=32)
    bits = np.array([[(p >> j) & 1 for j in range(4)] for p in range(40)])
    cell = {"mean": 0.5, "std": 0.1}
    summary = {"sweep": "s", "metric": "exact_match", "train_len": {"copy": 4},
               "series": {"copy": {"learned": {"4": cell, "8": cell, "16": {"mean": None, "std": None}}}}}
    run = [[0, 0.1, 0.2], [10, 0.5, 0.4]]
    drawn = {f"tutorial_checks.{name}": fig for name, fig in table_check_figures().items()}
    drawn |= {f"probe.{name}": fig for name, fig in probe_figures().items()}
    drawn |= {
        "binary.binary_figure": binary.binary_figure(sinusoid, length=16, d_model=32, n=8),
        "decay.decay_figure": decay.decay_figure(posenc.build("alibi", n_heads=4), length=64, d_model=16),
        "dims.dims_figure": dims.dims_figure(sinusoid, length=32, d_model=32),
        "heatmap.heatmap": heatmap.heatmap(posenc.build("rope", head_dim=8), 16, 8),
        "positions.positions_figure": positions.positions_figure(sinusoid, length=16, d_model=32),
        "ramp.ramp_figure": ramp.ramp_figure(posenc.build("rope", head_dim=32, scaling={"type": "yarn", "factor": 4.0,
                                                                                "original_max_len": 2048}),
                                             length=256, d_model=32),
        "rotation.rotation_figure": rotation.rotation_figure(sinusoid, length=32, d_model=32),
        "figures.make_figure": figures.make_figure("sinusoidal", "dims", length=32, d_model=16),
        "extend.extension_summary_figure": extend.extension_summary_figure(_ppl(), "nonoverlap", 8192, "smollm2",
                                                                           _passkey(), 20),
        "extend.passkey_heatmap": extend.passkey_heatmap(_passkey(), 4096),
        "lab.metric_vs_length": lab.metric_vs_length(summary),
        "lab.accuracy_by_size_figure": lab.accuracy_by_size_figure(_curves(), 1.0, "a title"),
        "lab.in_distribution_bars_figure": lab.in_distribution_bars_figure(
            ["copy", "sort"], {"learned": [(0.9, 0.8, 1.0), (0.5, 0.4, 0.6)], "rope": [(0.7, 0.6, 0.8)] * 2}, 0.95),
        "lab.perplexity_by_length_figure": lab.perplexity_by_length_figure(
            {"alibi": {32: (5.0, 4.0, 6.0), 64: (5.5, 5.0, 6.5)}}, 32),
        "model_checks.word_order_figure": model_checks.word_order_figure({"no positions": 0.0, "sinusoid": 0.4},
                                                                         ["C3", "C0"], 1e-5),
        "model_checks.ffn_permutation_figure": model_checks.ffn_permutation_figure({"FFN": 0.0, "block": 0.7},
                                                                                   ["C0", "C3"]),
        "model_checks.add_concat_readout_figure": model_checks.add_concat_readout_figure([8, 32], _readout([8, 32])),
        "tutorial_mechanics.order_effect_figure": tutorial_mechanics.order_effect_figure({"RNN": 1.4}, 0.0, 1e-3),
        "tutorial_mechanics.frequency_order_figure": tutorial_mechanics.frequency_order_figure(
            bits, 10000.0 ** (-np.arange(0, 16, 2) / 16)),
        "tutorial_mechanics.table_cost_figure": tutorial_mechanics.table_cost_figure([64, 128], [0.5, 0.9], 300.0),
        "tutorial_semantics.analogy_figure": tutorial_semantics.analogy_figure(
            {"a": 9, "b": 2}, {"a": {"x": 12, "y": 40}, "b": {"z": 5}}, np.arange(1, 101), 100),
        "tutorial_semantics.spectra_figure": tutorial_semantics.spectra_figure(
            np.array([4.0, 3.0, 2.0, 1.0]), [rng.uniform(0.9, 1.1, 4)], np.array([8.0, 1.0, 0.5, 0.5]),
            [rng.uniform(0.9, 1.1, 4)]),
        "tutorial_semantics.layer_probe_figure": tutorial_semantics.layer_probe_figure(
            ["embeddings", "layer 1 attention"], [0.5, 0.4], [1.0, 0.9], 1 / 128, 0.06),
        "tutorial_training.validation_curves_figure": tutorial_training.validation_curves_figure(
            {"copy": {"rope": [[[0, 0.1], [10, 0.5]], [[0, 0.3]]]}}, 0.95),
        "tutorial_training.orthogonality_figure": tutorial_training.orthogonality_figure({"rope": [run, run]}, 0.1),
    }
    return drawn


@pytest.fixture(scope="module")
def drawn():
    """The figures, drawn and then read under settings far from the house's (:data:`AWAY`)."""
    with matplotlib.rc_context(AWAY):
        yield _drawn()


def test_a_figure_of_every_module_is_drawn(drawn):
    assert {name.split(".")[0] for name in drawn} == {name.split(".")[0] for name in _figure_functions()}


def test_every_legend_is_in_the_house_size(drawn):
    sizes = {name: {t.get_fontsize() for legend in fig.findobj(Legend) for t in legend.get_texts()}
             for name, fig in drawn.items()}
    assert sum(bool(s) for s in sizes.values()) >= 35  # the rule below is not empty
    assert {name: s for name, s in sizes.items() if s - {HOUSE["legend.fontsize"]}} == {}


def test_every_text_is_in_a_house_size(drawn):
    # titles, axis and tick labels, colour-bar labels, legends, numbers in cells, notes
    odd = {name: sorted({(t.get_fontsize(), t.get_text()) for t in fig.findobj(Text)
                         if t.get_fontsize() not in SIZES})[:3]
           for name, fig in drawn.items()}
    assert {name: texts for name, texts in odd.items() if texts} == {}
    used = {t.get_fontsize() for fig in drawn.values() for t in fig.findobj(Text)}
    assert used == set(SIZES)  # every house size is in use: none is left over


def _widths(fig):
    """The width of every line the figure draws: lines and their legend handles, error bars and segments, step
    histograms' outlines."""
    widths = []
    for ax in fig.axes:
        widths += [line.get_linewidth() for line in ax.get_lines()]
        widths += [w for c in ax.collections if isinstance(c, LineCollection) and c.get_segments()  # not a colour
                   for w in c.get_linewidths()]  # bar's empty dividers
        widths += [p.get_linewidth() for p in ax.patches if not p.get_fill()]
    widths += [line.get_linewidth() for legend in fig.findobj(Legend) for line in legend.get_lines()]
    return widths


def test_every_line_is_in_a_house_width(drawn):
    widths = {name: _widths(fig) for name, fig in drawn.items()}
    assert {name: sorted(set(w) - WIDTHS) for name, w in widths.items() if set(w) - WIDTHS} == {}
    assert {w for ws in widths.values() for w in ws} == set(WIDTHS)
