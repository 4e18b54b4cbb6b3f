"""The report as one self-contained HTML page: inline CSS and script, figures as base64 PNG, no network.

The page is the jinja2 template ``templates/report.html`` (with ``templates/report.css``), package data read through
:mod:`importlib.resources`, rendered with autoescaping on: every value from a claim, a measurement or the store is
escaped by the template. This module turns a :class:`~posenc.report.result.ReportResult` into the plain values the
template shows (numbers formatted, the reference runs' verdicts looked up); the template holds all the markup.

Two languages: the page is written in English and its fixed text, verdict names and claim titles switch to Chinese
(a switch at the top, kept in the URL as ``?lang=zh``; the page's inline script does it, from the two tables of
:mod:`posenc.report.lang` embedded in the page), and so do a qualified verdict's condition, a measurement's scope
line, a verdict's reason, each test's own words and why it has no null, the claim's null and its choice (their Chinese from
:mod:`posenc.report.lang_claims`, :mod:`~posenc.report.lang_says` and :mod:`~posenc.report.lang_records`, carried in
the element's ``data-zh``). Each claim's section is ``id="claim-<id>"`` (the explorer links there; the older ``#<id>``
still lands on it), and the header links to the explorer page beside the report, ``explore.html?lang=<the page's
language>``, when there is one.

Layout: a header (mode, versions, counts: the claims not run and not decided in quick mode counted apart from the
inconclusive ones), a summary table (claim, source, verdict, and the verdicts of the last committed full and
``--extended`` runs, :mod:`posenc.report.reference`, marked where they differ) in two groups, the tutorials'
claims and the literature's, the time each part took, then one section per claim: the claim (and the document's own
sentence), its source, the experiment and its setup, the tests with their thresholds, a small table of measured
numbers (each with its 95% interval; in quick mode the sampled ones marked QUICK) beside their baseline or published
anchor, each test's measured number beside its null's (the same statistic on random weights, a random table, an
untrained model: :attr:`~posenc.report.claim.Test.null`) or the reason it has none, the verdict with what its numbers
rest on (:attr:`~posenc.report.measurement.Measurement.scope`, "supported on all-MiniLM-L6-v2, 128-token
windows") and its reason (and, for a claim not run or not decided in quick mode, the command that runs it), the reference runs' verdicts, the verdict under each option of a methodological choice, and the figure.
"""

from __future__ import annotations

import functools
import math
import time
from importlib import resources
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

from posenc.report.experiments.base import find_experiment
from posenc.report.lang import DEFAULT_LANG, LANGS, TEXT, fill, status_key
from posenc.report.lang_claims import condition_zh, reason_zh, scope_zh
from posenc.report.lang_records import CHOICE_ZH, NO_NULL_ZH, NULL_ZH
from posenc.report.lang_says import SAYS_ZH
from posenc.report.reference import FOLLOW_UPS
from posenc.report.verdict import NOT_MEASURED, NOT_RUN, QUICK_UNDECIDED, STATUSES
from posenc.stats import MIN_UNITS, Estimate
from posenc.store import package_versions

if TYPE_CHECKING:
    import jinja2

    from posenc.report.reference import ReferenceRun, References
    from posenc.report.result import ClaimResult, ReportResult, Side

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

_GROUPS = {"tutorial": TEXT["en"]["group.tutorial"], "literature": TEXT["en"]["group.literature"]}


class _Key(str):
    """A placeholder's value that is itself a key of the page's text tables (a verdict name, a run's kind): it
    switches language with the text around it."""


class _Both(str):
    """A placeholder's value that has its own Chinese (a scope line): the English, with :attr:`zh` beside it in
    ``data-p-name-zh``."""

    zh: str

    def __new__(cls, en: str, zh: str) -> _Both:
        value = super().__new__(cls, en)
        value.zh = zh
        return value


def _key(key: str) -> _Key:
    if key not in TEXT[DEFAULT_LANG]:
        raise KeyError(f"no page text {key!r}; add it to both tables of posenc.report.lang")
    return _Key(key)


def _text(key: str, tag: str = "span", cls: str = "", **params: Any) -> Markup:
    """One piece of fixed text as an element the page's script can switch: ``<span data-i18n="key"
    data-p-name="value">English</span>``; a :class:`_Key` value goes in ``data-k-name`` and switches too."""
    attrs, values = [], {}
    for name, value in params.items():
        if isinstance(value, _Key):
            attrs.append(Markup(' data-k-{}="{}"').format(name, value))
            values[name] = TEXT[DEFAULT_LANG][value]
        else:
            attrs.append(Markup(' data-p-{}="{}"').format(name, value))
            if isinstance(value, _Both):
                attrs.append(Markup(' data-p-{}-zh="{}"').format(name, value.zh))
            values[name] = str(escape(value))
    open_tag = Markup('<{} data-i18n="{}"').format(tag, key) + (Markup(' class="{}"').format(cls) if cls else "")
    return open_tag + Markup("").join(attrs) + Markup(">" + fill(DEFAULT_LANG, key, values)) + \
        Markup("</{}>").format(tag)


def _kind(kind: str) -> _Key | str:
    """A committed run's kind (``full``, ``extended``, a follow-up's name) as a placeholder's value: its name in
    the page's language where the tables have one, else as written."""
    return _Key(f"kind.{kind}") if f"kind.{kind}" in TEXT[DEFAULT_LANG] else kind


def _status(status: str) -> Markup:
    """A verdict's name, switching language."""
    return _text(status_key(status))


def _title_attr(key: str) -> Markup:
    """A ``title`` attribute (a tooltip) that switches language."""
    return Markup(' title="{}" data-i18n-title="{}"').format(TEXT[DEFAULT_LANG][key], key)


def _claim_title(claim: Any) -> Markup:
    """A claim's title, switching to its Chinese title (the English one where the record has none)."""
    zh = getattr(claim, "title_zh", "") or claim.title
    return Markup('<span class="claim-title" data-en="{}" data-zh="{}">{}</span>').format(claim.title, zh,
                                                                                        claim.title)


def _condition(claim: Any, condition: str) -> Markup:
    """A qualified verdict's condition (its failing tests' ``unless`` texts), switching to its Chinese
    (:func:`~posenc.report.lang_claims.condition_zh`, read back by the claim's own tests)."""
    zh = condition_zh(condition, (*claim.requires, *claim.tests))
    return Markup('<span class="condition" data-en="{}" data-zh="{}">{}</span>').format(condition, zh, condition)


def _scope(scope: str) -> Markup:
    """A measurement's scope line, switching to its Chinese (:func:`~posenc.report.lang_claims.scope_zh`)."""
    return Markup('<span data-en="{}" data-zh="{}">{}</span>').format(scope, scope_zh(scope), scope)


def _reason(reason: str, claim: Any = None, short: bool = False) -> Markup:
    """A verdict's reason, switching to its Chinese (:func:`~posenc.report.lang_claims.reason_zh`: its fixed parts,
    the tests' own words, the claim's null and choice, an experiment's reason for not running); ``claim``: whose
    verdict it is (its choice's options read the note of the headline option); ``short``: each language cut to its
    first 110 characters."""
    choice = getattr(claim, "choice", None)
    en, zh = reason, reason_zh(reason, choice.options if choice is not None else ())
    if short:
        en, zh = _short(en), _short(zh)
    return Markup('<span class="reason" data-en="{}" data-zh="{}">{}</span>').format(en, zh, en)


#: the tables of a record's own words, by what the page shows (:func:`_words`)
_WORDS = {"says": SAYS_ZH, "null": NULL_ZH, "choice": CHOICE_ZH}


def _words(text: str, kind: str) -> Markup:
    """A record's own words (a test's ``says``, a claim's null, a choice's name or option), switching to their
    Chinese where the table of ``kind`` has it (:data:`_WORDS`), else as written in both languages."""
    return Markup('<span data-en="{}" data-zh="{}">{}</span>').format(text, _WORDS[kind].get(text, text), text)


def _choice_value(text: str) -> _Both:
    """A choice's name, headline option or reason as a placeholder's value, with its Chinese where it has one."""
    return _Both(text, CHOICE_ZH.get(text, text))


def _scope_value(scope: str) -> _Both:
    """A scope line as a placeholder's value (the verdict's "on ..."), with its Chinese."""
    return _Both(scope, scope_zh(scope))


def _alt(claim: Any) -> Markup:
    """The figure's ``alt`` text in both languages (the script swaps it)."""
    zh = getattr(claim, "title_zh", "") or claim.title
    en_alt, zh_alt = (fill(lang, "figure.alt", {"title": title}) for lang, title in (("en", claim.title),
                                                                                      ("zh", zh)))
    return Markup(' alt="{}" data-alt-en="{}" data-alt-zh="{}"').format(en_alt, en_alt, zh_alt)


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
    env.globals.update(colours=_COLOURS, NOT_RUN=NOT_RUN, QUICK_UNDECIDED=QUICK_UNDECIDED, MIN_UNITS=MIN_UNITS,
                       t=_text, key=_key, kind=_kind, verdict_name=_status, status_key=status_key, title_attr=_title_attr,
                       claim_title=_claim_title, condition_text=_condition, scope_text=_scope,
                       scope_value=_scope_value, reason_text=_reason, words=_words, choice_value=_choice_value, alt=_alt, LANGS=LANGS,
                       DEFAULT_LANG=DEFAULT_LANG, texts={lang: TEXT[lang] for lang in LANGS})
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
            note = _condition(r.claim, r.verdict.condition) if r.verdict.condition else \
                _reason(r.verdict.reason, r.claim, short=True) if r.verdict.status in ("not testable", "inconclusive") else \
                _short(r.verdict.reason) if r.verdict.status == "failed" else None  # an error stays as raised
            command = None
            if r.verdict.status in NOT_MEASURED:  # the note is the command that runs it ("run: ..." in English)
                command = f"{r.verdict.command}"
                note = fill(DEFAULT_LANG, "note.run", {"command": command})
            rows.append({"number": i, "claim": r.claim, "status": r.verdict.status, "note": note, "command": command,
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
    for kind, run in references.columns():
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
    for kind, run in references.columns():
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
            "label": label, "differs": found["status"] != result.verdict.status,
            "condition": found.get("condition") if found["status"] == "qualified" else None}


def _section(i: int, result: ClaimResult, references: References | None = None) -> dict[str, Any]:
    """What one claim's section shows, as plain values."""
    v, m = result.verdict, result.measurement
    provenance = f" ({_versions_text(result.provenance['versions'])}, {result.provenance['computed_at']})" \
        if result.provenance else ""
    how = ("how.stored", {"provenance": provenance}) if result.cached else \
        ("how.computed", {"seconds": f"{result.wall_s:.1f}", "provenance": provenance})
    rows = [{"quantity": row.quantity, "measured": format_value(row.measured),
             "quick": _quick_badge(result, row.measured), "anchor": format_value(row.anchor),
             "anchor_label": row.anchor_label} for row in (m.rows if m is not None else ())]
    choice = list(result.variants.items()) if result.claim.choice is not None and result.variants else None
    return {"number": i, "claim": result.claim, "verdict": v, "measurement": m, "rows": rows, "choice": choice,
            "sides": {kind: [_side(side) for side in result.sides() if side.kind == kind]
                      for kind in ("requires", "tests")},
            "scope": result.scope if v.status not in NOT_MEASURED and v.status != "failed" else "",
            "command": v.command if v.status in NOT_MEASURED and v.command else None,
            "references": _reference_lines(result, references),
            "mode": "mode.quick" if result.quick else "mode.full", "how": how}


def _side(side: Side) -> dict[str, Any]:
    """A test's line: the test, its measured number and its null's, formatted (``None``: not measured), and which of
    the page's texts shows them (``side.null``: beside the null's number; ``side.nonull``: beside the reason there
    is none; ``side.measured``: the test names neither)."""
    measured = format_value(side.measured) if side.measured is not None else None
    if side.test.null:
        text = ("side.null", {"measured": measured or "—", "null": format_value(side.null)
                              if side.null is not None else "—"})
    elif side.test.no_null:
        text = ("side.nonull", {"measured": measured or "—",
                                "reason": _Both(side.test.no_null, NO_NULL_ZH.get(side.test.no_null, side.test.no_null))})
    else:
        text = ("side.measured", {"measured": measured or "—"})
    return {"test": side.test, "text": text if measured is not None or side.null is not None else None}


def _where_parts(report: ReportResult) -> list[tuple[str, dict[str, Any]]]:
    """Where the experiments computed, as the page's text keys and their values: ``device cpu, float32``, or the
    lab and extend experiments' device and dtype beside the CPU's for the rest; then the Ray cluster, if any."""
    where = getattr(report, "setup", None) or {"device": "cpu", "dtype": "float32"}
    device: str = where["device"] + (f" ({where['gpu']})" if where.get("gpu") else "")
    if where.get("executor") == "ray" and where["device"] == "auto":
        device = _key("where.raydevice")
    parts = [("where.cpu", {})] if where["device"] == "cpu" and where["dtype"] == "float32" else \
        [("where.split", {"device": device, "dtype": where["dtype"]})]
    if where.get("executor") == "ray":
        parts.append(("where.ray", {"address": where["address"]}))
    return parts


def _where(report: ReportResult) -> str:
    """Where the experiments computed, for the header, in English (plain text)."""
    return "".join(fill(DEFAULT_LANG, key, {name: TEXT[DEFAULT_LANG][value] if isinstance(value, _Key) else value
                                            for name, value in params.items()})
                   for key, params in _where_parts(report))


def render_html(report: ReportResult, explorer: str | None = None) -> str:
    """The whole page as a string (UTF-8, no external resources). ``explorer``: the explorer page's address
    relative to this one (``"explore.html"``), linked from the header with the page's language; ``None``: no link."""
    references = getattr(report, "references", None)
    return _environment().get_template(TEMPLATE).render(
        report=report, versions=_versions_text(package_versions()), explorer=explorer,
        created=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        stored=sum(r.cached for r in report.results), where=_where_parts(report),
        counts=[(s, report.counts[s]) for s in STATUSES if report.counts[s]],
        reference_runs=_reference_runs(references, report.results), groups=_groups(report.results, references),
        timings=_timings(report.results),
        sections=[_section(i, r, references) for i, r in enumerate(report.results, 1)])
