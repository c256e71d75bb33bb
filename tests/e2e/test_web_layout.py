"""The dashboard at the table (issue 13), in a real browser at tablet (1180×820, 820×1180) and phone (390×844)
sizes: no page scrolls sideways; on a tablet, Send and the scores stay on screen without scrolling through a
whole hand of entry; a message never covers a control; a stalemate
in the quick result asks for no points; End hand asks once more."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_web_e2e import pick, player, tab, wait_version

pytestmark = pytest.mark.slow

SIZES = {"landscape": {"width": 1180, "height": 820}, "portrait": {"width": 820, "height": 1180},
         "phone": {"width": 390, "height": 844}}
SETUP = {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"], "dealer": "Ana",
         "title": "Layout night"}


def _new_match(page, base: str, setup: dict = SETUP) -> str:
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    r = page.request.post(base + "/api/matches", data=json.dumps(setup),
                          headers={"Content-Type": "application/json", "X-CSRF-Token": token})
    assert r.status == 201, r.text()
    return r.json()["id"]


def _no_side_scroll(page) -> None:
    over = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert over <= 1, f"{page.url} scrolls sideways by {over} px"


def _on_screen(page, selector: str) -> dict:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert box["y"] >= 0 and box["y"] + box["height"] <= vh + 1 and box["x"] >= 0 and box["x"] + box["width"] <= vw + 1, \
        f"{selector} is off screen: {box} in {vw}x{vh}"
    return box


def _not_covered(page, selector: str) -> None:
    """The control at the centre of `selector` is the element itself (or inside it): nothing lies over it."""
    box = page.locator(selector).bounding_box()
    hit = page.evaluate("([x, y, sel]) => { const e = document.elementFromPoint(x, y); const t = document.querySelector(sel);"
                        " return !!e && !!t && (e === t || t.contains(e)) ? '' : (e ? e.outerHTML.slice(0, 120) : 'nothing'); }",
                        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, selector])
    assert not hit, f"{selector} ({box}) is covered by {hit}"


@pytest.mark.parametrize("size", list(SIZES))
def test_no_page_scrolls_sideways(size, server, browser):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(base + "/new")
    mid = _new_match(page, base)
    for path in ("/new", "/matches", "/decks", f"/m/{mid}"):
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        _no_side_scroll(page)
    # and with a finished hand's summary and history on the live screen
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    ev = {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 12, "Ben": 0, "Cleo": 30}}
    assert page.request.post(f"{base}/api/matches/{mid}/events", data=json.dumps(ev),
                             headers={"Content-Type": "application/json", "X-CSRF-Token": token}).status == 200
    wait_version(page, 1)
    page.wait_for_selector("#hand-over:not([hidden])")
    _no_side_scroll(page)


@pytest.mark.parametrize("size", ["landscape", "portrait"])
def test_send_and_scores_stay_on_screen_through_a_hand(size, server, browser, shot):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/new")
    mid = _new_match(page, base)
    page.goto(f"{base}/m/{mid}")
    wait_version(page, 0)
    version = 0

    def send(last: bool = False) -> None:
        """Send the move; Send and the scores must be on screen before and (until the hand ends) after."""
        nonlocal version
        _on_screen(page, "#send-btn")
        _not_covered(page, "#send-btn")
        page.click("#send-btn")
        version += 1
        wait_version(page, version)
        assert page.evaluate("window.scrollY") == 0  # nothing made the page scroll
        _on_screen(page, "#scoreboard")
        if not last:  # when the hand is over, its summary comes first (checked below)
            _on_screen(page, "#send-btn")

    page.click('#dealer-chips .chip[data-value="Ana"]')
    pick(page, "KD")
    send()
    player(page, "Cleo")  # out of turn: refused, with a message that covers nothing
    send()
    page.locator("#alert").wait_for(state="visible")
    _not_covered(page, "#send-btn")
    _not_covered(page, '#action-tabs [data-action="draw_stock"]')
    player(page, "Ben")
    send()
    page.wait_for_selector('#action-tabs .tab.on[data-action="meld"]')
    pick(page, "3H", "4H", "5H", "6H", "7H", "8H", "9H")
    send()
    tab(page, "discard")
    player(page, "Ben")
    pick(page, "KS")
    page.check("#face-down")
    send()
    page.wait_for_selector('#action-tabs .tab.on[data-action="reveal"]')
    player(page, "Cleo")
    pick(page, "2D", "3D", "4D", "5D", "6D", "7D", "8D")
    send()
    player(page, "Ana")
    pick(page, "2C", "3C", "4C", "5C", "6C", "7C", "8C")
    send(last=True)
    # the end of the hand is on screen, not scrolled away
    page.wait_for_selector("#hand-over:not([hidden])")
    top = page.locator("#hand-over").bounding_box()["y"]
    assert 0 <= top < SIZES[size]["height"], top
    shot(page, f"layout-{size}-end-of-hand", full_page=False)
    assert not errors, errors


def test_stalemate_asks_no_points_and_end_hand_asks_again(server, browser):
    base, _app = server
    page = browser.new_context(viewport=SIZES["landscape"]).new_page()
    page.goto(base + "/new")
    mid = _new_match(page, base)
    page.goto(f"{base}/m/{mid}")
    wait_version(page, 0)
    tab(page, "hand_result")
    page.click('#quick-winner .chip[data-value=""]')  # nobody went out
    page.wait_for_selector("#quick-nobody")
    assert page.locator('input[name="left-Ana"]').count() == 0
    page.click("#send-btn")
    wait_version(page, 1)
    st = page.request.get(f"{base}/api/matches/{mid}").json()
    assert st["hands"][0]["winner"] is None and all(v == 0 for v in st["totals"].values())
    assert page.locator("#feed .src").count() == 0  # the dashboard's own moves carry no "API" label

    # End hand: the first tap asks, the second ends the hand
    page.click("#confirm-hand")
    page.click('#dealer-chips .chip[data-value="Ben"]')
    pick(page, "KD")
    page.click("#send-btn")
    wait_version(page, 2)
    tab(page, "end_hand")
    page.click("#send-btn")
    assert "again" in page.locator("#send-btn").inner_text()
    page.wait_for_timeout(300)
    assert page.evaluate("document.body.dataset.version") == "2"
    page.click("#send-btn")
    wait_version(page, 3)


def test_rummy500_summary_sums_the_hand_apart_and_moves_are_tabs(server, browser):
    base, _app = server
    page = browser.new_context(viewport=SIZES["portrait"]).new_page()
    page.goto(base + "/new")
    mid = _new_match(page, base, {"type": "match", "rules": "rummy500", "players": ["Ana", "Ben"]})
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    ev = {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "hands": {"Ana": ["4S", "3D", "9C", "10H"], "Ben": []},
          "melded": {"Ana": 21, "Ben": 40}}
    assert page.request.post(f"{base}/api/matches/{mid}/events", data=json.dumps(ev),
                             headers={"Content-Type": "application/json", "X-CSRF-Token": token}).status == 200
    page.goto(f"{base}/m/{mid}")
    wait_version(page, 1)
    arith = page.locator('#hand-over tr[data-player="Ana"] .arith').inner_text()
    assert arith == "table 21 − hand (4 + 3 + 9 + 10 = 26) = −5", arith
    tabs = page.locator("#action-tabs [role=tab]")
    assert tabs.count() >= 5
    assert page.locator('#action-tabs [role=tab][aria-selected="true"]').count() == 1
    assert page.locator('#dealer-chips[role=group] [aria-pressed="true"]').count() == 1


def test_undo_is_hidden_until_the_pin_is_given(pin_server, browser):
    base, app = pin_server
    from web_ui.services import get_store

    mid = get_store(app).create_match({"type": "match", "rules": "classic", "players": ["Ana", "Ben"]}, {}).id
    page = browser.new_context(viewport=SIZES["landscape"]).new_page()
    page.goto(f"{base}/m/{mid}")
    wait_version(page, 0)
    assert page.locator("#undo-btn").is_hidden()
    assert page.locator("#entry-body a:has-text('Enter the PIN')").count() == 1
