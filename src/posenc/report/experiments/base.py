"""What an experiment returns, and the registry of experiments by name.

An experiment is a function ``fn(ctx: Context) -> Measurement``. It calls posenc's library (encodings, model,
properties, probe, lab, extend), never decides a verdict, and returns:

- ``estimates``: the statistics the claims' tests read, each a :class:`~posenc.stats.Estimate` (value and 95%
  interval; exact numbers have a zero-width interval);
- ``variants``: the same estimates under each option of a methodological choice (a claim's ``choice``), if any;
- ``numbers``: every other measured number, flat or nested, JSON-serialisable (kept in report.json and the store);
- ``rows``: the small table the page shows, each measured value (an ``Estimate`` where sampled) beside its baseline
  or published anchor;
- ``missing``: set instead of estimates when the experiment did not run here (quick mode), with the reason;
  ``command`` the command that runs it (default: the claim's own ``posenc report --claim ID``). An experiment that
  returns ``missing`` in quick mode leaves its claims "not decided in quick mode"; the runner marks the claims past
  the report's time budget "not run" (``missing_status``);
- ``figure``: an optional matplotlib ``Figure`` (stored as a PNG);
- ``setup``: one sentence saying what ran, with its sizes (quick and full mode differ here).

Experiments import the areas they call inside the function, so a missing or broken area fails only the claims that
need it.
"""

from __future__ import annotations

import base64
import functools
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from posenc.errors import PosencError
from posenc.stats import Estimate, jsonable

__all__ = ["Context", "Row", "Measurement", "exacts", "one_thread", "experiment", "EXPERIMENTS", "DEVICE_AWARE",
           "ON_DRIVER", "PREPARE", "EXCLUSIVE", "EXTENDED", "QUICK_IS_FULL", "get_experiment", "figure_to_png"]


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
            sweeps and the extend runs, :data:`DEVICE_AWARE`) compute: a resolved device (``"cpu"``, ``"cuda"``,
            ``"cuda:1"``, ``"mps"``) and ``"float32"``, ``"bfloat16"`` or ``"float16"``. The other experiments are
            small and run on the CPU in float32 (or float64).
        executor, address: where the lab sweeps send their runs: ``"local"`` (this machine's processes) or
            ``"ray"`` (the cluster at ``address``, :mod:`posenc.cluster`).
        extended: also run the experiments past the report's time budget (:data:`EXTENDED`).
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
        """Seeds per trained configuration: the caller's, else 2 in quick mode and 3 in full mode."""
        return self.seeds if self.seeds is not None else (2 if self.quick else 3)


@dataclass
class Row:
    """One line of a claim's numbers table: the measured value beside its anchor (baseline, published, expected)."""

    quantity: str
    measured: Any
    anchor: Any = None
    anchor_label: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"quantity": self.quantity, "measured": jsonable(self.measured), "anchor": jsonable(self.anchor),
                "anchor_label": self.anchor_label}


@dataclass
class Measurement:
    """The result of one experiment (see the module docstring)."""

    numbers: dict[str, Any]
    rows: list[Row] = field(default_factory=list)
    figure: Figure | None = None
    setup: str = ""
    estimates: dict[str, Estimate] = field(default_factory=dict)
    variants: dict[str, dict[str, Estimate]] = field(default_factory=dict)
    missing: str | None = None
    missing_status: str | None = None
    command: str | None = None
    figure_png: str | None = None  # base64 PNG: filled from ``figure`` when stored, or read back from the store

    def to_json(self) -> dict[str, Any]:
        """A JSON-serialisable dict (the figure as base64 PNG) for the results store."""
        png = self.figure_png
        if png is None and self.figure is not None:
            png = figure_to_png(self.figure)
        return {"estimates": {k: e.as_dict() for k, e in self.estimates.items()},
                "variants": {o: {k: e.as_dict() for k, e in v.items()} for o, v in self.variants.items()},
                "missing": self.missing, "missing_status": self.missing_status, "command": self.command,
                "numbers": jsonable(self.numbers), "rows": [r.as_dict() for r in self.rows], "setup": self.setup,
                "figure_png": png}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Measurement:
        rows = [Row(r["quantity"], _estimate_back(r["measured"]), _estimate_back(r["anchor"]), r["anchor_label"])
                for r in data.get("rows", [])]
        return cls(numbers=data["numbers"], rows=rows, setup=data.get("setup", ""), figure_png=data.get("figure_png"),
                   estimates={k: Estimate.from_dict(e) for k, e in data.get("estimates", {}).items()},
                   variants={o: {k: Estimate.from_dict(e) for k, e in v.items()}
                             for o, v in data.get("variants", {}).items()},
                   missing=data.get("missing"), missing_status=data.get("missing_status"),
                   command=data.get("command"))


def exacts(numbers: dict[str, Any], *keys: str) -> dict[str, Estimate]:
    """``{key: exact(numbers[key])}``: the computed (not sampled) numbers a claim's tests read."""
    from posenc.stats import exact

    return {k: exact(numbers[k]) for k in keys}


def one_thread(fn: Callable[[Context], Measurement]) -> Callable[[Context], Measurement]:
    """Run an experiment on one torch thread and one BLAS thread (restored afterwards): for experiments of small
    matrices, where on a busy machine two threads fighting for the cores make the work many times slower, and for
    experiments that time work, whose ratios must not depend on how the threads were scheduled."""

    @functools.wraps(fn)
    def run(ctx: Context) -> Measurement:
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


def figure_to_png(figure: Figure, dpi: int = 110) -> str:
    """A ``Figure`` as base64-encoded PNG text (what the page embeds as ``data:image/png;base64,...``)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _estimate_back(value: Any) -> Any:
    """A row cell read back from JSON: an estimate's dict becomes an :class:`Estimate` again."""
    if isinstance(value, dict) and {"value", "low", "high", "n", "method"} <= set(value):
        return Estimate.from_dict(value)
    return value


#: experiment name -> function(ctx) -> Measurement
EXPERIMENTS: dict[str, Callable[[Context], Measurement]] = {}
#: the experiments that compute on ``ctx.device`` in ``ctx.dtype`` (the others run on the CPU in float32)
DEVICE_AWARE: set[str] = set()
#: the experiments that send their own runs to ``ctx.executor`` (the lab sweeps) and keep them in the store: on a
#: cluster they run on the driver, their runs are the cluster's tasks; every other experiment is one task
ON_DRIVER: set[str] = set()
#: experiment name -> ``(prepare(ctx), here)``: the training the experiment will read, which a local report starts
#: in the background while the cheap experiments run. ``here=False`` (a lab sweep, which keeps its runs in the
#: store): it runs in a process of its own, so it cannot touch this process's random state while a foreground
#: experiment seeds and draws. ``here=True`` (the seed runs, kept in this process's cache): it runs in a thread of
#: this process and must draw no random numbers here (its runs train in worker processes). Experiments that share a
#: ``prepare`` share its work.
PREPARE: dict[str, tuple[Callable[[Context], Any], bool]] = {}
#: the experiments that compute for many minutes (the context extension): a local report starts one only after the
#: background training has finished, so that it runs on every core instead of the one a foreground experiment gets
#: while training runs beside it, and keeps for its whole length
EXCLUSIVE: set[str] = set()
#: experiment name -> how long it trains, for the experiments past the report's budget (the full report keeps to an
#: hour on 2 cores): they run only with ``Context.extended`` (``posenc report --extended``, or their claim named
#: with ``--claim``); otherwise their claims show as not run, with this sentence and the command
EXTENDED: dict[str, str] = {}
#: the experiments whose numbers are the same in quick and full mode (computed from fixed tables, no sizes that the
#: mode sets): the page marks none of their numbers QUICK
QUICK_IS_FULL: set[str] = set()


def experiment(name: str, device: bool = False, driver: bool = False,
               prepare: Callable[[Context], Any] | None = None, prepare_here: bool = False, exclusive: bool = False,
               extended: str | None = None, quick_is_full: bool = False
               ) -> Callable[[Callable[[Context], Measurement]], Callable[[Context], Measurement]]:
    """Register ``fn(ctx) -> Measurement`` under ``name`` (a duplicate name raises); ``device=True``: it runs on
    ``ctx.device`` in ``ctx.dtype``; ``driver=True``: it dispatches its own runs (:data:`ON_DRIVER`);
    ``prepare``, ``prepare_here``: what it trains, startable ahead of it (:data:`PREPARE`); ``exclusive=True``: it
    computes long enough to want every core (:data:`EXCLUSIVE`); ``extended``: it trains past the report's time
    budget and runs only when asked, this sentence saying for how long (:data:`EXTENDED`); ``quick_is_full=True``:
    quick mode computes exactly what full mode does (:data:`QUICK_IS_FULL`)."""

    def decorate(fn: Callable[[Context], Measurement]) -> Callable[[Context], Measurement]:
        if name in EXPERIMENTS:
            raise PosencError(f"experiment {name!r} is registered twice; pick another name")
        EXPERIMENTS[name] = fn
        if device:
            DEVICE_AWARE.add(name)
        if driver:
            ON_DRIVER.add(name)
        if prepare is not None:
            PREPARE[name] = (prepare, prepare_here)
        if exclusive:
            EXCLUSIVE.add(name)
        if extended is not None:
            EXTENDED[name] = extended
        if quick_is_full:
            QUICK_IS_FULL.add(name)
        return fn

    return decorate


def get_experiment(name: str) -> Callable[[Context], Measurement]:
    """The experiment registered as ``name``; an unknown name lists the valid ones."""
    from posenc.report import experiments  # noqa: F401  (registers every experiment)

    if name not in EXPERIMENTS:
        raise PosencError(f"unknown experiment {name!r}; known: {', '.join(sorted(EXPERIMENTS))}")
    return EXPERIMENTS[name]
