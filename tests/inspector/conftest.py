"""A real browser for the inspect page: Debian's headless Chromium driven by Selenium through
Debian's chromium-driver (the two come from one source package, so their versions always
match, and nothing is downloaded: Selenium is given both paths). ``scripts/test`` installs
them as root; without them the browser tests skip, except in CI (``CI`` set), where they
fail."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1500,950",
)


def _missing() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[test]')"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (os.path.exists(path) or shutil.which(Path(path).name)):
            return f"{path} is missing (as root: apt-get install {package}; scripts/test does)"
    return None


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """One headless Chromium for the session (a fresh profile directory), logging the
    console so a test can see the page's errors."""
    missing = _missing()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the browser tests need Chromium in CI: {missing}")
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or CHROMIUM
    profile = tempfile.mkdtemp(prefix="agui-fsm-chromium-")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(shutil.which("chromedriver") or CHROMEDRIVER)
    driver = webdriver.Chrome(service=service, options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
