"""``posenc train`` (one lab run) and ``posenc sweep`` (a grid of runs, resumable, local or Ray).

``train``'s settings are the fields of :class:`~posenc.lab.RunConfig` (:mod:`posenc.cli.settings`), each its own
option, and ``--set key=value`` for any of them. ``sweep`` takes a preset or a grid file, whose runs carry their
settings, and ``--set`` to replace a base setting of every run; its options say how to execute the grid.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from posenc.cli.options import THREADS_HELP, check_threads, parse_options
from posenc.cli.output import JSON_HELP, STDOUT, Printer, json_target, write_json
from posenc.cli.settings import CommandSettings, Flag, settings_command
from posenc.cluster import EXECUTORS
from posenc.device import DEVICE_HELP, DTYPE_HELP
from posenc.errors import PosencError
from posenc.lab.lab_task import LAB_TASKS
from posenc.lab.presets import PRESETS
from posenc.lab.train import RunConfig

console = Printer()

#: a time estimate above this many seconds is printed before the work starts
SLOW_S = 30.0


def register(app: typer.Typer) -> None:
    app.command("train")(train)
    app.command("sweep")(sweep)


@settings_command(RunConfig, flags={"task": Flag(choices=LAB_TASKS), "encoding": Flag(names=("--encoding", "-e")),
                                   "encoding_options": Flag(names=("--option", "-o"))})
def train(settings: CommandSettings,
          setting: list[str] = typer.Option(None, "--set", help="any run setting key=value, e.g. --set lr=3e-3 (the "
                                            "same as --lr 3e-3)"),
          seed: int = typer.Option(0, "--seed", help="the run's seed"),
          store: Path = typer.Option(None, "--store", help="also write the run to this results store"),
          threads: int = typer.Option(1, "--threads", help=THREADS_HELP + "; 1 avoids contention on busy "
                                      "machines"),
          device: str = typer.Option("auto", "--device", help=DEVICE_HELP),
          json_path: str = typer.Option(None, "--json", help=JSON_HELP + ": the config, metrics and setup")) -> None:
    """Train one model on a task at short lengths and print its metric at every test length."""
    import torch

    from posenc.cli.paths import output_file
    from posenc.device import Placement, resolve_device, resolve_dtype
    from posenc.lab import KIND, to_markdown, train_run
    from posenc.lab.tables import summarize_records
    from posenc.lab.train import CODE_VERSION, check_run, check_seed
    from posenc.resources import format_seconds
    from posenc.store import ResultStore

    target = resolve_device(device)  # before anything else: a device this machine lacks is refused at once
    threads = check_threads(threads)
    check_seed(seed, "--seed")
    json_file = json_target(json_path)
    values = settings.parsed()
    extra = parse_options(setting, "--set", "lr=3e-3")
    for key in sorted(set(values) & set(extra)):
        if settings.given(key):
            raise PosencError(f"{settings.option(key)} and --set {key} both set {key} ({values[key]!r} and "
                              f"{extra[key]!r}); set it once")
    config = RunConfig.from_dict({**values, **extra})  # an unknown dtype names the valid ones
    placement = Placement(target, resolve_dtype(config.dtype, target, training=True))  # checked once: handed down
    if store is not None:
        store = output_file(store, "--store")
    estimate = check_run(config, threads=threads or torch.get_num_threads())  # memory and options, before any work
    results_store = ResultStore(store) if store else None  # a bad store fails before training
    if estimate.seconds > SLOW_S:
        typer.echo(f"estimated {format_seconds(estimate.seconds)} for {config.steps} steps and the evaluation",
                   err=True)
    if threads:
        torch.set_num_threads(threads)
    result = train_run(config, seed, device=placement)
    if results_store is not None:
        results_store.put(KIND, result.config, seed, result.metrics, result.wall_s, setup=result.setup,
                          code=CODE_VERSION)
    if json_file != STDOUT:
        console.print(to_markdown(summarize_records([(result.config, seed, result.metrics)], name=config.label)))
        console.print(f"wall time {result.wall_s:.1f} s on {result.setup['device']} in {result.setup['dtype']}, "
                      f"{result.metrics['params']} parameters, final training loss "
                      f"{result.metrics['final_loss']:.4f}")
    written = write_json({"config": result.config, "seed": seed, "metrics": result.metrics,
                          "wall_s": result.wall_s, "setup": result.setup}, json_file)
    if written:
        console.print(f"wrote {written}")


def sweep(preset: str = typer.Option(None, "--preset", help=f"{', '.join(PRESETS)}, or a sweep of the report "
                                      "(report-tasks, report-charlm, ...; -quick for its quick mode): the runs "
                                      "behind its lab numbers, found in its store; an unknown name lists them all"),
          grid: Path = typer.Option(None, "--grid", help="a JSON sweep file: {\"base\": {...}, \"grid\": {...}, "
                                    "\"seeds\": [...]}"),
          store: Path = typer.Option(Path("runs/lab.sqlite"), "--store", help="SQLite results store"),
          executor: str = typer.Option("local", "--executor",
                                       help="; ".join(f"{name}: {what}" for name, what in EXECUTORS.items())),
          workers: int = typer.Option(1, "--workers", help="local worker processes"),
          address: str = typer.Option("auto", "--address", help="Ray address: auto or HOST:PORT"),
          threads: int = typer.Option(1, "--threads", help=THREADS_HELP + ", per run"),
          setting: list[str] = typer.Option(None, "--set", help="replace a base setting of every run, e.g. --set "
                                            "steps=500 (changes the runs' configs, so they are stored apart)"),
          limit: int = typer.Option(None, "--limit", help="run at most this many missing runs (0: none, just the "
                                    "table)"),
          metric: str = typer.Option(None, "--metric", help="exact_match or token_accuracy (tasks); ppl, bpc or nll "
                                     "(char-LM)"),
          out: Path = typer.Option(None, "--out", help="folder for table.md, summary.json and metric_vs_length.png"),
          json_path: str = typer.Option(None, "--json", help=JSON_HELP + ": the summary (the table's numbers)"),
          progress: bool = typer.Option(True, "--progress/--no-progress"),
          device: str = typer.Option("auto", "--device", help=DEVICE_HELP + " (Ray: resolved on each worker)"),
          dtype: str = typer.Option(None, "--dtype", help=DTYPE_HELP + " for every run (default: the sweep's own, "
                                    "float32; a precision other than float32 is part of the runs' store keys)")) -> None:
    """Run a grid of lab runs (skipping those already in the store) and print the table of metric by length."""
    from posenc.cli.paths import output_dir, output_file
    from posenc.cluster import check_executor, check_reachable
    from posenc.device import parse_device, resolve_device, resolve_dtype
    from posenc.lab import run_sweep, summarize, to_markdown
    from posenc.lab.sweep import resolve_sweep
    from posenc.lab.tables import check_metric
    from posenc.report import sweeps  # noqa: F401  (registers the report's sweeps as presets)

    # before anything else: a device this machine lacks (or, on Ray, a malformed one) is refused at once
    target = parse_device(device) if executor == "ray" else resolve_device(device)
    if dtype is not None:
        resolve_dtype(dtype)
        if executor != "ray":
            resolve_dtype(dtype, target, training=True)
    if (preset is None) == (grid is None):
        raise PosencError(f"pass exactly one of --preset ({', '.join(PRESETS)}) or --grid FILE.json")
    check_executor(executor)
    if address != "auto" and executor != "ray":
        raise PosencError(f"--address {address} applies to the Ray executor; add --executor ray, or leave --address "
                          f"out for the local process pool")
    if executor == "ray":
        check_reachable(address)  # a head that does not answer is refused in seconds, before the grid is read
    for option, value, low in (("--workers", workers, 1), ("--limit", limit, 0)):
        if value is not None and value < low:
            raise PosencError(f"{option} must be an integer >= {low}, got {value}")
    threads = check_threads(threads)
    json_file = json_target(json_path)
    spec = resolve_sweep(preset if preset is not None else grid)
    if setting:
        spec = spec.with_settings(parse_options(setting, "--set", "steps=500"))
    check_metric(metric, {config.task for config, _ in spec.runs()})  # every run's settings are validated here too
    store = output_file(store, "--store")
    if out is not None:
        out = output_dir(out, "--out")
    results = run_sweep(spec, store, executor=executor, workers=workers, address=address, progress=progress,
                        threads=threads, limit=limit, echo=lambda text: typer.echo(text, err=True),
                        device=str(target), dtype=dtype)
    skipped = sum(r.skipped for r in results)
    failed = [r for r in results if r.status != "done"]
    summary = summarize(store, spec, metric=metric)
    if json_file != STDOUT:
        console.print(to_markdown(summary))
        table = Table(title="runs")
        for column in ("in sweep", "already stored", "ran now", "failed"):
            table.add_column(column)
        table.add_row(str(len(results) + summary["missing"] - len(failed)), str(skipped),
                      str(len(results) - skipped), str(len(failed)))
        console.print(table)
    for result in failed:
        typer.secho(f"failed {result.config['task']}/{result.config['label']} seed {result.seed}: "
                    f"{(result.error or '').splitlines()[0]}", fg="red", err=json_file == STDOUT)
    written = write_json(summary, json_file)
    if written:
        console.print(f"wrote {written}")
    if out is not None:
        from posenc.plots.lab import metric_vs_length

        out.mkdir(parents=True, exist_ok=True)
        (out / "table.md").write_text(to_markdown(summary))
        (out / "summary.json").write_text(json.dumps(summary, indent=1))
        metric_vs_length(summary).savefig(out / "metric_vs_length.png", dpi=120)
        console.print(f"wrote {out / 'table.md'}, {out / 'summary.json'}, {out / 'metric_vs_length.png'}")
