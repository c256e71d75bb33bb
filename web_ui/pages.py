"""The screens. Each page is a thin HTML shell; static/app.js draws it from the JSON API and the
match's event stream, so the players see exactly what other programs get from the API."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask_babel import gettext, lazy_gettext

from referee.presets import PRESET_SHORT_TITLES, PRESET_TITLES

from . import refusals, security
from .api import import_text
from .services import get_matches, get_pin_guard, get_store
from .store import NotFound

bp = Blueprint("pages", __name__)

# the presets' names in the page's language (the English ones are referee.presets'; tests/test_i18n.py checks
# that these msgids are those): lazy strings, made in the language of the page that shows them
_TITLES = {"basic": lazy_gettext("Basic Rummy (cardgames.io)"), "solitaired": lazy_gettext("Solitaired Rummy to 200"),
           "classic": lazy_gettext("Classic Rummy (Pagat / Bicycle)"), "rummy500": lazy_gettext("Rummy 500")}
_SHORT = {"basic": lazy_gettext("Basic"), "solitaired": lazy_gettext("Solitaired"), "classic": lazy_gettext("Classic"),
          "rummy500": lazy_gettext("Rummy 500")}
RULE_NAMES = {k: _TITLES.get(k, v) for k, v in PRESET_TITLES.items()}
SHORT_NAMES = {k: _SHORT.get(k, v) for k, v in PRESET_SHORT_TITLES.items()}


@bp.get("/")
def index():
    """The match this browser opened last, else the match changed last: a viewer elsewhere never steers it."""
    mid = session.get("last_match")
    if not (isinstance(mid, str) and get_store().exists(mid) and not get_store().is_archived(mid)):
        mid = get_store().last_match_id()  # an archived match is never opened from `/`
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


def _match_lists() -> dict:
    """The matches page's two lists: the matches kept, and the archived ones (restorable)."""
    both = get_store().list_matches(archived=None)
    return {"matches": [m for m in both if not m["archived"]], "archived_matches": [m for m in both if m["archived"]]}


@bp.get("/matches")
def matches():
    return render_template("matches.html", **_match_lists(), rule_names=RULE_NAMES,
                           message=request.args.get("msg"))


@bp.post("/matches/import")
def import_form():
    f = request.files.get("log")
    if f is None or not f.filename:
        return render_template("matches.html", **_match_lists(), rule_names=RULE_NAMES,
                               error=gettext("Choose a game log file (.jsonl) first.")), 400
    limit = current_app.config["MAX_IMPORT_BYTES"]
    raw = f.read(limit + 1)
    if len(raw) > limit:
        return render_template("matches.html", **_match_lists(), rule_names=RULE_NAMES,
                               error=gettext("That file is larger than %(n)s MiB.", n=limit // (1024 * 1024))), 413
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return render_template("matches.html", **_match_lists(), rule_names=RULE_NAMES,
                               error=gettext("That file is not a text game log.")), 400
    body, status = import_text(text)
    if status == 200 and body.get("duplicate"):
        return redirect(url_for("pages.match", mid=body["id"], duplicate=1))
    if status != 201:
        return render_template("matches.html", **_match_lists(), rule_names=RULE_NAMES,
                               error=gettext("Could not import: %(why)s", why=refusals.text(body))), status
    return redirect(url_for("pages.match", mid=body["id"], imported=body["accepted"],
                            refused=len(body["refused"])))


@bp.get("/m/<mid>")
def match(mid):
    try:
        live = get_store().get(mid)
    except NotFound:
        return render_template("error.html", code="not_found", status=404,
                               message=gettext("There is no such match.")), 404
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
        return render_template("unlock.html", next=nxt, error=gettext("Wrong PIN.")), 401
    session["pin_ok"] = True
    session["pin_gen"] = current_app.config.get("PIN_GEN")
    return redirect(nxt)


@bp.get("/stats")
def stats():
    """Statistics per player across matches (api.stats has the same figures as JSON)."""
    from . import summaries
    from .api import stats_query, stats_rows

    rules, archived, err = stats_query()
    if err:
        rules, archived = None, False
    rows = stats_rows(archived)
    players = summaries.player_stats(rows, rules)
    fallback = summaries.player_colors([p["name"] for p in players], {p["name"]: p["color"] for p in players if p["color"]})
    return render_template("stats.html", players=players, colors=fallback, rules=rules, archived=archived,
                           rule_names=SHORT_NAMES, match_count=sum(1 for r in rows if rules in (None, r["setup"].get("rules"))))
