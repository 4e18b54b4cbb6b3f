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
