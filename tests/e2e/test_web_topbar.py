"""The top bar (issue 13): on a phone it keeps to a small part of the screen on every page — the other
screens' links and the display settings behind ☰ — on a tablet the match's own line keeps its room; on a wide screen every link is in the bar."""

from __future__ import annotations

import pytest

from tests.e2e.test_web_layout import SIZES, _new_match, _no_side_scroll

pytestmark = pytest.mark.slow

SETUP = {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"], "dealer": "Ana", "title": "Friday"}


def _bar_height(page) -> float:
    return page.locator(".topbar").bounding_box()["height"]


def test_on_a_phone_the_bar_is_small_and_the_menu_opens_the_other_screens(server, browser):
    base, _app = server
    page = browser.new_context(viewport=SIZES["phone"]).new_page()
    page.goto(base + "/new")
    mid = _new_match(page, base, SETUP)
    for path in (f"/m/{mid}", "/new", "/matches", "/stats", "/decks", "/join"):
        page.goto(base + path)
        page.wait_for_selector("#menu-btn")
        h = _bar_height(page)
        assert h <= 0.2 * SIZES["phone"]["height"], f"{path}: the top bar is {h} px high"
        assert page.locator("#nav-pages").is_hidden()
        _no_side_scroll(page)
    page.goto(f"{base}/m/{mid}")
    assert page.locator("#undo-btn").is_visible()  # the live screen's own buttons stay
    page.click("#menu-btn")
    assert page.locator("#menu-btn").get_attribute("aria-expanded") == "true"
    page.locator("#nav-pages a[href='/stats']").wait_for(state="visible")
    _no_side_scroll(page)
    page.click("#nav-pages a[href='/stats']")
    page.wait_for_url("**/stats")


@pytest.mark.parametrize("size", ["landscape", "portrait"])
def test_on_a_tablet_the_links_are_one_tap_away(size, server, browser):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(base + "/new")
    mid = _new_match(page, base, SETUP)
    page.goto(f"{base}/m/{mid}")
    page.wait_for_selector("#undo-btn")
    # the links behind ☰, the bar one row, and the match's own line shown whole (not cut off)
    assert page.locator("#menu-btn").is_visible() and page.locator("#nav-pages").is_hidden()
    assert _bar_height(page) <= 0.12 * SIZES[size]["height"]
    cut = page.evaluate("(() => { const m = document.querySelector('.topbar-mid'); return m.scrollWidth - m.clientWidth; })()")
    assert cut <= 1, f"the match line is cut by {cut} px"
    page.click("#menu-btn")
    page.locator("#nav-pages a[href='/matches']").wait_for(state="visible")
    _no_side_scroll(page)


def test_on_a_wide_screen_every_link_is_in_the_bar(server, browser):
    base, _app = server
    page = browser.new_context(viewport={"width": 1600, "height": 900}).new_page()
    page.goto(base + "/matches")
    assert page.locator("#menu-btn").is_hidden()
    assert page.locator("#nav-pages a[href='/matches']").is_visible()
