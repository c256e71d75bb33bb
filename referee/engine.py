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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .cards import (
    ALL_CARDS,
    JOKER,
    RANK_NUMBER,
    CardError,
    PlayedCard,
    describe,
    make_card,
    parse_card,
    parse_played,
)
from .errors import Refusal, SetupError
from .melds import (
    RUN,
    SET,
    MeldProblem,
    MeldShape,
    classify,
    describe_cards,
    extend,
    hand_value,
    joker_can_extend,
    meld_card_value,
    single_extensions,
)
from .presets import Rules, make_rules

REFUSAL_CODES = (
    "bad_json", "bad_event", "unknown_event", "unknown_player", "bad_card", "not_your_turn", "must_draw_first",
    "already_drawn", "must_discard", "card_not_in_hand", "duplicate_card", "joker_undeclared", "joker_not_allowed",
    "invalid_meld", "invalid_layoff", "ambiguous_layoff", "no_such_meld", "layoff_needs_own_meld",
    "max_melds_per_turn", "discard_just_taken", "no_legal_discard", "deep_pickup_not_allowed",
    "deep_card_unusable", "deep_card_unused", "card_not_in_discard", "discard_empty", "stock_empty",
    "final_discard_required", "discard_playable", "face_down_not_last", "face_down_not_allowed", "hand_over",
    "no_hand_in_progress", "hand_in_progress", "reveal_needed", "reveal_mismatch", "reveal_not_needed",
    "wrong_dealer", "wrong_deal_size", "match_over", "rummy_call_not_allowed", "rummy_call_invalid",
    "end_hand_not_allowed", "match_line",
)


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


class _Plan(NamedTuple):
    """What an accepted event will do: the event as logged, the change (not made yet), warnings for players."""

    event: dict
    commit: Callable[[], None]
    warnings: tuple[str, ...] = ()


@dataclass
class Meld:
    id: int
    owner: int
    shape: MeldShape
    played_by: dict[PlayedCard, int]

    def cards_text(self) -> list[str]:
        return [pc.text() for pc in self.shape.cards]


@dataclass
class Hand:
    """One deal, from the deal until it is scored."""

    number: int
    dealer: int
    current: int
    known: list[Counter]
    counts: list[int]
    full_info: bool
    stock: int
    discard: list[str]
    melds: list[Meld] = field(default_factory=list)
    phase: str = "draw"  # draw | play | over
    exhaustions: int = 0
    recycles: int = 0
    has_melded: list[bool] = field(default_factory=list)
    has_played: list[bool] = field(default_factory=list)  # melded or laid off before the current turn
    floating: list[bool] = field(default_factory=list)
    # this turn
    taken: list[str] = field(default_factory=list)
    single_taken: str | None = None
    deep_card: str | None = None
    deep_used: bool = True
    call_claim: str | None = None  # Rummy! call: the first play must use only claimed cards
    melds_this_turn: int = 0
    played_this_turn: bool = False
    drew_from_stock: bool = False
    call_window: int | None = None  # discarder, while a Rummy! call is possible
    quiet_turns: int = 0
    offers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # end of hand
    result: str | None = None
    winner: int | None = None
    going_rummy: bool = False
    awaiting: set[int] = field(default_factory=set)
    facedown_pending: bool = False


def _need(event: dict, key: str) -> Any:
    if key not in event or event[key] is None:
        raise Refusal("bad_event", f"a '{event.get('type')}' event needs the field '{key}'")
    return event[key]


def _card(text: Any) -> str:
    try:
        return parse_card(text)
    except CardError as exc:
        raise Refusal("bad_card", str(exc)) from None


def _played_list(value: Any) -> list[PlayedCard]:
    if not isinstance(value, list) or not value:
        raise Refusal("bad_event", "'cards' must be a non-empty list of cards")
    try:
        return [parse_played(v) for v in value]
    except CardError as exc:
        raise Refusal("bad_card", str(exc)) from None


class Match:
    """A match of one rule system: setup, accepted events, and the state they give."""

    def __init__(self, setup: dict):
        if not isinstance(setup, dict):
            raise SetupError("bad_match", "the first line must be a 'match' object")
        if setup.get("type", "match") != "match":
            raise SetupError("bad_match", f"the first line must be a 'match' event, not {setup.get('type')!r}")
        players = setup.get("players")
        if (not isinstance(players, list) or not players
                or not all(isinstance(p, str) and p.strip() for p in players)):
            raise SetupError("bad_players", "'players' must be a list of player names, clockwise")
        names = [p.strip() for p in players]
        if len(set(names)) != len(names):
            raise SetupError("bad_players", "player names must be different from each other")
        options = setup.get("options") or {}
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
        r = self.rules
        self._mult = Counter({c: r.multiplicity for c in ALL_CARDS})
        if r.jokers:
            self._mult[JOKER] = r.jokers

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

    def _plan(self, event: Any) -> _Plan | Verdict:
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

    def summary(self) -> dict:
        winner = self.match_winner
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
        }

    def public_state(self) -> dict:
        out = self.summary()
        out["next_dealer"] = None if self.next_dealer is None else self.players[self.next_dealer]
        h = self.hand
        if h is None:
            out["current"] = None
            return out
        P = self.players
        out["current"] = {
            "number": h.number,
            "dealer": P[h.dealer],
            "phase": h.phase,
            "current_player": None if h.phase == "over" else P[h.current],
            "stock_count": h.stock,
            "discard": [c if c else "??" for c in h.discard],
            "melds": [{"id": m.id, "kind": m.shape.kind, "cards": m.cards_text(), "owner": P[m.owner],
                       "played_by": [P[m.played_by[pc]] for pc in m.shape.cards]} for m in h.melds],
            "hand_counts": {P[i]: h.counts[i] for i in range(len(P))},
            "hands": {P[i]: sorted(h.known[i].elements(), key=_sort_key) for i in range(len(P))},
            "full_information": h.full_info,
            "awaiting_reveal": [P[i] for i in sorted(h.awaiting)],
            "offers": list(h.offers),
            "notes": list(h.notes[-5:]),
            "exhaustions": h.exhaustions,
            "floating": [P[i] for i, f in enumerate(h.floating) if f],
            "winner": None if h.winner is None else P[h.winner],
            "result": h.result,
            "rummy_call_open": h.call_window is not None,
            "must_use": h.deep_card if not h.deep_used else None,
        }
        return out

    def legal_moves(self) -> dict:
        """What may happen next: event types allowed now, draw sources, and what each table meld accepts.

        `layoff_targets` maps meld number → natural cards that could be laid off alone on it and are not
        already accounted for; `playable` lists the current player's known cards that fit some meld.
        """
        h = self.hand
        if self.match_over:
            return {"player": None, "phase": "match_over", "allowed": []}
        if h is None or (h.phase == "over" and not (h.awaiting or h.facedown_pending)):
            return {"player": None, "phase": "between_hands", "allowed": ["deal", "hand_result"],
                    "dealer": None if self.next_dealer is None else self.players[self.next_dealer]}
        if h.phase == "over":
            return {"player": None, "phase": "reveal", "allowed": ["reveal"],
                    "awaiting_reveal": [self.players[i] for i in sorted(h.awaiting)]}
        r = self.rules
        seen = self._seen(h)
        targets: dict[int, list[str]] = {}
        for m in h.melds:
            ext = single_extensions(m.shape, r.ace_mode)
            targets[m.id] = sorted((c for c in ext if seen[c] < self._mult[c]), key=_sort_key)
        p = h.current
        known = h.known[p]
        playable = sorted({c for m in h.melds for c in single_extensions(m.shape, r.ace_mode) if known[c] > 0},
                          key=_sort_key)
        allowed: list[str]
        draw_from: list[str] = []
        if h.phase == "draw":
            if h.stock > 0 or self._can_recycle_on_demand(h):
                draw_from.append("stock")
            if h.discard:
                draw_from.append("discard")
            allowed = ["draw"]
            if r.scoring == "winner_takes_hands" or (h.stock == 0):
                allowed.append("end_hand")
            if h.call_window is not None:
                allowed.append("call_rummy")
        else:
            allowed = ["meld", "discard"]
            if h.melds and (not r.layoff_requires_own_meld or h.has_melded[p]):
                allowed.insert(1, "lay_off")
            if r.max_melds_per_turn is not None and h.melds_this_turn >= r.max_melds_per_turn:
                allowed.remove("meld")
        return {"player": self.players[p], "phase": h.phase, "allowed": allowed, "draw_from": draw_from,
                "layoff_targets": targets, "playable": playable,
                "must_use": h.deep_card if not h.deep_used else None,
                "cannot_discard": h.single_taken}

    def current_player(self) -> str | None:
        h = self.hand
        if h is None or h.phase == "over":
            return None
        return self.players[h.current]

    # ------------------------------------------------------------------ helpers
    def _player(self, event: dict, key: str = "player") -> int:
        name = _need(event, key)
        if not isinstance(name, str) or name.strip() not in self._index:
            raise Refusal("unknown_player", f"{name!r} is not a player of this match ({', '.join(self.players)})")
        return self._index[name.strip()]

    def _live_hand(self) -> Hand:
        h = self.hand
        if self.match_over:
            raise Refusal("match_over", "the match is over", "C-9")
        if h is None:
            raise Refusal("no_hand_in_progress", "no hand is in progress: deal first", "C-2")
        if h.phase == "over":
            raise Refusal("hand_over", "the hand is over: nobody may play after someone went out", "C-7.2")
        return h

    def _turn(self, event: dict, need_drawn: bool) -> tuple[Hand, int]:
        h = self._live_hand()
        p = self._player(event)
        if p != h.current:
            if h.phase == "play" and p == (h.current + 1) % len(self.players) and event.get("type") == "draw":
                raise Refusal("must_discard",
                              f"{self.players[h.current]} has not discarded yet: their turn is not over", "C-3.3")
            raise Refusal("not_your_turn", f"it is {self.players[h.current]}'s turn, not {self.players[p]}'s",
                          "C-3.5")
        if need_drawn and h.phase == "draw":
            raise Refusal("must_draw_first", f"{self.players[p]} must draw before melding, laying off or "
                          "discarding", "C-3.4")
        return h, p

    def _seen(self, h: Hand) -> Counter:
        """Every card whose place the referee knows: table, discard pile, known hand cards."""
        seen = Counter(c for c in h.discard if c)
        for m in h.melds:
            seen.update(pc.card for pc in m.shape.cards)
        for k in h.known:
            seen.update(k)
        return seen

    def _seen_count(self, h: Hand, card: str) -> int:
        """How many copies of `card` the referee already knows the place of."""
        n = h.discard.count(card)
        for m in h.melds:
            for pc in m.shape.cards:
                if pc.card == card:
                    n += 1
        for k in h.known:
            n += k[card]
        return n

    def _check_available(self, h: Hand, cards: Iterable[str]) -> None:
        """Cards that become visible must not exceed the deck's copies (C-1.2, C-11.2)."""
        for c, n in Counter(cards).items():
            if self._seen_count(h, c) + n > self._mult[c]:
                if c == JOKER and not self._mult[c]:
                    raise Refusal("joker_not_allowed", "this match is played without jokers", "C-1.1")
                copies = self._mult[c]
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
            if self._seen_count(h, c) + n > self._mult[c] and self._mult[c]:
                raise Refusal("duplicate_card",
                              f"{describe(c)} is already accounted for: the deck has {self._mult[c]} of it. "
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

    def _remove_from_hand(self, h: Hand, p: int, cards: list[str]) -> None:
        known = h.known[p]
        for c in cards:
            if known[c] > 0:
                known[c] -= 1
                if not known[c]:
                    del known[c]
        h.counts[p] -= len(cards)

    def _may_hold_another(self, h: Hand, p: int, card: str) -> bool:
        """With two decks a hidden hand may hold a second copy of a card the referee saw it take."""
        unknown = h.counts[p] - h.known[p].total()
        return unknown > 0 and self._seen_count(h, card) < self._mult[card]

    def _check_remaining(self, h: Hand, p: int, cards: list[str]) -> None:
        """A play must leave a legal way to end the turn (C-6.4, BAS-5)."""
        left = h.counts[p] - len(cards)
        if left == 0 and not self.rules.go_out_without_discard and not self.rules.floating:
            raise Refusal("final_discard_required",
                          "these rules require a final discard: keep one card to discard", "BAS-5")
        if left == 1 and h.single_taken is not None:
            k = h.known[p][h.single_taken] - cards.count(h.single_taken)
            if k >= 1 and h.counts[p] - len(cards) - k == 0:
                raise Refusal("no_legal_discard",
                              f"this would leave only the {describe(h.single_taken)} taken from the discard pile "
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

    def _can_lay_off(self, h: Hand, card: str) -> bool:
        for m in h.melds:
            if card == JOKER:
                if joker_can_extend(m.shape, self.rules.ace_mode):
                    return True
            elif card in single_extensions(m.shape, self.rules.ace_mode):
                return True
        return False

    # ------------------------------------------------------------------ events
    def _ev_deal(self, ev: dict) -> _Plan:
        if self.match_over:
            raise Refusal("match_over", f"the match is over: {self._winner_text()} won", "C-9")
        h = self.hand
        if h is not None and h.phase != "over":
            raise Refusal("hand_in_progress", f"hand {h.number} is still being played", "C-7")
        if h is not None and (h.awaiting or h.facedown_pending):
            raise Refusal("reveal_needed", "the last hand waits for "
                          + ", ".join(self.players[i] for i in sorted(h.awaiting)) + " to show their cards", "C-11.4")
        d = self._player(ev, "dealer")
        if self.next_dealer is not None and d != self.next_dealer:
            raise Refusal("wrong_dealer", f"{self.players[self.next_dealer]} deals this hand, not "
                          f"{self.players[d]}", "C-10.1")
        up = _card(_need(ev, "upcard"))
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
                parsed = [_card(c) for c in cards]
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
            if cnt > self._mult[c]:
                if c == JOKER and not self._mult[c]:
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
        return _Plan(out, commit)

    def _ev_draw(self, ev: dict) -> _Plan:
        h = self._live_hand()
        p = self._player(ev)
        if p == h.current and h.phase == "play":
            raise Refusal("already_drawn", f"{self.players[p]} has already drawn this turn", "C-3.1")
        h, p = self._turn(ev, need_drawn=False)
        src = _need(ev, "from")
        out: dict[str, Any] = {"type": "draw", "player": self.players[p], "from": src}
        r = self.rules
        warnings: tuple[str, ...] = ()
        if src == "stock":
            card = _card(ev["card"]) if ev.get("card") is not None else None
            recycle = False
            top_turned = False
            if h.stock == 0:
                if self._can_recycle_on_demand(h):
                    recycle = True
                else:
                    raise Refusal("stock_empty", "the stock is empty: take from the discard pile"
                                  + (" or end the hand" if r.recycle_limit == 0 else ""), "§6")
            if card is not None:
                if card == JOKER and not r.jokers:
                    raise Refusal("joker_not_allowed", "this match is played without jokers", "C-1.1")
                seen = self._seen_count(h, card)
                if recycle:  # the pile is about to become the stock
                    seen -= h.discard.count(card) - (h.discard[-1:].count(card) if r.recycle_keeps_top else 0)
                if (seen + 1 > self._mult[card] and h.recycles and r.recycle_keeps_top and not recycle
                        and len(h.discard) == 1 and h.discard[0] == card):
                    # AMB-04 / G06: the players turned the whole pile over, top card included: warn, go on
                    top_turned = True
                    seen -= 1
                    warnings = (f"the top discard {describe(card)} should have stayed as the discard pile when "
                                "the stock was recycled (BAS-8); it went into the stock",)
                if seen + 1 > self._mult[card]:
                    raise Refusal("duplicate_card", f"{describe(card)} cannot be in the stock: the deck has "
                                  f"{self._mult[card]} and it is already accounted for", "C-11.2")
            if card is not None:
                out["card"] = card

            def take() -> None:
                if top_turned:
                    h.discard.pop()
                    h.stock += 1
                    h.notes.extend(warnings)
                if recycle:
                    self._recycle(h)
                h.stock -= 1
                if h.stock == 0:
                    h.exhaustions += 1
                h.counts[p] += 1
                if card is not None:
                    h.known[p][card] += 1
                h.drew_from_stock = True
        elif src == "discard":
            if not h.discard:
                raise Refusal("discard_empty", "the discard pile is empty", "C-3.1")
            if ev.get("card") is not None:
                card = _card(ev["card"])
                idx = _pile_index(h.discard, card, "C-3.1")
            else:
                idx = len(h.discard) - 1
                card = h.discard[idx]
            taken = h.discard[idx:]
            deep = len(taken) > 1
            if deep and r.discard_draw != "top_or_deep":
                raise Refusal("deep_pickup_not_allowed", "only the top card of the discard pile may be taken",
                              "C-3.1")
            must_use = deep or r.top_discard_must_be_used
            if not deep and h.counts[p] == 0 and not self._usable(h, card, Counter(taken)):
                raise Refusal("no_legal_discard", f"{self.players[p]} holds no cards: taking only "
                              f"{describe(card)} would leave nothing that may be discarded", "C-6.4")
            if must_use and h.known[p].total() == h.counts[p]:
                avail = h.known[p] + Counter(taken)
                if not self._usable(h, card, avail):
                    raise Refusal("deep_card_unusable", f"{describe(card)} cannot be melded or laid off this turn, "
                                  "so it may not be taken from under other cards; put the cards back in order",
                                  "R500-4")
            out["card"] = card

            def take() -> None:
                del h.discard[idx:]
                h.known[p].update(taken)
                h.counts[p] += len(taken)
                h.taken = taken
                h.single_taken = card if not deep else None
                if must_use:
                    h.deep_card, h.deep_used = card, False
        else:
            raise Refusal("bad_event", f"'from' must be 'stock' or 'discard', not {src!r}")

        def commit() -> None:
            take()
            h.phase = "play"
            h.call_window = None
        return _Plan(out, commit, warnings)

    def _usable(self, h: Hand, card: str, avail: Counter, table: bool = True) -> bool:
        """Can `card` be put on the table this turn with the cards in `avail` (R500-4, AMB-17)?"""
        r = self.rules
        jokers = avail[JOKER]
        minnat = r.min_natural_cards_per_meld if r.jokers else 0
        if card == JOKER:
            return self._joker_usable(h if table else None, avail, minnat)
        rank, suit = RANK_NUMBER[card[:-1]], card[-1]
        if r.deep_card_use != "new_meld_only" and table:
            for m in h.melds:
                ext = single_extensions(m.shape, r.ace_mode)
                if card in ext:
                    return True
                if m.shape.kind == RUN and m.shape.cards[0].rep[-1] == suit:
                    reps = [pc.rep for pc in m.shape.cards]
                    rk = [14 if (m.shape.ace_high and RANK_NUMBER[x[:-1]] == 1) else RANK_NUMBER[x[:-1]]
                          for x in reps]
                    lo, hi = min(rk), max(rk)
                    for cr in ([rank, 14] if rank == 1 and r.ace_mode == "high_or_low" else [rank]):
                        gap = range(cr + 1, lo) if cr < lo else range(hi + 1, cr) if cr > hi else None
                        if gap is None or (cr > 13 and lo == 1):
                            continue
                        missing = sum(1 for g in gap if avail[make_card(g, suit)] < 1)
                        if missing <= jokers:
                            return True
        # a new meld: a set of the rank
        same = {c[-1] for c in avail if c != JOKER and c[:-1] == card[:-1] and avail[c] > 0}
        if len(same) + jokers >= 3 and len(same) >= min(max(minnat, 1), 3):
            return True
        ranks = [rank] + ([14] if rank == 1 and r.ace_mode == "high_or_low" else [])
        for cr in ranks:
            for start in range(cr - 2, cr + 1):
                window = range(start, start + 3)
                if start < 1 or start + 2 > (14 if r.ace_mode == "high_or_low" else 13):
                    continue
                missing = sum(1 for g in window if g != cr and avail[make_card(g, suit)] < 1)
                naturals = 3 - missing
                if missing <= jokers and naturals >= minnat:
                    return True
        return False

    def _joker_usable(self, h: Hand | None, avail: Counter, minnat: int) -> bool:
        """Can a joker be put on the table with the cards in `avail` (which include it)? No table if h is None."""
        r = self.rules
        if h is not None and r.deep_card_use != "new_meld_only" and any(joker_can_extend(m.shape, r.ace_mode) for m in h.melds):
            return True
        naturals = [c for c in avail if c != JOKER and avail[c] > 0]
        if avail[JOKER] >= 2 and naturals and minnat <= 1:
            return True
        if minnat > 2:
            return False
        top = 14 if r.ace_mode == "high_or_low" else 13
        for i, a in enumerate(naturals):
            for b in naturals[i + 1:]:
                if a[:-1] == b[:-1] and a[-1] != b[-1]:
                    return True
                if a[-1] == b[-1]:
                    ra, rb = RANK_NUMBER[a[:-1]], RANK_NUMBER[b[:-1]]
                    for x, y in ((ra, rb), (14 if ra == 1 else ra, rb), (ra, 14 if rb == 1 else rb)):
                        if 1 <= abs(x - y) <= 2 and max(x, y) <= top and not (abs(x - y) == 1 and top == 13
                                                                              and {x, y} == {1, 13}):
                            return True
        return False

    def _can_recycle_on_demand(self, h: Hand) -> bool:
        r = self.rules
        if r.recycle_trigger != "on_demand" or r.recycle_limit == 0:
            return False
        if r.recycle_limit is not None and h.exhaustions > r.recycle_limit:
            return False
        pile = len(h.discard) - (1 if r.recycle_keeps_top else 0)
        return pile > 0

    def _recycle(self, h: Hand) -> None:
        r = self.rules
        if r.recycle_keeps_top and h.discard:
            moved, h.discard = h.discard[:-1], h.discard[-1:]
        else:
            moved, h.discard = h.discard, []
        h.stock += len(moved)
        h.recycles += 1
        how = "shuffled" if r.recycle_shuffle else "turned over"
        keep = ", keeping the top card" if r.recycle_keeps_top else ""
        h.notes.append(f"the stock ran out: the discard pile was {how} into a new stock of {len(moved)} cards{keep}")

    def _ev_meld(self, ev: dict) -> _Plan:
        h, p = self._turn(ev, need_drawn=True)
        pcs = _played_list(_need(ev, "cards"))
        self._joker_checks(pcs)
        r = self.rules
        if r.max_melds_per_turn is not None and h.melds_this_turn >= r.max_melds_per_turn:
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
            self._remove_from_hand(h, p, physical)
            h.melds.append(Meld(len(h.melds) + 1, p, shape, {pc: p for pc in pcs}))
            h.has_melded[p] = True
            h.melds_this_turn += 1
            self._after_play(h, p, physical, as_meld=True)
        return _Plan({"type": "meld", "player": self.players[p], "cards": [pc.text() for pc in shape.cards]},
                     commit)

    def _ev_lay_off(self, ev: dict) -> _Plan:
        h, p = self._turn(ev, need_drawn=True)
        pcs = _played_list(_need(ev, "cards"))
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
            self._remove_from_hand(h, p, physical)
            meld.shape = new_shape
            for pc in pcs:
                meld.played_by[pc] = p
            self._after_play(h, p, physical, as_meld=False)
        return _Plan({"type": "lay_off", "player": self.players[p], "cards": [pc.text() for pc in pcs],
                      "meld": meld.id}, commit)

    def _check_call_play(self, h: Hand, physical: list[str], new_meld: bool) -> None:
        if h.call_claim is None:
            return
        pool = Counter(h.taken)
        if h.call_claim not in physical or any(n > pool[c] for c, n in Counter(physical).items()):
            raise Refusal("rummy_call_invalid", f"after calling Rummy! the first play must put the claimed "
                          f"{describe(h.call_claim)} on the table using only the cards taken from the pile", "R500-9")

    def _after_play(self, h: Hand, p: int, physical: list[str], as_meld: bool) -> None:
        h.played_this_turn = True
        h.call_claim = None
        if h.deep_card is not None and not h.deep_used and h.deep_card in physical:
            if as_meld or self.rules.deep_card_use != "new_meld_only":
                h.deep_used = True
        if h.single_taken is not None and h.single_taken in physical:
            h.single_taken = None
        if h.counts[p] == 0:
            if self.rules.floating:
                h.floating[p] = True
                h.notes.append(f"{self.players[p]} floats with no cards until their next turn")
                self._end_turn(h, p)
            else:
                self._went_out(h, p)

    def _ev_discard(self, ev: dict) -> _Plan:
        h, p = self._turn(ev, need_drawn=True)
        r = self.rules
        face_down = bool(ev.get("face_down", False))
        raw = ev.get("card")
        card = _card(raw) if raw is not None else None
        if card is None and not face_down:
            raise Refusal("bad_event", "a 'discard' event needs the field 'card'")
        if face_down:
            if not r.final_discard_face_down:
                raise Refusal("face_down_not_allowed", "discards are face up in these rules", "C-6.1")
            if h.counts[p] != 1:
                raise Refusal("face_down_not_last", "only the very last card may be discarded face down", "CGI-4")
        if card is None and h.known[p].total() == h.counts[p]:
            card = next(iter(h.known[p].elements()))
        if card is not None:
            self._from_hand(h, p, [card])
        if h.deep_card is not None and not h.deep_used:
            raise Refusal("deep_card_unused", f"{describe(h.deep_card)} taken from the discard pile must be melded "
                          "or laid off before discarding", "R500-4")
        if card is not None and h.single_taken is not None and card == h.single_taken \
                and h.known[p][card] <= 1 and not self._may_hold_another(h, p, card):
            raise Refusal("discard_just_taken", f"{describe(card)} was taken from the discard pile this turn and "
                          "cannot be discarded until a later turn", "C-6.2")
        last = h.counts[p] == 1
        if last and r.final_discard_must_be_unplayable and card is not None and self._can_lay_off(h, card):
            raise Refusal("discard_playable", f"{describe(card)} can be laid off on the table, so it cannot be the "
                          "card you go out with", "R500-8c")
        out: dict[str, Any] = {"type": "discard", "player": self.players[p]}
        if card is not None:
            out["card"] = card
        if face_down:
            out["face_down"] = True

        def commit() -> None:
            if card is not None:
                self._remove_from_hand(h, p, [card])
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
        return _Plan(out, commit)

    def _went_out(self, h: Hand, p: int) -> None:
        rummy = self.rules.going_rummy != "none" and not h.has_played[p]
        self._finish_hand(h, "out", p, rummy)

    def _end_turn(self, h: Hand, p: int) -> None:
        r = self.rules
        n = len(self.players)
        quiet = not h.played_this_turn and not h.drew_from_stock
        if h.played_this_turn:
            h.has_played[p] = True
        h.taken, h.single_taken, h.deep_card, h.deep_used, h.call_claim = [], None, None, True, None
        h.melds_this_turn, h.played_this_turn, h.drew_from_stock = 0, False, False
        h.current = (p + 1) % n
        h.phase = "draw"
        h.call_window = p if r.rummy_call else None
        if h.stock == 0:
            if r.recycle_limit == 0:
                if not h.discard:
                    self._finish_hand(h, "stock_empty", None, False)
                    return
            elif r.recycle_limit is not None and h.exhaustions > r.recycle_limit:
                h.notes.append("the stock ran out a second time: the hand is a stalemate")
                self._finish_hand(h, "stalemate", None, False)
                return
            elif r.recycle_trigger == "immediate":
                pile = len(h.discard) - (1 if r.recycle_keeps_top else 0)
                if pile > 0:
                    self._recycle(h)
                elif r.recycle_limit is not None:
                    h.notes.append("the stock ran out and there is nothing to recycle: stalemate")
                    self._finish_hand(h, "stalemate", None, False)
                    return
        # endless-loop guard (§6.4): the stock is empty and cannot be replenished
        if h.stock == 0 and not self._can_recycle_on_demand(h):
            h.quiet_turns = h.quiet_turns + 1 if quiet else 0
            if h.quiet_turns >= n and "end_hand" not in h.offers:
                h.offers.append("end_hand")
                h.notes.append("a full round passed with no meld or lay-off: the players may end the hand")
        # SD-1 exact stalemate
        if r.scoring == "winner_takes_hands" and all(c == 1 for c in h.counts) and self._no_layoff_possible(h):
            if r.stalemate_detector:
                h.notes.append("every player holds one card and nothing can be laid off: stalemate")
                self._finish_hand(h, "stalemate", None, False)
                return
            if "end_hand" not in h.offers:
                h.offers.append("end_hand")

    def _no_layoff_possible(self, h: Hand) -> bool:
        outside = Counter(self._mult)
        for m in h.melds:
            outside.subtract(pc.card for pc in m.shape.cards)
        for m in h.melds:
            for c in single_extensions(m.shape, self.rules.ace_mode):
                if outside[c] > 0:
                    return False
            if outside[JOKER] > 0 and joker_can_extend(m.shape, self.rules.ace_mode):
                return False
        return True

    def _finish_hand(self, h: Hand, result: str, winner: int | None, rummy: bool) -> None:
        h.phase = "over"
        h.result, h.winner, h.going_rummy = result, winner, rummy
        h.call_window = None
        n = len(self.players)
        if result == "stalemate" and self.rules.scoring == "winner_takes_hands":
            need = set()
        elif self.rules.scoring == "winner_takes_hands":
            need = {i for i in range(n) if i != winner and h.counts[i] > 0}
        else:
            need = {i for i in range(n) if h.counts[i] > 0}
        h.awaiting = {i for i in need if h.known[i].total() != h.counts[i]}
        if h.facedown_pending and winner is not None:
            h.awaiting.add(winner)
        if not h.awaiting:
            self._score(h)

    def _score(self, h: Hand) -> None:
        r = self.rules
        n = len(self.players)
        P = self.players
        points = [0] * n
        details: dict[str, dict] = {}
        hand_pts = []
        for i in range(n):
            cards = sorted(h.known[i].elements(), key=_sort_key) if h.counts[i] else []
            vals = [hand_value(c, r.values) for c in cards]
            hand_pts.append(sum(vals))
            details[P[i]] = {"hand": cards, "hand_values": vals, "hand_points": sum(vals)}
        if r.scoring == "winner_takes_hands":
            if h.result == "out" and h.winner is not None:
                base = sum(hand_pts[i] for i in range(n) if i != h.winner)
                pts = self._winner_points(base, h.going_rummy)
                points[h.winner] = pts
                details[P[h.winner]]["won"] = {"base": base, "going_rummy": h.going_rummy, "points": pts}
        else:
            table = [0] * n
            for m in h.melds:
                for pc in m.shape.cards:
                    table[m.played_by[pc]] += meld_card_value(pc, m.shape, r.values, r.joker_meld_value)
            for i in range(n):
                points[i] = table[i] - hand_pts[i]
                details[P[i]]["table_points"] = table[i]
        self._record_hand(h.number, h.dealer, h.winner, h.result or "out", h.going_rummy, points, details)

    def _winner_points(self, base: int, rummy: bool) -> int:
        """The hand winner's points: the losers' hands, doubled or +10 for going rummy (C-8.1, AMB-10)."""
        if not rummy:
            return base
        return base * 2 if self.rules.going_rummy == "double" else base + 10

    def _points_map(self, value: Any, what: str) -> dict[int, int]:
        """A {player: whole number ≥ 0} object of a `hand_result`, by seat."""
        if not isinstance(value, dict):
            raise Refusal("bad_event", f"'{what}' must map players to whole numbers")
        out = {}
        for name, v in value.items():
            i = self._seat(name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise Refusal("bad_event", f"{what} of {name} must be a whole number ≥ 0")
            out[i] = v
        return out

    def _seat(self, name: Any) -> int:
        if not isinstance(name, str) or name not in self._index:
            raise Refusal("unknown_player", f"{name!r} is not a player of this match")
        return self._index[name]

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
        n = len(P)
        if self.rules.dealer_rotation == "winner_deals_2p" and n == 2 and winner is not None:
            self.next_dealer = winner
        else:
            self.next_dealer = (dealer + 1) % n
        self._check_match_end(result, winner)

    def _check_match_end(self, result: str, winner: int | None) -> None:
        r = self.rules
        P = self.players
        if result == "stalemate" and r.stalemate_ends_match:
            self.match_over, self.match_winner = True, None
            return
        reached = r.target is not None and any(t >= r.target for t in self.totals)
        planned = r.match_hands is not None and len(self.hands_done) >= r.match_hands
        if not (reached or planned):
            return
        best = max(self.totals)
        top = [i for i, t in enumerate(self.totals) if t == best]
        if len(top) == 1:
            self.match_over, self.match_winner = True, P[top[0]]
        elif r.tie_rule == "shared_win":
            self.match_over, self.match_winner = True, [P[i] for i in top]
        elif r.tie_rule == "went_out_wins" and winner in top:
            self.match_over, self.match_winner = True, P[winner]
        # extra_hand (and the impossible case): play another hand

    def _winner_text(self) -> str:
        w = self.match_winner
        return " and ".join(w) if isinstance(w, list) else str(w or "nobody")

    def _ev_reveal(self, ev: dict) -> _Plan:
        if self.hand is None or self.hand.phase != "over":
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
                raw = _need(ev, "cards")
                if not isinstance(raw, list) or len(raw) != 1:
                    raise Refusal("reveal_mismatch", "show the one card discarded face down", "CGI-4")
                card = _card(raw[0])
                self._check_available(h, [card])
                taken = h.taken[-1] if len(h.taken) == 1 else None
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
            return _Plan(out, show_facedown)
        raw = _need(ev, "cards")
        if not isinstance(raw, list):
            raise Refusal("bad_event", "'cards' must be a list of cards")
        cards = [_card(c) for c in raw]
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
        return _Plan(out, commit)

    def _ev_call_rummy(self, ev: dict) -> _Plan:
        r = self.rules
        if not r.rummy_call:
            raise Refusal("rummy_call_not_allowed", "calling Rummy! is not part of these rules", "R500-9")
        h = self._live_hand()
        p = self._player(ev)
        if h.call_window is None or h.phase != "draw":
            raise Refusal("rummy_call_not_allowed", "Rummy! can only be called on a discard before the next "
                          "player draws", "R500-9")
        if p == h.call_window:
            raise Refusal("rummy_call_not_allowed", "the player who discarded cannot call Rummy!", "R500-9")
        card = _card(_need(ev, "card"))
        idx = _pile_index(h.discard, card, "R500-9")
        taken = h.discard[idx:]
        if not (self._can_lay_off(h, card) or self._pile_meld(card, Counter(taken))):
            raise Refusal("rummy_call_invalid", f"{describe(card)} cannot be played without cards from the "
                          "caller's hand, so Rummy! does not apply", "R500-9")

        def commit() -> None:
            del h.discard[idx:]
            h.known[p].update(taken)
            h.counts[p] += len(taken)
            h.current, h.phase = p, "play"
            h.taken = taken
            h.single_taken = card if len(taken) == 1 else None
            h.deep_card, h.deep_used, h.call_claim = card, False, card
            h.call_window = None
        return _Plan({"type": "call_rummy", "player": self.players[p], "card": card}, commit)

    def _pile_meld(self, card: str, pool: Counter) -> bool:
        """Do the claimed pile cards form a meld with `card` on their own (AMB-20)? Table melds don't count."""
        return self._usable(self.hand, card, pool, table=False)

    def _ev_end_hand(self, ev: dict) -> _Plan:
        h = self._live_hand()
        r = self.rules
        reason = ev.get("reason")
        agreed = reason in ("stalemate", "agreed")
        result = "stalemate"  # SD-3: in Rummy 500 an agreed stop is scored normally
        if r.scoring == "meld_minus_hand" and not (agreed and h.stock != 0):
            if h.stock != 0:
                raise Refusal("end_hand_not_allowed", "a Rummy 500 hand ends when someone goes out or the stock is "
                              f"empty ({h.stock} cards left)", "R500-10")
            if h.phase != "draw" and "end_hand" not in h.offers:
                raise Refusal("end_hand_not_allowed", f"{self.players[h.current]} has already drawn: finish the "
                              "turn first", "R500-10")
            result = "stock_empty"
        out: dict[str, Any] = {"type": "end_hand"}
        if reason is not None:
            out["reason"] = str(reason)
        return _Plan(out, lambda: self._finish_hand(h, result, None, False))

    def _ev_hand_result(self, ev: dict) -> _Plan:
        """Quick scorekeeping (extension): a whole hand's outcome without its moves."""
        if self.match_over:
            raise Refusal("match_over", f"the match is over: {self._winner_text()} won", "C-9")
        if self.hand is not None and (self.hand.phase != "over" or self.hand.awaiting):
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
                cs = [_card(c) for c in cards]
                allc.update(cs)
                vals = [hand_value(c, r.values) for c in cs]
                left[i] = sum(vals)
                details[name] = {"hand": cs, "hand_values": vals, "hand_points": left[i]}
                norm[name] = cs
            for c, k in allc.items():
                if k > self._mult[c]:
                    raise Refusal("duplicate_card", f"{describe(c)} is listed {k} times", "C-11.2")
            out["hands"] = norm
        elif pts_in is not None:
            for i, v in self._points_map(pts_in, "points").items():
                left[i] = v
                details[P[i]] = {"hand_points": v}
            out["points"] = {P[i]: left[i] for i in range(n)}
        else:
            raise Refusal("bad_event", "a 'hand_result' needs 'hands' (cards left) or 'points' (points left)")
        if winner is not None and left[winner]:
            raise Refusal("bad_event", f"{P[winner]} went out, so no cards are left in their hand", "C-7.1")
        rummy = bool(ev.get("going_rummy", False))
        if rummy and (r.going_rummy == "none" or winner is None):
            raise Refusal("bad_event", "going rummy does not apply here", "AMB-10")
        points = [0] * n
        if r.scoring == "winner_takes_hands":
            result = "out" if winner is not None else "stalemate"
            if winner is not None:
                points[winner] = self._winner_points(sum(left), rummy)
        else:
            melded = self._points_map(ev.get("melded") or {}, "melded")
            for i in range(n):
                points[i] = melded.get(i, 0) - left[i]
                details[P[i]]["table_points"] = melded.get(i, 0)
            out["melded"] = {P[i]: melded.get(i, 0) for i in range(n)}
            result = "out" if winner is not None else "stock_empty"
        if rummy:
            out["going_rummy"] = True

        def commit() -> None:
            self.hand = None
            self._record_hand(len(self.hands_done) + 1, d, winner, result, rummy, points, details)
        return _Plan(out, commit)

    _handlers = {
        "deal": _ev_deal, "draw": _ev_draw, "meld": _ev_meld, "lay_off": _ev_lay_off, "discard": _ev_discard,
        "reveal": _ev_reveal, "call_rummy": _ev_call_rummy, "end_hand": _ev_end_hand,
        "hand_result": _ev_hand_result,
    }


def _pile_index(pile: list[str], card: str, rule: str) -> int:
    """Position of the topmost copy of `card` in the discard pile (bottom = 0)."""
    for i in range(len(pile) - 1, -1, -1):
        if pile[i] == card:
            return i
    raise Refusal("card_not_in_discard", f"{describe(card)} is not in the discard pile", rule)


def _sort_key(card: str) -> tuple:
    if card == JOKER:
        return (9, 99)
    return ("SHDC".index(card[-1]), RANK_NUMBER[card[:-1]])


__all__ = ["Match", "Verdict", "REFUSAL_CODES", "SET", "RUN"]
