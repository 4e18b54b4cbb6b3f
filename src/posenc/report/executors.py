"""Where and when a report's experiments run: one after another in this process with their training started ahead
in the background (:class:`TrainAhead`), or as Ray tasks (:class:`RayExperiments`).

:func:`run_experiments` is the one entry: it runs every missing experiment once and hands each outcome to the
caller as it finishes (:mod:`posenc.report.run` stores it at once, so an interrupted run keeps what it finished).
This module keeps nothing itself: no store, no verdicts.

Locally (``executor="local"``) the experiments run one after another in ledger order and the lab sweeps use one
process per core; the training they will read starts ahead in one background thread, and an experiment marked
``exclusive`` (:class:`~posenc.report.experiments.base.Experiment`) starts only when all of that training has
finished. On a Ray cluster (``executor="ray"``, ``address=``; docs/cluster.md) every missing experiment is submitted
as one Ray task (one CPU; a GPU when it computes on ``cuda``), and the experiments that dispatch lab sweeps
(``driver=True``) run in this process with each of their runs a Ray task. Workers keep nothing: the caller writes
every result into the one SQLite store as it arrives. A Ray task computes with the one thread Ray gives it, so its
numbers agree with a local run's within float round-off (the tolerance of ``tests/report/test_reproducible.py``) and
its verdicts are the same.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from posenc.device import resolve_device, setup
from posenc.report.experiments.base import Context, find_experiment, get_experiment
from posenc.report.measurement import Measurement

__all__ = ["Outcome", "RayExperiments", "TrainAhead", "run_experiments", "run_here", "flag", "error_text"]


def flag(name: str, field: str) -> Any:
    """Field ``field`` of experiment ``name``'s record; false for an unknown name, which fails when it is run."""
    return getattr(find_experiment(name), field, False)


def error_text(exc: BaseException) -> str:
    """An exception as the one line a failed claim shows: its type, its message and the file and line it came from."""
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def compute(name: str, ctx: Context) -> Measurement:
    """Run experiment ``name`` and present it (:func:`posenc.report.present.shown`); the figure is kept as its PNG
    (the Figure's memory is dropped)."""
    from posenc.report.present import shown

    measurement = shown(name, get_experiment(name)(ctx), ctx)  # an unknown name raises here: only its claims fail
    measurement.figure_png = measurement.to_json()["figure_png"]
    measurement.figure = None
    return measurement


@dataclasses.dataclass
class Outcome:
    """One experiment's result in this run: its measurement (or the error it raised), wall time, and where it ran."""

    measurement: Measurement | None
    wall_s: float
    where: dict[str, str]
    error: str | None = None


def where_computed(name: str, ctx: Context) -> dict[str, str]:
    """Where experiment ``name`` computes: the report's device and dtype, or the CPU in float32. Called where it
    runs (a Ray worker resolves ``"auto"`` itself); an experiment that sends its runs to Ray says so (each run's own
    row in the store records the worker's device)."""
    if not flag(name, "device"):
        return setup("cpu", "float32")
    if ctx.executor == "ray" and flag(name, "driver"):
        return {"device": ctx.device, "dtype": ctx.dtype, "executor": "ray"}
    return setup(resolve_device(ctx.device), ctx.dtype)


def run_here(name: str, ctx: Context) -> Outcome:
    """Run experiment ``name`` in this process; an exception becomes the outcome's error."""
    start = time.perf_counter()
    try:
        measurement = compute(name, ctx)
    except Exception as exc:  # any failure of one experiment fails only its claims
        return Outcome(None, time.perf_counter() - start, {}, error_text(exc))
    return Outcome(measurement, time.perf_counter() - start, where_computed(name, ctx))


def experiment_task(name: str, ctx: Context) -> dict[str, Any]:
    """One experiment as a cluster task: the outcome as JSON (Ray workers may not share the driver's disk, so the
    task keeps nothing itself; the driver stores what it returns)."""
    outcome = run_here(name, ctx)
    return {"measurement": outcome.measurement.to_json() if outcome.measurement is not None else None,
            "wall_s": outcome.wall_s, "where": outcome.where, "error": outcome.error}


class RayExperiments:
    """The experiments of one report run as Ray tasks: one task per experiment, a GPU asked for when an experiment
    computes on ``cuda``. Connecting happens in the constructor, before any work."""

    def __init__(self, address: str):
        from posenc.cluster import connect_ray

        self.ray, self.started = connect_ray(address)
        self.refs: dict[Any, str] = {}

    def submit(self, name: str, ctx: Context) -> None:
        """Start experiment ``name`` as a task; the task keeps no files (``store_path`` and ``work_dir`` unset)."""
        gpus = 1 if flag(name, "device") and ctx.device.startswith("cuda") else 0
        task = self.ray.remote(num_cpus=1, num_gpus=gpus)(experiment_task)
        self.refs[task.remote(name, dataclasses.replace(ctx, store_path=None, work_dir=None, progress=False))] = name

    def ready(self, wait: bool) -> list[tuple[str, Outcome]]:
        """The outcomes finished so far (``wait``: block until at least one is, unless none is pending)."""
        if not self.refs:
            return []
        done, _ = self.ray.wait(list(self.refs), num_returns=1 if wait else len(self.refs),
                                timeout=None if wait else 0)
        out = []
        for ref in done:
            name = self.refs.pop(ref)
            try:
                data = self.ray.get(ref)
            except Exception as exc:  # the worker died (out of memory, node lost): the claims fail, the page renders
                out.append((name, Outcome(None, 0.0, {}, f"Ray task failed: {str(exc).splitlines()[0]}")))
                continue
            measurement = Measurement.from_json(data["measurement"]) if data["measurement"] is not None else None
            out.append((name, Outcome(measurement, data["wall_s"], data["where"], data["error"])))
        return out

    def close(self) -> None:
        for ref in self.refs:
            self.ray.cancel(ref)
        self.refs.clear()
        if self.started:
            self.ray.shutdown()


class TrainAhead:
    """The training that a local report's experiments will read (``prepare`` of :class:`~posenc.report.experiments.base.Experiment`), started at once in one
    background thread, in ledger order, while the cheap experiments run in the foreground: the lab sweeps train in
    their own processes, so the machine's cores stay busy. An experiment waits for its training before it runs
    (it then finds the runs in the store or this process's cache); a failed preparation is left for the experiment
    to meet and report. Only with a results store (the sweeps keep their runs there) and more than one core. A lab
    sweep is prepared in a process of its own, so that nothing in this process draws from torch's global random
    generator while a foreground experiment seeds it and builds its models.

    The thread is a daemon: an interrupted report exits at once (the lab's worker processes exit with it, and every
    run they finished is already in the store)."""

    def __init__(self, names: list[str], ctx: Context):
        import threading

        from posenc.resources import usable_cores

        self.done: dict[Any, threading.Event] = {}
        self.stop = threading.Event()
        jobs = list(dict.fromkeys(flag(n, "preparation") for n in names if flag(n, "preparation")))
        if not jobs or ctx.store_path is None or usable_cores() < 2:
            return
        self.done = {job: threading.Event() for job in jobs}
        quiet = dataclasses.replace(ctx, progress=False)
        threading.Thread(target=self._train, args=(jobs, quiet), daemon=True, name="posenc-train-ahead").start()

    def _train(self, jobs: list[tuple[Any, bool]], ctx: Context) -> None:
        from posenc.cluster import process_pool

        for job in jobs:
            if self.stop.is_set():
                break
            prepare, here = job
            try:
                if here:
                    prepare(ctx)
                else:  # its own process: its random draws and model builds stay out of this one
                    with process_pool(1) as pool:
                        pool.submit(prepare, ctx).result()
            except Exception:  # noqa: BLE001 - the experiment runs it again and reports the error itself
                pass
            finally:
                self.done[job].set()
        for event in self.done.values():  # stopped early: nobody waits for the rest
            event.set()

    def wait(self, name: str) -> None:
        event = self.done.get(flag(name, "preparation"))
        if event is not None:
            event.wait()

    def wait_all(self) -> None:
        """Until every background training has finished (an ``exclusive`` experiment then gets every core)."""
        for event in self.done.values():
            event.wait()

    @contextlib.contextmanager
    def one_thread(self):
        """While training runs in the background, the foreground computes on one thread (torch and BLAS): the
        training processes hold the other cores, and more threads than cores spin against each other. Results
        differ from a two-thread run by float round-off only (tests/report/test_reproducible.py)."""
        if not self.done or all(e.is_set() for e in self.done.values()):
            yield
            return
        import torch

        threads = torch.get_num_threads()  # first: threadpoolctl's limits apply the moment they are made
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # without the models extra: torch's threads alone
            blas = contextlib.nullcontext()
        else:
            blas = threadpool_limits(limits=1, user_api="blas")  # torch's own threads are set just below
        torch.set_num_threads(1)
        try:
            with blas:
                yield
        finally:
            torch.set_num_threads(threads)

    def close(self) -> None:
        self.stop.set()



def run_experiments(names: list[str], ctx: Context, finish: Callable[[str, Outcome], None],
                    cluster: RayExperiments | None = None, show: Callable[[str], None] | None = None) -> None:
    """Run each experiment of ``names`` once and call ``finish(name, outcome)`` the moment it has finished.

    Without ``cluster``: one after another in the order given, their training started ahead in the background
    (:class:`TrainAhead`); an ``exclusive`` experiment starts when all of that training has finished. With
    ``cluster``: every experiment that does not send its own runs to the cluster is submitted as a task first; then
    those that do (the lab sweeps, ``driver``) run here, and the tasks are collected as they finish. ``show(name)``
    is told which experiment runs here now (a progress bar's label)."""
    here = list(names)
    if cluster is not None:
        here = [name for name in names if flag(name, "driver")]
        for name in names:
            if not flag(name, "driver"):
                cluster.submit(name, ctx)
    ahead = TrainAhead(here, ctx) if cluster is None else None
    try:
        for name in here:
            if show is not None:
                show(name)
            if ahead is not None:
                ahead.wait(name)
                if flag(name, "exclusive"):
                    ahead.wait_all()
            with ahead.one_thread() if ahead is not None else contextlib.nullcontext():
                outcome = run_here(name, ctx)
            finish(name, outcome)
            for done in cluster.ready(wait=False) if cluster is not None else ():
                finish(*done)
    finally:
        if ahead is not None:
            ahead.close()
    while cluster is not None and cluster.refs:
        for done in cluster.ready(wait=True):
            finish(*done)
