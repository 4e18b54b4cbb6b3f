"""Headless Chromium (Debian's ``chromium`` + ``chromedriver``) for the browser tests of the report and the explorer,
and the explorer's redraw benchmark: the network off, a fresh profile, the browser's console log kept."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: no background connections (this machine's network is closed), no GPU, no sandbox (the tests run as root)
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")


def find_browser(needed_by: str = "the browser tests") -> tuple[str, str]:
    """Paths of chromium and chromedriver, or an error that names what needs them and how to install them."""
    chromium_path = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    driver = CHROMEDRIVER if Path(CHROMEDRIVER).exists() else shutil.which("chromedriver")
    if not chromium_path or not driver:
        raise RuntimeError(f"headless Chromium is needed for {needed_by} but "
                           f"{'chromium' if not chromium_path else 'chromedriver'} is not installed; install the Debian "
                           "packages with `apt-get install -y chromium chromium-driver` (./scripts/setup.sh does it)")
    return chromium_path, driver


@contextlib.contextmanager
def chromium(width: int = 1200, height: int = 900, needed_by: str = "the browser tests") -> Iterator[Any]:
    """A headless Chromium driven by selenium at ``width`` x ``height``; closed (and its profile removed) on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    binary, driver_path = find_browser(needed_by)
    profile = tempfile.mkdtemp(prefix="posenc-chromium-")
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
