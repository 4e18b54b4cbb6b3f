"""Every usage error of every subcommand: a short usage message, exit status 2, never a traceback.

The subcommands and their options are read from the typer app, so a new subcommand (or a new required argument, a
new integer option) is covered without editing this file. Each case runs in this process through
:func:`posenc.cli.main`, what the ``posenc`` entry point calls; one case runs the real entry point in a subprocess.
"""

import inspect
import subprocess
import sys
import typing

import pytest
import typer.models

from posenc.cli import app, main

#: options whose value must be one of a few names, and a value that is none of them
BAD_CHOICES = {
    "plot": ["x", "--kind", "pie"],
    "train": ["--fmt", "seq2seq"],
    "sweep": ["--preset", "quick", "--executor", "slurm"],
    "bench": ["--dtype", "float8"],
    "extend": ["--dtype", "float8"],
    "probe": ["minilm", "--only", "nosuch"],
    "check": ["nosuch"],
    "show": ["nosuch"],
}


def _commands() -> dict[str, typing.Callable]:
    return {info.name or info.callback.__name__.replace("_", "-"): info.callback for info in app.registered_commands}


def _params(callback):
    """``(required argument names, options with an int or float value)`` of a command's callback."""
    hints = typing.get_type_hints(callback)
    required, numeric = [], []
    for name, param in inspect.signature(callback).parameters.items():
        info = param.default
        if isinstance(info, typer.models.ArgumentInfo) and info.default is ...:
            required.append(name)
        if isinstance(info, typer.models.OptionInfo) and hints.get(name) in (int, float):
            decls = [d for d in (info.param_decls or ()) if d.startswith("--")]
            numeric.append(decls[0] if decls else "--" + name.replace("_", "-"))
    return required, numeric


def _cases():
    cases = []
    for command, callback in _commands().items():
        required, numeric = _params(callback)
        placeholders = ["x"] * len(required)
        cases.append(pytest.param([command, *placeholders, "--no-such-option"], id=f"{command}-unknown-option"))
        if required:
            cases.append(pytest.param([command], id=f"{command}-missing-argument"))
        if numeric:
            cases.append(pytest.param([command, *placeholders, numeric[0], "abc"], id=f"{command}-wrong-type"))
        if command in BAD_CHOICES:
            cases.append(pytest.param([command, *BAD_CHOICES[command]], id=f"{command}-bad-choice"))
    return cases


def test_every_subcommand_is_enumerated():
    names = set(_commands())
    assert {"list", "show", "check", "plot", "probe", "train", "sweep", "extend", "report", "bench"} <= names
    assert _params(_commands()["plot"])[0] == ["name"] and "--length" in _params(_commands()["check"])[1]


@pytest.mark.parametrize("argv", _cases())
def test_usage_error_exits_2_without_traceback(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    output = out + err
    assert code == 2, output
    assert "Traceback" not in output
    assert "Error" in output or "error:" in output
    assert len(output.splitlines()) <= 12, output  # a short message, not a dump


def test_a_usage_error_shows_the_usage_line_a_hint_and_the_error(capsys):
    assert main(["check", "rope", "--d-modle", "64"]) == 2
    err = capsys.readouterr().err
    assert "Usage: posenc check" in err  # how the command is written, before the error
    assert "No such option: --d-modle" in err and "--d-model" in err  # what was given, and the option it meant


def test_usage_message_names_the_command_and_the_fix():
    result = subprocess.run([sys.executable, "-m", "posenc", "check", "rope", "--d-modle", "64"], capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 2
    assert "Usage: posenc check" in result.stderr and "--d-model" in result.stderr  # the option it meant
