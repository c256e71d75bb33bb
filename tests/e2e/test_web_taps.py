"""A whole hand entered on the tablet with at most one tap more than the number of events (issue 13).

A tap here is a tap on the screen other than naming a card in the card picker (rank, then suit): choosing
a tab, a player, a button. Naming the cards is the move itself; everything else is what the dashboard costs.
The hand: a Basic hand of three players in hidden-hand mode (as a real table enters it), with draws from
the stock, a discard taken, melds, a lay-off, plain discards, going out, and both reveals, then the summary confirmed.
"""

from __future__ import annotations

import pytest

from tests.e2e.test_web_e2e import pick, wait_version
from tests.e2e.test_web_layout import SIZES, _new_match

pytestmark = pytest.mark.slow

SETUP = {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"], "dealer": "Ana"}


class Taps:
    def __init__(self, page):
        self.page, self.count, self.version = page, 0, 0

    def tap(self, selector: str) -> None:
        self.count += 1
        self.page.click(selector)

    def event(self, selector: str) -> None:
        """The tap that sends an event: the match's version goes up by one."""
        self.tap(selector)
        self.version += 1
        wait_version(self.page, self.version)


@pytest.mark.parametrize("size", ["landscape", "portrait"])
def test_a_whole_hand_costs_one_tap_per_event_plus_one(size, server, browser):
    base, _app = server
    page = browser.new_context(viewport=SIZES[size]).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "/new")
    mid = _new_match(page, base, SETUP)
    page.goto(f"{base}/m/{mid}")
    wait_version(page, 0)
    t = Taps(page)
    alt = '#entry-body .alt-send[data-send="{}"]'.format

    pick(page, "KD")  # deal: the dealer is proposed, the upcard named
    t.event("#send-btn")
    t.event("#send-btn")  # Ben draws from the stock (the proposed move)
    pick(page, "5S", "6S", "7S")
    t.event("#send-btn")  # melds (the proposed move once he has drawn)
    pick(page, "4C")
    t.event(alt("discard"))  # and discards, without opening the Discard tab
    t.event(alt("draw_discard"))  # Cleo takes the 4♣
    pick(page, "4H", "4S")
    page.click("#entry-body .picked-card")  # (a card taken back is part of naming the cards)
    pick(page, "4H", "4C")
    t.event("#send-btn")  # meld 4♠ 4♥ 4♣
    pick(page, "9D")
    t.event(alt("discard"))
    t.event("#send-btn")  # Ana draws
    pick(page, "2S")
    t.event(alt("discard"))
    t.event("#send-btn")  # Ben draws
    pick(page, "8S", "9S", "10S", "JS")
    t.event(alt("lay_off"))  # onto his run, without opening the Lay off tab
    pick(page, "KS")
    t.event(alt("discard"))  # Ben's last card: he went out
    page.wait_for_selector('#action-tabs .tab.on[data-action="reveal"]')
    hands = {"Cleo": ["2D", "3D", "4D", "5D"], "Ana": ["2C", "3C", "5C", "6C", "7C", "8C", "10C"]}
    for _ in range(2):  # the next hand to show is proposed each time: only its cards are named
        who = page.locator("#player-chips .chip.on").inner_text()
        pick(page, *hands.pop(who))
        t.event("#send-btn")
    assert hands == {}
    page.locator("#hand-over").wait_for(state="visible")
    t.tap("#confirm-hand")  # the one tap that is not an event: the summary read and confirmed
    page.wait_for_selector('#action-tabs .tab.on[data-action="deal"]')

    st = page.request.get(f"{base}/api/matches/{mid}").json()
    assert [e for e in st.get("events", []) if not e.get("ok", True)] == []
    assert st["hands"][0]["winner"] == "Ben"
    # Cleo 2+3+4+5 = 14, Ana 2+3+5+6+7+8+10 = 41: Ben scores 55
    assert st["totals"] == {"Ana": 0, "Ben": 55, "Cleo": 0}
    events = t.version
    assert events == 14
    assert t.count <= events + 1, f"{t.count} taps for {events} events"
    assert not errors, errors
