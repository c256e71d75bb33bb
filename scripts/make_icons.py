"""Make the home-screen icons (web_ui/static/icons/icon-192.png, icon-512.png) from web_ui/static/icon.svg.

Run once after changing the SVG (the PNGs are committed; nothing is made at run time):

    .venv/bin/python scripts/make_icons.py

The SVG is drawn by the same Chromium the browser tests use (Playwright), centred on the dashboard's
felt colour, so the PNGs are the SVG itself, not a redrawing of it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "web_ui" / "static" / "icon.svg"
OUT = ROOT / "web_ui" / "static" / "icons"
SIZES = (192, 512)
FELT = "#0b1f17"  # web_ui/homescreen.py BACKGROUND_COLOR


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from tests.e2e.conftest import CHROMIUM_ARGS, chromium_path

    exe = chromium_path()
    if exe is None:
        print("make_icons: Chromium is not installed", file=sys.stderr)
        return 2
    svg = SVG.read_text(encoding="utf-8")
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        for n in SIZES:
            page = browser.new_page(viewport={"width": n, "height": n})
            page.set_content(
                f"<html><body style='margin:0;background:{FELT}'>"
                f"<div id='icon' style='width:{n}px;height:{n}px;display:flex;align-items:center;justify-content:center'>"
                f"<div style='width:{round(n * 0.86)}px;height:{round(n * 0.86)}px'>{svg}</div></div></body></html>")
            page.eval_on_selector("svg", "s => { s.setAttribute('width', '100%'); s.setAttribute('height', '100%'); }")
            page.locator("#icon").screenshot(path=str(OUT / f"icon-{n}.png"))
            page.close()
            print(OUT / f"icon-{n}.png")
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
