"""The one place web_ui touches the rules engine (docs/REFEREE_API.md). No rules logic here."""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger(__name__)

RULES = ("basic", "solitaired", "classic", "rummy500")


def _referee():
    import referee

    return referee


def setup_error_type():
    return _referee().SetupError


def new_match(setup: Any):
    """A new engine Match; raises referee.SetupError (with .code and .message) for a bad setup."""
    ref = _referee()
    if not isinstance(setup, dict):
        raise ref.SetupError("bad_setup", "The match setup must be a JSON object.")
    return ref.Match(setup)


def rebuild(setup: dict, events: list[dict]):
    """Replay accepted events onto a fresh match (used at start-up and for undo)."""
    m = new_match(setup)
    for i, ev in enumerate(events):
        v = m.apply(ev)
        if not v.ok:  # only possible if the engine changed its mind between versions
            log.warning("stored event %d no longer accepted (%s): %s", i + 1, v.code, v.message)
    return m


def public_state(m) -> dict:
    st = dict(m.public_state())
    legal = getattr(m, "legal_moves", None)
    if legal is not None:
        try:
            st["legal"] = legal()  # what may happen next, for the entry panel's hints
        except Exception:  # a hint must never break the scoreboard
            log.exception("legal_moves failed")
    return st


def replay_lines(lines: list[str]) -> dict:
    return _referee().replay_lines(lines)


def format_card(card: str) -> str:
    ref = _referee()
    return ref.format_card(ref.parse_card(card))
