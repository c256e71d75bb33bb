"""The pure rules engine of Rummy Referee. Imports nothing from vision/ or web_ui/.

Public API (see docs/REFEREE_API.md): Match, Verdict, replay_lines, parse_card, format_card, make_rules, Phase,
Result.
"""

from .cards import JOKER, CardError, describe, format_card, parse_card, parse_played
from .engine import REFUSAL_CODES, Match, Verdict
from .errors import RefereeError, Refusal, SetupError
from .presets import PRESET_NAMES, Rules, make_rules, preset_defaults, preset_player_counts
from .replay import LogError, replay_file, replay_lines
from .state import Phase, Result

__all__ = [
    "JOKER", "CardError", "describe", "format_card", "parse_card", "parse_played", "REFUSAL_CODES", "Match",
    "Verdict", "Refusal", "RefereeError", "SetupError", "PRESET_NAMES", "Rules", "make_rules", "preset_defaults",
    "preset_player_counts", "LogError", "replay_file", "replay_lines", "Phase", "Result",
]
