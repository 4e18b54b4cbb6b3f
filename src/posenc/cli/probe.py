"""``posenc probe MODEL``: every probe that applies to a pretrained model; summary, probe.json and figures.

How much text it reads are the fields of :class:`~posenc.probe.run.ProbeConfig` (:mod:`posenc.cli.settings`);
``--quick`` starts them from :meth:`~posenc.probe.run.ProbeConfig.quick` instead of the defaults.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import typer

from posenc.cli.options import DOWNLOAD_HELP
from posenc.cli.settings import CommandSettings, settings_command
from posenc.device import DEVICE_HELP, DTYPE_HELP
from posenc.probe.run import ProbeConfig


def register(app: typer.Typer) -> None:
    app.command("probe")(probe)


@settings_command(ProbeConfig)
def probe(settings: CommandSettings,
          model: str = typer.Argument(..., help="minilm, smollm2, a model folder, a .gguf file, or a cached hub id"),
          text: Path = typer.Option(None, "--text", help="UTF-8 text file (default: Shakespeare's plays)"),
          out: Path = typer.Option(None, "--out", help="folder for probe.json and PNG figures (default: probe-MODEL)"),
          quick: bool = typer.Option(False, "--quick", help="one window of 256 tokens: a fast smoke run"),
          only: list[str] = typer.Option(None, "--only", help="run only this probe (repeatable): geometry, "
                                                              "decodability, four_terms, heads, rope"),
          no_progress: bool = typer.Option(False, "--no-progress", help="hide progress bars"),
          device: str = typer.Option("auto", "--device", help=DEVICE_HELP),
          dtype: str = typer.Option("float32", "--dtype", help=DTYPE_HELP + ": the model's weights"),
          download: bool = typer.Option(False, "--download", help=DOWNLOAD_HELP)) -> None:
    """Probe a pretrained model: word/position geometry against chance, position decodability, the four-term
    split of layer 0, positional heads, and RoPE frequency usage."""
    from posenc.cli.paths import output_dir
    from posenc.device import resolve_device, resolve_dtype
    from posenc.errors import PosencError
    from posenc.pretrained import download as fetch
    from posenc.pretrained import model_config
    from posenc.probe.run import PROBES, check_probe_fits, run_probe

    target = resolve_device(device)  # before anything else: a device this machine lacks is refused at once
    resolve_dtype(dtype, target)
    PROBES.check(only or (), where=" for --only")
    config = dataclasses.replace(ProbeConfig.quick() if quick else ProbeConfig(), **settings.parsed())
    if text is not None and not text.is_file():
        problem = "does not exist" if not text.exists() else "is not a file"
        raise PosencError(f"--text {text} {problem}; pass a UTF-8 text file, or leave --text out for "
                          f"Shakespeare's plays")
    out = output_dir(out or Path(f"probe-{Path(model).stem if model.endswith('.gguf') else Path(model).name or 'model'}"))
    if download:
        fetch(model)  # the one step that may use the network, and only when asked
    hf_config = model_config(model)  # the config only: the checks below run before any weight is loaded
    limit = getattr(hf_config, "max_position_embeddings", None) or getattr(hf_config, "n_positions", None)
    if limit is not None and config.window is not None and config.window > limit:
        raise PosencError(f"--window {config.window} exceeds the model's {limit} positions; use --window {limit} or "
                          f"less")
    check_probe_fits(hf_config, config.window or min(512, limit or 512), model)
    result = run_probe(model, text=text, out_dir=out, quick=quick, config=config, probes=only or None,
                       progress=not no_progress, device=target, dtype=dtype)
    typer.echo(result["summary"])
    if "skipped" not in result["four_terms"]:
        typer.echo("\nThe shares of a head's five parts (ww, wp, pw, pp, rest) need not add up to 1: the parts are "
                   "correlated, so the variance of their sum, the logits, also holds twice every covariance between "
                   "them. probe.json's 'covariance' is 1 minus the sum of the shares (negative when they add up to "
                   "more than 1).")
    typer.echo(f"\nwrote {', '.join(result['files'])} to {out}")
