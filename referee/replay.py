"""Replaying a game log (contract: shared/contracts/game-log.md, "Replaying a log") and `rummy-referee replay`."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from . import strict_json
from .engine import Match
from .errors import SetupError


class LogError(Exception):
    """The log cannot be replayed at all: unreadable, or its first line is not a valid `match`."""


def _lines(source: Iterable[str]) -> list[str]:
    lines = [ln.rstrip("\r\n") for ln in source]
    while lines and not lines[-1].strip():
        lines.pop()
    return lines


def replay_lines(source: Iterable[str]) -> dict:
    """Replay JSON Lines; return the contract's `replay --json` object. Raises LogError on a bad first line."""
    lines = _lines(source)
    if not lines or not lines[0].strip():
        raise LogError("the log is empty: its first line must be a 'match' object")
    try:
        setup = strict_json.loads(lines[0])
    except strict_json.StrictJSONError as exc:
        raise LogError(f"line 1 is not a valid match: {exc.message} [{exc.code}]") from None
    try:
        match = Match(setup)
    except SetupError as exc:
        raise LogError(f"line 1 is not a valid match: {exc.message} [{exc.code}]") from None
    events = []
    for number, line in enumerate(lines[1:], start=2):
        entry: dict = {"line": number}
        if not line.strip():
            entry.update(ok=False, code="bad_json", message="empty line: expected one event object")
            events.append(entry)
            continue
        try:
            event = strict_json.loads(line)
        except strict_json.StrictJSONError as exc:
            entry.update(ok=False, code=exc.code, message=exc.message)
            events.append(entry)
            continue
        verdict = match.apply(event)
        entry.update(verdict.to_json())
        events.append(entry)
    out = match.summary()
    result = {"rules": out["rules"], "players": out["players"], "events": events}
    result.update({k: v for k, v in out.items() if k not in result})
    return result


def replay_file(path: str) -> dict:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise LogError(f"cannot read {path}: {exc}") from None
    return replay_lines(text.splitlines())
