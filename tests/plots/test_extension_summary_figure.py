"""The context-extension page figure: the perplexity panel on top, the passkey heatmap below, both from the given
tables, the native length marked and the trials in the heatmap's title."""

import numpy as np
import pytest

from posenc.errors import PosencError
from posenc.extend.compare_scalings import passkey_cells
from posenc.plots.extend import extension_summary_figure


def _ppl():
    return {"none": {"8192": {"ppl": 12.0, "ppl_interval": [11.0, 13.0]}, "12288": {"ppl": 900.0}},
            "yarn": {"8192": {"ppl": 12.0, "ppl_interval": [11.0, 13.0]},
                     "12288": {"ppl": 15.0, "ppl_interval": [14.0, 17.0]}}}


def _passkey():
    """The passkey trials counted per cell, as the figures take them."""
    return passkey_cells({"none": {"2048": {"by_depth_counts": {"0.95": {"correct": 19, "n": 20}}}},
            "yarn": {"2048": {"by_depth_counts": {"0.95": {"correct": 19, "n": 20}}},
                     "12288": {"trials": [{"depth": 0.95, "correct": i < 12} for i in range(20)]}}})


def test_perplexity_on_top_passkey_below():
    fig = extension_summary_figure(_ppl(), "nonoverlap", 8192, "smollm2", _passkey(), 20)
    top, bottom = fig.subfigs
    (ax,) = top.axes
    assert ax.get_title() == "non-overlapping windows"
    assert top.get_suptitle() == "smollm2: perplexity by length and RoPE scaling"
    scalings = {c.get_label(): c for c in ax.containers}  # each has an interval somewhere: error bars
    assert list(scalings) == ["none", "yarn"]
    assert np.asarray(scalings["none"].lines[0].get_ydata(), dtype=float).tolist() == [12.0, 900.0]
    assert np.asarray(scalings["yarn"].lines[0].get_xdata(), dtype=float).tolist() == [8192, 12288]
    assert scalings["yarn"].lines[2][0].get_segments()[1][:, 1].tolist() == pytest.approx([14.0, 17.0])
    assert "native 8192" in [line.get_label() for line in ax.get_lines()]
    panels = [a for a in bottom.axes if a.images]
    assert [a.get_title() for a in panels] == ["none", "yarn"]
    assert sorted(t.get_text() for t in panels[1].texts) == ["12/20", "19/20"]
    assert bottom.get_suptitle() == "passkey retrieval, 20 trials per cell (grey: not run within the budget)"
    assert tuple(fig.get_size_inches()) == (8.5, 7.5)


def test_an_empty_table_is_refused():
    with pytest.raises(PosencError, match="the nonoverlap perplexity table has a scaling without lengths"):
        extension_summary_figure({}, "nonoverlap", 8192, "smollm2", _passkey(), 20)
    with pytest.raises(PosencError, match="a scaling without lengths"):
        extension_summary_figure({"none": {}}, "nonoverlap", 8192, "smollm2", _passkey(), 20)
    with pytest.raises(PosencError, match="passkey table is empty"):
        extension_summary_figure(_ppl(), "nonoverlap", 8192, "smollm2", {"none": {}}, 20)
