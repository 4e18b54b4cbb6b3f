"""``posenc report``: run the experiment of every claim in the ledger (or read it from the results store), judge it,
and write ``index.html`` and ``report.json``, with the explorer page (:func:`posenc.explore.write_explorer`,
``explore.html``) beside them, linked from the page's header. An explorer that cannot be written costs the page its
link and a warning, never the report.

Results are stored under kind ``report:<claim id>`` keyed by the experiment, its revision, the mode (quick or full),
the seed count and the posenc version, so a re-run computes only what is missing. The store holds the estimates;
verdicts are judged anew on every run by :func:`posenc.report.verdict.judge`, so a threshold file (``thresholds=``)
changes verdicts without recomputing anything. A claim whose experiment raises is shown as
failed, with the error; the page always renders. A store that cannot be opened (another program's file, an older
schema) does not stop the report: it runs without caching and says so on the page.

Device and precision: ``ReportConfig(device=, dtype=)`` (``--device``, ``--dtype``; :mod:`posenc.device`) are checked
before anything runs and handed to the experiments that train or run long inference (the lab sweeps and the extend
runs, ``device=True`` (:class:`~posenc.report.experiments.base.Experiment`)); the others are small and run on the CPU in float32.
A dtype other than float32 joins those experiments' store keys; the device does not (it is recorded in each row's
``setup`` column). ``report.json`` and the page's header say both.

Executors: where and when the missing experiments run, locally with their training started ahead or as Ray tasks,
is :mod:`posenc.report.executors`; this module writes every result into the one SQLite store as it arrives.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import posenc
from posenc.checks import whole_number
from posenc.cluster import check_executor, check_reachable
from posenc.device import dtype_name, parse_device, resolve_device, resolve_dtype, setup
from posenc.errors import PosencError
from posenc.report import executors
from posenc.report.claim import Claim
from posenc.report.config import ReportConfig, report_config
from posenc.report.executors import Outcome, RayExperiments, error_text, flag
from posenc.report.experiments.base import Context
from posenc.report.ledger import LEDGER, get_claim
from posenc.report.measurement import Measurement
from posenc.report.reference import load_references, run_identity
from posenc.report.result import ClaimResult, ReportResult
from posenc.report.verdict import NOT_RUN, Verdict, failed, judge
from posenc.stats import MIN_UNITS
from posenc.store import ResultStore, StoreError

__all__ = ["ClaimResult", "ReportResult", "ReportConfig", "run_report", "check_setup", "store_config", "check_output_dir", "judge_claim",
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
    if dtype != "float32" and flag(claim.experiment, "device"):
        config["dtype"] = dtype
    return config


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
    variants = {o: judge(claim, measurement.variants[o], quick=quick, option=o) for o in claim.choice.options}
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
            if not math.isfinite(value):  # json reads NaN and Infinity: no interval could clear or fail such a bar
                raise PosencError(f"threshold file {file}: {claim_id}.{statistic} = {value!r} is not a finite number; "
                                  f"give the bar as a number such as 0.5")
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

def _stored(claim: Claim, ctx: Context, store: ResultStore | None) -> tuple[Measurement, float, dict] | None:
    """The claim's measurement, its wall time and its provenance from the store, if a finished one is there that
    this process's versions of torch and transformers computed (:meth:`posenc.store.ResultStore.finished`, the
    rule every resumed run follows)."""
    if store is None:
        return None
    record = store.finished(f"report:{claim.id}", store_config(claim, ctx.quick, ctx.seeds, ctx.dtype))
    if record is None:
        return None
    measurement = Measurement.from_json(record.metrics)
    if claim.choice is not None and not measurement.missing and set(claim.choice.options) - set(measurement.variants):
        return None  # stored under other names for the choice's options (an older posenc): computed again
    return measurement, record.wall_s, _provenance(record.versions, record.created_at)


def _provenance(versions: Mapping[str, Any], created_at: float) -> dict[str, Any]:
    """What computed a claim's numbers and when: ``{"versions": {...}, "computed_at": "YYYY-mm-ddTHH:MM:SSZ"}``."""
    return {"versions": dict(versions), "computed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(created_at))}


def not_extended(claim: Claim) -> Measurement:
    """What a claim past the report's budget shows when it was not asked for: the reason (with how long it takes)
    and the command that runs it."""
    reason = (f"not run: it {flag(claim.experiment, 'extended')}, past the hour the full report keeps to on 2 cores; "
              f"`posenc report --extended` runs every such claim")
    return Measurement({"ran": False, "reason": reason}, setup="not run (past the report's time budget)",
                       missing=reason, missing_status=NOT_RUN, command=f"posenc report --claim {claim.id}")


def _measure_all(selected: list[Claim], ctx: Context, store: ResultStore | None, bar: Any,
                 cluster: RayExperiments | None) -> dict[str, tuple[Measurement | None, bool, float, str | None, dict | None]]:
    """Every selected claim's ``(measurement, cached, wall_s, error, provenance)``, by claim id.

    Claims already in the store are read; each missing experiment runs once (claims sharing it share its
    measurement; where and when: :func:`posenc.report.executors.run_experiments`) and its claims are stored the moment
    it finishes, so an interrupted run keeps what it finished.
    """
    out: dict[str, tuple[Measurement | None, bool, float, str | None, dict | None]] = {}
    waiting: dict[str, list[Claim]] = {}
    for claim in selected:
        if flag(claim.experiment, "extended") and not ctx.extended:
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

    def finish(name: str, outcome: Outcome) -> None:
        for i, claim in enumerate(waiting.pop(name)):
            wall = outcome.wall_s if i == 0 else 0.0  # the time is the experiment's, counted once
            if outcome.measurement is not None and store is not None:
                store.put(f"report:{claim.id}", store_config(claim, ctx.quick, ctx.seeds, ctx.dtype), 0,
                          outcome.measurement.to_json(), wall, setup=outcome.where)
            out[claim.id] = (outcome.measurement, False, wall, outcome.error, computed_now)
            bar.update(1)

    executors.run_experiments(list(waiting), ctx, finish, cluster, show=bar.set_postfix_str)
    return out


def check_setup(device: str = "auto", dtype: str = "float32", executor: str = "local",
                address: str | None = None) -> dict[str, str]:
    """Where and how a report computes, checked before any work: locally the resolved device and its dtype
    (:func:`posenc.device.setup`; float16 on the CPU is refused, the lab trains in it); on Ray the device's form
    (each worker resolves the device) and the address, whose head must answer within seconds
    (:func:`posenc.cluster.check_reachable`), with ``executor`` and ``address`` added."""
    check_executor(executor)
    if executor == "ray":
        target = parse_device(device)
        precision = resolve_dtype(dtype, "cpu", training=True) if target == "cpu" else resolve_dtype(dtype)
        return {"device": target, "dtype": dtype_name(precision), "executor": "ray",
                "address": check_reachable(address)}
    target = str(resolve_device(device))
    return setup(target, resolve_dtype(dtype, target, training=True))


def run_report(config: ReportConfig | str | os.PathLike | None = None, **settings: Any) -> ReportResult:
    """Run (or read) every claim's experiment, judge it, and write ``out_dir/index.html`` and ``report.json``.

    What runs is one :class:`~posenc.report.config.ReportConfig`: pass it whole, or the output folder with any of
    its fields as keywords (``run_report("out", quick=True, claims=["sin-bounded"])``), or a config and keywords
    that replace some of its fields (:func:`~posenc.report.config.report_config`). Everything is checked before any
    experiment runs: the device and dtype (on Ray, ``device`` is checked for form here and resolved on each worker),
    the seed count, the claims, the threshold file (:func:`load_thresholds`), the output folder (created; it must be
    writable) and, on Ray, that the cluster at ``address`` answers. ``executor="ray"`` makes every experiment and
    every lab run a Ray task, results stored by this process (:mod:`posenc.report.executors`, :mod:`posenc.cluster`);
    ``address="local"`` starts a private one-machine Ray for this call.

    Returns:
        a :class:`ReportResult` (paths, one :class:`ClaimResult` per claim, counts).
    """
    start = time.perf_counter()
    config = report_config(config, **settings)
    quick, seeds = config.quick, config.seeds
    where = check_setup(config.device, config.dtype, config.executor, config.address)
    target = where["device"]
    if seeds is not None and not whole_number(seeds):
        raise PosencError(f"seeds must be a whole number >= 1, got {seeds!r}; leave it out for the default, "
                          f"{MIN_UNITS} in both modes (quick and full)")
    if seeds is not None and seeds > MAX_SEEDS:
        raise PosencError(f"seeds={seeds} would train {seeds} copies of every lab configuration (the full report's "
                          f"lab takes about 10 min of 2 cores per seed); at most {MAX_SEEDS} are allowed here: "
                          f"for more, run the lab sweeps with `posenc sweep` on more machines")
    claims = config.claims
    selected = [c if isinstance(c, Claim) else get_claim(c) for c in claims] if claims else list(LEDGER)
    overrides = load_thresholds(config.thresholds) if config.thresholds is not None else {}
    selected = [apply_thresholds(c, overrides) for c in selected]
    out = check_output_dir(config.out_dir)
    cluster = RayExperiments(where["address"]) if config.executor == "ray" else None  # unreachable: fails before work
    try:
        store_file = (Path(config.store_path).expanduser() if config.store_path is not None
                      else out / "results.sqlite")
        store, store_note = _open_store(store_file)
        ctx = Context(quick=quick, store_path=store_file if store is not None else None, work_dir=out / "work",
                      progress=config.progress, seeds=seeds, device=target, dtype=where["dtype"],
                      executor=config.executor, address=where.get("address"), extended=bool(config.extended or claims))

        from posenc.progress import progress as progress_bar

        bar = progress_bar(total=len(selected), desc="report", disable=not config.progress, unit="claim")
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
            verdict, error = failed(error_text(exc)), error_text(exc)
        results.append(ClaimResult(claim, verdict, measurement, quick, wall, cached, error, variants, provenance))

    from posenc.report.render import render_html

    result = ReportResult(out, out / "index.html", out / "report.json", results, quick,
                          store_file if store is not None else None, store_note,
                          time.perf_counter() - start, computed, seeds,
                          str(config.thresholds) if config.thresholds is not None else None, where,
                          load_references(config.references), bool(config.extended))
    explorer = _write_explorer(out)
    result.explorer_html = out / explorer if explorer is not None else None
    result.index_html.write_text(render_html(result, explorer=explorer), encoding="utf-8")
    result.report_json.write_text(json.dumps(_report_json(result), indent=1, default=str), encoding="utf-8")
    return result


def _write_explorer(out: Path) -> str | None:
    """Write the explorer page beside the report; its address relative to ``index.html``, or ``None`` (with a
    warning that says why and how to write it alone) when it could not be written."""
    from posenc.explore import write_explorer

    try:
        return write_explorer(out).name
    except (PosencError, OSError) as exc:
        warnings.warn(f"the report's explorer page was not written ({exc}); the report links none; write it alone "
                      f"with `posenc explore --out {out}`", RuntimeWarning, stacklevel=3)
        return None


def _report_json(result: ReportResult) -> dict[str, Any]:
    from posenc.store import package_versions

    return {"posenc": posenc.__version__, "versions": package_versions(), **run_identity(result.setup.get("gpu")),
            "quick": result.quick, "extended": result.extended, "seeds": result.seeds,
            "thresholds": result.thresholds, "device": result.setup["device"], "dtype": result.setup["dtype"],
            "setup": result.setup,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "wall_s": round(result.wall_s, 3),
            "store": str(result.store_path) if result.store_path else None, "store_note": result.store_note,
            "counts": result.counts, "computed": result.computed, "claims": [r.as_dict() for r in result.results]}
