"""Tracking a whole recording offline: the live pipeline on every frame of a recording in order, and the
game log it inferred (used by `rummy-referee track`, the demo and the acceptance evaluation).

`load_match(MATCH.json)` reads a match file (a match line plus `dealer`, strictly decoded); `track(...)`
returns the log lines (the `match` line, then `deal` and every event the referee accepted, in hidden-hand
mode), the observer's outcomes and the tracker.  Offline nobody can confirm an uncertain event, so it is
applied (`auto_confirm`).
"""

from __future__ import annotations

import json
from pathlib import Path

from vision.capture import iter_frames
from vision.layout import Layout


class InputError(Exception):
    """A bad match file or a layout that does not fit the match (a one-line message)."""


def load_match(path: str | Path) -> tuple[dict, str]:
    """MATCH.json -> (the match object for the log, the first dealer)."""
    from referee import Match, SetupError
    from referee.strict_json import StrictJSONError, split_match_object
    from vision.jsonfile import load_json_file

    try:
        data = load_json_file(path, "match")
    except ValueError as e:
        raise InputError(str(e)) from None
    try:
        setup, extra = split_match_object(data)
        Match(setup)
    except StrictJSONError as e:
        raise InputError(f"match: {e.message}") from None
    except SetupError as e:
        raise InputError(f"match: {getattr(e, 'message', None) or e}") from None
    if extra.get("dealer") is None:
        raise InputError("match: 'dealer' is missing (the dealer of the first hand)")
    return setup, extra["dealer"]


def track(source, layout: Layout, setup: dict, dealer: str, detector, *, fps: float = 10.0,
          auto_confirm: bool = True, frames=None, on_outcome=None, motion_gate=True):
    """Tracks a whole recording. Returns (log lines, outcomes, tracker). `frames` (an iterable of `Frame`s or
    images) replaces reading `source`. `motion_gate`: as `TableTracker`'s."""
    from referee import Match
    from vision.pipeline import TableTracker

    if set(layout.players) != set(setup.get("players") or []):
        raise InputError(f"layout: player zones {sorted(layout.players)} do not match the players "
                         f"{sorted(setup.get('players') or [])}")
    referee = Match(setup)
    tracker = TableTracker(layout, referee, dealer, detector, fps=fps, auto_confirm=auto_confirm,
                           motion_gate=motion_gate)
    if on_outcome is not None:
        tracker.observer.on_event(on_outcome)
    for f in (frames if frames is not None else iter_frames(source)):
        tracker.process(f)
    tracker.finish()  # the recording's last table stays seen: what still waits for a look is decided
    lines = [json.dumps(setup, ensure_ascii=False)] + [json.dumps(e, ensure_ascii=False) for e in referee.events]
    return lines, tracker.observer.outcomes, tracker
