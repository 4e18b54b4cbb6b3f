"""The ``posenc`` command line: thin wrappers, each subcommand calls a library function.

Each file in this package adds its subcommands with ``register(app)``; :func:`main` is the entry point.
"""

from __future__ import annotations

import importlib
import sys

import typer

from posenc.errors import PosencError

app = typer.Typer(name="posenc", help="Positional encodings for Transformers: build, check, probe, train, report.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)

#: subcommand modules, in the order ``posenc --help`` lists them
_MODULES = ("encodings", "check", "probe", "lab", "extend", "report", "bench")

for _name in _MODULES:
    try:
        _module = importlib.import_module(f"posenc.cli.{_name}")
    except ModuleNotFoundError as _exc:  # a subcommand module not written yet
        if _exc.name != f"posenc.cli.{_name}":
            raise
        continue
    _module.register(app)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; bad input prints one clear line and exits with status 2."""
    try:
        rc = app(args=argv, standalone_mode=False)  # returns typer.Exit's code instead of raising it
    except PosencError as exc:
        typer.secho(f"error: {exc}", fg="red", err=True)
        return 2
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        typer.secho("aborted", err=True)
        return 130
    except Exception as exc:  # click usage errors carry their own exit code
        import click

        if isinstance(exc, click.ClickException):
            exc.show()
            return exc.exit_code
        raise
    return rc if isinstance(rc, int) else 0


if __name__ == "__main__":
    sys.exit(main())
