"""Live streams: Server-Sent Events per match, and the camera view as MJPEG."""

from __future__ import annotations

import queue
import time

from flask import Blueprint, Response, abort, current_app, jsonify
from flask_babel import gettext

from .hub import CLOSED
from .live import screen_state, sse_message
from .services import get_hub, get_matches, get_store, get_stream_slots
from .store import NotFound

bp = Blueprint("stream", __name__)

MJPEG_FPS = 10


def _busy():
    resp = jsonify(ok=False, code="too_many_screens",
                   message=gettext("Too many screens are following matches right now; this one retries shortly."))
    resp.status_code = 503
    resp.headers["Retry-After"] = "5"
    return resp


@bp.get("/api/matches/<mid>/stream")
def match_stream(mid):
    """One ``state`` message at once (the match as GET /api/matches/<id> gives it), then one per change.
    Each message carries the whole state, so a client that reconnects is right again at once."""
    store = get_store()
    hub = get_hub()
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    try:
        live = store.get(mid)
    except NotFound:
        abort(404)
    slots = get_stream_slots()
    if not slots.take(current_app.config.get("MAX_STREAMS")):
        return _busy()
    q = hub.subscribe(mid)
    st = live.state()
    first = sse_message("state", {"version": st["version"], "change": None, "state": screen_state(st)}, st["version"])

    def gen():
        yield b"retry: 2000\n" + first
        while True:
            try:
                msg = q.get(timeout=keepalive)
            except queue.Empty:
                if hub.closed:
                    return
                yield b": keep-alive\n\n"
                continue
            if msg == CLOSED:
                return
            yield msg

    def done():  # called when the response is closed, whether or not it was ever read
        hub.unsubscribe(mid, q)
        slots.give_back()

    resp = Response(gen(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
    resp.call_on_close(done)
    return resp


@bp.get("/camera.mjpg")
def camera_mjpeg():
    live = get_matches()
    if live.pipeline is None:
        return jsonify(ok=False, code="no_camera", message=gettext("No camera is connected.")), 503
    hub = get_hub()
    slots = get_stream_slots()
    if not slots.take(current_app.config.get("MAX_STREAMS")):
        return _busy()

    def gen():
        last = None
        idle = 0.0
        while not hub.closed:
            jpeg = live.latest_jpeg()
            if jpeg and jpeg is not last:
                last = jpeg
                idle = 0.0
                yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                       + str(len(jpeg)).encode() + b"\r\n\r\n" + jpeg + b"\r\n")
            else:
                idle += 1.0 / MJPEG_FPS
                if idle > 10 and last is not None:  # re-send now and then so proxies keep the line open
                    idle = 0.0
                    yield (b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                           + str(len(last)).encode() + b"\r\n\r\n" + last + b"\r\n")
            time.sleep(1.0 / MJPEG_FPS)

    resp = Response(gen(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache"})
    resp.call_on_close(slots.give_back)
    return resp


@bp.get("/camera.jpg")
def camera_jpeg():
    live = get_matches()
    jpeg = live.latest_jpeg()
    if not jpeg:
        return jsonify(ok=False, code="no_frame", message=gettext("No camera picture yet.")), 503
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-cache"})
