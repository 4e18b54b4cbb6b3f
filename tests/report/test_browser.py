"""The report in a real browser: headless Chromium (Debian ``chromium`` + ``chromium-driver``) opens index.html from
disk. No console errors, every image decoded and drawn at a non-zero size, every claim section shows a verdict.
A full-page screenshot is saved next to the report (``screenshot.png``) for a person to look at.

Chromium missing is a failure with the install command, never a silent skip: CI installs it in the set-up.
"""

from __future__ import annotations

import pytest

from posenc.report.verdict import STATUSES

pytestmark = pytest.mark.browser


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
    assert [s["id"] for s in view.sections] == [r.claim.id for r in small_report.results]
    for section, result in zip(view.sections, small_report.results, strict=True):
        assert section["verdict"] in STATUSES and section["pill"].strip() == result.verdict.status
        assert section["text"].strip(), f"no verdict text in section {section['id']}"
    assert view.summary_rows == len(small_report.results)
    assert screenshot.exists() and screenshot.stat().st_size > 10_000
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
