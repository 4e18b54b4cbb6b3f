"""The report in a real browser: headless Chromium (Debian ``chromium`` + ``chromium-driver``) opens index.html from
disk. No console errors, every image decoded and drawn at a non-zero size, every claim section shows a verdict.
A full-page screenshot is saved next to the report (``screenshot.png``) for a person to look at. The language
switch, clicked: the fixed text, the verdict names and the claim titles turn Chinese and back, ``?lang=`` is kept
in the address and honoured on load, and the explorer link carries the language; a qualified verdict's condition,
the scope lines and the reasons (their fixed words and each test's own) turn Chinese with them.

Chromium missing is a failure with the install command, never a silent skip: CI installs it in the set-up.
"""

from __future__ import annotations

import re

import pytest

from posenc.report.lang import TEXT, fill, status_key
from posenc.report.lang_claims import reason_zh, scope_zh
from posenc.report.lang_says import SAYS_ZH
from posenc.report.ledger import get_claim
from posenc.report.render import _section
from posenc.report.verdict import NOT_MEASURED, STATUSES

pytestmark = pytest.mark.browser


def _browser():
    try:
        import report_browser

        report_browser.find_browser()
    except (ImportError, RuntimeError) as exc:
        pytest.fail(f"browser test cannot run: {exc}")
    return report_browser


def test_report_page_in_headless_chromium(small_report):
    try:
        from report_browser import find_browser, open_page

        find_browser()
    except (ImportError, RuntimeError) as exc:
        pytest.fail(f"browser test cannot run: {exc}")
    screenshot = small_report.out_dir / "screenshot.png"
    view = open_page(small_report.index_html, screenshot)

    assert view.title == "posenc evidence report"
    assert view.severe_logs == [], f"console errors: {view.severe_logs}"
    assert len(view.images) >= 4
    for image in view.images:
        assert image["complete"] and image["naturalWidth"] > 0 and image["naturalHeight"] > 0, image
        assert image["width"] > 0 and image["height"] > 0, image
    assert [s["id"] for s in view.sections] == [f"claim-{r.claim.id}" for r in small_report.results]
    for section, result in zip(view.sections, small_report.results, strict=True):
        assert section["verdict"] in STATUSES and section["pill"].strip() == result.verdict.status
        assert section["text"].strip(), f"no verdict text in section {section['id']}"
    assert view.summary_rows == len(small_report.results)
    assert screenshot.exists() and screenshot.stat().st_size > 10_000
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_language_switch_turns_the_page_chinese_and_back(small_report):
    """Every expected value is written from the tables and the claim records, not read back from the page."""
    results = small_report.results
    target = results[-1].claim.id  # the last section: loading its address must scroll
    views = _browser().language_views(small_report.index_html, target)
    assert views["severe_logs"] == [], views["severe_logs"]
    loaded, zh, en, deep = views["loaded"], views["zh"], views["en"], views["deep"]

    def scoped(r) -> bool:  # a verdict names its scope when its claim was measured
        return bool(r.scope) and r.verdict.status not in (*NOT_MEASURED, "failed")

    def expected(lang: str) -> dict:
        table = TEXT[lang]
        # a claim without a Chinese title (the test ledger's broken one) keeps its English title
        titles = [(r.claim.title_zh or r.claim.title) if lang == "zh" else r.claim.title for r in results]
        return {"title": table["page.title"], "h1": table["h1"],
                "headers": [table[k] for k in ("th.number", "th.claim", "th.source", "th.verdict.run", "th.full",
                                               "th.extended")],
                "pills": [table[status_key(r.verdict.status)] for r in results],
                "summaryTitles": titles, "headingTitles": titles,
                "dts": [table[k] for r in results for k in ("dt.source", "dt.experiment", "dt.setup",
                                                             "dt.criterion", "dt.null", "dt.scope")
                        if k != "dt.null" or r.claim.null if k != "dt.scope" or scoped(r)],
                "sides": [fill(lang, side["text"][0], {k: getattr(v, "zh", v) if lang == "zh" else v
                                                       for k, v in side["text"][1].items()}) for r in results
                          for kind in ("tests", "requires") for side in _section(1, r)["sides"][kind]
                          if side["text"] is not None],
                "scopes": [fill(lang, "verdict.scope", {"scope": scope_zh(r.scope) if lang == "zh" else r.scope})
                           for r in results if scoped(r)],
                "reasons": [" ".join((reason_zh(r.verdict.reason, r.claim.choice.options if r.claim.choice else ())
                                      if lang == "zh" else r.verdict.reason).split())
                            for r in results if r.verdict.status != "failed"],
                "alts": [table["figure.alt"].replace("{title}", t) for r, t in zip(results, titles, strict=True)
                         if r.measurement is not None and r.measurement.figure_png],
                "captions": [f"{t} ({table['mode.quick']})" for r, t in zip(results, titles, strict=True)
                             if r.measurement is not None and r.measurement.figure_png],
                "current": ["English" if lang == "en" else "中文"]}

    for view, lang in ((loaded, "en"), (zh, "zh"), (en, "en"), (deep, "zh")):
        for field, value in expected(lang).items():
            assert view[field] == value, (lang, field, view[field], value)
        assert view["htmlLang"] == ("zh-CN" if lang == "zh" else "en")
        assert view["explore"] == f"explore.html?lang={lang}"
        counts = [f"{n} {TEXT[lang][status_key(s)]}" for s in STATUSES
                  for n in [small_report.counts[s]] if n]
        assert view["counts"] == counts
        assert view["groups"] == [TEXT[lang][f"group.{o}"] for o in ("tutorial", "literature")
                                  if any(r.claim.origin == o for r in results)]
    assert "supported" in loaded["pills"] and "支持" in zh["pills"]  # the check can tell the languages apart
    assert zh["scopes"] and all(re.search(r"[\u4e00-\u9fff]", scope) for scope in zh["scopes"])  # a scope in Chinese
    # a reason in Chinese, its test's own words too: sin-bounded's one test, written here from the table
    bounded = [r for r in results if r.verdict.status != "failed"].index(next(r for r in results
                                                                              if r.claim.id == "sin-bounded"))
    says = get_claim("sin-bounded").tests[0].says
    assert zh["reasons"][bounded].startswith(f"{SAYS_ZH[says]}：max_abs = ") and says not in zh["reasons"][bounded]
    assert loaded["reasons"][bounded].startswith(f"{says}: max_abs = ")
    assert "每个抽样得到的数字" in zh["legend"] and zh["legend"].count("无定论") >= 1 and "inconclusive" not in zh["legend"]
    assert en["legend"] == loaded["legend"] and en["footer"] == loaded["footer"] == "Written by posenc report. " \
        "Every number is also in report.json next to this page."
    assert "?" not in loaded["url"]  # opened plainly
    assert zh["url"].endswith("index.html?lang=zh") and en["url"].endswith("index.html?lang=en")
    assert deep["url"].endswith(f"index.html?lang=zh#claim-{target}") and deep["target"] == f"claim-{target}"
    assert deep["scrolled"] > 0


def test_the_language_switch_turns_a_qualified_condition_chinese(tmp_path):
    """A qualified verdict judged from the ledger's own claim (the later layers grow 4-fold, the condition says
    twofold): its condition, in the summary and the section, reads as the table's Chinese on the zh page."""
    from posenc.report.lang_claims import UNLESS_ZH
    from posenc.report.ledger import get_claim
    from posenc.report.measurement import Measurement
    from posenc.report.render import render_html
    from posenc.report.result import ClaimResult, ReportResult
    from posenc.report.verdict import judge
    from posenc.stats import exact

    claim = get_claim("concat-doubles-parameters")
    verdict = judge(claim, {"later_layer_ratio": exact(4.0)})
    assert verdict.status == "qualified"
    index = tmp_path / "index.html"
    index.write_text(render_html(ReportResult(tmp_path, index, tmp_path / "report.json",
                                              [ClaimResult(claim, verdict, Measurement({}), True)], True, None)),
                     encoding="utf-8")
    views = _browser().language_views(index, claim.id)
    assert views["severe_logs"] == [], views["severe_logs"]
    [unless] = [t.unless for t in claim.tests if "{value}" in t.unless]
    english, chinese = unless.replace("{value}", "4"), UNLESS_ZH[unless].replace("{value}", "4")
    for view, text in (("loaded", english), ("zh", chinese), ("en", english), ("deep", chinese)):
        assert views[view]["conditions"] == [text, text], (view, views[view]["conditions"])
    assert "后面的层增长到 4 倍" in chinese  # the check can tell the languages apart
