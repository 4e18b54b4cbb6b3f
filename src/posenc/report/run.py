"""``posenc report``: run the experiment of every claim in the ledger (or read it from the results store), judge it,
and write ``index.html`` and ``report.json``.

Results are stored under kind ``report:<claim id>`` keyed by the experiment, its revision, the mode (quick or full),
the seed count and the posenc version, so a re-run computes only what is missing. The store holds the estimates;
verdicts are judged anew on every run by :func:`posenc.report.verdict.judge`, so a threshold file (``thresholds=``)
changes verdicts without recomputing anything. A claim whose experiment raises is shown as
failed, with the error; the page always renders. A store that cannot be opened (another program's file, an older
schema) does not stop the report: it runs without caching and says so on the page.

Device and precision: ``run_report(device=, dtype=)`` (``--device``, ``--dtype``; :mod:`posenc.device`) are checked
before anything runs and handed to the experiments that train or run long inference (the lab sweeps and the extend
runs, ``device=True`` (:class:`~posenc.report.experiments.base.Experiment`)); the others are small and run on the CPU in float32.
A dtype other than float32 joins those experiments' store keys; the device does not (it is recorded in each row's
``setup`` column). ``report.json`` and the page's header say both.

Executors: locally (``executor="local"``) the experiments run one after another in this process and the lab
sweeps use one process per core. On a Ray cluster (``executor="ray"``, ``address=``; docs/cluster.md) every
missing experiment is submitted as one Ray task (one CPU; a GPU when it computes on ``cuda``), and the experiments
that dispatch lab sweeps (``driver=True``) run in this process with each of their
runs a Ray task. Workers keep nothing: this process writes every result into the one SQLite store as it arrives. A
Ray task computes with the one thread Ray gives it, so its numbers agree with a local run's within float round-off
(the tolerance of ``tests/report/test_reproducible.py``) and its verdicts are the same.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import posenc
from posenc.checks import whole_number
from posenc.cluster import check_address, check_executor
from posenc.device import dtype_name, parse_device, resolve_device, resolve_dtype, setup
from posenc.errors import PosencError
from posenc.report.claim import Claim
from posenc.report.experiments.base import (
    Context,
    Measurement,
    find_experiment,
    get_experiment,
)
from posenc.report.ledger import LEDGER, get_claim
from posenc.report.reference import load_references, run_identity
from posenc.report.result import ClaimResult, ReportResult
from posenc.report.verdict import NOT_RUN, Verdict, failed, judge
from posenc.store import ResultStore, StoreError

__all__ = ["ClaimResult", "ReportResult", "run_report", "check_setup", "store_config", "check_output_dir", "judge_claim",
           "load_thresholds", "apply_thresholds"]


#: the most training seeds a report run takes (each seed retrains every lab configuration)
MAX_SEEDS = 20


def store_config(claim: Claim, quick: bool, seeds: int | None = None, dtype: str = "float32") -> dict[str, Any]:
    """The key under which a claim's measurement is stored (``seeds``: a seed count other than the mode's;
    ``dtype``: a precision other than float32, for an experiment that computes in it)."""
    config = {"claim": claim.id, "experiment": claim.experiment, "revision": claim.revision, "quick": bool(quick),
              "posenc": posenc.__version__}
    if seeds is not None:
        config["seeds"] = int(seeds)
    if dtype != "float32" and _device_aware(claim.experiment):
        config["dtype"] = dtype
    return config


def _flag(name: str, field: str) -> Any:
    """Field ``field`` of experiment ``name``'s record; false for an unknown name, which fails when it is run."""
    return getattr(find_experiment(name), field, False)


def _device_aware(name: str) -> bool:
    """Whether experiment ``name`` computes on the report's device in its dtype."""
    return _flag(name, "device")


def judge_claim(claim: Claim, measurement: Measurement, quick: bool = False) -> tuple[Verdict, dict[str, Verdict]]:
    """The headline verdict and, for a claim with a :class:`~posenc.report.claim.Choice`, the verdict under each
    option. The headline rests on the choice's headline option, and its reason says so and why. ``quick``: the
    numbers come from quick mode (a number too thin for an interval then leaves the claim not decided in quick
    mode)."""
    if claim.choice is None or measurement.missing:
        return judge(claim, measurement.estimates, measurement.missing, quick, measurement.missing_status,
                     measurement.command), {}
    absent = [o for o in claim.choice.options if o not in measurement.variants]
    if absent:
        raise PosencError(f"claim {claim.id}: the experiment measured no estimates for {claim.choice.name} "
                          f"{', '.join(absent)}; it measured {', '.join(measurement.variants) or 'none'}")
    variants = {o: judge(claim, measurement.variants[o], quick=quick) for o in claim.choice.options}
    head = variants[claim.choice.headline]
    others = ", ".join(f"{o}: {v.label}" for o, v in variants.items() if o != claim.choice.headline)
    note = (f" [Rests on {claim.choice.name} = {claim.choice.headline} ({claim.choice.why}); under the other "
            f"options: {others}.]")
    return Verdict(head.status, head.reason + note, head.condition, head.command), variants


def load_thresholds(path: str | Path) -> dict[str, dict[str, float]]:
    """Read a threshold file: JSON ``{"claim id": {"statistic": threshold, ...}, ...}``. Checked against the
    ledger before any work: unknown claims or statistics and non-numbers are refused."""
    file = Path(path).expanduser()
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise PosencError(f"threshold file {file} does not exist; pass a JSON file such as "
                          f'{{"sin-bounded": {{"max_abs": 1.000001}}}}') from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PosencError(f"threshold file {file} does not parse as JSON ({exc}); expected "
                          f'{{"claim id": {{"statistic": number}}}}, e.g. {{"sin-bounded": {{"max_abs": 1.000001}}}}'
                          ) from exc
    if not isinstance(data, dict):
        raise PosencError(f"threshold file {file} holds a {type(data).__name__}; expected an object "
                          f'{{"claim id": {{"statistic": number}}}}')
    for claim_id, values in data.items():
        claim = get_claim(claim_id)
        known = {t.statistic for t in (*claim.tests, *claim.requires)}
        if not isinstance(values, dict):
            raise PosencError(f"threshold file {file}: {claim_id!r} maps to {values!r}; expected "
                              f'{{"statistic": number}} with statistics {sorted(known)}')
        for statistic, value in values.items():
            if statistic not in known:
                raise PosencError(f"threshold file {file}: claim {claim_id!r} has no statistic {statistic!r}; "
                                  f"known: {', '.join(sorted(known))}")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise PosencError(f"threshold file {file}: {claim_id}.{statistic} = {value!r} is not a number")
    return data


def apply_thresholds(claim: Claim, overrides: Mapping[str, Mapping[str, float]]) -> Claim:
    """``claim`` with the thresholds of ``overrides[claim.id]`` replacing its own."""
    mine = overrides.get(claim.id)
    if not mine:
        return claim

    def swap(tests: tuple) -> tuple:
        return tuple(dataclasses.replace(t, threshold=float(mine[t.statistic]), basis=f"{t.basis}; set by the "
                                         f"threshold file") if t.statistic in mine else t for t in tests)

    return dataclasses.replace(claim, tests=swap(claim.tests), requires=swap(claim.requires))


def check_output_dir(out_dir: str | Path) -> Path:
    """Create ``out_dir`` if needed and prove it writable, before any experiment runs."""
    out = Path(out_dir).expanduser()
    if out.exists() and not out.is_dir():
        raise PosencError(f"--out {out} is a file, not a folder; pass a folder path such as {out.parent / 'report'}")
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".posenc-write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise PosencError(f"cannot write the report to {out} ({exc.strerror or exc}); pass a writable folder with "
                          f"--out DIR") from exc
    return out


def _open_store(path: Path) -> tuple[ResultStore | None, str | None]:
    try:
        return ResultStore(path), None
    except StoreError as exc:
        return None, f"results store not used, nothing was cached: {exc}"


def _error_text(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""
    return f"{type(exc).__name__}: {exc}{where}"


def _stored(claim: Claim, ctx: Context, store: ResultStore | None) -> tuple[Measurement, float, dict] | None:
    """The claim's measurement, its wall time and its provenance from the store, if a finished one is there that
    this process's versions of torch and transformers computed (:meth:`posenc.store.ResultStore.get`)."""
    if store is None:
        return None
    record = store.get(f"report:{claim.id}", store_config(claim, ctx.quick, ctx.seeds, ctx.dtype))
    if record is None or record.status != "done":
        return None
    return Measurement.from_json(record.metrics), record.wall_s, _provenance(record.versions, record.created_at)


def _provenance(versions: Mapping[str, Any], created_at: float) -> dict[str, Any]:
    """What computed a claim's numbers and when: ``{"versions": {...}, "computed_at": "YYYY-mm-ddTHH:MM:SSZ"}``."""
    return {"versions": dict(versions), "computed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created_at))}


def _compute(name: str, ctx: Context) -> Measurement:
    """Run experiment ``name``; the figure is kept as its PNG (the Figure's memory is dropped)."""
    measurement = get_experiment(name)(ctx)  # an unknown name raises here: only its claims fail
    if not isinstance(measurement, Measurement):
        raise PosencError(f"experiment {name!r} returned {type(measurement).__name__}, expected a Measurement")
    measurement.figure_png = measurement.to_json()["figure_png"]
    measurement.figure = None
    return measurement


@dataclasses.dataclass
class _Outcome:
    """One experiment's result in this run: its measurement (or the error it raised), wall time, and where it ran."""

    measurement: Measurement | None
    wall_s: float
    where: dict[str, str]
    error: str | None = None


def _setup(name: str, ctx: Context) -> dict[str, str]:
    """Where experiment ``name`` computes: the report's device and dtype, or the CPU in float32. Called where it
    runs (a Ray worker resolves ``"auto"`` itself); an experiment that sends its runs to Ray says so (each run's own
    row in the store records the worker's device)."""
    if not _flag(name, "device"):
        return setup("cpu", "float32")
    if ctx.executor == "ray" and _flag(name, "driver"):
        return {"device": ctx.device, "dtype": ctx.dtype, "executor": "ray"}
    return setup(resolve_device(ctx.device), ctx.dtype)


def _run_here(name: str, ctx: Context) -> _Outcome:
    """Run experiment ``name`` in this process; an exception becomes the outcome's error."""
    start = time.perf_counter()
    try:
        measurement = _compute(name, ctx)
    except Exception as exc:  # any failure of one experiment fails only its claims
        return _Outcome(None, time.perf_counter() - start, {}, _error_text(exc))
    return _Outcome(measurement, time.perf_counter() - start, _setup(name, ctx))


def _experiment_task(name: str, ctx: Context) -> dict[str, Any]:
    """One experiment as a cluster task: the outcome as JSON (Ray workers may not share the driver's disk, so the
    task keeps nothing itself; the driver stores what it returns)."""
    outcome = _run_here(name, ctx)
    return {"measurement": outcome.measurement.to_json() if outcome.measurement is not None else None,
            "wall_s": outcome.wall_s, "where": outcome.where, "error": outcome.error}


class _RayExperiments:
    """The experiments of one report run as Ray tasks: one task per experiment, a GPU asked for when an experiment
    computes on ``cuda``. Connecting happens in the constructor, before any work."""

    def __init__(self, address: str):
        from posenc.cluster import connect_ray

        self.ray, self.started = connect_ray(address)
        self.refs: dict[Any, str] = {}

    def submit(self, name: str, ctx: Context) -> None:
        """Start experiment ``name`` as a task; the task keeps no files (``store_path`` and ``work_dir`` unset)."""
        gpus = 1 if _flag(name, "device") and ctx.device.startswith("cuda") else 0
        task = self.ray.remote(num_cpus=1, num_gpus=gpus)(_experiment_task)
        self.refs[task.remote(name, dataclasses.replace(ctx, store_path=None, work_dir=None, progress=False))] = name

    def ready(self, wait: bool) -> list[tuple[str, _Outcome]]:
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
                out.append((name, _Outcome(None, 0.0, {}, f"Ray task failed: {str(exc).splitlines()[0]}")))
                continue
            measurement = Measurement.from_json(data["measurement"]) if data["measurement"] is not None else None
            out.append((name, _Outcome(measurement, data["wall_s"], data["where"], data["error"])))
        return out

    def close(self) -> None:
        for ref in self.refs:
            self.ray.cancel(ref)
        self.refs.clear()
        if self.started:
            self.ray.shutdown()


def not_extended(claim: Claim) -> Measurement:
    """What a claim past the report's budget shows when it was not asked for: the reason (with how long it takes)
    and the command that runs it."""
    reason = (f"not run: it {_flag(claim.experiment, 'extended')}, past the hour the full report keeps to on 2 cores; "
              f"`posenc report --extended` runs every such claim")
    return Measurement({"ran": False, "reason": reason}, setup="not run (past the report's time budget)",
                       missing=reason, missing_status=NOT_RUN, command=f"posenc report --claim {claim.id}")


def _measure_all(selected: list[Claim], ctx: Context, store: ResultStore | None, bar: Any,
                 cluster: _RayExperiments | None) -> dict[str, tuple[Measurement | None, bool, float, str | None]]:
    """Every selected claim's ``(measurement, cached, wall_s, error)``, by claim id.

    Claims already in the store are read; each missing experiment runs once (claims sharing it share its
    measurement) and its claims are stored the moment it finishes, so an interrupted run keeps what it finished.
    Locally experiments run one after the other in ledger order, their training started ahead in the background
    (:class:`_TrainAhead`); an experiment marked ``exclusive`` (:class:`~posenc.report.experiments.base.Experiment`) starts only when
    all of that training has finished. On Ray every experiment is submitted as a task
    first; then the experiments that send their own runs to the cluster (the lab sweeps) run here, and the rest are
    collected as they finish.
    """
    out: dict[str, tuple[Measurement | None, bool, float, str | None]] = {}
    waiting: dict[str, list[Claim]] = {}
    for claim in selected:
        if _flag(claim.experiment, "extended") and not ctx.extended:
            out[claim.id] = (not_extended(claim), False, 0.0, None, None)  # not stored: an --extended run runs it
            bar.update(1)
            continue
        found = _stored(claim, ctx, store)
        if found is not None:
            out[claim.id] = (found[0], True, found[1], None, found[2])
            bar.update(1)
        else:
            waiting.setdefault(claim.experiment, []).append(claim)

    from posenc.store import package_versions

    computed_now = _provenance(package_versions(), time.time())

    def finish(name: str, outcome: _Outcome) -> None:
        for i, claim in enumerate(waiting.pop(name)):
            wall = outcome.wall_s if i == 0 else 0.0  # the time is the experiment's, counted once
            if outcome.measurement is not None and store is not None:
                store.put(f"report:{claim.id}", store_config(claim, ctx.quick, ctx.seeds, ctx.dtype), 0,
                          outcome.measurement.to_json(), wall, setup=outcome.where)
            out[claim.id] = (outcome.measurement, False, wall, outcome.error, computed_now)
            bar.update(1)

    here = list(waiting)
    if cluster is not None:
        here = [name for name in waiting if _flag(name, "driver")]
        for name in waiting:
            if not _flag(name, "driver"):
                cluster.submit(name, ctx)
    ahead = _TrainAhead(here, ctx) if cluster is None else None
    try:
        for name in here:
            bar.set_postfix_str(name)
            if ahead is not None:
                ahead.wait(name)
                if _flag(name, "exclusive"):
                    ahead.wait_all()
            with ahead.one_thread() if ahead is not None else contextlib.nullcontext():
                outcome = _run_here(name, ctx)
            finish(name, outcome)
            for done in cluster.ready(wait=False) if cluster is not None else ():
                finish(*done)
    finally:
        if ahead is not None:
            ahead.close()
    while cluster is not None and cluster.refs:
        for done in cluster.ready(wait=True):
            finish(*done)
    return out


class _TrainAhead:
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
        jobs = list(dict.fromkeys(_flag(n, "preparation") for n in names if _flag(n, "preparation")))
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
        event = self.done.get(_flag(name, "preparation"))
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


def check_setup(device: str = "auto", dtype: str = "float32", executor: str = "local",
                address: str | None = None) -> dict[str, str]:
    """Where and how a report computes, checked before any work: locally the resolved device and its dtype
    (:func:`posenc.device.setup`; float16 on the CPU is refused, the lab trains in it); on Ray the device's and the
    address's form only (each worker resolves the device), with ``executor`` and ``address`` added."""
    check_executor(executor)
    if executor == "ray":
        target = parse_device(device)
        precision = resolve_dtype(dtype, "cpu", training=True) if target == "cpu" else resolve_dtype(dtype)
        return {"device": target, "dtype": dtype_name(precision), "executor": "ray", "address": check_address(address)}
    target = str(resolve_device(device))
    return setup(target, resolve_dtype(dtype, target, training=True))


def run_report(out_dir: str | Path = "posenc-report", quick: bool = True, store_path: str | Path | None = None,
               progress: bool = True, claims: list[str | Claim] | None = None, seeds: int | None = None,
               thresholds: str | Path | None = None, device: str = "auto", dtype: str = "float32",
               executor: str = "local", address: str | None = None, extended: bool = False,
               references: str | Path | None = None) -> ReportResult:
    """Run (or read) every claim's experiment, judge it, and write ``out_dir/index.html`` and ``report.json``.

    Args:
        out_dir: output folder (created; must be writable — checked before anything runs).
        quick: small sweeps and short contexts (minutes); ``False`` runs the full experiments.
        store_path: the SQLite results store (default ``out_dir/results.sqlite``).
        progress: show a progress bar.
        claims: claim ids (or :class:`Claim` objects) to include (default: the whole ledger).
        seeds: training seeds per configuration (default: 2 in quick mode, 3 in full mode).
        thresholds: a JSON file replacing some claims' thresholds (see :func:`load_thresholds`).
        device: where the lab sweeps and extend runs compute: ``"auto"`` (CUDA, else MPS, else the CPU), ``"cpu"``,
            ``"cuda"``, ``"cuda:N"``, ``"mps"``; checked before anything runs.
        dtype: their precision, ``"float32"`` (default), ``"bfloat16"`` or ``"float16"`` (float16 needs a GPU:
            the lab trains).
        executor: ``"local"`` (this machine: experiments one after another, the lab's runs in one process per
            core) or ``"ray"``: every experiment a Ray task and every lab run a Ray task, results stored by this
            process (:mod:`posenc.cluster`). On Ray, ``device`` is checked for form here and resolved on each worker.
        address: the Ray cluster: ``"auto"`` (default: the one ``ray start`` runs on this machine), ``"HOST:PORT"``,
            or ``"local"`` (a private one-machine Ray for this call); an unreachable head fails before any work.
        extended: also run the claims whose training goes past the report's time budget (the research encodings'
            claims, ``extended``); a claim named in ``claims`` runs either way.
            Otherwise they show as not run, with the command that runs them.
        references: the folder of the committed full and extended runs shown beside each verdict (``full.json``,
            ``extended.json``; default ``docs/reports`` of the source tree, :mod:`posenc.report.reference`).

    Returns:
        a :class:`ReportResult` (paths, one :class:`ClaimResult` per claim, counts).
    """
    start = time.perf_counter()
    where = check_setup(device, dtype, executor, address)
    target = where["device"]
    if seeds is not None and not whole_number(seeds):
        raise PosencError(f"seeds must be a whole number >= 1, got {seeds!r}; the default is 2 (quick) or 3 (full)")
    if seeds is not None and seeds > MAX_SEEDS:
        raise PosencError(f"seeds={seeds} would train {seeds} copies of every lab configuration (the full report's "
                          f"lab takes about 10 min of 2 cores per seed); at most {MAX_SEEDS} are allowed here: "
                          f"for more, run the lab sweeps with `posenc sweep` on more machines")
    selected = [c if isinstance(c, Claim) else get_claim(c) for c in claims] if claims else list(LEDGER)
    overrides = load_thresholds(thresholds) if thresholds is not None else {}
    selected = [apply_thresholds(c, overrides) for c in selected]
    out = check_output_dir(out_dir)
    cluster = _RayExperiments(where["address"]) if executor == "ray" else None  # unreachable: fails before work
    try:
        store_file = Path(store_path).expanduser() if store_path is not None else out / "results.sqlite"
        store, store_note = _open_store(store_file)
        ctx = Context(quick=quick, store_path=store_file if store is not None else None, work_dir=out / "work",
                      progress=progress, seeds=seeds, device=target, dtype=where["dtype"], executor=executor,
                      address=where.get("address"), extended=bool(extended or claims))

        from posenc.progress import progress as progress_bar

        bar = progress_bar(total=len(selected), desc="report", disable=not progress, unit="claim")
        try:
            measured = _measure_all(selected, ctx, store, bar, cluster)
        finally:
            bar.close()
    finally:
        if cluster is not None:
            cluster.close()
    results: list[ClaimResult] = []
    computed: list[str] = []
    for claim in selected:
        measurement, cached, wall, error, provenance = measured[claim.id]
        if measurement is None:
            results.append(ClaimResult(claim, failed(error or "no measurement"), None, quick, error=error))
            continue
        if not cached:
            computed.append(claim.id)
        variants: dict[str, Verdict] = {}
        try:
            verdict, variants = judge_claim(claim, measurement, quick)
            error = None
        except Exception as exc:
            verdict, error = failed(_error_text(exc)), _error_text(exc)
        results.append(ClaimResult(claim, verdict, measurement, quick, wall, cached, error, variants, provenance))

    from posenc.report.render import render_html

    result = ReportResult(out, out / "index.html", out / "report.json", results, quick,
                          store_file if store is not None else None, store_note,
                          time.perf_counter() - start, computed, seeds,
                          str(thresholds) if thresholds is not None else None, where,
                          load_references(references), bool(extended))
    result.index_html.write_text(render_html(result), encoding="utf-8")
    result.report_json.write_text(json.dumps(_report_json(result), indent=1, default=str), encoding="utf-8")
    return result


def _report_json(result: ReportResult) -> dict[str, Any]:
    from posenc.store import package_versions

    return {"posenc": posenc.__version__, "versions": package_versions(), **run_identity(result.setup.get("gpu")),
            "quick": result.quick, "extended": result.extended, "seeds": result.seeds,
            "thresholds": result.thresholds, "device": result.setup["device"], "dtype": result.setup["dtype"],
            "setup": result.setup,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "wall_s": round(result.wall_s, 3),
            "store": str(result.store_path) if result.store_path else None, "store_note": result.store_note,
            "counts": result.counts, "computed": result.computed, "claims": [r.as_dict() for r in result.results]}
