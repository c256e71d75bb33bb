"""Motion gate: run the card detector only when the picture changed (as camera NVRs gate detection on motion).

    from vision.motion import GatedDetector
    det = GatedDetector(Detector())          # same interface: det.detect(frame_bgr) -> list[CardDetection]
    det.stats()                              # {"frames": ..., "detections": ..., "skipped": ..., ...}

`MotionGate` decides, frame by frame, whether the detector must look again; `GatedDetector` wraps any object
with `detect(frame)` and, when the gate says nothing changed, returns detections it cached instead of running
the detector. Pure numpy/OpenCV; no Flask, no model. `TableTracker` and `Pipeline` (vision/pipeline.py) use
it unless told not to (`motion_gate=False`, `--no-motion-gate`).

How a frame is compared. Each frame is shrunk to a small grey image (long side `MotionConfig.size`, area
averaging: one small pixel is the mean of 8x8 pixels of a 1280x720 frame), blurred (Gaussian, `blur` px),
and compared with the small image of the *reference*: the frame the detector last ran on. A small pixel has
changed when its grey level differs by more than `threshold`; the frame has moved when more than `area` of
the small pixels changed. Comparing with the reference, not with the previous frame, means a slow change (a
card pushed a few pixels a frame, light drifting) adds up until it counts instead of slipping through frame
after frame; drift then costs one detection, which takes a new reference.

When the detector runs (`MotionGate.check` returns True, `reason` says why):
- "first": the first frame, or a frame of another size;
- "motion": the frame differs from the reference;
- "settle": the frame matches the reference, but it is one of the first `settle` frames in a row to do so:
  the picture has only just stopped moving. So the detector always looks at the first still frame after a
  move, even when the hand's last frame and the final table differ by less than the thresholds (the final
  table of a move is always seen), and at a few more, see below;
- "refresh": `max_age` frames since the detector last ran (a safety net for a change too small to count as
  motion, e.g. one card swapped for another of the same colour with no hand in view).
Otherwise the frame is skipped. A frame becomes the reference only once the detector returned
(`MotionGate.accept`); if it raised, the following frames are looked at as if the picture had just moved.

What a skipped frame gets. The stabiliser (vision/stability.py) votes over frames: at 10 frames/s a card
appears once seen in 3 of 5 frames, vanishes after 8 misses in a row, and its name is a vote over its last 8
sightings. Repeating one look would freeze that look's mistakes (a card the detector missed in it vanishes
after 8 frames, a misread wins the vote), and a detector's readings of a still table do vary from frame to
frame (sensor noise; the shipped model names the same cards on two consecutive noisy frames of a still
table about 63 % of the time). So `GatedDetector` keeps its looks at the still picture (the first still
frame, the `settle` ones, refreshes: the newest `settle` + 1) and hands them out in turn on skipped frames,
each unchanged (a new list of the same `CardDetection`s). With `settle` + 1 = the stabiliser's vote window
(`MotionConfig.for_fps`, and what `TableTracker` sets), the first vote window after a move is exactly what
the ungated tracker sees, and later frames replay that sample instead of drawing new ones.
Measured (benchmarks/motion_gate.py, RESULTS-motion.md): tracking 3 scripted hands (2412 frames, tables held
3 s) with the renderer's ground truth plus detector-like noise, the gated tracker matches all 139 scripted
events as the ungated one does, with 56 % of the detector runs; repeating only the last look loses 21 of
them under default noise, 49 under harsh noise; 3 settling looks instead of 5 (at 5 frames/s) lose 4 under
harsh noise. On the demo recording with the shipped model, the defaults infer the same events as ungated
(4 of 21 right: the model's limit), 3 settling looks only 1.

Defaults (the thresholds are on the small image, so they hold at any frame size):
- `size` 160, `blur` 5: the gate costs about half a millisecond per 1280x720 frame; averaging 64 pixels
  and blurring brings sensor noise and JPEG ringing around card edges down to 1-3 grey levels (measured on
  the demo recording's still frames).
- `threshold` 15 grey levels: five times that residual noise, and above a flicker or drift of the exposure
  by 5 % (a +-12 levels offset or a 5 % gain change gives no changed pixel on a demo frame); far below what
  a hand over the felt or a card (white on the cloth) changes, 60-200 levels.
- `area` 0.002 (0.2 % of the picture, 29 small pixels at 160x90): a hand reaching in covers several
  percent, a card put down or taken away about 1 %; the smallest change in the demo recording, one card
  put exactly on another on the discard pile with no hand in view, changes 0.84 %; noisy still frames
  change none. (A motion-blurred still frame may count as motion: one detection too many, never one too few.)
- `settle` 7: with the first still frame, 8 looks after a move, the stabiliser's vote window at 10
  frames/s; `max_age` 20 frames, 2 s at 10 frames/s. `MotionConfig.for_fps` sets both for a processing rate.
Measured in benchmarks/RESULTS-motion.md.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from vision.interfaces import Detector
from vision.types import CardDetection


class Reason(StrEnum):
    """Why the detector must run on a frame (see the module's docstring)."""

    FIRST = "first"
    MOTION = "motion"
    SETTLE = "settle"
    REFRESH = "refresh"


REASONS = tuple(Reason)


@dataclass(frozen=True)
class MotionConfig:
    size: int = 160  # long side of the small grey image the frames are compared on (pixels)
    blur: int = 5  # Gaussian blur kernel on the small image (odd; 0 or 1: none)
    threshold: int = 15  # grey-level change (0-255) from which a small pixel counts as changed
    area: float = 0.002  # share of changed small pixels from which the frame counts as moved
    settle: int = 7  # still frames looked at after the first still one before frames are skipped (>= 1)
    max_age: int = 20  # the detector runs at least once every this many frames (0: no refresh)

    def __post_init__(self):
        if self.size < 8:
            raise ValueError(f"MotionConfig.size must be at least 8 pixels, got {self.size}")
        if self.blur < 0 or (self.blur > 1 and self.blur % 2 == 0):
            raise ValueError(f"MotionConfig.blur must be 0, 1 or an odd kernel size, got {self.blur}")
        if not 0 <= self.threshold < 255:
            raise ValueError(f"MotionConfig.threshold must be within 0..254 grey levels, got {self.threshold}")
        if not 0.0 <= self.area < 1.0:
            raise ValueError(f"MotionConfig.area must be a fraction within [0, 1), got {self.area}")
        if self.settle < 1:
            raise ValueError(f"MotionConfig.settle must be at least 1, got {self.settle}")
        if self.max_age < 0:
            raise ValueError(f"MotionConfig.max_age must be 0 (no refresh) or more frames, got {self.max_age}")

    @classmethod
    def for_fps(cls, fps: float, refresh_s: float = 2.0, **kw) -> MotionConfig:
        """For a processing rate: the safety refresh every `refresh_s` seconds, and `settle` such that the
        looks at a new still picture fill the stabiliser's vote window at that rate
        (`StabilityConfig.for_fps(fps).vote_window`: 8 frames at 10 frames/s, 6 at 5). `kw` overrides."""
        from vision.stability import StabilityConfig

        base = {"max_age": max(1, round(refresh_s * fps)),
                "settle": max(1, StabilityConfig.for_fps(fps).vote_window - 1)}
        return cls(**{**base, **kw})


def _check_frame(frame) -> np.ndarray:
    if frame is None:
        raise ValueError("motion gate: no frame (got None)")
    if not isinstance(frame, np.ndarray):
        raise ValueError(f"motion gate: expected an image as a numpy array, got {type(frame).__name__}")
    if frame.dtype != np.uint8:
        raise ValueError(f"motion gate: expected an 8-bit image (uint8), got {frame.dtype}")
    if frame.ndim == 3 and frame.shape[2] == 1:
        frame = frame[:, :, 0]
    if not (frame.ndim == 2 or (frame.ndim == 3 and frame.shape[2] in (3, 4))):
        raise ValueError(f"motion gate: expected an HxW grey or HxWx3 (BGR) / HxWx4 image, got shape "
                         f"{frame.shape}")
    if frame.shape[0] < 2 or frame.shape[1] < 2:
        raise ValueError(f"motion gate: image too small: {frame.shape[1]}x{frame.shape[0]} pixels")
    return frame


class MotionGate:
    """Decides per frame whether the detector must run. Use as::

        if gate.check(frame):      # True: run the detector on this frame
            dets = detector.detect(frame)
            gate.accept()          # this frame is now the reference
    """

    def __init__(self, config: MotionConfig | None = None):
        self.config = config or MotionConfig()
        self.reset()

    def reset(self) -> None:
        self._ref: tuple | None = None  # (small image, frame size) of the frame the detector last ran on
        self._last: tuple | None = None  # the same of the frame last checked
        self.still = 0  # frames in a row, up to the last checked one, that matched the reference
        self.age = 0  # frames checked since the reference was taken
        self.reason: Reason | None = None  # why the last checked frame must be detected (None: skipped)
        self.fraction = 0.0  # changed share of the last checked frame against the reference

    def small(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the gate compares it: grey, long side `size`, blurred (uint8)."""
        import cv2

        img = _check_frame(frame)
        if img.ndim == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY if img.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)
        h, w = img.shape
        s = self.config.size / max(h, w)
        if s < 1.0:
            img = cv2.resize(img, (max(1, round(w * s)), max(1, round(h * s))), interpolation=cv2.INTER_AREA)
        k = self.config.blur
        if k > 1:
            img = cv2.GaussianBlur(img, (k, k), 0)
        return img

    def changed_fraction(self, a: np.ndarray, b: np.ndarray) -> float:
        """Share of the small pixels whose grey level differs by more than `threshold` between a and b."""
        import cv2

        diff = cv2.absdiff(a, b)
        return float(np.count_nonzero(diff > self.config.threshold)) / diff.size

    def check(self, frame: np.ndarray) -> bool:
        """True when the detector must run on `frame` (`reason` says why); False to reuse the last
        detections. Call `accept()` once the detector has run on it."""
        cfg = self.config
        cur = self.small(frame)
        self._last = (cur, frame.shape[:2])
        self.age += 1
        if self._ref is None or self._ref[1] != frame.shape[:2]:
            self.fraction, self.still, self.reason = 1.0, 0, Reason.FIRST
            return True
        self.fraction = self.changed_fraction(cur, self._ref[0])
        if self.fraction > cfg.area:
            self.still, self.reason = 0, Reason.MOTION
            return True
        self.still += 1
        if self.still <= cfg.settle:
            self.reason = Reason.SETTLE
        elif cfg.max_age and self.age >= cfg.max_age:
            self.reason = Reason.REFRESH
        else:
            self.reason = None
        return self.reason is not None

    def accept(self) -> None:
        """The detector has run on the frame last checked: it becomes the reference."""
        if self._last is None:
            raise RuntimeError("MotionGate.accept() before check()")
        self._ref = self._last
        self.age = 0

    def reject(self) -> None:
        """The detector failed on the frame last checked: the reference stays, and the next frames are
        looked at as if the picture had just moved."""
        self.still = 0


class GatedDetector:
    """`detect(frame)` like the wrapped detector, but the detector runs only when `MotionGate.check` says so;
    on a skipped frame the detections of one of its last looks at the still picture are returned, in turn
    (a new list of the same `CardDetection`s; see the module's docstring). Counters: `frames`, `detections`
    (runs), `skipped`, `reasons` (runs by reason), `gate_s` (seconds spent in the gate itself); `ran`: whether
    the detector ran on the last frame."""

    def __init__(self, detector: Detector, config: MotionConfig | None = None, keep: int | None = None):
        if not isinstance(detector, Detector):
            raise TypeError("GatedDetector needs a detector: an object with detect(frame)")
        if keep is not None and keep < 1:
            raise ValueError(f"GatedDetector: keep must be at least 1 look, got {keep}")
        self.detector = detector
        self.keep = keep  # looks handed out in turn on skipped frames (None: settle + 1; 1: repeat the last)
        self.gate = MotionGate(config)
        self.frames = 0
        self.detections = 0
        self.skipped = 0
        self.reasons = dict.fromkeys(REASONS, 0)
        self.gate_s = 0.0
        self._looks: list[list[CardDetection]] = []  # detections of the last looks at the picture as it is now
        self._turn = 0
        self.ran = False  # whether the detector ran on the last frame

    @property
    def config(self) -> MotionConfig:
        return self.gate.config

    @config.setter
    def config(self, config: MotionConfig) -> None:
        self.gate.config = config

    def reset(self) -> None:
        """Forget the reference: the next frame is detected."""
        self.gate.reset()
        self._looks, self._turn = [], 0

    def detect(self, frame: np.ndarray) -> list[CardDetection]:
        t0 = time.perf_counter()
        run = self.gate.check(frame)  # raises ValueError on a bad frame
        self.gate_s += time.perf_counter() - t0
        self.frames += 1
        self.ran = run
        if not run:
            self.skipped += 1
            look = self._looks[self._turn % len(self._looks)]
            self._turn += 1
            return list(look)
        try:
            dets = self.detector.detect(frame)
        except Exception:
            self.gate.reject()
            raise
        self.gate.accept()
        self.detections += 1
        self.reasons[self.gate.reason] += 1
        if self.gate.reason in (Reason.FIRST, Reason.MOTION):
            self._looks = []  # another picture: the earlier looks are of what was there before
        self._looks = (self._looks + [list(dets)])[-(self.keep or self.config.settle + 1):]
        self._turn = 0
        return dets

    def stats(self) -> dict:
        return {"frames": self.frames, "detections": self.detections, "skipped": self.skipped,
                "reasons": dict(self.reasons), "gate_ms_per_frame": 1000 * self.gate_s / max(1, self.frames)}
