"""Changes to matches, made visible: the store (engine + disk), then every open screen via the hub,
from one publisher thread.

Also the bridge to the optional camera pipeline: its events go through the same path as the API's.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from typing import TYPE_CHECKING, Any

from .store import NotFound

if TYPE_CHECKING:
    from vision.interfaces import CameraPipeline

log = logging.getLogger(__name__)


SCREEN_ACTIVITY = 10  # feed entries sent to the screens (GET has more)


def screen_state(st: dict) -> dict:
    """The state as the screens get it over SSE: without the per-line ``events`` list of the contract
    (it grows with the match and no screen needs it; GET /api/matches/<id> has it)."""
    out = {k: v for k, v in st.items() if k != "events"}
    out["event_count"] = len(st.get("events", ()))
    out["activity"] = st.get("activity", [])[-SCREEN_ACTIVITY:]
    return out


def sse_message(kind: str, data: dict, ident: int | None = None) -> bytes:
    """One SSE message, encoded once for all the screens."""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    head = f"id: {ident}\n" if ident is not None else ""
    return f"{head}event: {kind}\ndata: {body}\n\n".encode()


class MatchService:
    """The match service: every change (API, dashboard, camera) goes to the store (engine + disk), then to
    every open screen through the hub, from one publisher thread; also the bridge to the camera pipeline."""

    def __init__(self, app, store, hub, pipeline: CameraPipeline | None = None):
        self.app = app
        self.store = store
        self.hub = hub
        self.pipeline = pipeline
        self.camera_match: str | None = None  # the match the camera's events go to
        self._proposed: dict[str, list[dict]] = {}
        self._lock = threading.Lock()
        # changes are fanned out by one thread, in order, so a request is answered as soon as its
        # event is on disk; building the state for the screens overlaps the next event's fsync
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._publisher = threading.Thread(target=self._publish_loop, name="rummy-publisher", daemon=True)
        self._publisher.start()
        if pipeline is not None:
            self.attach(pipeline)

    # -- changes ------------------------------------------------------------------------------------
    def publish(self, mid: str, change: dict | None) -> None:
        live = self.store.get(mid)
        st = live.state()
        self.hub.publish(mid, sse_message("state", {"version": st["version"], "change": change,
                                                    "state": screen_state(st)}, st["version"]))

    def _publish_loop(self) -> None:
        while True:
            mid, change = self._outbox.get()
            try:
                self.publish(mid, change)
            except Exception:  # a broken state must not stop the other matches' updates
                log.exception("publishing a change of match %s failed", mid)

    def changed(self, mid: str, change: dict | None) -> None:
        self._outbox.put((mid, change))

    def apply(self, mid: str, event: Any, source: str | None = None):
        verdict, act = self.store.apply(mid, event, source)
        self.changed(mid, act.as_json())
        return verdict, act

    def undo(self, mid: str, source: str | None = None):
        act = self.store.undo(mid, source)
        if act is not None:
            self.changed(mid, act.as_json())
        return act

    def redo(self, mid: str, source: str | None = None):
        out = self.store.redo(mid, source)
        if out is not None and out[1] is not None:
            self.changed(mid, out[1].as_json())
        return out

    # -- camera -------------------------------------------------------------------------------------
    def attach(self, pipeline: CameraPipeline) -> None:
        self.pipeline = pipeline
        pipeline.on_event(self.camera_event)

    def camera_state(self) -> str:
        p = self.pipeline
        if p is None:
            return "off"
        try:
            return str(p.camera_state())
        except Exception:  # the camera must never take the scoreboard down
            log.exception("camera_state failed")
            return "lost"

    def latest_jpeg(self) -> bytes | None:
        p = self.pipeline
        if p is None:
            return None
        try:
            return p.latest_jpeg()
        except Exception:
            log.exception("latest_jpeg failed")
            return None

    def follow(self, mid: str) -> None:
        """The camera watches ``mid`` from now on if that match was set up with a camera (a real one:
        the demo recording stays with its own match)."""
        try:
            lm = self.store.get(mid)
        except NotFound:
            return
        cam = lm.extra.get("camera")
        if not cam or mid == self.camera_match:
            return
        if self.pipeline is not None and cam not in (self.app.config.get("CAMERA_SOURCES") or []):
            return
        self.camera_match = mid
        p = self.pipeline
        if p is not None:
            from .camera import MatchReferee, first_dealer

            try:
                p.set_referee(MatchReferee(self, mid), first_dealer(lm))
            except Exception:
                log.exception("switching the camera to match %s failed", mid)

    def camera_target(self) -> str | None:
        return self.camera_match or self.store.last_match_id()

    def camera_event(self, out: dict) -> dict:
        """Callback for the pipeline.

        - An outcome of vision.pipeline (``{"event", "ok", "code", "message", "proposed", "id"}``): applied
          and refused events already went through `MatchReferee` (stored, shown); a proposal is shown to
          the players to accept or reject.
        - A plain game-log event: applied to the camera's match like a manual entry."""
        mid = self.camera_target()
        if mid is None:
            return {"ok": False, "code": "no_match", "message": "No match is open."}
        try:
            if isinstance(out, dict) and isinstance(out.get("event"), dict) and "ok" in out:
                if out.get("proposed"):
                    item = {"id": out.get("id"), "event": out["event"], "reason": out.get("message") or ""}
                    with self._lock:
                        lst = self._proposed.setdefault(mid, [])
                        lst.append(item)
                        del lst[:-5]
                    self.hub.publish(mid, sse_message("proposed", item))
                return {"ok": bool(out.get("ok"))}
            verdict, _ = self.apply(mid, out, source="camera")
            return {"ok": verdict.ok, "code": verdict.code, "message": verdict.message}
        except NotFound:
            return {"ok": False, "code": "no_match", "message": "No match is open."}
        except Exception:
            log.exception("camera event failed")
            return {"ok": False, "code": "internal_error", "message": "The event could not be stored."}

    def pending(self) -> list[dict]:
        p = self.pipeline
        if p is not None:
            try:
                return list(p.pending())
            except Exception:
                log.exception("pending proposals failed")
        return []
