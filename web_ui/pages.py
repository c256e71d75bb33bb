"""The screens. Each page is a thin HTML shell; static/app.js draws it from the JSON API and the
match's event stream, so the players see exactly what other programs get from the API."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for

from referee.presets import PRESET_SHORT_TITLES, PRESET_TITLES

from . import security
from .api import import_text
from .services import get_matches, get_pin_guard, get_store
from .store import NotFound

bp = Blueprint("pages", __name__)

RULE_NAMES = PRESET_TITLES
SHORT_NAMES = PRESET_SHORT_TITLES


@bp.get("/")
def index():
    """The match this browser opened last, else the match changed last: a viewer elsewhere never steers it."""
    mid = session.get("last_match")
    if not (isinstance(mid, str) and get_store().exists(mid)):
        mid = get_store().last_match_id()
    if mid:
        return redirect(url_for("pages.match", mid=mid))
    return redirect(url_for("pages.new"))


@bp.get("/new")
def new():
    live = get_matches()
    return render_template("new.html", rule_names=RULE_NAMES,
                           cameras=current_app.config.get("CAMERA_SOURCES") or [],
                           layouts=current_app.config.get("LAYOUTS") or [],
                           camera_available=live.pipeline is not None)


@bp.get("/matches")
def matches():
    return render_template("matches.html", matches=get_store().list_matches(), rule_names=RULE_NAMES,
                           message=request.args.get("msg"))


@bp.post("/matches/import")
def import_form():
    f = request.files.get("log")
    if f is None or not f.filename:
        return render_template("matches.html", matches=get_store().list_matches(), rule_names=RULE_NAMES,
                               error="Choose a game log file (.jsonl) first."), 400
    limit = current_app.config["MAX_IMPORT_BYTES"]
    raw = f.read(limit + 1)
    if len(raw) > limit:
        return render_template("matches.html", matches=get_store().list_matches(), rule_names=RULE_NAMES,
                               error=f"That file is larger than {limit // (1024 * 1024)} MiB."), 413
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return render_template("matches.html", matches=get_store().list_matches(), rule_names=RULE_NAMES,
                               error="That file is not a text game log."), 400
    body, status = import_text(text)
    if status == 200 and body.get("duplicate"):
        return redirect(url_for("pages.match", mid=body["id"], duplicate=1))
    if status != 201:
        return render_template("matches.html", matches=get_store().list_matches(), rule_names=RULE_NAMES,
                               error=f"Could not import: {body.get('message')}"), status
    return redirect(url_for("pages.match", mid=body["id"], imported=body["accepted"],
                            refused=len(body["refused"])))


@bp.get("/m/<mid>")
def match(mid):
    try:
        live = get_store().get(mid)
    except NotFound:
        return render_template("error.html", code="not_found", status=404,
                               message="There is no such match."), 404
    session["last_match"] = mid  # this browser's own "last opened" (a cookie), not everyone's
    get_matches().follow(mid)
    return render_template("match.html", mid=mid, rules=live.match.setup.get("rules"), rule_names=RULE_NAMES,
                           short_names=SHORT_NAMES, title=live.extra.get("title"))


@bp.get("/unlock")
def unlock():
    return render_template("unlock.html", next=request.args.get("next") or "/")


@bp.post("/unlock")
def unlock_post():
    nxt = request.form.get("next") or "/"
    if not nxt.startswith("/") or nxt.startswith("//"):
        nxt = "/"
    if not security.pin_required():
        return redirect(nxt)
    guard = get_pin_guard()
    try:
        ok = guard.check(request.remote_addr or "?", request.form.get("pin", ""))
    except security.Refusal as e:
        return render_template("unlock.html", next=nxt, error=e.message), e.status
    if not ok:
        return render_template("unlock.html", next=nxt, error="Wrong PIN."), 401
    session["pin_ok"] = True
    session["pin_gen"] = current_app.config.get("PIN_GEN")
    return redirect(nxt)
