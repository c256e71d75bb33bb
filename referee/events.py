"""Reading the fields of an event (a refusal when one is missing or not a card), and the plan of an accepted
event: every handler validates without changing anything and returns a `Plan`; `Match.apply` commits it,
`Match.check` does not."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from .cards import CardError, PlayedCard, describe, parse_card, parse_played
from .errors import Refusal


class Plan(NamedTuple):
    """What an accepted event will do: the event as logged, the change (not made yet), warnings for players."""

    event: dict
    commit: Callable[[], None]
    warnings: tuple[str, ...] = ()


# what players call an event and its fields, for the refusal of an event that lacks one
EVENT_WORDS = {"deal": "a deal", "draw": "a draw", "meld": "a meld", "lay_off": "a lay-off", "discard": "a discard",
               "reveal": "showing a hand", "call_rummy": "a Rummy! call", "end_hand": "ending the hand",
               "hand_result": "a hand's result", "correct_hand": "a correction of a hand",
               "set_target": "a change of the target", "seat_players": "a change of the players at the table"}
FIELD_WORDS = {"upcard": "the first card of the discard pile", "card": "the card", "cards": "the cards",
               "player": "the player", "dealer": "the dealer", "from": "where the card comes from (stock or discard)",
               "meld": "the meld", "winner": "who went out", "hand": "the hand's number",
               "target": "the target score", "players": "the players, in seating order"}


def need(event: dict, key: str) -> Any:
    if key not in event or event[key] is None:
        what = EVENT_WORDS.get(str(event.get("type")), f"a '{event.get('type')}' event")
        raise Refusal("bad_event", f"{what} needs {FIELD_WORDS.get(key, key)} (field '{key}')")
    return event[key]


def card_of(text: Any) -> str:
    try:
        return parse_card(text)
    except CardError as exc:
        raise Refusal("bad_card", str(exc)) from None


def played_list(value: Any) -> list[PlayedCard]:
    if not isinstance(value, list) or not value:
        raise Refusal("bad_event", "'cards' must be a non-empty list of cards")
    try:
        return [parse_played(v) for v in value]
    except CardError as exc:
        raise Refusal("bad_card", str(exc)) from None


def pile_index(pile: list[str], card: str, rule: str) -> int:
    """Position of the topmost copy of `card` in the discard pile (bottom = 0)."""
    for i in range(len(pile) - 1, -1, -1):
        if pile[i] == card:
            return i
    raise Refusal("card_not_in_discard", f"{describe(card)} is not in the discard pile", rule)
