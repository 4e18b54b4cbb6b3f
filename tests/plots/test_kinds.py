"""The figure-kind table: each kind's drawing function is found, takes the kind's default sizes as its own defaults,
and the table loads without matplotlib (the CLI lists and checks kinds before any figure is drawn)."""

import inspect
import subprocess
import sys

import pytest

from posenc.names import UnknownName
from posenc.plots.kinds import PLOT_KINDS


@pytest.mark.parametrize("kind", PLOT_KINDS.names())
def test_each_kind_draws_with_its_own_defaults(kind):
    figure = PLOT_KINDS[kind]
    parameters = inspect.signature(figure.draw()).parameters
    assert (parameters["length"].default, parameters["d_model"].default) == (figure.length, figure.d_model)


def test_an_unknown_kind_lists_the_kinds():
    with pytest.raises(UnknownName, match=r"unknown figure kind 'heatmpa'; valid kinds are: heatmap, dims, .* "
                                          r"Did you mean 'heatmap'\?"):
        PLOT_KINDS["heatmpa"]


def test_the_table_imports_no_matplotlib():
    code = "import sys, posenc.plots.kinds; print('matplotlib' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.strip() == "False"
