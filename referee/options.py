"""Named values of the rule options (SPEC §4): one `StrEnum` per option that takes a word.

The engine and the camera test these, never a preset's name or a bare string. Members are `str`, so a value
read from a log line (`"high_or_low"`) equals its member (`AceMode.HIGH_OR_LOW`) and is written back unchanged.
"""

from __future__ import annotations

from enum import StrEnum


class AceMode(StrEnum):
    LOW = "low"
    HIGH_OR_LOW = "high_or_low"


class Values(StrEnum):
    BASIC = "basic"
    BASIC_ACE15 = "basic_ace15"
    R500 = "r500"
    R500_5_10_15 = "r500_5_10_15"


class JokerMeldValue(StrEnum):
    FIXED15 = "fixed15"
    REPRESENTED = "represented"


class GoingRummy(StrEnum):
    NONE = "none"
    DOUBLE = "double"
    PLUS10 = "plus10"


class DealerRotation(StrEnum):
    CLOCKWISE = "clockwise"
    WINNER_DEALS_2P = "winner_deals_2p"


class DeepCardUse(StrEnum):
    MELD_OR_LAYOFF = "meld_or_layoff"
    NEW_MELD_ONLY = "new_meld_only"


class TieRule(StrEnum):
    EXTRA_HAND = "extra_hand"
    WENT_OUT_WINS = "went_out_wins"
    SHARED_WIN = "shared_win"
    IMPOSSIBLE = "impossible"


class LayoffCredit(StrEnum):
    NONE = "none"
    PLACED_IN_FRONT = "placed_in_front"
    SCORES_FOR_LAYER = "scores_for_layer"


class DiscardDraw(StrEnum):
    TOP_ONLY = "top_only"
    TOP_OR_DEEP = "top_or_deep"


class Scoring(StrEnum):
    WINNER_TAKES_HANDS = "winner_takes_hands"
    MELD_MINUS_HAND = "meld_minus_hand"


class RecycleTrigger(StrEnum):
    IMMEDIATE = "immediate"
    ON_DEMAND = "on_demand"


class StockEmptyAfterLimit(StrEnum):
    STALEMATE = "stalemate"


class StockEmptyEnd(StrEnum):
    SCORE_HAND = "score_hand"


# option key -> its named values; presets.py validates options against these
ENUM_OPTIONS: dict[str, type[StrEnum]] = {
    "ace_mode": AceMode,
    "values": Values,
    "joker_meld_value": JokerMeldValue,
    "going_rummy": GoingRummy,
    "dealer_rotation": DealerRotation,
    "deep_card_use": DeepCardUse,
    "tie_rule": TieRule,
    "layoff_credit": LayoffCredit,
    "discard_draw": DiscardDraw,
    "scoring": Scoring,
    "recycle_trigger": RecycleTrigger,
    "stock_empty_after_limit": StockEmptyAfterLimit,
    "stock_empty_end": StockEmptyEnd,
}
