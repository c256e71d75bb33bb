"""Unit tests: card notation, presets and options, meld utilities, the replay command."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from referee import CardError, Match, SetupError, make_rules, parse_card, parse_played, replay_lines
from referee.melds import MeldProblem, classify, hand_value, meld_card_value


@pytest.mark.parametrize("text,card", [
    ("10H", "10H"), ("th", "10H"), ("T♥", "10H"), ("10♥", "10H"), ("as", "AS"), ("qd", "QD"), ("K♣", "KC"),
    ("jk", "JK"), (" 7s ", "7S"),
])
def test_parse_card(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("bad", ["", "11H", "ZZ", "10X", "H10", "JK=8S", 7, None])
def test_parse_card_errors_name_the_text(bad):
    with pytest.raises(CardError) as exc:
        parse_card(bad)
    assert repr(bad) in str(exc.value) or str(bad) in str(exc.value)


def test_parse_joker_declaration():
    pc = parse_played("JK=8s")
    assert (pc.card, pc.rep, pc.text()) == ("JK", "8S", "JK=8S")
    assert parse_played("JK").rep is None
    with pytest.raises(CardError):
        parse_played("QS=8S")


def test_presets_and_options():
    assert make_rules("basic", 2).target == 100
    assert make_rules("basic", 4).target == 200
    assert make_rules("rummy500", 5).decks == 2
    assert make_rules("rummy500", 5, {"decks": 1}).deck_size == 54
    assert make_rules("classic", 2, {"ace_mode": "high_or_low"}).values == "basic_ace15"
    assert make_rules("classic", 2, {"ace_mode": "high_or_low", "values": "basic"}).values == "basic"
    r = make_rules("classic", 3, {"match_hands": 5})
    assert (r.target, r.match_hands) == (None, 5)
    assert make_rules("classic", 3, {"tie_rule": "shared"}).tie_rule == "shared_win"


@pytest.mark.parametrize("rules,n,options,code", [
    ("solitaired", 3, {}, "bad_player_count"),
    ("basic", 5, {}, "bad_player_count"),
    ("nope", 2, {}, "unknown_rules"),
    ("basic", 2, {"colour": "red"}, "unknown_option"),
    ("basic", 2, {"ace_mode": "sideways"}, "bad_option"),
    ("basic", 2, {"target": -5}, "bad_option"),
    ("basic", 2, {"max_melds_per_turn": 0}, "bad_option"),
    ("basic", 2, {"floating": "yes"}, "bad_option"),
    ("rummy500", 8, {"decks": 1}, "bad_option"),
])
def test_bad_setups(rules, n, options, code):
    with pytest.raises(SetupError) as exc:
        make_rules(rules, n, options)
    assert exc.value.code == code
    assert exc.value.message


def test_match_setup_errors():
    with pytest.raises(SetupError):
        Match({"type": "match", "rules": "basic", "players": ["A", "A"]})
    with pytest.raises(SetupError):
        Match({"type": "deal", "rules": "basic", "players": ["A", "B"]})


def _pcs(*cards):
    return [parse_played(c) for c in cards]


def test_meld_values_r500():
    def total(cards, **kw):
        shape = classify(_pcs(*cards), "high_or_low")
        return sum(meld_card_value(pc, shape, kw.get("values", "r500"), kw.get("joker", "fixed15"))
                   for pc in shape.cards)
    assert total(["AS", "2S", "3S"]) == 6
    assert total(["QS", "KS", "AS"]) == 35
    assert total(["AC", "AD", "AH"]) == 45
    assert total(["7S", "JK=8S", "9S"]) == 31
    assert total(["7S", "JK=8S", "9S"], joker="represented") == 24
    assert total(["AS", "2S", "3S"], values="r500_5_10_15") == 15
    assert hand_value("AS", "r500") == 15 and hand_value("JK", "r500") == 15
    assert hand_value("9D", "r500_5_10_15") == 5


def test_meld_rules():
    with pytest.raises(MeldProblem):
        classify(_pcs("KS", "AS", "2S"), "high_or_low")
    with pytest.raises(MeldProblem):
        classify(_pcs("QS", "KS", "AS"), "low")
    with pytest.raises(MeldProblem):
        classify(_pcs("5D", "5D", "5H"), "high_or_low")
    assert classify(_pcs(*[r + "D" for r in "A 2 3 4 5 6 7 8 9 10 J Q K".split()]), "low").kind == "run"


def test_replay_contract_shape_and_refusals():
    lines = [
        json.dumps({"type": "match", "rules": "basic", "players": ["Ana", "Ben"]}),
        json.dumps({"type": "deal", "dealer": "Ana", "upcard": "2C"}),
        "{not json",
        json.dumps({"type": "draw", "player": "Ana", "from": "stock"}),
        json.dumps({"type": "draw", "player": "Ben", "from": "stock"}),
        json.dumps({"type": "discard", "player": "Ben"}),
        json.dumps({"type": "discard", "player": "Ben", "card": "ZZ"}),
        json.dumps({"type": "discard", "player": "Ben", "card": "5D"}),
    ]
    out = replay_lines(lines)
    assert set(out) >= {"rules", "players", "events", "hands", "totals", "match_over", "match_winner"}
    ev = out["events"]
    assert [e["line"] for e in ev] == [2, 3, 4, 5, 6, 7, 8]
    assert [e["ok"] for e in ev] == [True, False, False, True, False, False, True]
    assert ev[1]["code"] == "bad_json"
    assert ev[2]["code"] == "not_your_turn" and "Ben" in ev[2]["message"]
    assert ev[4]["code"] == "bad_event"
    assert ev[5]["code"] == "bad_card" and "ZZ" in ev[5]["message"]
    assert out["totals"] == {"Ana": 0, "Ben": 0} and out["hands"] == []


def test_replay_cli(tmp_path):
    log = tmp_path / "game.jsonl"
    log.write_text(json.dumps({"type": "match", "rules": "classic", "players": ["A", "B"]}) + "\n"
                   + json.dumps({"type": "deal", "dealer": "A", "upcard": "KD"}) + "\n")
    run = [sys.executable, "-m", "rummy_referee", "replay"]
    ok = subprocess.run(run + [str(log), "--json"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["events"] == [{"line": 2, "ok": True}]
    text = subprocess.run(run + [str(log)], capture_output=True, text=True)
    assert text.returncode == 0 and "Totals" in text.stdout
    missing = subprocess.run(run + [str(tmp_path / "nope.jsonl"), "--json"], capture_output=True, text=True)
    assert missing.returncode == 2 and "cannot read" in missing.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"type": "match", "rules": "basic", "players": ["A"]}) + "\n")
    res = subprocess.run(run + [str(bad), "--json"], capture_output=True, text=True)
    assert res.returncode == 2 and "players" in res.stderr


def test_undo_is_replay_without_last_event():
    m = Match({"rules": "basic", "players": ["A", "B"]})
    assert m.apply({"type": "deal", "dealer": "A", "upcard": "2C"}).ok
    assert m.apply({"type": "draw", "player": "B", "from": "stock"}).ok
    before = m.public_state()
    assert m.apply({"type": "discard", "player": "B", "card": "9S"}).ok
    undone = Match.from_events(m.setup, m.events[:-1])
    assert undone.public_state() == before


def test_an_event_missing_a_field_is_refused_in_players_words():
    m = Match({"type": "match", "rules": "basic", "players": ["Ana", "Ben"]})
    v = m.apply({"type": "deal", "dealer": "Ana"})
    assert not v.ok and v.code == "bad_event"
    assert v.message.startswith("a deal needs the first card of the discard pile (field 'upcard')")
