"""The report as one self-contained HTML page: inline CSS, figures as base64 PNG, no script, no network.

Layout: a header (mode, versions, counts: the claims not run and not decided in quick mode counted apart from the
inconclusive ones), a summary table (claim, source, verdict, and the verdicts of the last committed full and
``--extended`` runs, :mod:`posenc.report.reference`, marked where they differ) in two groups, the seed documents'
claims and the literature's, the time each part took, then one section per claim: the claim (and the document's own
sentence), its source, the experiment and its setup, the tests with their thresholds, a small table of measured
numbers (each with its 95% interval; in quick mode the sampled ones marked QUICK) beside their baseline or published
anchor, the verdict with its reason (and, for a claim not run or not decided in quick mode, the command that runs
it), the reference runs' verdicts, the verdict under each option of a methodological choice, and the figure.
"""

from __future__ import annotations

import html
import math
import time
from typing import TYPE_CHECKING, Any

from posenc.report.experiments.base import find_experiment
from posenc.report.verdict import NOT_MEASURED, NOT_RUN, QUICK_UNDECIDED, STATUSES
from posenc.stats import MIN_UNITS, Estimate
from posenc.store import package_versions

if TYPE_CHECKING:
    from posenc.report.reference import References
    from posenc.report.result import ClaimResult, ReportResult

__all__ = ["render_html", "format_value"]

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

_CSS = """
:root { --ink: #1f2328; --muted: #59636e; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.55 -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
       color: var(--ink); background: var(--bg); }
main { max-width: 980px; margin: 0 auto; padding: 28px 22px 60px; }
h1 { font-size: 30px; margin: 0 0 4px; }
h2 { font-size: 21px; margin: 0; }
.lede { color: var(--muted); margin: 4px 0 18px; }
.meta { font-size: 13px; color: var(--muted); }
.banner { border-left: 4px solid #bf8700; background: #fff8c5; padding: 10px 14px; margin: 14px 0; font-size: 14px; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 14px 0 22px; }
.pill { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 13px; font-weight: 600;
        white-space: nowrap; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num { font-variant-numeric: tabular-nums; font-family: ui-monospace, SFMono-Regular, Menlo, monospace;
         font-size: 13px; }
.summary td:first-child { color: var(--muted); width: 2.5em; }
.summary a { color: inherit; text-decoration: none; border-bottom: 1px dotted var(--muted); }
section.claim { border: 1px solid var(--line); border-radius: 10px; padding: 18px 20px; margin: 26px 0; }
section.claim header { display: flex; justify-content: space-between; gap: 12px; align-items: baseline;
                       flex-wrap: wrap; margin-bottom: 10px; }
blockquote { margin: 8px 0 14px; padding: 8px 14px; border-left: 4px solid var(--line); background: var(--panel);
             font-size: 17px; }
dl { display: grid; grid-template-columns: 8.5em 1fr; gap: 4px 12px; margin: 0 0 14px; font-size: 14px; }
dt { color: var(--muted); }
dd { margin: 0; }
.verdict { border-radius: 8px; padding: 10px 14px; margin: 14px 0; font-size: 15px; }
.verdict strong { text-transform: uppercase; letter-spacing: 0.03em; font-size: 13px; }
figure { margin: 14px 0 0; text-align: center; }
figure img { max-width: 100%; height: auto; border: 1px solid var(--line); border-radius: 6px; }
figcaption { font-size: 13px; color: var(--muted); }
pre.error { white-space: pre-wrap; background: #fff0f6; border: 1px solid #f3d9fa; padding: 10px; font-size: 13px; }
.badge { font-size: 11px; font-weight: 700; color: #0550ae; background: #ddf4ff; border-radius: 4px;
         padding: 1px 6px; margin-left: 6px; vertical-align: middle; }
footer { margin-top: 40px; font-size: 13px; color: var(--muted); }
tr.group th { background: #eef1f4; font-size: 13px; }
p.quote { margin: 0 0 6px; font-size: 16px; color: var(--muted); }
ul.tests { margin: 0 0 6px; padding-left: 18px; }
ul.tests .role { font-size: 11px; font-weight: 700; text-transform: uppercase; color: var(--muted); }
.choice { border: 1px dashed var(--line); border-radius: 8px; padding: 8px 12px; margin: 10px 0; font-size: 14px; }
.choice tr.headline td { font-weight: 600; }
details.timings { margin: 12px 0; font-size: 14px; }
code, .verdict, td, dd { overflow-wrap: anywhere; }
.pill.small { font-size: 11px; padding: 1px 7px; font-weight: 600; }
.differs { font-size: 11px; font-weight: 700; color: #a4161a; margin-left: 4px; }
.references { font-size: 14px; margin: 10px 0; }
.references li { margin: 2px 0; }
"""


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


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _pill(status: str, label: str | None = None, small: bool = False) -> str:
    bg, fg = _COLOURS[status]
    border = ";border:1px dashed #8c959f" if status == NOT_RUN else ""
    return (f'<span class="pill{" small" if small else ""}" style="background:{bg};color:{fg}{border}">'
            f"{_e(label or status)}</span>")


def _short(text: str, limit: int = 110) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " ..."


_GROUPS = {"seed": "Claims of the four documents (seeds 000-003)",
           "literature": "Claims from the literature (papers the documents point to or that test them)"}


def _reference_cell(result: ClaimResult, references: References | None, kind: str) -> str:
    """A summary cell: the claim's verdict in the committed ``kind`` run, marked where it differs from this run's."""
    run = references.runs.get(kind) if references is not None else None
    if run is None:
        return '<td class="reference">—</td>'
    found = run.verdicts.get(result.claim.id)
    if found is None:
        return '<td class="reference"><small>not in that run</small></td>'
    differs = found["status"] != result.verdict.status
    mark = '<span class="differs" title="differs from this run\'s verdict">&ne;</span>' if differs else ""
    return (f'<td class="reference" data-kind="{kind}" data-verdict="{_e(found["status"])}" '
            f'data-differs="{"yes" if differs else "no"}">{_pill(found["status"], small=True)}{mark}</td>')


def _summary(results: list[ClaimResult], references: References | None = None) -> str:
    rows = []
    for origin, heading in _GROUPS.items():
        group = [(i, r) for i, r in enumerate(results, 1) if r.claim.origin == origin]
        if not group:
            continue
        rows.append(f'<tr class="group"><th colspan="6">{_e(heading)}</th></tr>')
        for i, r in group:
            label = r.verdict.status
            note = r.verdict.condition or (_short(r.verdict.reason) if r.verdict.status in
                                           ("not testable", "failed", "inconclusive") else None)
            if r.verdict.status in NOT_MEASURED:
                note = f"run: {r.verdict.command}"
            condition = f"<br><small>{_e(note)}</small>" if note else ""
            rows.append(f'<tr data-origin="{origin}"><td>{i}</td><td><a href="#{_e(r.claim.id)}">'
                        f'{_e(r.claim.title)}</a></td><td>{_e(r.claim.source)}</td>'
                        f'<td>{_pill(r.verdict.status, label)}{condition}</td>'
                        f'{_reference_cell(r, references, "full")}{_reference_cell(r, references, "extended")}</tr>')
    return ('<table class="summary"><thead><tr><th>#</th><th>Claim</th><th>Source</th><th>Verdict (this run)</th>'
            '<th>Last full run</th><th>Last extended run</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _references_note(references: References | None, results: list[ClaimResult]) -> str:
    """Which committed runs the summary's last two columns come from, how many verdicts differ, or why one is
    missing."""
    if references is None:
        return ""
    items = []
    for kind in ("full", "extended"):
        run = references.runs.get(kind)
        if run is None:
            items.append(f"<li>{_e(references.notes.get(kind, f'no committed {kind} run'))}</li>")
            continue
        differs = sum(run.verdicts.get(r.claim.id, {}).get("status", r.verdict.status) != r.verdict.status
                      for r in results)
        items.append(f"<li>Last {_e(kind)} column: the {_e(run.describe())}, <code>{_e(run.path.name)}</code>; "
                     f"{differs} verdict{'s' if differs != 1 else ''} differ from this run's (&ne;).</li>")
    return f'<div class="references"><b>Reference runs</b><ul>{"".join(items)}</ul></div>'


def _timings(results: list[ClaimResult]) -> str:
    """How long each experiment took this run (shared experiments count once; stored ones say so)."""
    seen: dict[str, tuple[float, bool]] = {}
    for r in results:
        if r.measurement is None:
            continue
        wall, cached = seen.get(r.claim.experiment, (0.0, True))
        seen[r.claim.experiment] = (max(wall, r.wall_s), cached and r.cached)
    if not seen:
        return ""
    body = "".join(f'<tr><td><code>{_e(name)}</code></td><td class="num">{wall:.1f} s</td>'
                   f'<td>{"read from the store (time of the run that computed it)" if cached else "computed now"}'
                   f"</td></tr>" for name, (wall, cached) in seen.items())
    return ('<details class="timings"><summary>Time per experiment</summary><table><thead><tr><th>Experiment</th>'
            f'<th>Time</th><th></th></tr></thead><tbody>{body}</tbody></table></details>')


def _tests_list(result: ClaimResult) -> str:
    c = result.claim
    items = [f'<li><span class="role">{"condition" if t.role == "condition" else "test"}</span> {_e(t.says)}: '
             f"<code>{_e(t.statistic)} {_e(t.op)} {t.threshold:.7g}</code> <small>(threshold from: {_e(t.basis)})"
             f"</small></li>" for t in c.tests]
    items += [f'<li><span class="role">requires</span> {_e(t.says)}: <code>{_e(t.statistic)} {_e(t.op)} '
              f"{t.threshold:.7g}</code> <small>(otherwise {_e(t.otherwise)}; from: {_e(t.basis)})</small></li>"
              for t in c.requires]
    return f'<ul class="tests">{"".join(items)}</ul>'


def _choice_panel(result: ClaimResult) -> str:
    c = result.claim
    if c.choice is None or not result.variants:
        return ""
    cells = "".join(f'<tr{" class=headline" if o == c.choice.headline else ""}><td>{_e(o)}'
                    f'{" (headline)" if o == c.choice.headline else ""}</td><td>{_pill(v.status, v.label)}</td>'
                    f"</tr>" for o, v in result.variants.items())
    return (f'<div class="choice"><p><b>Does the verdict depend on the {_e(c.choice.name)}?</b> The headline rests '
            f"on {_e(c.choice.headline)}: {_e(c.choice.why)}.</p><table><thead><tr><th>{_e(c.choice.name)}</th>"
            f"<th>Verdict</th></tr></thead><tbody>{cells}</tbody></table></div>")


def _quick_badge(result: ClaimResult, value: Any) -> str:
    """QUICK beside a number whose precision depends on the mode: a sampled estimate (not exact arithmetic) of an
    experiment whose quick mode samples less than its full mode."""
    if not (result.quick and isinstance(value, Estimate) and value.sampled
            and not getattr(find_experiment(result.claim.experiment), "quick_is_full", False)):
        return ""
    return '<span class="badge" title="measured in quick mode: fewer samples than the full report">QUICK</span>'


def _numbers_table(result: ClaimResult) -> str:
    m = result.measurement
    if m is None or not m.rows:
        return ""
    body = "".join(f'<tr><td>{_e(row.quantity)}</td><td class="num">{_e(format_value(row.measured))}'
                   f'{_quick_badge(result, row.measured)}</td>'
                   f'<td class="num">{_e(format_value(row.anchor))}</td><td>{_e(row.anchor_label)}</td></tr>'
                   for row in m.rows)
    return ('<table class="numbers"><thead><tr><th>Quantity</th><th>Measured</th><th>Baseline / anchor</th>'
            f'<th>Anchor is</th></tr></thead><tbody>{body}</tbody></table>')


def _versions_text(versions: dict[str, Any]) -> str:
    """``posenc 0.1.0, torch 2.13.0+cpu, transformers 5.24.0, Python 3.11.7`` (what a row or a run was computed by)."""
    names = {"posenc": "posenc", "torch": "torch", "transformers": "transformers", "python": "Python"}
    return ", ".join(f"{label} {versions[key]}" for key, label in names.items() if versions.get(key))


def _reference_lines(result: ClaimResult, references: References | None) -> str:
    """The claim's verdict in the last committed full and extended runs, each marked where it differs."""
    if references is None:
        return ""
    items = []
    for kind in ("full", "extended"):
        run = references.runs.get(kind)
        if run is None:
            items.append(f"last {_e(kind)} run: none committed")
            continue
        found = run.verdicts.get(result.claim.id)
        if found is None:
            items.append(f"last {_e(kind)} run ({_e(run.created_at.split('T')[0])}): this claim was not in it")
            continue
        label = f"qualified: {found['condition']}" if found["status"] == "qualified" and found.get("condition") \
            else found["status"]
        differs = (' <span class="differs">differs from this run</span>' if found["status"] != result.verdict.status
                   else " (the same)")
        items.append(f"last {_e(kind)} run ({_e(run.created_at.split('T')[0])}): {_pill(found['status'], label, True)}"
                     f"{differs}")
    return f'<p class="meta reference-verdicts">{" · ".join(items)}</p>'


def _section(i: int, result: ClaimResult, references: References | None = None) -> str:
    c, v, m = result.claim, result.verdict, result.measurement
    bg, fg = _COLOURS[v.status]
    how = "read from the results store" if result.cached else f"computed in {result.wall_s:.1f} s"
    if result.provenance:
        how += f" ({_versions_text(result.provenance['versions'])}, {result.provenance['computed_at']})"
    mode = "quick mode" if result.quick else "full mode"
    setup = f"<dd>{_e(m.setup)}</dd>" if m is not None and m.setup else "<dd>—</dd>"
    quote = f'<p class="quote" lang="zh">{_e(c.quote)}</p>' if c.quote else ""
    origin = "one of the four documents" if c.origin == "seed" else "the literature"
    parts = [f'<section class="claim" id="{_e(c.id)}" data-verdict="{_e(v.status)}" data-origin="{_e(c.origin)}">',
             f'<header><h2>{i}. {_e(c.title)}</h2>{_pill(v.status)}</header>',
             f"<blockquote>{quote}{_e(c.claim)}</blockquote>",
             f"<dl><dt>Source</dt><dd>{_e(c.source)} ({origin})</dd><dt>Experiment</dt><dd><code>"
             f"{_e(c.experiment)}</code></dd><dt>Setup</dt>{setup}<dt>Criterion</dt><dd>{_tests_list(result)}"
             f"<small>{_e(c.criterion_text)}</small></dd></dl>"]
    parts.append(_numbers_table(result))
    condition = f" — {_e(v.condition)}" if v.condition else ""
    command = (f"<br>Run it: <code>{_e(v.command)}</code>" if v.status in NOT_MEASURED and v.command else "")
    if v.status == "failed":
        parts.append(f'<div class="verdict" style="background:{bg};color:{fg}"><strong>failed</strong>: the '
                     f'experiment did not produce numbers, so no verdict.</div>'
                     f'<pre class="error">{_e(v.reason)}</pre>')
    else:
        parts.append(f'<div class="verdict" style="background:{bg};color:{fg}"><strong>{_e(v.status)}</strong>'
                     f'{condition}<br>{_e(v.reason)}{command}</div>')
        parts.append(_choice_panel(result))
    parts.append(_reference_lines(result, references))
    if m is not None and m.figure_png:
        parts.append(f'<figure><img alt="figure for {_e(c.title)}" src="data:image/png;base64,{m.figure_png}">'
                     f"<figcaption>{_e(c.title)} ({mode})</figcaption></figure>")
    if m is not None:
        parts.append(f'<p class="meta">{mode}; {how}.</p>')
    parts.append("</section>")
    return "".join(parts)


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
    counts = report.counts
    mode = ("quick mode: small sweeps, short contexts and few seeds; numbers marked QUICK are indicative, run "
            "<code>posenc report</code> without <code>--quick</code> for the full experiments"
            if report.quick else "full mode")
    banner = f'<div class="banner">{_e(report.store_note)}</div>' if report.store_note else ""
    count_pills = "".join(_pill(s, f"{counts[s]} {s}") for s in STATUSES if counts[s])
    references = getattr(report, "references", None)
    sections = "".join(_section(i, r, references) for i, r in enumerate(report.results, 1))
    stored = sum(r.cached for r in report.results)
    created = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>posenc evidence report</title>
<link rel="icon" href="data:,">
<style>{_CSS}</style>
</head>
<body>
<main>
<h1>Positional encodings: what holds up?</h1>
<p class="lede">Claims about positional encodings, from four tutorials (seeds 000-003) and from the papers, each
tested by an experiment run with <code>posenc</code>. Every verdict below is computed from the measured numbers by the
claim's criterion; the baseline or published figure stands beside each number.</p>
<p class="meta">{_e(_versions_text(package_versions()))} · {mode} · {len(report.results)} claims · generated {created} in
{report.wall_s:.0f} s ({len(report.computed)} computed, {stored} read from the results store) · {_e(_where(report))}</p>
{banner}
<div class="counts">{count_pills}</div>
<p class="meta">Every sampled number carries its 95% interval in brackets (bootstrap over windows, words,
sequences or query positions; Wilson for accuracies over trials; Student-t over training seeds, on a log scale for
step counts and ratios), inside what the number can take (accuracies and shares in [0, 1], counts and ratios above
0); exact numbers stand alone. An interval rests on at least {MIN_UNITS} independent units: a number from fewer is
shown without one and decides nothing. Verdicts, from the intervals and thresholds fixed before the run:
<b>supported</b> (every interval clears its bar), <b>qualified</b> (true only under the named condition),
<b>refuted</b> (the intervals lie on the other side), <b>inconclusive</b> (an interval straddles a bar, a number has
too few units for an interval, or the model never learned the task in distribution; the reason says how much more
data would settle it), <b>not testable</b> (the test cannot tell the cases apart here), <b>{QUICK_UNDECIDED}</b>
(quick mode cannot decide it by construction; the command that decides it is shown), <b>{NOT_RUN}</b> (not run in
this report: past its time budget; the command and its time are shown), <b>failed</b> (the experiment raised; the
error is shown). The last two columns of the table are the verdicts of the last committed full and extended runs;
&ne; marks where one differs from this run's.</p>
{_references_note(references, report.results)}
{_summary(report.results, references)}
{_timings(report.results)}
{sections}
<footer>Written by <code>posenc report</code>. Every number is also in <code>report.json</code> next to this page.
</footer>
</main>
</body>
</html>
"""
