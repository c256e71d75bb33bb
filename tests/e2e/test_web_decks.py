"""In a real browser, at a tablet's size: teaching the referee a deck on the Decks screen."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.e2e.conftest import _serve
from vision.synth.decks import ALL_FACES, Deck, _proc_card, register_deck
from vision.synth.suit_photos import photo, suit_cards

pytestmark = pytest.mark.slow

DESIGN = dict(font=cv2.FONT_HERSHEY_PLAIN, paper=(240, 240, 252), red=(40, 40, 200), black=(30, 30, 30),
              idx_h=0.1, suit_h=0.075, idx_x=0.05, idx_y=0.04, border=None, thick=0.15,
              back=((20, 90, 20), (160, 220, 160)), face=(40, 120, 200))


@pytest.fixture
def deck_server(tmp_path):
    yield from _serve({"DATABASE": str(tmp_path / "decks.db"), "ENROL_SECONDS": 3, "ENROL_SCENES": 12})


def test_teach_a_deck_from_uploaded_photos(deck_server, browser, shot, tmp_path):
    faces, boxes = {}, {}
    for card in (*ALL_FACES, "BACK"):
        faces[card], boxes[card] = _proc_card(card, DESIGN)
    register_deck(Deck("e2e-deck", faces, boxes))
    rng = np.random.default_rng(2)
    files = {}
    for s in "CDHS":
        files[s] = tmp_path / f"{s}.jpg"
        cv2.imwrite(str(files[s]), photo("e2e-deck", suit_cards(s), rng, width=1280, height=800, surface="wood"))
    bad = tmp_path / "blank.jpg"
    cv2.imwrite(str(bad), np.full((600, 900, 3), 90, np.uint8))

    base, _app = deck_server
    page = browser.new_context(viewport={"width": 1180, "height": 820}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/decks")
    page.wait_for_selector("#slots .deck-slot[data-slot='C']")
    assert page.locator("#using").inner_text() == "the general model"
    assert page.locator("#teach-btn").is_disabled()

    # a blank table is refused with a message on that suit's card, and can be retaken
    page.set_input_files(".deck-slot[data-slot='H'] input[type=file]", str(bad))
    page.wait_for_selector(".deck-slot[data-slot='H'] .alert.bad")
    assert "found no cards" in page.locator(".deck-slot[data-slot='H'] .alert.bad").inner_text()

    for s in "CDHS":
        page.set_input_files(f".deck-slot[data-slot='{s}'] input[type=file]", str(files[s]))
        page.wait_for_selector(f".deck-slot[data-slot='{s}'].done img.deck-photo")
        assert page.locator(f".deck-slot[data-slot='{s}'] .ok-text").inner_text() == "13 cards found"
    shot(page, "decks-photos")
    assert not page.locator("#teach-btn").is_disabled()
    page.click("#teach-btn")  # no name yet
    assert "name" in page.locator("#teach-msg").inner_text().lower()
    page.fill("#deck-name", "Tuesday deck")
    page.click("#teach-btn")
    page.wait_for_selector("#job-text:has-text('Learnt: Tuesday deck')", timeout=120_000)
    page.wait_for_selector("#deck-list tr[data-deck='Tuesday deck'] .pill.ok")
    assert page.locator("#using").inner_text() == "Tuesday deck"
    shot(page, "decks-learnt")
    page.click("button:has-text('Use the general model')")
    page.wait_for_selector("#using:has-text('the general model')")
    assert not errors, errors
