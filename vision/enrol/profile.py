"""A deck profile: what the referee learnt of one table's deck, in one folder.

    DECK/deck.json          what it is: name, when it was taught, cards found per photo, how the learning went
    DECK/faces/<card>.png   each card's face as cut out of the photos (upright, 250×350)
    DECK/cards-cls.onnx     the corner classifier taught this deck (the general one, fine-tuned); .pt beside it

`detect`, `track` and `serve` take `--deck DECK`: a path to such a folder, or the name of one kept in the
dashboard's deck folder (`decks_dir()`: `decks/` beside the dashboard's database).  The general localiser
still finds the corner indices; the deck's own classifier names them, with the same network and the
same speed as the general one.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

FORMAT = "rummy-referee deck"
VERSION = 1
CLASSIFIER = "cards-cls.onnx"
NAME_RE = re.compile(r"^[\w][\w .'-]{0,39}$")


class DeckError(ValueError):
    """A deck profile that cannot be used; the message says which and why."""


@dataclass(frozen=True)
class DeckProfile:
    path: Path
    meta: dict

    @property
    def name(self) -> str:
        return str(self.meta.get("name") or self.path.name)

    @property
    def classifier(self) -> Path:
        return self.path / str(self.meta.get("classifier", CLASSIFIER))

    def faces(self) -> dict[str, Path]:
        d = self.path / "faces"
        return {p.stem: p for p in sorted(d.glob("*.png"))} if d.is_dir() else {}

    def summary(self) -> dict:
        m = self.meta
        return {"name": self.name, "path": str(self.path), "created": m.get("created"), "cards": m.get("cards"),
                "jokers": m.get("jokers", 0), "learning": m.get("learning", {})}


def decks_dir(data_dir: str | Path | None = None) -> Path:
    """Where the dashboard keeps taught decks: `decks/` beside its database (see web_ui), or under the
    user's data folder."""
    if data_dir is not None:
        return Path(data_dir) / "decks"
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "rummy-referee" / "decks"


def load_profile(deck: str | Path, search: str | Path | None = None) -> DeckProfile:
    """The profile at `deck` (a folder, or its deck.json), or the one named `deck` in `search` (default
    `decks_dir()`).  Raises `DeckError` saying what is wrong."""
    p = Path(deck)
    if p.name == "deck.json":
        p = p.parent
    if not p.exists() and NAME_RE.match(str(deck)) and "/" not in str(deck):
        cand = (Path(search) if search is not None else decks_dir()) / str(deck)
        if cand.exists():
            p = cand
    if not p.exists():
        raise DeckError(f"no deck profile at {deck} (a folder written by `rummy-referee enrol`, or the name of "
                        "a deck taught on the dashboard)")
    meta_path = p / "deck.json"
    if not meta_path.is_file():
        raise DeckError(f"{p} is not a deck profile: it has no deck.json (write one with `rummy-referee enrol`)")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DeckError(f"{meta_path}: unreadable ({e.__class__.__name__})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise DeckError(f"{meta_path}: not a deck profile (format is not {FORMAT!r})")
    if int(meta.get("version", 0)) > VERSION:
        raise DeckError(f"{meta_path}: written by a newer version (profile version {meta.get('version')})")
    prof = DeckProfile(p, meta)
    if not prof.classifier.is_file():
        raise DeckError(f"{p}: its classifier {prof.classifier.name} is missing: teach the deck again")
    return prof


def list_profiles(search: str | Path | None = None) -> list[DeckProfile]:
    """The usable profiles in `search` (default `decks_dir()`), newest first."""
    root = Path(search) if search is not None else decks_dir()
    out = []
    if root.is_dir():
        for d in root.iterdir():
            try:
                out.append(load_profile(d))
            except DeckError:
                continue
    return sorted(out, key=lambda p: str(p.meta.get("created", "")), reverse=True)


def write_meta(path: Path, meta: dict) -> None:
    meta = {"format": FORMAT, "version": VERSION, **meta}
    (path / "deck.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
