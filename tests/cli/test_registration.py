"""Every subcommand is registered by name, and every command the README and docs/ show exists and has --help."""

import importlib
import pkgutil
import re
from pathlib import Path

import pytest
import typer

import posenc.cli
from posenc.cli import app, main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
REGISTERED = {info.name for info in app.registered_commands}


def _shown_commands() -> dict[str, set[str]]:
    """Command -> the files that show it: inline code ```posenc CMD ...``` and code-block lines that start with
    ``posenc CMD`` (prose such as "posenc gives you" is neither)."""
    found: dict[str, set[str]] = {}
    for path in DOCS:
        text = path.read_text()
        names = re.findall(r"`posenc ([a-z][a-z-]*)", text)
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S):
            names += re.findall(r"^\s*(?:\$\s*)?posenc ([a-z][a-z-]*)", block, flags=re.M)
        for name in names:
            found.setdefault(name, set()).add(path.name)
    return found


SHOWN = _shown_commands()


def test_the_docs_are_read():
    assert {"list", "show", "check", "plot", "probe", "train", "sweep", "extend", "report", "bench"} <= set(SHOWN)


@pytest.mark.parametrize("command", sorted(SHOWN))
def test_every_command_the_docs_show_is_registered_and_has_help(command, capsys):
    assert command in REGISTERED, f"`posenc {command}` ({', '.join(sorted(SHOWN[command]))}) is not registered"
    assert main([command, "--help"]) == 0
    assert f"Usage: posenc {command}" in capsys.readouterr().out


def test_every_registered_command_is_in_the_readme():
    readme = set(re.findall(r"`posenc ([a-z][a-z-]*)", (ROOT / "README.md").read_text()))
    assert REGISTERED <= readme, sorted(REGISTERED - readme)


def test_every_command_module_is_registered():
    """A module of posenc.cli with ``register(app)`` that ``posenc.cli`` forgot to call would add nothing."""
    modules = 0
    for info in pkgutil.iter_modules(posenc.cli.__path__):
        if info.name.startswith("_"):  # __main__ runs the command line
            continue
        module = importlib.import_module(f"posenc.cli.{info.name}")
        if not hasattr(module, "register"):
            continue
        scratch = typer.Typer()
        module.register(scratch)
        names = {command.name for command in scratch.registered_commands}
        assert names and names <= REGISTERED, f"posenc.cli.{info.name} adds {sorted(names - REGISTERED)}"
        modules += 1
    assert modules == 9  # encodings, inspect, check, probe, lab, extend, report, explore, bench


#: the commands each module of posenc.cli registers, written from README.md's command list
BY_MODULE = {"encodings": {"list", "show"}, "inspect": {"inspect"}, "check": {"check", "plot"}, "probe": {"probe"},
             "lab": {"train", "sweep"}, "extend": {"extend"}, "report": {"report"}, "explore": {"explore"},
             "bench": {"bench"}}


@pytest.mark.parametrize("module", sorted(BY_MODULE))
def test_each_command_module_registers_its_commands_and_no_other(module):
    scratch = typer.Typer()
    importlib.import_module(f"posenc.cli.{module}").register(scratch)
    assert {command.name for command in scratch.registered_commands} == BY_MODULE[module]


def test_the_registered_commands_are_those_of_the_modules():
    assert REGISTERED == set().union(*BY_MODULE.values())
    assert len(app.registered_commands) == 12  # each registered once
