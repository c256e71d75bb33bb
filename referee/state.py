"""The state of a hand in play: the melds on the table, the turn in progress, and the hand itself.

A player's hand is modelled as the cards known to be in it (`Hand.known`) plus a count (`Hand.counts`): in a
full-information log every card is known; at a real table only the cards taken from the discard pile are.
The helpers here account for cards the referee has seen (one deck means each card once).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from .cards import PlayedCard
from .melds import MeldShape


class Phase(StrEnum):
    """Where the hand is (compares equal to its text, as in `public_state()`)."""

    DRAW = "draw"  # the current player must draw
    PLAY = "play"  # the current player has drawn: meld, lay off, discard
    OVER = "over"  # someone went out or the hand ended; reveals may still be awaited


class Result(StrEnum):
    """How a hand ended (`hands[].result` of the replay)."""

    OUT = "out"
    STALEMATE = "stalemate"
    STOCK_EMPTY = "stock_empty"


@dataclass
class Meld:
    id: int
    owner: int
    shape: MeldShape
    played_by: dict[PlayedCard, int]

    def cards_text(self) -> list[str]:
        return [pc.text() for pc in self.shape.cards]


@dataclass
class Turn:
    """What the current player did this turn; a new `Turn()` starts each turn."""

    taken: list[str] = field(default_factory=list)  # cards taken from the discard pile
    single_taken: str | None = None  # the one card taken, which may not be discarded this turn (C-6.2)
    deep_card: str | None = None  # the card that must be played this turn (R500-4)
    deep_used: bool = True
    call_claim: str | None = None  # Rummy! call: the first play must use only claimed cards
    melds: int = 0  # melds put down
    played: bool = False  # melded or laid off
    drew_from_stock: bool = False

    @property
    def must_use(self) -> str | None:
        return self.deep_card if not self.deep_used else None


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
    phase: Phase = Phase.DRAW
    exhaustions: int = 0
    recycles: int = 0
    has_melded: list[bool] = field(default_factory=list)
    has_played: list[bool] = field(default_factory=list)  # melded or laid off before the current turn
    floating: list[bool] = field(default_factory=list)
    turn: Turn = field(default_factory=Turn)
    call_window: int | None = None  # discarder, while a Rummy! call is possible
    quiet_turns: int = 0
    offers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # end of hand
    result: Result | None = None
    winner: int | None = None
    going_rummy: bool = False
    awaiting: set[int] = field(default_factory=set)
    facedown_pending: bool = False

    def seen(self) -> Counter:
        """Every card whose place the referee knows: table, discard pile, known hand cards."""
        seen = Counter(c for c in self.discard if c)
        for m in self.melds:
            seen.update(pc.card for pc in m.shape.cards)
        for k in self.known:
            seen.update(k)
        return seen

    def seen_count(self, card: str) -> int:
        """How many copies of `card` the referee already knows the place of."""
        n = self.discard.count(card)
        for m in self.melds:
            for pc in m.shape.cards:
                if pc.card == card:
                    n += 1
        for k in self.known:
            n += k[card]
        return n

    def unknown(self, p: int) -> int:
        """How many cards of p's hand the referee does not know."""
        return self.counts[p] - self.known[p].total()

    def remove_from_hand(self, p: int, cards: Iterable[str]) -> None:
        known = self.known[p]
        n = 0
        for c in cards:
            n += 1
            if known[c] > 0:
                known[c] -= 1
                if not known[c]:
                    del known[c]
        self.counts[p] -= n
