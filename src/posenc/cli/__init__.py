"""The ``posenc`` command line: thin wrappers, each subcommand calls a library function.

Each file in this package adds its subcommands with ``register(app)``, and every one of them is imported and
registered below by name, so a missing or broken module fails at once instead of silently dropping its commands.
:func:`main` is the entry point.
"""

from __future__ import annotations

import sys

import typer
from typer.core import TyperCommand

from posenc._version import __version__
from posenc.cli import bench, check, encodings, explore, extend, inspect, lab, probe, report
from posenc.cli.command import PosencCommand, PosencGroup
from posenc.errors import PosencError

app = typer.Typer(name="posenc", help="Positional encodings for Transformers: build, check, probe, train, report.",
                  no_args_is_help=True, add_completion=True, pretty_exceptions_enable=False, cls=PosencGroup,
                  context_settings={"help_option_names": ["-h", "--help"]})


def _version(value: bool) -> None:
    if value:
        typer.echo(f"posenc {__version__}")
        raise typer.Exit(0)


@app.callback()
def _options(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                          help="print posenc's version and exit")) -> None:
    """Positional encodings for Transformers: build, check, probe, train, report."""


# in the order ``posenc --help`` lists them
encodings.register(app)  # list, show
inspect.register(app)  # inspect
check.register(app)  # check, plot
probe.register(app)  # probe
lab.register(app)  # train, sweep
extend.register(app)  # extend
report.register(app)  # report
explore.register(app)  # explore
bench.register(app)  # bench
for _info in app.registered_commands:  # one reading of the command line for all (posenc.cli.command)
    if _info.cls in (None, TyperCommand):
        _info.cls = PosencCommand


def _usage_error_types() -> tuple[type[BaseException], ...]:
    """Click's exceptions and typer's (typer >= 0.20 carries its own copy of click): usage errors, and the
    :class:`click.ClickException` a command raises, carry their message and exit status."""
    types: list[type[BaseException]] = []
    if hasattr(typer, "TyperException"):
        types.append(typer.TyperException)
    try:
        import click
    except ImportError:  # a typer that no longer needs click
        pass
    else:
        types.append(click.ClickException)
    return tuple(types)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return the exit status.

    Bad input (a :class:`PosencError`) prints one clear line; a usage error (unknown option, missing argument, bad
    value, an option given twice) prints the usage and the error; both exit with status 2 and no traceback. Ctrl-C
    exits with 130, after the line of an :class:`~posenc.errors.Interrupted` (what was kept, how to resume).
    """
    try:
        rc = app(args=argv, prog_name="posenc", standalone_mode=False)  # returns typer.Exit's code, never exits
    except PosencError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except (typer.Abort, KeyboardInterrupt) as exc:  # an Interrupted says what was kept and how to go on
        typer.secho(str(exc) if isinstance(exc, KeyboardInterrupt) and str(exc) else "aborted", err=True)
        return 130
    except _usage_error_types() as exc:
        if hasattr(exc, "show"):
            exc.show()  # the usage line, a hint, and the error
        else:
            typer.secho(f"error: {exc}", fg="red", err=True)
        return getattr(exc, "exit_code", 2)
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
