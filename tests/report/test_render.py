"""The page: self-contained (no network URL anywhere a browser would fetch), a section with a verdict per claim,
failed claims shown with their error, values formatted for reading."""

from __future__ import annotations

import base64
import re
from html.parser import HTMLParser

from posenc.report.render import format_value


class _Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls: list[str] = []
        self.sections: list[dict[str, str]] = []
        self.images: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
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


def test_page_is_self_contained(small_report):
    page = read(small_report.index_html)
    parsed = _parse(page)
    external = [u for u in parsed.urls if not (u.startswith("#") or u.startswith("data:"))]
    assert external == []
    assert not re.search(r"url\(\s*['\"]?https?:", page)  # no CSS fetch
    assert "<script" not in page and "@import" not in page


def test_every_figure_is_an_embedded_png(small_report):
    parsed = _parse(read(small_report.index_html))
    assert len(parsed.images) == sum(r.measurement is not None and r.measurement.figure_png is not None
                                     for r in small_report.results) >= 4
    for src in parsed.images:
        prefix = "data:image/png;base64,"
        assert src.startswith(prefix)
        assert base64.b64decode(src[len(prefix):])[:8] == b"\x89PNG\r\n\x1a\n"


def test_one_section_per_claim_with_its_verdict(small_report):
    parsed = _parse(read(small_report.index_html))
    assert [s["id"] for s in parsed.sections] == [r.claim.id for r in small_report.results]
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
