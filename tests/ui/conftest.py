"""The browser the UI's browser tests share: headless Chromium from the OS's packages
(``make test`` installs Debian's ``chromium`` when it can), driven by Playwright against that
very executable; no browser is downloaded. Without either, a test asking for ``page`` skips
and says which. One browser per test process: starting it costs ~0.5 s."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if CHROMIUM is None:
        pytest.skip("no Chromium on this machine (make test installs Debian's chromium where it can)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (the dev extra has it)")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page of the shared browser, closed after the test."""
    opened = browser.new_page()
    try:
        yield opened
    finally:
        opened.close()
