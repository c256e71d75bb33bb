"""The dashboard's languages in a real browser (issue 13, "Languages"), at a landscape tablet (1180×820) and a
phone (390×844): Română chosen in the top bar's picker gives the new-match page and a live match in Romanian,
the choice survives a reload and is this browser's only (another stays English), a refused move shows its
Romanian message while the English screen shows the engine's, and no page scrolls sideways in the longest
languages (Portuguese, Romanian) on a phone."""

from __future__ import annotations

import json
import re

import pytest

from tests.e2e.test_web_e2e import player, tab, wait_version
from tests.e2e.test_web_layout import _no_side_scroll

pytestmark = pytest.mark.slow

SIZES = {"tablet": {"width": 1180, "height": 820}, "phone": {"width": 390, "height": 844}}


def _watch(page, errors: list[str]) -> None:
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the refused move's 422 is expected; anything else in the console is a bug
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" and "422" not in m.text else None)


def _lang(page) -> str:
    return page.locator("html").get_attribute("lang")


def _choose(page, lang: str) -> None:
    """The top bar's picker (behind ☰ up to a tablet's width): the page comes again in that language."""
    if not page.locator("#lang-select").is_visible() and page.locator("#menu-btn").is_visible():
        page.click("#menu-btn")
    page.select_option("#lang-select", lang)
    page.wait_for_selector(f'html[lang="{lang}"]', state="attached")
    page.wait_for_load_state("networkidle")


@pytest.mark.parametrize("size", list(SIZES))
def test_romanian_chosen_in_the_picker(size, server, browser, shot):
    base, _app = server
    errors: list[str] = []
    ro = browser.new_context(viewport=SIZES[size])
    page = ro.new_page()
    _watch(page, errors)

    # -- the new-match page: English first (no cookie, the browser's own language), then Română
    page.goto(base + "/new")
    assert _lang(page) == "en" and page.locator("h1").inner_text() == "New match"
    _choose(page, "ro")
    assert page.locator("h1").inner_text() == "Partidă nouă"
    assert page.locator("#start-match").inner_text() == "Începe partida"
    assert page.locator("#players input").first.get_attribute("placeholder") == "Jucătorul 1"  # a script's string
    assert "Remi de bază (cardgames.io)" in page.locator("#rules-choice").inner_text()  # the presets' names
    page.wait_for_selector("#preset-summary:has-text('jucători')")  # made by new.js from /api/presets
    assert page.locator("#lang-select").input_value() == "ro"
    _no_side_scroll(page)
    names = page.locator("#players input")
    for i, n in enumerate(["Ana", "Ben", "Cleo"]):
        names.nth(i).fill(n)
    page.wait_for_selector(".def[data-key='target']:has-text('implicit: 150 pentru 3 jucători')")
    page.click("#start-match")
    page.wait_for_url(re.compile(r"/m/\w+$"))
    mid = page.url.rsplit("/", 1)[1]

    # -- the live match, in Romanian: the template's words and the scripts' alike
    page.wait_for_selector("#conn-pill:has-text('în direct')")
    assert _lang(page) == "ro"
    assert page.locator(".entry-title").text_content() == "Introduceți o mutare"
    assert page.locator('#action-tabs [data-action="deal"]').text_content() == "Împarte"
    assert page.locator("#hand-label").inner_text() == "Nicio rundă încă"
    assert "Următorul care împarte: Ana" in page.locator("#turn-box").inner_text()
    assert page.locator(".pile-label").nth(1).text_content() == "Decartate"  # the pile, not the move ("Decartează")
    _no_side_scroll(page)

    # -- the choice is kept: a reload comes in Romanian again
    page.reload()
    page.wait_for_selector("#conn-pill:has-text('în direct')")
    assert _lang(page) == "ro" and page.locator(".entry-title").text_content() == "Introduceți o mutare"

    # -- and it is this browser's only: another one (another device) stays English
    en = browser.new_context(viewport=SIZES[size])
    other = en.new_page()
    _watch(other, errors)
    other.goto(f"{base}/m/{mid}")
    other.wait_for_selector("#conn-pill:has-text('live')")
    assert _lang(other) == "en" and other.locator(".entry-title").text_content() == "Enter a move"
    assert other.locator("#lang-select").input_value() == "en"

    # -- a refused move (a draw before the deal): its Romanian message, with the rule number
    tab(page, "draw_stock")
    player(page, "Ben")
    page.click("#send-btn")
    page.wait_for_selector("#alert:not([hidden])")
    alert = page.locator("#alert .alert-text").inner_text()
    assert alert.startswith("Nepermis: Nu se joacă nicio rundă: mai întâi împărțiți cărțile (regula C-2)"), alert
    wait_version(page, 1)
    reason = page.locator("#feed .feed-item.bad .reason").first
    assert reason.inner_text() == "Nu se joacă nicio rundă: mai întâi împărțiți cărțile (regula C-2)"
    assert page.locator("#feed .feed-item.bad").first.inner_text().startswith("✗")
    assert "Ben a tras din talon" in page.locator("#feed").inner_text()  # the event in Romanian words
    shot(page, f"i18n-ro-refused-{size}")
    # the English screen shows the engine's own detailed message for the same refusal
    wait_version(other, 1)
    assert other.locator("#feed .feed-item.bad .reason").first.inner_text() == \
        "no hand is in progress: deal first (rule C-2)"
    assert "Ben drew from the stock" in other.locator("#feed").inner_text()
    _no_side_scroll(page)
    assert not errors, errors
    ro.close()
    en.close()


def _post(page, base: str, path: str, body: dict):
    token = page.locator('meta[name="csrf-token"]').get_attribute("content")
    return page.request.post(base + path, data=json.dumps(body),
                             headers={"Content-Type": "application/json", "X-CSRF-Token": token})


@pytest.mark.parametrize("lang", ["pt", "ro"])
def test_no_page_scrolls_sideways_on_a_phone_in_the_longest_languages(lang, server, browser, shot):
    base, _app = server
    errors: list[str] = []
    ctx = browser.new_context(viewport=SIZES["phone"])
    page = ctx.new_page()
    _watch(page, errors)
    page.goto(base + "/new")
    _choose(page, lang)
    r = _post(page, base, "/api/matches", {"type": "match", "rules": "rummy500", "players": ["Ana", "Ben", "Cleo"],
                                           "dealer": "Ana", "title": "Sexta à noite"})
    assert r.status == 201, r.text()
    mid = r.json()["id"]
    page.click(".more-options summary")  # every option of the preset, with its words
    page.wait_for_selector("#more-options select")
    _no_side_scroll(page)
    for path in ("/matches", "/decks", f"/m/{mid}"):
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        assert _lang(page) == lang
        _no_side_scroll(page)
    # a finished hand (its summary, the history and the chart), then the quick result's form: the most words
    ev = {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "hands": {"Ana": ["KS", "QH"], "Ben": [], "Cleo": ["3C"]},
          "melded": {"Ana": 0, "Ben": 30, "Cleo": 0}}
    assert _post(page, base, f"/api/matches/{mid}/events", ev).status == 200
    wait_version(page, 1)
    page.wait_for_selector("#hand-over:not([hidden])")
    assert page.locator("#hand-over h2").text_content() == {"pt": "Mão 1: Ben bateu", "ro": "Runda 1: Ben a închis"}[lang]
    _no_side_scroll(page)
    tab(page, "hand_result")
    page.wait_for_selector("#quick-winner")
    _no_side_scroll(page)
    shot(page, f"i18n-{lang}-phone")
    assert not errors, errors
    ctx.close()
