"""Replaying a game log (contract: shared/contracts/game-log.md, "Replaying a log") and `rummy-referee replay`."""

from __future__ import annotations

import json
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
        setup = strict_json.check_match_object(strict_json.loads(lines[0]))
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


def format_text(result: dict) -> str:
    """A readable report of a replay for people at the table."""
    out = [f"Rules: {result['rules']}   Players: {', '.join(result['players'])}"]
    refused = [e for e in result["events"] if not e["ok"]]
    out.append(f"Events: {len(result['events'])} read, {len(refused)} refused")
    for e in refused:
        out.append(f"  line {e['line']}: refused [{e['code']}] {e['message']}")
    for h in result["hands"]:
        pts = ", ".join(f"{p} {v:+d}" for p, v in h["points"].items())
        who = h["winner"] or "nobody"
        extra = " (going rummy)" if h["going_rummy"] else ""
        out.append(f"Hand {h['number']} (dealer {h['dealer']}): {h['result']}, winner {who}{extra}: {pts}")
    out.append("Totals: " + ", ".join(f"{p} {v}" for p, v in result["totals"].items()))
    if result["match_over"]:
        w = result["match_winner"]
        out.append("Match over: " + (" and ".join(w) if isinstance(w, list) else str(w or "no winner")) + " won")
    return "\n".join(out)


def cli_replay(args) -> int:
    try:
        result = replay_file(args.log)
    except LogError as exc:
        print(f"rummy-referee replay: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        # names come from the log: never let them drive the terminal (escape sequences)
        print(strict_json.terminal_safe(format_text(result)))
    return 0
