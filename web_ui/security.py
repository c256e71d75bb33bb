"""Who may change things.

- Reading is open. Every change (any method but GET/HEAD/OPTIONS) goes through ``check_change``.
- Pages send the session's CSRF token: in the ``X-CSRF-Token`` header (fetch) or the ``csrf_token``
  form field (plain forms). A wrong token is refused.
- Programs on this machine may call the contract's JSON routes without a token, as long as the
  request does not come from another web origin (``Origin`` / ``Sec-Fetch-Site``): a web page on
  another site cannot make the browser change a match.
- With a PIN (required when listening beyond localhost) every change also needs the PIN: entered once
  on the unlock page (kept in the signed session cookie) or sent as ``X-Rummy-Pin``. Wrong PINs are
  rate-limited per client address.
- Host header check when listening on localhost only (against DNS rebinding).
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from urllib.parse import urlsplit

from flask import current_app, request, session

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
    """Counts wrong PINs per client address: 5 per minute, then a pause."""

    def __init__(self, limit: int = 5, window: float = 60.0):
        self.limit, self.window = limit, window
        self._fails: dict[str, list[float]] = {}
        self._lock = threading.Lock()

    def blocked(self, who: str) -> bool:
        now = time.monotonic()
        with self._lock:
            fails = [t for t in self._fails.get(who, []) if now - t < self.window]
            self._fails[who] = fails
            return len(fails) >= self.limit

    def failed(self, who: str) -> None:
        with self._lock:
            self._fails.setdefault(who, []).append(time.monotonic())

    def check(self, who: str, pin: str) -> bool:
        if self.blocked(who):
            raise Refusal(429, "too_many_attempts", "Too many wrong PINs: wait a minute and try again.")
        ok = hmac.compare_digest(str(pin).encode(), str(current_app.config["PIN"]).encode())
        if not ok:
            self.failed(who)
        return ok


def check_host() -> None:
    if not current_app.config.get("LOCAL_ONLY"):
        return
    h = (request.host or "").lower()
    name = h[: h.index("]") + 1] if h.startswith("[") and "]" in h else h.split(":")[0]
    if name not in LOCAL_HOSTS:
        raise Refusal(403, "bad_host", "This dashboard only answers on localhost.")


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
            raise Refusal(403, "csrf", "This page has expired: reload it and try again.")
    else:
        # a program without the page's token: fine, unless a browser sent it from another site
        if _cross_origin():
            raise Refusal(403, "csrf", "Changes from another web site are not accepted.")
        if not request.path.startswith("/api/"):
            raise Refusal(403, "csrf", "This form has expired: reload the page and try again.")
    if need_pin and pin_required() and not pin_ok():
        pin = request.headers.get("X-Rummy-Pin")
        if pin is None:
            raise Refusal(401, "pin_required", "Enter the PIN to make changes.")
        guard: PinGuard = current_app.extensions["rummy_pin_guard"]
        if not guard.check(request.remote_addr or "?", pin):
            raise Refusal(401, "bad_pin", "Wrong PIN.")
