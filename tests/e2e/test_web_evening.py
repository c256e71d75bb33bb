"""The host's evening on the live screen (issue 13), in a real browser at tablet (1180×820) and phone (390×844)
sizes: edit a hand and see the totals change, delete a hand (a second tap) and restore it, undo then redo,
rematch from a finished match, players and target between hands; nothing scrolls the page sideways."""

from __future__ import annotations

import json

import pytest

from tests.e2e.test_web_e2e import wait_version
from tests.e2e.test_web_layout import _no_side_scroll, _not_covered, _on_screen

pytestmark = pytest.mark.slow

SIZES = {"tablet": {"width": 1180, "height": 820}, "phone": {"width": 390, "height": 844}}
SETUP = {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"], "dealer": "Ana", "title": "Friday"}
H1 = {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 12, "Ben": 0, "Cleo": 30}}
H2 = {"type": "hand_result", "winner": "Cleo", "points": {"Ana": 50, "Ben": 60, "Cleo": 0}}
H3_WIN = {"type": "hand_result", "winner": "Cleo", "points": {"Ana": 20, "Ben": 25, "Cleo": 0}}  # Cleo 155 of 150


def _api(page, base: str, path: str, body=None) -> dict:
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    r = page.request.post(base + path, data=json.dumps(body if body is not None else {}),
                          headers={"Content-Type": "application/json", "X-CSRF-Token": token})
    assert r.status in (200, 201), r.text()
    return r.json()


def _match(browser, base: str, size: str, events=(), setup=SETUP):
    page = browser.new_context(viewport=SIZES[size]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/new")
    mid = _api(page, base, "/api/matches", setup)["id"]
    for ev in events:
        _api(page, base, f"/api/matches/{mid}/events", ev)
    page.goto(f"{base}/m/{mid}")
    wait_version(page, len(events))
    return page, mid, errors


def _total(page, player: str) -> str:
    return page.locator(f'#scoreboard .player[data-player="{player}"] .total').inner_text()


def _confirm_hand_over(page) -> None:
    """The end-of-hand summary of the last hand is confirmed once: then the history is what we look at."""
    if page.locator("#confirm-hand").count():
        page.click("#confirm-hand")


@pytest.mark.parametrize("size", list(SIZES))
def test_edit_a_hand_and_see_the_totals_change(size, server, browser, shot):
    base, _app = server
    page, mid, errors = _match(browser, base, size, [H1, H2])
    _confirm_hand_over(page)
    assert _total(page, "Ben") == "42"
    page.locator('#history [data-edit="1"]').scroll_into_view_if_needed()
    page.click('#history [data-edit="1"]')
    page.wait_for_selector("#edit-hand[open]")
    _on_screen(page, "#edit-hand")
    _no_side_scroll(page)
    field = page.locator('#edit-hand input[data-player="Ben"]')
    assert field.input_value() == "42"
    field.fill("52")
    _not_covered(page, "#edit-save")
    shot(page, f"evening-edit-{size}", full_page=False)
    page.click("#edit-save")
    wait_version(page, 3)
    page.wait_for_selector("#edit-hand", state="detached")  # closed once the answer is in
    assert _total(page, "Ben") == "52"
    assert page.locator('#history tr[data-hand="1"] .hand-mark.corrected').count() == 1
    assert "52" in page.locator('#history tfoot').inner_text()
    # a refusal stays in the dialog, which stays open: two scorers where only going out scores
    page.click('#history [data-edit="2"]')
    page.wait_for_selector("#edit-hand[open]")
    page.locator('#edit-hand input[data-player="Ana"]').fill("5")
    page.click("#edit-save")
    page.wait_for_selector("#edit-hand-msg:not(:empty)")
    assert "one player only" in page.locator("#edit-hand-msg").inner_text()
    page.click("#edit-hand .dialog-buttons .btn.ghost")
    page.wait_for_selector("#edit-hand", state="detached")
    _no_side_scroll(page)
    assert not errors, errors


@pytest.mark.parametrize("size", list(SIZES))
def test_delete_a_hand_with_a_second_tap_and_restore_it(size, server, browser, shot):
    base, _app = server
    page, mid, errors = _match(browser, base, size, [H1, H2])
    _confirm_hand_over(page)
    assert _total(page, "Cleo") == "110"
    btn = page.locator('#history [data-delete="2"]')
    btn.click()
    # the first tap only asks
    assert "again" in page.locator('#history [data-delete="2"]').inner_text()
    assert page.evaluate("document.body.dataset.version") == "2"
    _no_side_scroll(page)
    shot(page, f"evening-delete-{size}", full_page=False)
    page.click('#history [data-delete="2"]')
    wait_version(page, 3)
    assert _total(page, "Cleo") == "0"
    row = page.locator('#history tr[data-hand="2"]')
    assert "void" in row.get_attribute("class") and row.locator(".hand-mark.void").count() == 1
    assert page.locator('#history tr').count() == 1 + 2 + 1  # the hand stays listed
    page.click('#history [data-restore="2"]')
    wait_version(page, 4)
    assert _total(page, "Cleo") == "110"
    assert "void" not in (page.locator('#history tr[data-hand="2"]').get_attribute("class") or "")
    _no_side_scroll(page)
    assert not errors, errors


@pytest.mark.parametrize("size", list(SIZES))
def test_undo_then_redo(size, server, browser, shot):
    base, _app = server
    page, mid, errors = _match(browser, base, size, [H1, H2])
    assert page.locator("#redo-btn").is_hidden()
    page.click("#undo-btn")
    wait_version(page, 3)
    assert _total(page, "Cleo") == "0"
    page.wait_for_selector("#redo-btn:not([hidden])")
    _on_screen(page, "#redo-btn")
    _not_covered(page, "#redo-btn")
    _no_side_scroll(page)
    assert "Cleo" in page.locator("#redo-btn").get_attribute("title")
    page.click("#undo-btn")
    wait_version(page, 4)
    assert _total(page, "Ben") == "0"
    shot(page, f"evening-redo-{size}", full_page=False)
    page.click("#redo-btn")
    wait_version(page, 5)
    assert _total(page, "Ben") == "42" and _total(page, "Cleo") == "0"
    page.click("#redo-btn")
    wait_version(page, 6)
    assert _total(page, "Cleo") == "110"
    assert page.locator("#redo-btn").is_hidden()  # nothing more to redo
    assert "Redone" in page.locator("#feed").inner_text()
    # a new event after an undo: nothing to redo any more
    page.click("#undo-btn")
    wait_version(page, 7)
    page.wait_for_selector("#redo-btn:not([hidden])")
    _api(page, base, f"/api/matches/{mid}/events", {**H2, "winner": "Ana", "points": {"Ana": 0, "Ben": 5, "Cleo": 5}})
    wait_version(page, 8)
    assert page.locator("#redo-btn").is_hidden()
    assert not errors, errors


@pytest.mark.parametrize("size", list(SIZES))
def test_rematch_from_a_finished_match(size, server, browser, shot):
    base, _app = server
    page, mid, errors = _match(browser, base, size, [H1, H2, H3_WIN])
    page.wait_for_selector("#match-over-actions:not([hidden])")
    _on_screen(page, "#rematch-btn")
    _not_covered(page, "#rematch-btn")
    assert page.locator("#match-over-actions a[href='/new']").count() == 1  # beside "Start a new match"
    _no_side_scroll(page)
    shot(page, f"evening-rematch-{size}", full_page=False)
    page.click("#rematch-btn")
    page.wait_for_url(lambda url: "/m/" in url and mid not in url)
    new = page.url.rsplit("/m/", 1)[1]
    wait_version(page, 0)
    assert "Friday (rematch)" in page.locator(".match-title").inner_text()
    assert page.locator("#match-over-actions").is_hidden()
    names = page.locator("#scoreboard .player").evaluate_all("els => els.map(e => e.dataset.player)")
    assert names == ["Ana", "Ben", "Cleo"]
    assert all(_total(page, p) == "0" for p in names)
    # Ana dealt first last time: Ben deals the first hand of the rematch
    assert "Ben" in page.locator("#turn-box").inner_text()
    st = page.request.get(f"{base}/api/matches/{new}").json()
    assert st["extra"]["rematch_of"] == mid and st["next_dealer"] == "Ben"
    _no_side_scroll(page)
    assert not errors, errors


@pytest.mark.parametrize("size", list(SIZES))
def test_players_and_target_between_hands(size, server, browser, shot):
    base, _app = server
    page, mid, errors = _match(browser, base, size, [H1])
    _confirm_hand_over(page)
    assert page.locator("#target-label").inner_text() == "to 150"
    page.locator("#seating-btn").scroll_into_view_if_needed()
    page.click("#seating-btn")
    page.wait_for_selector("#seating[open]")
    _on_screen(page, "#seating")
    _no_side_scroll(page)
    # a target someone has reached is refused in the dialog
    page.fill("#target-input", "40")
    page.click("#target-save")
    page.wait_for_selector("#seating-msg:not(:empty)")
    assert "Ben already has 42" in page.locator("#seating-msg").inner_text()
    wait_version(page, 2)  # a refused event is kept in the feed: it has a row (and a version) of its own
    page.fill("#target-input", "300")
    page.click("#target-save")
    wait_version(page, 3)
    page.wait_for_selector("#seating", state="detached")
    assert page.locator("#target-label").inner_text() == "to 300"
    # a player joins: they start at 0; the next dealer stays Ben
    page.click("#seating-btn")
    page.wait_for_selector("#seating[open]")
    page.fill("#seat-new", "Dan")
    page.click("#seat-add")
    assert page.locator('#seat-list .seat[data-seat="Dan"]').count() == 1
    page.click("#seat-add")  # nothing typed: nothing added
    # four is the most these rules allow: a fifth is refused before anything is sent
    page.fill("#seat-new", "Eve")
    page.click("#seat-add")
    assert "2, 3, 4" in page.locator("#seating-msg").inner_text()
    _not_covered(page, "#seat-save")
    shot(page, f"evening-seating-{size}", full_page=False)
    page.click("#seat-save")
    wait_version(page, 4)
    page.wait_for_selector("#seating", state="detached")
    names = page.locator("#scoreboard .player").evaluate_all("els => els.map(e => e.dataset.player)")
    assert names == ["Ana", "Ben", "Cleo", "Dan"] and _total(page, "Dan") == "0"
    assert "Ben" in page.locator("#turn-box").inner_text()
    # Cleo leaves: her hand stays in the history, apart
    page.click("#seating-btn")
    page.wait_for_selector("#seating[open]")
    page.click('#seat-list [data-remove="Cleo"]')
    page.click("#seat-save")
    wait_version(page, 5)
    page.wait_for_selector("#seating", state="detached")
    assert page.locator("#scoreboard .player").count() == 3
    assert page.locator("#history th.left").inner_text() == "Cleo"
    # during a hand the control is gone
    _api(page, base, f"/api/matches/{mid}/events", {"type": "deal", "dealer": "Ben", "upcard": "KD"})
    wait_version(page, 6)
    assert page.locator("#seating-btn").is_hidden()
    _no_side_scroll(page)
    assert not errors, errors


def test_locked_screens_offer_no_changes(pin_server, browser):
    base, app = pin_server
    store = app.extensions["rummy_store"]
    live = store.create_match({"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"]})
    for ev in (H1, H2, H3_WIN):
        store.apply(live.id, ev)
    store.undo(live.id)
    page = browser.new_context(viewport=SIZES["phone"]).new_page()
    page.goto(f"{base}/m/{live.id}")
    wait_version(page, 4)
    assert page.locator("#redo-btn").is_hidden() and page.locator("#undo-btn").is_hidden()
    assert page.locator("#seating-btn").is_hidden()
    assert page.locator("#history [data-edit]").count() == 0 and page.locator("#history [data-delete]").count() == 0


def test_redo_keeps_the_tablet_top_bar_on_one_line(server, browser):
    base, _app = server
    page, mid, errors = _match(browser, base, "tablet", [H1])
    one = page.locator(".topbar").bounding_box()["height"]
    page.click("#undo-btn")
    wait_version(page, 2)
    page.wait_for_selector("#redo-btn:not([hidden])")
    assert page.locator(".topbar").bounding_box()["height"] <= one + 1, "Redo wrapped the top bar"
    assert page.locator("#redo-btn").get_attribute("aria-label") == "Redo"
    assert not errors, errors
