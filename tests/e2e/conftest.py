"""Browser tests: the dashboard in a thread on a free 127.0.0.1 port, Debian chromium via Playwright."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 # two screens at once: keep the one not in front running at full speed
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--disable-backgrounding-occluded-windows"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def chromium_path() -> str | None:
    for c in (os.environ.get("RUMMY_CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
              shutil.which("chromium-browser")):
        if c and os.path.exists(c):
            return c
    return None


def _serve(config: dict):
    """A real dashboard server (the production one) on a free 127.0.0.1 port, in a thread: yields (base URL, app)."""
    from tests.conftest import running_server

    with running_server(config) as (url, app):
        yield url, app


@pytest.fixture
def server(tmp_path):
    yield from _serve({"DATABASE": str(tmp_path / "e2e.db")})


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the session (each test opens its own contexts: cookies, storage and service workers
    are a context's own), so each test does not pay for a browser start."""
    exe = chromium_path()
    if exe is None:
        pytest.fail("Debian chromium is not installed (apt-get install chromium); scripts/test installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def shot():
    ARTIFACTS.mkdir(exist_ok=True)

    def take(page, name: str, full_page: bool = True) -> Path:
        path = ARTIFACTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


@pytest.fixture
def pin_server(tmp_path):
    """As if started with --host 0.0.0.0 --pin 2468 (but listening on 127.0.0.1 only)."""
    yield from _serve({"DATABASE": str(tmp_path / "pin.db"), "PIN": "2468", "LOCAL_ONLY": False})
