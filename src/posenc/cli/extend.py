"""``posenc extend``: perplexity and passkey retrieval of a pretrained RoPE model by length and RoPE scaling."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

from posenc.device import DEVICE_HELP, DTYPE_HELP
from posenc.errors import PosencError

console = Console()


def register(app: typer.Typer) -> None:
    app.command("extend")(extend)


def _ints(text: str | None, name: str) -> list[int] | None:
    if not text:
        return None
    out = []
    for part in text.split(","):
        part = part.strip().lower()
        if not part:
            continue
        try:
            out.append(int(float(part[:-1]) * 1024) if part.endswith("k") else int(part))
        except ValueError as exc:
            raise PosencError(f"{name} must be comma-separated token counts such as 2048,4096 or 2k,4k, "
                              f"got {text!r}") from exc
    return out


def _floats(text: str | None, name: str) -> list[float] | None:
    if not text:
        return None
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise PosencError(f"{name} must be comma-separated numbers such as 0.25,0.75, got {text!r}") from exc


def extend(model: str = typer.Argument("smollm2", help="smollm2, a model folder, a .gguf file or a cached hub id"),
           lengths: str = typer.Option(None, "--lengths", help="comma-separated lengths, e.g. 2k,4k,8k,16k,32k "
                                       "(default 2k,4k,8k,16k; --quick 4k,8k,12k)"),
           scalings: str = typer.Option(None, "--scalings", help="comma-separated: none, linear, ntk, dynamic, yarn, "
                                        "llama3 (default all; --quick none,linear,yarn)"),
           protocols: str = typer.Option("nonoverlap,sliding", "--protocols", help="nonoverlap and/or sliding"),
           factor: float = typer.Option(None, "--factor", help="fix the scaling factor (default max(1, L / native))"),
           windows: int = typer.Option(None, "--windows", help="windows per length and protocol (default by length)"),
           passkey: bool = typer.Option(None, "--passkey/--no-passkey", help="passkey retrieval (default on; off "
                                        "with --quick)"),
           depths: str = typer.Option(None, "--depths", help="passkey depths in [0, 1] (default 0.25,0.75)"),
           trials: int = typer.Option(1, "--trials", help="passkey trials per depth"),
           quick: bool = typer.Option(False, "--quick", help="the small plan: a few minutes"),
           device: str = typer.Option("auto", "--device", help=DEVICE_HELP),
           dtype: str = typer.Option("float32", "--dtype", help=DTYPE_HELP + ": the model's weights (part of the "
                                     "store keys)"),
           text: Path = typer.Option(None, "--text", help="a UTF-8 text file instead of the Shakespeare plays"),
           store: Path = typer.Option(Path("runs/extend.sqlite"), "--store", help="SQLite results store"),
           out: Path = typer.Option(Path("runs/extend"), "--out", help="folder for extend.json, extend.md, "
                                    "extend.png"),
           max_memory_gb: float = typer.Option(None, "--max-memory-gb", help="refuse lengths estimated above this"),
           threads: int = typer.Option(None, "--threads", help="torch CPU threads (default: torch's choice)"),
           no_progress: bool = typer.Option(False, "--no-progress", help="hide the progress bar"),
           plan: bool = typer.Option(False, "--plan", help="print the plan and what the store holds; run nothing")) -> None:
    """Perplexity (non-overlapping and sliding windows) and passkey accuracy by length x RoPE scaling."""
    import torch

    from posenc.cli.paths import output_dir, output_file
    from posenc.device import resolve_device, resolve_dtype
    from posenc.extend import run_extend, to_markdown

    target = resolve_device(device)  # before anything else: a device this machine lacks is refused at once
    resolve_dtype(dtype, target)
    if threads is not None and threads < 1:
        raise PosencError(f"--threads must be a positive integer, got {threads}; leave it out for torch's choice")
    if text is not None and not text.is_file():
        problem = "does not exist" if not text.exists() else "is not a file"
        raise PosencError(f"--text {text} {problem}; pass a UTF-8 text file, or leave --text out for "
                          f"Shakespeare's plays")
    store = output_file(store, "--store")
    if not plan:
        out = output_dir(out, "--out")
    if threads:
        torch.set_num_threads(threads)
    result = run_extend(model=model, lengths=_ints(lengths, "--lengths"),
                        scalings=[s for s in scalings.split(",") if s.strip()] if scalings else None,
                        protocols=[p.strip() for p in protocols.split(",") if p.strip()], passkey=passkey,
                        store_path=store, quick=quick, factor=factor, windows=windows,
                        depths=_floats(depths, "--depths"), trials=trials, device=str(target), dtype=dtype,
                        text=str(text) if text else None, out_dir=out, max_memory_gb=max_memory_gb,
                        progress=not no_progress, plan_only=plan, echo=console.print)
    if plan:
        return
    console.print(to_markdown(result))
    jobs = result["jobs"]
    console.print(f"{jobs['computed']} job(s) computed on {result['setup']['device']} in {result['setup']['dtype']}, "
                  f"{jobs['cached']} read from {store}; wall time {result['wall_s']:.0f} s")
    for kind, path in result["files"].items():
        console.print(f"{kind}: {path}")
