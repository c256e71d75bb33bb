"""What a match shows: `public_state()` (the state for screens and the camera) and `legal_moves()` (what
may happen next, for hints). Read-only views of a `Match`; see docs/REFEREE_API.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import sort_key
from .melds import single_extensions
from .options import Scoring
from .state import Phase

if TYPE_CHECKING:
    from .engine import Match


def public_state(m: Match) -> dict:
    out = m.summary()
    out["next_dealer"] = None if m.next_dealer is None else m.players[m.next_dealer]
    h = m.hand
    if h is None:
        out["current"] = None
        return out
    P = m.players
    out["current"] = {
        "number": h.number,
        "dealer": P[h.dealer],
        "phase": h.phase,
        "current_player": None if h.phase == Phase.OVER else P[h.current],
        "stock_count": h.stock,
        "discard": [c if c else "??" for c in h.discard],
        "melds": [{"id": x.id, "kind": x.shape.kind, "cards": x.cards_text(), "owner": P[x.owner],
                   "played_by": [P[x.played_by[pc]] for pc in x.shape.cards]} for x in h.melds],
        "hand_counts": {P[i]: h.counts[i] for i in range(len(P))},
        "hands": {P[i]: sorted(h.known[i].elements(), key=sort_key) for i in range(len(P))},
        "full_information": h.full_info,
        "awaiting_reveal": [P[i] for i in sorted(h.awaiting)],
        "offers": list(h.offers),
        "notes": list(h.notes[-5:]),
        "exhaustions": h.exhaustions,
        "floating": [P[i] for i, f in enumerate(h.floating) if f],
        "winner": None if h.winner is None else P[h.winner],
        "result": h.result,
        "rummy_call_open": h.call_window is not None,
        "must_use": h.turn.must_use,
    }
    return out


def legal_moves(m: Match) -> dict:
    """What may happen next: event types allowed now, draw sources, and what each table meld accepts.

    `layoff_targets` maps meld number → natural cards that could be laid off alone on it and are not
    already accounted for; `playable` lists the current player's known cards that fit some meld.
    """
    h = m.hand
    # the host's changes (referee.evening) come after the moves: a screen suggests the first allowed type
    fix = ["correct_hand"] if m.hands_done else []
    if m.match_over:
        return {"player": None, "phase": "match_over", "allowed": fix + (["set_target"] if m.rules.target else [])}
    if h is None or (h.phase == Phase.OVER and not (h.awaiting or h.facedown_pending)):
        return {"player": None, "phase": "between_hands",
                "allowed": ["deal", "hand_result"] + fix + (["set_target"] if m.rules.target else []) + ["seat_players"],
                "dealer": None if m.next_dealer is None else m.players[m.next_dealer]}
    if h.phase == Phase.OVER:
        return {"player": None, "phase": "reveal", "allowed": ["reveal"] + fix,
                "awaiting_reveal": [m.players[i] for i in sorted(h.awaiting)]}
    r = m.rules
    seen = h.seen()
    targets: dict[int, list[str]] = {}
    for x in h.melds:
        ext = single_extensions(x.shape, r.ace_mode)
        targets[x.id] = sorted((c for c in ext if seen[c] < m.deck[c]), key=sort_key)
    p = h.current
    known = h.known[p]
    playable = sorted({c for x in h.melds for c in single_extensions(x.shape, r.ace_mode) if known[c] > 0},
                      key=sort_key)
    allowed: list[str]
    draw_from: list[str] = []
    if h.phase == Phase.DRAW:
        if h.stock > 0 or m.can_recycle_on_demand(h):
            draw_from.append("stock")
        if h.discard:
            draw_from.append("discard")
        allowed = ["draw"]
        if r.scoring == Scoring.WINNER_TAKES_HANDS or (h.stock == 0):
            allowed.append("end_hand")
        if h.call_window is not None:
            allowed.append("call_rummy")
    else:
        allowed = ["meld", "discard"]
        if h.melds and (not r.layoff_requires_own_meld or h.has_melded[p]):
            allowed.insert(1, "lay_off")
        if r.max_melds_per_turn is not None and h.turn.melds >= r.max_melds_per_turn:
            allowed.remove("meld")
    return {"player": m.players[p], "phase": h.phase, "allowed": allowed + fix, "draw_from": draw_from,
            "layoff_targets": targets, "playable": playable, "must_use": h.turn.must_use,
            "cannot_discard": h.turn.single_taken}
