"""Reading a JSON file someone handed the command line (a table layout, a match file): at most
`max_bytes`, decoded strictly (referee/strict_json.py).  Errors are a `ValueError` whose text starts with
`what` and says what was wrong, for a one-line message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.strict_json import StrictJSONError, loads

MAX_BYTES = 1024 * 1024


def load_json_file(path: str | Path, what: str, max_bytes: int = MAX_BYTES) -> Any:
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise ValueError(f"{what}: cannot read {path}: {e.strerror or e}") from None
    if len(raw) > max_bytes:
        raise ValueError(f"{what}: {path} is too large ({len(raw)} bytes; at most {max_bytes})")
    try:
        return loads(raw)
    except StrictJSONError as e:
        raise ValueError(f"{what}: {path} was refused: {e.message}") from None
