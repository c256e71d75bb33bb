"""Live streams: Server-Sent Events per match, and the camera view as MJPEG."""

from __future__ import annotations

import queue
import time

from flask import Blueprint, Response, abort, current_app, jsonify

from .live import screen_state, sse_message
from .store import NotFound

bp = Blueprint("stream", __name__)

MJPEG_FPS = 10


@bp.get("/api/matches/<mid>/stream")
def match_stream(mid):
    """One ``state`` message at once (the match as GET /api/matches/<id> gives it), then one per change.
    Each message carries the whole state, so a client that reconnects is right again at once."""
    store = current_app.extensions["rummy_store"]
    hub = current_app.extensions["rummy_hub"]
    keepalive = float(current_app.config["SSE_KEEPALIVE"])
    try:
        live = store.get(mid)
    except NotFound:
        abort(404)
    q = hub.subscribe(mid)
    st = live.state()
    first = sse_message("state", {"version": st["version"], "change": None, "state": screen_state(st)}, st["version"])

    def gen():
        try:
            yield b"retry: 2000\n" + first
            while True:
                try:
                    msg = q.get(timeout=keepalive)
                except queue.Empty:
                    yield b": keep-alive\n\n"
                    continue
                yield msg
        finally:
            hub.unsubscribe(mid, q)

    return Response(gen(), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


@bp.get("/camera.mjpg")
def camera_mjpeg():
    live = current_app.extensions["rummy_live"]
    if live.pipeline is None:
        return jsonify(ok=False, code="no_camera", message="No camera is connected."), 503

    def gen():
        last = None
        idle = 0.0
        while True:
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

    return Response(gen(), mimetype="multipart/x-mixed-replace; boundary=frame",
                    headers={"Cache-Control": "no-cache"})


@bp.get("/camera.jpg")
def camera_jpeg():
    live = current_app.extensions["rummy_live"]
    jpeg = live.latest_jpeg()
    if not jpeg:
        return jsonify(ok=False, code="no_frame", message="No camera picture yet."), 503
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-cache"})
