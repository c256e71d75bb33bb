"""The bundled demo recording (vision/data/demo) played as a live camera: `serve --demo`.

The recording is rendered from a scripted hand (`python -m vision.synth.recording`); with no detector
model on the machine its ground truth plays instead (`vision.oracle.TruthDetector`). Loaded only for the
demo: the live camera path does not import it.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from vision.capture import FolderSource
from vision.interfaces import Detector, Referee
from vision.layout import Layout
from vision.motion import MotionConfig
from vision.oracle import TruthDetector
from vision.pipeline import TABLE_IMGSZ, Pipeline
from vision.tracking import load_match
from vision.types import Frame

log = logging.getLogger(__name__)

DEMO_DIR = Path(__file__).resolve().parent / "data" / "demo"


class WaitingRecording(FolderSource):
    """The demo's frames, held on the last one while `waiting()` says the camera has asked the table something:
    at a real table the players stop to answer; a recording would play on and the moves made meanwhile would
    be lost to the question (nothing after it is derived until it is settled).  While it waits the frame is
    given again at the recording's rate (a camera looking at a still table: its clock runs on)."""

    def __init__(self, folder, fps: float, play_fps: float | None, waiting) -> None:
        super().__init__(folder, fps=fps, play_fps=play_fps)
        self.waiting = waiting
        self._last: Frame | None = None
        self._held = 0

    def read(self) -> Frame | None:
        if self._last is not None and self.waiting():
            self._held += 1
            return Frame(self._last.index, self._last.t + self._held / self.fps, self._last.image)
        f = super().read()
        if f is not None:
            self._last = f
            f = Frame(f.index, f.t + self._held / self.fps, f.image)
        return f


def demo_recording() -> tuple[Layout, dict, str, float]:
    """The demo recording's table layout, match setup, first dealer and frame rate."""
    layout = Layout.load(DEMO_DIR / "layout.json")
    setup, dealer = load_match(DEMO_DIR / "match.json")
    info = json.loads((DEMO_DIR / "recording.json").read_text(encoding="utf-8"))
    return layout, setup, dealer, float(info.get("fps", 5.0))


def demo_pipeline(referee: Referee | None = None, detector: str | Detector = "auto", loop: bool = True,
                  fps: float | None = None, motion_gate: bool | MotionConfig = True,
                  deck: str | None = None, wait_for_answers: bool = True) -> tuple[Pipeline, dict, str]:
    """The bundled demo recording (vision/data/demo) played as a live camera.

    `fps`: the playback rate (default: the recording's own).
    `detector`: "model" (the shipped detector), "oracle" (the recording's ground truth with detector-like noise,
    for a machine without the model), "auto" (the model when it loads and reads at least half the cards of a
    few demo frames, else the oracle, with a warning in the log), or an object with `detect`.
    `pipeline.detector_kind` tells which one plays. `referee`: the match the events go to (default: a new `referee.Match` of the demo's match).
    `motion_gate`: as `Pipeline`'s.  `deck`: a taught deck the model reads with (vision/enrol/profile.py).
    `wait_for_answers`: the recording holds its frame while a question waits on the dashboard (as players
    stop to answer), so no move is lost to it (`WaitingRecording`).
    Returns (pipeline, match setup, first dealer)."""
    layout, setup, dealer, rec_fps = demo_recording()
    rate = fps or rec_fps
    if referee is None:
        from referee import Match

        referee = Match(setup)
    kind = detector if isinstance(detector, str) else "given"
    if kind in ("auto", "model"):
        try:
            from vision.detector import Detector

            model = Detector(deck=deck)
            model.table_imgsz = TABLE_IMGSZ  # read as the table pipeline reads it (the self-check too)
        except Exception as e:  # no weights, no runtime, an unusable deck
            if kind == "model":
                raise
            log.warning("demo: no detector model (%s): playing the recording's ground truth", e)
            kind = "oracle"
        else:
            if kind == "auto" and _demo_recall(model) < 0.5:
                log.warning("demo: the model reads under half the cards of the demo recording: playing the "
                            "recording's ground truth instead (detector='model' forces the model)")
                kind = "oracle"
            else:
                kind, detector = "model", model
    if kind == "oracle":
        detector = TruthDetector(DEMO_DIR)
    # stability windows count frames of the recording, whatever speed it is played at
    holder: list[Pipeline] = []

    def waiting() -> bool:  # a question on the dashboard: the recording waits for the answer
        return wait_for_answers and bool(holder) and bool(holder[0].pending())

    pipe = Pipeline(lambda: WaitingRecording(DEMO_DIR / "frames", rec_fps, rate, waiting), layout, referee, dealer,
                    detector=detector, fps=rec_fps, loop=loop, motion_gate=motion_gate,
                    detector_kind=kind, deck=deck)  # kind: "model", "oracle" or "given", for the dashboard to say
    holder.append(pipe)
    return pipe, setup, dealer


def _demo_recall(model: Detector, frames: int = 3) -> float:
    """Share of the cards the model finds on a few of the demo's busiest frames (a quick self-check)."""
    import cv2

    truth = [json.loads(x) for x in (DEMO_DIR / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    busiest = sorted(range(len(truth)), key=lambda i: -len(truth[i]))[:frames]
    found = total = 0
    for i in busiest:
        img = cv2.imread(str(DEMO_DIR / "frames" / f"{i:05d}.jpg"))
        if img is None:
            continue
        want = {c for c, _ in truth[i] if c != "BACK"}
        got = {d.card for d in model.detect(img)}
        found += len(want & got)
        total += len(want)
    return found / total if total else 0.0
