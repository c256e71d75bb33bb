"""Pure meld utilities: is this a set or a run, can these cards extend that meld, can a card be put on the
table with the cards at hand, what is a card worth.

Ace and joker handling live here and nowhere else. A meld is a list of `PlayedCard` (physical card + the card
it stands for); jokers always carry their declared card (SPEC AMB-16: rank and suit, fixed for the hand).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .cards import JOKER, RANK_NUMBER, SUITS, PlayedCard, describe, make_card
from .options import AceMode, JokerMeldValue, Values

SET, RUN = "set", "run"


class MeldProblem(ValueError):
    """Why a group of cards is not a valid meld (text for players)."""


@dataclass(frozen=True, slots=True)
class MeldShape:
    kind: str  # "set" | "run"
    cards: tuple[PlayedCard, ...]  # runs in rank order, sets in the order given
    ace_high: bool  # a run that uses the ace above the king


def _rank(rep: str) -> int:
    return RANK_NUMBER[rep[:-1]]


def _run_ranks(reps: Sequence[str], ace_high: bool) -> list[int]:
    return [14 if (ace_high and _rank(r) == 1) else _rank(r) for r in reps]


def classify(cards: Sequence[PlayedCard], ace_mode: str, min_natural: int = 1,
             set_suits_distinct: bool = True) -> MeldShape:
    """Validate a meld; return its shape or raise MeldProblem saying what is wrong (SPEC C-4)."""
    if len(cards) < 3:
        raise MeldProblem(f"a meld needs at least 3 cards, not {len(cards)} (rule C-4.1/C-4.2)")
    for pc in cards:
        if pc.card == JOKER and not pc.rep:
            raise MeldProblem("a joker must say which card it stands for, like JK=8S (rule R500-6)")
    naturals = sum(1 for pc in cards if pc.card != JOKER)
    if naturals < min(min_natural, len(cards)) or (naturals == 0 and min_natural > 0):
        raise MeldProblem(f"a meld needs at least {min_natural} natural card(s) besides jokers (rule AMB-16)")
    reps = [pc.rep for pc in cards]
    ranks = {_rank(r) for r in reps}
    if len(ranks) == 1:
        if len(cards) > 4:
            raise MeldProblem("a set has at most 4 cards (rule C-4.1)")
        suits = [r[-1] for r in reps]
        if set_suits_distinct and len(set(suits)) != len(suits):
            raise MeldProblem("the cards of a set must all be of different suits (rule C-4.1, R500-3)")
        return MeldShape(SET, tuple(cards), False)
    suits = {r[-1] for r in reps}
    if len(suits) != 1:
        raise MeldProblem("these cards are neither a set (one rank) nor a run (one suit) (rule C-4.1/C-4.2)")
    options = [False, True] if ace_mode == AceMode.HIGH_OR_LOW else [False]
    problem = "the ranks are not consecutive (rule C-4.2)"
    for ace_high in options:
        rk = _run_ranks(reps, ace_high)
        if len(set(rk)) != len(rk):
            problem = "a run cannot hold the same rank twice (rule C-4.2, C-4.4)"
            continue
        if max(rk) - min(rk) == len(rk) - 1:
            order = sorted(zip(rk, range(len(cards)), strict=True), key=lambda t: t[0])
            return MeldShape(RUN, tuple(cards[i] for _, i in order), ace_high)
    if ace_mode != AceMode.HIGH_OR_LOW and any(_rank(r) == 1 for r in reps) and any(_rank(r) >= 12 for r in reps):
        problem = "the ace is low in these rules: Q-K-A and K-A-2 are not runs (rule C-4.3)"
    elif ace_mode == AceMode.HIGH_OR_LOW and any(_rank(r) == 1 for r in reps):
        problem = "runs never go round the corner: K-A-2 is not a run (rule C-4.3)"
    raise MeldProblem(problem)


def extend(shape: MeldShape, new: Sequence[PlayedCard], ace_mode: str, min_natural: int = 1,
           set_suits_distinct: bool = True) -> MeldShape:
    """The meld after laying off `new` on it; it must stay valid and of the same kind (C-5.1, C-4.5)."""
    try:
        out = classify(list(shape.cards) + list(new), ace_mode, min_natural, set_suits_distinct)
    except MeldProblem as exc:
        raise MeldProblem(f"the {shape.kind} would not stay valid: {exc}") from None
    if out.kind != shape.kind:
        raise MeldProblem(f"a {shape.kind} cannot become a {out.kind} (rule C-4.5)")
    return out


def single_extensions(shape: MeldShape, ace_mode: str) -> set[str]:
    """Natural cards that could be laid off alone on this meld (ignoring whether they are still available)."""
    reps = [pc.rep for pc in shape.cards]
    if shape.kind == SET:
        if len(reps) >= 4:
            return set()
        rank = reps[0][:-1]
        used = {r[-1] for r in reps}
        return {rank + s for s in SUITS if s not in used}
    suit = reps[0][-1]
    rk = _run_ranks(reps, shape.ace_high)
    lo, hi = min(rk), max(rk)
    out = set()
    if lo > 1:
        out.add(make_card(lo - 1, suit))
    top = 14 if ace_mode == AceMode.HIGH_OR_LOW else 13
    if hi < top and not (hi == 13 and lo == 1):
        out.add(make_card(hi + 1, suit))
    return out


def joker_can_extend(shape: MeldShape, ace_mode: str) -> bool:
    return bool(single_extensions(shape, ace_mode))


def can_lay_off(card: str, shapes: Iterable[MeldShape], ace_mode: str) -> bool:
    """Could `card` alone be laid off on one of these melds?"""
    for shape in shapes:
        if card == JOKER:
            if joker_can_extend(shape, ace_mode):
                return True
        elif card in single_extensions(shape, ace_mode):
            return True
    return False


def usable(card: str, avail: Counter, shapes: Sequence[MeldShape], ace_mode: str, min_natural: int) -> bool:
    """Can `card` be put on the table with the cards in `avail` (which include it): laid off on one of the
    table melds `shapes` (with cards of `avail` filling a gap) or in a new meld (R500-4, AMB-17)?"""
    jokers = avail[JOKER]
    if card == JOKER:
        return _joker_usable(avail, shapes, ace_mode, min_natural)
    rank, suit = _rank(card), card[-1]
    high = ace_mode == AceMode.HIGH_OR_LOW
    for shape in shapes:
        if card in single_extensions(shape, ace_mode):
            return True
        if shape.kind == RUN and shape.cards[0].rep[-1] == suit:
            rk = _run_ranks([pc.rep for pc in shape.cards], shape.ace_high)
            lo, hi = min(rk), max(rk)
            for cr in ([rank, 14] if rank == 1 and high else [rank]):
                gap = range(cr + 1, lo) if cr < lo else range(hi + 1, cr) if cr > hi else None
                if gap is None or (cr > 13 and lo == 1):
                    continue
                missing = sum(1 for g in gap if avail[make_card(g, suit)] < 1)
                if missing <= jokers:
                    return True
    # a new meld: a set of the rank
    same = {c[-1] for c in avail if c != JOKER and c[:-1] == card[:-1] and avail[c] > 0}
    if len(same) + jokers >= 3 and len(same) >= min(max(min_natural, 1), 3):
        return True
    # or a run through it
    for cr in [rank] + ([14] if rank == 1 and high else []):
        for start in range(cr - 2, cr + 1):
            if start < 1 or start + 2 > (14 if high else 13):
                continue
            missing = sum(1 for g in range(start, start + 3) if g != cr and avail[make_card(g, suit)] < 1)
            if missing <= jokers and 3 - missing >= min_natural:
                return True
    return False


def _joker_usable(avail: Counter, shapes: Sequence[MeldShape], ace_mode: str, min_natural: int) -> bool:
    if any(joker_can_extend(shape, ace_mode) for shape in shapes):
        return True
    naturals = [c for c in avail if c != JOKER and avail[c] > 0]
    if avail[JOKER] >= 2 and naturals and min_natural <= 1:
        return True
    if min_natural > 2:
        return False
    top = 14 if ace_mode == AceMode.HIGH_OR_LOW else 13
    for i, a in enumerate(naturals):
        for b in naturals[i + 1:]:
            if a[:-1] == b[:-1] and a[-1] != b[-1]:
                return True
            if a[-1] == b[-1]:
                ra, rb = _rank(a), _rank(b)
                for x, y in ((ra, rb), (14 if ra == 1 else ra, rb), (ra, 14 if rb == 1 else rb)):
                    if 1 <= abs(x - y) <= 2 and max(x, y) <= top and not (abs(x - y) == 1 and top == 13
                                                                          and {x, y} == {1, 13}):
                        return True
    return False


def layoff_possible(shapes: Sequence[MeldShape], outside: Counter, ace_mode: str) -> bool:
    """Could any card in `outside` (cards not on the table) be laid off alone on one of these melds?"""
    for shape in shapes:
        if any(outside[c] > 0 for c in single_extensions(shape, ace_mode)):
            return True
        if outside[JOKER] > 0 and joker_can_extend(shape, ace_mode):
            return True
    return False


# --- values (SPEC §5) -------------------------------------------------------------------------------

def hand_value(card: str, values: str) -> int:
    """What a card left in a hand is worth (SPEC §5.1, §5.2). A joker in a Basic preset costs 15 (our choice)."""
    if card == JOKER:
        return 15
    r = RANK_NUMBER[card[:-1]]
    if r == 1:
        return 1 if values == Values.BASIC else 15
    if r >= 11:
        return 10
    if values == Values.R500_5_10_15:
        return 10 if r == 10 else 5
    return r


def meld_card_value(pc: PlayedCard, shape: MeldShape, values: str, joker_meld_value: str) -> int:
    """What a card on the table is worth to whoever played it (R500-11, AMB-15, AMB-22)."""
    if pc.card == JOKER and joker_meld_value == JokerMeldValue.FIXED15:
        return 15
    rep = pc.rep or pc.card
    r = RANK_NUMBER[rep[:-1]]
    if r == 1:
        low = shape.kind == RUN and not shape.ace_high
        if values in (Values.R500, Values.BASIC):
            return 1 if low else 15
        if values == Values.R500_5_10_15:
            return 5 if low else 15
        return 15 if values == Values.BASIC_ACE15 else 1
    return hand_value(rep, values)


def describe_cards(cards: Iterable[str]) -> str:
    return " ".join(describe(c) for c in cards)
