"""``posenc extend``: perplexity and passkey retrieval of a pretrained RoPE model by length and RoPE scaling.

Its settings are the fields of :class:`~posenc.extend.ExtendConfig` (:mod:`posenc.cli.settings`); the options
below them say where results go and how the run shows itself.
"""

from __future__ import annotations

import math
from pathlib import Path

import typer

from posenc.cli.options import DOWNLOAD_HELP, THREADS_HELP, check_threads
from posenc.cli.output import Printer
from posenc.cli.settings import CommandSettings, Flag, comma_items, settings_command
from posenc.errors import PosencError
from posenc.extend import ExtendConfig

console = Printer()


def register(app: typer.Typer) -> None:
    app.command("extend")(extend)


def token_counts(text: str, option: str) -> list[int]:
    """``"2048,4k,8K"`` -> ``[2048, 4096, 8192]``: token counts, ``k`` for 1024 (``1.5k`` is 1536); a count that is
    not a whole number of tokens (``0.1k``, ``infk``) is an error, never rounded."""
    out = []
    for part in comma_items(text, option, "2k,4k,8k"):
        part = part.lower()
        try:
            count = float(part[:-1]) * 1024 if part.endswith("k") else int(part)
        except ValueError as exc:
            raise PosencError(f"{option} must be comma-separated token counts such as 2048,4096 or 2k,4k, "
                              f"got {text!r}") from exc
        if not math.isfinite(count):
            raise PosencError(f"{option} must be comma-separated token counts such as 2048,4096 or 2k,4k, "
                              f"got {text!r} ({part} is not a finite number)")
        if count != int(count):
            raise PosencError(f"{option} {part} is {count:g} tokens, not a whole number; write a whole count, "
                              f"e.g. {option} {math.floor(count)}")
        out.append(int(count))
    return out


@settings_command(ExtendConfig, flags={"model": Flag(argument=True), "lengths": Flag(parse=token_counts),
                                      "text": Flag(metavar="<path>")})
def extend(settings: CommandSettings,
           store: Path = typer.Option(Path("runs/extend.sqlite"), "--store", help="SQLite results store"),
           out: Path = typer.Option(Path("runs/extend"), "--out", help="folder for extend.json, extend.md, "
                                    "extend.png"),
           threads: int = typer.Option(0, "--threads", help=THREADS_HELP),
           no_progress: bool = typer.Option(False, "--no-progress", help="hide the progress bar"),
           plan: bool = typer.Option(False, "--plan", help="print the plan and what the store holds; run nothing"),
           download: bool = typer.Option(False, "--download", help=DOWNLOAD_HELP)) -> None:
    """Perplexity (non-overlapping and sliding windows) and passkey accuracy by length x RoPE scaling."""
    import torch

    from posenc.cli.paths import output_dir, output_file
    from posenc.device import dtype_name, resolve_device, resolve_dtype
    from posenc.extend import run_extend, to_markdown

    target = resolve_device(settings["device"])  # before anything else: a device this machine lacks is refused at once
    precision = resolve_dtype(settings["dtype"], target)
    threads = check_threads(threads)
    text = Path(settings["text"]) if settings["text"] is not None else None
    if text is not None and not text.is_file():
        problem = "does not exist" if not text.exists() else "is not a file"
        raise PosencError(f"--text {text} {problem}; pass a UTF-8 text file, or leave --text out for "
                          f"Shakespeare's plays")
    store = output_file(store, "--store")
    if not plan:
        out = output_dir(out, "--out")
    config = settings.build(device=str(target), dtype=dtype_name(precision), text=str(text) if text else None)
    if download:
        from posenc.pretrained import download as fetch

        fetch(config.model)  # the one step that may use the network, and only when asked
    if threads:
        torch.set_num_threads(threads)
    result = run_extend(config, store_path=store, out_dir=out, progress=not no_progress, plan_only=plan,
                        echo=console.print)
    if plan:
        return
    console.print(to_markdown(result))
    jobs = result["jobs"]
    console.print(f"{jobs['computed']} job(s) computed on {result['setup']['device']} in {result['setup']['dtype']}, "
                  f"{jobs['cached']} read from {store}; wall time {result['wall_s']:.0f} s")
    for kind, path in result["files"].items():
        console.print(f"{kind}: {path}")
