"""Sweeps: a grid of lab runs, executed locally (a process pool) or on a Ray cluster, stored in one SQLite file.

A sweep is a :class:`~posenc.lab.grid.Sweep` (the named ones are in :mod:`~posenc.lab.presets`): ``base``
settings of :class:`~posenc.lab.train.RunConfig`, a ``grid`` of settings to vary (the Cartesian product, in the
order given), and ``seeds``. The grid key ``"variant"`` takes a list of dicts, each a group of settings that change
together (e.g. ``{"encoding": "sinusoidal", "encoding_options": {"combine": "concat", "dim": 16}}``).

Resuming: a run whose ``(config, seed)`` the store holds finished (:meth:`posenc.store.ResultStore.finished`: status
``done``, computed by this code and library versions) is skipped, so a sweep that was killed part-way and started
again runs only what is missing (failed runs are tried again). Every run is written in
its own transaction the moment it finishes, by the worker that ran it (local) or by the driver (Ray, whose workers
may not share the driver's disk).

Device and precision: ``device`` (:mod:`posenc.device`) is resolved once, before any run, with each dtype of the
sweep's runs (a :class:`~posenc.device.Placement` per dtype, handed to the runs), and every run trains there; each row records it in the store's ``setup`` column (not in the key: a run stored from a GPU answers for the
CPU too). ``dtype`` sets every run's ``RunConfig.dtype``, which is part of the key when it is not float32. On Ray
the device is resolved on each worker (the driver may have no GPU); an explicit ``cuda`` asks Ray for one GPU per run.

Example::

    from posenc.lab import run_sweep
    results = run_sweep("quick", "runs/lab.sqlite", workers=2)
"""

from __future__ import annotations

import json
import time
import traceback
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from posenc.checks import whole_number
from posenc.cluster import check_executor, connect_ray, finish_before_interrupt, process_pool, why_a_worker_died
from posenc.device import Placement, parse_device, resolve_device, resolve_dtype
from posenc.errors import Interrupted, PosencError
from posenc.lab.grid import Sweep
from posenc.lab.presets import PRESETS, get_preset
from posenc.lab.train import (
    CODE_VERSION,
    KIND,
    RunConfig,
    RunResult,
    build_model,
    call_seconds,
    check_run,
    estimate_run,
    train_run,
)
from posenc.progress import progress as progress_bar
from posenc.resources import format_seconds, seconds
from posenc.store import ResultStore

__all__ = ["Sweep", "run_sweep", "resolve_sweep", "estimate_sweep", "WORKER_START_OPERATIONS"]


def resolve_sweep(preset_or_grid: str | Path | dict[str, Any] | Sweep) -> Sweep:
    """A :class:`Sweep` from a preset name, a JSON file path, a dict, or a Sweep.

    >>> resolve_sweep("alibi-table").with_settings({"steps": 100}).base["steps"]
    100
    """
    if isinstance(preset_or_grid, Sweep):
        return preset_or_grid
    if isinstance(preset_or_grid, dict):
        return Sweep.from_dict(preset_or_grid)
    if isinstance(preset_or_grid, str) and preset_or_grid in PRESETS:
        return get_preset(preset_or_grid)
    path = Path(preset_or_grid)
    if path.suffix == ".json" or path.exists():
        return Sweep.from_dict({"name": path.stem, **_read_sweep_file(path)})
    return get_preset(str(preset_or_grid))  # raises: unknown preset, lists the valid ones


#: what a sweep file looks like, for the errors that refuse one
SWEEP_FILE_EXAMPLE = '{"base": {"task": "copy"}, "grid": {"encoding": ["rope", "alibi"]}, "seeds": [0]}'


def _read_sweep_file(path: Path) -> dict[str, Any]:
    """The JSON object of a sweep file, or an error naming the file, what is wrong and the form expected."""
    fix = f"a sweep file holds one JSON object such as {SWEEP_FILE_EXAMPLE}"
    if path.is_dir():
        raise PosencError(f"sweep file {path} is a folder, not a file; {fix}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise PosencError(f"sweep file {path} does not exist; pass a preset ({', '.join(PRESETS)}) or a JSON "
                          f"file") from exc
    except UnicodeDecodeError as exc:
        raise PosencError(f"sweep file {path} is not UTF-8 text (byte {exc.start} is {exc.object[exc.start]:#04x}); "
                          f"{fix}") from exc
    except json.JSONDecodeError as exc:
        raise PosencError(f"sweep file {path} is not valid JSON ({exc}); {fix}") from exc
    except OSError as exc:
        raise PosencError(f"sweep file {path} cannot be read ({exc.strerror or exc}); {fix}") from exc
    if not isinstance(data, dict):
        raise PosencError(f"sweep file {path} holds a JSON {type(data).__name__}, not an object; {fix}")
    if not data.get("base") and not data.get("grid"):
        raise PosencError(f"sweep file {path} sets no run ({json.dumps(data)[:80]}): it needs a non-empty \"base\" "
                          f"or \"grid\"; {fix}")
    return data


#: a pool's start of its workers (fresh processes importing torch and posenc, and their first calls), counted as
#: lab tensor operations' worth of CPU time (:func:`posenc.lab.train.call_seconds` each): on the idle 2-core machine
#: (2026-12-06, a lab call 1.0e-5 s) a sweep of two 0.75 s runs on a pool of 2 took 4.4 to 5.8 s of wall time in 6
#: runs, so the pool's start took 3.6 to 5.0 s: 450 000 calls' worth (it took 6.2 to 7.6 s at load 6, which the
#: estimate leaves to the load, as it does for the runs)
WORKER_START_OPERATIONS = 450_000


def estimate_sweep(configs: list[RunConfig], threads: int = 1, workers: int = 1, executor: str = "local") -> float:
    """Seconds to run ``configs`` on ``workers`` local processes of ``threads`` threads each: every run's
    :func:`~posenc.lab.train.estimate_run`, shared by the workers, plus the start of a pool's workers (one
    process runs in this one, with nothing to start), all through :func:`posenc.resources.seconds`. Ray's time
    depends on its cluster: the runs alone."""
    runs = sum(estimate_run(config, threads).seconds for config in configs)
    concurrent = max(1, min(workers, len(configs)))
    starts = executor == "local" and concurrent > 1
    start = seconds(calls=WORKER_START_OPERATIONS, per_call=call_seconds()) if starts else 0.0
    return runs / concurrent + start


def _validate_models(runs: list[tuple[RunConfig, int]], concurrent: int = 1) -> None:
    """Check and build each distinct model once, so that a run that cannot fit in memory (``concurrent`` of them
    side by side) or cannot be built fails before hours of training."""
    seen = set()
    for config, _ in runs:
        key = json.dumps(config.as_dict(), sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        try:
            check_run(config, concurrent=concurrent)
            build_model(config, vocab_size=config.lab_task.vocab_bound)  # without reading the task's data
        except PosencError as exc:
            raise PosencError(f"run {config.task}/{config.label} cannot run: {exc}") from exc


def _execute(config: dict[str, Any], seed: int, progress: bool, position: int | None, threads: int | None,
             device: str | Placement = "auto") -> RunResult:
    """Run one config on ``device``; an exception becomes a stored ``error`` row instead of killing the sweep."""
    import torch

    before = torch.get_num_threads()
    if threads:
        torch.set_num_threads(threads)
    started = time.perf_counter()
    try:
        return train_run(config, seed, progress=progress, position=position, device=device)
    except Exception as exc:  # noqa: BLE001 - recorded with its traceback, retried by the next sweep
        return RunResult(config, seed, {}, time.perf_counter() - started, status="error",
                         error=f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
    finally:
        torch.set_num_threads(before)


def store_result(store: ResultStore, result: RunResult) -> None:
    """A finished run into ``store``, under the lab's kind and :data:`~posenc.lab.train.CODE_VERSION` (what every
    executor stores: a local process, the pool, a Ray task's caller)."""
    store.put(KIND, result.config, result.seed, result.metrics, result.wall_s, result.status, result.error,
              setup=result.setup, code=CODE_VERSION)


def ray_resources(device: str) -> dict[str, int]:
    """What one lab run asks of a Ray worker: one CPU, and one GPU only when it runs on CUDA (a GPU asked for on a
    cluster without one leaves the run waiting forever)."""
    return {"num_cpus": 1, "num_gpus": 1 if device.startswith("cuda") else 0}


def _execute_and_store(config: dict[str, Any], seed: int, store_path: str, progress: bool, position: int | None,
                       threads: int | None, device: str | Placement) -> RunResult:
    result = _execute(config, seed, progress, position, threads, device)
    with finish_before_interrupt():  # a finished run is stored even when Ctrl-C comes now
        store_result(ResultStore(store_path), result)
    return result


def _ray_task(config: dict[str, Any], seed: int, threads: int | None, device: str = "auto") -> RunResult:
    return _execute(config, seed, False, None, threads, device)


def run_sweep(preset_or_grid: str | Path | dict[str, Any] | Sweep, store_path: str | Path, executor: str = "local",
              workers: int = 1, address: str | None = None, progress: bool = True, threads: int | None = 1,
              limit: int | None = None, echo: Callable[[str], Any] | None = None, device: str = "auto",
              dtype: str | None = None) -> list[RunResult]:
    """Run every missing run of a sweep and return the results of all its runs (stored ones included).

    Args:
        preset_or_grid: a preset name (``posenc.lab.PRESETS``), a JSON sweep file, a dict, or a :class:`Sweep`.
        store_path: the SQLite results store (created if missing; a foreign or corrupt file raises and is left as is).
        executor: ``"local"`` (``workers`` processes; ``workers=1`` runs in this process) or ``"ray"``.
        workers: local processes.
        address: Ray address, ``"auto"`` or ``"HOST:PORT"`` (``"local"`` starts a private one-machine Ray).
        progress: a bar for the sweep and one per run.
        threads: torch threads per run (1 keeps parallel workers from fighting over cores).
        limit: run at most this many missing runs (the rest stay missing for the next call).
        echo: where to say how many runs are missing and how long they should take (``None``: silent).
        device: where every run trains (``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:N"``, ``"mps"``), checked before
            any run; recorded with each stored run.
        dtype: set every run's precision (``"float32"``, ``"bfloat16"``, ``"float16"``); ``None`` keeps the
            sweep's own (float32 unless its settings say otherwise).

    Returns:
        one :class:`RunResult` per ``(config, seed)`` of the grid, in grid order; ``skipped=True`` marks results that
        were already in the store.
    """
    check_executor(executor)
    if not whole_number(workers):
        raise PosencError(f"workers must be a positive integer, got {workers!r}")
    if threads is not None and not whole_number(threads, 0):
        raise PosencError(f"threads must be an integer >= 0 (0 or None: torch's own choice), got {threads!r}")
    if limit is not None and not whole_number(limit, 0):
        raise PosencError(f"limit must be an integer >= 0 (the most missing runs to run now; 0 runs none), got "
                          f"{limit!r}; leave it out to run every missing run")
    if executor == "ray":  # resolved on each worker; only the form is checked here
        device = parse_device(device)
        target = device
    else:
        target = resolve_device(device)
    sweep = resolve_sweep(preset_or_grid)
    if dtype is not None:
        sweep = sweep.with_settings({"dtype": dtype})
    runs = sweep.runs()
    placements: dict[str, Placement] = {}
    dtypes = sorted({config.dtype for config, _ in runs})
    if executor != "ray":  # resolved once, here: a precision the device cannot train in (float16 on the CPU) fails
        placements = {name: Placement(target, resolve_dtype(name, target, training=True))  # before any run
                      for name in dtypes}
    elif target == "cpu":  # every Ray worker trains on its CPU: a precision no CPU trains in fails here, not there
        for name in dtypes:
            resolve_dtype(name, "cpu", training=True)

    def where(config: dict[str, Any]) -> Placement:
        """Where a local run trains (a Ray task is given ``target``, which its worker resolves)."""
        return placements[config.get("dtype", "float32")]
    store = ResultStore(store_path)  # a foreign or corrupt file raises here, before any work
    results: dict[int, RunResult] = {}
    pending: list[tuple[int, dict[str, Any], int]] = []
    for index, (config, seed) in enumerate(runs):
        record = store.finished(KIND, config.as_dict(), seed, code=CODE_VERSION, earlier=config.earlier_keys())
        if record is not None:  # under this config's key (a row found under an earlier key keeps its own)
            results[index] = RunResult(config.as_dict(), seed, record.metrics, record.wall_s, record.status,
                                       record.error, skipped=True, setup=record.setup)
        else:
            pending.append((index, config.as_dict(), seed))
    if limit is not None:
        pending = pending[:limit]
    if pending:
        concurrent = 1 if executor == "ray" else min(workers, len(pending))
        configs = [(RunConfig.from_dict(c), s) for _, c, s in pending]
        _validate_models(configs, concurrent)
        if echo is not None:
            eta = estimate_sweep([c for c, _ in configs], threads or 1, concurrent, executor)
            echo(f"sweep {sweep.name}: {len(pending)} of {len(runs)} runs to run, estimated {format_seconds(eta)}"
                 + (f" with {concurrent} workers" if concurrent > 1 else "")
                 + (" (Ray: depends on the cluster)" if executor == "ray" else ""))
    bar = progress_bar(total=len(runs), initial=len(results), desc=f"sweep {sweep.name}", disable=not progress,
                       position=0)
    try:
        if executor == "ray" and pending:
            _run_ray(pending, store, address, threads, results, bar, target)
        elif workers == 1 or len(pending) <= 1:
            for index, config, seed in pending:
                results[index] = _execute_and_store(config, seed, str(store.path), progress, 1, threads,
                                                    where(config))
                bar.update()
        else:
            _run_pool(pending, store, workers, progress, threads, results, bar, where)
    except KeyboardInterrupt as exc:  # Ctrl-C: the pool is stopped; say what is kept and how to go on
        kept = _kept(store, pending, len(runs) - len(pending))
        raise Interrupted(f"sweep {sweep.name} interrupted: {kept}") from exc
    except BrokenProcessPool as exc:
        kept = _kept(store, pending, len(runs) - len(pending))
        raise PosencError(f"a worker process of sweep {sweep.name} died ({why_a_worker_died()}); {kept}") from exc
    finally:
        bar.close()
    return [results[i] for i in sorted(results)]


def _kept(store: ResultStore, pending: list[tuple[int, dict[str, Any], int]], before: int) -> str:
    """What a stopped sweep kept (read from the store: every run a worker finished is there) and how to resume."""
    finished = 0
    for _, config, seed in pending:
        earlier = RunConfig.from_dict(config).earlier_keys()
        finished += store.finished(KIND, config, seed, code=CODE_VERSION, earlier=earlier) is not None
    missing = len(pending) - finished
    return (f"{finished} of its {len(pending)} runs to run finished and are kept in "
            f"{store.path} (beside the {before} stored before); run the same command again to run the {missing} "
            f"still missing (stored runs are skipped)")


def _run_pool(pending, store, workers, progress, threads, results, bar, where) -> None:
    with process_pool(min(workers, len(pending))) as pool:
        futures = {pool.submit(_execute_and_store, config, seed, str(store.path), progress, 1 + i % workers,
                               threads, where(config)): index for i, (index, config, seed) in enumerate(pending)}
        remaining = set(futures)
        while remaining:
            done, remaining = wait(remaining, return_when=FIRST_COMPLETED)
            for future in done:
                try:
                    results[futures[future]] = future.result()
                except BrokenProcessPool:
                    time.sleep(1.0)  # a worker ended by Ctrl-C: the KeyboardInterrupt on its way here wins
                    raise
                bar.update()


def _run_ray(pending, store, address, threads, results, bar, device="auto") -> None:
    ray, started = connect_ray(address)
    remote = ray.remote(**ray_resources(device))(_ray_task)
    refs = {remote.remote(config, seed, threads, device): index for index, config, seed in pending}
    try:
        while refs:
            done, _ = ray.wait(list(refs), num_returns=1)
            index = refs.pop(done[0])
            result = ray.get(done[0])
            with finish_before_interrupt():  # a finished run is stored even when Ctrl-C comes now
                store_result(store, result)
            results[index] = result
            bar.update()
    finally:
        for ref in refs:
            ray.cancel(ref)
        if started:
            ray.shutdown()
