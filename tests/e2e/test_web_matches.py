"""The host's evening, list side (issue 13), in a real browser at tablet (1180×820) and phone (390×844) sizes:
the matches list shows each match's status and winner, a match is renamed in its row, archived with a second
tap and restored; the statistics page shows the figures; the new-match form offers the names used before and
"Same players as last time"; a colour chosen on the form is the player's colour on the scoreboard and in the
chart.  No page scrolls sideways."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from tests.e2e.test_web_e2e import wait_version
from tests.e2e.test_web_layout import _no_side_scroll, _on_screen

pytestmark = pytest.mark.slow

SIZES = {"tablet": {"width": 1180, "height": 820}, "phone": {"width": 390, "height": 844}}


def _api(page, base: str, path: str, body: dict | None = None):
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    r = page.request.post(base + path, data=json.dumps(body if body is not None else {}),
                          headers={"Content-Type": "application/json", "X-CSRF-Token": token})
    assert r.status in (200, 201), r.text()
    return r.json()


def _evening(page, base: str) -> dict:
    """Three matches: "Friday" in progress (Ben 42, Ana 25), one over (Ben wins), one not started."""
    page.goto(base + "/new")
    friday = _api(page, base, "/api/matches", {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"],
                                                "dealer": "Ana", "title": "Friday",
                                                "colors": {"Ana": "#ff8c42", "Ben": "#4cc9f0", "Cleo": "#f72585"}})["id"]
    for ev in ({"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 12, "Ben": 0, "Cleo": 30}},
               {"type": "hand_result", "dealer": "Ben", "winner": "Ana", "points": {"Ana": 0, "Ben": 5, "Cleo": 20}},
               {"type": "deal", "dealer": "Cleo", "upcard": "KD"}):
        _api(page, base, f"/api/matches/{friday}/events", ev)
    over = _api(page, base, "/api/matches", {"type": "match", "rules": "basic", "players": ["Ana", "Ben"],
                                             "dealer": "Ana", "options": {"target": 50}})["id"]
    _api(page, base, f"/api/matches/{over}/events",
         {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 60, "Ben": 0}})
    fresh = _api(page, base, "/api/matches", {"type": "match", "rules": "classic", "players": ["Dee", "Eve"]})["id"]
    return {"friday": friday, "over": over, "fresh": fresh}


def _row(page, mid: str, where: str = "#match-list"):
    return page.locator(f'{where} tr[data-mid="{mid}"]')


def _rgb(hex_colour: str) -> str:
    h = hex_colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(h[i:i + 2], 16) for i in (0, 2, 4)))


@pytest.mark.parametrize("size", list(SIZES))
def test_matches_list_status_rename_archive_restore(size, server, browser, shot):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    ids = _evening(page, base)
    page.goto(base + "/matches")
    _no_side_scroll(page)
    friday, over, fresh = (_row(page, ids[k]) for k in ("friday", "over", "fresh"))
    assert friday.locator(".mstatus").inner_text().replace("\n", " ").split() == \
        "Hand 3 · Ben 42, Ana 25, Cleo 0".split()
    assert "★ Ben 60" in over.locator(".mstatus").inner_text() and "Over" in over.locator(".mstatus").inner_text()
    assert over.locator(".mwinner").inner_text().strip() == "★ Ben"
    assert "Not started" in fresh.locator(".mstatus").inner_text()
    assert friday.locator(".mplayers").inner_text().split() == ["Ana", "Ben", "Cleo"]
    assert friday.locator(".mplayers .swatch").first.evaluate("e => getComputedStyle(e).backgroundColor") == _rgb("#ff8c42")
    shot(page, f"matches-list-{size}")

    # rename in the row
    friday.locator(".rename-btn").click()
    inp = friday.locator(".rename-input")
    assert inp.input_value() == "Friday"
    _no_side_scroll(page)
    inp.fill("x" * 60 + "y")  # the field takes no more than the server does
    assert len(inp.input_value()) == 60
    inp.fill("Friday at Ana's")
    friday.locator(".rename-form .btn.primary").click()
    page.wait_for_selector(f'#match-list tr[data-mid="{ids["friday"]}"] .rename-form', state="detached")
    assert friday.locator(".mtitle").inner_text() == "Friday at Ana's"
    assert "Renamed" in page.locator("#list-note").inner_text()
    page.reload()
    assert _row(page, ids["friday"]).locator(".mtitle").inner_text() == "Friday at Ana's"

    # archive: the first tap asks, the second archives
    btn = _row(page, ids["fresh"]).locator(".archive-btn")
    btn.click()
    assert btn.inner_text() == "Tap again to archive"
    _on_screen(page, f'#match-list tr[data-mid="{ids["fresh"]}"] .archive-btn')
    assert _row(page, ids["fresh"]).count() == 1  # not yet
    with page.expect_navigation():
        btn.click()
    assert _row(page, ids["fresh"]).count() == 0
    assert "Archived" in page.locator("#list-note").inner_text()
    page.locator("#archived summary").click()
    arch = _row(page, ids["fresh"], "#archived-list")
    assert arch.is_visible() and "Not started" in arch.inner_text()
    _no_side_scroll(page)
    shot(page, f"matches-archived-{size}")
    with page.expect_navigation():
        arch.locator(".restore-btn").click()
    assert _row(page, ids["fresh"]).count() == 1 and "Restored" in page.locator("#list-note").inner_text()
    assert page.locator("#archived-panel").count() == 0
    _no_side_scroll(page)
    assert not errors, errors


@pytest.mark.parametrize("size", list(SIZES))
def test_statistics_page(size, server, browser, shot):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    ids = _evening(page, base)
    _api(page, base, f"/api/matches/{ids['over']}/archive")
    page.goto(base + "/matches")
    if page.locator("#menu-btn").is_visible():  # the top bar's links are behind ☰ up to a tablet's width
        page.click("#menu-btn")
    page.locator("#nav-stats").click()  # in the top bar
    page.wait_for_url("**/stats")
    _no_side_scroll(page)

    def cells(name: str) -> dict:
        row = page.locator(f'#stats-table tr[data-player="{name}"]')
        return {k: row.locator(f'td[data-key="{k}"]').inner_text().strip()
                for k in ("matches", "matches_won", "hands", "hands_won", "average", "best")}

    # Friday only (the match that is over is archived): Ben out once with 42, Ana once with 25
    ben = cells("Ben")
    assert (ben["matches"], ben["matches_won"], ben["hands"], ben["hands_won"], ben["average"]) == ("1", "0", "2", "1", "21.0")
    assert ben["best"].startswith("42") and "hand 1" in ben["best"]
    assert cells("Ana")["average"] == "12.5" and "hand 2" in cells("Ana")["best"]
    assert page.locator('#stats-table tr[data-player="Ben"] .swatch').evaluate(
        "e => getComputedStyle(e).backgroundColor") == _rgb("#4cc9f0")
    shot(page, f"stats-{size}")
    # archived matches too: Ben's win of the archived match counts
    page.locator("#archived-toggle").click()
    page.wait_for_url("**/stats?archived=1")
    ben = cells("Ben")
    assert (ben["matches"], ben["matches_won"], ben["hands"], ben["hands_won"], ben["average"]) == ("2", "1", "3", "2", "34.0")
    assert page.locator("#archived-toggle").get_attribute("aria-checked") == "true"
    _no_side_scroll(page)
    # one rule system: nobody has finished a hand of Classic
    page.locator('.stats-filter .chip[data-rules="classic"]').click()
    page.wait_for_url("**/stats?rules=classic&archived=1")
    assert page.locator("#no-stats").is_visible()
    _no_side_scroll(page)


@pytest.mark.parametrize("size", list(SIZES))
def test_new_match_form_remembers_names_and_colours(size, server, browser, shot):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/new")
    _api(page, base, "/api/matches", {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"],
                                      "colors": {"Ana": "#ff8c42", "Ben": "#4cc9f0", "Cleo": "#f72585"}})
    page.reload()
    page.wait_for_selector("#known-box:not([hidden])")
    _no_side_scroll(page)
    chips = page.locator("#known-names .known-chip")
    assert sorted(chips.all_inner_texts()) == ["Ana", "Ben", "Cleo"]
    assert page.locator("#known-players option").count() == 3  # the names field's suggestions
    # a tap on a name seats that player in the first empty seat, with the colour they had last
    page.locator('#known-names .known-chip[data-name="Cleo"]').click()
    first = page.locator("#players .player-row").first
    assert first.locator("input").input_value() == "Cleo"
    assert first.locator(".swatch-btn").evaluate("e => getComputedStyle(e).backgroundColor") == _rgb("#f72585")
    assert page.locator('#known-names .known-chip[data-name="Cleo"]').count() == 0  # seated: no longer offered
    # the same players as last time: the seating and the colours
    page.locator("#same-players").click()
    rows = page.locator("#players .player-row")
    assert [rows.nth(i).locator("input").input_value() for i in range(rows.count())] == ["Ana", "Ben", "Cleo"]
    sw = [rows.nth(i).locator(".swatch-btn") for i in range(3)]
    assert [s.evaluate("e => getComputedStyle(e).backgroundColor") for s in sw] == \
        [_rgb("#ff8c42"), _rgb("#4cc9f0"), _rgb("#f72585")]
    _on_screen(page, "#players .player-row .swatch-btn")
    # a tap gives Ana the next colour that nobody else has: #b39cff (#ff8c42 → #b39cff; the palette's order)
    sw[0].click()
    assert sw[0].evaluate("e => getComputedStyle(e).backgroundColor") == _rgb("#b39cff")
    assert "Ana" in (sw[0].get_attribute("aria-label") or "")
    # the draft (names and the colour tapped) survives a reload of the tab
    page.reload()
    page.wait_for_selector("#known-box")
    rows = page.locator("#players .player-row")
    assert rows.first.locator("input").input_value() == "Ana"
    assert rows.first.locator(".swatch-btn").evaluate("e => getComputedStyle(e).backgroundColor") == _rgb("#b39cff")
    _no_side_scroll(page)
    shot(page, f"new-remembered-{size}")
    with page.expect_navigation():
        page.click("#start-match")
    wait_version(page, 0)
    # the scoreboard and the chart use the chosen colours
    board = {p: page.locator(f'#scoreboard .player[data-player="{p}"] .swatch').evaluate(
        "e => getComputedStyle(e).backgroundColor") for p in ("Ana", "Ben", "Cleo")}
    assert board == {"Ana": _rgb("#b39cff"), "Ben": _rgb("#4cc9f0"), "Cleo": _rgb("#f72585")}
    mid = page.url.rstrip("/").split("/")[-1]
    st = page.request.get(f"{base}/api/matches/{mid}").json()
    assert st["extra"]["colors"] == {"Ana": "#b39cff", "Ben": "#4cc9f0", "Cleo": "#f72585"}
    _api(page, base, f"/api/matches/{mid}/events",
         {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 10, "Ben": 0, "Cleo": 5}})
    wait_version(page, 1)
    assert page.locator('#chart polyline.series[data-player="Ana"]').get_attribute("stroke") == "#b39cff"
    _no_side_scroll(page)
    # the colour is remembered for the next match
    page.goto(base + "/new")
    page.wait_for_selector("#known-box:not([hidden])")
    # (a retrying assertion: the list may still be filling in from /api/players and /api/presets)
    expect(page.locator('#known-names .known-chip[data-name="Ana"] .swatch')).to_have_css(
        "background-color", _rgb("#b39cff"))
    assert not errors, errors
