"""Open a report page in headless Chromium (Debian's ``chromium`` + ``chromedriver``) and read what it shows."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def find_browser() -> tuple[str, str]:
    """Paths of chromium and chromedriver, or an error that says how to install them."""
    chromium = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    driver = CHROMEDRIVER if Path(CHROMEDRIVER).exists() else shutil.which("chromedriver")
    if not chromium or not driver:
        raise RuntimeError("headless Chromium is needed for the report's browser test but "
                           f"{'chromium' if not chromium else 'chromedriver'} is not installed; install the Debian "
                           "packages with `apt-get install -y chromium chromium-driver` (./scripts/setup.sh does it)")
    return chromium, driver


@dataclass
class PageView:
    severe_logs: list[dict]
    images: list[dict]  # naturalWidth, naturalHeight, width, height, alt
    sections: list[dict]  # id, verdict (data attribute), has_pill
    summary_rows: int
    title: str


def open_page(index_html: Path, screenshot: Path) -> PageView:
    """Load ``index_html`` from disk, collect console errors, image sizes and verdicts, save a full-page screenshot."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver_path = find_browser()
    profile = tempfile.mkdtemp(prefix="posenc-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--window-size=1200,900"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
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
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
