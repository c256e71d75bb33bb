"""Scoring (SPEC §8, §9): the points of a finished hand, who deals next, and when the match is over.

Pure functions of the rules and the finished hand; the `Match` records what they give. Card values are in
`referee.melds` (`hand_value`, `meld_card_value`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .cards import sort_key
from .melds import hand_value, meld_card_value
from .options import DealerRotation, GoingRummy, Scoring, TieRule
from .presets import Rules
from .state import Hand, Result


def hand_points(cards: Iterable[str], values: str) -> dict:
    """What the cards left in a hand cost: {"hand": cards in order, "hand_values", "hand_points"}."""
    cs = sorted(cards, key=sort_key)
    vals = [hand_value(c, values) for c in cs]
    return {"hand": cs, "hand_values": vals, "hand_points": sum(vals)}


def winner_points(base: int, rummy: bool, going_rummy: str) -> int:
    """The hand winner's points: the losers' hands, doubled or +10 for going rummy (C-8.1, AMB-10)."""
    if not rummy:
        return base
    return base * 2 if going_rummy == GoingRummy.DOUBLE else base + 10


def score_hand(h: Hand, r: Rules, players: Sequence[str]) -> tuple[list[int], dict[str, dict]]:
    """Points of each seat for a played hand whose cards are all known, and the details per player."""
    n = len(players)
    points = [0] * n
    details = {players[i]: hand_points(h.known[i].elements() if h.counts[i] else (), r.values) for i in range(n)}
    left = [details[players[i]]["hand_points"] for i in range(n)]
    if r.scoring == Scoring.WINNER_TAKES_HANDS:
        if h.result == Result.OUT and h.winner is not None:
            base = sum(left[i] for i in range(n) if i != h.winner)
            pts = winner_points(base, h.going_rummy, r.going_rummy)
            points[h.winner] = pts
            details[players[h.winner]]["won"] = {"base": base, "going_rummy": h.going_rummy, "points": pts}
    else:
        table = [0] * n
        for m in h.melds:
            for pc in m.shape.cards:
                table[m.played_by[pc]] += meld_card_value(pc, m.shape, r.values, r.joker_meld_value)
        for i in range(n):
            points[i] = table[i] - left[i]
            details[players[i]]["table_points"] = table[i]
    return points, details


def next_dealer(r: Rules, n: int, dealer: int, winner: int | None) -> int:
    """The seat that deals the next hand (C-10.1; the winner in two-player `winner_deals_2p`)."""
    if r.dealer_rotation == DealerRotation.WINNER_DEALS_2P and n == 2 and winner is not None:
        return winner
    return (dealer + 1) % n


def match_winners(r: Rules, totals: Sequence[int], hands_played: int, result: str,
                  winner: int | None) -> list[int] | None:
    """None while the match goes on; else the winning seats (empty: nobody, a stalemate that ends it)."""
    if result == Result.STALEMATE and r.stalemate_ends_match:
        return []
    reached = r.target is not None and any(t >= r.target for t in totals)
    planned = r.match_hands is not None and hands_played >= r.match_hands
    if not (reached or planned):
        return None
    best = max(totals)
    top = [i for i, t in enumerate(totals) if t == best]
    if len(top) == 1 or r.tie_rule == TieRule.SHARED_WIN:
        return top
    if r.tie_rule == TieRule.WENT_OUT_WINS and winner in top:
        return [winner]
    return None  # extra_hand (and the impossible case): play another hand
