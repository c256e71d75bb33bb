"""The observer on a real camera's habits (snapshots, no model): a meld card's other index read as another card,
a question answered No that flickers back, a lay-off seen while the turn before it still waits on a question,
and a wait for firmer votes on a table that keeps moving (issue 12)."""

from referee import Match
from vision.observer import Observer
from vision.snapshot import Group, TableSnapshot

PLAYERS = ["Ana", "Ben", "Cleo"]
MATCH = {"type": "match", "rules": "basic", "players": PLAYERS}


def snap(discard=(), conf=None, alts=None, **zones):
    players = {p: tuple(Group(tuple(g), (0, 0, 1, 1)) for g in zones.get(p, [])) for p in PLAYERS}
    return TableSnapshot(discard=tuple(discard), players=players, confidence=conf or {}, alternatives=alts or {})


def kinds(o: Observer, start: int = 1) -> list[tuple]:
    return [(e["type"], e.get("player"), tuple(e.get("cards") or [e.get("card")])) for e in o.referee.events[start:]]


def ben_melded(o: Observer) -> None:
    o.observe(snap(["5D"]))
    o.observe(snap(["5D"], Ben=[["3C", "4C", "5C"]]))
    o.observe(snap(["5D", "QC"], Ben=[["3C", "4C", "5C"]]))
    assert kinds(o) == [("draw", "Ben", (None,)), ("meld", "Ben", ("3C", "4C", "5C")), ("discard", "Ben", ("QC",))]


def test_a_meld_cards_other_index_read_as_another_card_is_no_lay_off():
    """The 3C of Ben's meld is also seen by its other index, read 3S (the vote's runner-up 3C): 3S cannot go
    on 3C 4C 5C, so it is the 3C's, not a lay-off to ask about; the 6C laid beside it is one."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    phantom = {"3S": (("3C", 0.44),)}
    o.observe(snap(["5D", "QC"], conf={"3S": 0.56}, alts=phantom, Ben=[["3C", "4C", "5C", "3S"]]))
    assert not o.pending() and len(o.referee.events) == 4
    o.observe(snap(["5D", "QC"], conf={"3S": 0.56}, alts=phantom, Ben=[["3C", "4C", "5C", "3S", "6C"]]))
    assert not o.pending()
    assert kinds(o, 4) == [("draw", "Cleo", (None,)), ("lay_off", "Cleo", ("6C",))]


def test_a_card_in_the_place_of_an_unseen_meld_card_is_that_card():
    """The 3C is not seen and a 3S lies on the meld: one deck, the meld as it was put down, and the rules (3S
    does not fit there) say it is the 3C read anew. A card the rules accept there stays a lay-off."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    o.observe(snap(["5D", "QC"], Ben=[["3S", "4C", "5C"]]))
    assert not o.pending() and len(o.referee.events) == 4
    o.observe(snap(["5D", "QC"], Ben=[["3S", "4C", "5C", "6C"]]))
    assert kinds(o, 4) == [("draw", "Cleo", (None,)), ("lay_off", "Cleo", ("6C",))]


def test_a_new_card_the_vote_reads_first_as_a_card_that_fits_is_asked_not_taken_for_a_meld_card():
    """Cleo lays the 6C off at the end of Ben's 3C 4C 5C; its index is read 9C, with 6C and then 5C as the
    vote's second choices. 9C cannot go there, but 6C, still in a hand, can, and the vote named it before the
    5C: it is a new card misread, asked about with the 6C (classic hand 3, taught deck: a 3S laid under 4S..7S,
    read 9S, was taken for the run's 5S read anew and never seen). Where the vote names the meld's 5C first, it
    is the 5C's other index, as before."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    o.observe(snap(["5D", "QC"], conf={"9C": 0.45}, alts={"9C": (("6C", 0.3), ("5C", 0.2))},
                   Ben=[["3C", "4C", "5C", "9C"]]))
    (q,) = o.pending()
    assert q["event"] == {"type": "lay_off", "player": "Cleo", "cards": ["6C"], "meld": 1}
    o2 = Observer(Match(MATCH), "Ana")
    ben_melded(o2)
    o2.observe(snap(["5D", "QC"], conf={"9C": 0.45}, alts={"9C": (("5C", 0.3), ("6C", 0.2))},
                    Ben=[["3C", "4C", "5C", "9C"]]))
    assert not o2.pending() and len(o2.referee.events) == 4


def test_a_new_cards_other_index_read_as_another_card_is_not_part_of_the_lay_off():
    """Cleo lays the 6C off on Ben's 3C 4C 5C; its other index is read 9C (the vote's runner-up: 6C). "6C 9C"
    cannot go there, "6C" can: the 9C is the 6C seen twice, and the lay-off is the 6C alone (basic hand 3,
    taught deck: Ana's 8S on 8H 8D 8C also read 10S; "8S 10S" was asked, answered No, and the hand was lost)."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    o.observe(snap(["5D", "QC"], conf={"9C": 0.7}, alts={"9C": (("6C", 0.3),)},
                   Ben=[["3C", "4C", "5C", "6C", "9C"]]))
    assert not o.pending()
    assert kinds(o, 4) == [("draw", "Cleo", (None,)), ("lay_off", "Cleo", ("6C",))]


def test_a_card_misread_as_the_hidden_upcard_is_no_draw_from_the_pile():
    """The upcard is the 5D. Ben draws from the stock, melds 3C 4C 5C and discards the QC on the 5D, hiding it;
    his 5C is read 5D (runner-up 5C). The 5D is gone from sight and "in" his meld, but the meld as read breaks the
    rules and is asked about: that name is no evidence that he took the pile's 5D (basic hand 7, taught deck: a
    3S read 9S, the upcard, and the hand never added up)."""
    o = Observer(Match(MATCH), "Ana")
    o.observe(snap(["5D"]))
    o.observe(snap(["QC"], conf={"5D": 0.5}, alts={"5D": (("5C", 0.3),)}, Ben=[["3C", "4C", "5D"]]))
    assert kinds(o) == [("draw", "Ben", (None,))]
    assert o.referee.events[1]["from"] == "stock"
    (q,) = o.pending()  # the meld is asked about (the players name its third card)
    assert q["event"]["type"] == "meld" and q["event"]["player"] == "Ben" and q["event"]["cards"][:2] == ["3C", "4C"]


def test_a_card_the_players_leave_out_of_a_corrected_meld_is_no_lay_off_after():
    """Ben's 3C 4C 5C is read with a "6C" (the 5C's other index), unsure: asked, the players correct it to 3C 4C
    5C. The 6C read goes on showing, surer now: it is the misread the players left out, not Ben's lay-off
    (Solitaired hand 1, taught deck: an "AH" left out of 2H 3H 4H 5H was applied as a lay-off next)."""
    o = Observer(Match(MATCH), "Ana")
    o.observe(snap(["5D"]))
    o.observe(snap(["5D"], conf={"6C": 0.5}, Ben=[["3C", "4C", "5C", "6C"]]))
    (q,) = o.pending()
    assert q["event"]["cards"] == ["3C", "4C", "5C", "6C"]
    out = o.correct(q["id"], {"type": "meld", "player": "Ben", "cards": ["3C", "4C", "5C"]})
    assert out is not None and out["ok"]
    o.observe(snap(["5D"], conf={"6C": 0.9}, Ben=[["3C", "4C", "5C", "6C"]]))
    o.observe(snap(["5D", "QC"], conf={"6C": 0.9}, Ben=[["3C", "4C", "5C", "6C"]]))
    assert not o.pending()
    assert kinds(o) == [("draw", "Ben", (None,)), ("meld", "Ben", ("3C", "4C", "5C")), ("discard", "Ben", ("QC",))]


def test_a_refused_card_unlike_the_meld_is_still_reported():
    """A new card on a meld that is like none of its cards is not explained away: the referee refuses it."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    outs = o.observe(snap(["5D", "QC"], Ben=[["3C", "4C", "5C", "KD"]]))
    assert any(not x["ok"] for x in outs if not x.get("proposed")) or o.pending()


def test_a_lay_off_answered_no_is_not_asked_again_when_its_card_flickers():
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    shaky = {"6C": 0.5}
    o.observe(snap(["5D", "QC"], conf=shaky, Ben=[["3C", "4C", "5C", "6C"]]))
    (q,) = o.pending()
    assert q["event"]["type"] == "lay_off" and q["event"]["cards"] == ["6C"]
    assert o.reject(q["id"])
    o.observe(snap(["5D", "QC"], Ben=[["3C", "4C", "5C"]]))  # the card's track drops out a moment...
    o.observe(snap(["5D", "QC"], conf=shaky, Ben=[["3C", "4C", "5C", "6C"]]))  # ...and comes back
    assert not o.pending(), "a question answered No was asked again"
    # the same card laid on another meld is another question
    o.observe(snap(["5D", "QC"], conf=shaky, Ben=[["3C", "4C", "5C"]], Ana=[["6C", "6D", "6H"]]))
    assert o.pending()


def test_a_lay_off_seen_after_a_discard_waiting_behind_a_question_is_the_next_players():
    """Cleo lays down two kings (the third unseen: a question) and discards the JH; while the table waits for
    the answer the next player, Ana, draws and lays the 6C off on Ben's meld. Once the players answer, Cleo's
    turn ends with her discard, and the 6C is Ana's."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    kings = [["KS", "KH"]]
    o.observe(snap(["5D", "QC", "JH"], Ben=[["3C", "4C", "5C"]], Cleo=kings))
    (q,) = o.pending()
    assert q["event"]["type"] == "meld" and q["event"]["player"] == "Cleo"
    for pile in (["JH"], ["5D", "QC", "JH"], ["JH"], ["5D", "QC", "JH"]):  # the table moves on meanwhile
        o.observe(snap(pile, Ben=[["3C", "4C", "5C"]], Cleo=kings))
    o.observe(snap(["5D", "QC", "JH"], Ben=[["3C", "4C", "5C", "6C"]], Cleo=kings))
    out = o.correct(q["id"], {"type": "meld", "player": "Cleo", "cards": ["KS", "KH", "KD"]})
    assert out is not None and out["ok"]
    assert kinds(o, 4) == [("draw", "Cleo", (None,)), ("meld", "Cleo", ("KS", "KH", "KD")),
                           ("discard", "Cleo", ("JH",)), ("draw", "Ana", (None,)), ("lay_off", "Ana", ("6C",))]


def test_a_lay_off_named_just_after_the_discard_is_still_the_players():
    """The camera names a lay-off a moment after the discard that followed it: within `TURN_MARGIN` snapshots it
    is still the player's own."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    kings = [["KS", "KH"]]
    o.observe(snap(["5D", "QC", "JH"], Ben=[["3C", "4C", "5C"]], Cleo=kings))
    (q,) = o.pending()
    o.observe(snap(["5D", "QC", "JH"], Ben=[["3C", "4C", "5C", "6C"]], Cleo=kings))
    o.correct(q["id"], {"type": "meld", "player": "Cleo", "cards": ["KS", "KH", "KD"]})
    assert kinds(o, 4) == [("draw", "Cleo", (None,)), ("meld", "Cleo", ("KS", "KH", "KD")),
                           ("lay_off", "Cleo", ("6C",)), ("discard", "Cleo", ("JH",))]


def test_a_wait_for_firmer_votes_runs_on_while_the_table_moves():
    """An unsure meld waits `patience` frames for firmer votes; the frames of a moving table count (`tick`), and
    the cards listed in another order meanwhile do not start the wait again."""
    o = Observer(Match(MATCH), "Ana", patience=4)
    o.observe(snap(["5D"]))
    o.observe(snap(["5D"], conf={"9S": 0.5}, Ben=[["9H", "9D", "9S"]]))
    assert o.waiting and not o.pending()
    o.tick()
    o.tick()
    o.observe(snap(["5D"], conf={"9S": 0.5}, Ben=[["9S", "9D", "9H"]]))  # listed in another order: the same move
    assert o.waiting and not o.pending()
    o.tick()
    o.observe(snap(["5D"], conf={"9S": 0.5}, Ben=[["9S", "9D", "9H"]]))
    assert not o.waiting
    (q,) = o.pending()
    assert q["event"]["type"] == "meld" and sorted(q["event"]["cards"]) == ["9D", "9H", "9S"]


def test_offline_the_wait_is_for_a_still_table():
    """`track` (nobody to ask, proposals applied): a moving table's frames do not shorten the wait, since an
    unsure event applied early is applied unasked."""
    o = Observer(Match(MATCH), "Ana", patience=2, auto_confirm=True)
    o.observe(snap(["5D"]))
    o.observe(snap(["5D"], conf={"9S": 0.5}, Ben=[["9H", "9D", "9S"]]))
    assert o.waiting
    for _ in range(5):
        o.tick()
    assert o._looks == 1
    o.observe(snap(["5D"], conf={"9S": 0.5}, Ben=[["9H", "9D", "9S"]]))
    assert o.waiting  # the second look of a still table
    o.observe(snap(["5D"], conf={"9S": 0.5}, Ben=[["9H", "9D", "9S"]]))
    assert not o.waiting and o.referee.events[-1]["type"] == "meld"


def test_a_renamed_lay_off_answered_no_is_not_asked_again():
    """The camera reads a card laid on Ben's meld as 7C, which the rules refuse there; its runner-up 6C fits, so
    the players are asked "is it 6C?".  They answer No: the camera's own card (7C) is set aside with the name
    asked about, so the same question does not come back on every snapshot (basic hand 1 asked it 30 times)."""
    o = Observer(Match(MATCH), "Ana")
    ben_melded(o)
    look = snap(["5D", "QC"], conf={"7C": 0.6}, alts={"7C": (("6C", 0.3),)}, Ben=[["3C", "4C", "5C", "7C"]])
    o.observe(look)
    [p] = o.pending()
    assert p["event"]["type"] == "lay_off" and p["event"]["cards"] == ["6C"]
    assert o.reject(p["id"])
    for _ in range(3):
        o.observe(look)
        assert o.pending() == []
    assert kinds(o, 4) == [("draw", "Cleo", (None,))]


def placed(discard=(), conf=None, alts=None, boxes=None, **zones):
    return TableSnapshot(**{**snap(discard, conf, alts, **zones).__dict__, "boxes": boxes or {}})


def test_a_corrected_name_stays_with_the_card_the_players_corrected():
    """Ben's 4C is read 6C when he melds; the players confirm 3C 4C 5C, so the camera's 6C there is the 4C from
    then on.  Cleo then lays the real 6C on the end of the run: the camera's 6C now lies elsewhere, and is the
    lay-off, not the 4C read again (basic hand 1 lost the lay-off and every later one on that meld)."""
    o = Observer(Match(MATCH), "Ana")
    at = {"3C": (100, 100, 120, 140), "6C": (130, 100, 150, 140), "5C": (160, 100, 180, 140)}
    o.observe(placed(["5D"]))
    o.observe(placed(["5D"], conf={"6C": 0.6}, alts={"6C": (("4C", 0.35),)}, boxes=at, Ben=[["3C", "6C", "5C"]]))
    [p] = o.pending()
    assert p["event"]["cards"] == ["3C", "4C", "5C"]
    assert o.confirm(p["id"])["ok"]
    o.observe(placed(["5D", "QC"], boxes=at, Ben=[["3C", "6C", "5C"]]))
    assert kinds(o) == [("draw", "Ben", (None,)), ("meld", "Ben", ("3C", "4C", "5C")), ("discard", "Ben", ("QC",))]
    # the corrected card read 6C again where it lies: still the 4C, nothing new
    o.observe(placed(["5D", "QC"], boxes=at, Ben=[["3C", "6C", "5C"]]))
    assert len(o.referee.events) == 4 and not o.pending()
    # the real 6C laid beyond the 5C while the 4C is not seen: a lay-off
    later = {"3C": at["3C"], "5C": at["5C"], "6C": (190, 100, 210, 140)}
    o.observe(placed(["5D", "QC"], boxes=later, Ben=[["3C", "5C", "6C"]]))
    assert kinds(o, 4) == [("draw", "Cleo", (None,)), ("lay_off", "Cleo", ("6C",))]
