"""Open a report page in headless Chromium (Debian's ``chromium`` + ``chromedriver``) and read what it shows, in
either language."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import headless

NEEDED_BY = "the report's browser test"


def find_browser() -> tuple[str, str]:
    """Paths of chromium and chromedriver, or an error that says how to install them."""
    return headless.find_browser(NEEDED_BY)


@dataclass
class PageView:
    severe_logs: list[dict]
    images: list[dict]  # naturalWidth, naturalHeight, width, height, alt
    sections: list[dict]  # id, verdict (data attribute), has_pill
    summary_rows: int
    title: str


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium driven by selenium (:func:`headless.chromium`), with the browser's console log kept;
    closed on exit."""
    with headless.chromium(1200, 900, NEEDED_BY) as driver:
        yield driver


def open_page(index_html: Path, screenshot: Path) -> PageView:
    """Load ``index_html`` from disk, collect console errors, image sizes and verdicts, save a full-page screenshot."""
    with chromium() as driver:
        driver.get(index_html.resolve().as_uri())
        driver.execute_script("return document.readyState")
        images = driver.execute_script(
            "return Array.from(document.images).map(i => ({naturalWidth: i.naturalWidth, "
            "naturalHeight: i.naturalHeight, width: i.getBoundingClientRect().width, "
            "height: i.getBoundingClientRect().height, complete: i.complete, alt: i.alt}));")
        sections = driver.execute_script(
            "return Array.from(document.querySelectorAll('section.claim')).map(s => ({id: s.id, "
            "verdict: s.dataset.verdict, pill: (s.querySelector('header .pill') || {}).textContent || '', "
            "text: (s.querySelector('.verdict') || {}).textContent || ''}));")
        rows = driver.execute_script("return document.querySelectorAll('table.summary tbody tr[data-origin]').length;")
        height = driver.execute_script("return document.documentElement.scrollHeight;")
        driver.set_window_size(1200, min(int(height) + 100, 16000))
        driver.save_screenshot(str(screenshot))
        logs = [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
        return PageView(logs, images, sections, int(rows), driver.title)


#: what a language check reads off the page: the fixed text, the verdict names, the claim titles, where it links
_READ = """
const text = el => el ? el.textContent.replace(/\\s+/g, ' ').trim() : null;
const all = sel => Array.from(document.querySelectorAll(sel)).map(text);
const link = document.querySelector('a.explore-link');
return {
  url: window.location.href, title: document.title, htmlLang: document.documentElement.lang,
  h1: text(document.querySelector('h1')), headers: all('table.summary thead th'),
  groups: all('table.summary tr.group th'), legend: text(document.querySelector('p.legend')),
  footer: text(document.querySelector('footer')), pills: all('section.claim header .pill'),
  counts: all('.counts .pill'), summaryTitles: all('table.summary .claim-title'),
  headingTitles: all('section.claim h2 .claim-title'), dts: all('section.claim dt'), captions: all('figcaption'),
  sides: all('section.claim .sides'), scopes: all('section.claim .verdict .scope'), conditions: all('.condition'),
  reasons: all('section.claim .verdict .reason'),
  alts: Array.from(document.images).map(i => i.alt), explore: link ? link.getAttribute('href') : null,
  current: all('.lang-switch a[aria-current="true"]'), scrolled: window.scrollY,
  target: (document.querySelector(':target') || {}).id || null};
"""


def read_view(driver: Any) -> dict[str, Any]:
    """What the page shows now (see ``_READ``)."""
    return driver.execute_script(_READ)


def switch_language(driver: Any, lang: str) -> dict[str, Any]:
    """Click the switch's link for ``lang`` (a real click on the element) and read the page."""
    from selenium.webdriver.common.by import By

    driver.find_element(By.CSS_SELECTOR, f'.lang-switch a[data-lang="{lang}"]').click()
    return read_view(driver)


def language_views(index_html: Path, claim_id: str) -> dict[str, Any]:
    """The page as loaded (English), after clicking 中文, after clicking English again, and loaded afresh from
    ``index.html?lang=zh#claim-<claim_id>`` (the address the explorer links to); plus the console's errors."""
    with chromium() as driver:
        uri = index_html.resolve().as_uri()
        driver.get(uri)
        views = {"loaded": read_view(driver)}
        views["zh"] = switch_language(driver, "zh")
        views["en"] = switch_language(driver, "en")
        driver.get(f"{uri}?lang=zh#claim-{claim_id}")
        views["deep"] = read_view(driver)
        views["severe_logs"] = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
        return views
