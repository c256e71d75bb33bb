"""One strict decoding of untrusted JSON, used at every boundary (API bodies, imported and replayed
game logs, the layout and match files of `track`).

Python's `json` accepts more than JSON: `NaN`, `Infinity`, lone UTF-16 surrogates (`"\\ud800"`,
which no UTF-8 encoder can write back out), integers of any size and nesting until the interpreter
runs out of stack.  Any of those, once stored, breaks every screen that shows it.  `loads` refuses
them with a `StrictJSONError` whose `code` is stable and whose `message` says what was wrong:

- `bad_json`: not standard JSON (NaN/Infinity included);
- `bad_text`: a string that is not valid Unicode (a lone surrogate);
- `too_deep`: nested deeper than `MAX_DEPTH` objects/arrays (the log needs 3);
- `bad_number`: a number a browser cannot hold exactly (beyond ±2**53) or not finite.

`check_name` is the rule for player names and titles: 1..`MAX_NAME` characters, no control
characters, not only spaces.  `terminal_safe` makes any text safe to print on a terminal.

No I/O, no imports from the rest of the project: the referee stays at the bottom.
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

MAX_DEPTH = 32
MAX_SAFE_INT = 2**53 - 1  # JavaScript's Number.MAX_SAFE_INTEGER: what the dashboard can hold exactly
MAX_NAME = 40
MAX_TITLE = 120


class StrictJSONError(ValueError):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def _reject_constant(name: str):
    raise StrictJSONError("bad_json", f"{name} is not a JSON number (standard JSON has no NaN or Infinity)")


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 16:
        raise StrictJSONError("bad_number", f"the number {text[:20]}{'…' if len(text) > 20 else ''} is too large")
    return int(text)


def _float(text: str) -> float:
    v = float(text)
    if not math.isfinite(v):
        raise StrictJSONError("bad_number", f"the number {text[:20]} is too large")
    return v


def _depth_ok(text: str, limit: int) -> bool:
    """Cheap pre-scan: the nesting depth of brackets outside strings never exceeds `limit`."""
    if text.count("[") + text.count("{") <= limit:
        return True
    depth = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def _check_value(value: Any) -> None:
    """Every string valid Unicode, every number in range (iterative: no recursion)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            check_text(v)
        elif isinstance(v, bool) or v is None:
            continue
        elif isinstance(v, int):
            if abs(v) > MAX_SAFE_INT:
                raise StrictJSONError("bad_number", f"the number {v} is beyond what the dashboard can hold")
        elif isinstance(v, float):
            if not math.isfinite(v) or abs(v) > MAX_SAFE_INT:
                raise StrictJSONError("bad_number", f"the number {v} is beyond what the dashboard can hold")
        elif isinstance(v, dict):
            for k, item in v.items():
                check_text(k)
                stack.append(item)
        elif isinstance(v, list):
            stack.extend(v)


def check_text(s: str) -> None:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        raise StrictJSONError("bad_text", "the text holds an invalid character (a lone UTF-16 surrogate)") from None


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Standard JSON only (see the module docstring); raises StrictJSONError."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise StrictJSONError("bad_text", "the text is not UTF-8") from None
    if not _depth_ok(text, max_depth):
        raise StrictJSONError("too_deep", f"the JSON is nested more than {max_depth} levels deep")
    try:
        value = json.loads(text, parse_constant=_reject_constant, parse_int=_int, parse_float=_float)
    except StrictJSONError:
        raise
    except RecursionError:
        raise StrictJSONError("too_deep", f"the JSON is nested more than {max_depth} levels deep") from None
    except ValueError as e:
        raise StrictJSONError("bad_json", f"not valid JSON ({e})") from None
    _check_value(value)
    return value


def dumps(value: Any, **kw) -> str:
    """The writing side: never NaN/Infinity (raises ValueError instead)."""
    kw.setdefault("ensure_ascii", False)
    return json.dumps(value, allow_nan=False, **kw)


def _is_control(ch: str) -> bool:
    cat = unicodedata.category(ch)
    return cat in ("Cc", "Cf", "Cs", "Zl", "Zp") and ch not in ("\u200d",)  # ZWJ joins emoji


def check_name(value: Any, what: str = "a player name", max_len: int = MAX_NAME) -> str:
    """A player name or title as the table types it: returns it, or raises StrictJSONError."""
    if not isinstance(value, str):
        raise StrictJSONError("bad_name", f"{what} must be text, not {type(value).__name__}")
    check_text(value)
    if not value.strip():
        raise StrictJSONError("bad_name", f"{what} must not be empty")
    if len(value) > max_len:
        raise StrictJSONError("bad_name", f"{what} is too long ({len(value)} characters; at most {max_len})")
    if any(_is_control(ch) for ch in value):
        raise StrictJSONError("bad_name", f"{what} holds a control character (tab, newline, escape…)")
    return value


def terminal_safe(text: str) -> str:
    """Text with control characters shown as escapes, so printing it cannot drive the terminal."""
    out = []
    for ch in str(text):
        if ch in "\n":
            out.append(ch)
        elif _is_control(ch) or ("\ud800" <= ch <= "\udfff"):
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                       if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def one_line(text: Any) -> str:
    """A message for one line of a terminal: control characters (newlines included) shown as escapes."""
    return terminal_safe(str(text)).replace("\n", "\\n")


def scrub(value: Any) -> Any:
    """A copy of a decoded value with any lone surrogate replaced by U+FFFD: for data stored before
    strict decoding, so it can still be shown (and deleted) instead of breaking every page."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, list):
        return [scrub(v) for v in value]
    if isinstance(value, dict):
        return {scrub(k): scrub(v) for k, v in value.items()}
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def split_match_object(obj: Any, extra_keys: tuple[str, ...] = ("dealer",)) -> tuple[dict, dict]:
    """A match object as other programs send it (the log's `match` line plus keys of their own, such as the
    first `dealer`) → (the match line, the extra keys).  A `dealer`, when given, must be one of the players;
    the match line itself is checked by the rules engine (`Match(setup)`: players' names, rules, options).
    Raises StrictJSONError."""
    if not isinstance(obj, dict):
        raise StrictJSONError("bad_setup", "the match must be a JSON object")
    if obj.get("type", "match") != "match":
        raise StrictJSONError("bad_setup", "the match object must have \"type\": \"match\"")
    setup = {"type": "match", **{k: v for k, v in obj.items() if k not in extra_keys and k != "type"}}
    extra = {k: obj[k] for k in extra_keys if k in obj}
    d, players = extra.get("dealer"), setup.get("players")
    if d is not None and (not isinstance(d, str) or not isinstance(players, list) or d not in players):
        raise StrictJSONError("bad_dealer", f"the first dealer {str(d)[:40]!r} is not one of the players")
    return setup, extra
