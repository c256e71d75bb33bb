"""The screenshots of web_ui/README.md: the main screens at tablet (1180×820) and phone (390×844) sizes,
taken from a real dashboard server in headless Debian chromium (as the browser tests run it).

    .venv/bin/python scripts/screenshots.py [--out web_ui/screenshots]

A match is played through the HTTP API first (a hand move by move, a quick result), so the screens show a
real evening; nothing here is drawn by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIZES = {"tablet": {"width": 1180, "height": 820}, "phone": {"width": 390, "height": 844}}
SETUP = {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"], "dealer": "Ana",
         "title": "Friday at Ana's"}
HAND = [
    {"type": "deal", "dealer": "Ana", "upcard": "KD"},
    {"type": "draw", "player": "Ben", "from": "stock"},
    {"type": "meld", "player": "Ben", "cards": ["5S", "6S", "7S"]},
    {"type": "discard", "player": "Ben", "card": "4C"},
    {"type": "draw", "player": "Cleo", "from": "discard"},
    {"type": "meld", "player": "Cleo", "cards": ["4S", "4H", "4C"]},
    {"type": "discard", "player": "Cleo", "card": "9D"},
    {"type": "draw", "player": "Ana", "from": "stock"},
]
REST = [
    {"type": "discard", "player": "Ana", "card": "2S"},
    {"type": "draw", "player": "Ben", "from": "stock"},
    {"type": "lay_off", "player": "Ben", "cards": ["8S", "9S", "10S", "JS"]},
    {"type": "discard", "player": "Ben", "card": "KS"},
    {"type": "reveal", "player": "Ana", "cards": ["2C", "3C", "5C", "6C", "7C", "8C", "10C"]},
    {"type": "reveal", "player": "Cleo", "cards": ["2D", "3D", "4D", "5D"]},
]
QUICK = {"type": "hand_result", "winner": "Cleo", "points": {"Ana": 12, "Ben": 7, "Cleo": 0}}


def main(argv: list[str] | None = None) -> int:
    from playwright.sync_api import sync_playwright

    from tests.conftest import running_server
    from tests.e2e.conftest import CHROMIUM_ARGS, chromium_path

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "web_ui" / "screenshots"))
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    exe = chromium_path()
    if exe is None:
        print("Debian chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 2
    db = Path(tempfile.mkdtemp()) / "shots.db"
    with running_server({"DATABASE": str(db)}) as (base, _app), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_context(viewport=SIZES["tablet"], color_scheme="dark").new_page()
        page.goto(base + "/new")
        token = page.locator('meta[name="csrf-token"]').get_attribute("content")

        def post(path, body):
            r = page.request.post(base + path, data=json.dumps(body),
                                  headers={"Content-Type": "application/json", "X-CSRF-Token": token})
            assert r.status in (200, 201), (path, r.status, r.text())
            return r.json()

        old = post("/api/matches", dict(SETUP, title="Thursday"))["id"]
        post(f"/api/matches/{old}/events", dict(QUICK, dealer="Ana"))
        mid = post("/api/matches", SETUP)["id"]
        for ev in HAND:
            post(f"/api/matches/{mid}/events", ev)
        shots = []
        for name, vp in SIZES.items():
            for scheme in ("dark", "light") if name == "tablet" else ("dark",):
                ctx = browser.new_context(viewport=vp, color_scheme=scheme)
                pg = ctx.new_page()

                def shot(label, full=False, pg=pg, name=name, scheme=scheme):
                    f = out / f"{label}-{name}{'' if scheme == 'dark' else '-light'}.png"
                    pg.screenshot(path=str(f), full_page=full)
                    shots.append(f)

                pg.goto(f"{base}/m/{mid}")
                pg.wait_for_selector("#scoreboard .player")
                pg.wait_for_timeout(300)
                shot("live")
                if scheme == "light":
                    ctx.close()
                    continue
                pg.goto(base + "/new")
                pg.wait_for_selector("#players input")
                pg.wait_for_timeout(300)
                shot("new-match")
                pg.goto(base + "/matches")
                shot("matches")
                pg.goto(base + "/stats")
                shot("stats")
                ctx.close()
        # the end of the hand, then the same screens with the summary
        for ev in REST:
            post(f"/api/matches/{mid}/events", ev)
        for name, vp in SIZES.items():
            ctx = browser.new_context(viewport=vp, color_scheme="dark")
            pg = ctx.new_page()
            pg.goto(f"{base}/m/{mid}")
            pg.locator("#hand-over").wait_for(state="visible")
            pg.locator("#hand-over").scroll_into_view_if_needed()
            pg.wait_for_timeout(300)
            f = out / f"end-of-hand-{name}.png"
            pg.screenshot(path=str(f))
            shots.append(f)
            ctx.close()
        browser.close()
    for f in shots:
        print(f.relative_to(ROOT) if f.is_relative_to(ROOT) else f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
