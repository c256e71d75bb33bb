"""Who may change things.

- Reading is open. Every change (any method but GET/HEAD/OPTIONS) goes through ``check_change``.
- Pages send the session's CSRF token: in the ``X-CSRF-Token`` header (fetch) or the ``csrf_token``
  form field (plain forms). A wrong token is refused.
- Programs on this machine may call the contract's JSON routes without a token, as long as the
  request does not come from another web origin (``Origin`` / ``Sec-Fetch-Site``): a web page on
  another site cannot make the browser change a match.
- With a PIN (required when listening beyond localhost) every change also needs the PIN: entered once
  on the unlock page (kept in the signed session cookie) or sent as ``X-Rummy-Pin``. Wrong PINs are
  limited per client address (5 a minute) and in all (``GLOBAL_LIMIT`` in ten minutes, whatever the
  addresses): past the global budget only addresses with no wrong PIN of their own may still try, so
  another address's lockout never refuses the right PIN, and many addresses cannot guess on.
- Host header check (against DNS rebinding): localhost names when listening on localhost; in LAN mode
  the addresses it serves on, this machine's names and those given with ``--allow-host``.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from urllib.parse import urlsplit

from flask import current_app, request, session
from flask_babel import gettext

from .services import get_pin_guard

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}


class Refusal(Exception):
    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def csrf_token() -> str:
    tok = session.get("csrf")
    if not tok:
        tok = secrets.token_urlsafe(24)
        session["csrf"] = tok
    return tok


def pin_required() -> bool:
    return bool(current_app.config.get("PIN"))


def pin_ok() -> bool:
    if not pin_required():
        return True
    return bool(session.get("pin_ok")) and session.get("pin_gen") == current_app.config.get("PIN_GEN")


class PinGuard:
    """Counts wrong PINs: per client address (`limit` per `window`), and in all (`global_limit` per
    `global_window`).  Past the global budget an address that has guessed wrong recently may not try
    again until it expires; an address with no recent wrong PIN still may (the right PIN of the host's
    tablet is not refused because of someone else's guesses), but each of its wrong PINs blocks it."""

    def __init__(self, limit: int = 5, window: float = 60.0, global_limit: int = 30,
                 global_window: float = 600.0):
        self.limit, self.window = limit, window
        self.global_limit, self.global_window = global_limit, global_window
        self._fails: dict[str, list[float]] = {}
        self._all: list[tuple[float, str]] = []
        self._lock = threading.Lock()

    def _prune(self, now: float) -> None:
        self._all = [(t, w) for t, w in self._all if now - t < self.global_window]
        for who in list(self._fails):
            fails = [t for t in self._fails[who] if now - t < max(self.window, self.global_window)]
            if fails:
                self._fails[who] = fails
            else:
                del self._fails[who]

    def blocked(self, who: str) -> bool:
        now = time.monotonic()
        with self._lock:
            self._prune(now)
            mine = self._fails.get(who, [])
            if sum(1 for t in mine if now - t < self.window) >= self.limit:
                return True
            # the global budget is spent: only addresses with no wrong PIN in the global window may try
            return len(self._all) >= self.global_limit and bool(mine)

    def failed(self, who: str) -> None:
        now = time.monotonic()
        with self._lock:
            self._fails.setdefault(who, []).append(now)
            self._all.append((now, who))
            if len(self._all) > 10 * self.global_limit:  # bounded memory under a flood
                del self._all[:-self.global_limit]

    def check(self, who: str, pin: str) -> bool:
        if self.blocked(who):
            raise Refusal(429, "too_many_attempts", gettext("Too many wrong PINs: wait a few minutes and try again."))
        ok = hmac.compare_digest(str(pin).encode(), str(current_app.config["PIN"]).encode())
        if not ok:
            self.failed(who)
        return ok


def host_name(host: str) -> str:
    """The name part of a Host header, lower case, without the port (IPv6 in brackets kept)."""
    h = (host or "").strip().lower().rstrip(".")
    if h.startswith("["):
        return h[: h.index("]") + 1] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def check_host() -> None:
    name = host_name(request.host)
    if name in LOCAL_HOSTS:
        return
    if current_app.config.get("LOCAL_ONLY"):
        raise Refusal(403, "bad_host", gettext("This dashboard only answers on localhost."))
    allowed = {host_name(h) for h in current_app.config.get("ALLOWED_HOSTS") or ()}
    if name not in allowed:
        raise Refusal(403, "bad_host", gettext("This dashboard does not answer to that address. Open it with the "
                                               "address printed when it started (or start it with --allow-host NAME)."))


def _cross_origin() -> bool:
    site = request.headers.get("Sec-Fetch-Site")
    if site in ("cross-site", "same-site"):
        return True
    origin = request.headers.get("Origin")
    if origin and origin != "null":
        return urlsplit(origin).netloc.lower() != (request.host or "").lower()
    return origin == "null"


def check_change(form_token: str | None = None, need_pin: bool = True) -> None:
    """Raise Refusal unless the current request may change data."""
    header = request.headers.get("X-CSRF-Token")
    token = header if header is not None else form_token
    if token is not None:
        expected = session.get("csrf")
        if not expected or not hmac.compare_digest(str(token).encode(), str(expected).encode()):
            raise Refusal(403, "csrf", gettext("This page has expired: reload it and try again."))
    else:
        # a program without the page's token: fine, unless a browser sent it from another site
        if _cross_origin():
            raise Refusal(403, "csrf", gettext("Changes from another web site are not accepted."))
        if not request.path.startswith("/api/"):
            raise Refusal(403, "csrf", gettext("This form has expired: reload the page and try again."))
    if need_pin and pin_required() and not pin_ok():
        pin = request.headers.get("X-Rummy-Pin")
        if pin is None:
            raise Refusal(401, "pin_required", gettext("Enter the PIN to make changes."))
        guard: PinGuard = get_pin_guard()
        if not guard.check(request.remote_addr or "?", pin):
            raise Refusal(401, "bad_pin", gettext("Wrong PIN."))
