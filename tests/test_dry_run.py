"""The referee's dry run, `Match.check(event)`: the verdict `apply` would give, changing nothing; and the
camera's legality checks, which must answer the same through the dashboard's referee as through the engine."""

from __future__ import annotations

import pytest

import referee
from referee import Match
from referee.sim import Simulator
from tests.scenario_kit import Game
from tests.test_referee_properties import fingerprint
from vision.observer import Observer
from vision.snapshot import Group, TableSnapshot


class CheckingSimulator(Simulator):
    """Every move, legal or not, is checked first: the check changes nothing and agrees with `apply`."""

    checked = 0

    def apply(self, ev, must=True):
        m = self.match
        before = fingerprint(m)
        dry = m.check(ev)
        assert fingerprint(m) == before, f"check changed the state: {ev}"
        self.checked += 1
        if not dry.ok:
            assert m.apply(ev) == dry and fingerprint(m) == before
        n = len(m.events)
        done = super().apply(ev, must)
        assert (len(m.events) == n + 1) == dry.ok, f"check said {dry}: {ev}"
        if done and len(self.log) % 5 == 0 and m.hand is not None:
            for bad in self.illegal_moves():
                before = fingerprint(m)
                dry = m.check(bad)
                assert not dry.ok and dry.code and fingerprint(m) == before, bad
                assert m.apply(bad) == dry and fingerprint(m) == before, bad
                self.checked += 1
        return done


@pytest.mark.parametrize("rules,n,options", [
    ("basic", 3, None), ("classic", 4, None), ("rummy500", 4, None),
    ("rummy500", 3, {"floating": True}), ("basic", 3, {"recycle_trigger": "on_demand"}),
])
def test_check_agrees_with_apply_and_changes_nothing(rules, n, options):
    sim = CheckingSimulator(rules, [f"P{i + 1}" for i in range(n)], options, seed=7)
    sim.play_match(max_hands=3)
    assert sim.checked > 20


def test_check_of_the_turned_over_top_discard_warns_and_changes_nothing():
    """AMB-04 / G06: the stock draw of the card that should have stayed on the pile is accepted with a
    warning; the dry run says so without moving the card."""
    g = Game("classic", 2)
    g.deal()
    g.cycle(31)
    top = g.pile[-1]
    line = g.draw(g.turn, top)
    m = referee.Match.from_log(g.text_lines(line - 1))
    ev = g.lines[line - 1]
    before = fingerprint(m)
    dry = m.check(ev)
    assert dry.ok and dry.warnings
    assert fingerprint(m) == before
    assert m.apply(ev) == dry
    assert fingerprint(m) != before


def test_check_after_events_uses_a_trial_and_reports_the_first_refusal():
    m = Match({"type": "match", "rules": "basic", "players": ["Ana", "Ben"]})
    m.apply({"type": "deal", "dealer": "Ana", "upcard": "5C"})
    before = fingerprint(m)
    meld = {"type": "meld", "player": "Ben", "cards": ["7H", "8H", "9H"]}
    assert m.check(meld).code == "must_draw_first"
    assert m.check(meld, after=[{"type": "draw", "player": "Ben", "from": "stock"}]).ok
    assert m.check(meld, after=[{"type": "draw", "player": "Ana", "from": "stock"}]).code == "not_your_turn"
    assert fingerprint(m) == before


# ---- the camera's legality checks through the dashboard's referee ----------------------------------------

PLAYERS = ["Ana", "Ben", "Cleo"]


def snap(discard=(), **zones):
    players = {p: tuple(Group(tuple(g), (0, 0, 1, 1)) for g in zones.get(p, [])) for p in PLAYERS}
    return TableSnapshot(discard=tuple(discard), players=players, confidence={})


@pytest.fixture(params=["engine", "dashboard"])
def make_referee(request, tmp_path):
    """A factory of referees for a new match: the engine itself, or `web_ui.camera.MatchReferee` on a match
    of a real dashboard (events stored, state read back)."""
    apps = []

    def make(setup: dict):
        if request.param == "engine":
            return Match(setup)
        from web_ui import create_app
        from web_ui.camera import MatchReferee
        from web_ui.services import get_matches

        app = create_app({"DATABASE": str(tmp_path / f"m{len(apps)}.db"), "TESTING": True})
        apps.append(app)
        r = app.test_client().post("/api/matches", json=setup)
        assert r.status_code == 201, r.get_json()
        return MatchReferee(get_matches(app), r.get_json()["id"])

    yield make
    from web_ui.services import get_store

    for app in apps:
        get_store(app).close()


def test_a_group_that_is_no_layoff_is_not_sent_as_one(make_referee):
    """Rummy 500: cards in the player's own zone that fit no meld are a meld being laid out, not a lay-off.
    The observer asks the referee whether the lay-off would be accepted; on the dashboard it used to be told
    yes (the camera referee could not be copied), so the refused lay-off reached the match's feed."""
    ref = make_referee({"type": "match", "rules": "rummy500", "players": PLAYERS})
    o = Observer(ref, "Ana")
    o.observe(snap(["5C"]))
    o.observe(snap(["5C"], Ben=[["7H", "8H", "9H"]]))
    o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]]))
    assert o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]], Cleo=[["KD", "KS"]])) == []
    assert all(x["ok"] for x in o.outcomes)
    out = o.observe(snap(["5C", "2S"], Ben=[["7H", "8H", "9H"]], Cleo=[["10H"], ["KD", "KS"]]))
    assert [x["event"] for x in out] == [{"type": "draw", "player": "Cleo", "from": "stock"},
                                         {"type": "lay_off", "player": "Cleo", "cards": ["10H"], "meld": 1}]


def test_an_event_the_referee_would_refuse_waits_for_more_looks(make_referee):
    """With patience, a meld the referee would refuse (a card misread, a meld still being laid out) is looked
    at again before it is sent; the live camera skipped that wait on the dashboard."""
    ref = make_referee({"type": "match", "rules": "basic", "players": PLAYERS})
    o = Observer(ref, "Ana", patience=2)
    o.observe(snap(["5C"]))
    bad = snap(["5C"], Ben=[["7H", "8C", "KD"]])
    assert o.observe(bad) == [] and o.waiting
    assert o.observe(bad) == [] and o.waiting
    assert len(ref.public_state()["current"]["discard"]) == 1 and all(x["ok"] for x in o.outcomes)
    refused = o.observe(bad)  # patience spent: sent, refused and reported
    assert [x["event"]["type"] for x in refused] == ["draw", "meld"] and not refused[-1]["ok"]
