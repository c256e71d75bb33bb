"""In a real browser: the PIN on a home network, the matches page, importing a game log, exports."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.slow

SETUP = {"type": "match", "rules": "classic", "players": ["Ana", "Ben"]}
LOG = [SETUP,
       {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 25, "Ben": 0}},
       {"type": "hand_result", "dealer": "Ben", "winner": "Ana", "points": {"Ana": 0, "Ben": 9}},
       {"type": "discard", "player": "Ana", "card": "KS"}]  # refused: no hand in progress


def test_pin_unlock_import_and_export(pin_server, browser, shot, tmp_path):
    base, app = pin_server
    ctx = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    page = ctx.new_page()

    # locked: changes need the PIN, reading does not
    page.goto(base + "/new")
    page.wait_for_selector("a.btn.warn:has-text('Unlock')")
    assert page.request.post(base + "/api/matches", data=json.dumps(SETUP),
                             headers={"Content-Type": "application/json"}).status == 401
    # names typed before unlocking are still there after it
    page.wait_for_selector("#players input")
    for i, n in enumerate(["Dora", "Emil"]):
        page.locator("#players input").nth(i).fill(n)
    page.click("a.btn.warn:has-text('Unlock')")
    page.fill('input[name="pin"]', "1111")
    page.click("button:has-text('Unlock')")
    assert "Wrong PIN" in page.inner_text(".alert")
    page.fill('input[name="pin"]', "2468")
    page.click("button:has-text('Unlock')")
    page.wait_for_url("**/new")
    assert page.locator("a.btn.warn:has-text('Unlock')").count() == 0
    page.wait_for_selector("#players input")
    assert page.locator("#players input").nth(0).input_value() == "Dora"
    assert page.locator("#players input").nth(1).input_value() == "Emil"

    # import a game log through the matches page (a real form with its CSRF token)
    path = tmp_path / "game.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in LOG) + "\n")
    page.goto(base + "/matches")
    page.set_input_files('input[name="log"]', str(path))
    page.click("button:has-text('Import')")
    page.wait_for_url("**/m/*")
    banner = page.locator("#alert")
    banner.wait_for(state="visible")
    assert "Imported 2 events" in banner.inner_text() and "1 refused" in banner.inner_text()
    page.wait_for_selector("#history tbody tr >> nth=1")
    assert page.locator('.player[data-player="Ana"] .total').inner_text() == "9"
    assert page.locator('.player[data-player="Ben"] .total').inner_text() == "25"
    shot(page, "09-imported-match")

    # exports from the matches page
    page.goto(base + "/matches")
    assert page.locator("table.history tbody tr").count() == 1
    with page.expect_download() as dl:
        page.click("a:has-text('CSV')")
    csv_text = open(dl.value.path(), encoding="utf-8").read()
    assert csv_text.splitlines()[0].startswith("hand,dealer,winner")
    assert len(csv_text.splitlines()) == 3
    with page.expect_download() as dl:
        page.click("a:has-text('Game log')")
    lines = open(dl.value.path(), encoding="utf-8").read().splitlines()
    assert json.loads(lines[0])["rules"] == "classic" and len(lines) == 3
    shot(page, "10-matches")
    ctx.close()
