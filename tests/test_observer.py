"""Observer: sequences of table snapshots (fake, no model) -> the right game events, checked by the referee."""

import numpy as np
import pytest

from referee import Match, replay_lines
from vision.observer import Observer
from vision.snapshot import Group, TableSnapshot
from vision.synth.scripted_hands import Table, script_hand

PLAYERS = ["Ana", "Ben", "Cleo"]
MATCH = {"type": "match", "rules": "basic", "players": PLAYERS}


def snap(discard=(), conf=None, **zones):
    players = {p: tuple(Group(tuple(g), (0, 0, 1, 1)) for g in zones.get(p, [])) for p in PLAYERS}
    return TableSnapshot(discard=tuple(discard), players=players, confidence=conf or {})


def table_snapshot(t: Table, squared: bool, players=PLAYERS) -> TableSnapshot:
    zones = {p: [] for p in players}
    for m in t.melds:
        zones[m["zone"]].append(tuple(m["cards"]))
    for p, cards in t.reveals.items():
        zones[p].append(tuple(cards))
    pile = t.pile[-1:] if squared else t.pile
    return TableSnapshot(discard=tuple(pile), players={p: tuple(Group(g, (0, 0, 1, 1)) for g in gs)
                                                       for p, gs in zones.items()})


def norm(e):
    e = {k: v for k, v in e.items() if k not in ("hands",)}
    if e["type"] == "draw":
        e.pop("card", None)
    if "cards" in e:
        e["cards"] = sorted(e["cards"])
    return e


def observer(**kw):
    return Observer(Match(MATCH), "Ana", **kw)


def test_a_turn_meld_layoff_discard_with_inferred_draws():
    o = observer()
    assert o.observe(snap(["5C"])) and o.referee.events[-1] == {"type": "deal", "dealer": "Ana", "upcard": "5C"}
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))  # Ben melds: he must have drawn, from the stock
    o.observe(snap(["5C", "KD"], Ben=[["7H", "8H", "9H"]]))
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))  # Cleo takes the KD back off the pile...
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H", "10H"]]))  # ...and lays the 10H off on Ben's meld
    o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H", "10H"]]))
    got = [norm(e) for e in o.referee.events[1:]]
    assert got == [
        {"type": "draw", "player": "Ben", "from": "stock"},
        {"type": "meld", "player": "Ben", "cards": ["7H", "8H", "9H"]},
        {"type": "discard", "player": "Ben", "card": "KD"},
        {"type": "draw", "player": "Cleo", "from": "discard"},
        {"type": "lay_off", "player": "Cleo", "cards": ["10H"], "meld": 1},
        {"type": "discard", "player": "Cleo", "card": "2S"},
    ]
    assert all(x["ok"] and not x["proposed"] for x in o.outcomes)


def test_a_glimpse_of_the_pile_under_a_hand_is_no_discard_draw():
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C", "KD"]))  # Ben's discard (after an invisible stock draw)
    o.observe(snap([]))  # a hand covers the whole pile for a moment
    o.observe(snap(["5C", "KD"]))  # ...and moves on: KD is still there
    o.observe(snap(["5C", "KD", "3H"]))
    assert [norm(e) for e in o.referee.events[3:]] == [
        {"type": "draw", "player": "Cleo", "from": "stock"}, {"type": "discard", "player": "Cleo", "card": "3H"}]


def test_a_discard_pickup_that_goes_straight_into_a_meld():
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C", "KD"]))
    o.observe(snap(["5C"], Cleo=[["KD", "KS", "KH"]]))  # Cleo melds the KD at once
    assert norm(o.referee.events[3]) == {"type": "draw", "player": "Cleo", "from": "discard"}
    assert norm(o.referee.events[4]) == {"type": "meld", "player": "Cleo", "cards": ["KD", "KH", "KS"]}


def test_two_cards_are_not_yet_a_meld():
    o = observer()
    o.observe(snap(["5C"]))
    assert o.observe(snap(["5C"], Ben=[["7H", "8H"]])) == []
    out = o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))
    assert [x["event"]["type"] for x in out] == ["draw", "meld"]


def test_unsure_card_is_proposed_then_confirmed():
    o = observer()
    o.observe(snap(["5C"]))
    out = o.observe(snap(["5C", "KD"], conf={"KD": 0.5}))
    assert out[-1]["proposed"] and out[-1]["event"] == {"type": "discard", "player": "Ben", "card": "KD"}
    [p] = o.pending()
    assert o.observe(snap(["5C", "KD"], conf={"KD": 0.5})) == []  # nothing else while it waits
    done = o.confirm(p["id"])
    assert done["ok"] and o.referee.events[-1]["card"] == "KD" and o.pending() == []


def test_rejected_proposal_is_not_applied_nor_proposed_again():
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C", "KD"], conf={"KD": 0.4}))
    [p] = o.pending()
    assert o.reject(p["id"])
    assert o.pending() == []
    o.observe(snap(["5C", "KD"], conf={"KD": 0.4}))
    assert o.pending() == [] and len(o.referee.events) == 2  # deal + the stock draw only


def test_refused_event_is_reported_with_the_referee_code():
    o = observer()
    seen = []
    o.on_event(seen.append)
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], Ben=[["7H", "8C", "KD"]]))  # not a meld
    bad = [x for x in seen if not x["ok"]]
    assert bad and bad[0]["event"]["type"] == "meld" and bad[0]["code"]
    assert bad[0]["message"]
    # the table is fixed: the cards go back to the hand; play goes on
    o.observe(snap(["5C"]))
    o.observe(snap(["5C", "2S"]))
    assert norm(o.referee.events[-1]) == {"type": "discard", "player": "Ben", "card": "2S"}


def test_ambiguous_layoff_between_touching_melds_uses_the_legal_one():
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))
    o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]]))
    o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]], Cleo=[["QS", "QD", "QC"]]))
    o.observe(snap(["5C", "2S", "4D"], Ben=[["7H", "8H", "9H"]], Cleo=[["QS", "QD", "QC"]]))
    # Ana lays the 10H off; on the table it touches both melds (one group in Ben's zone)
    o.observe(snap(["5C", "2S", "4D"], Ben=[["7H", "8H", "9H", "10H", "QS", "QD", "QC"]]))
    last = o.referee.events[-1]
    assert last["type"] == "lay_off" and last["meld"] == 1 and last["player"] == "Ana"


@pytest.mark.parametrize("squared", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 5])
def test_whole_scripted_hands_replay_exactly(seed, squared):
    """Every step of a scripted hand as a snapshot: the inferred log equals the scripted one."""
    script = None
    s = seed
    while script is None:
        script = script_hand(np.random.default_rng(s), PLAYERS, "Ana")
        s += 100
    o = observer()
    o.observe(TableSnapshot(players={p: () for p in PLAYERS}))
    for step in script.steps:
        o.observe(table_snapshot(step.table, squared))
    assert [norm(e) for e in o.referee.events] == [norm(e) for e in script.expected_events()]
    assert all(x["ok"] for x in o.outcomes)
    r1 = replay_lines(script.expected_log())
    log = [__import__("json").dumps(MATCH)] + [__import__("json").dumps(e) for e in o.referee.events]
    assert replay_lines(log)["hands"] == r1["hands"]


def test_second_hand_is_dealt_after_the_table_is_cleared():
    s1 = script_hand(np.random.default_rng(2), PLAYERS, "Ana") or script_hand(np.random.default_rng(102), PLAYERS, "Ana")
    o = observer()
    for step in s1.steps:
        o.observe(table_snapshot(step.table, True))
    assert o.referee.public_state()["current"] is None or o.referee.public_state()["current"]["phase"] == "over"
    last = table_snapshot(s1.steps[-1].table, True)
    assert o.observe(last) == []  # the old table is no new deal
    o.observe(snap())  # cleared
    out = o.observe(snap(["9D"]))
    assert out[0]["event"] == {"type": "deal", "dealer": "Ben", "upcard": "9D"}


def test_rummy500_layoff_in_the_layers_own_zone():
    o = Observer(Match({"type": "match", "rules": "rummy500", "players": ["Ana", "Ben", "Cleo"]}), "Ana")
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))
    o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]]))
    # Cleo lays the 10H off on Ben's run, in her own zone, apart from everything
    out = o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]], Cleo=[["10H"]]))
    assert [x["event"] for x in out] == [{"type": "draw", "player": "Cleo", "from": "stock"},
                                         {"type": "lay_off", "player": "Cleo", "cards": ["10H"], "meld": 1}]
    assert all(x["ok"] for x in out)
    # two cards that fit nowhere yet: a meld being laid out, no event
    assert o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]], Cleo=[["10H"], ["KD", "KS"]])) == []



def test_a_discard_picked_up_before_it_was_seen_is_proposed():
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))  # Ben draws and melds; his discard is never seen...
    out = o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]], Cleo=[["KD", "KS", "KH"]]))  # ...Cleo melds it
    assert out[-1]["proposed"] and out[-1]["event"]["type"] == "discard"
    assert out[-1]["event"]["card"] in ("KD", "KS", "KH")
    [p] = o.pending()
    o.confirm(p["id"])
    assert [norm(e) for e in o.referee.events[-3:]] == [
        norm(out[-1]["event"]), {"type": "draw", "player": "Cleo", "from": "discard"},
        {"type": "meld", "player": "Cleo", "cards": ["KD", "KH", "KS"]}]


def test_a_guessed_discard_answered_no_leaves_the_next_players_meld_alone():
    """The demo read with the round-six localiser (stop 42): Ben's discard QC was still unsure when Cleo's
    aces came down, so the observer asked whether Ben's discard had been one of them, picked up unseen.  The
    players said No to each; those cards were then set aside as no cards, and Cleo's meld was never applied.
    A No to such a guess only says the card was not the discard."""
    o = observer()
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))
    asked = set()
    for _ in range(4):
        o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]], Cleo=[["KD", "KS", "KH"]]))
        if not o.pending():
            break
        for p in o.pending():
            assert p["event"]["type"] == "discard" and p["event"]["card"] not in asked  # each asked once
            asked.add(p["event"]["card"])
            assert o.reject(p["id"])
    assert asked and o.pending() == []
    o.observe(snap(["5C", "QC"], Ben=[["7H", "8H", "9H"]], Cleo=[["KD", "KS", "KH"]]))  # the QC is seen at last
    o.observe(snap(["5C", "QC", "2S"], Ben=[["7H", "8H", "9H"]], Cleo=[["KD", "KS", "KH"]]))
    assert [norm(e) for e in o.referee.events[3:]] == [
        {"type": "discard", "player": "Ben", "card": "QC"}, {"type": "draw", "player": "Cleo", "from": "stock"},
        {"type": "meld", "player": "Cleo", "cards": ["KD", "KH", "KS"]}, {"type": "discard", "player": "Cleo", "card": "2S"}]


def test_a_pile_card_misread_under_the_top_is_no_discard():
    """Hand 6 of the model's evaluation: the KH under a new JH read as JD.  A discard lies on top, so the JD is
    not Ben's discard (it would put every later discard one turn late), and nothing is asked about it.
    (Reading it by the referee's name while it lies there was tried, `_pile_renamed` in stop 23, and measured
    worse on the eight hands: docs/PIPELINE.md.)"""
    o = observer()
    o.observe(snap(["KH"]))  # the deal
    o.observe(snap(["KH", "JH"]))  # Ben draws from the stock, discards the JH
    assert [norm(e) for e in o.referee.events[1:]] == [
        {"type": "draw", "player": "Ben", "from": "stock"}, {"type": "discard", "player": "Ben", "card": "JH"}]
    o.observe(snap(["JD", "JH"]))  # the camera now reads the KH peeking out under the JH as JD
    assert len(o.referee.events) == 3 and o.pending() == []  # no event, no question
    o.observe(snap(["KH", "JH"]))  # read right again: still nothing happened
    assert len(o.referee.events) == 3 and o.pending() == []


def test_an_upcard_read_two_ways_is_still_the_deal_asked_about():
    """The demo read with a 0.9-scale crop (stop 33): the upcard 5D is read as 5D and 6D (its two indices), so
    the pile shows two cards when the deal is laid out. Before, no deal was ever seen and nothing after it: now
    the surer name is the upcard, asked; the players' correction gives the other."""
    o = observer()
    out = o.observe(snap(["6D", "5D"], conf={"6D": 0.55, "5D": 0.9}))
    assert out and out[0]["proposed"] and out[0]["event"] == {"type": "deal", "dealer": "Ana", "upcard": "5D"}
    assert "6D" in out[0]["message"]
    [q] = o.pending()
    assert o.correct(q["id"], {"type": "deal", "dealer": "Ana", "upcard": "6D"})["ok"]
    assert o.referee.events[-1] == {"type": "deal", "dealer": "Ana", "upcard": "6D"}
    # offline (nobody to answer) the surer name is taken; three cards on the pile are no deal
    off = observer(auto_confirm=True)
    off.observe(snap(["6D", "5D"], conf={"6D": 0.55, "5D": 0.9}))
    assert off.referee.events[-1] == {"type": "deal", "dealer": "Ana", "upcard": "5D"}
    assert not observer().observe(snap(["6D", "5D", "9S"]))


def test_a_pending_renamed_question_names_the_cards_as_the_camera_read_them():
    """The question's picture shows the cards as the camera read them (`camera_cards`, in the outcome and in
    `pending()`, which the dashboard lists): the players see the 2H the question calls the 3H."""
    o = observer()
    o.observe(snap(["5C"]))
    look = snap(["5C"], Ben=[["7H", "8H", "10H"]])
    o.observe(TableSnapshot(discard=look.discard, players=look.players, alternatives={"10H": (("9H", 0.3),)}))
    [q] = o.pending()
    assert q["event"]["cards"] == ["7H", "8H", "9H"] and q["camera_cards"] == ["10H"]


def test_an_upcard_read_two_ways_in_turn_is_dealt_once_as_most_looks_read_it():
    """The demo with the round-eighteen classifier: the lone upcard 5D was read 5D in one look and 6D in the next
    (0.52-0.73 either way). Each new name started the unsure deal's wait again, so the wait never ended, no deal
    was seen and the whole hand was lost. Now a deal waits once, whatever its upcard is read as, and is proposed
    as the name most looks gave the card."""
    o = observer(patience=2)
    outs = []
    for card, p in [("5D", 0.7), ("5D", 0.72), ("6D", 0.6)]:  # a new name no longer starts the wait again
        outs += o.observe(snap([card], conf={card: p}))
    proposed = [x for x in outs if x.get("proposed")]
    assert len(proposed) == 1 and proposed[0]["event"] == {"type": "deal", "dealer": "Ana", "upcard": "5D"}
    assert "6D now" in proposed[0]["message"]
    # offline the same looks deal the 5D; a card read one way throughout is dealt as read
    off = observer(patience=2, auto_confirm=True)
    for card, p in [("6D", 0.6), ("5D", 0.7), ("5D", 0.72), ("6D", 0.6)]:
        off.observe(snap([card], conf={card: p}))
    assert off.referee.events[-1] == {"type": "deal", "dealer": "Ana", "upcard": "5D"}
    one = observer(patience=2, auto_confirm=True)
    for _ in range(4):
        one.observe(snap(["9S"], conf={"9S": 0.6}))
    assert one.referee.events[-1] == {"type": "deal", "dealer": "Ana", "upcard": "9S"}


def test_the_pile_top_read_as_another_card_where_it_lies_is_asked_not_a_discard():
    """The demo with the round-eighteen classifier: once Ben had melded, the upcard 5D, still where it was dealt,
    was read 6D (0.8, 5D among its other names), and "Ben discards 6D" was applied at once; the hand never
    recovered (answered, 5 of 21 events). Now such a discard is asked; a card on the pile somewhere else, or
    one the camera gives no other name of the top, is a discard as before."""
    at = (100.0, 100.0, 120.0, 130.0)

    def table(pile, box, alts=()):
        players = {p: () for p in PLAYERS}
        players["Ben"] = (Group(("3C", "4C", "5C"), (300, 300, 360, 340)),)
        return TableSnapshot(discard=(pile,), players=players, confidence={pile: 0.8},
                             alternatives={pile: alts} if alts else {}, boxes={pile: box})

    def dealt():
        o = observer()
        o.observe(TableSnapshot(discard=("5D",), players={p: () for p in PLAYERS}, confidence={"5D": 0.9},
                                boxes={"5D": at}))
        assert o.referee.events[-1] == {"type": "deal", "dealer": "Ana", "upcard": "5D"}
        return o

    o = dealt()
    out = o.observe(table("6D", (101.0, 99.0, 121.0, 131.0), (("5D", 0.1),)))
    assert [x["event"]["type"] for x in out if not x.get("proposed")] == ["draw", "meld"]
    [q] = [x for x in out if x.get("proposed")]
    assert q["event"] == {"type": "discard", "player": "Ben", "card": "6D"} and "5D read again" in q["message"]
    # elsewhere on the pile, or with no such other name: Ben's discard, applied
    for box, alts in [((160.0, 100.0, 180.0, 130.0), (("5D", 0.1),)), ((101.0, 99.0, 121.0, 131.0), ())]:
        o = dealt()
        o.observe(table("6D", box, alts))
        assert o.referee.events[-1] == {"type": "discard", "player": "Ben", "card": "6D"} and not o.pending()
