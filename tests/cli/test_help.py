"""Help texts are whole: no option's description is cut short, and plot lists every figure kind."""

import pytest

from posenc.cli import app, main
from posenc.plots.kinds import PLOT_KINDS

COMMANDS = [info.name for info in app.registered_commands]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_is_not_truncated(command, capsys):
    assert main([command, "--help"]) == 0
    assert "…" not in capsys.readouterr().out  # rich cuts an unbreakable text short with an ellipsis


def test_plot_help_lists_every_kind(capsys):
    kinds = PLOT_KINDS.names()
    assert len(kinds) == 7  # the tutorials' figures: posenc.plots.kinds's doctest lists them
    assert main(["plot", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"--kind <str> one of: {', '.join(kinds)}" in text
