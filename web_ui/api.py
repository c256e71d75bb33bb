"""The JSON API of shared/contracts/game-log.md, plus a few extras (list, CSV, import, camera).

Contract routes (kept exactly):
    POST /api/matches                 match object -> 201 {"id"}; bad setup -> 422 {code, message}
    POST /api/matches/<id>/events     one event -> 200 {"ok": true} | 422 {"ok": false, code, message}
    POST /api/matches/<id>/undo       -> 200
    GET  /api/matches/<id>            replay --json shape (+ extra keys)
    GET  /api/matches/<id>/log        JSON Lines game log
    GET  /api/matches/<id>/stream     Server-Sent Events (stream.py)
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import threading

from flask import Blueprint, Response, abort, current_app, jsonify, request
from flask_babel import gettext

from referee import strict_json

from . import engine, summaries
from .services import get_matches, get_store
from .store import NotFound

bp = Blueprint("api", __name__, url_prefix="/api")

# keys of a match body that are the dashboard's, not the engine's (not written to the log)
EXTRA_KEYS = ("dealer", "camera", "layout", "title", "colors")


def _source() -> str:
    """Where a change came from, for the feed: "web" (the dashboard's own screens say so), else "api"."""
    return "web" if request.headers.get("X-Rummy-Source") == "web" else "api"


def _err(status: int, code: str, message: str, **more):
    return jsonify(ok=False, code=code, message=message, **more), status


def _json_body(limit: int | None = None):
    """(value, None) or (None, error response). Garbage is a 400 that says what is wrong."""
    limit = limit or current_app.config["MAX_EVENT_BYTES"]
    raw, err = read_body(limit)
    if err:
        return None, err
    if not raw.strip():
        return None, _err(400, "empty_body", gettext("The request has no body: send a JSON object."))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, _err(400, "bad_encoding", gettext("The body is not UTF-8 text."))
    try:
        return strict_json.loads(text), None
    except strict_json.StrictJSONError as e:
        return None, _err(400, e.code, gettext("The body was refused: %(why)s.", why=e.message))


def read_body(limit: int):
    """(bytes, None) or (None, 413 response). Holds for chunked bodies too: never reads past `limit`."""
    if request.content_length is not None and request.content_length > limit:
        return None, _err(413, "too_large", gettext("The body is larger than %(limit)s bytes.", limit=limit))
    raw = request.stream.read(limit + 1)
    if len(raw) > limit:
        return None, _err(413, "too_large", gettext("The body is larger than %(limit)s bytes.", limit=limit))
    return raw, None


def _get_or_404(mid: str):
    try:
        return get_store().get(mid)
    except NotFound:
        abort(404)


def _split_setup(body):
    try:
        setup, extra = strict_json.split_match_object(body, EXTRA_KEYS)
        if extra.get("title") is not None:
            strict_json.check_name(extra["title"], "the match title", strict_json.MAX_TITLE)
        if extra.get("colors") is not None:  # {"Ana": "#ffd166"}: each player's colour on the screens
            extra["colors"] = summaries.check_colors(extra["colors"], setup.get("players"))
    except strict_json.StrictJSONError as e:
        return None, None, _err(422, e.code, e.message[:1].upper() + e.message[1:] + ".")
    for k in ("camera", "layout"):
        if k in extra and extra[k] is not None and (not isinstance(extra[k], str) or len(extra[k]) > 500):
            return None, None, _err(422, "bad_setup", gettext("'%(key)s' must be a short text.", key=k))
    return setup, extra, None


@bp.post("/matches")
def create_match():
    body, err = _json_body()
    if err:
        return err
    setup, extra, err = _split_setup(body)
    if err:
        return err
    try:
        live = get_store().create_match(setup, extra)
    except engine.setup_error_type() as e:
        return _err(422, getattr(e, "code", "bad_setup"), getattr(e, "message", str(e)))
    get_matches().follow(live.id)
    return jsonify(id=live.id), 201


@bp.get("/matches")
def list_matches():
    """The matches list (each with status, hand, totals, winner); `?archived=1`: the archived ones."""
    archived = request.args.get("archived") in ("1", "true", "yes")
    return jsonify(matches=get_store().list_matches(archived=archived), last=get_store().last_match_id())


@bp.get("/matches/<mid>")
def get_match(mid):
    return jsonify(_get_or_404(mid).state())


@bp.post("/matches/<mid>/events")
def post_event(mid):
    _get_or_404(mid)
    body, err = _json_body()
    if err:
        return err
    verdict, act = get_matches().apply(mid, body, source=_source())
    if verdict.ok:
        out = {"ok": True, "version": act.seq}
        warnings = list(getattr(verdict, "warnings", None) or [])
        if warnings:
            out["warnings"] = warnings
        return jsonify(out), 200
    out = {"ok": False, "code": verdict.code, "message": verdict.message}
    if getattr(verdict, "rule", None):
        out["rule"] = verdict.rule
    return jsonify(out), 422


@bp.post("/matches/<mid>/undo")
def undo(mid):
    _get_or_404(mid)
    act = get_matches().undo(mid, source=_source())
    if act is None:
        return _err(409, "nothing_to_undo", gettext("There is nothing to take back."))
    return jsonify(ok=True, undone=act.event, version=act.seq), 200


# -- the host's evening: redo after undo, rematch (issue 13; corrections are events: referee/evening.py) -------
@bp.post("/matches/<mid>/redo")
def redo(mid):
    """Apply again the event undone last: several undos, several redos, in order. A new event after an undo
    clears what could be redone. Written as a new accepted row (code `redo`): the feed shows it."""
    _get_or_404(mid)
    err = _optional_body()
    if err:
        return err
    out = get_matches().redo(mid, source=_source())
    if out is None:
        return _err(409, "nothing_to_redo", gettext("There is nothing to redo."))
    verdict, act = out
    if act is None:
        return _err(409, "redo_refused", gettext("This can no longer be redone: %(why)s",
                                                 why=verdict.message or verdict.code))
    return jsonify(ok=True, redone=act.event, version=act.seq), 200


REMATCH_KEEP = ("camera", "layout")  # the dashboard's data a rematch keeps (the same table), beside title and colours
_rematch_lock = threading.Lock()  # two tablets tapping Rematch at once make one match


def _rematch_title(extra: dict) -> tuple[str | None, int]:
    """The rematch's name: the first match's name with "(rematch)", then "(rematch 2)", ...; and its number."""
    number = int(extra.get("rematch_number") or 0) + 1
    base = extra.get("rematch_base") or extra.get("title")
    if not isinstance(base, str) or not base.strip():
        return None, number
    base = base.strip()[: strict_json.MAX_TITLE - 20]
    if number == 1:
        return gettext("%(title)s (rematch)", title=base), number
    return gettext("%(title)s (rematch %(number)s)", title=base, number=number), number


@bp.post("/matches/<mid>/rematch")
def rematch(mid):
    """A new match with the same rules, the players seated now (same seats), the options as they are now (a
    changed target included) and the name with "(rematch)"; its first dealer is the player after the first
    dealer of this match (clockwise). `extra.rematch_of` links back. A second rematch of the same match opens
    the first one's (200, `"existing": true`) unless that one was put away."""
    live = _get_or_404(mid)
    err = _optional_body()
    if err:
        return err
    store = get_store()
    with _rematch_lock:
        before = store.find_by_extra("rematch_of", mid)
        if before is not None and not store.get(before).extra.get("archived"):
            return jsonify(ok=True, id=before, existing=True), 200
        with live.lock:
            setup = live.match.rematch_setup()
            first = live.match.first_dealer() or live.extra.get("dealer")
        players = setup["players"]
        extra = {k: live.extra[k] for k in REMATCH_KEEP if live.extra.get(k) is not None}
        if first in players:
            extra["dealer"] = players[(players.index(first) + 1) % len(players)]
        colors = live.extra.get("colors")
        if isinstance(colors, dict) and any(p in colors for p in players):
            extra["colors"] = {p: colors[p] for p in players if p in colors}
        title, number = _rematch_title(live.extra)
        if title:
            extra["title"] = title
            extra["rematch_base"] = live.extra.get("rematch_base") or live.extra.get("title").strip()
        extra.update(rematch_of=mid, rematch_number=number)
        try:
            new = store.create_match(setup, extra)
        except engine.setup_error_type() as e:  # only if the rules changed since: the match line was valid
            return _err(422, getattr(e, "code", "bad_setup"), getattr(e, "message", str(e)))
    get_matches().follow(new.id)
    return jsonify(ok=True, id=new.id), 201


@bp.get("/matches/<mid>/log")
def get_log(mid):
    live = _get_or_404(mid)
    lines = live.log_lines()
    if request.args.get("download") and live.extra.get("title") and lines:
        # the dashboard's export keeps the match's name in its match line (replay ignores it; import reads it)
        first = json.loads(lines[0])
        first["title"] = live.extra["title"]
        lines = [json.dumps(first, ensure_ascii=False)] + lines[1:]
    text = "\n".join(lines) + "\n"
    resp = Response(text, mimetype="application/x-ndjson")
    if request.args.get("download"):
        resp.headers["Content-Disposition"] = f'attachment; filename="match-{mid}.jsonl"'
    return resp


def _cell(v):
    s = "" if v is None else str(v)
    return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") and not _is_number(s) else s


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


@bp.get("/matches/<mid>/csv")
def get_csv(mid):
    st = _get_or_404(mid).state()
    players = st["players"]
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["hand", "dealer", "winner", "result", "going_rummy"]
               + [_cell(f"{p} points") for p in players] + [_cell(f"{p} total") for p in players])
    running = {p: 0 for p in players}
    for h in st.get("hands", []):
        pts = h.get("points", {})
        for p in players:
            running[p] += pts.get(p, 0)
        w.writerow([_cell(x) for x in [h.get("number"), h.get("dealer"), h.get("winner") or "", h.get("result"),
                                        "yes" if h.get("going_rummy") else "no"]
                    + [pts.get(p, 0) for p in players] + [running[p] for p in players]])
    resp = Response(out.getvalue(), mimetype="text/csv")
    resp.headers["Content-Disposition"] = f'attachment; filename="match-{mid}.csv"'
    return resp


def import_text(text: str):
    """Import a JSON Lines game log. Returns (response body, status)."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return {"ok": False, "code": "empty_log", "message": gettext("The game log is empty.")}, 422
    try:
        first = strict_json.loads(lines[0])
    except strict_json.StrictJSONError as e:
        return {"ok": False, "code": e.code, "message": gettext("Line 1 was refused: %(why)s.", why=e.message)}, 422
    setup, extra, err = _split_setup(first)
    if err:
        return err[0].get_json(), 422
    # the same log imported twice opens the match it made the first time (no silent duplicate)
    digest = hashlib.sha256("\n".join([json.dumps(first, sort_keys=True)] + [ln.strip() for ln in lines[1:]])
                            .encode("utf-8")).hexdigest()
    before = get_store().find_by_extra("import_digest", digest)
    if before is not None:
        if get_store().is_archived(before):  # importing it again asks for it back: into the list
            get_store().restore(before)
        live = get_store().get(before)
        return {"ok": True, "id": before, "duplicate": True, "accepted": len(live.match.events), "refused": [],
                "message": gettext("This game log was imported before: its match is opened.")}, 200
    extra = dict(extra, import_digest=digest)
    events = []
    refused = []
    for i, ln in enumerate(lines[1:], start=2):
        try:
            events.append((i, strict_json.loads(ln)))
        except strict_json.StrictJSONError as e:  # refused and never stored: not even in the feed
            refused.append({"line": i, "code": e.code, "message": gettext("Line %(n)s was refused: %(why)s.", n=i, why=e.message)})
    try:
        live, more = get_store().import_log(setup, extra, events)
    except engine.setup_error_type() as e:
        return {"ok": False, "code": getattr(e, "code", "bad_setup"), "message": getattr(e, "message", str(e))}, 422
    refused = sorted(refused + more, key=lambda r: r["line"])
    get_matches().follow(live.id)
    get_matches().changed(live.id, None)
    return {"ok": True, "id": live.id, "accepted": len(live.match.events), "refused": refused}, 201


@bp.post("/matches/import")
def import_log():
    raw, err = read_body(current_app.config["MAX_IMPORT_BYTES"])
    if err:
        return err
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return _err(400, "bad_encoding", gettext("The log is not UTF-8 text."))
    body, status = import_text(text)
    return jsonify(body), status


@bp.get("/camera")
def camera():
    live = get_matches()
    # "model" (the shipped detector), "oracle" (a demo recording's own answer key), "given" or None
    kind = live.pipeline.detector_kind if live.pipeline is not None else None
    target = live.camera_target()
    asked = request.args.get("match")
    if asked and live.pipeline is not None and asked != target:
        # a match without the camera (a manual one, or another table's): its screen shows no camera
        return jsonify(state="off", match=target, available=False, pending=[], detector=None, elsewhere=True)
    return jsonify(state=live.camera_state(), match=target, available=live.pipeline is not None,
                   pending=live.pending(), detector=kind)


@bp.post("/camera/proposals/<int:pid>/<verb>")
def camera_proposal(pid, verb):
    """Accept (``confirm``) or ``reject`` an event the camera was unsure of, or ``correct`` it: the body is
    the players' version of the event (one event object), applied instead when the referee accepts it."""
    p = get_matches().pipeline
    if p is None:
        return _err(404, "no_camera", gettext("No camera is connected."))
    if verb == "correct":
        body, err = _json_body()
        if err:
            return err
        if not isinstance(body, dict) or not isinstance(body.get("type"), str):
            return _err(400, "bad_event", gettext("Send the corrected event: a JSON object with its 'type'."))
        out = p.correct(pid, body)
        if out is None:
            return _err(404, "no_proposal", gettext("That proposal is no longer waiting."))
        if not out.get("ok"):
            return _err(422, out.get("code") or "refused", out.get("message") or "")
        return jsonify(ok=True), 200
    if verb == "confirm":
        out = p.confirm(pid)
        if out is None:
            return _err(404, "no_proposal", gettext("That proposal is no longer waiting."))
        return jsonify(ok=bool(out.get("ok")), code=out.get("code"), message=out.get("message")), 200
    if verb == "reject":
        if not p.reject(pid):
            return _err(404, "no_proposal", gettext("That proposal is no longer waiting."))
        return jsonify(ok=True), 200
    abort(404)


@bp.get("/camera/proposals/<int:pid>/crop.jpg")
def camera_proposal_crop(pid):
    """The camera's picture of the cards a proposal is about (taken when it was proposed)."""
    p = get_matches().pipeline
    crop = getattr(p, "crop", None) if p is not None else None
    jpeg = crop(pid) if crop is not None else None
    if not jpeg:
        return _err(404, "no_picture", gettext("There is no picture for that proposal."))
    resp = Response(jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/presets")
def presets():
    """Each preset's title, allowed player counts and resolved defaults per count (from the engine)."""
    from referee import presets as rp

    out = {}
    for name in rp.PRESET_NAMES:
        counts = list(rp.preset_player_counts(name))
        out[name] = {"title": rp.PRESET_TITLES.get(name, name), "players": counts,
                     "defaults": {str(n): rp.preset_defaults(name, n) for n in counts}}
    # the allowed values of the enumerated and yes/no options, for the form's "all options" section
    choices, booleans = rp.option_choices()
    return jsonify(presets=out, choices=choices, booleans=booleans)


# -- the host's evening: rename, archive and restore a match; players and statistics ------------------
RENAME_MAX = 60  # as the new-match form's name field


def _optional_body():
    """An action without arguments: no body, or a JSON object (anything else is a 4xx that says so)."""
    raw, err = read_body(current_app.config["MAX_EVENT_BYTES"])
    if err:
        return err
    if not raw.strip():
        return None
    try:
        body = strict_json.loads(raw)
    except strict_json.StrictJSONError as e:
        return _err(400, e.code, gettext("The body was refused: %(why)s.", why=e.message))
    if not isinstance(body, dict):
        return _err(422, "bad_body", gettext("Send no body, or a JSON object."))
    return None


@bp.route("/matches/<mid>/title", methods=["POST", "PATCH"])
def rename_match(mid):
    """`{"title": "Friday at Ana's"}` names the match; `{"title": null}` takes its name away."""
    _get_or_404(mid)
    body, err = _json_body()
    if err:
        return err
    if not isinstance(body, dict) or "title" not in body:
        return _err(422, "bad_body", gettext('Send {"title": "the new name"} (or null to take the name away).'))
    unknown = sorted(set(body) - {"title"})
    if unknown:
        return _err(422, "bad_body", gettext("Unknown field: %(name)s.", name=unknown[0][:40]))
    title = body["title"]
    if title is not None:
        try:
            title = strict_json.check_name(title, "the match name", RENAME_MAX).strip()
        except strict_json.StrictJSONError as e:
            return _err(422, e.code, e.message[:1].upper() + e.message[1:] + ".")
    get_store().update_extra(mid, title=title)
    get_matches().changed(mid, None)  # open screens get the new name
    return jsonify(ok=True, id=mid, title=title), 200


def _archive_action(mid, archived: bool):
    _get_or_404(mid)
    err = _optional_body()
    if err:
        return err
    if archived:
        get_store().archive(mid)
    else:
        get_store().restore(mid)
    get_matches().changed(mid, None)
    return jsonify(ok=True, id=mid, archived=archived), 200


@bp.post("/matches/<mid>/archive")
def archive_match(mid):
    """"Delete" from the list: the match stays on disk with every event and can be restored."""
    return _archive_action(mid, True)


@bp.post("/matches/<mid>/restore")
def restore_match(mid):
    return _archive_action(mid, False)


@bp.get("/players")
def players():
    """The names used before (most recent first) with the colour each had last, the seating of the match
    started last, and the palette; from the matches in the list (archived ones are forgotten)."""
    rows = [r for r in get_store().match_rows() if not r["extra"].get("archived")]
    out = summaries.known_players(rows)
    return jsonify(players=out["players"], last=out["last"], palette=list(summaries.PALETTE))


def stats_query():
    """(rule system or None, include archived, error response or None) from `?rules=&archived=`."""
    rules = request.args.get("rules") or None
    if rules in ("all", ""):
        rules = None
    if rules is not None and rules not in engine.RULES:
        return None, False, _err(422, "unknown_rules", gettext("Unknown rule system: %(name)s.", name=rules[:40]))
    return rules, request.args.get("archived") in ("1", "true", "yes"), None


def stats_rows(include_archived: bool) -> list[dict]:
    return [r for r in get_store().match_rows() if include_archived or not r["extra"].get("archived")]


@bp.get("/stats")
def stats():
    """Statistics per player across matches (summaries.player_stats): `?rules=basic` one rule system
    (scores mean different things in each), `?archived=1` archived matches too."""
    rules, archived, err = stats_query()
    if err:
        return err
    rows = stats_rows(archived)
    return jsonify(rules=rules, archived=archived, matches=sum(1 for r in rows if rules in (None, r["setup"].get("rules"))),
                   players=summaries.player_stats(rows, rules))
