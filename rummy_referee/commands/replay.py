"""`rummy-referee replay GAME.jsonl [--json]` (contract: shared/contracts/game-log.md, "Replaying a log").

Exit status 0 when the log was read, whatever was refused; 2 when it cannot be read or its first line is
not a valid match.  The text report never lets a name drive the terminal (control characters are shown
as escapes).
"""

from __future__ import annotations

import json
import sys

from referee import strict_json
from referee.replay import LogError, replay_file
from referee.strict_json import one_line


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
        print(one_line(f"rummy-referee replay: {exc}"), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        # names come from the log: never let them drive the terminal (escape sequences)
        print(strict_json.terminal_safe(format_text(result)))
    return 0
