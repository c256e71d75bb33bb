"""One accessor per shared object of the app (like flaskr's `get_db()`): the store (SQLite + the matches in
memory), the hub (SSE fan-out), the match service (changes → store → every screen; the camera bridge),
the PIN guard, the taught decks.  `create_app` puts them in `app.extensions`; everything else asks here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from flask import Flask, current_app

if TYPE_CHECKING:
    from .decks import DeckTeacher
    from .hub import Hub, StreamSlots
    from .live import MatchService
    from .security import PinGuard
    from .store import Store

STORE, HUB, MATCHES, PIN_GUARD, STREAMS = "rummy_store", "rummy_hub", "rummy_live", "rummy_pin_guard", "rummy_streams"
DECKS = "rummy_decks"


def get_store(app: Flask | None = None) -> Store:
    return (app or current_app).extensions[STORE]


def get_hub(app: Flask | None = None) -> Hub:
    return (app or current_app).extensions[HUB]


def get_matches(app: Flask | None = None) -> MatchService:
    """The match service: applies changes through the store and shows them on every screen."""
    return (app or current_app).extensions[MATCHES]


def get_pin_guard(app: Flask | None = None) -> PinGuard:
    return (app or current_app).extensions[PIN_GUARD]


def get_stream_slots(app: Flask | None = None) -> StreamSlots:
    """The count of open live streams (each holds a server thread; at most MAX_STREAMS)."""
    return (app or current_app).extensions[STREAMS]


def get_decks(app: Flask | None = None) -> DeckTeacher:
    """The taught decks, the photos being taken for a new one and its learning (web_ui/decks.py)."""
    return (app or current_app).extensions[DECKS]
