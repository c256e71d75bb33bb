"""One parameter object per rule system (SPEC §1 and §4), with validated options.

Every rule that differs between systems reads a field of `Rules`; the engine never tests the preset's name.
Options are the config keys of SPEC §4; an unknown key or a bad value raises `SetupError`.

Choices where SPEC is silent (also in the README):
- `target` may be `null` only together with `match_hands` (a fixed number of hands); setting `match_hands`
  without a `target` switches the target off.
- `recycle_trigger` (`immediate` | `on_demand`, SPEC §6.2 / G07) is accepted for every Basic preset.
- `tie_rule` also accepts `shared` as the short name of `shared_win` (SCENARIOS F22 writes it so).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from .errors import SetupError
from .options import ENUM_OPTIONS, AceMode, TieRule, Values

PRESET_NAMES = ("basic", "solitaired", "classic", "rummy500")
# what the players call each rule system: in full (menus) and short (the scoreboard's top bar)
PRESET_TITLES = {
    "basic": "Basic Rummy (cardgames.io)",
    "solitaired": "Solitaired Rummy to 200",
    "classic": "Classic Rummy (Pagat / Bicycle)",
    "rummy500": "Rummy 500",
}
PRESET_SHORT_TITLES = {"basic": "Basic", "solitaired": "Solitaired", "classic": "Classic", "rummy500": "Rummy 500"}
UNLIMITED = None  # recycle_limit without limit

_ENUMS: dict[str, tuple[str, ...]] = {key: tuple(enum) for key, enum in ENUM_OPTIONS.items()}
_BOOLS = (
    "layoff_requires_own_meld", "go_out_without_discard", "final_discard_face_down", "recycle_keeps_top",
    "recycle_shuffle", "stalemate_detector", "stalemate_ends_match", "set_suits_distinct",
    "top_discard_must_be_used", "floating", "final_discard_must_be_unplayable", "rummy_call",
)

# SPEC §4, verbatim values. Per-player-count maps are resolved once the number of players is known.
_PRESETS: dict[str, dict[str, Any]] = {
    "solitaired": dict(
        players=(4,), hand_size={4: 7}, decks=1, jokers_per_deck=0, ace_mode="low", max_melds_per_turn=None,
        layoff_requires_own_meld=True, layoff_credit="none", discard_draw="top_only",
        go_out_without_discard=True, final_discard_face_down=False, going_rummy="none", recycle_limit=1,
        recycle_keeps_top=False, recycle_shuffle=False, stock_empty_after_limit="stalemate",
        stalemate_detector=False, scoring="winner_takes_hands", values="basic", target=200,
        tie_rule="impossible", dealer_rotation="clockwise", rummy_call=False),
    "basic": dict(
        players=(2, 3, 4), hand_size={2: 10, 3: 7, 4: 7}, decks=1, jokers_per_deck=0, ace_mode="low",
        max_melds_per_turn=None, layoff_requires_own_meld=False, layoff_credit="none",
        discard_draw="top_only", go_out_without_discard=True, final_discard_face_down=True,
        going_rummy="double", recycle_limit=1, recycle_keeps_top=False, recycle_shuffle=True,
        stock_empty_after_limit="stalemate", stalemate_detector=True, scoring="winner_takes_hands",
        values="basic", target={2: 100, 3: 150, 4: 200}, tie_rule="impossible",
        dealer_rotation="clockwise", rummy_call=False),
    "classic": dict(
        players=(2, 3, 4, 5, 6), hand_size={2: 10, 3: 7, 4: 7, 5: 6, 6: 6}, decks=1, jokers_per_deck=0,
        ace_mode="low", max_melds_per_turn=None, layoff_requires_own_meld=False,
        layoff_credit="placed_in_front", discard_draw="top_only", go_out_without_discard=True,
        final_discard_face_down=False, going_rummy="double", recycle_limit=UNLIMITED, recycle_keeps_top=True,
        recycle_shuffle=True, stalemate_detector=False, scoring="winner_takes_hands", values="basic",
        target=150, match_hands=None, tie_rule="extra_hand", dealer_rotation="clockwise", rummy_call=False),
    "rummy500": dict(
        players=(2, 3, 4, 5, 6, 7, 8), hand_size={2: 13, "default": 7},
        decks={2: 1, 3: 1, 4: 1, 5: 2, 6: 2, 7: 2, 8: 2}, jokers_per_deck=2, joker_meld_value="fixed15",
        min_natural_cards_per_meld=1, ace_mode="high_or_low", set_suits_distinct=True,
        max_melds_per_turn=None, layoff_requires_own_meld=False, layoff_credit="scores_for_layer",
        discard_draw="top_or_deep", deep_card_use="meld_or_layoff", top_discard_must_be_used=False,
        go_out_without_discard=True, floating=False, final_discard_must_be_unplayable=False,
        going_rummy="none", rummy_call=True, recycle_limit=0, stock_empty_end="score_hand",
        scoring="meld_minus_hand", values="r500", target=500, tie_rule="extra_hand",
        dealer_rotation="clockwise"),
}

_DEFAULTS: dict[str, Any] = dict(
    joker_meld_value="fixed15", min_natural_cards_per_meld=1, set_suits_distinct=True,
    deep_card_use="meld_or_layoff", top_discard_must_be_used=False, floating=False,
    final_discard_must_be_unplayable=False, recycle_trigger="immediate", stalemate_ends_match=False,
    match_hands=None, stalemate_detector=False, stock_empty_after_limit="stalemate",
    stock_empty_end="score_hand", recycle_shuffle=True, final_discard_face_down=False,
    recycle_keeps_top=False,
)


@dataclass(frozen=True, slots=True)
class Rules:
    """Every parameter of one rule system, resolved for a player count."""

    name: str
    n_players: int
    hand_size: int
    decks: int
    jokers_per_deck: int
    ace_mode: str
    max_melds_per_turn: int | None
    layoff_requires_own_meld: bool
    layoff_credit: str
    discard_draw: str
    go_out_without_discard: bool
    final_discard_face_down: bool
    going_rummy: str
    recycle_limit: int | None  # None = unlimited
    recycle_keeps_top: bool
    recycle_shuffle: bool
    recycle_trigger: str
    stock_empty_after_limit: str
    stalemate_detector: bool
    stalemate_ends_match: bool
    scoring: str
    values: str
    target: int | None
    match_hands: int | None
    tie_rule: str
    dealer_rotation: str
    rummy_call: bool
    joker_meld_value: str
    min_natural_cards_per_meld: int
    set_suits_distinct: bool
    deep_card_use: str
    top_discard_must_be_used: bool
    floating: bool
    final_discard_must_be_unplayable: bool
    stock_empty_end: str

    @property
    def deck_size(self) -> int:
        return self.decks * (52 + self.jokers_per_deck)

    @property
    def multiplicity(self) -> int:
        return self.decks

    @property
    def jokers(self) -> int:
        return self.decks * self.jokers_per_deck

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


OPTION_KEYS = frozenset(f.name for f in fields(Rules)) - {"name", "n_players"}


MAX_TARGET = 10**9  # far beyond any evening (the dashboard holds every total exactly)


def _per_count(value: Any, n: int, key: str) -> Any:
    if isinstance(value, dict):
        table = {str(k): v for k, v in value.items()}
        if str(n) in table:
            return table[str(n)]
        if "default" in table:
            return table["default"]
        raise SetupError("bad_option", f"option '{key}' has no value for {n} players")
    return value


def _check_int(key: str, v: Any, lo: int, hi: int | None = None, allow_none: bool = False) -> None:
    if v is None and allow_none:
        return
    if isinstance(v, bool) or not isinstance(v, int) or v < lo or (hi is not None and v > hi):
        rng = f"{lo}..{hi}" if hi is not None else f"at least {lo}"
        extra = " or null" if allow_none else ""
        raise SetupError("bad_option", f"option '{key}' must be a whole number {rng}{extra}, not {v!r}")


def make_rules(name: object, n_players: int, options: object = None) -> Rules:
    """Resolve a preset plus options for `n_players` players. Raises SetupError on anything invalid."""
    if not isinstance(name, str) or name not in _PRESETS:
        raise SetupError("unknown_rules", f"unknown rules {name!r}: choose one of {', '.join(PRESET_NAMES)}")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise SetupError("bad_options", "'options' must be an object of config keys (SPEC §4)")
    preset = _PRESETS[str(name)]
    allowed_players = preset["players"]
    if n_players not in allowed_players:
        counts = ", ".join(str(c) for c in allowed_players)
        raise SetupError("bad_player_count",
                         f"{name} is played by {counts} players, not {n_players} (SPEC §1 row 1)")
    for key in options:
        if key == "players":
            raise SetupError("bad_option", "the player count is set by the 'players' list, not an option")
        if key not in OPTION_KEYS:
            raise SetupError("unknown_option", f"unknown option '{key}' (see the config keys of SPEC §4)")
    merged: dict[str, Any] = dict(_DEFAULTS)
    merged.update({k: v for k, v in preset.items() if k != "players"})
    if name == "classic" and options.get("ace_mode") == AceMode.HIGH_OR_LOW and "values" not in options:
        merged["values"] = Values.BASIC_ACE15  # SPEC §4: the ace option in `classic` switches the values
    if "match_hands" in options and options.get("match_hands") is not None and "target" not in options:
        merged["target"] = None
    merged.update(options)
    if merged.get("tie_rule") == "shared":
        merged["tie_rule"] = TieRule.SHARED_WIN
    if merged.get("recycle_limit") == "unlimited":
        merged["recycle_limit"] = None

    for key, choices in _ENUMS.items():
        v = merged.get(key)
        if v not in choices:
            raise SetupError("bad_option", f"option '{key}' must be one of {', '.join(choices)}, not {v!r}")
        merged[key] = ENUM_OPTIONS[key](v)
    for key in _BOOLS:
        if not isinstance(merged.get(key), bool):
            raise SetupError("bad_option", f"option '{key}' must be true or false, not {merged.get(key)!r}")
    resolved = {k: _per_count(merged[k], n_players, k) for k in ("hand_size", "decks", "target")}
    merged.update(resolved)
    _check_int("hand_size", merged["hand_size"], 1, 20)
    _check_int("decks", merged["decks"], 1, 2)
    _check_int("jokers_per_deck", merged["jokers_per_deck"], 0, 4)
    _check_int("max_melds_per_turn", merged["max_melds_per_turn"], 1, 100, allow_none=True)
    _check_int("recycle_limit", merged["recycle_limit"], 0, 1000, allow_none=True)
    _check_int("target", merged["target"], 1, MAX_TARGET, allow_none=True)
    _check_int("match_hands", merged["match_hands"], 1, 1000, allow_none=True)
    _check_int("min_natural_cards_per_meld", merged["min_natural_cards_per_meld"], 0, 3)
    if merged["target"] is None and merged["match_hands"] is None:
        raise SetupError("bad_option", "a match needs a 'target' score or a number of hands ('match_hands')")
    deck = merged["decks"] * (52 + merged["jokers_per_deck"])
    if n_players * merged["hand_size"] + 1 >= deck:
        raise SetupError("bad_option",
                         f"{n_players} hands of {merged['hand_size']} cards do not fit in a {deck}-card deck")
    return Rules(name=str(name), n_players=n_players, **{k: merged[k] for k in OPTION_KEYS})


def preset_defaults(name: str, n_players: int) -> dict[str, Any]:
    """The resolved default options of a preset for a player count (for the dashboard's new-match form)."""
    rules = make_rules(name, n_players, {})
    out = rules.to_json()
    out.pop("name")
    out.pop("n_players")
    return out


def preset_player_counts(name: str) -> tuple[int, ...]:
    return tuple(_PRESETS[name]["players"])


def option_choices() -> tuple[dict[str, list[str]], list[str]]:
    """The allowed values of the enumerated options, and the names of the yes/no options (for forms)."""
    return {k: list(v) for k, v in _ENUMS.items()}, list(_BOOLS)
