"""``posenc check`` (each property with its number and verdict) and ``posenc plot`` (the tutorials' figures)."""

from __future__ import annotations

from pathlib import Path

import click
import typer
from rich.markup import escape
from rich.table import Table

from posenc.checks import FIGURE_SUFFIXES
from posenc.cli.options import THREADS_HELP, check_threads, parse_options
from posenc.cli.output import JSON_HELP, STDOUT, Printer, json_target, write_json
from posenc.errors import PosencError
from posenc.plots.kinds import PLOT_KINDS

console = Printer()

_STYLE = {"holds": "green", "fails": "red", "n.a.": "dim", "error": "bold magenta"}


def register(app: typer.Typer) -> None:
    app.command("check")(check)
    app.command("plot")(plot)


def _table(report) -> Table:
    title = f"{report.label} (d_model={report.d_model}, length={report.length}, {report.wall_s:.2f} s)"
    table = Table(title=title, title_justify="left")
    for column in ("property", "number", "verdict", "reason"):
        table.add_column(column, overflow="fold")
    for r in report.results:
        style = _STYLE.get(r.verdict, "")
        table.add_row(r.name, escape(r.headline), f"[{style}]{r.verdict}[/{style}]", escape(r.reason))
    return table


#: a time estimate above this many seconds is printed before the work starts
SLOW_S = 30.0


def check(name: str = typer.Argument(None, help="encoding name (see `posenc list`); omit with --all"),
          all_: bool = typer.Option(False, "--all", help="every registered encoding plus the RoPE scaling variants"),
          option: list[str] = typer.Option(None, "--option", "-o", help="encoding option key=value (repeatable)"),
          d_model: int = typer.Option(512, "--d-model", help="model width (rotary encodings use it as head_dim)"),
          length: int = typer.Option(4096, "--length", help="number of positions N"),
          n_heads: int = typer.Option(8, "--n-heads", help="heads, for bias encodings"),
          json_path: str = typer.Option(None, "--json", help=JSON_HELP + ": every number"),
          threads: int = typer.Option(1, "--threads", help=THREADS_HELP + "; 1 avoids oversubscription on a busy "
                                                           "machine"),
          quiet: bool = typer.Option(False, "--quiet", "-q", help="no progress bar")) -> None:
    """Measure every property of an encoding: number and verdict (holds / fails / n.a.) per claim.

    Exits 0 whatever the verdicts; non-zero only when a property hit an internal error.
    """
    from posenc.properties import check_all, check_encoding
    from posenc.properties.check import VARIANTS, build_checked, check_fits
    from posenc.registry import available, get_class
    from posenc.resources import format_seconds

    if all_ and name:
        raise PosencError(f"pass an encoding name or --all, not both (got {name!r} and --all)")
    if not all_ and not name:
        raise PosencError("name an encoding (see `posenc list`) or pass --all")
    if all_ and option:
        raise PosencError("-o options apply to one encoding; drop them with --all")
    threads = check_threads(threads)
    if n_heads < 1:
        raise PosencError(f"--n-heads must be a positive integer, got {n_heads}")
    target = json_target(json_path)
    names = available() + [v[1] for v in VARIANTS] if all_ else [get_class(name).name]
    options = parse_options(option)
    _, seconds = check_fits(length, d_model, names)  # refuses what does not fit in memory, before any work
    if not all_:
        build_checked(name, d_model, length, options, n_heads)  # bad options fail here, not after a long check
    if seconds > SLOW_S:
        typer.echo(f"estimated {format_seconds(seconds)} (the uniqueness property compares every pair of the "
                   f"{length} positions; a shorter --length is much faster)", err=True)
    if all_:
        reports = check_all(d_model=d_model, length=length, n_heads=n_heads, progress=not quiet, threads=threads)
    else:
        reports = [check_encoding(name, d_model=d_model, length=length, options=options, n_heads=n_heads,
                                  threads=threads)]
    if target != STDOUT:
        for report in reports:
            console.print(_table(report))
    written = write_json([r.to_dict() for r in reports] if all_ else reports[0].to_dict(), target)
    if written:
        console.print(f"wrote {written}")
    errors = [(r.label, p.name, p.reason) for r in reports for p in r.results if p.verdict == "error"]
    for label, prop, reason in errors:
        typer.secho(f"{label}/{prop}: {reason}", fg="red", err=True)  # the reason begins "internal error: "
    if errors:  # a ClickException reaches the exit status through posenc.cli.main (exit code 1)
        raise click.ClickException(f"{len(errors)} propert{'y' if len(errors) == 1 else 'ies'} hit an internal error")


def plot(name: str = typer.Argument(..., help="encoding name (see `posenc list`)"),
         kind: str = typer.Option("heatmap", "--kind", help="one of: " + ", ".join(PLOT_KINDS)),
         out: Path = typer.Option(None, "--out", help=f"figure file: {', '.join(FIGURE_SUFFIXES)} (default: NAME-KIND.png)"),
         option: list[str] = typer.Option(None, "--option", "-o", help="encoding option key=value (repeatable)"),
         d_model: int = typer.Option(None, "--d-model", help="model width (default: the figure's own)"),
         length: int = typer.Option(None, "--length", help="number of positions (default: the figure's own)"),
         n_heads: int = typer.Option(8, "--n-heads", help="heads, for bias encodings")) -> None:
    """Draw one of the tutorials' figures for any encoding."""
    from posenc.cli.paths import output_file
    from posenc.properties.check import build_checked, check_fits
    from posenc.registry import get_class

    get_class(name)
    figure = PLOT_KINDS[kind]
    out = output_file(out or Path(f"{name}-{kind}.png"), "--out", FIGURE_SUFFIXES, existing_folder=True)
    from posenc.plots.figures import make_figure, save_figure  # matplotlib: after the cheap checks

    length = figure.length if length is None else length
    d_model = figure.d_model if d_model is None else d_model
    check_fits(length, d_model, [name], pairwise=False)
    options = parse_options(option)
    build_checked(name, d_model, length, options, n_heads)  # bad options fail before drawing
    fig = make_figure(name, kind, length=length, d_model=d_model, options=options, n_heads=n_heads)
    path = save_figure(fig, out)
    console.print(f"wrote {path}")
