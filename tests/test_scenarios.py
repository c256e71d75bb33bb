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
    assert_hidden_same,
    assert_same_outcome,
    basic_points,
    cards,
    cli_replay,
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


def agreed_end_twin(g: Game) -> None:
    """Rummy 500: end the hand here by agreement (SD-3, scored normally); the hidden-hand replay of the same
    game must score it the same (deep pickups, calls and lay-offs included)."""
    f = g.copy()
    f.end_hand("stalemate")
    f.check()
    assert len(f.result()["hands"]) == 1
    assert_same_outcome(f)


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
    rc, _ = cli_replay([json.dumps({"type": "match", "rules": "solitaired", "players": ["P1", "P2", "P3"]})])
    assert rc == 2  # contract: the first line is not a valid match
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
        assert_hidden_same(g)


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
    assert [h["number"] for h in res["hands"]] == [1, 2]
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
    # The contract's other card spellings (suit symbols, lower case) name the same cards.
    g = meld_game("basic", 3, "AS 2S 3S")
    g.meld("P1", ["1S", "2S", "3S"], bad=("bad_card", "unknown_card"))  # not a spelling of the contract
    g.meld("P1", ["A♠", "2s", "3♠"])
    g.check()


@scenario("B02")
def _b02():
    for rules in ("basic", "solitaired"):
        g = meld_game(rules, 4, "QS KS AS")
        g.meld("P1", "QS KS AS", bad="invalid_meld")
        g.meld("P1", "AS QS KS", bad="invalid_meld")
        g.check()
        assert_hidden_same(g)


@scenario("B03")
def _b03():
    g = meld_game("basic", 3, "KS AS 2S")
    g.meld("P1", "KS AS 2S", bad="invalid_meld")
    g.check()
    assert_hidden_same(g)


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
    # The same with a joker standing for the ace: high is fine, round the corner is not.
    g = meld_game("rummy500", 3, "QH KH JK 2H")
    g.meld("P1", ["KH", "JK=AH", "2H"], bad="invalid_meld")
    g.meld("P1", ["QH", "KH", "JK=AH"])
    g.check()


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
        assert_hidden_same(g)


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
    assert_hidden_same(g)
    g = meld_game("basic", 4, "10D JD QD KD")
    g.meld("P1", ["T♦", "jd", "Q♦", "KD"])
    g.check()
    assert_hidden_same(g)
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
    assert_hidden_same(g)
    assert sorted(g.table[0]) == sorted(r + "D" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split())


@scenario("B13")
def _b13():
    g = meld_game("rummy500", 3, "7S JK 9S JK")
    g.meld("P1", ["7S", "JK", "9S"], bad="joker_undeclared")
    g.meld("P1", ["7S", "JK=8H", "9S"], bad="invalid_meld")
    g.meld("P1", ["7S", "JK=8S", "9S"])
    g.lay("P1", ["JK"], meld=1, bad="joker_undeclared")  # a joker laid off needs its declaration too
    g.lay("P1", ["JK=8S"], meld=1, bad="invalid_layoff")
    g.lay("P1", ["JK=10S"], meld=1)
    g.check()
    assert_hidden_same(g)


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
        assert_hidden_same(g)


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


# =====================================================================================================
# C. Lay-off permission and mechanics
# =====================================================================================================


def turn(g: Game, p: str, *plays, discard: str | None = None, draw: str | None = None) -> None:
    """One accepted turn: draw (a boring stock card, or `draw`), the plays, then discard the drawn card
    (or `discard`). A play is ("meld", cards) or ("lay", cards, meld_number)."""
    x = draw or g.stock_card()
    g.draw(p, x)
    for play in plays:
        if play[0] == "meld":
            g.meld(p, play[1])
        else:
            g.lay(p, play[1], meld=play[2] if len(play) > 2 else None)
    if not g.over and g.hands[p]:
        g.discard(p, discard or x)


@scenario("C01")
def _c01():
    g = Game("solitaired", 4)
    g.deal(hands={"P1": cards("9H 10H JH"), "P2": ["8H"]})
    turn(g, "P1", ("meld", "9H 10H JH"))
    g.draw("P2")
    g.lay("P2", "8H", meld=1, bad="layoff_needs_own_meld")
    g.check()
    assert_hidden_same(g)


@scenario("C02")
def _c02():
    g = Game("solitaired", 4)
    g.deal(hands={"P1": cards("9H 10H JH"), "P2": cards("8H 3C 3D 3H")})
    turn(g, "P1", ("meld", "9H 10H JH"))
    turn(g, "P2", ("meld", "3C 3D 3H"), ("lay", "8H", 1))
    g.check()
    assert_hidden_same(g)


@scenario("C03")
def _c03():
    g = Game("solitaired", 4)
    g.deal("P4", hands={"P2": cards("3C 3D 3H")})
    g.idle("P1")
    turn(g, "P2", ("meld", "3C 3D 3H"))
    g.end_hand("stalemate")  # SD-3: agreed, void
    g.deal("P1", hands={"P3": cards("9H 10H JH"), "P2": ["8H"]})
    g.idle("P2")
    turn(g, "P3", ("meld", "9H 10H JH"))
    g.idle("P4")
    g.idle("P1")
    g.draw("P2")
    g.lay("P2", "8H", meld=1, bad="layoff_needs_own_meld")  # has_melded resets at every deal
    res = g.check()
    assert res["hands"][0]["result"] == "stalemate"


@scenario("C04")
def _c04():
    g = Game("solitaired", 4)
    g.deal(hands={"P1": cards("9H 10H JH"), "P2": cards("3C 3D 3H 8H 3S QH")})
    turn(g, "P1", ("meld", "9H 10H JH"))
    turn(g, "P2", ("meld", "3C 3D 3H"))
    for p in ("P3", "P4", "P1"):
        g.idle(p)
    turn(g, "P2", ("lay", "8H", 1), ("lay", "3S", 2), ("lay", "QH", 1))
    g.check()
    assert_hidden_same(g)
    assert sorted(g.table[0]) == sorted(cards("8H 9H 10H JH QH"))


@scenario("C05")
def _c05():
    g = Game("basic", 3)
    g.deal(hands={"P1": cards("9H 10H JH"), "P2": ["8H"]})
    turn(g, "P1", ("meld", "9H 10H JH"))
    turn(g, "P2", ("lay", "8H", 1))
    g.check()


@scenario("C06")
def _c06():
    g = Game("classic", 3)
    g.deal(hands={"P1": cards("9H 10H JH"), "P2": ["8H"]})
    turn(g, "P1", ("meld", "9H 10H JH"))
    turn(g, "P2", ("lay", "8H", 1))
    g.check()
    meld = g.public_state()["current"]["melds"][0]
    placed = {natural(c): who for c, who in zip(meld["cards"], meld["played_by"], strict=True)}
    assert placed == {"8H": "P2", "9H": "P1", "10H": "P1", "JH": "P1"}


@scenario("C07")
def _c07():
    g = Game("classic", 3)
    g.deal(hands={"P1": cards("8H 9H 10H"), "P2": cards("6H 7H")})
    turn(g, "P1", ("meld", "8H 9H 10H"))
    g.draw("P2")
    g.lay("P2", "6H", meld=1, bad="invalid_layoff")
    f = g.copy()
    f.lay("P2", "7H 6H", meld=1)  # the batch is judged by the final meld, whatever the order
    f.check()
    assert_hidden_same(f)
    g.lay("P2", "6H 7H", meld=1)
    g.check()
    assert_hidden_same(g)
    g = Game("solitaired", 4)
    g.deal(hands={"P1": cards("8H 9H 10H 7H 6H")})
    x = g.stock_card()
    g.draw("P1", x)
    g.meld("P1", "8H 9H 10H")
    g.lay("P1", "6H", meld=1, bad="invalid_layoff")
    g.lay("P1", "7H", meld=1)
    g.lay("P1", "6H", meld=1)
    g.discard("P1", x)
    g.check()
    assert_hidden_same(g)


@scenario("C08")
def _c08():
    for rules in ("basic", "classic"):
        g = Game(rules, 3)
        g.deal(hands={"P1": cards("JS QS KS"), "P2": cards("2S 3S 4S"), "P3": ["AS"]})
        turn(g, "P1", ("meld", "JS QS KS"))
        turn(g, "P2", ("meld", "2S 3S 4S"))
        g.draw("P3")
        g.lay("P3", "AS", meld=1, bad="invalid_layoff")
        g.lay("P3", "AS")  # the one meld that can take it: 2S 3S 4S
        g.check()
        assert_hidden_same(g)
        melds = g.public_state()["current"]["melds"]
        assert sorted(melds[1]["cards"]) == sorted(cards("2S 3S 4S AS"))


@scenario("C09")
def _c09():
    g = Game("basic", 3)
    g.deal(hands={"P1": cards("2C 2H 2D 2S"), "P2": cards("3S 4S 5S"), "P3": ["AS"]})
    turn(g, "P1", ("meld", "2C 2H 2D 2S"))
    turn(g, "P2", ("meld", "3S 4S 5S"))
    g.draw("P3")
    g.lay("P3", "2S AS", meld=2, bad=("card_not_in_hand", "duplicate_card"))  # moving the table 2S
    g.lay("P3", "AS", meld=2, bad="invalid_layoff")
    g.lay("P3", "AS", meld=1, bad="invalid_layoff")
    g.check()
    assert_hidden_same(g)


@scenario("C10")
def _c10():
    g = Game("classic", 3)
    g.deal(hands={"P1": cards("7C 7D 7H"), "P2": ["7S"]})
    turn(g, "P1", ("meld", "7C 7D 7H"))
    turn(g, "P2", ("lay", "7S", 1))
    g.draw("P3")
    g.lay("P3", "7S", meld=1, bad=("duplicate_card", "card_not_in_hand"))  # no fifth 7 in one deck
    g.check()


def r500_three(hands: dict, reserve=()) -> Game:
    g = Game("rummy500", 3)
    g.deal("P3", hands=hands, reserve=reserve)
    return g


@scenario("C11")
def _c11():
    g = r500_three({"P1": cards("9H 10H JH 2C 3C 4C 5C"), "P2": cards("8H KS QD 2D 3S 4D 6S"),
                    "P3": cards("KD QS 2H 3D 4S 6D 7C")})
    turn(g, "P1", ("meld", "9H 10H JH"))
    turn(g, "P2", ("lay", "8H", 1))
    g.idle("P3")
    turn(g, "P1", ("meld", "2C 3C 4C 5C"))
    res = g.check()
    h = only_hand(g)
    assert h["result"] == "out"
    # P1: 9+10+10 + 2+3+4+5 = 43; P2: 8 (laid off on P1's run) - (10+10+2+3+4+6) = -27; P3: -42
    assert h["points"] == {"P1": 43, "P2": -27, "P3": -42}
    assert res["totals"] == {"P1": 43, "P2": -27, "P3": -42}
    assert_same_outcome(g)


@scenario("C12")
def _c12():
    g = r500_three({"P1": cards("2D 3D 4D 8H 9H 10H JH"), "P2": cards("AD KS QS 9C 8C 7H 6H"),
                    "P3": cards("AC AH AS")})
    turn(g, "P1", ("meld", "2D 3D 4D"))
    g.idle("P2")
    turn(g, "P3", ("meld", "AC AH AS"))
    g.idle("P1")
    y = g.stock_card()
    g.draw("P2", y)
    g.lay("P2", "AD", bad="ambiguous_layoff")  # the camera cannot tell: the referee asks
    for meld, value in ((1, 1), (2, 15)):
        f = g.copy()
        f.lay("P2", "AD", meld=meld)
        f.discard("P2", y)
        f.idle("P3")
        turn(f, "P1", ("meld", "8H 9H 10H JH"))  # P1 goes out: the hand is scored
        f.check()
        # P2's hand KS QS 9C 8C 7H 6H = 50
        assert only_hand(f)["points"]["P2"] == value - 50
        assert_same_outcome(f)


@scenario("C13")
def _c13():
    g = r500_three({"P1": cards("9H 10H JH"), "P2": ["8H"]})
    turn(g, "P1", ("meld", "9H 10H JH"))
    turn(g, "P2", ("lay", "8H", 1))
    g.check()


@scenario("C14")
def _c14():
    for rules, n in (("solitaired", 4), ("basic", 3), ("classic", 3), ("rummy500", 3)):
        g = Game(rules, n)
        g.deal(hands={"P1": cards("4S 5S 6S 7S")})
        turn(g, "P1", ("meld", "4S 5S 6S"), ("lay", "7S", 1))
        g.check()
        assert_hidden_same(g)


# =====================================================================================================
# D. Draw and discard
# =====================================================================================================

BASIC3 = (("basic", 3), ("solitaired", 4), ("classic", 3))


@scenario("D01")
def _d01():
    for rules, n in BASIC3:
        g = Game(rules, n)
        g.deal(upcard="5D")
        g.take("P1")
        g.discard("P1", "5D", bad="discard_just_taken")
        g.check()
        assert_hidden_same(g)


@scenario("D02")
def _d02():
    for rules, n in BASIC3:
        g = Game(rules, n)
        g.deal(upcard="5D")
        g.take("P1")
        g.discard("P1", g.hands["P1"][0])
        g.idle_until("P1")
        x = g.stock_card()
        g.draw("P1", x)
        g.discard("P1", "5D")
        g.check()
        assert_hidden_same(g)


@scenario("D03")
def _d03():
    for rules, n in BASIC3 + (("rummy500", 3),):
        g = Game(rules, n)
        g.deal(reserve=["5D"])
        g.draw("P1", "5D")
        g.discard("P1", "5D")
        g.check()


def one_card_left(rules: str, last: str, table_runs=(), reserve=()) -> Game:
    """4 players; P1 melds a 6-card run (2H..7H) on the first turn and keeps only `last`.
    `table_runs`: melds P2 puts down on its first turn. Then P3, P4 play quiet turns."""
    g = Game(rules, 4)
    p2 = [c for r in table_runs for c in cards(r)]
    g.deal(hands={"P1": cards("2H 3H 4H 5H 6H 7H") + [last], "P2": p2}, reserve=reserve)
    turn(g, "P1", ("meld", "2H 3H 4H 5H 6H 7H"))
    turn(g, "P2", *[("meld", r) for r in table_runs])
    g.idle("P3")
    return g


@scenario("D04")
def _d04():
    g = one_card_left("basic", "9C", reserve=["QD"])
    g.idle("P4", "QD")
    g.take("P1")
    g.discard("P1", "QD", bad="discard_just_taken")
    g.discard("P1", "9C")
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)
    assert g.hands["P1"] == ["QD"]


@scenario("D05")
def _d05():
    g = one_card_left("basic", "9C", table_runs=["6C 7C 8C"], reserve=["QD"])
    g.idle("P4", "QD")
    g.take("P1")
    g.lay("P1", "9C", meld=2, bad="no_legal_discard")  # would leave only the taken QD
    g.discard("P1", "QD", bad="discard_just_taken")
    g.discard("P1", "9C")
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


@scenario("D06")
def _d06():
    for rules, n in BASIC3 + (("rummy500", 3),):
        g = Game(rules, n)
        g.deal()
        g.draw("P1")
        g.draw("P1", bad="already_drawn")
        g.take("P1", bad="already_drawn")
        g.check()
        assert_hidden_same(g)


@scenario("D07")
def _d07():
    for rules, n in BASIC3:
        g = Game(rules, n)
        g.deal()
        up = g.pile[0]
        g.idle("P1")
        g.take("P2", up, bad="deep_pickup_not_allowed")
        g.take("P2")
        g.check()
        assert_hidden_same(g)


@scenario("D08")
def _d08():
    for rules, n in BASIC3 + (("rummy500", 3),):
        g = Game(rules, n)
        g.deal(hands={"P1": cards("4S 5S 6S")})
        g.meld("P1", "4S 5S 6S", bad="must_draw_first")
        g.lay("P1", "4S", meld=1, bad=("must_draw_first", "no_such_meld"))
        g.discard("P1", "4S", bad="must_draw_first")
        g.draw("P1")
        g.meld("P1", "4S 5S 6S")
        g.check()
        assert_hidden_same(g)


@scenario("D09")
def _d09():
    for rules, n in BASIC3 + (("rummy500", 3),):
        g = Game(rules, n)
        g.deal()
        x = g.stock_card()
        g.draw("P1", x)
        g.draw("P2", bad=("must_discard", "not_your_turn"))
        g.discard("P1", x)
        g.draw("P2")
        g.check()
        assert_hidden_same(g)


def r500_pile(n: int, pile: list[str], hands: dict, dealer: str | None = None) -> Game:
    """Rummy 500: the discard pile is `pile` (bottom -> top) when the player after the last discarder moves.
    The upcard is pile[0]; the next players each draw the next pile card from the stock and discard it."""
    g = Game("rummy500", n)
    dealer = dealer or g.players[(n - 1 - len(pile)) % n]
    g.deal(dealer, hands=hands, upcard=pile[0], reserve=pile[1:])
    for c in pile[1:]:
        g.idle(g.turn, c)
    return g


@scenario("D10")
def _d10():
    g = r500_pile(4, cards("8H KC 3S QD"), {"P4": cards("8S 8D")})
    assert g.turn == "P4"
    g.take("P4", "8H")
    g.meld("P4", "8S 8H 8D")
    for other in ("KC", "3S"):
        f = g.copy()
        f.discard("P4", other)
        f.check()
    g.discard("P4", "QD")  # several cards taken: one of them may go back at once
    g.check()
    assert {"KC", "3S"} <= set(g.hands["P4"])
    agreed_end_twin(g)


@scenario("D11")
def _d11():
    g = r500_pile(4, cards("8H KC 3S QD"), {"P4": cards("8S")})
    g.take("P4", "8H", bad=("deep_card_unusable", "deep_pickup_not_allowed"))
    g.take("P4")  # the pile is unchanged: QD is still the top card
    x = g.hands["P4"][0]
    g.discard("P4", x)
    g.check()
    # The same with a joker as the deep card: no table meld, and no two natural cards among P4's hand and
    # the taken cards that a joker could complete (no pair, no two cards of a suit within two ranks).
    g = r500_pile(4, cards("JK KC 3S QD"), {"P4": cards("5H 7D 9S JH 2C 6S 10C")})
    g.take("P4", "JK", bad=("deep_card_unusable", "deep_pickup_not_allowed"))
    g.take("P4")
    g.discard("P4", "5H")
    g.check()
    # ... but with a pair in hand the joker can be used: accepted.
    g = r500_pile(4, cards("JK KC 3S QD"), {"P4": cards("5H 5D 9S JH 2C 6S 10C")})
    g.take("P4", "JK")
    g.meld("P4", ["5H", "5D", "JK=5S"])
    g.discard("P4", "KC")
    g.check()


@scenario("D12")
def _d12():
    g = r500_pile(4, cards("8H KC 3S QD"), {"P4": cards("KH KD 4S 5S")})
    g.take("P4", "9C", bad=("card_not_in_discard", "bad_event"))
    g.take("P4", "KC")  # the deepest card named: KC 3S QD all come along (taking KC alone is impossible)
    g.meld("P4", "KC KH KD")
    g.meld("P4", "3S 4S 5S")  # 3S came with the pickup
    g.discard("P4", "QD")
    g.check()
    assert g.pile == ["8H", "QD"]
    agreed_end_twin(g)


@scenario("D13")
def _d13():
    hands = {"P4": cards("4S 5S 6S"), "P3": cards("KD 9H 5C QC 8D 2H JC")}
    g = Game("rummy500", 4)
    g.deal("P3", hands=hands, upcard="7C", reserve=["3S", "QD"])
    turn(g, "P4", ("meld", "4S 5S 6S"))
    g.idle("P1", "3S")
    g.idle("P2", "QD")
    base = g.copy()
    g.take("P3", "3S")
    g.lay("P3", "3S", meld=1)
    g.discard("P3", "KD")
    g.check()
    # With deep_card_use=new_meld_only the 3S cannot be used (P3 cannot make a new meld with it).
    f = Game("rummy500", 4, {"deep_card_use": "new_meld_only"})
    f.lines[1:] = base.lines[1:]
    f.expect = dict(base.expect)
    take = f.take("P3", "3S", bad=MAYBE)
    lay = f.lay("P3", "3S", meld=1, bad=MAYBE)
    f.check()
    assert not f.entry(take)["ok"] or not f.entry(lay)["ok"], "new_meld_only: the deep 3S may not be laid off"


@scenario("D14")
def _d14():
    g = Game("rummy500", 4)
    g.deal("P3", hands={"P4": cards("4S 5S 6S")}, upcard="7C", reserve=["3S", "QD"])
    turn(g, "P4", ("meld", "4S 5S 6S"))
    g.idle("P1", "3S")
    g.idle("P2", "QD")
    g.take("P3", "3S")
    f = g.copy()
    g.lay("P3", "3S", meld=1)
    g.discard("P3", "QD")
    g.check()
    assert_hidden_same(g)
    f.discard("P3", "3S", bad="deep_card_unused")
    f.discard("P3", "QD", bad="deep_card_unused")
    f.check()
    assert_hidden_same(f)


@scenario("D15")
def _d15():
    g = Game("rummy500", 3)
    g.deal(upcard="QD", hands={"P1": cards("2C 4H 6S 8D 10C KH 5S")})
    g.take("P1")
    g.discard("P1", "QD", bad="discard_just_taken")
    g.discard("P1", "2C")
    g.check()
    f = Game("rummy500", 3, {"top_discard_must_be_used": True})
    f.deal(upcard="QD", hands={"P1": cards("2C 4H 6S 8D 10C KH 5S")})
    take = f.take("P1", bad=MAYBE)
    disc = f.discard("P1", "2C", bad=MAYBE)
    f.check()
    assert not f.entry(take)["ok"] or not f.entry(disc)["ok"], "the top QD must be used this turn"
    f = Game("rummy500", 3, {"top_discard_must_be_used": True})  # used at once: fine
    f.deal(upcard="QD", hands={"P1": cards("QC QH 6S 8D 10C KH 5S")})
    f.take("P1")
    f.discard("P1", "5S", bad="deep_card_unused")
    f.meld("P1", "QC QD QH")
    f.discard("P1", "5S")
    f.check()


@scenario("D16")
def _d16():
    g = r500_pile(4, cards("5H 9C 6H 7H"), {})
    g.take("P4", "5H")
    g.meld("P4", "5H 6H 7H")
    g.discard("P4", g.hands["P4"][0])
    g.check()
    assert_hidden_same(g)
    assert "9C" in g.hands["P4"]
    agreed_end_twin(g)


@scenario("D17")
def _d17():
    g = r500_pile(3, cards("9D 2C 7S"), {"P3": cards("9S 9H")})
    assert g.turn == "P3"
    g.take("P3", "9D")  # the whole pile: the deep card is the bottom card
    g.meld("P3", "9D 9S 9H")
    g.discard("P3", "2C")
    g.check()
    assert g.pile == ["2C"]
    agreed_end_twin(g)


@scenario("D18")
def _d18():
    g = r500_pile(3, cards("KS 9C 4H"), {"P3": cards("9D JK")})
    g.take("P3", "9C")
    g.meld("P3", ["9C", "9D", "JK=9H"])
    g.discard("P3", "4H")
    g.check()
    agreed_end_twin(g)


# =====================================================================================================
# E. Going out
# =====================================================================================================


def loser_points(g: Game, winner: str, ace15: bool = False) -> int:
    return sum(basic_points(g.hands[p], ace15) for p in g.players if p != winner)


@scenario("E01")
def _e01():
    g = Game("solitaired", 4)
    g.deal(hands={"P1": cards("QC QS 2D 3D 4D 5D 6D")}, reserve=["QH"])
    turn(g, "P1", ("meld", "2D 3D 4D 5D 6D"))
    for p in ("P2", "P3", "P4"):
        g.idle(p)
    g.draw("P1", "QH")
    g.meld("P1", "QC QS QH")  # no discard: the hand ends
    g.draw("P2", bad=HIT)
    res = g.check()
    assert_hidden_same(g)
    h = only_hand(g)
    assert (h["result"], h["winner"], h["going_rummy"]) == ("out", "P1", False)
    assert h["points"] == {"P1": loser_points(g, "P1"), "P2": 0, "P3": 0, "P4": 0}
    assert res["totals"] == h["points"]
    assert_same_outcome(g)


@scenario("E02")
def _e02():
    g = Game("solitaired", 4)
    g.deal(hands={"P1": cards("9H 10H JH"), "P2": cards("9D 2S 3S 4S 5S 6S 7S")}, reserve=["8H"])
    turn(g, "P1", ("meld", "9H 10H JH"))
    turn(g, "P2", ("meld", "2S 3S 4S 5S 6S 7S"))
    for p in ("P3", "P4", "P1"):
        g.idle(p)
    g.draw("P2", "8H")
    g.lay("P2", "8H", meld=1)
    g.discard("P2", "9D")  # the last card: out
    g.check()
    assert_hidden_same(g)
    h = only_hand(g)
    assert (h["result"], h["winner"]) == ("out", "P2")
    assert h["points"]["P2"] == loser_points(g, "P2")
    assert_same_outcome(g)


@scenario("E03")
def _e03():
    g = Game("solitaired", 4)
    g.deal(hands={"P1": cards("6S 7S 8S"), "P2": cards("4S 2D 3D 4D 5D 6D 7D")}, reserve=["5S"])
    turn(g, "P1", ("meld", "6S 7S 8S"))
    turn(g, "P2", ("meld", "2D 3D 4D 5D 6D 7D"))
    for p in ("P3", "P4", "P1"):
        g.idle(p)
    g.draw("P2", "5S")
    g.lay("P2", "4S 5S", meld=1)  # out without a discard
    g.discard("P2", "5S", bad=HIT + ("card_not_in_hand",))
    g.check()
    assert_hidden_same(g)
    h = only_hand(g)
    assert (h["result"], h["winner"]) == ("out", "P2")
    assert h["points"]["P2"] == loser_points(g, "P2")
    assert_same_outcome(g)


E04_P1 = cards("AC 2C 3C 4C 5C 6C 7C 8C 9C KD")


@scenario("E04")
def _e04():
    # Full information: the face-down card is named in the log, so no reveal is needed.
    g = Game("basic", 2)
    g.deal("P2", hands={"P1": E04_P1}, reserve=["10C"])
    g.draw("P1", "10C")
    for m in ("AC 2C 3C", "4C 5C 6C 7C", "8C 9C 10C"):
        g.meld("P1", m)
    g.discard("P1", "KD", face_down=True)
    g.check()
    h = only_hand(g)
    assert (h["result"], h["winner"], h["going_rummy"]) == ("out", "P1", True)
    assert h["points"] == {"P1": 2 * basic_points(g.hands["P2"]), "P2": 0}
    # Hidden hands: the face-down card waits for its reveal (and P2 spreads the hand) before scoring.
    g = Game("basic", 2)
    g.deal("P2", hands={"P1": E04_P1}, reserve=["10C"], hidden=True)
    g.draw("P1", "10C")
    for m in ("AC 2C 3C", "4C 5C 6C 7C", "8C 9C 10C"):
        g.meld("P1", m)
    down = g.discard("P1", "KD", face_down=True, hide=True)
    g.draw("P2", bad=HIT)
    trust = g.copy()
    r2 = g.reveal("P2", g.hands["P2"])
    r1 = g.reveal("P1", ["KD"])
    g.check()
    no_hand_listed(g, down)
    no_hand_listed(g, r2)  # P1's face-down card is not revealed yet
    h = only_hand(g)
    assert (h["result"], h["winner"], h["going_rummy"]) == ("out", "P1", True)
    assert h["points"] == {"P1": 2 * basic_points(g.hands["P2"]), "P2": 0}
    assert r1 == len(g.lines)
    # ... or after a logged "trust" instead of the reveal (engine extension of `reveal`, CGI-4).
    trust.reveal("P2", trust.hands["P2"])
    trust.add({"type": "reveal", "player": "P1", "trust": True})
    trust.check()
    assert only_hand(trust)["points"] == h["points"]


@scenario("E05")
def _e05():
    p1 = cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C")
    g = Game("basic", 2)
    g.deal("P2", hands={"P1": p1}, upcard="5D")
    g.take("P1")
    g.meld("P1", "AC 2C 3C")
    g.meld("P1", "4C 5C 6C 7C")
    g.meld("P1", "8C 9C 10C", bad="no_legal_discard")  # only the taken 5D would be left
    g.discard("P1", "5D", face_down=True, bad=("discard_just_taken", "face_down_not_last"))
    g.discard("P1", "10C")
    g.check()
    no_hand_listed(g)
    # Hidden hands: whatever the referee does first, P1 does not win with the taken 5D face down.
    g = Game("basic", 2)
    g.deal("P2", hands={"P1": p1}, upcard="5D", hidden=True)
    g.take("P1")
    g.meld("P1", "AC 2C 3C")
    g.meld("P1", "4C 5C 6C 7C")
    last = g.meld("P1", "8C 9C 10C", bad=MAYBE)
    down = g.discard("P1", "5D", face_down=True, hide=True, bad=MAYBE)
    rev = g.reveal("P1", ["5D"], bad=MAYBE)
    g.reveal("P2", g.hands["P2"], bad=MAYBE)
    g.check()
    assert not all(g.entry(x)["ok"] for x in (last, down, rev))
    assert all(h["winner"] != "P1" for h in g.result()["hands"])


@scenario("E06")
def _e06():
    for opts, ok in (({}, True), ({"go_out_without_discard": False}, False)):
        g = Game("classic", 4, opts)
        g.deal(hands={"P1": cards("6C 7C 2D 3D 4D 5D 6D")}, reserve=["8C"])
        turn(g, "P1", ("meld", "2D 3D 4D 5D 6D"))
        for p in ("P2", "P3", "P4"):
            g.idle(p)
        g.draw("P1", "8C")
        if ok:
            g.meld("P1", "6C 7C 8C")
            g.check()
            assert_hidden_same(g)
            assert only_hand(g)["winner"] == "P1"
        else:
            g.meld("P1", "6C 7C 8C", bad="final_discard_required")
            g.discard("P1", "8C")
            g.check()
            assert_hidden_same(g)
            no_hand_listed(g)


def r500_out_setup(options: dict | None = None) -> Game:
    """R500 3p: P1 melds 2S..5S on its first turn, keeps 10H JH QH, and draws KH on its second turn."""
    g = Game("rummy500", 3, options)
    g.deal("P3", hands={"P1": cards("10H JH QH 2S 3S 4S 5S")}, reserve=["KH"])
    turn(g, "P1", ("meld", "2S 3S 4S 5S"))
    g.idle("P2")
    g.idle("P3")
    g.draw("P1", "KH")
    return g


@scenario("E07")
def _e07():
    g = r500_out_setup()
    g.meld("P1", "10H JH QH KH")
    g.draw("P2", bad=HIT)
    g.check()
    assert_hidden_same(g)
    h = only_hand(g)
    assert h["result"] == "out"
    assert h["points"]["P1"] == 14 + 40
    assert_same_outcome(g)


@scenario("E08")
def _e08():
    g = r500_out_setup({"floating": True})
    g.meld("P1", "10H JH QH KH")
    g.draw("P2")  # the hand goes on: P1 floats with no card
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


def floating_setup() -> Game:
    """R500 3p, floating: P1 melds 8D 9D 10D, then 2C..6C, and floats. P2 holds 6H 7H 8H and melds it on
    its second turn. Discards after P1 floats are chosen by the caller (P2, P3)."""
    g = Game("rummy500", 3, {"floating": True})
    g.deal("P3", hands={"P1": cards("8D 9D 10D 2C 3C 4C 5C"), "P2": cards("6H 7H 8H")},
           reserve=cards("6C 7D 2S KH JD QS 6S 5H"))
    turn(g, "P1", ("meld", "8D 9D 10D"))
    g.idle("P2")
    return g


def float_p1(g: Game) -> None:
    g.draw("P1", "6C")
    g.meld("P1", "2C 3C 4C 5C 6C")  # no card left: P1 floats


@scenario("E09")
def _e09():
    g = floating_setup()
    g.idle("P3")
    float_p1(g)
    g.idle("P2")
    g.idle("P3")
    g.draw("P1", "6S")
    g.discard("P1", "6S")
    g.draw("P2", bad=HIT)
    g.check()
    assert_hidden_same(g)
    assert only_hand(g)["result"] == "out"
    assert only_hand(g)["points"]["P1"] == 27 + 20
    assert_same_outcome(g)


@scenario("E10")
def _e10():
    g = floating_setup()
    g.idle("P3")
    float_p1(g)
    turn(g, "P2", ("meld", "6H 7H 8H"))
    g.idle("P3")
    g.draw("P1", "5H")
    g.lay("P1", "5H", meld=3)  # floats again
    g.draw("P2")
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


@scenario("E11")
def _e11():
    g = floating_setup()
    g.idle("P3", "7D")
    float_p1(g)
    g.idle("P2", "2S")
    g.idle("P3", "KH")
    g.take("P1", "7D")
    g.lay("P1", "7D", meld=1)
    g.discard("P1", "KH")
    g.draw("P2")  # P1 still holds 2S: play goes on normally
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)
    assert g.hands["P1"] == ["2S"]
    agreed_end_twin(g)


@scenario("E12")
def _e12():
    g = floating_setup()
    g.idle("P3")
    float_p1(g)
    g.idle("P2", "JD")
    g.idle("P3", "QS")
    g.take("P1", "JD")
    g.lay("P1", "JD", meld=1)
    g.discard("P1", "QS")
    g.draw("P2", bad=HIT)
    g.check()
    assert_hidden_same(g)
    assert only_hand(g)["result"] == "out"
    assert only_hand(g)["points"]["P1"] == 27 + 20 + 10
    assert_same_outcome(g)


@scenario("E13")
def _e13():
    g = Game("rummy500", 3, {"final_discard_must_be_unplayable": True})
    g.deal("P3", hands={"P1": cards("9H 2S 3S 4S 5S 6S 7S"), "P2": cards("6H 7H 8H")}, reserve=["5H"])
    turn(g, "P1", ("meld", "2S 3S 4S 5S 6S 7S"))
    turn(g, "P2", ("meld", "6H 7H 8H"))
    g.idle("P3")
    g.draw("P1", "5H")
    g.lay("P1", "5H", meld=2)
    g.discard("P1", "9H", bad="discard_playable")
    g.lay("P1", "9H", meld=2)  # out without a discard
    g.check()
    assert_hidden_same(g)
    # An unplayable last card may be discarded to go out.
    f = Game("rummy500", 3, {"final_discard_must_be_unplayable": True})
    f.deal("P3", hands={"P1": cards("KC 2S 3S 4S 5S 6S 7S"), "P2": cards("6H 7H 8H")}, reserve=["5H"])
    turn(f, "P1", ("meld", "2S 3S 4S 5S 6S 7S"))
    turn(f, "P2", ("meld", "6H 7H 8H"))
    f.idle("P3")
    f.draw("P1", "5H")
    f.lay("P1", "5H", meld=2)
    f.discard("P1", "KC")
    f.check()
    assert_hidden_same(f)
    assert only_hand(f)["result"] == "out"
    assert only_hand(g)["result"] == "out"
    assert only_hand(g)["points"]["P1"] == 27 + 5 + 9  # 2S..7S, and the 5H and 9H laid off
    assert_same_outcome(g)


@scenario("E14")
def _e14():
    g = Game("basic", 3)
    g.deal("P3", hands={"P1": cards("AC 2C 3C 4C 5C 6C 7C"), "P2": cards("4S 5S 6S"), "P3": ["7S"]})
    turn(g, "P1", ("meld", "AC 2C 3C"))
    turn(g, "P2", ("meld", "4S 5S 6S"))
    g.idle("P3")
    turn(g, "P1", ("meld", "4C 5C 6C 7C"))
    assert g.over
    g.lay("P3", "7S", meld=2, bad=HIT)
    g.draw("P3", bad=HIT)
    g.meld("P2", g.hands["P2"][:3], bad=HIT)
    g.check()
    assert_hidden_same(g)
    assert only_hand(g)["winner"] == "P1"


@scenario("E15")
def _e15():
    for rules, n in (("basic", 4), ("solitaired", 4), ("classic", 4), ("rummy500", 3)):
        g = Game(rules, n)
        g.deal(hands={"P1": cards("AC 2C 3C 4C 5C 6C 7C")}, reserve=["8C"])
        turn(g, "P1", ("meld", "AC 2C 3C"), ("meld", "4C 5C 6C 7C"))
        g.check()
        assert_hidden_same(g)
        h = only_hand(g)
        assert h["result"] == "out"
        if rules != "rummy500":
            assert h["winner"] == "P1"


# =====================================================================================================
# F. Scoring (exact arithmetic)
# =====================================================================================================


@scenario("F01")
def _f01():
    g = Game("basic", 3)
    g.deal("P3", hands={"P1": cards("2H 3H 4H 8C 9C 10C JC"), "P2": cards("KC 7D AS 6S 7S 8S 9S"),
                        "P3": cards("5H 5S 5D QH JD QD KD")})
    turn(g, "P1", ("meld", "2H 3H 4H"))
    turn(g, "P2", ("meld", "6S 7S 8S 9S"))
    turn(g, "P3", ("meld", "JD QD KD"))
    turn(g, "P1", ("meld", "8C 9C 10C JC"))
    res = g.check()
    assert g.hands["P2"] == cards("KC 7D AS") and g.hands["P3"] == cards("5H 5S 5D QH")
    h = only_hand(g)
    assert (h["winner"], h["going_rummy"]) == ("P1", False)
    assert h["points"] == {"P1": 43, "P2": 0, "P3": 0}  # 18 + 25
    assert res["totals"] == {"P1": 43, "P2": 0, "P3": 0}
    assert_same_outcome(g)


F02_P1 = cards("KH QH JH 10H 5C 6C 7C 6D 7D KS")
F02_P2 = cards("9S 9D JC 4H 2C AD QS 2S 3S 4S")


def f02_game(p1=F02_P1) -> Game:
    g = Game("basic", 2)
    g.deal("P1", hands={"P1": p1, "P2": F02_P2}, reserve=["8D", "5S"])
    turn(g, "P2", ("meld", "2S 3S 4S"))  # P2 keeps 9S 9D JC 4H 2C AD QS = 45
    return g


def f02_out(g: Game) -> None:
    g.draw("P1", "8D")
    g.meld("P1", "10H JH QH KH")
    g.meld("P1", "5C 6C 7C")
    g.meld("P1", "6D 7D 8D")
    if g.hands["P1"]:
        g.discard("P1", g.hands["P1"][0], face_down=True)


@scenario("F02")
def _f02():
    g = f02_game()
    f02_out(g)
    g.check()
    h = only_hand(g)
    assert (h["winner"], h["going_rummy"]) == ("P1", True)
    assert h["points"] == {"P1": 90, "P2": 0}
    assert_same_outcome(g)


@scenario("F03")
def _f03():
    g = f02_game(p1=["5S"] + F02_P1[:-1])
    turn(g, "P1", ("lay", "5S", 1))  # a lay-off three turns before going out
    for _ in range(2):
        g.idle("P2")
        g.idle("P1")
    g.idle("P2")
    f02_out(g)  # all ten cards melded: out without a discard
    g.check()
    h = only_hand(g)
    assert (h["winner"], h["going_rummy"]) == ("P1", False)
    assert h["points"] == {"P1": 45, "P2": 0}
    assert_same_outcome(g)


@scenario("F04")
def _f04():
    g = f02_game()
    for _ in range(4):  # four earlier turns with discards, no meld, no lay-off
        g.idle("P1")
        g.idle("P2")
    f02_out(g)
    g.check()
    h = only_hand(g)
    assert (h["winner"], h["going_rummy"]) == ("P1", True)
    assert h["points"] == {"P1": 90, "P2": 0}
    assert_same_outcome(g)
    # AMB-10: the winning turn may also lay off (here onto P2's run) and still be going rummy.
    g = f02_game(p1=["5S"] + F02_P1[:-1])
    g.idle("P1")
    g.idle("P2")
    g.draw("P1", "8D")
    g.lay("P1", "5S", meld=1)
    g.meld("P1", "10H JH QH KH")
    g.meld("P1", "5C 6C 7C")
    g.meld("P1", "6D 7D 8D")
    g.check()
    h = only_hand(g)
    assert (h["winner"], h["going_rummy"]) == ("P1", True)
    assert h["points"] == {"P1": 90, "P2": 0}
    assert_same_outcome(g)


@scenario("F05")
def _f05():
    g = Game("solitaired", 4)
    g.deal("P1", hands={"P2": cards("2D 9D 3H 4H 5H 6H 7H"), "P3": cards("KS QS JS 7C 8C 9C 10C"),
                        "P4": cards("AC 8H 9H 10H JH QH KH"), "P1": cards("2S 3S 4S 5S 4D 5D 6D")})
    turn(g, "P2", ("meld", "3H 4H 5H 6H 7H"))
    turn(g, "P3", ("meld", "7C 8C 9C 10C"))
    turn(g, "P4", ("meld", "8H 9H 10H JH QH KH"))
    turn(g, "P1", ("meld", "2S 3S 4S 5S"), ("meld", "4D 5D 6D"))  # first turn, all at once
    g.check()
    h = only_hand(g)
    assert h["winner"] == "P1" and not h["going_rummy"]
    assert h["points"] == {"P1": 42, "P2": 0, "P3": 0, "P4": 0}  # 11 + 30 + 1, no doubling in SOL
    assert_same_outcome(g)


@scenario("F06")
def _f06():
    for opts, expected in (({}, 11), ({"ace_mode": "high_or_low"}, 25)):
        g = Game("classic", 2, opts)
        g.deal("P1", hands={"P2": cards("AC KD 2H 3H 4H 5H 7S 8S 9S 10S"),
                            "P1": cards("2D 3D 4D 6C 7C 8C 9C 10C JC QC")})
        turn(g, "P2", ("meld", "2H 3H 4H 5H"), ("meld", "7S 8S 9S 10S"))
        turn(g, "P1", ("meld", "2D 3D 4D"))
        g.idle("P2")
        turn(g, "P1", ("meld", "6C 7C 8C"), ("meld", "9C 10C JC QC"))
        g.check()
        assert g.hands["P2"] == ["AC", "KD"]
        h = only_hand(g)
        assert (h["winner"], h["going_rummy"]) == ("P1", False)
        assert h["points"] == {"P1": expected, "P2": 0}
        assert_same_outcome(g)


@scenario("F07")
def _f07():
    for opts, expected in (({}, 74), ({"going_rummy": "plus10"}, 47)):  # x2, or Pagat's +10 (BAS-10)
        g = Game("classic", 2, opts)
        g.deal("P2", hands={"P1": cards("8S 9S 10S JS 8H 9H 10H JD QD KD"),
                            "P2": cards("AC 2D 2H 3S 3C 4D 4H 5S 6C 7D")})
        turn(g, "P1", ("meld", "8S 9S 10S JS"), ("meld", "8H 9H 10H"), ("meld", "JD QD KD"))
        g.check()
        h = only_hand(g)
        assert (h["winner"], h["going_rummy"]) == ("P1", True)
        assert h["points"] == {"P1": expected, "P2": 0}  # 2 x 37, or 37 + 10
        assert_same_outcome(g)


P2_GOES_OUT = ("5C 6C 7C 8C 10D JD QD", "5H 6H 7H 8H 10S JS QS", "9C 10C JC QC 5D 6D 7D",
               "10H JH QH KH 8D 9D 10D", "2S 3S 4S 5S KC KD KH")


def r500_melds_score(melds, rest, options: dict | None = None) -> int:
    """R500 3p: P1 is dealt the meld cards plus `rest`, melds them on the first turn, and keeps `rest`.
    P2 then goes out (4-card run, then a 3-card run) so the hand is scored. Returns P1's points."""
    g = Game("rummy500", 3, options)
    plays = [("meld", m) if not isinstance(m, tuple) else m for m in melds]
    mine = [natural(c) for play in plays for c in cards(play[1])] + cards(rest)
    p2 = next(cards(c) for c in P2_GOES_OUT if not set(cards(c)) & set(mine))
    g.deal("P3", hands={"P1": mine, "P2": p2})
    turn(g, "P1", *plays)
    turn(g, "P2", ("meld", p2[:4]))
    g.idle("P3")
    g.idle("P1")
    turn(g, "P2", ("meld", p2[4:]))
    g.check()
    h = only_hand(g)
    assert h["result"] == "out"
    assert_same_outcome(g)
    return h["points"]["P1"]


REST4 = "2H 4D 6C 8H"  # 20 points left in hand
REST3 = "2H 4D 6C"  # 12


@scenario("F08")
def _f08():
    assert r500_melds_score(["AS 2S 3S"], REST4) == 6 - 20


@scenario("F09")
def _f09():
    assert r500_melds_score(["QS KS AS"], REST4) == 35 - 20
    assert r500_melds_score(["AC AD AH"], REST4) == 45 - 20
    assert r500_melds_score(["AS 2S 3S 4S"], REST3) == 10 - 12
    # An ace laid off on top of a high run scores 15, below a low run 1 (R500-11).
    assert r500_melds_score(["JD QD KD", ("lay", "AD", 1)], REST3) == 30 + 15 - 12
    assert r500_melds_score(["2C 3C 4C", ("lay", "AC", 1)], REST3) == 9 + 1 - 12


@scenario("F10")
def _f10():
    assert r500_melds_score([["7S", "JK=8S", "9S"]], REST4) == 31 - 20
    assert r500_melds_score([["7S", "JK=8S", "9S"]], REST4, {"joker_meld_value": "represented"}) == 24 - 20


@scenario("F11")
def _f11():
    # JK 15 + AS 15 + KC 10 + 9D 9 = 49 left in hand; meld 2D 3D 4D = 9
    assert r500_melds_score(["2D 3D 4D"], "JK AS KC 9D") == 9 - 49
    assert r500_melds_score(["2D 3D 4D"], "JK 6H 7S 8C") == 9 - (15 + 21)
    assert r500_melds_score(["2D 3D 4D"], "AS 6H 7S 8C") == 9 - (15 + 21)
    assert r500_melds_score(["2D 3D 4D"], "KC 6H 7S 8C") == 9 - (10 + 21)
    assert r500_melds_score(["2D 3D 4D"], "9C 6H 7S 8D") == 9 - (9 + 21)


@scenario("F12")
def _f12():
    previous = dict(points={"P1": 0, "P2": 15, "P3": 0}, melded={"P1": 470, "P2": 0, "P3": 495})
    # The hand exactly as written, entered as a quick hand result.
    g = Game("rummy500", 3)
    g.hand_result("P1", "P1", **previous)
    g.hand_result("P2", "P1", hands={"P1": [], "P2": cards("QC 9H JK"), "P3": ["4C"]},
                  melded={"P1": 48, "P2": 13, "P3": 35})
    res = g.check()
    assert res["hands"][1]["points"] == {"P1": 48, "P2": -21, "P3": 31}
    assert res["totals"] == {"P1": 518, "P2": -36, "P3": 526}
    assert res["match_over"] is True and res["match_winner"] == "P3"
    # The same hand played card by card (P3 must hold 4 cards: a 7-card deal cannot end with 3 + 1).
    g = Game("rummy500", 3)
    g.hand_result("P1", "P1", **previous)
    g.deal("P2", hands={"P1": cards("3D 4D 5D 6D KC KD KS"), "P2": cards("AS 2S 3S 7D QC 9H JK"),
                        "P3": cards("QH KH AH 4C 2C 2D 2H")})
    turn(g, "P3", ("meld", "QH KH AH"))
    turn(g, "P1", ("meld", "3D 4D 5D"), ("lay", "6D", 2))
    turn(g, "P2", ("meld", "AS 2S 3S"), ("lay", "7D", 2))
    g.idle("P3")
    turn(g, "P1", ("meld", "KC KD KS"))
    res = g.check()
    h = res["hands"][1]
    assert h["result"] == "out" and h["going_rummy"] is False
    assert h["points"] == {"P1": 48, "P2": -21, "P3": 35 - 10}
    assert res["totals"] == {"P1": 518, "P2": -36, "P3": 520}
    assert res["match_over"] is True and res["match_winner"] == "P3"  # P1 went out but P3 is highest
    rc, out = cli_replay(g.text_lines())
    assert rc == 0 and json.loads(out) == res  # the command line prints the same object
    assert_same_outcome(g)


@scenario("F13")
def _f13():
    g = Game("rummy500", 2)
    g.hand_result("P1", "P1", points={"P1": 0, "P2": 0}, melded={"P1": 520, "P2": 520})
    res = g.check()
    assert res["totals"] == {"P1": 520, "P2": 520}
    assert res["match_over"] is False and res["match_winner"] is None  # tied highest: another hand
    f = g.copy()
    f.deal("P2")
    f.check()
    g.hand_result("P2", "P1", points={"P1": 0, "P2": 5}, melded={"P1": 15, "P2": 0})
    res = g.check()
    assert res["totals"] == {"P1": 535, "P2": 515}
    assert res["match_over"] is True and res["match_winner"] == "P1"
    # Option tie_rule=went_out_wins (AMB-23): the tied player who went out wins at once.
    g = Game("rummy500", 2, {"tie_rule": "went_out_wins"})
    g.hand_result("P1", "P2", points={"P1": 0, "P2": 0}, melded={"P1": 520, "P2": 520})
    res = g.check()
    assert res["match_over"] is True and res["match_winner"] == "P2"


@scenario("F14")
def _f14():
    g = Game("rummy500", 2)
    g.hand_result("P1", "P1", points={"P1": 0, "P2": 0}, melded={"P1": 500, "P2": 480})
    res = g.check()
    assert res["match_over"] is True and res["match_winner"] == "P1"
    g = Game("rummy500", 2)
    g.hand_result("P1", "P1", points={"P1": 0, "P2": 0}, melded={"P1": 499, "P2": 480})
    res = g.check()
    assert res["match_over"] is False


@scenario("F15")
def _f15():
    v = {"values": "r500_5_10_15"}
    rest5 = "9D 8H 7S 6C"  # 4 x 5 = 20
    assert r500_melds_score(["3H 4H 5H"], rest5, v) == 15 - 20
    assert r500_melds_score(["10C JC QC"], rest5, v) == 30 - 20
    assert r500_melds_score(["AS 2S 3S"], rest5, v) == 15 - 20
    assert r500_melds_score(["QS KS AS"], rest5, v) == 35 - 20
    assert r500_melds_score(["AC AD AH"], rest5, v) == 45 - 20
    assert r500_melds_score(["3H 4H 5H"], "9D AC JK 2C", v) == 15 - (5 + 15 + 15 + 5)


def r500_empty_stock(hands: dict, melds: dict, dealer: str = "P3") -> Game:
    """R500 3p: the given players meld on their first turn; then quiet turns until the stock is empty."""
    g = Game("rummy500", 3)
    g.deal(dealer, hands=hands)
    while g.stock_count() > 0:
        p = g.turn
        if melds.get(p):
            turn(g, p, *[("meld", m) for m in melds.pop(p)])
        else:
            g.idle(p)
    return g


F16_HANDS = {"P1": cards("10S JS QS KS 3H 4C 5S"), "P2": cards("2C 2D 3C 3D 4H 4S 5C"),
             "P3": cards("4D 5D 6D 2H 2S 5H 6C")}


@scenario("F16")
def _f16():
    g = r500_empty_stock(F16_HANDS, {"P1": ["10S JS QS KS"], "P3": ["4D 5D 6D"]}, dealer="P3")
    assert g.turn == "P3"
    g.draw("P3", bad="stock_empty", show=False)
    g.end_hand("stock_empty")  # P3 declines the discard pile
    res = g.check()
    h = only_hand(g)
    assert h["result"] == "stock_empty"
    assert h["points"] == {"P1": 28, "P2": -23, "P3": 0}
    assert res["totals"] == {"P1": 28, "P2": -23, "P3": 0}
    assert_same_outcome(g)


@scenario("F17")
def _f17():
    g = Game("rummy500", 3)
    g.hand_result("P1", "P1", points={"P1": 0, "P2": 36, "P3": 0}, melded={"P1": 100, "P2": 0, "P3": 50})
    g.hand_result("P2", "P2", points={"P1": 10, "P2": 0, "P3": 0}, melded={"P1": 0, "P2": 20, "P3": 10})
    res = g.check()
    assert res["hands"][0]["points"]["P2"] == -36
    assert res["totals"] == {"P1": 90, "P2": -16, "P3": 60}
    assert res["match_over"] is False
    g.deal("P3")
    g.check()


@scenario("F18")
def _f18():
    g = Game("rummy500", 3)
    g.deal("P1", hands={"P2": cards("9C 9D 9H 2C 3C 4C 5C"), "P1": cards("10H JH QH KH 6S 7S 8S")})
    turn(g, "P2", ("meld", "2C 3C 4C 5C"))
    g.idle("P3")
    turn(g, "P1", ("meld", "10H JH QH KH"), ("meld", "6S 7S 8S"))
    g.meld("P2", "9C 9D 9H", bad=HIT)
    g.check()
    h = only_hand(g)
    assert h["points"]["P2"] == 14 - 27
    assert h["points"]["P1"] == 40 + 21
    assert_same_outcome(g)


@scenario("F19")
def _f19():
    g = Game("basic", 2)
    g.hand_result("P1", "P1", points={"P1": 0, "P2": 92})
    g.deal("P2", hands={"P1": cards("AH 2H 3H 4D 5D 6D 7D 8S 9S 10S"),
                        "P2": cards("9C AC 2C 3C 4C 5C 6C JD QD KD")})
    turn(g, "P1", ("meld", "AH 2H 3H"))
    turn(g, "P2", ("meld", "AC 2C 3C"), ("meld", "4C 5C 6C"), ("meld", "JD QD KD"))
    turn(g, "P1", ("meld", "4D 5D 6D 7D"), ("meld", "8S 9S 10S"))
    res = g.check()
    assert res["hands"][0]["points"] == {"P1": 92, "P2": 0}
    assert res["hands"][1]["points"] == {"P1": 9, "P2": 0}
    assert res["totals"] == {"P1": 101, "P2": 0}
    assert res["match_over"] is True and res["match_winner"] == "P1"
    assert_same_outcome(g)
    g.deal("P1", bad=("match_over",))
    # 3 players: target 150.
    g = Game("basic", 3)
    g.hand_result("P1", "P1", points={"P1": 0, "P2": 141, "P3": 0})
    g.hand_result("P2", "P1", points={"P1": 0, "P2": 8, "P3": 0})
    res = g.check()
    assert res["totals"]["P1"] == 149 and res["match_over"] is False
    g.hand_result("P3", "P1", points={"P1": 0, "P2": 1, "P3": 0})
    res = g.check()
    assert res["totals"]["P1"] == 150 and res["match_over"] is True and res["match_winner"] == "P1"


@scenario("F20")
def _f20():
    g = Game("solitaired", 4)
    g.hand_result("P2", "P3", points={"P1": 188, "P2": 0, "P3": 0, "P4": 0})
    g.deal("P3", hands={"P1": cards("5H AC 2C 3C 4C 5C 6C"), "P2": cards("4S 7D 8D 9D 10D JD QD"),
                        "P4": cards("3D 7C 8C 9C 10C JC QC"), "P3": cards("6H 7H 8H 9H 10S JS QS")})
    turn(g, "P4", ("meld", "7C 8C 9C 10C JC QC"))
    turn(g, "P1", ("meld", "AC 2C 3C 4C 5C 6C"))
    turn(g, "P2", ("meld", "7D 8D 9D 10D JD QD"))
    turn(g, "P3", ("meld", "6H 7H 8H 9H"), ("meld", "10S JS QS"))
    res = g.check()
    assert res["hands"][1]["points"] == {"P1": 0, "P2": 0, "P3": 12, "P4": 0}
    assert res["totals"]["P3"] == 200
    assert res["match_over"] is True and res["match_winner"] == "P3"
    assert_same_outcome(g)


@scenario("F21")
def _f21():
    g = Game("basic", 4)
    g.hand_result("P4", "P2", points={"P1": 190, "P2": 0, "P3": 0, "P4": 0})
    g.deal("P1", hands={"P1": cards("2H AC 2C 3C 4C 5C 6C"), "P3": cards("3S 5D 6D 7D 8D 9D 10D"),
                        "P4": cards("4D 5H 6H 7H 8H 9H 10H"), "P2": cards("JS QS KS 10C JC QC KC")})
    turn(g, "P2", ("meld", "JS QS KS"))
    turn(g, "P3", ("meld", "5D 6D 7D 8D 9D 10D"))
    turn(g, "P4", ("meld", "5H 6H 7H 8H 9H 10H"))
    turn(g, "P1", ("meld", "AC 2C 3C 4C 5C 6C"))
    turn(g, "P2", ("meld", "10C JC QC KC"))
    res = g.check()
    assert res["hands"][1]["points"] == {"P1": 0, "P2": 9, "P3": 0, "P4": 0}
    assert res["totals"]["P2"] == 199
    assert res["match_over"] is False and res["match_winner"] is None
    assert_same_outcome(g)
    g.deal("P2")
    g.check()


F22_HANDS = [("P1", "P1", 30), ("P2", "P1", 31), ("P3", "P3", 30), ("P1", "P3", 31), ("P2", "P2", 10)]


def f22_game(opts: dict) -> Game:
    g = Game("classic", 3, opts)
    for dealer, winner, pts in F22_HANDS:
        loser = next(p for p in g.players if p != winner)
        g.hand_result(dealer, winner, points={p: (pts if p == loser else 0) for p in g.players})
    return g


@scenario("F22")
def _f22():
    g = f22_game({"match_hands": 5})
    res = g.check()
    assert res["totals"] == {"P1": 61, "P2": 10, "P3": 61}
    assert res["match_over"] is False  # tied for first after the last planned hand: extra hand
    g.hand_result("P3", "P1", points={"P1": 0, "P2": 5, "P3": 0})
    res = g.check()
    assert res["match_over"] is True and res["match_winner"] == "P1"
    g = Game("classic", 3)  # default: first to 150
    g.hand_result("P3", "P2", points={"P1": 149, "P2": 0, "P3": 0})
    res = g.check()
    assert res["match_over"] is False
    g.hand_result("P1", "P3", points={"P1": 0, "P2": 150, "P3": 0})
    res = g.check()
    assert res["match_over"] is True and res["match_winner"] == "P3"
    g = f22_game({"match_hands": 5, "tie_rule": "shared_win"})
    res = g.check()
    assert res["match_over"] is True
    w = res["match_winner"]
    assert sorted(w) == ["P1", "P3"] if isinstance(w, list) else w in (None, "P1, P3", "P1 and P3")


@scenario("F23")
def _f23():
    g = Game("basic", 2)
    g.hand_result("P1", "P1", points={"P1": 0, "P2": 20})
    g.deal("P2")
    while not g.over:  # second exhaustion of the stock
        g.idle()
    g.deal("P2", bad="wrong_dealer")
    g.deal("P1")
    res = g.check()
    h = res["hands"][1]
    assert (h["result"], h["winner"]) == ("stalemate", None)
    assert h["points"] == {"P1": 0, "P2": 0}
    assert res["totals"] == {"P1": 20, "P2": 0}
    assert res["match_over"] is False


# =====================================================================================================
# G. Stock exhaustion and stalemate
# =====================================================================================================


@scenario("G01")
def _g01():
    g = Game("basic", 2)
    g.deal("P1")  # P2 plays first
    up = g.pile[0]
    g.cycle(31)
    assert g.exhaustions == 1 and g.turn == "P1"
    g.take("P1", bad=("discard_empty", "card_not_in_discard"))  # the whole pile became the new stock
    g.draw("P1", up)
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


@scenario("G02")
def _g02():
    g = Game("basic", 2)
    g.deal("P1")
    while not g.over:
        g.idle()
    last = len(g.lines)
    g.draw(g.players[0], bad=HIT)
    res = g.check()
    assert_hidden_same(g)
    assert sum(1 for ev in g.lines[1:] if ev["type"] == "draw") - 1 == 31 + 32
    no_hand_listed(g, last - 1)  # the stalemate comes at the end of the turn that drew the last card
    h = only_hand(g)
    assert (h["result"], h["winner"]) == ("stalemate", None)
    assert h["points"] == {"P1": 0, "P2": 0}
    assert res["totals"] == {"P1": 0, "P2": 0}


@scenario("G03")
def _g03():
    g = Game("basic", 2)
    g.deal("P1", hands={"P2": cards("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H")})
    while not (g.exhaustions == 1 and g.stock_count() == 1):
        g.idle()
    assert g.turn == "P2"
    x = g.stock_card()
    g.draw("P2", x)  # the last card of the recycled stock
    g.meld("P2", "AH 2H 3H")
    g.meld("P2", "4H 5H 6H 7H")
    g.meld("P2", "8H 9H 10H")
    g.discard("P2", x)
    g.check()
    assert_hidden_same(g)
    h = only_hand(g)
    assert (h["result"], h["winner"], h["going_rummy"]) == ("out", "P2", True)
    assert h["points"] == {"P1": 0, "P2": 2 * basic_points(g.hands["P1"])}
    assert_same_outcome(g)


@scenario("G04")
def _g04():
    g = Game("solitaired", 4)
    g.deal()
    while not g.over:
        g.idle()
    last = len(g.lines)
    g.draw(g.players[0], bad=HIT)
    g.check()
    assert_hidden_same(g)
    assert sum(1 for ev in g.lines[1:] if ev["type"] == "draw") - 1 == 23 + 24
    no_hand_listed(g, last - 1)
    h = only_hand(g)
    assert (h["result"], h["winner"]) == ("stalemate", None)
    assert set(h["points"].values()) == {0}


@scenario("G05")
def _g05():
    g = Game("classic", 2)
    g.deal()
    g.cycle(3 * 31)
    assert g.exhaustions == 3 and len(g.pile) == 1 and g.stock_count() == 31
    p = g.turn
    g.take(p)  # the top card stayed as the discard pile
    g.discard(p, g.hands[p][0])
    g.cycle(2)
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


@scenario("G06")
def _g06():
    g = Game("classic", 2)
    g.deal()
    g.cycle(31)
    top = g.pile[-1]
    assert g.pile == [top]
    f = g.copy()
    f.take(f.turn)  # the top discard is still there
    f.check()
    p = g.turn
    line = g.draw(p, top)  # the players put it into the new stock too: warning, play continues
    g.check()
    m = referee.Match.from_log(g.text_lines(line - 1))
    v = m.apply(g.lines[line - 1])
    assert v.ok and v.warnings, "a stock draw of the card that should have stayed on the pile warns"


@scenario("G07")
def _g07():
    g = Game("classic", 2, {"recycle_trigger": "on_demand"})
    g.deal()
    up = g.pile[0]
    g.cycle(31)
    p = g.turn
    g.take(p)  # takes the top discard instead of turning the pile
    g.discard(p, g.hands[p][0])
    g.stock.update(g.pile[:-1])  # the next player declines: the pile (but its top) becomes the stock
    del g.pile[:-1]
    g.draw(g.turn, up)
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


@scenario("G08")
def _g08():
    g = r500_empty_stock({}, {}, dealer="P2")
    assert g.turn == "P2"
    g.take("P2")
    g.end_hand("stock_empty", bad="end_hand_not_allowed")  # P2 has drawn: finish the turn first
    g.discard("P2", g.hands["P2"][0])
    mid = len(g.lines)
    g.end_hand("stock_empty")  # P3 declines the discard pile
    g.check()
    no_hand_listed(g, mid)
    h = only_hand(g)
    assert h["result"] == "stock_empty"
    assert h["points"] == {p: -r500_hand_points(g.hands[p]) for p in g.players}
    assert_same_outcome(g)


@scenario("G09")
def _g09():
    g = r500_empty_stock({}, {}, dealer="P1")
    p = g.turn
    g.draw(p, bad="stock_empty", show=False)
    g.end_hand("stock_empty")
    g.take(p, bad=HIT)
    g.check()
    h = only_hand(g)
    assert h["result"] == "stock_empty"
    assert h["points"] == {q: -r500_hand_points(g.hands[q]) for q in g.players}
    assert_same_outcome(g)


def sd1_game(p3_run: str) -> Game:
    """CGI 3p: after one round every player holds one card and the table holds the sets of aces, fives and
    nines (complete) and the runs 2C 3C 4C and `p3_run`."""
    g = Game("basic", 3)
    g.deal("P3", hands={"P1": cards("AC AD AH 9C 9D 9H"), "P2": cards("5C 5D 5H 2C 3C 4C"),
                        "P3": cards("AS 5S 9S") + cards(p3_run)}, reserve=["KD"])
    turn(g, "P1", ("meld", "AC AD AH"), ("meld", "9C 9D 9H"))
    turn(g, "P2", ("meld", "5C 5D 5H"), ("meld", "2C 3C 4C"))
    turn(g, "P3", ("lay", "AS", 1), ("lay", "5S", 3), ("lay", "9S", 2), ("meld", p3_run))
    assert all(len(h) == 1 for h in g.hands.values())
    return g


@scenario("G10")
def _g10():
    g = sd1_game("2D 3D 4D")  # nothing outside the table can be laid off (A and 5 of clubs/diamonds are in sets)
    g.draw("P1", bad=HIT)
    g.check()
    assert_hidden_same(g)
    h = only_hand(g)
    assert (h["result"], h["winner"]) == ("stalemate", None)
    assert set(h["points"].values()) == {0}


@scenario("G11")
def _g11():
    g = sd1_game("10D JD QD")  # KD (off the table) can still be laid off: no stalemate
    g.draw("P1")
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


@scenario("G12")
def _g12():
    g = Game("basic", 3)
    g.deal("P3", hands={"P1": cards("2C 3C 4C 2H 3H 4H"), "P2": cards("AC AD AH 5C 5D 5H"),
                        "P3": cards("AS 5S 2D 3D 4D")})
    turn(g, "P1", ("meld", "2C 3C 4C"), ("meld", "2H 3H 4H"))
    turn(g, "P2", ("meld", "AC AD AH"), ("meld", "5C 5D 5H"))
    turn(g, "P3", ("lay", "AS", 3), ("lay", "5S", 4), ("meld", "2D 3D 4D"))
    assert [len(g.hands[p]) for p in g.players] == [1, 1, 2]
    g.draw("P1")  # P3 holds two cards: no automatic stalemate
    g.check()
    assert_hidden_same(g)
    no_hand_listed(g)


@scenario("G13")
def _g13():
    g = Game("classic", 2)
    g.deal()
    g.cycle(31)
    for _ in range(2):  # a full rotation taking the top discard, no meld, no lay-off
        p = g.turn
        g.take(p)
        g.discard(p, g.hands[p][0])
    g.end_hand("stalemate")  # the players agree to void the hand
    g.deal("P2", bad="wrong_dealer")  # hand 1 was dealt by P2
    g.deal("P1")
    res = g.check()
    assert_hidden_same(g)
    h = res["hands"][0]
    assert (h["result"], h["winner"]) == ("stalemate", None)
    assert h["points"] == {"P1": 0, "P2": 0}


@scenario("G14")
def _g14():
    g = r500_empty_stock({}, {}, dealer="P3")
    for _ in range(3):
        p = g.turn
        g.take(p)
        g.discard(p, g.hands[p][0])
    g.check()
    assert "end_hand" in g.public_state()["current"]["offers"], "the loop guard offers to end the hand"
    g.end_hand("stalemate")
    g.check()
    h = only_hand(g)
    assert h["points"] == {p: -r500_hand_points(g.hands[p]) for p in g.players}  # scored normally
    # SD-3: the players may also agree to end a Rummy 500 hand before the stock is empty; it is scored.
    g = Game("rummy500", 3)
    g.deal("P3", hands={"P1": cards("9H 10H JH")})
    turn(g, "P1", ("meld", "9H 10H JH"))
    g.idle("P2")
    g.end_hand("stalemate")
    g.check()
    h = only_hand(g)
    assert h["points"] == {p: (29 if p == "P1" else 0) - r500_hand_points(g.hands[p]) for p in g.players}


@scenario("G15")
def _g15():
    g = Game("solitaired", 4)
    g.deal("P4")
    g.cycle(5)
    g.end_hand("stalemate")
    g.draw("P2", bad=HIT)
    g.deal("P4", bad="wrong_dealer")
    g.deal("P1")
    res = g.check()
    assert_hidden_same(g)
    h = res["hands"][0]
    assert (h["result"], h["winner"]) == ("stalemate", None)
    assert set(h["points"].values()) == {0}
    assert set(res["totals"].values()) == {0}


# =====================================================================================================
# H. Rummy 500: calling "Rummy!"
# =====================================================================================================


def h_setup(options: dict | None = None, p3_extra=("KC", "KD", "KS"), p1=None) -> Game:
    """R500 4p, dealer P4: P3 melds 6H 7H 8H on its first turn; P1 then draws 9H and discards it."""
    g = Game("rummy500", 4, options)
    hands = {"P3": cards("6H 7H 8H") + list(p3_extra)}
    if p1:
        hands["P1"] = p1
    g.deal("P4", hands=hands, reserve=["9H", "8C"])
    g.idle("P1")
    g.idle("P2")
    turn(g, "P3", ("meld", "6H 7H 8H"))
    g.idle("P4")
    return g


@scenario("H01")
def _h01():
    g = h_setup()
    g.idle("P1", "9H")
    g.call_rummy("P3", "9H")
    f = g.copy()
    f.discard("P3", "9H", bad=("deep_card_unused", "discard_just_taken"))  # the claimed card must be played
    f.draw("P3", bad=("already_drawn",))  # the call replaces the draw
    f.check()
    assert_hidden_same(f)
    g.lay("P3", "9H", meld=1)
    g.discard("P3", next(c for c in g.hands["P3"] if c not in ("KC", "KD", "KS")))
    g.draw("P2", bad=OUT_OF_TURN)  # P2's turn is skipped
    for p in ("P4", "P1", "P2"):
        g.idle(p)
    turn(g, "P3", ("meld", "KC KD KS"))  # P3 goes out
    g.check()
    assert_hidden_same(g)
    h = only_hand(g)
    assert h["points"]["P3"] == 6 + 7 + 8 + 9 + 30
    assert_same_outcome(g)


@scenario("H02")
def _h02():
    g = h_setup()
    g.idle("P1", "9H")
    g.draw("P2")
    g.call_rummy("P3", "9H", bad="rummy_call_not_allowed")
    g.check()
    assert_hidden_same(g)


@scenario("H03")
def _h03():
    g = h_setup()
    g.idle("P1", "9H")
    g.call_rummy("P1", "9H", bad="rummy_call_not_allowed")
    g.draw("P2")
    g.check()
    assert_hidden_same(g)


@scenario("H04")
def _h04():
    g = h_setup()
    g.idle("P1", "9H")
    g.call_rummy("P2", "9H")  # nearest to the discarder
    g.call_rummy("P4", "9H", bad=True)
    g.lay("P2", "9H", meld=1)
    g.discard("P2", g.hands["P2"][0])
    g.draw("P3")
    g.check()
    assert_hidden_same(g)
    agreed_end_twin(g)


@scenario("H05")
def _h05():
    g = Game("rummy500", 4)
    g.deal("P4", hands={"P1": cards("2C 3C 4C 5C 6C 7C 9H"), "P3": cards("6H 7H 8H")}, reserve=["8C"])
    turn(g, "P1", ("meld", "2C 3C 4C 5C 6C 7C"))
    g.idle("P2")
    turn(g, "P3", ("meld", "6H 7H 8H"))
    g.idle("P4")
    g.draw("P1", "8C")
    g.lay("P1", "8C", meld=1)
    g.discard("P1", "9H")  # the last card: P1 is out
    g.call_rummy("P3", "9H", bad=HIT + ("rummy_call_not_allowed",))
    g.check()
    assert only_hand(g)["result"] == "out"


@scenario("H06")
def _h06():
    g = Game("rummy500", 4)
    g.deal("P1", upcard="4C", reserve=cards("10D 5C JS 6C"))
    for p, c in (("P2", "10D"), ("P3", "5C"), ("P4", "JS"), ("P1", "6C")):
        g.idle(p, c)
    g.call_rummy("P3", "4C")  # takes 4C 10D 5C JS 6C
    g.meld("P3", "4C 5C 6C")  # a meld of pile cards only
    g.discard("P3", "10D")
    g.draw("P2", bad=OUT_OF_TURN)
    g.draw("P4")
    g.check()
    assert_hidden_same(g)
    assert {"JS"} <= set(g.hands["P3"])
    agreed_end_twin(g)


@scenario("H07")
def _h07():
    g = Game("rummy500", 4)
    g.deal("P4", hands={"P3": cards("9C 9D")}, reserve=["9H"])
    g.idle("P1", "9H")
    g.call_rummy("P3", "9H", bad="rummy_call_invalid")  # it would need P3's own 9C 9D
    g.draw("P2")
    g.check()
    assert_hidden_same(g)
    # A discarded joker with no meld on the table and no meld in the pile: a call would need hand cards too.
    g = Game("rummy500", 4)
    g.deal("P4", upcard="5H", hands={"P3": cards("9C 9D")}, reserve=["JK"])
    g.idle("P1", "JK")
    g.call_rummy("P3", "JK", bad="rummy_call_invalid")
    g.draw("P2")
    g.check()
    # With a run on the table the discarded joker can be laid off: the call is good.
    g = Game("rummy500", 4)
    g.deal("P4", upcard="5H", hands={"P1": cards("6H 7H 8H")}, reserve=["JK"])
    g.draw("P1", "JK")
    g.meld("P1", "6H 7H 8H")
    g.discard("P1", "JK")
    g.call_rummy("P3", "JK")
    g.lay("P3", ["JK=9H"], meld=1)
    g.discard("P3", g.hands["P3"][0])
    g.draw("P4")
    g.check()
    assert_hidden_same(g)


@scenario("H08")
def _h08():
    g = h_setup({"rummy_call": False})
    g.idle("P1", "9H")
    g.call_rummy("P3", "9H", bad="rummy_call_not_allowed")
    g.draw("P2")
    g.check()
    assert_hidden_same(g)


# =====================================================================================================
# I. Referee integrity and physical-table issues
# =====================================================================================================


def hidden_clubs_out(rules: str = "basic", p2=None) -> Game:
    """Hidden hands, 2 players, dealer P1: P2 plays first (melding `p2`'s first five cards if given);
    P1 holds AC..10C, melds AC 2C 3C on its first turn and the rest on its second: out, no bonus."""
    g = Game(rules, 2)
    hands = {"P1": cards("AC 2C 3C 4C 5C 6C 7C 8C 9C 10C")}
    if p2:
        hands["P2"] = p2
    g.deal("P1", hands=hands, hidden=True)
    if p2:
        turn(g, "P2", ("meld", p2[:5]))
    else:
        g.idle("P2")
    turn(g, "P1", ("meld", "AC 2C 3C"))
    g.idle("P2")
    turn(g, "P1", ("meld", "4C 5C 6C 7C"), ("meld", "8C 9C 10C"))
    assert g.over
    return g


@scenario("I01")
def _i01():
    g = Game("basic", 2)
    g.deal()
    g.cycle(31)  # after the recycle
    g.draw(g.turn, g.hands["P2"][0], bad="duplicate_card")  # a card that is in P2's hand
    g.draw(g.turn)
    g.check()
    # Hidden hands: a reveal that does not add up (a card already on the table) blocks the scoring.
    g = hidden_clubs_out()
    spread = g.hands["P2"]
    g.reveal("P2", spread[:-1] + ["AC"], bad="duplicate_card")
    block = len(g.lines)
    g.reveal("P2", spread)
    g.check()
    no_hand_listed(g, block)
    h = only_hand(g)
    assert h["points"] == {"P1": basic_points(spread), "P2": 0}


@scenario("I02")
def _i02():
    for hidden, code in ((True, "duplicate_card"), (False, ("duplicate_card", "card_not_in_hand"))):
        g = Game("basic", 3)
        g.deal(hands={"P2": cards("4C 5C")}, reserve=["6C"], hidden=hidden)
        g.idle("P1", "6C")
        g.draw("P2")
        g.meld("P2", "4C 5C 6C", bad=code)  # 6C is on the discard pile
        g.check()


@scenario("I03")
def _i03():
    g = Game("basic", 3)
    g.deal(hands={"P3": cards("4S 5S 6S")})
    g.idle("P1")
    g.draw("P2")
    g.meld("P3", "4S 5S 6S", bad=OUT_OF_TURN)
    g.lay("P3", "4S", meld=1, bad=OUT_OF_TURN + ("no_such_meld",))
    g.check()
    assert_hidden_same(g)


@scenario("I04")
def _i04():
    g = Game("basic", 3)
    g.deal(upcard="5D")
    g.take("P1")
    bad = g.discard("P1", "5D", bad="discard_just_taken")
    good = g.discard("P1", g.hands["P1"][0])
    g.draw("P2")
    g.raw('{"type": "discard", "player": ', bad="bad_json")
    g.add({"type": "discard", "player": "P2"}, bad="bad_event")  # no card
    g.add({"type": "discard", "player": "P2", "card": "XZ"}, bad=("bad_card", "unknown_card"))
    g.add({"type": "shuffle", "player": "P2"}, bad=True)  # not an event of the contract
    g.add({"type": "discard", "player": "P9", "card": "2C"}, bad=True)  # not a player of this match
    g.discard("P2", g.hands["P2"][-1])
    res = g.check()
    assert [e["ok"] for e in res["events"]] == [True, True, False, True, True] + [False] * 5 + [True]
    assert g.entry(bad)["message"] and g.entry(good)["ok"]


@scenario("I05")
def _i05():
    g = hidden_clubs_out(p2=cards("2H 3H 4H 5H 6H"))
    spread = g.hands["P2"]
    assert len(spread) == 5
    g.reveal("P2", spread[:4], bad="reveal_mismatch")
    block = len(g.lines)
    g.reveal("P2", spread)
    g.check()
    no_hand_listed(g, block)
    assert only_hand(g)["points"] == {"P1": basic_points(spread), "P2": 0}


@scenario("I06")
def _i06():
    for opts, second in (({"max_melds_per_turn": 1}, "max_melds_per_turn"), ({}, None)):
        g = meld_game("basic", 3, "4S 5S 6S QD QC QH", opts)
        g.meld("P1", "4S 5S 6S")
        g.meld("P1", "QD QC QH", bad=second)
        g.check()
        assert_hidden_same(g)


@scenario("I07")
def _i07():
    g = Game("classic", 4)
    g.deal("P4", hidden=True, hands={"P1": cards("2H 3H 4H 10D JD QD KD"), "P2": cards("9C 9D 9H"),
                                     "P3": cards("6S 7S 8S"), "P4": cards("5H 9S 5S 6H 7H")})
    turn(g, "P1", ("meld", "2H 3H 4H"))
    turn(g, "P2", ("meld", "9C 9D 9H"))
    turn(g, "P3", ("meld", "6S 7S 8S"))
    turn(g, "P4", ("lay", "5H", 1), ("lay", "9S", 2), ("lay", "5S", 3), ("lay", "6H 7H", 1))
    turn(g, "P1", ("meld", "10D JD QD KD"))
    assert g.over and len(g.hands["P4"]) == 2
    extra = g.stock_card()
    g.reveal("P4", g.hands["P4"] + [extra], bad="reveal_mismatch")  # P4 holds 7 + 1 - 5 - 1 = 2 cards
    g.reveal("P2", g.hands["P2"])
    g.reveal("P3", g.hands["P3"])
    g.reveal("P4", g.hands["P4"])
    g.check()
    h = only_hand(g)
    assert h["points"]["P1"] == sum(basic_points(g.hands[p]) for p in ("P2", "P3", "P4"))


@scenario("I08")
def _i08():
    g = Game("basic", 3)
    g.deal()
    x = g.stock_card()
    g.draw("P1", x)
    g.discard("P1", x, face_down=True, bad="face_down_not_last")
    g.discard("P1", x)
    g.check()
    assert_hidden_same(g)
    for rules, n in (("classic", 3), ("solitaired", 4), ("rummy500", 3)):  # no face-down discard there
        g = Game(rules, n)
        g.deal()
        x = g.stock_card()
        g.draw("P1", x)
        g.discard("P1", x, face_down=True, bad=("face_down_not_allowed", "face_down_not_last"))
        g.check()
        assert_hidden_same(g)
