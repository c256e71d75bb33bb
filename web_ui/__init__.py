"""The table's screen: a Flask app (JSON API, pages, live streams) over a durable SQLite store.

    from web_ui import create_app
    app = create_app({"DATABASE": "/path/matches.db"}, pipeline=None)

``pipeline`` (optional) is the camera pipeline: ``latest_jpeg()``, ``camera_state()`` and
``on_event(callback)``; see web_ui/README.md.
"""

from __future__ import annotations

import logging
import secrets
from pathlib import Path

from flask import Flask, jsonify, render_template, request
from flask_babel import gettext
from werkzeug.exceptions import HTTPException

from . import security, services
from .hub import Hub, StreamSlots
from .live import MatchService
from .store import Store, StoreUnavailable

log = logging.getLogger(__name__)

DEFAULTS = {
    "DATABASE": None,  # SQLite file; required (serve.py picks the user's data folder)
    "PIN": None,  # when set, every change needs it
    "LOCAL_ONLY": True,  # listening on localhost only: only localhost names in the Host header
    "ALLOWED_HOSTS": [],  # LAN mode: the names and addresses the dashboard answers to (serve.py fills it)
    "LISTEN_HOST": None,  # where the server listens (serve.py): the Join page's addresses (web_ui/join.py)
    "LISTEN_PORT": None,
    "DATABASE_LOCK": False,  # hold <DATABASE>.lock: a second server on the same file refuses to start
    "MAX_IMPORT_BYTES": 2 * 1024 * 1024,  # a game log import up to 2 MiB
    "MAX_CONTENT_LENGTH": 2 * 1024 * 1024 + 64 * 1024,  # any request body (the import plus its form)
    "MAX_EVENT_BYTES": 64 * 1024,  # one event
    "SSE_KEEPALIVE": 15.0,
    "CAMERA_SOURCES": [],  # what the new-match form offers
    "LAYOUTS": [],
    "DECKS_DIR": None,  # where taught decks are kept (default: decks/ beside the database)
    "DECK": None,  # the taught deck the camera reads with (a profile folder), None: the general model
    "ENROL_SECONDS": 180,  # the learning's time when a deck is taught on the dashboard
    "ENROL_SCENES": 360,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "SESSION_COOKIE_HTTPONLY": True,
}


def create_app(test_config: dict | None = None, pipeline=None) -> Flask:
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    if test_config:
        app.config.update(test_config)
    if not app.config["DATABASE"]:
        raise ValueError("create_app needs a DATABASE path")
    app.json.sort_keys = False
    app.json.ensure_ascii = False

    store = Store(app.config["DATABASE"], lock=bool(app.config["DATABASE_LOCK"]))  # raises StoreError
    if not app.config.get("SECRET_KEY"):
        # kept in the database so sessions (PIN unlock, CSRF token) survive a restart
        app.config["SECRET_KEY"] = store.meta("secret_key", lambda: secrets.token_hex(32))
    app.config.setdefault("PIN_GEN", secrets.token_hex(4))
    hub = Hub()
    live = MatchService(app, store, hub, pipeline)
    app.extensions[services.STORE] = store
    app.extensions[services.HUB] = hub
    app.extensions[services.MATCHES] = live
    app.extensions[services.PIN_GUARD] = security.PinGuard()
    app.extensions[services.STREAMS] = StreamSlots()
    from .decks import DeckTeacher

    decks_dir = app.config["DECKS_DIR"] or str(Path(app.config["DATABASE"]).parent / "decks")
    app.extensions[services.DECKS] = DeckTeacher(decks_dir, using=app.config["DECK"])
    # a match that a screen or the camera watches stays in memory; the others are released
    store.is_watched = lambda mid: hub.count(mid) > 0 or mid == live.camera_match

    from .api import bp as api_bp
    from .decks import bp as decks_bp
    from .pages import bp as pages_bp
    from .stream import bp as stream_bp

    app.register_blueprint(api_bp)
    app.register_blueprint(pages_bp)
    app.register_blueprint(stream_bp)
    app.register_blueprint(decks_bp)
    from .homescreen import bp as homescreen_bp
    from .join import bp as join_bp

    app.register_blueprint(join_bp)
    app.register_blueprint(homescreen_bp)
    from . import i18n

    i18n.init_app(app)

    @app.before_request
    def _guard():
        security.check_host()
        if request.method not in security.SAFE_METHODS:
            form_token = None
            if not request.path.startswith("/api/") and request.mimetype in (
                    "application/x-www-form-urlencoded", "multipart/form-data"):
                form_token = request.form.get("csrf_token")
            security.check_change(form_token, need_pin=request.endpoint != "pages.unlock_post")

    @app.context_processor
    def _ctx():
        return {"csrf_token": security.csrf_token, "pin_required": security.pin_required(),
                "pin_ok": security.pin_ok()}

    @app.after_request
    def _headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; manifest-src 'self'; worker-src 'self'; frame-ancestors 'none'; form-action 'self'",
        )
        return resp

    def _wants_json() -> bool:
        return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"

    @app.errorhandler(security.Refusal)
    def _refusal(e: security.Refusal):
        if _wants_json():
            return jsonify(ok=False, code=e.code, message=e.message), e.status
        return render_template("error.html", code=e.code, message=e.message, status=e.status), e.status

    @app.errorhandler(StoreUnavailable)
    def _unavailable(e: StoreUnavailable):
        log.error("write failed on %s %s: %s", request.method, request.path, e.message)
        if _wants_json():
            return jsonify(ok=False, code="not_saved", message=e.message), 503
        from .refusals import local  # the page in the device's language; the store's words are English

        return render_template("error.html", code="not_saved", message=local("not_saved", e.message) or e.message,
                               status=503), 503

    @app.errorhandler(HTTPException)
    def _http(e: HTTPException):
        code = (e.name or "error").lower().replace(" ", "_")
        message = {
            413: gettext("The request is too large."),
            404: gettext("Not found."),
            405: gettext("This address does not accept that method."),
        }.get(e.code, e.description or e.name)
        if _wants_json():
            return jsonify(ok=False, code=code, message=message), e.code
        return render_template("error.html", code=code, message=message, status=e.code), e.code

    @app.errorhandler(Exception)
    def _crash(e: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        message = gettext("Something went wrong on the server. Reload the page to see the match as it is.")
        if _wants_json():
            return jsonify(ok=False, code="internal_error", message=message), 500
        return render_template("error.html", code="internal_error", message=message, status=500), 500

    return app
