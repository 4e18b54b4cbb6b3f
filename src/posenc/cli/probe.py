"""``posenc probe MODEL``: every probe that applies to a pretrained model; summary, probe.json and figures."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("probe")(probe)


def probe(model: str = typer.Argument(..., help="minilm, smollm2, a model folder, a .gguf file, or a cached hub id"),
          text: Path = typer.Option(None, "--text", help="UTF-8 text file (default: Shakespeare's plays)"),
          out: Path = typer.Option(None, "--out", help="folder for probe.json and PNG figures (default: probe-MODEL)"),
          quick: bool = typer.Option(False, "--quick", help="one window of 256 tokens: a fast smoke run"),
          window: int = typer.Option(None, "--window", help="tokens per window (default 512 or the model's limit)"),
          windows: int = typer.Option(None, "--windows", help="number of windows of text (default 4)"),
          only: list[str] = typer.Option(None, "--only", help="run only this probe (repeatable): geometry, "
                                                              "decodability, four_terms, heads, rope"),
          no_progress: bool = typer.Option(False, "--no-progress", help="hide progress bars")) -> None:
    """Probe a pretrained model: word/position geometry against chance, position decodability, the four-term
    split of layer 0, positional heads, and RoPE frequency usage."""
    from posenc.probe.run import ProbeConfig, run_probe

    config = None
    if window is not None or windows is not None:
        base = ProbeConfig.quick() if quick else ProbeConfig()
        config = ProbeConfig(window=window or base.window, windows=windows or base.windows, n_pairs=base.n_pairs)
    out = out or Path(f"probe-{Path(model).stem if model.endswith('.gguf') else Path(model).name or 'model'}")
    result = run_probe(model, text=text, out_dir=out, quick=quick, config=config, probes=only or None,
                       progress=not no_progress)
    typer.echo(result["summary"])
    typer.echo(f"\nwrote {', '.join(result['files'])} to {out}")
