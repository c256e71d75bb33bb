"""The end of a hand: the players show their cards (`reveal`), the hand is scored and recorded, the match may
end; `end_hand` (a stalemate or an empty stock) and the `hand_result` extension (a whole hand's outcome
without its moves). Part of `referee.engine.Match`; the points themselves come from `referee.scoring`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from .cards import describe
from .errors import Refusal
from .events import Plan, card_of, need
from .melds import describe_cards, hand_value
from .options import GoingRummy, Scoring
from .scoring import next_dealer, score_hand, winner_points
from .state import Hand, Phase, Result

if TYPE_CHECKING:
    from .presets import Rules

# more than any hand can hold (two decks, every card at its highest value, many times over); a bigger
# number is a typing slip, and the dashboard's numbers must hold every total exactly
MAX_HAND_POINTS = 10_000


class HandEndEvents:
    """The handlers and bookkeeping of a hand's end (mixed into `Match`)."""

    rules: Rules
    players: list[str]
    hand: Hand | None

    def _ev_reveal(self, ev: dict) -> Plan:
        if self.hand is None or self.hand.phase != Phase.OVER:
            if self.hand is None:
                raise Refusal("no_hand_in_progress", "there is no finished hand waiting for cards to be shown",
                              "C-11.4")
            raise Refusal("reveal_not_needed", "hands are shown only after someone has gone out", "C-11.4")
        h = self.hand
        p = self._player(ev)
        out: dict[str, Any] = {"type": "reveal", "player": self.players[p]}
        if p == h.winner and h.facedown_pending:
            card = None
            if ev.get("trust"):
                out["trust"] = True
            else:
                raw = need(ev, "cards")
                if not isinstance(raw, list) or len(raw) != 1:
                    raise Refusal("reveal_mismatch", "show the one card discarded face down", "CGI-4")
                card = card_of(raw[0])
                self._check_available(h, [card])
                taken = h.turn.taken[-1] if len(h.turn.taken) == 1 else None
                if taken == card:
                    raise Refusal("discard_just_taken", f"the face-down {describe(card)} was taken from the discard "
                                  "pile this turn: undo the discard and the last play", "C-6.2")
                out["cards"] = [card]

            def show_facedown() -> None:
                if card is not None:
                    h.discard[-1] = card
                h.facedown_pending = False
                h.awaiting.discard(p)
                if not h.awaiting:
                    self._score(h)
            return Plan(out, show_facedown)
        raw = need(ev, "cards")
        if not isinstance(raw, list):
            raise Refusal("bad_event", "'cards' must be a list of cards")
        cards = [card_of(c) for c in raw]
        if len(cards) != h.counts[p]:
            raise Refusal("reveal_mismatch", f"{self.players[p]} should hold {h.counts[p]} cards but shows "
                          f"{len(cards)}", "C-11.3")
        shown = Counter(cards)
        missing = h.known[p] - shown
        if missing:
            raise Refusal("reveal_mismatch", f"{self.players[p]} took {describe_cards(missing.elements())} into "
                          "their hand, but it is not among the cards shown", "C-11.4")
        extra = shown - h.known[p]
        if extra:
            self._check_available(h, extra.elements())
        if p not in h.awaiting and h.known[p] != shown:
            raise Refusal("reveal_not_needed", f"{self.players[p]}'s hand is already known", "C-11.4")
        out["cards"] = cards

        def commit() -> None:
            h.known[p] = shown
            if p in h.awaiting:
                h.awaiting.discard(p)
                if not h.awaiting and not h.facedown_pending:
                    self._score(h)
        return Plan(out, commit)

    def _ev_end_hand(self, ev: dict) -> Plan:
        h = self._live_hand()
        r = self.rules
        reason = ev.get("reason")
        agreed = reason in ("stalemate", "agreed")
        result = Result.STALEMATE  # SD-3: in Rummy 500 an agreed stop is scored normally
        if r.scoring == Scoring.MELD_MINUS_HAND and not (agreed and h.stock != 0):
            if h.stock != 0:
                raise Refusal("end_hand_not_allowed", "a Rummy 500 hand ends when someone goes out or the stock is "
                              f"empty ({h.stock} cards left)", "R500-10")
            if h.phase != Phase.DRAW and "end_hand" not in h.offers:
                raise Refusal("end_hand_not_allowed", f"{self.players[h.current]} has already drawn: finish the "
                              "turn first", "R500-10")
            result = Result.STOCK_EMPTY
        out: dict[str, Any] = {"type": "end_hand"}
        if reason is not None:
            out["reason"] = str(reason)
        return Plan(out, lambda: self._finish_hand(h, result, None, False))

    def _ev_hand_result(self, ev: dict) -> Plan:
        """Quick scorekeeping (extension): a whole hand's outcome without its moves."""
        if self.match_over:
            raise Refusal("match_over", f"the match is over: {self._winner_text()} won", "C-9")
        if self.hand is not None and (self.hand.phase != Phase.OVER or self.hand.awaiting):
            raise Refusal("hand_in_progress", "a hand is being played: finish it first", "C-7")
        n = len(self.players)
        P = self.players
        r = self.rules
        if ev.get("dealer") is not None:
            d = self._player(ev, "dealer")
            if self.next_dealer is not None and d != self.next_dealer:
                raise Refusal("wrong_dealer", f"{P[self.next_dealer]} deals this hand, not {P[d]}", "C-10.1")
        elif self.next_dealer is not None:
            d = self.next_dealer
        else:
            raise Refusal("bad_event", "the first hand needs its 'dealer'")
        winner = self._player(ev, "winner") if ev.get("winner") is not None else None
        hands, pts_in = ev.get("hands"), ev.get("points")
        left = [0] * n
        details: dict[str, dict] = {p: {} for p in P}
        out: dict[str, Any] = {"type": "hand_result", "dealer": P[d], "winner": None if winner is None else P[winner]}
        if hands is not None:
            if not isinstance(hands, dict):
                raise Refusal("bad_event", "'hands' must map players to the cards left in their hands")
            allc: Counter = Counter()
            norm = {}
            for name, cards in hands.items():
                i = self._seat(name)
                if not isinstance(cards, list):
                    raise Refusal("bad_event", f"the cards of {name} must be a list")
                cs = [card_of(c) for c in cards]
                allc.update(cs)
                vals = [hand_value(c, r.values) for c in cs]
                left[i] = sum(vals)
                details[name] = {"hand": cs, "hand_values": vals, "hand_points": left[i]}
                norm[name] = cs
            for c, k in allc.items():
                if k > self.deck[c]:
                    raise Refusal("duplicate_card", f"{describe(c)} is listed {k} times", "C-11.2")
            out["hands"] = norm
        elif pts_in is not None:
            for i, v in self._points_map(pts_in, "points").items():
                left[i] = v
                details[P[i]] = {"hand_points": v}
            out["points"] = {P[i]: left[i] for i in range(n)}
        elif winner is None and r.scoring == Scoring.WINNER_TAKES_HANDS:
            pass  # a stalemate where only going out scores: nobody scores, so the hands need not be counted
        else:
            raise Refusal("bad_event", "a 'hand_result' needs 'hands' (cards left) or 'points' (points left)")
        if winner is not None and left[winner]:
            raise Refusal("bad_event", f"{P[winner]} went out, so no cards are left in their hand", "C-7.1")
        rummy = bool(ev.get("going_rummy", False))
        if rummy and (r.going_rummy == GoingRummy.NONE or winner is None):
            raise Refusal("bad_event", "going rummy does not apply here", "AMB-10")
        points = [0] * n
        if r.scoring == Scoring.WINNER_TAKES_HANDS:
            result = Result.OUT if winner is not None else Result.STALEMATE
            if winner is not None:
                points[winner] = winner_points(sum(left), rummy, r.going_rummy)
        else:
            melded = self._points_map(ev.get("melded") or {}, "melded")
            for i in range(n):
                points[i] = melded.get(i, 0) - left[i]
                details[P[i]]["table_points"] = melded.get(i, 0)
            out["melded"] = {P[i]: melded.get(i, 0) for i in range(n)}
            result = Result.OUT if winner is not None else Result.STOCK_EMPTY
        if rummy:
            out["going_rummy"] = True

        def commit() -> None:
            self.hand = None
            self._record_hand(len(self.hands_done) + 1, d, winner, result, rummy, points, details)
        return Plan(out, commit)

    def _finish_hand(self, h: Hand, result: Result, winner: int | None, rummy: bool) -> None:
        h.phase = Phase.OVER
        h.result, h.winner, h.going_rummy = result, winner, rummy
        h.call_window = None
        n = len(self.players)
        if result == Result.STALEMATE and self.rules.scoring == Scoring.WINNER_TAKES_HANDS:
            scored: set[int] = set()
        elif self.rules.scoring == Scoring.WINNER_TAKES_HANDS:
            scored = {i for i in range(n) if i != winner and h.counts[i] > 0}
        else:
            scored = {i for i in range(n) if h.counts[i] > 0}
        h.awaiting = {i for i in scored if h.unknown(i)}
        if h.facedown_pending and winner is not None:
            h.awaiting.add(winner)
        if not h.awaiting:
            self._score(h)

    def _points_map(self, value: Any, what: str) -> dict[int, int]:
        """A {player: whole number ≥ 0} object of a `hand_result`, by seat."""
        if not isinstance(value, dict):
            raise Refusal("bad_event", f"'{what}' must map players to whole numbers")
        out = {}
        for name, v in value.items():
            i = self._seat(name)
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_HAND_POINTS:
                raise Refusal("bad_event", f"{what} of {name} must be a whole number from 0 to {MAX_HAND_POINTS}")
            out[i] = v
        return out

    def _seat(self, name: Any) -> int:
        if not isinstance(name, str) or name not in self._index:
            raise Refusal("unknown_player", f"{name!r} is not a player of this match")
        return self._index[name]

    def _winner_text(self) -> str:
        w = self.match_winner
        return " and ".join(w) if isinstance(w, list) else str(w or "nobody")

    def _score(self, h: Hand) -> None:
        points, details = score_hand(h, self.rules, self.players)
        self._record_hand(h.number, h.dealer, h.winner, h.result or Result.OUT, h.going_rummy, points, details)

    def _record_hand(self, number: int, dealer: int, winner: int | None, result: str, rummy: bool,
                     points: list[int], details: dict) -> None:
        P = self.players
        for i, v in enumerate(points):
            self.totals[i] += v
        self.hands_done.append({
            "number": number, "dealer": P[dealer], "winner": None if winner is None else P[winner],
            "result": result, "going_rummy": bool(rummy), "points": {P[i]: points[i] for i in range(len(P))},
            "details": details, "totals_after": {P[i]: self.totals[i] for i in range(len(P))},
        })
        self.next_dealer = next_dealer(self.rules, len(P), dealer, winner)
        self._check_match_end()  # referee.evening: also after a correction between hands
