"""What every command shares (posenc.cli.command and the entry point): --version, -h, shell completion, flags shown
without a value type, one rule for an option given twice, and help texts that name only what the parser takes."""

import re
import shlex
import subprocess
import sys

import pytest
import typer

from posenc.cli import app, main
from posenc.cli.options import parse_options
from posenc.lab.lab_task import LAB_TASKS
from posenc.lab.train import RunConfig
from posenc.model import ModelConfig

CLI = [sys.executable, "-c", "import sys; from posenc.cli import main; sys.exit(main())"]


def _commands() -> dict:
    group = typer.main.get_command(app)
    return {name: group.get_command(None, name) for name in group.list_commands(None)}


def test_version_and_short_help(capsys):
    import tomllib
    from pathlib import Path

    version = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]["version"]
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"posenc {version}\n"  # the version the package is published under
    assert main(["-h"]) == 0
    assert "Usage: posenc [OPTIONS] COMMAND" in capsys.readouterr().out
    for name in _commands():
        assert main([name, "-h"]) == 0
        assert f"Usage: posenc {name}" in capsys.readouterr().out


def test_shell_completion_is_offered_and_completes(tmp_path, monkeypatch, capsys):
    # typer finds the shell it is asked from (here a bash, as at a terminal; under make or CI the parent is sh)
    # ("; exit $?" keeps bash as the parent: a lone command would replace it)
    done = subprocess.run(["bash", "-c", shlex.join(CLI + ["--show-completion"]) + "; exit $?"], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0 and "_POSENC_COMPLETE" in done.stdout.upper(), done.stderr
    # the script an installed completion sources, whatever shell started posenc (the entry point's own call, in this
    # process: completion answers and exits before any command runs)
    monkeypatch.setenv("_POSENC_COMPLETE", "source_bash")
    with pytest.raises(SystemExit) as done:
        main([])
    assert done.value.code == 0 and "complete -o default -F _posenc_completion posenc" in capsys.readouterr().out
    # what the shell runs on <TAB> after "posenc sh": the commands that start so
    for name, value in {"_POSENC_COMPLETE": "complete_bash", "COMP_WORDS": "posenc sh", "COMP_CWORD": "1"}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit):
        main([])
    out, err = capsys.readouterr()
    assert out.split() == ["show"], out + err


def test_flags_show_no_value_type():
    # typer printed "<bool>" beside --quick, --help and every other flag
    group = typer.main.get_command(app)
    ctx = typer.Context(group)
    for param in group.get_params(ctx):
        if getattr(param, "is_flag", False):
            assert param.display_type_rich(ctx) == "", param.name
    for name, command in _commands().items():
        sub = typer.Context(command, parent=ctx, info_name=name)
        for param in command.get_params(sub):
            if getattr(param, "is_flag", False):
                assert param.display_type_rich(sub) == "", (name, param.name)


def _help(command: str) -> str:
    """``posenc COMMAND --help`` into a real pipe."""
    done = subprocess.run(CLI + [command, "--help"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0
    return done.stdout


def _help_here(command: str, capsys) -> str:
    """``posenc COMMAND --help`` in this process, into captured output (not a terminal, as a pipe)."""
    capsys.readouterr()
    assert main([command, "--help"]) == 0
    return capsys.readouterr().out


def test_help_names_every_task_and_no_internal_sentence(capsys):
    text = _help_here("train", capsys)
    task_line = next(line for line in text.splitlines() if line.strip().startswith("--task"))
    names = task_line.split("one of: ", 1)[1].split("  [default")[0].split(", ")
    # every task `posenc train --task` takes, in the table's order (docs/lab.md)
    assert names == LAB_TASKS.choices and names[:3] == ["copy", "reverse", "sort"]
    assert task_line.endswith("[default: copy]")
    dtype_line = next(line for line in text.splitlines() if line.strip().startswith("--dtype"))
    assert "as_dict" not in dtype_line and "store keys" not in dtype_line


def test_the_option_example_in_help_is_taken_by_the_parser(capsys):
    line = next(line for line in _help_here("train", capsys).splitlines() if line.strip().startswith("-o, --option"))
    example = re.search(r"on the command line (-o \S+(?: -o \S+)*)", line).group(1)
    pairs = shlex.split(example)[1::2]
    model = ModelConfig(encoding="sinusoidal", encoding_options=parse_options(pairs))
    assert RunConfig(model=model).model.encoding_options == {"combine": "concat", "dim": 16}


def test_help_in_a_pipe_is_plain_and_unwrapped():
    text = _help("check")
    assert "\x1b[" not in text and "│" not in text and "<bool>" not in text
    threads = [line for line in text.splitlines() if "--threads" in line]
    assert len(threads) == 1 and "avoids oversubscription on a busy machine" in threads[0]  # one line, not wrapped


@pytest.mark.parametrize("argv, option", [(["sweep", "--workers", "1", "--workers", "2"], "--workers"),
                                          (["show", "rope", "--length", "8", "--length=9"], "--length")])
def test_an_option_given_twice_is_one_usage_error(argv, option, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"option {option} was given 2 times" in " ".join(err.split())


def test_an_aborted_command_says_aborted_and_exits_130(monkeypatch, capsys):
    # typer.Abort: what a command raises to give up, and what typer raises when input ends (Ctrl-D at a prompt)
    def abort(*args, **kwargs):
        raise typer.Abort()

    monkeypatch.setattr("posenc.registry.available", abort)  # the first call of `posenc list`
    assert main(["list"]) == 130
    out, err = capsys.readouterr()
    assert err.split() == ["aborted"] and out == ""


@pytest.mark.parametrize("message, shown", [("kept 3 runs in runs/lab.sqlite; run the same command to resume",
                                             "kept 3 runs in runs/lab.sqlite; run the same command to resume"),
                                            ("", "aborted")])
def test_ctrl_c_in_a_command_says_what_was_kept_and_exits_130(message, shown, monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt(message) if message else KeyboardInterrupt

    monkeypatch.setattr("posenc.registry.available", interrupted)
    assert main(["list"]) == 130
    out, err = capsys.readouterr()
    assert err == shown + "\n" and out == "" and "Traceback" not in err


@pytest.mark.parametrize("argv", [
    ["show", "rope", "-o", "base=1000", "-o", "pairing=half", "--option", "rotary_dim=32", "--help"],  # -o collects
    ["bench", "--mode", "in-place", "--mode", "backward", "--only", "posenc", "--only", "hf", "--help"],
    ["report", "--claim", "sin-bounded", "--claim", "word-order", "--help"],
    ["sweep", "--set", "steps=5", "--set", "lr=1e-3", "--help"],
])
def test_options_that_collect_values_may_be_repeated(argv, capsys):
    assert main(argv) == 0  # --help: parsed, then nothing run
    assert "was given" not in capsys.readouterr().err


def test_an_option_after_a_double_dash_is_not_counted_twice(capsys):
    # "--" ends the options: what follows is an argument, even when it reads like an option
    from posenc.cli.command import _occurrences

    group = typer.main.get_command(app)
    length = next(p for p in group.get_command(None, "show").params if p.name == "length")
    assert _occurrences(length, ["rope", "--length", "8", "--", "--length", "9"]) == ["--length 8"]
    assert _occurrences(length, ["--length=8", "--length", "9"]) == ["--length=8", "--length 9"]
    assert _occurrences(length, ["--lengths", "8", "--length"]) == ["--length"]  # last, without a value
