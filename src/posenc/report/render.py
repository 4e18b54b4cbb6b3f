"""The report as one self-contained HTML page: inline CSS, figures as base64 PNG, no script, no network.

Layout: a header (mode, versions, counts), a summary table (claim, source, verdict), then one section per claim:
the claim, its source, the experiment and its setup, the pass criterion, a small table of measured numbers beside
their baseline or published anchor, the verdict with its reason, and the figure.
"""

from __future__ import annotations

import html
import math
import time
from typing import TYPE_CHECKING, Any

import posenc
from posenc.report.verdict import STATUSES

if TYPE_CHECKING:
    from posenc.report.run import ClaimResult, ReportResult

__all__ = ["render_html", "format_value"]

_COLOURS = {  # background, text
    "supported": ("#d8f3dc", "#1b5e20"),
    "qualified": ("#fff3cd", "#7a5200"),
    "refuted": ("#fde2e1", "#a4161a"),
    "not testable": ("#e9ecef", "#495057"),
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
"""


def format_value(value: Any) -> str:
    """A number or value as a short table cell: 4 significant digits, scientific for tiny or huge floats."""
    if value is None:
        return "—"
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


def _pill(status: str, label: str | None = None) -> str:
    bg, fg = _COLOURS[status]
    return f'<span class="pill" style="background:{bg};color:{fg}">{_e(label or status)}</span>'


def _short(text: str, limit: int = 110) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " ..."


def _summary(results: list[ClaimResult]) -> str:
    rows = []
    for i, r in enumerate(results, 1):
        label = r.verdict.status
        note = r.verdict.condition or (_short(r.verdict.reason) if r.verdict.status in ("not testable", "failed")
                                       else None)
        condition = f"<br><small>{_e(note)}</small>" if note else ""
        rows.append(f'<tr><td>{i}</td><td><a href="#{_e(r.claim.id)}">{_e(r.claim.title)}</a></td>'
                    f'<td>{_e(r.claim.source)}</td><td>{_pill(r.verdict.status, label)}{condition}</td></tr>')
    return ('<table class="summary"><thead><tr><th>#</th><th>Claim</th><th>Source</th><th>Verdict</th></tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _numbers_table(result: ClaimResult) -> str:
    m = result.measurement
    if m is None or not m.rows:
        return ""
    quick = '<span class="badge" title="measured in quick mode: smaller sizes">QUICK</span>' if result.quick else ""
    body = "".join(f'<tr><td>{_e(row.quantity)}</td><td class="num">{_e(format_value(row.measured))}</td>'
                   f'<td class="num">{_e(format_value(row.anchor))}</td><td>{_e(row.anchor_label)}</td></tr>'
                   for row in m.rows)
    return (f'<table class="numbers"><thead><tr><th>Quantity</th><th>Measured{quick}</th><th>Baseline / anchor</th>'
            f'<th>Anchor is</th></tr></thead><tbody>{body}</tbody></table>')


def _section(i: int, result: ClaimResult) -> str:
    c, v, m = result.claim, result.verdict, result.measurement
    bg, fg = _COLOURS[v.status]
    how = "read from the results store" if result.cached else f"computed in {result.wall_s:.1f} s"
    mode = "quick mode" if result.quick else "full mode"
    setup = f"<dd>{_e(m.setup)}</dd>" if m is not None and m.setup else "<dd>—</dd>"
    parts = [f'<section class="claim" id="{_e(c.id)}" data-verdict="{_e(v.status)}">',
             f'<header><h2>{i}. {_e(c.title)}</h2>{_pill(v.status)}</header>',
             f"<blockquote>{_e(c.claim)}</blockquote>",
             f"<dl><dt>Source</dt><dd>{_e(c.source)}</dd><dt>Experiment</dt><dd><code>{_e(c.experiment)}</code>"
             f"</dd><dt>Setup</dt>{setup}<dt>Criterion</dt><dd>{_e(c.criterion_text)}</dd></dl>"]
    parts.append(_numbers_table(result))
    condition = f" — {_e(v.condition)}" if v.condition else ""
    if v.status == "failed":
        parts.append(f'<div class="verdict" style="background:{bg};color:{fg}"><strong>failed</strong>: the '
                     f'experiment did not produce numbers, so no verdict.</div>'
                     f'<pre class="error">{_e(v.reason)}</pre>')
    else:
        parts.append(f'<div class="verdict" style="background:{bg};color:{fg}"><strong>{_e(v.status)}</strong>'
                     f'{condition}<br>{_e(v.reason)}</div>')
    if m is not None and m.figure_png:
        parts.append(f'<figure><img alt="figure for {_e(c.title)}" src="data:image/png;base64,{m.figure_png}">'
                     f"<figcaption>{_e(c.title)} ({mode})</figcaption></figure>")
    if m is not None:
        parts.append(f'<p class="meta">{mode}; {how}.</p>')
    parts.append("</section>")
    return "".join(parts)


def render_html(report: ReportResult) -> str:
    """The whole page as a string (UTF-8, no external resources)."""
    counts = report.counts
    mode = ("quick mode: small sweeps, short contexts and few seeds; numbers marked QUICK are indicative, run "
            "<code>posenc report</code> without <code>--quick</code> for the full experiments"
            if report.quick else "full mode")
    banner = f'<div class="banner">{_e(report.store_note)}</div>' if report.store_note else ""
    count_pills = "".join(_pill(s, f"{counts[s]} {s}") for s in STATUSES if counts[s])
    sections = "".join(_section(i, r) for i, r in enumerate(report.results, 1))
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
<p class="meta">posenc {_e(posenc.__version__)} · {mode} · {len(report.results)} claims · generated {created} in
{report.wall_s:.0f} s ({len(report.computed)} computed, {stored} read from the results store)</p>
{banner}
<div class="counts">{count_pills}</div>
<p class="meta">Verdicts: <b>supported</b> (the numbers show it), <b>qualified</b> (true only under the named
condition), <b>refuted</b> (the numbers show otherwise), <b>not testable</b> (here, with the reason), <b>failed</b>
(the experiment raised; the error is shown).</p>
{_summary(report.results)}
{sections}
<footer>Written by <code>posenc report</code>. Every number is also in <code>report.json</code> next to this page.
</footer>
</main>
</body>
</html>
"""
