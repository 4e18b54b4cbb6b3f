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

#: options whose value must be one of a few names, a value that is none of them, and what the error says: the value
#: given and the names that fit
BAD_CHOICES = {
    "plot": (["rope", "--kind", "pie"], ["unknown figure kind 'pie'", "valid kinds are: heatmap, dims, positions"]),
    "train": (["--fmt", "seq2seq"], ["fmt must be one of ('decoder', 'encoder'), got 'seq2seq'"]),
    "sweep": (["--preset", "quick", "--executor", "slurm"], ["unknown executor 'slurm'; valid executors are: local, ray"]),
    "bench": (["--dtype", "float8"], ["dtype must be one of ['float32', 'bfloat16', 'float16'], got 'float8'"]),
    "extend": (["--dtype", "float8"], ["unknown dtype 'float8'; use one of: float32, bfloat16, float16"]),
    "probe": (["minilm", "--only", "nosuch"], ["unknown probe(s) ['nosuch'] for --only; valid probes are: geometry, "
                                               "decodability, four_terms, heads, rope"]),
    "check": (["nosuch"], ["unknown encoding 'nosuch'; valid encodings are: alibi,"]),
    "show": (["nosuch"], ["unknown encoding 'nosuch'; valid encodings are: alibi,"]),
    "explore": (["--lang", "fr"], ["--lang must be one of zh, en, got 'fr'"]),
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
    """Each case with the fragments its message must hold: what was given, what fits, and the fix (the usage line
    and where the help is)."""
    cases = []
    for command, callback in _commands().items():
        required, numeric = _params(callback)
        placeholders = ["x"] * len(required)
        fix = [f"Usage: posenc {command}", f"Try 'posenc {command} -h' for help."]
        cases.append(pytest.param([command, *placeholders, "--no-such-option"],
                                  ["No such option: --no-such-option", *fix], id=f"{command}-unknown-option"))
        if required:
            cases.append(pytest.param([command], [f"Missing argument '{required[0]}'", *fix],
                                      id=f"{command}-missing-argument"))
        if numeric:
            # what was given, as it was given: typer's own message ("Input should be a valid integer") names neither
            cases.append(pytest.param([command, *placeholders, numeric[0], "abc"],
                                      [f"Invalid value for '{numeric[0]}'", "valid", f"(got {numeric[0]} abc)", *fix],
                                      id=f"{command}-wrong-type"))
        if command in BAD_CHOICES:
            argv, fragments = BAD_CHOICES[command]
            cases.append(pytest.param([command, *argv], ["error: ", *fragments], id=f"{command}-bad-choice"))
    return cases


def test_every_subcommand_is_enumerated():
    names = set(_commands())
    assert names == {"list", "show", "inspect", "check", "plot", "probe", "train", "sweep", "extend", "report",
                     "bench", "explore"}
    assert _params(_commands()["plot"])[0] == ["name"] and "--length" in _params(_commands()["check"])[1]


@pytest.mark.parametrize("argv, fragments", _cases())
def test_usage_error_exits_2_without_traceback(argv, fragments, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a case that got past its checks would write here, not in the checkout
    code = main(argv)
    out, err = capsys.readouterr()
    output = out + err
    assert code == 2, output
    assert "Traceback" not in output
    message = " ".join(err.split())
    for fragment in fragments:
        assert fragment in message, err
    assert len(output.splitlines()) <= 12, output  # a short message, not a dump


def test_a_value_of_the_wrong_type_is_named_however_it_is_written(capsys):
    # --name value and --name=value: the message quotes the option as it was written
    for argv, option, got in ((["show", "rope", "--length", "1.5"], "--length", "(got --length 1.5)"),
                              (["show", "rope", "--length=1.5"], "--length", "(got --length=1.5)"),
                              (["extend", "--factor", "two"], "--factor", "(got --factor two)"),
                              (["sweep", "--workers", "-"], "--workers", "(got --workers -)")):
        assert main(argv) == 2
        message = " ".join(capsys.readouterr().err.split())
        assert f"Error: Invalid value for '{option}': " in message and message.endswith(got), message


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
