"""``posenc list`` and ``posenc show``."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table

from posenc.checks import FIGURE_SUFFIXES
from posenc.cli.options import parse_options
from posenc.cli.output import JSON_HELP, STDOUT, Printer, json_target, write_json
from posenc.errors import PosencError

console = Printer()


def register(app: typer.Typer) -> None:
    app.command("list")(list_encodings)
    app.command("show")(show)


def list_encodings(json_path: str = typer.Option(None, "--json", help=JSON_HELP)) -> None:
    """List every encoding: name, family, hooks used, paper."""
    from posenc.registry import available, get_class

    target = json_target(json_path)
    rows = []
    for name in available():
        info = get_class(name).info
        rows.append({"name": name, "family": info.family, "hooks": list(info.hooks), "paper": info.paper})
    if target != STDOUT:
        table = Table(title="posenc encodings")
        for column in ("name", "family", "hooks", "paper"):
            table.add_column(column)
        for row in rows:
            table.add_row(row["name"], row["family"], ", ".join(row["hooks"]) or "(none)", row["paper"])
        console.print(table)
    written = write_json(rows, target)
    if written:
        console.print(f"wrote {written}")


def show(name: str = typer.Argument(..., help="encoding name (see `posenc list`)"),
         d_model: int = typer.Option(64, "--d-model", help="model width (rotary encodings use it as head_dim)"),
         length: int = typer.Option(128, "--length", help="number of positions to draw"),
         n_heads: int = typer.Option(8, "--n-heads", help="heads, for bias encodings"),
         option: list[str] = typer.Option(None, "--option", "-o", help="encoding option key=value (repeatable)"),
         out: Path = typer.Option(None, "--out", help=f"heatmap file: {', '.join(FIGURE_SUFFIXES)} (default: NAME.png)"),
         json_path: str = typer.Option(None, "--json", help=JSON_HELP)) -> None:
    """Summarise an encoding and write a heatmap PNG of what it does to positions."""
    from posenc.cli.paths import output_file
    from posenc.properties.check import build_sized, estimate_check
    from posenc.registry import get_class
    from posenc.resources import check_memory
    from posenc.summary import summarize

    get_class(name)
    if length < 1 or d_model < 1 or n_heads < 1:
        raise PosencError(f"--length, --d-model and --n-heads must be positive, got {length}, {d_model}, {n_heads}")
    out = output_file(out or Path(f"{name}.png"), "--out", FIGURE_SUFFIXES,
                      existing_folder=True)
    target = json_target(json_path)
    # the heatmap's memory, before any work (a bias is drawn at most MAX_BIAS_SIDE positions a side, whatever
    # --length: its T x T never grows past that)
    needed, _ = estimate_check(length, d_model, [name], pairwise=False)
    check_memory(needed, f"drawing {name} at length {length}, d_model {d_model}", "use a smaller --length or "
                 "--d-model")
    options = parse_options(option)
    build_sized(name, d_model, length, options, n_heads)  # bad options fail here with a clear line
    summary = summarize(name, d_model=d_model, length=length, n_heads=n_heads, options=options, out=out)
    if target != STDOUT:
        for key, value in summary.items():
            console.print(f"[bold]{key}[/bold]: {escape(str(value))}")
    written = write_json(summary, target)
    if written:
        console.print(f"wrote {written}")
