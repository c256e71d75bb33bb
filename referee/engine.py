"""The referee: a match is the replay of its accepted events (SPEC §2-§7).

`Match.apply(event)` checks one event against the rules and either applies it or refuses it with a stable
`code`, a message naming the SPEC rule, and no change at all (every handler validates first, then mutates).

Two modes share one engine. Full information: the `deal` lists the hands and stock draws name their card.
Real table (hidden hands): the referee counts cards per player, keeps every card it has seen (table, discard
pile, cards taken from the pile, revealed hands) and checks what it can: one deck means each card once.
A player's hand is modelled as the cards known to be in it plus a number of unknown cards.

Choices where SPEC is silent (also in the README):
- Refusal codes are stable strings (`REFUSAL_CODES`); messages name the rule.
- A lay-off without `meld` goes to the one meld that can take the cards; several → `ambiguous_layoff`.
- In Rummy 500 two identical cards in the discard pile: `card` names the deepest card taken; the topmost copy
  is meant (the smallest pickup).
- `end_hand` in the Basic presets is an agreed stalemate (SD-3, void hand) and is accepted at any time during a
  hand; in Rummy 500 it is accepted only once the stock is empty (R500-10) and scores the hand.
- Stock draws past an empty stock are refused (`stock_empty`); recycling is derived (§6), never an event.
- A `reveal` is needed only from players whose hand the referee does not fully know; a reveal that agrees
  with what is known is accepted while the hand waits for reveals.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from .cards import ALL_CARDS, JOKER, PlayedCard, describe
from .drawing import DrawEvents
from .errors import Refusal, SetupError
from .evening import EVENING_REFUSALS, EveningEvents
from .events import Plan, card_of, need, played_list
from .hand_end import HandEndEvents
from .melds import (
    RUN,
    SET,
    MeldProblem,
    MeldShape,
    can_lay_off,
    classify,
    describe_cards,
    extend,
    layoff_possible,
)
from .options import DeepCardUse, GoingRummy, RecycleTrigger, Scoring
from .presets import Rules, make_rules
from .state import Hand, Meld, Phase, Result, Turn
from .strict_json import StrictJSONError, check_name
from .views import legal_moves, public_state

REFUSAL_CODES = (
    "bad_json", "bad_event", "unknown_event", "unknown_player", "bad_card", "not_your_turn", "must_draw_first",
    "already_drawn", "must_discard", "card_not_in_hand", "duplicate_card", "joker_undeclared", "joker_not_allowed",
    "invalid_meld", "invalid_layoff", "ambiguous_layoff", "no_such_meld", "layoff_needs_own_meld",
    "max_melds_per_turn", "discard_just_taken", "no_legal_discard", "deep_pickup_not_allowed",
    "deep_card_unusable", "deep_card_unused", "card_not_in_discard", "discard_empty", "stock_empty",
    "final_discard_required", "discard_playable", "face_down_not_last", "face_down_not_allowed", "hand_over",
    "no_hand_in_progress", "hand_in_progress", "reveal_needed", "reveal_mismatch", "reveal_not_needed",
    "wrong_dealer", "wrong_deal_size", "match_over", "rummy_call_not_allowed", "rummy_call_invalid",
    "end_hand_not_allowed", "match_line", "bad_text", "too_deep", "bad_number",
) + EVENING_REFUSALS


class Verdict(NamedTuple):
    ok: bool
    code: str | None = None
    message: str | None = None
    rule: str | None = None
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ok": self.ok}
        if not self.ok:
            out.update(code=self.code, message=self.message)
            if self.rule:
                out["rule"] = self.rule
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


class Match(DrawEvents, HandEndEvents, EveningEvents):
    """A match of one rule system: setup, accepted events, and the state they give.

    The handlers of taking cards are in `referee.drawing`, those of a hand's end in `referee.hand_end`, the
    host's corrections, target and seating changes in `referee.evening`; what a match shows is in
    `referee.views`."""

    def __init__(self, setup: dict):
        if not isinstance(setup, dict):
            raise SetupError("bad_match", "the first line must be a 'match' object")
        if setup.get("type", "match") != "match":
            raise SetupError("bad_match", f"the first line must be a 'match' event, not {setup.get('type')!r}")
        players = setup.get("players")
        if (not isinstance(players, list) or not players
                or not all(isinstance(p, str) and p.strip() for p in players)):
            raise SetupError("bad_players", "give the players' names, in seating order (clockwise; field 'players')")
        for i, p in enumerate(players, start=1):
            try:
                check_name(p, f"player {i}'s name")
            except StrictJSONError as e:
                raise SetupError(e.code, e.message) from None
        names = [p.strip() for p in players]
        if len(set(names)) != len(names):
            raise SetupError("bad_players", "player names must be different from each other")
        options = setup.get("options", {})
        if not isinstance(options, dict):  # `null` or `[]` is not "no options": leave the key out
            raise SetupError("bad_options", "'options' must be an object of config keys (SPEC §4), or left out")
        self.rules: Rules = make_rules(setup.get("rules"), len(names), options)
        self.players: list[str] = names
        self.setup: dict = {"type": "match", "rules": self.rules.name, "players": names}
        if options:
            self.setup["options"] = dict(options)
        self.events: list[dict] = []
        self.totals: list[int] = [0] * len(names)
        self.hands_done: list[dict] = []
        self.hand: Hand | None = None
        self.next_dealer: int | None = None
        self.match_over = False
        self.match_winner: str | list[str] | None = None
        self._index = {p: i for i, p in enumerate(names)}
        self._overrides: dict[str, Any] = {}  # options changed since the match line (set_target)
        r = self.rules
        self.deck = Counter({c: r.multiplicity for c in ALL_CARDS})
        if r.jokers:
            self.deck[JOKER] = r.jokers

    # ------------------------------------------------------------------ public API
    @classmethod
    def from_log(cls, lines: Iterable[str]) -> Match:
        it = iter(lines)
        first = next(it, "")
        m = cls(json.loads(first))
        for line in it:
            if line.strip():
                try:
                    m.apply(json.loads(line))
                except json.JSONDecodeError:
                    continue
        return m

    @classmethod
    def from_events(cls, setup: dict, events: Iterable[dict]) -> Match:
        m = cls(setup)
        for ev in events:
            v = m.apply(ev)
            if not v.ok:
                raise ValueError(f"event {ev} was refused on replay: {v.message}")
        return m

    def copy(self) -> Match:
        return copy.deepcopy(self)

    def to_json(self) -> dict:
        return {"setup": self.setup, "events": list(self.events)}

    def log_lines(self) -> list[str]:
        return [json.dumps(self.setup)] + [json.dumps(e) for e in self.events]

    def apply(self, event: Any) -> Verdict:
        """Check and apply one event. Never raises for bad input; refused events change nothing."""
        plan = self._plan(event)
        if isinstance(plan, Verdict):
            return plan
        plan.commit()
        self.events.append(plan.event)
        return Verdict(True, warnings=plan.warnings)

    def check(self, event: Any, *, after: Sequence[dict] = ()) -> Verdict:
        """The verdict `apply(event)` would give, changing nothing (like python-chess's `is_legal` beside
        `push`). With `after`: the verdict once those events were applied (on a copy; the first of them that
        is refused gives its verdict)."""
        if after:
            trial = self.copy()
            for ev in after:
                v = trial.apply(ev)
                if not v.ok:
                    return v
            return trial.check(event)
        plan = self._plan(event)
        return plan if isinstance(plan, Verdict) else Verdict(True, warnings=plan.warnings)

    def _plan(self, event: Any) -> Plan | Verdict:
        """Validate one event without changing anything: its plan, or the refusal."""
        if not isinstance(event, dict):
            return Verdict(False, "bad_event", "an event must be a JSON object with a 'type'")
        etype = event.get("type")
        handler = self._handlers.get(etype) if isinstance(etype, str) else None
        if etype == "match":
            return Verdict(False, "match_line", "a 'match' line may only be the first line of a log")
        if handler is None:
            return Verdict(False, "unknown_event",
                           f"unknown event type {etype!r}: expected one of {', '.join(self._handlers)}")
        try:
            return handler(self, event)
        except Refusal as exc:
            return Verdict(False, exc.code, exc.message, exc.rule)

    def public_state(self) -> dict:
        return public_state(self)

    def legal_moves(self) -> dict:
        return legal_moves(self)

    def summary(self) -> dict:
        winner = self.match_winner
        left = self.left_players()
        extra = {"left_players": list(left), "left_totals": left} if left else {}
        return {
            "rules": self.rules.name,
            "players": list(self.players),
            "hands": [dict(h) for h in self.hands_done],
            "totals": {p: self.totals[i] for i, p in enumerate(self.players)},
            "match_over": self.match_over,
            "match_winner": winner,
            "target": self.rules.target,
            "match_hands": self.rules.match_hands,
            "options": self.rules.to_json(),
        } | extra

    def current_player(self) -> str | None:
        h = self.hand
        if h is None or h.phase == Phase.OVER:
            return None
        return self.players[h.current]

    # ------------------------------------------------------------------ helpers
    def _player(self, event: dict, key: str = "player") -> int:
        name = need(event, key)
        if not isinstance(name, str) or name.strip() not in self._index:
            raise Refusal("unknown_player", f"{name!r} is not a player of this match ({', '.join(self.players)})")
        return self._index[name.strip()]

    def _live_hand(self) -> Hand:
        h = self.hand
        if self.match_over:
            raise Refusal("match_over", "the match is over", "C-9")
        if h is None:
            raise Refusal("no_hand_in_progress", "no hand is in progress: deal first", "C-2")
        if h.phase == Phase.OVER:
            raise Refusal("hand_over", "the hand is over: nobody may play after someone went out", "C-7.2")
        return h

    def _turn(self, event: dict, need_drawn: bool) -> tuple[Hand, int]:
        h = self._live_hand()
        p = self._player(event)
        if p != h.current:
            if h.phase == Phase.PLAY and p == (h.current + 1) % len(self.players) and event.get("type") == "draw":
                raise Refusal("must_discard",
                              f"{self.players[h.current]} has not discarded yet: their turn is not over", "C-3.3")
            raise Refusal("not_your_turn", f"it is {self.players[h.current]}'s turn, not {self.players[p]}'s",
                          "C-3.5")
        if need_drawn and h.phase == Phase.DRAW:
            raise Refusal("must_draw_first", f"{self.players[p]} must draw before melding, laying off or "
                          "discarding", "C-3.4")
        return h, p

    def _check_available(self, h: Hand, cards: Iterable[str]) -> None:
        """Cards that become visible must not exceed the deck's copies (C-1.2, C-11.2)."""
        for c, n in Counter(cards).items():
            if h.seen_count(c) + n > self.deck[c]:
                if c == JOKER and not self.deck[c]:
                    raise Refusal("joker_not_allowed", "this match is played without jokers", "C-1.1")
                copies = self.deck[c]
                raise Refusal("duplicate_card",
                              f"{describe(c)} is already accounted for: the deck has {copies} of it. "
                              "Check what the camera saw or correct the event", "C-11.2")

    def _from_hand(self, h: Hand, p: int, cards: list[str]) -> tuple[Counter, int]:
        """Which of `cards` come from the known part of p's hand and how many from the unknown part."""
        need = Counter(cards)
        known = h.known[p]
        unknown_used = 0
        new_visible: Counter = Counter()
        for c, n in need.items():
            k = min(n, known[c])
            if n - k:
                unknown_used += n - k
                new_visible[c] += n - k
        unknown = h.counts[p] - sum(known.values())
        for c, n in new_visible.items():
            if h.seen_count(c) + n > self.deck[c] and self.deck[c]:
                raise Refusal("duplicate_card",
                              f"{describe(c)} is already accounted for: the deck has {self.deck[c]} of it. "
                              "Check what the camera saw or correct the event", "C-11.2")
        if unknown_used > unknown:
            missing = [c for c, n in need.items() if n > known[c]]
            if unknown <= 0 or h.full_info:
                raise Refusal("card_not_in_hand",
                              f"{self.players[p]} does not hold {describe_cards(missing)}", "C-11.3")
            raise Refusal("card_not_in_hand", f"{self.players[p]} holds only {h.counts[p]} cards", "C-11.3")
        if new_visible:
            self._check_available(h, new_visible.elements())
        return need, unknown_used

    def _may_hold_another(self, h: Hand, p: int, card: str) -> bool:
        """With two decks a hidden hand may hold a second copy of a card the referee saw it take."""
        unknown = h.counts[p] - h.known[p].total()
        return unknown > 0 and h.seen_count(card) < self.deck[card]

    def _check_remaining(self, h: Hand, p: int, cards: list[str]) -> None:
        """A play must leave a legal way to end the turn (C-6.4, BAS-5)."""
        left = h.counts[p] - len(cards)
        if left == 0 and not self.rules.go_out_without_discard and not self.rules.floating:
            raise Refusal("final_discard_required",
                          "these rules require a final discard: keep one card to discard", "BAS-5")
        if left == 1 and h.turn.single_taken is not None:
            k = h.known[p][h.turn.single_taken] - cards.count(h.turn.single_taken)
            if k >= 1 and h.counts[p] - len(cards) - k == 0:
                raise Refusal("no_legal_discard",
                              f"this would leave only the {describe(h.turn.single_taken)} taken from the discard pile "
                              "this turn, which cannot be discarded: undo the play", "C-6.4")

    def _joker_checks(self, pcs: list[PlayedCard]) -> None:
        for pc in pcs:
            if pc.card == JOKER:
                if not self.rules.jokers:
                    raise Refusal("joker_not_allowed", "this match is played without jokers", "C-1.1")
                if not pc.rep:
                    raise Refusal("joker_undeclared",
                                  "say which card the joker stands for, like JK=8S", "R500-6")

    def _classify(self, pcs: list[PlayedCard]) -> MeldShape:
        r = self.rules
        return classify(pcs, r.ace_mode, r.min_natural_cards_per_meld if r.jokers else 0, r.set_suits_distinct)

    def _extend(self, shape: MeldShape, pcs: list[PlayedCard]) -> MeldShape:
        r = self.rules
        return extend(shape, pcs, r.ace_mode, r.min_natural_cards_per_meld if r.jokers else 0,
                      r.set_suits_distinct)

    # ------------------------------------------------------------------ events
    def _ev_deal(self, ev: dict) -> Plan:
        if self.match_over:
            raise Refusal("match_over", f"the match is over: {self._winner_text()} won", "C-9")
        h = self.hand
        if h is not None and h.phase != Phase.OVER:
            raise Refusal("hand_in_progress", f"hand {h.number} is still being played", "C-7")
        if h is not None and (h.awaiting or h.facedown_pending):
            raise Refusal("reveal_needed", "the last hand waits for "
                          + ", ".join(self.players[i] for i in sorted(h.awaiting)) + " to show their cards", "C-11.4")
        d = self._player(ev, "dealer")
        if self.next_dealer is not None and d != self.next_dealer:
            raise Refusal("wrong_dealer", f"{self.players[self.next_dealer]} deals this hand, not "
                          f"{self.players[d]}", "C-10.1")
        up = card_of(need(ev, "upcard"))
        r = self.rules
        n = len(self.players)
        hands = ev.get("hands")
        known = [Counter() for _ in range(n)]
        full = False
        norm_hands: dict[str, list[str]] = {}
        if hands is not None:
            if not isinstance(hands, dict):
                raise Refusal("bad_event", "'hands' must map each player to a list of cards")
            for name, cards in hands.items():
                seat = self._seat(name)
                if not isinstance(cards, list):
                    raise Refusal("bad_event", f"the hand of {name} must be a list of cards")
                parsed = [card_of(c) for c in cards]
                if len(parsed) != r.hand_size:
                    raise Refusal("wrong_deal_size", f"deal size ≠ {r.hand_size}: {name} was dealt "
                                  f"{len(parsed)} cards", "C-2.2")
                known[seat] = Counter(parsed)
                norm_hands[name] = parsed
            full = len(norm_hands) == n
        allc = Counter([up])
        for k in known:
            allc.update(k)
        for c, cnt in allc.items():
            if cnt > self.deck[c]:
                if c == JOKER and not self.deck[c]:
                    raise Refusal("joker_not_allowed", "this match is played without jokers", "C-1.1")
                raise Refusal("duplicate_card", f"{describe(c)} appears {cnt} times in the deal", "C-11.2")
        out = {"type": "deal", "dealer": self.players[d], "upcard": up}
        if norm_hands:
            out["hands"] = norm_hands

        def commit() -> None:
            self.hand = Hand(
                number=len(self.hands_done) + 1, dealer=d, current=(d + 1) % n, known=known,
                counts=[r.hand_size] * n, full_info=full, stock=r.deck_size - n * r.hand_size - 1, discard=[up],
                has_melded=[False] * n, has_played=[False] * n, floating=[False] * n)
        return Plan(out, commit)

    def _ev_meld(self, ev: dict) -> Plan:
        h, p = self._turn(ev, need_drawn=True)
        pcs = played_list(need(ev, "cards"))
        self._joker_checks(pcs)
        r = self.rules
        if r.max_melds_per_turn is not None and h.turn.melds >= r.max_melds_per_turn:
            raise Refusal("max_melds_per_turn", f"only {r.max_melds_per_turn} meld(s) per turn in these rules",
                          "AMB-03")
        physical = [pc.card for pc in pcs]
        self._check_call_play(h, physical, new_meld=True)
        self._from_hand(h, p, physical)
        try:
            shape = self._classify(pcs)
        except MeldProblem as exc:
            raise Refusal("invalid_meld", f"{describe_cards(physical)} is not a valid meld: {exc}") from None
        self._check_remaining(h, p, physical)

        def commit() -> None:
            h.remove_from_hand(p, physical)
            h.melds.append(Meld(len(h.melds) + 1, p, shape, {pc: p for pc in pcs}))
            h.has_melded[p] = True
            h.turn.melds += 1
            self._after_play(h, p, physical, as_meld=True)
        return Plan({"type": "meld", "player": self.players[p], "cards": [pc.text() for pc in shape.cards]},
                     commit)

    def _ev_lay_off(self, ev: dict) -> Plan:
        h, p = self._turn(ev, need_drawn=True)
        pcs = played_list(need(ev, "cards"))
        self._joker_checks(pcs)
        r = self.rules
        if r.layoff_requires_own_meld and not h.has_melded[p]:
            raise Refusal("layoff_needs_own_meld", f"{self.players[p]} must put down a meld of their own this "
                          "hand before laying off", "SOL-3")
        physical = [pc.card for pc in pcs]
        self._check_call_play(h, physical, new_meld=False)
        self._from_hand(h, p, physical)
        target = ev.get("meld")
        if target is not None:
            if isinstance(target, str) and target.strip().isdigit():
                target = int(target)
            if isinstance(target, bool) or not isinstance(target, int):
                raise Refusal("bad_event", "'meld' must be the meld's number (1, 2, 3 ...)")
            if not 1 <= target <= len(h.melds):
                raise Refusal("no_such_meld", f"there is no meld {target} on the table "
                              f"({len(h.melds)} meld(s) this hand)", "C-5.1")
            meld = h.melds[target - 1]
            try:
                new_shape = self._extend(meld.shape, pcs)
            except MeldProblem as exc:
                raise Refusal("invalid_layoff", f"{describe_cards(physical)} cannot go on meld {target} "
                              f"({describe_cards(meld.cards_text())}): {exc}", "C-5.1") from None
        else:
            fits = []
            last_problem = "no meld on the table"
            for m in h.melds:
                try:
                    fits.append((m, self._extend(m.shape, pcs)))
                except MeldProblem as exc:
                    last_problem = str(exc)
            if not fits:
                raise Refusal("invalid_layoff", f"{describe_cards(physical)} fits no meld on the table "
                              f"({last_problem})", "C-5.1")
            if len(fits) > 1:
                ids = ", ".join(str(m.id) for m, _ in fits)
                raise Refusal("ambiguous_layoff", f"{describe_cards(physical)} fits melds {ids}: say which one",
                              "C-5.6")
            meld, new_shape = fits[0]
        self._check_remaining(h, p, physical)

        def commit() -> None:
            h.remove_from_hand(p, physical)
            meld.shape = new_shape
            for pc in pcs:
                meld.played_by[pc] = p
            self._after_play(h, p, physical, as_meld=False)
        return Plan({"type": "lay_off", "player": self.players[p], "cards": [pc.text() for pc in pcs],
                      "meld": meld.id}, commit)

    def _check_call_play(self, h: Hand, physical: list[str], new_meld: bool) -> None:
        if h.turn.call_claim is None:
            return
        pool = Counter(h.turn.taken)
        if h.turn.call_claim not in physical or any(n > pool[c] for c, n in Counter(physical).items()):
            raise Refusal("rummy_call_invalid", f"after calling Rummy! the first play must put the claimed "
                          f"{describe(h.turn.call_claim)} on the table using only the cards taken from the pile", "R500-9")

    def _after_play(self, h: Hand, p: int, physical: list[str], as_meld: bool) -> None:
        h.turn.played = True
        h.turn.call_claim = None
        if h.turn.deep_card is not None and not h.turn.deep_used and h.turn.deep_card in physical:
            if as_meld or self.rules.deep_card_use != DeepCardUse.NEW_MELD_ONLY:
                h.turn.deep_used = True
        if h.turn.single_taken is not None and h.turn.single_taken in physical:
            h.turn.single_taken = None
        if h.counts[p] == 0:
            if self.rules.floating:
                h.floating[p] = True
                h.notes.append(f"{self.players[p]} floats with no cards until their next turn")
                self._end_turn(h, p)
            else:
                self._went_out(h, p)

    def _ev_discard(self, ev: dict) -> Plan:
        h, p = self._turn(ev, need_drawn=True)
        r = self.rules
        face_down = bool(ev.get("face_down", False))
        raw = ev.get("card")
        card = card_of(raw) if raw is not None else None
        if card is None and not face_down:
            raise Refusal("bad_event", "a discard needs the card (field 'card')")
        if face_down:
            if not r.final_discard_face_down:
                raise Refusal("face_down_not_allowed", "discards are face up in these rules", "C-6.1")
            if h.counts[p] != 1:
                raise Refusal("face_down_not_last", "only the very last card may be discarded face down", "CGI-4")
        if card is None and h.known[p].total() == h.counts[p]:
            card = next(iter(h.known[p].elements()))
        if card is not None:
            self._from_hand(h, p, [card])
        if h.turn.deep_card is not None and not h.turn.deep_used:
            raise Refusal("deep_card_unused", f"{describe(h.turn.deep_card)} taken from the discard pile must be melded "
                          "or laid off before discarding", "R500-4")
        if card is not None and h.turn.single_taken is not None and card == h.turn.single_taken \
                and h.known[p][card] <= 1 and not self._may_hold_another(h, p, card):
            raise Refusal("discard_just_taken", f"{describe(card)} was taken from the discard pile this turn and "
                          "cannot be discarded until a later turn", "C-6.2")
        last = h.counts[p] == 1
        if last and r.final_discard_must_be_unplayable and card is not None and can_lay_off(card, (m.shape for m in h.melds), r.ace_mode):
            raise Refusal("discard_playable", f"{describe(card)} can be laid off on the table, so it cannot be the "
                          "card you go out with", "R500-8c")
        out: dict[str, Any] = {"type": "discard", "player": self.players[p]}
        if card is not None:
            out["card"] = card
        if face_down:
            out["face_down"] = True

        def commit() -> None:
            if card is not None:
                h.remove_from_hand(p, [card])
            else:
                h.counts[p] -= 1
            h.discard.append(card or "")
            if h.counts[p] == 0:
                if card is None:
                    h.facedown_pending = True
                self._went_out(h, p)
            else:
                h.floating[p] = False
                self._end_turn(h, p)
        return Plan(out, commit)

    def _went_out(self, h: Hand, p: int) -> None:
        rummy = self.rules.going_rummy != GoingRummy.NONE and not h.has_played[p]
        self._finish_hand(h, Result.OUT, p, rummy)

    def _end_turn(self, h: Hand, p: int) -> None:
        r = self.rules
        n = len(self.players)
        quiet = not h.turn.played and not h.turn.drew_from_stock
        if h.turn.played:
            h.has_played[p] = True
        h.turn = Turn()
        h.current = (p + 1) % n
        h.phase = Phase.DRAW
        h.call_window = p if r.rummy_call else None
        if h.stock == 0:
            if r.recycle_limit == 0:
                if not h.discard:
                    self._finish_hand(h, Result.STOCK_EMPTY, None, False)
                    return
            elif r.recycle_limit is not None and h.exhaustions > r.recycle_limit:
                h.notes.append("the stock ran out a second time: the hand is a stalemate")
                self._finish_hand(h, Result.STALEMATE, None, False)
                return
            elif r.recycle_trigger == RecycleTrigger.IMMEDIATE:
                pile = len(h.discard) - (1 if r.recycle_keeps_top else 0)
                if pile > 0:
                    self._recycle(h)
                elif r.recycle_limit is not None:
                    h.notes.append("the stock ran out and there is nothing to recycle: stalemate")
                    self._finish_hand(h, Result.STALEMATE, None, False)
                    return
        # endless-loop guard (§6.4): the stock is empty and cannot be replenished
        if h.stock == 0 and not self.can_recycle_on_demand(h):
            h.quiet_turns = h.quiet_turns + 1 if quiet else 0
            if h.quiet_turns >= n and "end_hand" not in h.offers:
                h.offers.append("end_hand")
                h.notes.append("a full round passed with no meld or lay-off: the players may end the hand")
        # SD-1 exact stalemate
        if r.scoring == Scoring.WINNER_TAKES_HANDS and all(c == 1 for c in h.counts) and not self._layoff_possible(h):
            if r.stalemate_detector:
                h.notes.append("every player holds one card and nothing can be laid off: stalemate")
                self._finish_hand(h, Result.STALEMATE, None, False)
                return
            if "end_hand" not in h.offers:
                h.offers.append("end_hand")

    def _layoff_possible(self, h: Hand) -> bool:
        """Could any card not on the table be laid off alone on a table meld (SD-1)?"""
        outside = Counter(self.deck)
        for m in h.melds:
            outside.subtract(pc.card for pc in m.shape.cards)
        return layoff_possible([m.shape for m in h.melds], outside, self.rules.ace_mode)

    _handlers = {
        "deal": _ev_deal, "draw": DrawEvents._ev_draw, "meld": _ev_meld, "lay_off": _ev_lay_off,
        "discard": _ev_discard, "reveal": HandEndEvents._ev_reveal, "call_rummy": DrawEvents._ev_call_rummy,
        "end_hand": HandEndEvents._ev_end_hand, "hand_result": HandEndEvents._ev_hand_result,
        "correct_hand": EveningEvents._ev_correct_hand, "set_target": EveningEvents._ev_set_target,
        "seat_players": EveningEvents._ev_seat_players,
    }


__all__ = ["Match", "Verdict", "REFUSAL_CODES", "SET", "RUN"]
