"""The page: self-contained (no network URL anywhere a browser would fetch, its one script inline), a section with a
verdict per claim, failed claims shown with their error, values formatted for reading."""

from __future__ import annotations

import base64
import html
import re
from html.parser import HTMLParser

import pytest

from posenc.report.render import format_value


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.sections: list[dict[str, str]] = []
        self.images: list[str] = []
        self.scripts: list[dict[str, str]] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            self.scripts.append(attrs)
        for key in ("src", "href", "action", "poster", "data"):
            if key in attrs:
                self.urls.append(attrs[key])
        if tag == "img":
            self.images.append(attrs.get("src", ""))
        if tag == "section":
            self.sections.append(attrs)


def read(path):
    return path.read_text(encoding="utf-8")


def _parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def _plain(fragment: str) -> str:
    """What a reader sees of a piece of the page: tags dropped, entities decoded, white space collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", "", fragment)).split())


def test_page_is_self_contained(small_report):
    page = read(small_report.index_html)
    parsed = _parse(page)
    # the language switch's links stay on the page (?lang=...); the explorer's is the file written beside it
    external = [u for u in parsed.urls if not (u.startswith("#") or u.startswith("data:") or u.startswith("?lang="))]
    assert external == ["explore.html?lang=en"] and (small_report.out_dir / "explore.html").is_file()
    assert not re.search(r"url\(\s*['\"]?https?:", page)  # no CSS fetch
    assert "@import" not in page
    # two inline scripts, the text tables (JSON) and the switch; nothing loaded, nothing fetched
    assert parsed.scripts == [{"type": "application/json", "id": "report-text"}, {}]
    assert not re.search(r"fetch\(|XMLHttpRequest|import\(|https?://", page.split('id="report-text"')[1])


def test_every_figure_is_an_embedded_png(small_report):
    parsed = _parse(read(small_report.index_html))
    assert len(parsed.images) == sum(r.measurement is not None and r.measurement.figure_png is not None
                                     for r in small_report.results) >= 4
    for src in parsed.images:
        prefix = "data:image/png;base64,"
        assert src.startswith(prefix)
        assert base64.b64decode(src[len(prefix):])[:8] == b"\x89PNG\r\n\x1a\n"


def test_one_section_per_claim_with_its_verdict(small_report):
    page = read(small_report.index_html)
    parsed = _parse(page)
    assert [s["id"] for s in parsed.sections] == [f"claim-{r.claim.id}" for r in small_report.results]
    assert [s["data-claim"] for s in parsed.sections] == [r.claim.id for r in small_report.results]
    for r in small_report.results:  # the older anchor #<id> lands on the section too
        section = page[page.index(f'id="claim-{r.claim.id}"'):]
        assert f'<span class="anchor" id="{r.claim.id}"></span>' in section[:section.index("</section>")]
    assert [s["data-verdict"] for s in parsed.sections] == [r.verdict.status for r in small_report.results]


def test_failed_claim_shows_its_error_and_the_quick_mark(small_report):
    page = read(small_report.index_html)
    section = page[page.index('id="broken-claim"'):]
    section = section[:section.index("</section>")]
    assert "failed" in section and "RuntimeError: the probe model file is missing" in section
    assert "QUICK" in page and "quick mode" in page


def test_format_value():
    assert format_value(None) == "—"
    assert format_value(True) == "yes"
    assert format_value(1234567) == "1,234,567"
    assert format_value(0.0) == "0"
    assert format_value(2.83e-08) == "2.83e-08"
    assert format_value(82.7150) == "82.72"
    assert format_value(float("nan")) == "nan"
    assert format_value([1, 0.5]) == "1, 0.5"
    assert format_value("ran") == "ran"


# ---- statuses, the QUICK mark and the reference runs on a page built by hand -----------------------------------
def _page(tmp_path, references=None):
    """A quick page with one claim per kind of outcome: decided, inconclusive, not decided in quick mode, not run."""
    from posenc.report.ledger import get_claim
    from posenc.report.measurement import Measurement, Row
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.verdict import inconclusive, not_decided_in_quick, not_run, supported
    from posenc.stats import SHARE, exact, over_seeds, wilson

    sampled = Measurement({}, rows=[Row("an accuracy over 3 seeds", over_seeds([0.9, 0.95, 1.0], bounds=SHARE)),
                                    Row("a table's largest value", exact(1.0)),
                                    Row("passkey trials", wilson(18, 20))])
    results = [
        ClaimResult(get_claim("sin-bounded"), supported("holds"), Measurement({}, rows=[Row("max", exact(1.0))]),
                    True),
        ClaimResult(get_claim("rope-extrapolates"), inconclusive("straddles"), sampled, True),
        ClaimResult(get_claim("sinusoid-weak-local"), not_decided_in_quick("2 seeds", "posenc report --claim "
                                                                                      "sinusoid-weak-local"),
                    Measurement({}), True),
        ClaimResult(get_claim("cope-counts"), not_run("trains for 10 min", "posenc report --claim cope-counts"),
                    Measurement({}), True),
        ClaimResult(get_claim("near-orthogonal"), supported("holds"),  # mode-free: quick computes what full does
                    Measurement({}, rows=[Row("mean angle", over_seeds([88.0, 89.0, 90.0]))]), True),
    ]
    report = ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", results, True, None,
                          references=references)
    return render_html(report), results


def _section(page: str, claim_id: str) -> str:
    part = page[page.index(f'id="{claim_id}"'):]
    return part[:part.index("</section>")]


def test_not_run_and_not_decided_are_counted_apart_from_inconclusive(tmp_path):
    page, _ = _page(tmp_path)
    counts = page[page.index('<div class="counts">'):]
    counts = counts[:counts.index("</div>")]
    assert _plain(counts.replace("</span><span", "</span> <span")) == ("2 supported 1 inconclusive "
                                                                       "1 not decided in quick mode 1 not run")
    assert "Run it: posenc report --claim cope-counts" in _plain(_section(page, "cope-counts"))
    assert "Run it: posenc report --claim sinusoid-weak-local" in _plain(_section(page, "sinusoid-weak-local"))
    assert 'data-verdict="not run"' in page and "run: posenc report --claim cope-counts" in page  # summary row


def test_quick_marks_only_sampled_numbers_of_experiments_that_sample_less_in_quick_mode(tmp_path):
    page, _ = _page(tmp_path)
    sampled = _section(page, "rope-extrapolates")
    rows = sampled[sampled.index("<tbody>"):].split("<tr>")[1:]
    marked = {html.unescape(row.split("</td>")[0].removeprefix("<td>")): "QUICK" in row for row in rows}
    assert marked == {"an accuracy over 3 seeds": True, "a table's largest value": False,
                      "passkey trials": True}
    assert "QUICK" not in _section(page, "sin-bounded")  # exact arithmetic
    assert "QUICK" not in _section(page, "near-orthogonal")  # the same tables in both modes


def test_the_page_shows_the_full_and_extended_verdicts_and_marks_differences(tmp_path):
    from test_reference import write_report

    from posenc.report.reference import load_references

    write_report(tmp_path, "full.json", {"sin-bounded": "supported", "rope-extrapolates": "refuted",
                                         "sinusoid-weak-local": "refuted", "cope-counts": "not run"})
    write_report(tmp_path, "extended.json", {"sin-bounded": "supported", "cope-counts": "qualified"}, extended=True)
    page, _ = _page(tmp_path, load_references(tmp_path))
    summary = page[page.index('<table class="summary">'):]
    summary = summary[:summary.index("</table>")]
    assert "Last full run" in summary and "Last extended run" in summary
    row = summary[summary.index('href="#claim-rope-extrapolates"'):]
    row = row[:row.index("</tr>")]
    assert 'data-kind="full" data-verdict="refuted" data-differs="yes"' in row and "&ne;" in row
    same = summary[summary.index('href="#claim-sin-bounded"'):]
    same = same[:same.index("</tr>")]
    assert 'data-kind="full" data-verdict="supported" data-differs="no"' in same and "&ne;" not in same
    assert "not in that run" in row  # rope-extrapolates is not in the extended file
    assert "full run of 2026-11-26 (commit 0123456789ab" in page
    section = _plain(_section(page, "cope-counts"))
    assert "last extended run (2026-11-26)" in section and "qualified: at 128 tokens" in section
    assert "differs from this run" in section


def test_a_follow_up_shows_in_the_sections_of_the_claims_it_ran_only(tmp_path):
    from test_reference import write_report

    from posenc.report.reference import load_references

    write_report(tmp_path, "full.json", {"sin-bounded": "supported", "rope-extrapolates": "refuted"})
    write_report(tmp_path, "more-seeds.json", {"rope-extrapolates": "refuted", "sin-bounded": "not run"}, seeds=10)
    page, _ = _page(tmp_path, load_references(tmp_path))
    section = _plain(_section(page, "rope-extrapolates"))  # inconclusive on this page
    assert "last more-seeds run (2026-11-26):" in section
    assert section.count("differs from this run") == 2  # the full run's line and the follow-up's
    assert "more-seeds" not in _section(page, "sin-bounded")
    summary = page[page.index('<table class="summary">'):]
    assert "more-seeds" not in summary[:summary.index("</table>")]  # no column of its own
    header = " ".join(page[page.index('<div class="references">'):].split("</div>")[0].split())
    assert "In the sections of the 1 claim it ran: the more-seeds run of 2026-11-26" in header
    assert "<code>more-seeds.json</code>; 1 verdict differs from this run's." in header


def test_without_committed_runs_the_page_says_so(tmp_path):
    from posenc.report.reference import load_references

    page, _ = _page(tmp_path, load_references(tmp_path))
    assert "no committed full run" in page and "no committed extended run" in page
    assert "last full run: none committed" in _plain(_section(page, "sin-bounded"))


def test_the_small_report_reads_the_source_trees_reference_folder(small_report):
    page = read(small_report.index_html)
    refs = small_report.references
    from posenc.report.reference import REFERENCE_DIR

    assert refs is not None and refs.folder == REFERENCE_DIR  # references=None: the source tree's docs/reports
    for kind in ("full", "extended"):
        if kind in refs.runs:
            assert refs.runs[kind].describe() in html.unescape(page)
        else:
            assert "no committed" in refs.notes[kind] and "no committed" in page


# ---- the template: package data, escaped values ------------------------------------------------------------------
def test_the_template_is_package_data_the_wheel_carries():
    """The page's template files are read through importlib.resources (as an installed wheel serves them), and
    pyproject.toml's package-data globs for posenc.report name every one of them, so the wheel carries them."""
    import fnmatch
    import tomllib
    from importlib import resources
    from pathlib import Path

    from posenc.report.render import TEMPLATE, template_text

    folder = resources.files("posenc.report") / "templates"
    names = sorted(entry.name for entry in folder.iterdir() if entry.is_file())
    assert TEMPLATE in names and "report.css" in names
    assert "<!DOCTYPE html>" in (folder / TEMPLATE).read_text(encoding="utf-8") == template_text(TEMPLATE)
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    globs = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]["posenc.report"]
    for name in names:
        assert any(fnmatch.fnmatch(f"templates/{name}", glob) for glob in globs), (name, globs)


def test_every_value_on_the_page_is_escaped(tmp_path):
    """Text from a claim, a measurement or an error reaches the page as text, never as markup."""
    import dataclasses

    from posenc.report.ledger import get_claim
    from posenc.report.measurement import Measurement, Row
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.verdict import failed, supported
    from posenc.stats import exact

    evil = "<script>alert('x')</script>"
    titled = dataclasses.replace(get_claim("word-order"), title=evil, title_zh=evil)
    results = [ClaimResult(get_claim("sin-bounded"), supported(f"holds {evil}"),
                           Measurement({}, rows=[Row(evil, exact(1.0), evil, evil)], setup=evil), True),
               ClaimResult(titled, failed(evil), None, True, error=evil)]
    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", results, True,
                                    None, store_note=evil))
    assert page.count("<script") == 2 and "<script>alert" not in page  # the page's own two scripts only
    # three cells, the setup, the error in its section and in the summary, the store note; the reason, and the title
    # in the summary and in its section's heading, each as the text and its English and Chinese attributes
    assert page.count("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") == 7 + 3 + 6


def test_timings_count_a_shared_experiment_once_and_stored_only_when_all_its_claims_were():
    """run.py gives a shared experiment's time to its first claim and 0 to the others; the page's table shows one row
    per experiment with the longest, "stored" only when every claim was read from the store, and nothing for a
    failed experiment."""
    from types import SimpleNamespace as NS

    from posenc.report.render import _timings

    def result(experiment, wall, cached, measured=True):
        return NS(claim=NS(experiment=experiment), measurement=object() if measured else None, wall_s=wall,
                  cached=cached)

    results = [result("shared", 5.0, False), result("shared", 0.0, False),
               result("stored", 2.5, True), result("stored", 0.0, True),
               result("mixed", 0.0, True), result("mixed", 3.0, False),
               result("broken", 9.0, False, measured=False)]
    assert _timings(results) == [("shared", 5.0, False), ("stored", 2.5, True), ("mixed", 3.0, False)]


def test_versions_line_names_posenc_torch_transformers_and_python():
    import platform

    from posenc.report.render import _versions_text
    from posenc.store import package_versions

    versions = {"posenc": "0.1.0", "torch": "2.13.0+cpu", "transformers": "5.24.0", "python": "3.11.7"}
    assert _versions_text(versions) == "posenc 0.1.0, torch 2.13.0+cpu, transformers 5.24.0, Python 3.11.7"
    assert _versions_text({"posenc": "0.1.0", "python": "3.12.1"}) == "posenc 0.1.0, Python 3.12.1"  # absent ones left out
    assert _versions_text(package_versions()).endswith(f", Python {platform.python_version()}")


# ---- values at the switches of format_value and the summary's note -----------------------------------------------
def test_format_value_switches_to_scientific_below_a_thousandth_and_from_a_million():
    assert format_value(0.001) == "0.001" and format_value(0.000999) == "9.99e-04"
    assert format_value(-0.001) == "-0.001" and format_value(-0.000999) == "-9.99e-04"
    assert format_value(999_999.0) == "1e+06" and format_value(1e6) == "1.00e+06"  # 4 digits round 999,999 up
    assert format_value(123_456.7) == "1.235e+05" and format_value(float("-inf")) == "-inf"
    assert format_value(False) == "no" and format_value(-1234) == "-1,234" and format_value((0.5, None)) == "0.5, —"


def test_format_value_of_each_kind_of_estimate():
    from posenc.stats import Estimate, exact, observed, over_seeds

    assert format_value(exact(0.25)) == "0.25"
    assert format_value(observed(0.75, 4, (0.0, 1.0))) == "0.75"
    assert format_value(Estimate(0.5, 0.25, 0.75, 10, "bootstrap")) == "0.5 [0.25, 0.75]"
    assert format_value(over_seeds([1.0, 2.0])) == "1.5 (no interval: n=2 < 3)"  # two seeds: no t-interval


def test_a_long_reason_is_cut_at_a_word_after_110_characters():
    from posenc.report.render import _short

    exact_limit = "abcd " * 21 + "abcde"  # 105 + 5 = 110 characters: kept whole
    assert len(exact_limit) == 110 and _short(exact_limit) == exact_limit
    one_more = exact_limit + "f"  # 111: cut at the last space before 110, then " ..."
    assert _short(one_more) == "abcd " * 20 + "abcd ..."


#: the summary row's note by status, written from render.py's docstring: a qualified verdict's condition; the
#: reason (shortened) where it says why nothing was decided or what broke; the command where nothing was measured
#: (a condition no test of the claim words, a reason no pattern knows, stay as written in both languages; an error
#: stays as raised)
NOTES = {"supported": None, "refuted": None,
         "qualified": '<span class="condition" data-en="only when short" data-zh="only when short">only when short</span>',
         "inconclusive": '<span class="reason" data-en="why: the reason" data-zh="why: the reason">why: the reason</span>',
         "not testable": '<span class="reason" data-en="why: the reason" data-zh="why: the reason">why: the reason</span>',
         "failed": "why: the reason",
         "not decided in quick mode": "run: posenc report --claim sin-bounded",
         "not run": "run: posenc report --claim sin-bounded"}


@pytest.mark.parametrize("status", list(NOTES))
def test_each_status_gets_its_note_its_pill_and_its_colour(tmp_path, status):
    from posenc.report.ledger import get_claim
    from posenc.report.measurement import Measurement
    from posenc.report.render import _COLOURS, _groups, render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.verdict import Verdict

    condition = "only when short" if status == "qualified" else None
    command = "posenc report --claim sin-bounded" if status in ("not run", "not decided in quick mode") else None
    verdict = Verdict(status, "why: the reason", condition, command)
    result = ClaimResult(get_claim("sin-bounded"), verdict, None if status == "failed" else Measurement({}), True)
    [group] = _groups([result], None)
    assert group["origin"] == "tutorial" and group["rows"][0]["note"] == NOTES[status]
    page = render_html(ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [result], True, None))
    counts = page[page.index('<div class="counts">'):]
    assert _plain(counts[:counts.index("</div>")]) == f"1 {status}"
    background, text = _COLOURS[status]
    assert f"background:{background};color:{text}" in _section_of(page, "sin-bounded")


def test_the_statuses_have_colours_of_their_own():
    from posenc.report.render import _COLOURS

    assert list(_COLOURS) == ["supported", "qualified", "refuted", "inconclusive", "not testable",
                              "not decided in quick mode", "not run", "failed"]
    assert len({background for background, _ in _COLOURS.values()}) == 8


def _section_of(page: str, claim_id: str) -> str:
    part = page[page.index(f'id="{claim_id}"'):]
    return part[:part.index("</section>")]


def test_the_header_counts_a_reference_runs_differing_verdicts_and_skips_claims_it_lacks(tmp_path):
    """Of three claims, the full run judged two: one the same, one otherwise; the third is not in it and does not
    count as differing."""
    from test_reference import write_report

    from posenc.report.reference import load_references
    from posenc.report.render import _reference_runs

    page_results = _page(tmp_path)[1]  # sin-bounded supported, rope-extrapolates inconclusive, ... (5 claims)
    write_report(tmp_path, "full.json", {"sin-bounded": "supported", "rope-extrapolates": "refuted"})
    runs = _reference_runs(load_references(tmp_path), page_results)
    assert runs[0]["differs"] == 1 and runs[0]["file"] == "full.json"
    assert runs[1]["note"].startswith("no committed extended run")
    assert _reference_runs(None, page_results) is None


# ---- each test's measurement beside its null, and the verdict's scope -------------------------------------------
def _nulled_page(tmp_path):
    """A hand-made claim with a null on one test, a reason for none on another, a headroom requirement, and a
    measurement with its scope; judged, rendered, and written as report.json's entry."""
    from posenc.report.claim import Claim, Test
    from posenc.report.measurement import Measurement
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.verdict import judge
    from posenc.stats import Estimate, exact

    claim = Claim("nulled", "by hand", "tutorial", "Word heads", "Some heads are word experts.", "none",
                  (Test("share", ">", 0.5, "a head is a word expert", "between the null and the effect",
                        null="share_null"),
                   Test("heads", ">", 0.5, "heads were read", "a count", no_null="a count of heads, not sampled")),
                  requires=(Test("room", ">", 0.02, "the metric has room", "the tie margin", role="headroom",
                                 otherwise="not testable"),),
                  null="all-MiniLM-L6-v2 with re-initialised weights of matched norms")
    estimates = {"share": Estimate(0.8, 0.7, 0.9, 64, "bootstrap"), "share_null": Estimate(0.3, 0.2, 0.4, 64,
                                                                                             "bootstrap"),
                 "heads": exact(12.0), "room": exact(0.5)}
    m = Measurement({}, estimates=estimates, scope="all-MiniLM-L6-v2, 128-token windows, 64 windows")
    result = ClaimResult(claim, judge(claim, estimates), m, True)
    report = ReportResult(tmp_path, tmp_path / "index.html", tmp_path / "report.json", [result], True, None)
    return render_html(report), result


def test_each_test_shows_its_measurement_beside_its_null_and_the_verdict_its_scope(tmp_path):
    page, result = _nulled_page(tmp_path)
    section = _plain(_section(page, "nulled"))
    assert "a head is a word expert: share > 0.5" in section
    assert "measured 0.8 [0.7, 0.9] · null 0.3 [0.2, 0.4]" in section
    assert "measured 12 · no null: a count of heads, not sampled" in section
    assert "headroom the metric has room: room > 0.02" in section and "measured 0.5" in section
    # the claim's null and scope under their headings (the page's dt and dd: no space between them in plain text)
    assert "Nullall-MiniLM-L6-v2 with re-initialised weights of matched norms" in section
    assert "Rests onall-MiniLM-L6-v2, 128-token windows, 64 windows" in section
    assert "supported on all-MiniLM-L6-v2, 128-token windows, 64 windowsa head is a word expert: share" in section
    assert 'data-i18n="side.null" class="sides" data-p-measured="0.8 [0.7, 0.9]" data-p-null="0.3 [0.2, 0.4]"' in page


def test_report_json_holds_the_null_the_scope_and_each_test_beside_its_null(tmp_path):
    _, result = _nulled_page(tmp_path)
    entry = result.as_dict()
    assert entry["null"] == "all-MiniLM-L6-v2 with re-initialised weights of matched norms"
    assert entry["scope"] == "all-MiniLM-L6-v2, 128-token windows, 64 windows" and entry["hedged"] is False
    room, share, heads = entry["sides"]
    assert (room["kind"], room["role"], room["measured"]["value"], room["null"]) == ("requires", "headroom", 0.5,
                                                                                    None)
    assert (share["statistic"], share["measured"]["low"], share["null_estimate"], share["null"]["high"]) == \
        ("share", 0.7, "share_null", 0.4)
    assert (heads["null"], heads["no_null"]) == (None, "a count of heads, not sampled")
    assert entry["tests"][0]["null"] == "share_null"


def test_a_claim_not_measured_shows_no_scope_and_no_numbers_beside_its_tests(tmp_path):
    page, _ = _page(tmp_path)
    section = _plain(_section(page, "cope-counts"))
    assert "measured" not in section and "Rests on" not in section
