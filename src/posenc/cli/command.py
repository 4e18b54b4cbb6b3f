"""How every ``posenc`` command reads its command line, beyond typer's own rules: one class for all of them.

- An option given twice is an error (``--length 16 --length 32``, ``--progress --no-progress``), never "the last
  one wins": the message names the option, every value given, and the fix. Options that collect values
  (``-o``, ``--set``, ``--only``, ``--claim``, ``--mode``) are repeated on purpose and stay repeatable, but one
  value given twice in them is an error too (``--claim X --claim X`` would run claim X twice); their ``KEY=VALUE``
  items are checked for a key given twice by :func:`posenc.cli.options.parse_options`.
- A value of the wrong type is named as it was given (``Invalid value for '--length': Input should be a valid
  integer, ... (got --length 1.5)``): typer's own message names the type only.
- A flag shows no value type in ``--help`` (typer would print ``<bool>`` beside ``--quick`` and ``--help``).
- Ctrl-C prints what the command kept and how to resume (an :class:`~posenc.errors.Interrupted`'s message), or
  ``aborted``, and exits with status 130.
- ``--help`` into a pipe or a file is plain text, each option's help on one line (typer's boxes would be wrapped at
  80 columns, mid-sentence); on a terminal it is typer's.

:func:`posenc.cli.main` gives every registered command this class, so a new command follows the same rules without a
line of its own.
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from posenc.progress import is_terminal

__all__ = ["PosencCommand", "PosencGroup", "repeated_options", "repeated_values"]


def _occurrences(param: Any, args: list[str]) -> list[str]:
    """How ``param`` appears in ``args``: ``--name value``, ``--name=value`` or ``--flag`` for each time it is given."""
    names = [*param.opts, *getattr(param, "secondary_opts", [])]
    seen = []
    for i, token in enumerate(args):
        if token == "--":
            break
        if token in names:
            takes_value = not getattr(param, "is_flag", False) and not getattr(param, "count", False)
            seen.append(f"{token} {args[i + 1]}" if takes_value and i + 1 < len(args) else token)
        elif any(token.startswith(name + "=") for name in names if name.startswith("--")):
            seen.append(token)
    return seen


def repeated_options(command: Any, ctx: Any, args: list[str]) -> list[tuple[str, list[str]]]:
    """``[(option, [each time it was given])]`` for every option of ``command`` that ``args`` give more than once
    and that does not collect values (``multiple``) or count (``-vv``)."""
    parser = command.make_parser(ctx)
    _, _, order = parser.parse_args(args=list(args))  # a usage error here is raised as it would be anyway
    counts: dict[int, int] = {}
    params = {}
    for param in order:
        counts[id(param)] = counts.get(id(param), 0) + 1
        params[id(param)] = param
    repeated = []
    for key, count in counts.items():
        param = params[key]
        if count > 1 and param.param_type_name == "option" and not param.multiple and not param.count:
            repeated.append((param.opts[0], _occurrences(param, list(args))))
    return repeated


def repeated_values(command: Any, ctx: Any, args: list[str]) -> list[tuple[str, str, int]]:
    """``[(option, value, times)]`` for every value given more than once to an option of ``command`` that collects
    values (``multiple``), read from the parsed ``ctx.params``; ``option`` as ``args`` spell it (``-o``)."""
    repeated = []
    for param in command.get_params(ctx):
        if param.param_type_name != "option" or not param.multiple:
            continue
        values = [str(value) for value in ctx.params.get(param.name) or ()]
        spelled = [name for name in param.opts if name in args] or param.opts[:1]
        for value in dict.fromkeys(values):  # in the order given
            if values.count(value) > 1:
                repeated.append((spelled[0], value, values.count(value)))
    return repeated


#: the width of ``--help`` in a pipe: no wrapping short of it
PIPE_WIDTH = 400


def _plain_help(command: Any, ctx: Any, formatter: Any, typer_class: type) -> bool:
    """Write click's plain help, unwrapped, when standard output is not a terminal; ``False`` on a terminal.
    ``typer_class`` is the typer class ``command`` derives from: the help is that of the click class below it (typer's
    own is its rich boxes)."""
    if is_terminal(sys.stdout):
        return False
    formatter.width = PIPE_WIDTH
    super(typer_class, command).format_help(ctx, formatter)
    return True


def _flags_without_type(params: list[Any]) -> list[Any]:
    for param in params:
        if getattr(param, "is_flag", False) and param.metavar is None:
            param.metavar = ""  # no "<bool>" beside a flag in --help
    return params


class PosencGroup(TyperGroup):
    """``posenc`` itself: its flags (``--version``, ``--help``) shown without a value type."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_type(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        if not _plain_help(self, ctx, formatter, TyperGroup):
            super().format_help(ctx, formatter)


class PosencCommand(TyperCommand):
    """A typer command that refuses an option given twice, shows flags without a value type, and says what Ctrl-C
    kept (module docstring)."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:  # typer would turn it into a silent exit 130: say what was kept first
            print(str(exc) or "aborted", file=sys.stderr, flush=True)
            raise typer.Exit(130) from exc

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:  # shell completion parses half-written lines: let it
            for option, given in repeated_options(self, ctx, args):
                ctx.fail(f"option {option} was given {len(given)} times ({', '.join(given)}); give it once "
                         f"(an option given twice is an error, never 'the last one wins')")
        given_args = list(args)  # the parser consumes the list it is given
        try:
            rest = super().parse_args(ctx, args)
        except typer.BadParameter as exc:  # typer's message names the type, not the value given
            given = _occurrences(exc.param, given_args) if getattr(exc.param, "param_type_name", "") == "option" else []
            if given:
                exc.message = f"{exc.message} (got {', '.join(given)})"
            raise
        if not ctx.resilient_parsing:
            for option, value, times in repeated_values(self, ctx, given_args):
                ctx.fail(f"option {option} was given {value!r} {times} times; give each value once (never the "
                         f"same work twice)")
        return rest

    def get_params(self, ctx: Any) -> list[Any]:
        return _flags_without_type(super().get_params(ctx))

    def format_help(self, ctx: Any, formatter: Any) -> None:
        if not _plain_help(self, ctx, formatter, TyperCommand):
            super().format_help(ctx, formatter)
