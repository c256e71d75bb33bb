"""The optional camera: the vision pipeline, plugged into the dashboard.

The pipeline (vision/pipeline.py) decides events from what it sees and hands them to a *referee*: here a
`MatchReferee`, so every camera event goes the same way as a manual one (checked by the engine, stored
on disk, shown on every screen, marked "camera" in the feed). Events the pipeline is unsure of arrive as
proposals (``{"proposed": true, "id": ...}``) that the players accept or reject on the live screen.

Imported lazily: with no OpenCV, no model or no camera the dashboard is a manual scorekeeper.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from referee import Verdict

from .services import get_matches, get_store

log = logging.getLogger(__name__)

NO_MATCH = Verdict(False, "no_match", "No match is open.")


class MatchReferee:
    """The camera's referee (`vision.interfaces.Referee`): `apply`, `check` and `public_state` of match
    ``mid`` (default: the match the camera watches now). `apply` stores the event and shows it like a manual
    one; `check` asks the match's engine, changing nothing."""

    def __init__(self, live, mid: str | None = None):
        self.live = live
        self.mid = mid

    def _target(self) -> str | None:
        return self.mid or self.live.camera_target()

    def apply(self, event: dict) -> Verdict:
        mid = self._target()
        if mid is None:
            return NO_MATCH
        verdict, _ = self.live.apply(mid, event, source="camera")
        return verdict

    def check(self, event: dict, *, after: Sequence[dict] = ()) -> Verdict:
        mid = self._target()
        if mid is None:
            return NO_MATCH
        m = self.live.store.get(mid)
        with m.lock:
            return m.match.check(event, after=after)

    def public_state(self) -> dict:
        mid = self._target()
        if mid is None:
            return {}
        m = self.live.store.get(mid)
        with m.lock:
            return m.match.public_state()


def attach_camera(app, source: str | None, layout: str | None, demo: bool, detector="auto",
                  motion_gate: bool = True, deck: str | None = None) -> str | None:
    """Start the camera pipeline for ``app`` if asked. Returns a short description of the source, or None.

    ``demo``: the bundled recording, played into a new match of its own (its players and first dealer).
    ``source``: a camera index, video file, folder of images or stream URL, with ``layout`` (LAYOUT.json);
    its events go to the match open on the dashboard. ``detector`` (demo only): "auto", "model" or
    "oracle" (the recording's ground truth, for tests and machines without the model). ``motion_gate``:
    False runs the detector on every frame (default: only when the picture changed, vision/motion.py).
    ``deck``: a taught deck (vision/enrol/profile.py) the camera's detector reads with."""
    if not source and not demo:
        return None
    live = get_matches(app)
    store = get_store(app)
    try:
        from vision import pipeline as vp
    except Exception as e:  # the vision stack is not installed
        log.warning("camera disabled: the vision pipeline cannot be loaded (%s)", e)
        return None
    ref = MatchReferee(live)
    try:
        if demo and not source:
            from vision.demo import demo_pipeline

            pipe, setup, dealer = demo_pipeline(referee=ref, detector=detector, loop=False, motion_gate=motion_gate,
                                                deck=deck)
            # one Demo match: the one of the last start is put away (archived, still on disk) for the new one
            for old in store.list_matches():
                if old["title"] == "Demo" and old["camera"] == "demo recording":
                    store.archive(old["id"])
            m = store.create_match(setup, {"dealer": dealer, "camera": "demo recording", "title": "Demo"})
            live.camera_match = m.id
            ref.mid = m.id  # the recording is this match's; new matches do not take it over
            label = "demo recording"
        else:
            if not layout:
                log.warning("camera disabled: --camera needs --layout LAYOUT.json")
                return None
            from vision.capture import open_source
            from vision.layout import Layout

            lay = Layout.load(Path(layout))
            mid = live.camera_target()
            dealer = None
            if mid is not None:
                live.camera_match = mid
                ref.mid = mid
                dealer = first_dealer(store.get(mid))
            src = int(source) if str(source).isdigit() else source
            pipe = vp.Pipeline(lambda: open_source(src), lay, ref, dealer, motion_gate=motion_gate, deck=deck)
            label = str(source)
    except Exception as e:
        log.warning("camera disabled: the pipeline could not be set up (%s)", e)
        return None
    live.attach(pipe)
    if not demo or source:
        app.config["CAMERA_SOURCES"] = [label]  # new matches may take this camera
    return label


def first_dealer(lm) -> str:
    return lm.extra.get("dealer") or lm.match.setup["players"][0]
