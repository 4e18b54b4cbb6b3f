"""Headless Chromium (Debian's ``chromium`` + ``chromedriver``) for the explorer's tests and benchmark, network off.

The browser is tests/headless.py's, as the report's browser test's; the page is opened from a file.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path

import headless

NEEDED_BY = "the explorer's browser test"


def find_browser() -> tuple[str, str]:
    """Paths of chromium and chromedriver, or an error that says how to install them."""
    return headless.find_browser(NEEDED_BY)


@contextmanager
def chromium(width: int = 1280, height: int = 900):
    """A headless Chromium driver (:func:`headless.chromium`), closed (and its profile removed) on exit."""
    with headless.chromium(width, height, NEEDED_BY) as driver:
        yield driver


def open_page(driver, page: Path, lang: str | None = None) -> None:
    """Load the page from disk (``?lang=`` when given) and wait until its script has drawn every panel."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(page.resolve().as_uri() + (f"?lang={lang}" if lang else ""))
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return document.body.dataset.ready === '1'"))


_READ = ("const c = arguments[1]; return {value: c ? (c.type === 'checkbox' ? c.checked : c.value) : null, "
         "rows: Array.from(document.querySelectorAll(arguments[0])).map(o => ({key: o.dataset.key, f: o.dataset.f, "
         "args: o.dataset.args, pick: o.dataset.pick, text: o.textContent}))};")


def readouts(driver, panel: str, control=None) -> tuple[str | None, list[dict]]:
    """The control's value (when given) and every number the panel shows: key, formula, arguments, pick, text."""
    found = driver.execute_script(_READ, f"#panel-{panel} output.num", control)
    rows = [{**r, "args": json.loads(r["args"]), "pick": json.loads(r["pick"])} for r in found["rows"]]
    return (None if found["value"] is None else str(found["value"])), rows


def severe_logs(driver) -> list[dict]:
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
