"""The perplexity-by-length figure: one line per scaling, one panel per protocol."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure

from posenc import PosencError
from posenc.plots.extend import extend_figure


def _result():
    row = {"none": {"4096": {"ppl": 10.0}, "12288": {"ppl": 90.0}},
           "yarn": {"4096": {"ppl": 10.0}, "12288": {"ppl": 12.0}}}
    return {"ppl": {"nonoverlap": row, "sliding": row}, "native_len": 8192, "config": {"model": "smollm2"}}


def test_one_line_per_scaling_and_panel_per_protocol():
    fig = extend_figure(_result())
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines["yarn"].get_xdata()) == [4096, 12288] and list(lines["none"].get_ydata()) == [10.0, 90.0]
    assert "native 8192" in lines  # the native length is marked


def test_empty_result_is_refused():
    with pytest.raises(PosencError, match="no perplexity table"):
        extend_figure({"ppl": {}})


def _passkey():
    # none: 2048 at depths 0 and 1, 12288 at depth 1; yarn: only 12288 at depth 1 (2048 not run for it)
    cells = {"none": {"2048": {"by_depth_counts": {"0.0": {"correct": 20, "n": 20}, "1.0": {"correct": 19, "n": 20}}},
                      "12288": {"trials": [{"depth": 1.0, "correct": i < 3} for i in range(20)]}},
             "yarn": {"12288": {"by_depth_counts": {"1.0": {"correct": 18, "n": 20}}}}}
    return cells


def test_passkey_heatmap_one_panel_per_scaling_cells_labelled():
    from posenc.extend.compare_scalings import passkey_cells
    from posenc.plots.extend import passkey_heatmap

    assert passkey_cells(_passkey())["none"] == {(2048, 0.0): (20, 20), (2048, 1.0): (19, 20), (12288, 1.0): (3, 20)}
    fig = passkey_heatmap(passkey_cells(_passkey()), native_len=8192)
    panels = [ax for ax in fig.axes if ax.get_title() in ("none", "yarn")]
    assert [ax.get_title() for ax in panels] == ["none", "yarn"]
    none, yarn = panels
    assert sorted(t.get_text() for t in none.texts) == ["19/20", "20/20", "3/20"]
    assert [t.get_text() for t in yarn.texts] == ["18/20"]
    grid = yarn.images[0].get_array()  # rows: depths 0, 1; columns: 2048, 12288
    assert grid.mask.tolist() == [[True, True], [True, False]] and grid[1, 1] == pytest.approx(0.9)
    assert [tick.get_text() for tick in none.get_xticklabels()] == ["2048", "12288"]
    assert any(line.get_linestyle() == "--" for line in none.get_lines())  # the native boundary


def test_figures_draw_into_a_subfigure():
    from posenc.extend.compare_scalings import passkey_cells
    from posenc.plots.extend import passkey_heatmap

    fig = Figure()
    top, bottom = fig.subfigures(2, 1)
    extend_figure(_result(), figure=top)
    passkey_heatmap(passkey_cells(_passkey()), figure=bottom)
    assert len(top.axes) == 2 and len(bottom.axes) == 3  # two heatmap panels and the colour bar
    with pytest.raises(PosencError, match="passkey table is empty"):
        passkey_heatmap({"none": {}})


def test_intervals_become_error_bars():
    result = _result()
    result["ppl"]["nonoverlap"]["yarn"]["4096"] = {"ppl": 10.0, "ppl_interval": [9.0, 12.0]}
    ax = extend_figure(result).axes[0]
    (bars,) = ax.containers  # yarn's line only: none has no interval
    segment = bars.lines[2][0].get_segments()[0]  # the vertical bar at 4096
    assert segment[:, 1].tolist() == pytest.approx([9.0, 12.0])
