"""Property tests: random legal full-information matches for every preset and player count."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import Match, replay_lines
from referee.cards import ALL_CARDS, JOKER
from referee.sim import Simulator, hidden_log

CONFIGS = [
    ("basic", 2, None), ("basic", 3, None), ("basic", 4, None),
    ("solitaired", 4, None),
    ("classic", 2, None), ("classic", 4, None), ("classic", 6, None),
    ("classic", 3, {"ace_mode": "high_or_low", "match_hands": 4}),
    ("classic", 2, {"go_out_without_discard": False, "dealer_rotation": "winner_deals_2p"}),
    ("basic", 3, {"max_melds_per_turn": 1, "recycle_trigger": "on_demand"}),
    ("rummy500", 2, None), ("rummy500", 4, None), ("rummy500", 6, None), ("rummy500", 8, None),
    ("rummy500", 3, {"floating": True, "values": "r500_5_10_15"}),
    ("rummy500", 4, {"jokers_per_deck": 0, "final_discard_must_be_unplayable": True}),
]


def fingerprint(m: Match) -> str:
    h = m.hand
    hand = repr(sorted((k, repr(v)) for k, v in vars(h).items())) if h else "none"
    return json.dumps(m.public_state(), sort_keys=True, default=str) + hand + repr(m.totals) + str(len(m.events))


class CheckedSimulator(Simulator):
    """Checks conservation at every event and tries known-illegal moves now and then."""

    illegal_tried = 0

    def apply(self, ev, must=True):
        if not super().apply(ev, must):
            return False
        m = self.match
        h = m.hand
        if h is None:
            return
        r = m.rules
        table = sum(len(x.shape.cards) for x in h.melds)
        assert h.stock + len(h.discard) + sum(h.counts) + table == r.deck_size, "card conservation (C-11.1)"
        if h.phase != "over":
            # full information: every physical card is in exactly one place
            everything = Counter(self.stock) + Counter(c for c in h.discard if c)
            for k in h.known:
                everything.update(k)
            for x in h.melds:
                everything.update(pc.card for pc in x.shape.cards)
            deck = Counter({c: r.decks for c in ALL_CARDS})
            if r.jokers:
                deck[JOKER] = r.jokers
            assert everything == deck, "every card accounted for exactly once"
            assert len(self.stock) == h.stock
        if len(self.log) % 7 == 0:
            for bad in self.illegal_moves():
                before = fingerprint(m)
                v = m.apply(bad)
                assert not v.ok, f"illegal move accepted: {bad}"
                assert v.code and v.message
                assert fingerprint(m) == before, f"refused move changed the state: {bad}"
                self.illegal_tried += 1
        return True


@pytest.mark.parametrize("rules,n,options", CONFIGS, ids=[f"{r}-{n}p-{i}" for i, (r, n, _) in enumerate(CONFIGS)])
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=10**6))
def test_random_match_to_the_end(rules, n, options, seed):
    players = [f"P{i + 1}" for i in range(n)]
    sim = CheckedSimulator(rules, players, options, seed=seed)
    m = sim.play_match(max_hands=80)
    assert m.match_over, "match reaches its end"
    assert sim.illegal_tried > 0
    if m.rules.target is not None and isinstance(m.match_winner, str):
        assert max(m.totals) == m.totals[m.players.index(m.match_winner)]

    # replaying the saved log gives the same state
    lines = [json.dumps(sim.setup)] + [json.dumps(e) for e in sim.log]
    result = replay_lines(lines)
    assert all(e["ok"] for e in result["events"])
    assert result["totals"] == {p: m.totals[i] for i, p in enumerate(m.players)}
    assert result["match_winner"] == m.match_winner
    assert [h["points"] for h in result["hands"]] == [h["points"] for h in m.hands_done]

    # JSON round-trips
    state = m.public_state()
    assert json.loads(json.dumps(state)) == state
    again = Match.from_events(json.loads(json.dumps(m.to_json()))["setup"], m.to_json()["events"])
    assert again.summary() == m.summary()

    # the same game in hidden mode (hands stripped, reveals added) scores the same
    hidden = hidden_log(sim)
    hres = replay_lines([json.dumps(e) for e in hidden])
    refused = [e for e in hres["events"] if not e["ok"]]
    assert not refused, refused[:3]
    assert [h["points"] for h in hres["hands"]] == [h["points"] for h in result["hands"]]
    assert hres["totals"] == result["totals"]
    assert hres["match_winner"] == result["match_winner"]
