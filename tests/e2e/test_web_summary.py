"""The end-of-hand summary (issue 13): shown again after an undo and a re-entry of the hand, and brought into
view when it appears, at tablet and phone sizes."""

from __future__ import annotations

import pytest

from tests.e2e.test_web_e2e import wait_version
from tests.e2e.test_web_layout import SIZES, _new_match, _no_side_scroll

pytestmark = pytest.mark.slow

SETUP = {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"], "dealer": "Ana"}


def _quick(page, winner: str, left: dict, version: int) -> None:
    page.click('#action-tabs [data-action="hand_result"]')
    page.click(f'#quick-winner .chip[data-value="{winner}"]')
    for p, v in left.items():
        page.fill(f'input[name="left-{p}"]', str(v))
    page.click("#send-btn")
    wait_version(page, version)


def _in_view(page, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    vh = page.viewport_size["height"]
    return box is not None and box["y"] >= 0 and box["y"] < vh - 40


@pytest.mark.parametrize("size", ["landscape", "phone"])
def test_the_summary_comes_back_after_undo_and_reentry(size, server, browser):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    page.goto(base + "/new")
    mid = _new_match(page, base, SETUP)
    page.goto(f"{base}/m/{mid}")
    wait_version(page, 0)
    _quick(page, "Ben", {"Ana": 12, "Cleo": 7}, 1)
    box = page.locator("#hand-over")
    box.wait_for(state="visible")
    assert _in_view(page, "#hand-over"), "the summary appeared out of view"
    assert "19" in box.inner_text() or "+19" in box.inner_text()
    vw = page.viewport_size["width"]
    for cell in page.locator("#hand-over tr[data-player] td.num").all():  # every player's points shown whole
        b = cell.bounding_box()
        assert b and b["x"] >= 0 and b["x"] + b["width"] <= vw, f"a points cell is cut: {b} in {vw} px"
    page.click("#confirm-hand")
    assert box.is_hidden()
    # a mistake: undo, and the hand entered again with other figures
    page.evaluate("window.scrollTo(0, 0)")
    page.click("#undo-btn")
    wait_version(page, 2)
    _quick(page, "Cleo", {"Ana": 5, "Ben": 4}, 3)
    box.wait_for(state="visible")
    assert "Cleo" in box.inner_text() and "9" in box.inner_text()
    assert _in_view(page, "#hand-over")
    _no_side_scroll(page)
