"""The report as one self-contained HTML page: inline CSS, figures as base64 PNG, no script, no network.

The page is the jinja2 template ``templates/report.html`` (with ``templates/report.css``), package data read through
:mod:`importlib.resources`, rendered with autoescaping on: every value from a claim, a measurement or the store is
escaped by the template. This module turns a :class:`~posenc.report.result.ReportResult` into the plain values the
template shows (numbers formatted, the reference runs' verdicts looked up); the template holds all the markup.

Layout: a header (mode, versions, counts: the claims not run and not decided in quick mode counted apart from the
inconclusive ones), a summary table (claim, source, verdict, and the verdicts of the last committed full and
``--extended`` runs, :mod:`posenc.report.reference`, marked where they differ) in two groups, the tutorials'
claims and the literature's, the time each part took, then one section per claim: the claim (and the document's own
sentence), its source, the experiment and its setup, the tests with their thresholds, a small table of measured
numbers (each with its 95% interval; in quick mode the sampled ones marked QUICK) beside their baseline or published
anchor, the verdict with its reason (and, for a claim not run or not decided in quick mode, the command that runs
it), the reference runs' verdicts, the verdict under each option of a methodological choice, and the figure.
"""

from __future__ import annotations

import functools
import math
import time
from importlib import resources
from typing import TYPE_CHECKING, Any

from posenc.report.experiments.base import find_experiment
from posenc.report.reference import FOLLOW_UPS
from posenc.report.verdict import NOT_MEASURED, NOT_RUN, QUICK_UNDECIDED, STATUSES
from posenc.stats import MIN_UNITS, Estimate
from posenc.store import package_versions

if TYPE_CHECKING:
    import jinja2

    from posenc.report.reference import ReferenceRun, References
    from posenc.report.result import ClaimResult, ReportResult

__all__ = ["render_html", "format_value", "template_text", "TEMPLATE"]

#: the page's template, in ``posenc/report/templates/`` (package data)
TEMPLATE = "report.html"

_COLOURS = {  # background, text
    "supported": ("#d8f3dc", "#1b5e20"),
    "qualified": ("#fff3cd", "#7a5200"),
    "refuted": ("#fde2e1", "#a4161a"),
    "inconclusive": ("#e7eefc", "#1d3f8f"),
    "not testable": ("#e9ecef", "#495057"),
    QUICK_UNDECIDED: ("#f1f3f5", "#3d4852"),
    NOT_RUN: ("#ffffff", "#59636e"),
    "failed": ("#f3d9fa", "#6a1b9a"),
}

_GROUPS = {"tutorial": "Claims of the four documents (tutorials 000-003)",
           "literature": "Claims from the literature (papers the documents point to or that test them)"}


def format_value(value: Any) -> str:
    """A number or value as a short table cell: 4 significant digits, scientific for tiny or huge floats."""
    if value is None:
        return "—"
    if isinstance(value, Estimate):
        if value.method == "exact":
            return format_value(value.value)
        if value.method == "observed":
            return format_value(value.value)
        if not value.has_interval:
            return f"{format_value(value.value)} (no interval: n={value.n} < {MIN_UNITS})"
        return f"{format_value(value.value)} [{format_value(value.low)}, {format_value(value.high)}]"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if not math.isfinite(value):
            return str(value)
        if value == 0:
            return "0"
        if abs(value) < 1e-3 or abs(value) >= 1e6:
            return f"{value:.2e}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value)
    return str(value)


def template_text(name: str) -> str:
    """The text of the page's template file ``name`` (``report.html``, ``report.css``), read as package data."""
    return (resources.files("posenc.report") / "templates" / name).read_text(encoding="utf-8")


@functools.cache
def _environment() -> jinja2.Environment:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FunctionLoader(template_text), autoescape=True,
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                             keep_trailing_newline=True)
    env.globals.update(colours=_COLOURS, NOT_RUN=NOT_RUN, QUICK_UNDECIDED=QUICK_UNDECIDED, MIN_UNITS=MIN_UNITS)
    return env


def _short(text: str, limit: int = 110) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " ..."


def _reference_cell(result: ClaimResult, references: References | None, kind: str) -> dict[str, Any] | None:
    """A summary cell: the claim's verdict in the committed ``kind`` run (``status`` None: not in that run), and
    whether it differs from this run's; None without that run."""
    run = references.runs.get(kind) if references is not None else None
    if run is None:
        return None
    found = run.verdicts.get(result.claim.id)
    if found is None:
        return {"kind": kind, "status": None, "differs": False}
    return {"kind": kind, "status": found["status"], "differs": found["status"] != result.verdict.status}


def _groups(results: list[ClaimResult], references: References | None) -> list[dict[str, Any]]:
    """The summary table's rows, numbered in page order, in two groups: the tutorials' claims, the literature's."""
    groups = []
    for origin, heading in _GROUPS.items():
        rows = []
        for i, r in enumerate(results, 1):
            if r.claim.origin != origin:
                continue
            note = r.verdict.condition or (_short(r.verdict.reason) if r.verdict.status in
                                           ("not testable", "failed", "inconclusive") else None)
            if r.verdict.status in NOT_MEASURED:
                note = f"run: {r.verdict.command}"
            rows.append({"number": i, "claim": r.claim, "status": r.verdict.status, "note": note,
                         "full": _reference_cell(r, references, "full"),
                         "extended": _reference_cell(r, references, "extended")})
        if rows:
            groups.append({"origin": origin, "heading": heading, "rows": rows})
    return groups


def _reference_runs(references: References | None, results: list[ClaimResult]) -> list[dict[str, Any]] | None:
    """Which committed runs the summary's last two columns come from, and the committed follow-ups shown in their
    claims' sections: what ran each, how many verdicts differ, or why one is missing or unreadable (``note``)."""
    if references is None:
        return None
    runs = []
    for kind in ("full", "extended"):
        run = references.runs.get(kind)
        if run is None:
            runs.append({"note": references.notes.get(kind, f"no committed {kind} run")})
            continue
        runs.append(_reference_run(run, results, column=True))
    for kind in FOLLOW_UPS:  # listed only when committed (or committed and unreadable)
        if kind in references.runs:
            runs.append(_reference_run(references.runs[kind], results, column=False))
        elif kind in references.notes:
            runs.append({"note": references.notes[kind]})
    return runs


def _reference_run(run: ReferenceRun, results: list[ClaimResult], column: bool) -> dict[str, Any]:
    """A committed run as the header lists it: what ran it, its file, and how many verdicts differ from this run's
    (a claim it lacks does not count)."""
    differs = sum(run.verdicts.get(r.claim.id, {}).get("status", r.verdict.status) != r.verdict.status
                  for r in results)
    return {"note": None, "kind": run.kind, "describe": run.describe(), "file": run.path.name, "differs": differs,
            "column": column, "claims": len(run.verdicts)}


def _timings(results: list[ClaimResult]) -> list[tuple[str, float, bool]]:
    """How long each experiment took this run (shared experiments count once; stored ones say so)."""
    seen: dict[str, tuple[float, bool]] = {}
    for r in results:
        if r.measurement is None:
            continue
        wall, cached = seen.get(r.claim.experiment, (0.0, True))
        seen[r.claim.experiment] = (max(wall, r.wall_s), cached and r.cached)
    return [(name, wall, cached) for name, (wall, cached) in seen.items()]


def _quick_badge(result: ClaimResult, value: Any) -> bool:
    """Whether QUICK goes beside a number whose precision depends on the mode: a sampled estimate (not exact
    arithmetic) of an experiment whose quick mode samples less than its full mode."""
    return bool(result.quick and isinstance(value, Estimate) and value.sampled
                and not getattr(find_experiment(result.claim.experiment), "quick_is_full", False))


def _versions_text(versions: dict[str, Any]) -> str:
    """``posenc 0.1.0, torch 2.13.0+cpu, transformers 5.24.0, Python 3.11.7`` (what a row or a run was computed by)."""
    names = {"posenc": "posenc", "torch": "torch", "transformers": "transformers", "python": "Python"}
    return ", ".join(f"{label} {versions[key]}" for key, label in names.items() if versions.get(key))


def _reference_lines(result: ClaimResult, references: References | None) -> list[dict[str, Any]] | None:
    """The claim's verdict in the last committed full and extended runs (``missing``: ``"run"`` without that run,
    ``"claim"`` when the claim was not in it), and in a committed follow-up that ran it; each marked where it
    differs."""
    if references is None:
        return None
    lines = []
    for kind in ("full", "extended"):
        run = references.runs.get(kind)
        if run is None:
            lines.append({"kind": kind, "missing": "run"})
        elif result.claim.id not in run.verdicts:
            lines.append({"kind": kind, "missing": "claim", "date": run.created_at.split("T")[0]})
        else:
            lines.append(_reference_line(run, result))
    for kind in FOLLOW_UPS:  # a follow-up's line only in the sections of the claims it ran
        run = references.runs.get(kind)
        if run is not None and result.claim.id in run.verdicts:
            lines.append(_reference_line(run, result))
    return lines


def _reference_line(run: ReferenceRun, result: ClaimResult) -> dict[str, Any]:
    """The claim's verdict in ``run`` (which holds it) as a section's line shows it."""
    found = run.verdicts[result.claim.id]
    label = f"qualified: {found['condition']}" if found["status"] == "qualified" and found.get("condition") \
        else found["status"]
    return {"kind": run.kind, "missing": None, "date": run.created_at.split("T")[0], "status": found["status"],
            "label": label, "differs": found["status"] != result.verdict.status}


def _section(i: int, result: ClaimResult, references: References | None = None) -> dict[str, Any]:
    """What one claim's section shows, as plain values."""
    v, m = result.verdict, result.measurement
    how = "read from the results store" if result.cached else f"computed in {result.wall_s:.1f} s"
    if result.provenance:
        how += f" ({_versions_text(result.provenance['versions'])}, {result.provenance['computed_at']})"
    rows = [{"quantity": row.quantity, "measured": format_value(row.measured),
             "quick": _quick_badge(result, row.measured), "anchor": format_value(row.anchor),
             "anchor_label": row.anchor_label} for row in (m.rows if m is not None else ())]
    choice = list(result.variants.items()) if result.claim.choice is not None and result.variants else None
    return {"number": i, "claim": result.claim, "verdict": v, "measurement": m, "rows": rows, "choice": choice,
            "command": v.command if v.status in NOT_MEASURED and v.command else None,
            "references": _reference_lines(result, references),
            "mode": "quick mode" if result.quick else "full mode", "how": how}


def _where(report: ReportResult) -> str:
    """Where the experiments computed, for the header: ``device cpu, float32``, or the lab and extend experiments'
    device and dtype beside the CPU's for the rest."""
    where = getattr(report, "setup", None) or {"device": "cpu", "dtype": "float32"}
    device = where["device"] + (f" ({where['gpu']})" if where.get("gpu") else "")
    if where.get("executor") == "ray" and where["device"] == "auto":
        device = "each Ray worker's own device (auto)"
    ray = f"; every experiment and lab run a task on the Ray cluster at {where['address']}" \
        if where.get("executor") == "ray" else ""
    if where["device"] == "cpu" and where["dtype"] == "float32":
        return "device cpu, float32" + ray
    return f"lab and extend experiments on {device} in {where['dtype']}, the others on cpu in float32" + ray


def render_html(report: ReportResult) -> str:
    """The whole page as a string (UTF-8, no external resources)."""
    references = getattr(report, "references", None)
    return _environment().get_template(TEMPLATE).render(
        report=report, versions=_versions_text(package_versions()),
        created=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        stored=sum(r.cached for r in report.results), where=_where(report),
        counts=[(s, report.counts[s]) for s in STATUSES if report.counts[s]],
        reference_runs=_reference_runs(references, report.results), groups=_groups(report.results, references),
        timings=_timings(report.results),
        sections=[_section(i, r, references) for i, r in enumerate(report.results, 1)])
