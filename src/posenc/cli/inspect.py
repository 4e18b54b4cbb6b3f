"""``posenc inspect``: a model's encoding schedule and the warnings its config triggers."""

from __future__ import annotations

import json

import typer
from rich.markup import escape
from rich.table import Table

from posenc.cli.output import Printer

console = Printer()  # plain and unwrapped in a pipe or a log (posenc.cli.output)


def register(app: typer.Typer) -> None:
    app.command("inspect")(inspect_command)


def inspect_command(model: str = typer.Argument(..., help="a config.json file, a model folder, a .gguf file, a hub "
                                                          "id in the local cache, or smollm2 / minilm"),
                    as_json: bool = typer.Option(False, "--json", help="print the schedule and findings as JSON"),
                    strict: bool = typer.Option(False, "--strict", help="exit with status 1 when anything is "
                                                                        "found")) -> None:
    """Print the encoding of every layer that posenc derives from a model's config, and warn on the field's
    recurring mistakes: a RoPE base left at its default, YaRN's factor against its original length, a partial rotary
    factor ignored, interleaved against half pairing, dynamic NTK with a KV cache."""
    from posenc.inspection import inspect_model

    result = inspect_model(model)
    if as_json:
        print(json.dumps({"source": result.source, "model_type": result.model_type,
                          "layers": [{"layers": a, "encoding": b} for a, b in result.rows()],
                          "findings": [{"code": f.code, "message": f.message} for f in result.findings]}, indent=2))
    else:
        table = Table(title=f"{escape(result.source)} ({escape(result.model_type or 'unknown type')})")
        table.add_column("layers")
        table.add_column("encoding · span")
        for layers, text in result.rows():
            table.add_row(escape(layers), escape(text))
        console.print(table)
        for finding in result.findings:
            console.print(f"[yellow]warning[/yellow] {escape(f'[{finding.code}]')}: {escape(finding.message)}")
        if not result.findings:
            console.print("no warnings")
    if strict and result.findings:
        raise typer.Exit(1)
