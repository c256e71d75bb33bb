"""Taking cards: a draw from the stock or the discard pile (a deep pickup in Rummy 500), the stock recycled
from the discard pile (derived, never an event: SPEC §6), and the Rummy! call (R500-9). Part of
`referee.engine.Match`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from .cards import JOKER, describe
from .errors import Refusal
from .events import Plan, card_of, need, pile_index
from .melds import can_lay_off, usable
from .options import DeepCardUse, DiscardDraw, RecycleTrigger
from .state import Hand, Phase

if TYPE_CHECKING:
    from .presets import Rules


class DrawEvents:
    """The handlers of drawing and calling Rummy! (mixed into `Match`)."""

    rules: Rules
    players: list[str]
    hand: Hand | None
    deck: Counter

    def _ev_draw(self, ev: dict) -> Plan:
        h = self._live_hand()
        p = self._player(ev)
        if p == h.current and h.phase == Phase.PLAY:
            raise Refusal("already_drawn", f"{self.players[p]} has already drawn this turn", "C-3.1")
        h, p = self._turn(ev, need_drawn=False)
        src = need(ev, "from")
        out: dict[str, Any] = {"type": "draw", "player": self.players[p], "from": src}
        r = self.rules
        warnings: tuple[str, ...] = ()
        if src == "stock":
            card = card_of(ev["card"]) if ev.get("card") is not None else None
            recycle = False
            top_turned = False
            if h.stock == 0:
                if self.can_recycle_on_demand(h):
                    recycle = True
                else:
                    raise Refusal("stock_empty", "the stock is empty: take from the discard pile"
                                  + (" or end the hand" if r.recycle_limit == 0 else ""), "§6")
            if card is not None:
                if card == JOKER and not r.jokers:
                    raise Refusal("joker_not_allowed", "this match is played without jokers", "C-1.1")
                seen = h.seen_count(card)
                if recycle:  # the pile is about to become the stock
                    seen -= h.discard.count(card) - (h.discard[-1:].count(card) if r.recycle_keeps_top else 0)
                if (seen + 1 > self.deck[card] and h.recycles and r.recycle_keeps_top and not recycle
                        and len(h.discard) == 1 and h.discard[0] == card):
                    # AMB-04 / G06: the players turned the whole pile over, top card included: warn, go on
                    top_turned = True
                    seen -= 1
                    warnings = (f"the top discard {describe(card)} should have stayed as the discard pile when "
                                "the stock was recycled (BAS-8); it went into the stock",)
                if seen + 1 > self.deck[card]:
                    raise Refusal("duplicate_card", f"{describe(card)} cannot be in the stock: the deck has "
                                  f"{self.deck[card]} and it is already accounted for", "C-11.2")
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
                h.turn.drew_from_stock = True
        elif src == "discard":
            if not h.discard:
                raise Refusal("discard_empty", "the discard pile is empty", "C-3.1")
            if ev.get("card") is not None:
                card = card_of(ev["card"])
                idx = pile_index(h.discard, card, "C-3.1")
            else:
                idx = len(h.discard) - 1
                card = h.discard[idx]
            taken = h.discard[idx:]
            deep = len(taken) > 1
            if deep and r.discard_draw != DiscardDraw.TOP_OR_DEEP:
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
                h.turn.taken = taken
                h.turn.single_taken = card if not deep else None
                if must_use:
                    h.turn.deep_card, h.turn.deep_used = card, False
        else:
            raise Refusal("bad_event", f"'from' must be 'stock' or 'discard', not {src!r}")

        def commit() -> None:
            take()
            h.phase = Phase.PLAY
            h.call_window = None
        return Plan(out, commit, warnings)

    def can_recycle_on_demand(self, h: Hand) -> bool:
        r = self.rules
        if r.recycle_trigger != RecycleTrigger.ON_DEMAND or r.recycle_limit == 0:
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

    def _ev_call_rummy(self, ev: dict) -> Plan:
        r = self.rules
        if not r.rummy_call:
            raise Refusal("rummy_call_not_allowed", "calling Rummy! is not part of these rules", "R500-9")
        h = self._live_hand()
        p = self._player(ev)
        if h.call_window is None or h.phase != Phase.DRAW:
            raise Refusal("rummy_call_not_allowed", "Rummy! can only be called on a discard before the next "
                          "player draws", "R500-9")
        if p == h.call_window:
            raise Refusal("rummy_call_not_allowed", "the player who discarded cannot call Rummy!", "R500-9")
        card = card_of(need(ev, "card"))
        idx = pile_index(h.discard, card, "R500-9")
        taken = h.discard[idx:]
        if not (can_lay_off(card, (m.shape for m in h.melds), r.ace_mode)
                or self._usable(h, card, Counter(taken), table=False)):
            raise Refusal("rummy_call_invalid", f"{describe(card)} cannot be played without cards from the "
                          "caller's hand, so Rummy! does not apply", "R500-9")

        def commit() -> None:
            del h.discard[idx:]
            h.known[p].update(taken)
            h.counts[p] += len(taken)
            h.current, h.phase = p, Phase.PLAY
            h.turn.taken = taken
            h.turn.single_taken = card if len(taken) == 1 else None
            h.turn.deep_card, h.turn.deep_used, h.turn.call_claim = card, False, card
            h.call_window = None
        return Plan({"type": "call_rummy", "player": self.players[p], "card": card}, commit)

    def _usable(self, h: Hand, card: str, avail: Counter, table: bool = True) -> bool:
        """Can `card` be put on the table this turn with the cards in `avail` (R500-4, AMB-17)? With `table`
        False (or `deep_card_use: new_meld_only`), only in a new meld."""
        r = self.rules
        shapes = [m.shape for m in h.melds] if table and r.deep_card_use != DeepCardUse.NEW_MELD_ONLY else []
        return usable(card, avail, shapes, r.ace_mode, r.min_natural_cards_per_meld if r.jokers else 0)
