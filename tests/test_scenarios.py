"""Every scenario of shared/rules/SCENARIOS.md as a test that drives the referee through the game log only.

Each scenario writes a game log (contracts/game-log.md) with tests/scenario_kit.py, replays it with
`referee.replay_lines` (the contract's `replay --json` object) and checks every event's verdict plus the
hands, points, totals and match result. Choices where a scenario leaves the log-level behaviour open are in
tests/SCENARIO_NOTES.md.
"""

from __future__ import annotations

import json

import pytest

import referee
from tests.scenario_kit import (
    MAYBE,
    Game,
    basic_points,
    cards,
    natural,
    quick_win,
    r500_hand_points,
)

SCEN: dict = {}


def scenario(sid: str):
    def deco(fn):
        assert sid not in SCEN, sid
        SCEN[sid] = fn
        return fn

    return deco


SECTIONS = {"A": 10, "B": 18, "C": 14, "D": 18, "E": 15, "F": 23, "G": 15, "H": 8, "I": 8}
ALL_IDS = [f"{s}{i:02d}" for s, k in SECTIONS.items() for i in range(1, k + 1)]

@pytest.mark.parametrize("sid", ALL_IDS)
def test_scenario(sid):
    assert sid in SCEN, f"scenario {sid} has no test yet"
    SCEN[sid]()


def test_every_scenario_is_covered():
    assert len(ALL_IDS) == 129
    assert sorted(SCEN) == sorted(ALL_IDS)


HIT = ("hand_over", "no_hand_in_progress")  # a play after the hand ended
OUT_OF_TURN = ("not_your_turn",)


def only_hand(g: Game) -> dict:
    hands = g.result()["hands"]
    assert len(hands) == 1, hands
    return hands[0]


def no_hand_listed(g: Game, upto: int | None = None) -> None:
    assert g.result(upto)["hands"] == [], "the hand must not be listed (not ended, or a reveal is missing)"


def stock_size_check(rules: str, n: int, expected: int, options: dict | None = None) -> None:
    """The stock holds exactly `expected` cards after the deal: it runs out on the expected-th draw.

    One card before the end the old upcard is still on the discard pile (a stock draw naming it is refused);
    after the expected-th draw the Basic presets recycle the discard pile (the old upcard can then be drawn
    from the stock), and Rummy 500 lets the player to move end the hand (R500-10)."""
    g = Game(rules, n, options)
    g.deal()
    up = g.pile[0]
    g.cycle(expected - 1)
    assert g.stock_count() == 1  # the kit's own count (it knows the deck)
    if rules == "rummy500":
        g.end_hand("stock_empty", bad="end_hand_not_allowed")
    else:
        g.draw(g.turn, up, bad=True)
    g.idle()
    if rules == "rummy500":
        g.draw(g.turn, bad="stock_empty", show=False)
        g.end_hand("stock_empty")
        g.check()
        assert only_hand(g)["result"] == "stock_empty"
    else:
        g.draw(g.turn, up)
        g.check()
        no_hand_listed(g)


def setup_refused(setup: dict) -> bool:
    """A bad `match` line: the log cannot be replayed (contract: exit status 2)."""
    try:
        referee.replay_lines([json.dumps(setup)])
    except Exception:  # noqa: BLE001 - any refusal of the first line will do
        return True
    return False


# =====================================================================================================
# A. Setup, deal and turn order
# =====================================================================================================


@scenario("A01")
def _a01():
    g = Game("basic", 2)
    g.deal(sizes={"P1": 7, "P2": 7}, bad="wrong_deal_size")
    g.deal(sizes={"P1": 10, "P2": 9}, bad="wrong_deal_size")
    g.deal()
    g.check()
    stock_size_check("basic", 2, 31)


@scenario("A02")
def _a02():
    g = Game("basic", 3)
    g.deal(sizes={"P1": 10, "P2": 10, "P3": 10}, bad="wrong_deal_size")
    g.deal()
    g.check()
    stock_size_check("basic", 3, 30)
    g = Game("basic", 4)
    g.deal(sizes={p: 10 for p in g.players}, bad="wrong_deal_size")
    g.deal()
    g.check()
    stock_size_check("basic", 4, 23)


@scenario("A03")
def _a03():
    assert setup_refused({"type": "match", "rules": "solitaired", "players": ["P1", "P2", "P3"]})
    assert setup_refused({"type": "match", "rules": "solitaired", "players": ["P1", "P2", "P3", "P4", "P5"]})
    with pytest.raises(referee.SetupError):
        referee.Match({"type": "match", "rules": "solitaired", "players": ["P1", "P2", "P3"]})
    g = Game("solitaired", 4)
    g.deal(sizes={p: 6 for p in g.players}, bad="wrong_deal_size")
    g.deal()
    g.check()
    stock_size_check("solitaired", 4, 23)


@scenario("A04")
def _a04():
    g = Game("classic", 6)
    g.deal(sizes={p: 7 for p in g.players}, bad="wrong_deal_size")
    g.deal()
    g.check()
    stock_size_check("classic", 6, 15)
    g = Game("classic", 5)
    g.deal(sizes={p: 7 for p in g.players}, bad="wrong_deal_size")
    g.deal()
    g.check()
    stock_size_check("classic", 5, 21)


@scenario("A05")
def _a05():
    g = Game("rummy500", 2)
    g.deal(sizes={"P1": 10, "P2": 10}, bad="wrong_deal_size")
    g.deal(hands={"P1": ["JK"], "P2": ["JK"]})
    g.check()
    stock_size_check("rummy500", 2, 27)
    g = Game("rummy500", 2, {"jokers_per_deck": 0})
    g.deal(hands={"P1": ["JK"]}, bad=True)  # no joker in this deck
    g.deal()
    g.check()
    stock_size_check("rummy500", 2, 25, {"jokers_per_deck": 0})


@scenario("A06")
def _a06():
    g = Game("rummy500", 6)
    g.deal(hands={"P1": ["7S"], "P2": ["7S"], "P3": ["7S"]}, bad="duplicate_card")  # three 7S
    g.deal(hands={"P1": ["7S", "JK", "JK"], "P2": ["7S", "JK", "JK"]})  # two decks: two 7S, four jokers
    g.draw("P1", "7S", bad="duplicate_card")  # a third physical 7S
    g.draw("P1", "JK", bad="duplicate_card")  # a fifth joker
    g.draw("P1")
    g.check()
    stock_size_check("rummy500", 6, 65)


@scenario("A07")
def _a07():
    stock_size_check("rummy500", 5, 72)  # default (Pagat): 2 decks from 5 players
    stock_size_check("rummy500", 5, 18, {"decks": 1})  # seed-strict: 1 deck
    g = Game("rummy500", 5)
    g.deal(hands={"P1": ["7S"], "P2": ["7S"]})
    g.check()
    g = Game("rummy500", 5, {"decks": 1})
    g.deal(hands={"P1": ["7S"], "P2": ["7S"]}, bad="duplicate_card")
    g.deal()
    g.check()


@scenario("A08")
def _a08():
    for rules in ("solitaired", "basic", "classic", "rummy500"):
        g = Game(rules, 4)
        g.deal("P2")
        g.draw("P2", bad=OUT_OF_TURN)
        g.draw("P1", bad=OUT_OF_TURN)
        g.draw("P4", bad=OUT_OF_TURN)
        g.draw("P3")
        g.check()


@scenario("A09")
def _a09():
    g = Game("solitaired", 4)
    quick_win(g, "P1", "P3")
    g.deal("P3", bad="wrong_dealer")
    g.deal("P1", bad="wrong_dealer")
    g.deal("P2")
    g.draw("P4", bad=OUT_OF_TURN)
    while not g.over:  # quiet turns until the second exhaustion of the stock: impasse
        g.idle()
    g.deal("P2", bad="wrong_dealer")
    g.deal("P4", bad="wrong_dealer")
    g.deal("P3")
    g.draw("P3", bad=OUT_OF_TURN)
    g.draw("P4")
    res = g.check()
    assert [h["dealer"] for h in res["hands"]] == ["P1", "P2"]
    assert res["hands"][1]["result"] == "stalemate"
    assert res["hands"][1]["winner"] is None
    assert set(res["hands"][1]["points"].values()) == {0}


@scenario("A10")
def _a10():
    g = Game("classic", 2)
    pts = quick_win(g, "P1", "P1")
    g.deal("P1", bad="wrong_dealer")
    g.deal("P2")
    res = g.check()
    assert res["hands"][0]["winner"] == "P1"
    assert res["hands"][0]["points"] == {"P1": pts, "P2": 0}

    g = Game("classic", 2, {"dealer_rotation": "winner_deals_2p"})
    quick_win(g, "P1", "P1")
    g.deal("P2", bad="wrong_dealer")
    g.deal("P1")
    res = g.check()
    assert res["hands"][0]["winner"] == "P1"


# =====================================================================================================
# B. Meld validity
# =====================================================================================================


def meld_game(rules: str, n: int, hand, options: dict | None = None, hidden: bool = False) -> Game:
    """P1 (first to play) holds `hand` and has drawn: ready to meld."""
    g = Game(rules, n, options)
    g.deal(hands={"P1": cards(hand)}, hidden=hidden)
    g.draw("P1")
    return g


@scenario("B01")
def _b01():
    g = meld_game("basic", 3, "AS 2S 3S")
    g.meld("P1", "AS 2S 3S")
    g.check()


@scenario("B02")
def _b02():
    for rules in ("basic", "solitaired"):
        g = meld_game(rules, 4, "QS KS AS")
        g.meld("P1", "QS KS AS", bad="invalid_meld")
        g.meld("P1", "AS QS KS", bad="invalid_meld")
        g.check()


@scenario("B03")
def _b03():
    g = meld_game("basic", 3, "KS AS 2S")
    g.meld("P1", "KS AS 2S", bad="invalid_meld")
    g.check()


@scenario("B04")
def _b04():
    g = meld_game("classic", 3, "QS KS AS 2S 3S", {"ace_mode": "high_or_low"})
    g.meld("P1", "KS AS 2S", bad="invalid_meld")
    high = g.copy()
    high.meld("P1", "QS KS AS")
    high.check()
    g.meld("P1", "AS 2S 3S")
    g.check()
    g = meld_game("classic", 3, "QS KS AS")
    g.meld("P1", "QS KS AS", bad="invalid_meld")
    g.check()


@scenario("B05")
def _b05():
    g = meld_game("rummy500", 3, "JH QH KH AH 2H")
    g.meld("P1", "KH AH 2H", bad="invalid_meld")
    g2 = g.copy()
    g.meld("P1", "QH KH AH")
    g.check()
    g2.meld("P1", "JH QH KH AH")
    g2.check()


@scenario("B06")
def _b06():
    for rules, n in (("basic", 3), ("solitaired", 4), ("classic", 3), ("rummy500", 3)):
        for hidden in (False, True):
            g = meld_game(rules, n, "4H 4S", hidden=hidden)
            g.meld("P1", "4H 4H 4S", bad="duplicate_card")
            g.check()


@scenario("B07")
def _b07():
    g = meld_game("rummy500", 6, "5D 5D 5H")
    g.meld("P1", "5D 5D 5H", bad="invalid_meld")
    g.check()


@scenario("B08")
def _b08():
    g = meld_game("rummy500", 6, "5D 5H 5S 5C 5D")
    g.meld("P1", "5D 5H 5S 5C")
    g.lay("P1", "5D", meld=1, bad="invalid_layoff")
    g.check()


@scenario("B09")
def _b09():
    g = Game("rummy500", 6)
    g.deal(hands={"P1": cards("5S 6S 7S"), "P2": cards("5S 6S 7S 8S")}, reserve=["8S"])
    x = g.stock_card()
    g.draw("P1", x)
    g.meld("P1", "5S 6S 7S")
    g.discard("P1", x)
    y = g.stock_card()
    g.draw("P2", y)
    g.meld("P2", "5S 6S 7S")
    g.lay("P2", "8S", bad="ambiguous_layoff")  # two separate melds can take it
    g.lay("P2", "8S", meld=2)
    g.discard("P2", y)
    g.check()


@scenario("B10")
def _b10():
    for rules, n in (("basic", 3), ("solitaired", 4), ("classic", 3)):
        g = meld_game(rules, n, "8S 9S JS 9H 10S 9D")
        g.meld("P1", "8S 9S JS", bad="invalid_meld")
        g.meld("P1", "8S 9H 10S", bad="invalid_meld")
        g.meld("P1", "9H 9D", bad="invalid_meld")
        g.check()


@scenario("B11")
def _b11():
    g = meld_game("solitaired", 4, "QC QD QH 7C 7D 7H 7S")
    g.meld("P1", "QC QD QH")
    g.meld("P1", "7C 7D 7H 7S")
    g.check()


@scenario("B12")
def _b12():
    g = meld_game("basic", 4, "10D JD QD KD")
    g.meld("P1", "10D JD QD KD")
    g.check()
    # The 13-card A..K run, built by lay-offs (no hand can hold 13 cards at once in Basic).
    g = Game("basic", 4)
    g.deal(hands={"P1": cards("5D 6D 7D 8D 9D 10D"), "P2": cards("2D 3D 4D"), "P3": cards("JD QD KD"),
                  "P4": ["AD"]})
    x = g.stock_card()
    g.draw("P1", x)
    g.meld("P1", "5D 6D 7D 8D 9D 10D")
    g.discard("P1", x)
    for p, lay in (("P2", "2D 3D 4D"), ("P3", "JD QD KD"), ("P4", "AD")):
        x = g.stock_card()
        g.draw(p, x)
        g.lay(p, lay, meld=1)
        g.discard(p, x)
    g.check()
    assert sorted(g.table[0]) == sorted(r + "D" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split())


@scenario("B13")
def _b13():
    g = meld_game("rummy500", 3, "7S JK 9S")
    g.meld("P1", ["7S", "JK", "9S"], bad="joker_undeclared")
    g.meld("P1", ["7S", "JK=8H", "9S"], bad="invalid_meld")
    g.meld("P1", ["7S", "JK=8S", "9S"])
    g.check()


@scenario("B14")
def _b14():
    g = meld_game("rummy500", 6, "9C 9D JK")
    g.meld("P1", ["9C", "9D", "JK=9D"], bad="invalid_meld")
    g.meld("P1", ["9C", "9D", "JK=9S"])
    g.check()


@scenario("B15")
def _b15():
    g = meld_game("rummy500", 6, "JK JK JK 7S")
    g.meld("P1", ["JK=8C", "JK=9C", "JK=10C"], bad="invalid_meld")
    g.meld("P1", ["7S", "JK=8S", "JK=9S"])
    g.check()


@scenario("B16")
def _b16():
    spades = [r + "S" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]
    g = Game("rummy500", 2, {"decks": 2})
    g.deal(hands={"P1": spades}, reserve=["AS"])
    g.draw("P1", "AS")
    g.meld("P1", spades + ["AS"], bad="invalid_meld")  # A..K..A: the ace cannot be low and high
    g.meld("P1", spades[1:] + ["AS"])  # 2..K A (13 cards, ace high) is the longest run
    g.check()


@scenario("B17")
def _b17():
    for rules in ("basic", "classic", "rummy500"):
        g = Game(rules, 3)
        g.deal(hands={"P1": cards("7H 8H 9H"), "P2": ["7C"]})
        x = g.stock_card()
        g.draw("P1", x)
        g.meld("P1", "7H 8H 9H")
        g.discard("P1", x)
        g.draw("P2")
        g.lay("P2", "7C", meld=1, bad="invalid_layoff")
        g.lay("P2", "7C", bad=("invalid_layoff", "no_such_meld"))
        g.check()


@scenario("B18")
def _b18():
    g = Game("rummy500", 3)
    g.deal(hands={"P1": ["7S", "JK", "9S"], "P2": ["8S", "10S"]})
    x = g.stock_card()
    g.draw("P1", x)
    g.meld("P1", ["7S", "JK=8S", "9S"])
    g.discard("P1", x)
    g.draw("P2")
    g.lay("P2", "8S", meld=1, bad="invalid_layoff")  # the 8S place is taken by the joker, which stays
    g.meld("P2", ["8S", "JK=8S", "9S"], bad=True)  # taking the joker back is not an event: table cards
    g.lay("P2", "10S", meld=1)
    g.check()
