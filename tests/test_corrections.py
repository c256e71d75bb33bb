"""The host's evening in the engine (issue 13, referee/evening.py): correcting and deleting finished hands,
changing the target and the players between hands; replay of logs holding them; the refusals."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from referee import REFUSAL_CODES, Match, replay_lines
from referee.events import EVENT_WORDS

P3 = ["Ana", "Ben", "Cleo"]
BASIC3 = {"type": "match", "rules": "basic", "players": P3}  # target 150 with three players


def quick(winner, points, dealer=None, **more):
    ev = {"type": "hand_result", "winner": winner, "points": points, **more}
    if dealer:
        ev["dealer"] = dealer
    return ev


def ok(m: Match, ev: dict) -> None:
    v = m.apply(ev)
    assert v.ok, (ev, v)


def refused(m: Match, ev: dict, code: str) -> str:
    before = json.dumps(m.summary(), sort_keys=True, default=str)
    v = m.apply(ev)
    assert not v.ok and v.code == code, (ev, v)
    assert code in REFUSAL_CODES
    assert json.dumps(m.summary(), sort_keys=True, default=str) == before, "a refused event changed the match"
    return v.message


def two_hands() -> Match:
    """Ben wins hand 1 with 42, Cleo hand 2 with 110: Ana 0, Ben 42, Cleo 110 of 150."""
    m = Match(BASIC3)
    ok(m, quick("Ben", {"Ana": 12, "Ben": 0, "Cleo": 30}, dealer="Ana"))
    ok(m, quick("Cleo", {"Ana": 50, "Ben": 60, "Cleo": 0}))
    assert m.summary()["totals"] == {"Ana": 0, "Ben": 42, "Cleo": 110}
    return m


# -- correct_hand ----------------------------------------------------------------------------------------
def test_a_correction_changes_the_hand_and_the_totals_and_keeps_the_original():
    m = two_hands()
    ok(m, {"type": "correct_hand", "hand": 1, "points": {"Ben": 52}})
    s = m.summary()
    h1 = s["hands"][0]
    assert h1["points"] == {"Ana": 0, "Ben": 52, "Cleo": 0} and h1["corrected"] is True
    assert h1["original"]["points"] == {"Ana": 0, "Ben": 42, "Cleo": 0}
    assert s["totals"] == {"Ana": 0, "Ben": 52, "Cleo": 110}
    assert h1["totals_after"] == {"Ana": 0, "Ben": 52, "Cleo": 0}
    assert s["hands"][1]["totals_after"] == {"Ana": 0, "Ben": 52, "Cleo": 110}
    assert "corrected" not in s["hands"][1]
    # the log holds the correction as an event of its own, normalised: every player and the winner
    assert m.events[-1] == {"type": "correct_hand", "hand": 1, "points": {"Ana": 0, "Ben": 52, "Cleo": 0},
                            "winner": "Ben"}
    # the dealer rotation stands
    assert m.legal_moves()["dealer"] == "Cleo"


def test_a_correction_can_change_the_winner():
    m = two_hands()
    # where only going out scores, the one player given points is the one who went out
    ok(m, {"type": "correct_hand", "hand": 1, "points": {"Ben": 0, "Ana": 30}})
    h1 = m.summary()["hands"][0]
    assert h1["winner"] == "Ana" and h1["result"] == "out" and h1["original"]["winner"] == "Ben"
    assert m.summary()["totals"] == {"Ana": 30, "Ben": 0, "Cleo": 110}
    # nobody went out: a stalemate, nobody scores
    ok(m, {"type": "correct_hand", "hand": 1, "points": {"Ana": 0}, "winner": None})
    h1 = m.summary()["hands"][0]
    assert h1["winner"] is None and h1["result"] == "stalemate" and h1["points"] == {"Ana": 0, "Ben": 0, "Cleo": 0}


def test_going_back_to_the_figures_as_played_clears_the_mark():
    m = two_hands()
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 100}})
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 110}})
    assert "corrected" not in m.summary()["hands"][1] and "original" not in m.summary()["hands"][1]
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 90}})
    ok(m, {"type": "correct_hand", "hand": 2, "restore": True})
    h2 = m.summary()["hands"][1]
    assert h2["points"]["Cleo"] == 110 and "corrected" not in h2
    assert m.summary()["totals"]["Cleo"] == 110


def test_void_deletes_a_hand_it_stays_listed_as_zero():
    m = two_hands()
    ok(m, {"type": "correct_hand", "hand": 2, "void": True})
    s = m.summary()
    assert len(s["hands"]) == 2 and s["hands"][1]["void"] is True
    assert s["hands"][1]["points"] == {"Ana": 0, "Ben": 0, "Cleo": 0}
    assert s["hands"][1]["original"]["points"]["Cleo"] == 110
    assert s["totals"] == {"Ana": 0, "Ben": 42, "Cleo": 0}
    # the numbering goes on: the next hand is hand 3, dealt by the next dealer as before
    assert m.legal_moves()["dealer"] == "Cleo"
    ok(m, {"type": "deal", "dealer": "Cleo", "upcard": "KD"})
    assert m.public_state()["current"]["number"] == 3
    refused(m, {"type": "correct_hand", "hand": 2, "void": True}, "bad_correction")  # already deleted


def test_points_for_a_deleted_hand_bring_it_back():
    m = two_hands()
    ok(m, {"type": "correct_hand", "hand": 2, "void": True})
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 80}})
    h2 = m.summary()["hands"][1]
    assert "void" not in h2 and h2["corrected"] is True and h2["points"] == {"Ana": 0, "Ben": 0, "Cleo": 80}


def test_a_deleted_hand_does_not_count_towards_a_fixed_number_of_hands():
    m = Match({"type": "match", "rules": "classic", "players": ["Ana", "Ben"], "options": {"match_hands": 2}})
    ok(m, quick("Ana", {"Ana": 0, "Ben": 10}, dealer="Ana"))
    ok(m, quick("Ben", {"Ana": 25, "Ben": 0}))
    assert m.match_over and m.match_winner == "Ben"
    ok(m, {"type": "correct_hand", "hand": 2, "void": True})  # reopens: one hand counts, one more to play
    assert not m.match_over and m.match_winner is None
    ok(m, quick("Ben", {"Ana": 5, "Ben": 0}))
    assert m.match_over and m.match_winner == "Ana"


def test_a_correction_between_hands_can_end_the_match():
    m = two_hands()
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 160}})
    assert m.match_over and m.match_winner == "Cleo"
    refused(m, {"type": "deal", "dealer": "Cleo", "upcard": "KD"}, "match_over")
    # and a correction can reopen it: the match goes on, the next dealer as before
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 140}})
    assert not m.match_over and m.match_winner is None
    ok(m, {"type": "deal", "dealer": "Cleo", "upcard": "KD"})


def test_a_finished_match_reopens_when_its_last_hand_is_corrected():
    m = two_hands()
    ok(m, quick("Cleo", {"Ana": 20, "Ben": 25, "Cleo": 0}))  # Cleo 155: over
    assert m.match_over and m.match_winner == "Cleo"
    assert m.legal_moves()["allowed"] == ["correct_hand", "set_target"]
    ok(m, {"type": "correct_hand", "hand": 3, "points": {"Cleo": 0, "Ben": 40}})
    assert not m.match_over and m.summary()["totals"] == {"Ana": 0, "Ben": 82, "Cleo": 110}
    assert m.legal_moves()["phase"] == "between_hands"


def test_a_correction_during_a_hand_changes_the_totals_now_and_the_end_waits_for_the_hand():
    m = two_hands()
    ok(m, {"type": "deal", "dealer": "Cleo", "upcard": "KD"})
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 200}})
    assert m.summary()["totals"]["Cleo"] == 200
    assert not m.match_over, "the end of the match is checked when the hand ends"
    assert m.public_state()["current"]["number"] == 3
    refused(m, {"type": "correct_hand", "hand": 3, "void": True}, "no_such_hand")  # still being played
    ok(m, {"type": "end_hand", "reason": "stalemate"})  # Basic: an agreed stalemate ends the hand, no points
    assert m.match_over and m.match_winner == "Cleo"


def test_a_played_hand_can_be_corrected_too():
    m = Match(BASIC3)
    for ev in [
        {"type": "deal", "dealer": "Ana", "upcard": "KD"},
        {"type": "draw", "player": "Ben", "from": "stock", "card": "KS"},
        {"type": "meld", "player": "Ben", "cards": ["3H", "4H", "5H", "6H", "7H", "8H", "9H"]},
        {"type": "discard", "player": "Ben", "card": "KS"},
        {"type": "reveal", "player": "Cleo", "cards": ["2D", "3D", "4D", "5D", "6D", "7D", "8D"]},
        {"type": "reveal", "player": "Ana", "cards": ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]},
    ]:
        ok(m, ev)
    h = m.summary()["hands"][0]
    assert h["winner"] == "Ben" and h["going_rummy"] is True and h["points"]["Ben"] == 140
    assert m.match_over is False
    ok(m, {"type": "correct_hand", "hand": 1, "points": {"Ben": 70}})
    h = m.summary()["hands"][0]
    assert h["points"]["Ben"] == 70 and h["going_rummy"] is True and h["details"]["Cleo"]["hand_points"] == 35


def test_rummy500_corrections_may_be_negative_and_give_anyone_points():
    m = Match({"type": "match", "rules": "rummy500", "players": P3})
    ok(m, quick("Ana", {"Ana": 0, "Ben": 20, "Cleo": 5}, dealer="Ana", melded={"Ana": 60, "Ben": 10, "Cleo": 30}))
    assert m.summary()["totals"] == {"Ana": 60, "Ben": -10, "Cleo": 25}
    ok(m, {"type": "correct_hand", "hand": 1, "points": {"Ben": -15, "Cleo": 30}})
    assert m.summary()["totals"] == {"Ana": 60, "Ben": -15, "Cleo": 30}
    assert m.summary()["hands"][0]["winner"] == "Ana"
    ok(m, {"type": "correct_hand", "hand": 1, "points": {"Ana": 510}})
    assert m.match_over and m.match_winner == "Ana"


def test_correction_refusals():
    m = two_hands()
    for ev, code in [
        ({"type": "correct_hand"}, "bad_event"),
        ({"type": "correct_hand", "hand": 0, "void": True}, "no_such_hand"),
        ({"type": "correct_hand", "hand": 3, "void": True}, "no_such_hand"),
        ({"type": "correct_hand", "hand": True, "void": True}, "bad_correction"),
        ({"type": "correct_hand", "hand": "two", "void": True}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "void": True, "points": {"Ben": 3}}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "void": "yes"}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "restore": True}, "bad_correction"),  # nothing corrected
        ({"type": "correct_hand", "hand": 1, "points": []}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "points": {}}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": -5}}, "bad_correction"),  # never negative here
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": 2.5}}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": True}}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": 10**6}}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": 42}}, "bad_correction"),  # no change
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": 10, "Ana": 5}}, "bad_correction"),  # two score
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": 10}, "winner": "Ana"}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": 10}, "winner": None}, "bad_correction"),
        ({"type": "correct_hand", "hand": 1, "points": {"Dan": 10}}, "unknown_player"),
        ({"type": "correct_hand", "hand": 1, "points": {"Ben": 10}, "winner": "Dan"}, "unknown_player"),
    ]:
        refused(m, ev, code)
    msg = refused(m, {"type": "correct_hand", "hand": 5, "void": True}, "no_such_hand")
    assert "hands 1 to 2" in msg
    msg = refused(m, {"type": "correct_hand"}, "bad_event")
    assert "a correction of a hand" in msg and "the hand's number" in msg
    assert "one player only" in refused(m, {"type": "correct_hand", "hand": 1, "points": {"Ben": 10, "Ana": 5}},
                                        "bad_correction")
    m0 = Match(BASIC3)
    assert "no hand has ended yet" in refused(m0, {"type": "correct_hand", "hand": 1, "void": True}, "no_such_hand")


# -- set_target ------------------------------------------------------------------------------------------
def test_set_target_between_hands():
    m = two_hands()
    ok(m, {"type": "set_target", "target": 250})
    s = m.summary()
    assert s["target"] == 250 and s["options"]["target"] == 250
    ok(m, quick("Cleo", {"Ana": 30, "Ben": 30, "Cleo": 0}))  # Cleo 170: would have ended at 150
    assert not m.match_over
    ok(m, {"type": "set_target", "target": 171})
    ok(m, quick("Cleo", {"Ana": 1, "Ben": 0, "Cleo": 0}))
    assert m.match_over and m.match_winner == "Cleo"


def test_set_target_refuses_a_target_already_reached():
    m = two_hands()
    msg = refused(m, {"type": "set_target", "target": 110}, "target_reached")
    assert "Cleo already has 110" in msg and "above 110" in msg
    refused(m, {"type": "set_target", "target": 150}, "bad_target")  # the target already
    for bad in (0, -5, 2.5, "200", True, 10**10, None):
        refused(m, {"type": "set_target", "target": bad}, "bad_event" if bad is None else "bad_target")


def test_set_target_reopens_a_finished_match():
    m = two_hands()
    ok(m, quick("Cleo", {"Ana": 20, "Ben": 25, "Cleo": 0}))
    assert m.match_over
    refused(m, {"type": "set_target", "target": 155}, "target_reached")
    ok(m, {"type": "set_target", "target": 300})
    assert not m.match_over and m.match_winner is None
    ok(m, {"type": "deal", "dealer": "Ana", "upcard": "KD"})


def test_set_target_refused_during_a_hand_and_without_a_target():
    m = two_hands()
    ok(m, {"type": "deal", "dealer": "Cleo", "upcard": "KD"})
    assert "between hands" in refused(m, {"type": "set_target", "target": 300}, "hand_in_progress")
    m2 = Match({"type": "match", "rules": "classic", "players": ["Ana", "Ben"], "options": {"match_hands": 5}})
    refused(m2, {"type": "set_target", "target": 300}, "bad_target")
    assert "set_target" not in m2.legal_moves()["allowed"]


# -- seat_players ----------------------------------------------------------------------------------------
def test_a_player_joins_between_hands():
    m = two_hands()
    ok(m, {"type": "seat_players", "players": ["Ana", "Ben", "Cleo", "Dan"]})
    s = m.summary()
    assert s["players"] == ["Ana", "Ben", "Cleo", "Dan"]
    assert s["totals"] == {"Ana": 0, "Ben": 42, "Cleo": 110, "Dan": 0}  # a new player starts at 0
    assert s["target"] == 200  # the preset's target for four players: it follows the count
    assert m.rules.hand_size == 7 and m.rules.n_players == 4
    assert m.legal_moves()["dealer"] == "Cleo"  # the next dealer as before
    ok(m, {"type": "hand_result", "winner": "Dan", "points": {"Ana": 10, "Ben": 10, "Cleo": 10, "Dan": 0}})
    h3 = m.summary()["hands"][2]
    assert h3["dealer"] == "Cleo" and h3["points"]["Dan"] == 30 and h3["totals_after"]["Dan"] == 30
    assert m.legal_moves()["dealer"] == "Dan"


def test_a_player_leaves_and_comes_back():
    m = two_hands()
    ok(m, {"type": "seat_players", "players": ["Ana", "Ben"]})
    s = m.summary()
    assert s["totals"] == {"Ana": 0, "Ben": 42} and s["target"] == 100  # two players: 100
    assert s["left_players"] == ["Cleo"] and s["left_totals"] == {"Cleo": 110}
    assert s["hands"][1]["points"]["Cleo"] == 110  # the leaving player's hands stay in the history
    # Cleo was to deal next and left: the first one after her, clockwise, who is still seated
    assert m.legal_moves()["dealer"] == "Ana"
    ok(m, {"type": "deal", "dealer": "Ana", "upcard": "KD"})
    assert m.public_state()["current"]["hand_counts"] == {"Ana": 10, "Ben": 10}  # two players: ten cards
    ok(m, {"type": "end_hand", "reason": "stalemate"})
    # the hand that just ended is cleared from the table when the seating changes; Cleo has her total again
    ok(m, {"type": "seat_players", "players": ["Cleo", "Ana", "Ben"]})
    s = m.summary()
    assert s["totals"] == {"Cleo": 110, "Ana": 0, "Ben": 42} and "left_players" not in s
    assert m.public_state()["current"] is None
    assert m.legal_moves()["dealer"] == "Ben"
    # the leaving player's hand can still be corrected
    ok(m, {"type": "seat_players", "players": ["Ana", "Ben"]})
    ok(m, {"type": "correct_hand", "hand": 2, "points": {"Cleo": 100}})
    assert m.summary()["left_totals"] == {"Cleo": 100}


def test_seating_refusals():
    m = two_hands()
    assert "2, 3 or 4" in refused(m, {"type": "seat_players", "players": ["A", "B", "C", "D", "E"]},
                                  "bad_player_count")
    refused(m, {"type": "seat_players", "players": ["Ana"]}, "bad_player_count")
    refused(m, {"type": "seat_players", "players": P3}, "bad_seating")  # nothing changes
    refused(m, {"type": "seat_players", "players": ["Ana", "Ana", "Ben"]}, "bad_seating")
    refused(m, {"type": "seat_players", "players": []}, "bad_seating")
    refused(m, {"type": "seat_players", "players": "Ana, Ben"}, "bad_seating")
    refused(m, {"type": "seat_players", "players": ["Ana", "   "]}, "bad_seating")
    refused(m, {"type": "seat_players", "players": ["Ana", 7]}, "bad_seating")
    refused(m, {"type": "seat_players", "players": ["Ana", "B\nen"]}, "bad_seating")
    refused(m, {"type": "seat_players"}, "bad_event")
    ok(m, {"type": "deal", "dealer": "Cleo", "upcard": "KD"})
    refused(m, {"type": "seat_players", "players": ["Ana", "Ben"]}, "hand_in_progress")
    sol = Match({"type": "match", "rules": "solitaired", "players": ["A", "B", "C", "D"]})
    assert "4 players" in refused(sol, {"type": "seat_players", "players": ["A", "B", "C"]}, "bad_player_count")


def test_a_seating_that_would_end_the_match_is_refused():
    m = two_hands()
    ok(m, quick("Cleo", {"Ana": 10, "Ben": 10, "Cleo": 0}))  # Cleo 130 of 150
    msg = refused(m, {"type": "seat_players", "players": ["Ana", "Cleo"]}, "target_reached")  # 2 players: 100
    assert "100" in msg and "Cleo already has 130" in msg
    ok(m, {"type": "set_target", "target": 200})  # set explicitly: it stays whatever the count
    ok(m, {"type": "seat_players", "players": ["Ana", "Cleo"]})
    assert m.summary()["target"] == 200


def test_seating_refused_once_the_match_is_over():
    m = two_hands()
    ok(m, quick("Cleo", {"Ana": 20, "Ben": 25, "Cleo": 0}))
    refused(m, {"type": "seat_players", "players": ["Ana", "Ben"]}, "match_over")


def test_rummy500_decks_follow_the_player_count():
    m = Match({"type": "match", "rules": "rummy500", "players": ["A", "B", "C", "D"]})
    ok(m, quick("A", {"A": 0, "B": 5, "C": 5, "D": 5}, dealer="A", melded={"A": 30, "B": 0, "C": 0, "D": 0}))
    ok(m, {"type": "seat_players", "players": ["A", "B", "C", "D", "E"]})
    assert m.rules.decks == 2
    ok(m, {"type": "deal", "dealer": "B", "upcard": "7S"})
    ok(m, {"type": "draw", "player": "C", "from": "stock", "card": "7S"})  # two decks: a second 7S exists


def test_seating_before_the_first_hand_leaves_the_first_dealer_free():
    m = Match(BASIC3)
    ok(m, {"type": "seat_players", "players": ["Ben", "Ana"]})
    assert m.legal_moves()["dealer"] is None
    ok(m, {"type": "deal", "dealer": "Ana", "upcard": "KD"})


# -- replay, the contract's command, and what a rematch starts from ------------------------------------------
EVENING_LOG = [
    BASIC3,
    quick("Ben", {"Ana": 12, "Ben": 0, "Cleo": 30}, dealer="Ana"),
    quick("Cleo", {"Ana": 50, "Ben": 60, "Cleo": 0}),
    {"type": "correct_hand", "hand": 1, "points": {"Ben": 52}},
    {"type": "correct_hand", "hand": 2, "void": True},
    {"type": "correct_hand", "hand": 7, "void": True},  # refused: there is no hand 7
    {"type": "set_target", "target": 120},
    {"type": "seat_players", "players": ["Ana", "Ben", "Cleo", "Dan"]},
    quick("Dan", {"Ana": 30, "Ben": 30, "Cleo": 30, "Dan": 0}),
    {"type": "correct_hand", "hand": 3, "points": {"Dan": 130}},
]


def test_replay_of_a_log_with_corrections():
    lines = [json.dumps(e) for e in EVENING_LOG]
    res = replay_lines(lines)
    assert [e["ok"] for e in res["events"]] == [True, True, True, True, False, True, True, True, True]
    assert res["events"][4]["code"] == "no_such_hand"
    assert [h["number"] for h in res["hands"]] == [1, 2, 3]
    assert res["hands"][0]["corrected"] is True and res["hands"][1]["void"] is True
    assert res["totals"] == {"Ana": 0, "Ben": 52, "Cleo": 0, "Dan": 130}
    assert res["match_over"] is True and res["match_winner"] == "Dan" and res["target"] == 120
    # the same through Match.from_log and its own log
    m = Match.from_log(lines)
    again = replay_lines(m.log_lines())
    assert {k: again[k] for k in ("hands", "totals", "match_over", "match_winner")} == \
           {k: res[k] for k in ("hands", "totals", "match_over", "match_winner")}


def test_rummy_referee_replay_reads_the_corrections(tmp_path):
    log = tmp_path / "evening.jsonl"
    log.write_text("\n".join(json.dumps(e) for e in EVENING_LOG) + "\n")
    r = subprocess.run([sys.executable, "-m", "rummy_referee", "replay", str(log), "--json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["totals"] == {"Ana": 0, "Ben": 52, "Cleo": 0, "Dan": 130} and out["match_winner"] == "Dan"


def test_check_changes_nothing_and_undo_by_rebuild_gives_the_state_back():
    m = Match.from_log([json.dumps(e) for e in EVENING_LOG[:3]])
    before = json.dumps(m.summary(), sort_keys=True, default=str)
    assert m.check({"type": "correct_hand", "hand": 1, "void": True}).ok
    assert m.check({"type": "seat_players", "players": ["Ana", "Ben"]}).ok
    assert json.dumps(m.summary(), sort_keys=True, default=str) == before
    ok(m, {"type": "correct_hand", "hand": 1, "void": True})
    rebuilt = Match.from_events(m.setup, m.events[:-1])
    assert json.dumps(rebuilt.summary(), sort_keys=True, default=str) == before


def test_rematch_setup_and_first_dealer():
    m = Match.from_log([json.dumps(e) for e in EVENING_LOG[:3]])
    assert m.first_dealer() == "Ana"
    ok(m, {"type": "set_target", "target": 300})
    ok(m, {"type": "seat_players", "players": ["Ben", "Ana", "Dan"]})
    assert m.rematch_setup() == {"type": "match", "rules": "basic", "players": ["Ben", "Ana", "Dan"],
                                 "options": {"target": 300}}
    Match(m.rematch_setup())  # a valid match line
    assert Match(BASIC3).rematch_setup() == {"type": "match", "rules": "basic", "players": P3}


def test_the_new_events_have_players_words_and_codes():
    for t in ("correct_hand", "set_target", "seat_players"):
        assert t in EVENT_WORDS
    for code in ("no_such_hand", "bad_correction", "bad_target", "target_reached", "bad_seating", "bad_player_count"):
        assert code in REFUSAL_CODES
    m = two_hands()
    assert "the target score" in refused(m, {"type": "set_target"}, "bad_event")
    assert "the players" in refused(m, {"type": "seat_players"}, "bad_event")


@pytest.mark.parametrize("rules,players", [("basic", 2), ("classic", 6), ("rummy500", 8), ("solitaired", 4)])
def test_legal_moves_name_the_hosts_changes_between_hands(rules, players):
    names = [f"P{i}" for i in range(players)]
    m = Match({"type": "match", "rules": rules, "players": names})
    allowed = m.legal_moves()["allowed"]
    assert allowed[:2] == ["deal", "hand_result"] and "seat_players" in allowed and "correct_hand" not in allowed
