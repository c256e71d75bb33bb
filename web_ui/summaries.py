"""The host's evening, read from the stored matches: a short summary of each match (for the matches list,
the statistics and the remembered players), the players' colours, and the statistics per player.

A match's summary is what the list needs of its state (status, hand being played, totals, winner, each
finished hand's points), kept in the ``matches.summary`` column so that the list does not replay every
match per request.  It is written with each event (``Store._insert``) and, for a database of an older
version or a change made some other way, computed again on the first read that finds it out of date: a
summary names the last event row (``v``) and the match line (``k``) it was made from.

No rules logic here: every figure comes from the engine's state (``Match.hands_done``, ``totals``,
``match_over``, ``match_winner``).
"""

from __future__ import annotations

import re
import zlib
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from referee.strict_json import StrictJSONError

# The players' colours: one a seat by default, distinct, tellable apart with the common kinds of colour
# blindness on the dark felt (yellow, sky blue, magenta, light green, orange, lavender, white, teal).  The
# same list is RR.COLORS in static/common.js (tests/test_web_matches.py checks that they agree).  Names are
# always shown beside a colour: colour alone never tells players apart.
PALETTE = ("#ffd166", "#4cc9f0", "#f72585", "#90e0a0", "#ff8c42", "#b39cff", "#f1f1f1", "#2ec4b6")
COLOR_RE = re.compile(r"#[0-9a-fA-F]{6}")

STATUS_NOT_STARTED = "not_started"
STATUS_IN_PROGRESS = "in_progress"
STATUS_OVER = "over"


def setup_key(setup_text: str) -> int:
    """Which match line a summary was made from (a change to the match line makes it out of date)."""
    return zlib.crc32(setup_text.encode("utf-8"))


def summarize(m: Any, version: int, key: int) -> dict:
    """The summary of an engine Match after event row `version` (see the module docstring)."""
    h = m.hand
    playing = h is not None and (h.phase != "over" or bool(h.awaiting)) and not m.match_over
    if m.match_over:
        status = STATUS_OVER
    elif m.events or m.hands_done:
        status = STATUS_IN_PROGRESS
    else:
        status = STATUS_NOT_STARTED
    return {
        "v": version, "k": key, "status": status,
        "hand": h.number if playing else None,
        "players": list(m.players),
        "totals": {p: m.totals[i] for i, p in enumerate(m.players)},
        "winner": m.match_winner,
        "hands": [{"number": d["number"], "winner": d.get("winner"), "result": d.get("result"),
                   "points": dict(d.get("points") or {})} for d in m.hands_done],
    }


def is_current(summary: Any, version: int, key: int) -> bool:
    return isinstance(summary, dict) and summary.get("v") == version and summary.get("k") == key


def winners(summary: dict) -> list[str]:
    w = summary.get("winner")
    return [w] if isinstance(w, str) else [x for x in w if isinstance(x, str)] if isinstance(w, list) else []


# -- colours ------------------------------------------------------------------------------------------
def check_colors(value: Any, players: Any) -> dict[str, str]:
    """A match's colours as sent with the match (``"colors": {"Ana": "#ffd166"}``) → the same with the
    names as the engine keeps them (trimmed) and the colours in lower case.  Raises StrictJSONError
    (code ``bad_colors``) for anything else: not an object, a name that is not one of the players, a
    colour that is not ``#rrggbb``."""
    if not isinstance(value, dict):
        raise StrictJSONError("bad_colors", "'colors' must map players' names to colours such as \"#ffd166\"")
    seated = [p.strip() for p in players if isinstance(p, str)] if isinstance(players, list) else []
    out: dict[str, str] = {}
    for name, colour in value.items():
        who = name.strip()
        if who not in seated:
            raise StrictJSONError("bad_colors", f"{name[:40]!r} in 'colors' is not one of the players")
        if not isinstance(colour, str) or not COLOR_RE.fullmatch(colour):
            raise StrictJSONError("bad_colors", f"the colour of {who[:40]} must be written #rrggbb (such as #ffd166)")
        out[who] = colour.lower()
    return out


def player_colors(players: list[str], chosen: Any = None) -> dict[str, str]:
    """Each player's colour: the one chosen for the match, else the first colour of the palette that no
    player before has (as RR.playerColors in static/common.js)."""
    chosen = chosen if isinstance(chosen, dict) else {}
    out: dict[str, str] = {}
    used = {c for p, c in chosen.items() if p in players and isinstance(c, str) and COLOR_RE.fullmatch(c)}
    for i, p in enumerate(players):
        c = chosen.get(p)
        if not (isinstance(c, str) and COLOR_RE.fullmatch(c)):
            c = next((x for x in PALETTE if x not in used), PALETTE[i % len(PALETTE)])
            used.add(c)
        out[p] = c
    return out


# -- players and statistics ---------------------------------------------------------------------------
def known_players(rows: list[dict]) -> dict:
    """The names used before (most recent first, one per name whatever its case, as spelt last) with the
    colour each had last, and the seating of the match started last.  `rows`: Store.match_rows(), newest
    change first."""
    seen: dict[str, dict] = {}
    for r in rows:  # newest change first: the first spelling and colour met are the last used
        setup, extra = r["setup"], r["extra"]
        colors = extra.get("colors") if isinstance(extra.get("colors"), dict) else {}
        for p in setup.get("players") or []:
            if not isinstance(p, str):
                continue
            k = p.casefold()
            d = seen.get(k)
            if d is None:
                d = seen[k] = {"name": p, "color": None, "matches": 0, "last_used": r["opened"]}
            d["matches"] += 1
            if d["color"] is None and isinstance(colors.get(p), str):
                d["color"] = colors[p]
    last = max(rows, key=lambda r: r["created"], default=None)
    last_out = None
    if last is not None:
        ps = [p for p in last["setup"].get("players") or [] if isinstance(p, str)]
        last_out = {"id": last["id"], "rules": last["setup"].get("rules"), "players": ps,
                    "colors": player_colors(ps, last["extra"].get("colors"))}
    return {"players": list(seen.values()), "last": last_out}


def player_stats(rows: list[dict], rules: str | None = None) -> list[dict]:
    """Per player, across the matches of `rows` (of the rule system `rules`; None: all):

    - ``matches``: matches the player sat in with at least one hand finished; ``matches_won``: matches
      over with the player as (a) winner (a shared win counts for each);
    - ``hands``: finished hands the player sat in; ``hands_won``: hands the player went out in;
    - ``points``: the points the hands gave the player, ``average``: per hand (one decimal);
    - ``best``: the most points in one hand, with the match and the hand's number (the first such hand
      when two are equal).

    Names are merged whatever their case and shown as spelt in the newest match of `rows` (whatever its
    rules), with the colour they had last.  Sorted by matches won, then hands won, then average."""
    names = {p["name"].casefold(): p for p in known_players(rows)["players"]}
    stats: dict[str, dict] = {}
    for r in sorted(rows, key=lambda r: (r["created"], r["id"])):  # oldest first: "first such hand"
        if rules is not None and r["setup"].get("rules") != rules:
            continue
        s = r["summary"]
        hands = s.get("hands") or []
        won = winners(s) if s.get("status") == STATUS_OVER else []
        for p in s.get("players") or []:
            k = p.casefold()
            d = stats.get(k)
            if d is None:
                known = names.get(k) or {"name": p, "color": None}
                d = stats[k] = {"name": known["name"], "color": known["color"], "matches": 0, "matches_won": 0,
                                "hands": 0, "hands_won": 0, "points": 0, "average": None, "best": None,
                                "_ids": set()}
            played = [hd for hd in hands if p in (hd.get("points") or {})]
            if played and r["id"] not in d["_ids"]:
                d["_ids"].add(r["id"])
                d["matches"] += 1
                if p in won:
                    d["matches_won"] += 1
            for hd in played:
                pts = hd["points"][p]
                d["hands"] += 1
                d["points"] += pts
                if hd.get("winner") == p:
                    d["hands_won"] += 1
                if d["best"] is None or pts > d["best"]["points"]:
                    d["best"] = {"points": pts, "hand": hd.get("number"), "match": r["id"],
                                 "title": r["extra"].get("title"), "rules": r["setup"].get("rules")}
    out = []
    for d in stats.values():
        if not d["hands"] and not d["matches"]:
            continue
        d.pop("_ids")
        d["average"] = one_decimal(d["points"] / d["hands"]) if d["hands"] else None
        out.append(d)
    out.sort(key=lambda d: (-d["matches_won"], -d["hands_won"], -(d["average"] or 0), d["name"].casefold()))
    return out


def one_decimal(x: float) -> float:
    """Rounded as people do (6.25 → 6.3, −2.25 → −2.3), not to the even digit."""
    return float(Decimal(repr(x)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
