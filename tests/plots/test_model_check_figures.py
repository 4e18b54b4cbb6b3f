"""The figures of the random-weight model checks hold the numbers they are given (zeros lifted to the log axis'
floor), in the given colours, and refuse inputs that do not line up."""

import numpy as np
import pytest
from matplotlib.colors import to_rgba

from posenc.errors import PosencError
from posenc.plots.model_checks import add_concat_readout_figure, ffn_permutation_figure, word_order_figure


def test_word_order_bars_floor_zero_and_mark_the_same_line():
    differences = {"no positions": 0.0, "sinusoid": 0.4, "causal": 2e-3}
    fig = word_order_figure(differences, ["C3", "C0", "C1"], 1e-5)
    (ax,) = fig.axes
    bars = ax.patches
    assert [b.get_height() for b in bars] == [1e-9, 0.4, 2e-3]  # 0 cannot sit on a log axis: drawn at 1e-9
    assert [b.get_facecolor() for b in bars] == [to_rgba(c) for c in ("C3", "C0", "C1")]
    assert [t.get_text() for t in ax.get_xticklabels()] == list(differences)
    assert ax.get_yscale() == "log"
    (same,) = ax.lines
    assert np.asarray(same.get_ydata(), dtype=float).tolist() == [1e-5, 1e-5]


def test_ffn_bars_one_per_case():
    errors = {"FFN": 0.0, "block with RoPE": 0.7}
    ax = ffn_permutation_figure(errors, ["C0", "C3"]).axes[0]
    assert [b.get_height() for b in ax.patches] == [1e-10, 0.7]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["FFN", "block with RoPE"]
    assert ax.patches[1].get_facecolor() == to_rgba("C3")


def test_bar_figures_want_one_colour_per_bar():
    with pytest.raises(PosencError, match=r"2 colours \['C0', 'C1'\] for 3 bars"):
        word_order_figure({"a": 1.0, "b": 1.0, "c": 1.0}, ["C0", "C1"], 1e-5)
    with pytest.raises(PosencError, match="1 colours"):
        ffn_permutation_figure({"a": 1.0, "b": 1.0}, ["C0"])


def _readout(widths):
    # a made-up pattern that differs per key and width, so a line read from the wrong key shows
    keys = ("add_token", "add_position", "concat_token", "concat_position")
    return {str(d): {k: (i + 1) / 10 + d / 1000 for i, k in enumerate(keys)} for d in widths}


def test_readout_lines_hold_each_accuracy_by_width():
    widths = [8, 32, 128]
    readout = _readout(widths)
    ax = add_concat_readout_figure(widths, readout).axes[0]
    assert [line.get_label() for line in ax.lines] == ["add: token", "add: position", "concat: token",
                                                         "concat: position"]
    for line, key in zip(ax.lines, ("add_token", "add_position", "concat_token", "concat_position"), strict=True):
        assert np.asarray(line.get_xdata()).tolist() == widths
        assert np.asarray(line.get_ydata()).tolist() == [readout[str(d)][key] for d in widths]
    assert [line.get_linestyle() for line in ax.lines] == ["-", "-", "--", "--"]  # sum solid, concatenation dashed
    assert [t.get_text() for t in ax.get_xticklabels()] == ["8", "32", "128"]
    assert ax.get_xscale() == "log" and ax.get_ylim() == (0, 1.05)


def test_readout_refuses_a_missing_width_or_key():
    readout = _readout([8])
    with pytest.raises(PosencError, match="no add_token, add_position, concat_token, concat_position at width 32"):
        add_concat_readout_figure([8, 32], readout)
    del readout["8"]["concat_position"]
    with pytest.raises(PosencError, match="no concat_position at width 8"):
        add_concat_readout_figure([8], readout)
