"""Card values and notation (contract: shared/contracts/game-log.md, "Cards").

A card is `<rank><suit>`: rank A 2..10 J Q K, suit S H D C; a joker is `JK`. Input also accepts `T` for 10,
lower case and the suit symbols ♠ ♥ ♦ ♣. In a meld a joker names the card it stands for: `JK=8S`.
Cards are plain canonical strings inside the engine ("10H", "JK"); this module converts and describes them.
"""

from __future__ import annotations

from dataclasses import dataclass

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKER = "JK"
RANK_NUMBER = {r: i + 1 for i, r in enumerate(RANKS)}  # A=1 .. K=13
SUIT_SYMBOL = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
_SYMBOL_SUIT = {v: k for k, v in SUIT_SYMBOL.items()}
_SYMBOL_SUIT.update({"♤": "S", "♡": "H", "♢": "D", "♧": "C"})
ALL_CARDS = tuple(r + s for s in SUITS for r in RANKS)  # the 52 natural cards


class CardError(ValueError):
    """Text that is not a card. The message names the bad text."""


def _parse_natural(text: str, original: str) -> str:
    t = text.strip()
    if not t:
        raise CardError(f"'{original}' is not a card: empty text")
    suit_ch = t[-1]
    suit = _SYMBOL_SUIT.get(suit_ch, suit_ch.upper())
    rank = t[:-1].upper()
    if rank == "T":
        rank = "10"
    if suit not in SUITS or rank not in RANK_NUMBER:
        raise CardError(
            f"'{original}' is not a card: expected a rank (A 2-10 J Q K) then a suit (S H D C), like 10H or QS")
    return rank + suit


_FAST: dict[str, str] = {}
for _c in ALL_CARDS:
    for _r in {_c[:-1], _c[:-1].lower(), "T" if _c[:-1] == "10" else _c[:-1], "t" if _c[:-1] == "10" else _c[:-1]}:
        for _s in {_c[-1], _c[-1].lower(), SUIT_SYMBOL[_c[-1]]}:
            _FAST[_r + _s] = _c
_FAST.update({"JK": JOKER, "jk": JOKER, "Jk": JOKER})


def parse_card(text: object) -> str:
    """Parse one natural card or a bare joker into canonical form ("10H", "JK")."""
    fast = _FAST.get(text) if isinstance(text, str) else None
    if fast is not None:
        return fast
    if not isinstance(text, str):
        raise CardError(f"{text!r} is not a card: expected text such as '10H'")
    t = text.strip()
    if t.upper() in ("JK", "JOKER"):
        return JOKER
    if "=" in t:
        raise CardError(f"'{text}' is not a plain card: only a joker in a meld names a card with '='")
    return _parse_natural(t, text)


@dataclass(frozen=True, slots=True)
class PlayedCard:
    """A card put on the table: `card` is the physical card, `rep` the card it stands for (itself unless a joker)."""

    card: str
    rep: str | None

    @property
    def is_joker(self) -> bool:
        return self.card == JOKER

    def text(self) -> str:
        if self.card == JOKER:
            return f"JK={self.rep}" if self.rep else JOKER
        return self.card


def parse_played(text: object) -> PlayedCard:
    """Parse a card in a meld or lay-off: a natural card, or `JK=<card>` (a joker naming what it stands for).

    A bare joker gives `rep=None`; the engine refuses it with `joker_undeclared`.
    """
    if not isinstance(text, str):
        raise CardError(f"{text!r} is not a card: expected text such as '10H' or 'JK=8S'")
    fast = _FAST.get(text)
    if fast is not None:
        return PlayedCard(fast, None if fast == JOKER else fast)
    t = text.strip()
    if "=" in t:
        left, _, right = t.partition("=")
        if left.strip().upper() not in ("JK", "JOKER"):
            raise CardError(f"'{text}' is not a card: only a joker may name the card it stands for (JK=8S)")
        return PlayedCard(JOKER, _parse_natural(right, text))
    card = parse_card(t)
    return PlayedCard(card, None if card == JOKER else card)


def format_card(card: str, symbols: bool = False) -> str:
    """Canonical (or symbol) form of a canonical card string."""
    if card == JOKER or not symbols:
        return card
    return card[:-1] + SUIT_SYMBOL[card[-1]]


def rank_of(card: str) -> int:
    """A=1 .. K=13 (jokers have no rank)."""
    return RANK_NUMBER[card[:-1]]


def suit_of(card: str) -> str:
    return card[-1]


def make_card(rank: int, suit: str) -> str:
    """Rank 1..13 (14 = ace high) and suit to a canonical card."""
    return RANKS[(rank - 1) % 13] + suit


def sort_key(card: str) -> tuple:
    """Cards in display order: by suit (S H D C), then rank; jokers last."""
    if card == JOKER:
        return (9, 99)
    return (SUITS.index(card[-1]), RANK_NUMBER[card[:-1]])


def describe(card: str) -> str:
    """Human text for messages: '10♥', 'joker'."""
    if card == JOKER:
        return "joker"
    return format_card(card, symbols=True)
