"""What an experiment returns, and the registry of experiments by name.

An experiment is a function ``fn(ctx: Context) -> Measured``. It calls posenc's library (encodings, model,
properties, probe, lab, extend), measures, and never decides a verdict nor says how the page shows it. It returns a
:class:`Measured`:

- ``estimates``: the statistics the claims' tests read, each a :class:`~posenc.stats.Estimate` (value and 95%
  interval; exact numbers have a zero-width interval);
- ``variants``: the same estimates under each option of a methodological choice (a claim's ``choice``), if any;
- ``numbers``: every other measured number, flat or nested, JSON-serialisable (kept in report.json and the store);
- ``shown``: what only its page needs (arrays a figure draws), never stored;
- ``missing``: set instead of estimates when the experiment did not run here (quick mode), with the reason;
  ``command`` the command that runs it (default: the claim's own ``posenc report --claim ID``). An experiment that
  returns ``missing`` in quick mode leaves its claims "not decided in quick mode"; the runner marks the claims past
  the report's time budget "not run" (``missing_status``).

Its page, the function of the same name in :mod:`posenc.report.present`, builds what the page shows from it (the
rows, the setup sentence with its sizes, the scope the verdict line repeats, the figure), and
:func:`posenc.report.present.shown` joins the two into the :class:`~posenc.report.measurement.Measurement` the report
stores. A size that differs between quick and full mode is a :class:`Mode` constant, read with ``SIZE.of(ctx)``, not
a branch.

Experiments import the areas they call inside the function, so a missing or broken area fails only the claims that
need it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from posenc.names import Registry
from posenc.stats import MIN_UNITS, Estimate

__all__ = ["Context", "Measured", "Mode", "Experiment", "exacts", "one_thread", "experiment", "EXPERIMENTS",
           "find_experiment", "get_experiment"]


@dataclass(frozen=True)
class Context:
    """What an experiment may use besides its own code.

    Attributes:
        quick: small sizes (the quick report); ``False`` runs the full experiment.
        store_path: the report's SQLite results store, for areas that cache their own runs (lab sweeps).
        work_dir: a folder where an area may write files (``None``: a temporary folder).
        progress: whether long experiments may show their own progress bars.
        seeds: training seeds per configuration (``None``: the mode's default, :attr:`seed_count`).
        device, dtype: where and in which precision the experiments registered with ``device=True`` (the lab
            sweeps and the extend runs, ``device=True`` experiments) compute: a resolved device (``"cpu"``, ``"cuda"``,
            ``"cuda:1"``, ``"mps"``) and ``"float32"``, ``"bfloat16"`` or ``"float16"``. The other experiments are
            small and run on the CPU in float32 (or float64).
        executor, address: where the lab sweeps send their runs: ``"local"`` (this machine's processes) or
            ``"ray"`` (the cluster at ``address``, :mod:`posenc.cluster`).
        extended: also run the experiments past the report's time budget (``extended`` experiments).
    """

    quick: bool = True
    store_path: Path | None = None
    work_dir: Path | None = None
    progress: bool = False
    seeds: int | None = None
    device: str = "cpu"
    dtype: str = "float32"
    executor: str = "local"
    address: str | None = None
    extended: bool = False

    @property
    def seed_count(self) -> int:
        """Seeds per trained configuration: the caller's, else 3 (:data:`posenc.stats.MIN_UNITS`, the fewest a
        t-interval rests on) in both modes: quick mode trains smaller models, never fewer seeds than an interval needs."""
        return self.seeds if self.seeds is not None else MIN_UNITS


@dataclass
class Measured:
    """What an experiment measured, before the page presents it.

    Attributes:
        numbers: every measured number, flat or nested, JSON-serialisable (kept in the store and report.json).
        estimates: the statistics the claims' tests read (the module docstring).
        variants: the same under each option of a claim's choice.
        shown: what only the page needs and the store does not keep: arrays a figure draws, objects a row reads
            (a judgement, a table); handed to the page, then dropped.
        missing, missing_status, command: an experiment that did not run here (the module docstring).
    """

    numbers: dict[str, Any]
    estimates: dict[str, Estimate] = field(default_factory=dict)
    variants: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    shown: dict[str, Any] = field(default_factory=dict)
    missing: str | None = None
    missing_status: str | None = None
    command: str | None = None


@dataclass(frozen=True)
class Mode:
    """A size that quick mode sets smaller than the full report: both values as data, ``of(ctx)`` the one that
    runs. The setup sentence reads the same constant, so what the page says ran is what ran."""

    quick: Any
    full: Any

    def of(self, ctx: Context) -> Any:
        return self.quick if ctx.quick else self.full


def exacts(numbers: dict[str, Any], *keys: str) -> dict[str, Estimate]:
    """``{key: exact(numbers[key])}``: the computed (not sampled) numbers a claim's tests read."""
    from posenc.stats import exact

    return {k: exact(numbers[k]) for k in keys}


def one_thread(fn: Callable[[Context], Measured]) -> Callable[[Context], Measured]:
    """Run an experiment on one torch thread and one BLAS thread (restored afterwards): for experiments of small
    matrices, where on a busy machine two threads fighting for the cores make the work many times slower, and for
    experiments that time work, whose ratios must not depend on how the threads were scheduled."""

    @functools.wraps(fn)
    def run(ctx: Context) -> Measured:
        import torch

        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            try:
                from threadpoolctl import threadpool_limits
            except ImportError:  # the optional dependency is missing: numpy keeps its threads
                return fn(ctx)
            with threadpool_limits(limits=1, user_api="blas"):
                return fn(ctx)
        finally:
            torch.set_num_threads(threads)

    return run


@dataclass(frozen=True)
class Experiment:
    """One registered experiment: its function and everything the report needs to know to schedule it.

    Attributes:
        name: the name claims refer to (``Claim.experiment``).
        fn: ``fn(ctx) -> Measured``; the record is callable the same way.
        device: it computes on ``ctx.device`` in ``ctx.dtype`` (the lab sweeps, the extend runs); the others run on
            the CPU in float32.
        driver: it sends its own runs to ``ctx.executor`` (the lab sweeps) and keeps them in the store: on a cluster
            it runs on the driver and its runs are the cluster's tasks; every other experiment is one task.
        prepare: the training it will read, which a local report starts in the background while the cheap
            experiments run (experiments that share a ``prepare`` share its work).
        prepare_here: ``prepare`` runs in a thread of this process (the seed runs, kept in this process's cache; it
            must draw no random numbers here); otherwise in a process of its own (a lab sweep, which keeps its runs
            in the store), so it cannot touch this process's random state while a foreground experiment draws.
        exclusive: it computes for many minutes (the context extension): a local report starts it only after the
            background training has finished, so that it gets every core for its whole length.
        extended: for an experiment past the report's time budget (the full report keeps to an hour on 2 cores), how
            long it trains: it runs only with ``Context.extended`` (``posenc report --extended``, or its claim named
            with ``--claim``); otherwise its claims show as not run, with this sentence and the command.
        quick_is_full: quick mode computes exactly what full mode does (fixed tables, no sizes the mode sets): the
            page marks none of its numbers QUICK.
    """

    name: str
    fn: Callable[[Context], Measured]
    device: bool = False
    driver: bool = False
    prepare: Callable[[Context], Any] | None = None
    prepare_here: bool = False
    exclusive: bool = False
    extended: str | None = None
    quick_is_full: bool = False

    def __call__(self, ctx: Context) -> Measured:
        return self.fn(ctx)

    @property
    def preparation(self) -> tuple[Callable[[Context], Any], bool] | None:
        """``(prepare, prepare_here)``, or ``None``: the key that experiments sharing a training share."""
        return (self.prepare, self.prepare_here) if self.prepare is not None else None


#: experiment name -> its record (filled by :func:`experiment` as the modules of this package are imported)
EXPERIMENTS: Registry[Experiment] = Registry("experiment")


def experiment(name: str, device: bool = False, driver: bool = False,
               prepare: Callable[[Context], Any] | None = None, prepare_here: bool = False, exclusive: bool = False,
               extended: str | None = None, quick_is_full: bool = False
               ) -> Callable[[Callable[[Context], Measured]], Callable[[Context], Measured]]:
    """Register ``fn(ctx) -> Measured`` under ``name`` as an :class:`Experiment` with these attributes (a duplicate
    name raises); the function itself is returned unchanged."""

    def decorate(fn: Callable[[Context], Measured]) -> Callable[[Context], Measured]:
        EXPERIMENTS.register(name, Experiment(name, fn, device, driver, prepare, prepare_here, exclusive, extended,
                                              quick_is_full))
        return fn

    return decorate


def find_experiment(name: str) -> Experiment | None:
    """The experiment registered as ``name``, or None: for reading a record's fields where an unknown name is
    reported later (when it runs) rather than at once."""
    from posenc.report import experiments  # noqa: F401  (registers every experiment)

    return EXPERIMENTS.get(name, None)


def get_experiment(name: str) -> Experiment:
    """The experiment registered as ``name``; an unknown name lists the valid ones."""
    from posenc.report import experiments  # noqa: F401  (registers every experiment)

    return EXPERIMENTS.get(name)
