"""Headless Chromium (Debian's ``chromium`` + ``chromedriver``) for the explorer's tests and benchmark, network off.

The flags are the report's browser test's (tests/report/report_browser.py); the page is opened from a file.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")


def find_browser() -> tuple[str, str]:
    """Paths of chromium and chromedriver, or an error that says how to install them."""
    chromium = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    driver = CHROMEDRIVER if Path(CHROMEDRIVER).exists() else shutil.which("chromedriver")
    if not chromium or not driver:
        raise RuntimeError("headless Chromium is needed for the explorer's browser test but "
                           f"{'chromium' if not chromium else 'chromedriver'} is not installed; install the Debian "
                           "packages with `apt-get install -y chromium chromium-driver` (./scripts/setup.sh does it)")
    return chromium, driver


@contextmanager
def chromium(width: int = 1280, height: int = 900):
    """A headless Chromium driver, closed (and its profile removed) on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = find_browser()
    profile = tempfile.mkdtemp(prefix="posenc-explore-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


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
