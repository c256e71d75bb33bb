"""The live table pipeline: capture -> detector -> layout -> snapshot -> stability -> observer -> referee.

- `TableTracker`: the per-frame chain, shared by the live pipeline and offline `track`:
  ``process(frame) -> outcomes``. No threads, no drawing, no logging per frame. By default the detector runs
  behind a motion gate (`vision.motion.GatedDetector`: it runs only when the picture changed);
  `motion_gate=False` runs it on every frame.
- `Pipeline`: runs a `Capture` and a `TableTracker` in a background thread for the dashboard:
  `start()`, `stop()`, `camera_state()`, `latest_jpeg()` (the frame with the recognised cards and the zones
  drawn on it), `on_event(callback)`, `pending()`, `confirm(id)`, `reject(id)`, `correct(id, event)` and
  `crop(id)` (the camera's picture of the cards a proposal is about, JPEG, taken when it was proposed).
  Callbacks receive ``{"event": {...}, "ok": bool, "code": ..., "message": ..., "proposed": bool, "id": int}``.
- `annotate(...)`: the drawing, kept apart from the deciding.

Nothing here imports Flask.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from vision.capture import OFF, CameraState, Capture
from vision.detector import Detector as CardDetector
from vision.geometry import area, center, intersection, union
from vision.interfaces import Detector, FrameSource, Outcome, Referee
from vision.layout import DISCARD, Calibration, FrameMapper, Layout
from vision.motion import GatedDetector, MotionConfig
from vision.observer import Observer, event_cards
from vision.snapshot import SnapshotConfig, TableSnapshot, build_snapshot
from vision.stability import SnapshotGate, StabilityConfig, Stabilizer
from vision.types import UNKNOWN, CardDetection, Frame

# the live table pipeline (players there to answer) also takes the corners the classifier names from this
# probability (with their second choices): the vote over many looks and the rules settle them, the players are
# asked the rest (issue 12)
UNSURE_FLOOR = 0.2
# with a taught deck: 0.2 measured worse (stop 23); 0.5 lost the unsure low-end lay-offs (docs/PIPELINE.md, stop 41).
# The deck's own threshold for stills is 0.5-0.6 (best F1 since stop 48; 0.7-0.9 by F0.5 before)
TAUGHT_FLOOR = 0.3
# ... but not on the discard pile: any card may be discarded, so no rule checks a read there, and what a taught deck
# reads unsurely on a squared pile is most often the index of a card under the top peeking out, named wrong (basic
# hand 7: the QC under Ben's QH read QS at 0.32, taken for the top, and every later turn was one card off)
PILE_FLOOR = 0.5
# the localiser's input size for a camera's frames (their long side, at most this), unless the detector was given
# one: a table seen whole puts a card's index at 7-8 pixels at the model's 512, and 800 found 91 % of the indices
# the 512 reading found 68 % of, on rendered 1280x720 tables (docs/PIPELINE.md)
TABLE_IMGSZ = 800

log = logging.getLogger(__name__)


class TableTracker:
    """One frame at a time, from pixels to referee events.

    `motion_gate`: True (default) runs the detector behind a `vision.motion.GatedDetector` with
    `MotionConfig.for_fps(fps)`, its settling looks filling the stabiliser's vote window (both follow
    `retune`); a `MotionConfig` to choose the gate's settings (kept as given); False to run the detector on
    every frame. `gated` is the wrapper (None without a gate), `detector` the detector itself."""

    def __init__(self, layout: Layout, referee: Referee, first_dealer: str, detector: Detector, *, fps: float = 10.0,
                 stability: StabilityConfig | None = None, min_confidence: float = 0.75, auto_confirm: bool = False,
                 calibrate_every: int = 15, motion_gate: bool | MotionConfig = True):
        self.layout = layout
        self._decks = (referee.public_state().get("options") or {}).get("decks")
        self._auto_confirm = auto_confirm
        self.gated: GatedDetector | None = None
        self.set_detector(detector)
        self.stability = stability or StabilityConfig.for_fps(fps)
        self._motion_auto = motion_gate is True
        if motion_gate is True:
            self.gated = GatedDetector(detector, self._motion_config(fps))
        elif isinstance(motion_gate, MotionConfig):
            self.gated = GatedDetector(detector, motion_gate)
        elif motion_gate is not False and motion_gate is not None:
            raise TypeError(f"motion_gate: expected True, False or a MotionConfig, got {motion_gate!r}")
        opts = referee.public_state().get("options") or {}
        decks = self._decks if isinstance(self._decks, int) else 1
        jokers = opts.get("jokers_per_deck") if isinstance(opts.get("jokers_per_deck"), int) else 0
        self.stabilizer = Stabilizer(self.stability, copies=decks, jokers=decks * jokers)
        self.stabilizer.steady = self._on_discard_pile
        self.gate = SnapshotGate(self.stability.hold_frames)
        self.observer = Observer(referee, first_dealer, min_confidence=min_confidence, auto_confirm=auto_confirm,
                                 patience=self.stability.vote_window)
        self.snapshot_config = SnapshotConfig()
        self.calibration = Calibration(layout.aruco) if layout.aruco is not None else None
        self.calibrate_every = calibrate_every
        self.frames = 0
        self.last_detections: list[CardDetection] = []
        self.last_stable: list[CardDetection] = []
        self.last_snapshot: TableSnapshot | None = None
        self.mapper: FrameMapper | None = None

    def set_detector(self, detector: Detector) -> None:
        """The detector to use from the next frame (a taught deck swapped in on the dashboard)."""
        # the trained detector's one-deck rule follows the match: two decks hold each card twice
        if isinstance(detector, CardDetector) and isinstance(self._decks, int):
            detector.decks = self._decks
        # with the players there to answer, the table takes the unsure reads too, settled over many looks and
        # by the rules, the rest asked (docs/PIPELINE.md); measured worse offline (`track`, nobody answers), so
        # not there; a taught deck's classifier is surer of its wrong reads: from TAUGHT_FLOOR
        if isinstance(detector, CardDetector) and detector.floor is None and not self._auto_confirm:
            detector.floor = UNSURE_FLOOR if detector.deck is None else TAUGHT_FLOOR
        # the reads the discard pile keeps (None: all the detector gives)
        self.pile_floor = PILE_FLOOR if isinstance(detector, CardDetector) and detector.deck is not None \
            and not self._auto_confirm else None
        if isinstance(detector, CardDetector) and detector.table_imgsz is None and not detector.imgsz_given:
            detector.table_imgsz = TABLE_IMGSZ
        if isinstance(detector, CardDetector):
            # the stock zone sets a back's pictures aside; a pile's half-covered indices are small but real
            detector.small_ratio = 0.0
        self.detector = detector
        if self.gated is not None:
            self.gated.detector = detector

    @property
    def referee(self) -> Referee:
        return self.observer.referee

    def retune(self, fps: float) -> None:
        """Stability windows for another processing rate (the live pipeline measures its own)."""
        self.stability = StabilityConfig.for_fps(fps)
        self.stabilizer.config = self.stability
        self.gate.hold_frames = self.stability.hold_frames
        self.observer.patience = self.stability.vote_window
        if self.gated is not None and self._motion_auto:
            self.gated.config = self._motion_config(fps)

    def _motion_config(self, fps: float) -> MotionConfig:
        return MotionConfig.for_fps(fps, settle=max(1, self.stability.vote_window - 1))

    def _on_discard_pile(self, box) -> bool:
        """Whether a box (frame pixels) lies on the discard pile: there the stabiliser wants a card seen
        steadily before it counts (`Stabilizer.steady`)."""
        if self.mapper is None:
            return False
        return self.layout.zone_of(self.mapper.to_rel((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)) == DISCARD

    def _pile_reads(self, dets: list[CardDetection]) -> list[CardDetection]:
        """The frame's reads less those the discard pile does not keep: under `pile_floor`, and on the face of a
        card seen whole (`off_whole_faces`). Where a box lies is asked once, and only for those reads."""
        where: dict[tuple, bool] = {}

        def on_pile(box) -> bool:
            if box not in where:
                where[box] = self._on_discard_pile(box)
            return where[box]

        if self.pile_floor is not None:
            dets = [d for d in dets if d.confidence >= self.pile_floor or not on_pile(d.box)]
        dets = off_whole_faces(dets, on_pile)
        if self.observer.spread_pile:
            # a spread pile's cards lie a card's diagonal apart as often as one card's two indices: Rummy 500 hand 3
            # (taught deck) made the upcard AC and the JS laid over it one card and lost 16 of its 43 events
            return dets
        card_px = self.layout.card_height * self.mapper.height if self.layout.card_height and self.mapper else None
        return one_card_two_names(dets, card_px, on_pile)

    def process(self, frame: Frame | np.ndarray) -> list[Outcome]:
        img = frame.image if isinstance(frame, Frame) else frame
        h, w = img.shape[:2]
        if self.calibration is not None and (self.frames % self.calibrate_every == 0
                                             or self.calibration.homography is None):
            self.calibration.update(img)
        self.frames += 1
        homography = self.calibration.homography if self.calibration is not None else None
        if self.mapper is None or (self.mapper.width, self.mapper.height) != (w, h) \
                or self.mapper.homography is not homography:
            self.mapper = FrameMapper(w, h, homography)
        return self._look(self._pile_reads((self.gated or self.detector).detect(img)))

    def _look(self, dets: list[CardDetection]) -> list[Outcome]:
        """One frame's reads through the stabiliser, the snapshot gate and the observer."""
        stable = self.stabilizer.update(dets)
        snap = build_snapshot(stable, self.layout, self.mapper, self.snapshot_config)
        self.last_detections, self.last_stable, self.last_snapshot = dets, stable, snap
        gated = self.gate.update(snap)
        if gated is None:
            if self.observer.waiting:
                if self.gate.holding(snap):
                    return self.observer.observe(snap)  # same table, firmer votes: look again
                self.observer.tick()  # the table moves: the wait runs on
            return []
        return self.observer.observe(gated)

    def finish(self, looks: int | None = None, on_look: Callable[[], None] | None = None) -> list[Outcome]:
        """The source ended (a recording's last frame): the cards stay on the table as last seen, so that
        frame's reads are looked at again, as a camera left on would see them (the detector is not run again
        on the same picture), until nothing waits for more looks or after `looks` frames (default: enough for
        a new card to settle and for the longest wait, a hand shown short, to be asked). Without it a
        question still waiting when a recording ends is never asked: the demo read with cls18 ended two looks
        into the wait on Ben's shown hand, and the hand was never scored. `on_look`: called after each look
        (the evaluation's stand-in players answer there). Returns the outcomes of these looks."""
        if self.frames == 0:
            return []
        settle = self.stability.hold_frames + self.stability.vote_window
        looks = settle + 2 * self.observer.patience + 2 if looks is None else looks
        dets = list(self.last_detections)
        outs: list[Outcome] = []
        for n in range(looks):
            outs.extend(self._look(dets))
            if on_look is not None:
                on_look()
            if n + 1 >= settle and not self.observer.waiting and not self.observer.pending() \
                    and self.gate.holding(self.last_snapshot):
                break
        return outs


FACE_INSIDE = 0.8  # the share of a read's box on a whole card's face that makes it a read of that face


def off_whole_faces(dets: list[CardDetection], where: Callable[[tuple], bool] | None = None) -> list[CardDetection]:
    """The detections less the one-index reads lying (`FACE_INSIDE` of their box) on the face of a card seen whole
    in the same frame, both its corner indices read as one name, so nothing lies over it: the face's pips or
    picture read as an index, not a card. Only where `where(box)` says so (None: everywhere); the pipeline asks
    it on the discard pile, where any card may be discarded and no rule checks a read (Rummy 500 hand 2, taught
    deck: the 8D on the spread pile, both corners showing, was also read 9D, 0.9, from its pips; Dan's discard of
    the 8D was taken for a 9D and the rest of the hand went astray)."""
    whole = [d for d in dets if len(d.corners) >= 2 and d.card != "BACK"]

    def on_face(d: CardDetection) -> bool:
        if len(d.corners) > 1 or d.card == "BACK" or area(d.box) <= 0:
            return False
        for w in whole:
            both = intersection(d.box, w.box)
            if w.card != d.card and both is not None and area(both) >= FACE_INSIDE * area(d.box):
                return where is None or where(d.box)
        return False

    return [d for d in dets if not on_face(d)] if whole else dets


CARD_ASPECT = 0.714  # a card's width over its height (poker size, 63 × 88 mm)


def one_card_two_names(dets: list[CardDetection], card_px: float | None,
                       where: Callable[[tuple], bool] | None = None) -> list[CardDetection]:
    """The detections with two one-index reads of different names that lie as one card's two indices made one
    card, named by the surer read: where both reads' boxes are alike (areas within a factor of 2), their centres
    lie 0.6 to 1.05 of a card's diagonal apart (`card_px`: a card's long side in pixels, from the layout's
    `card_height`; None: nothing is done), and across the card the way its indices sit (two tall boxes, an upright
    or upside-down card: apart by at least a third of the card's width across and half its height down; two wide
    boxes, a card lying sideways: the same, turned; squarish boxes, a card turned near 45°: never).
    Only where `where(box)` says so (None: everywhere): the pipeline asks it on a squared discard pile, where a
    card lands squarely on the last one and nothing else lies at that offset.  Basic hand 7: Ben's QH, laid
    exactly on Ana's QC, read QS at its top-left index (0.9, for a dozen looks) and QH at its bottom-right (1.0);
    the two reads were two cards, "Cleo discards QS" was applied, and every later move went to the player before.
    Not on Rummy 500's spread pile (`TableTracker` skips it there): its older cards lie a card's diagonal from
    the new ones too (hand 3, taught deck: the upcard AC and the JS laid over it were made one card, and 16 of
    43 events were lost).  Keeping a read that names a card known on the pile was tried instead: on a squared
    pile the new card's index, read as the card it covers, then stayed two cards (basic hand 7: 50 -> 25 of 52)."""
    if not card_px or card_px <= 0:
        return dets
    ch, cw = float(card_px), CARD_ASPECT * float(card_px)
    diag = float(np.hypot(cw, ch))
    idx = [i for i, d in enumerate(dets) if len(d.corners) <= 1 and d.card not in ("BACK", "JK")
           and not d.card.startswith(UNKNOWN) and area(d.box) > 0 and (where is None or where(d.box))]

    def one_card(a: tuple, b: tuple) -> bool:
        if not 0.5 <= area(a) / area(b) <= 2.0:
            return False
        (ax, ay), (bx, by) = center(a), center(b)
        dx, dy = bx - ax, by - ay
        if not 0.6 * diag <= float(np.hypot(dx, dy)) <= 1.05 * diag:
            return False
        tall = (a[3] - a[1]) > (a[2] - a[0]) and (b[3] - b[1]) > (b[2] - b[0])
        wide = (a[2] - a[0]) > (a[3] - a[1]) and (b[2] - b[0]) > (b[3] - b[1])
        if tall:  # an upright (or upside-down) card: its other index a card's width across and height down
            return abs(dx) >= cw / 3 and abs(dy) >= ch / 2
        if wide:  # a card lying sideways
            return abs(dy) >= cw / 3 and abs(dx) >= ch / 2
        return False  # turned near 45°: the boxes say too little
    pairs = []
    for x in range(len(idx)):
        for y in range(x + 1, len(idx)):
            a, b = dets[idx[x]], dets[idx[y]]
            if a.card != b.card and one_card(a.box, b.box):
                pairs.append((-max(a.confidence, b.confidence), idx[x], idx[y]))
    if not pairs:
        return dets
    out = list(dets)
    gone: set[int] = set()
    for _c, i, j in sorted(pairs):
        if i in gone or j in gone:
            continue
        keep, drop = (i, j) if dets[i].confidence >= dets[j].confidence else (j, i)
        k, d = dets[keep], dets[drop]
        out[keep] = replace(k, box=union([k.box, d.box]), corners=tuple(k.corners or (k.box,)) + tuple(d.corners or (d.box,)))
        gone |= {i, j}
        out[drop] = None
    return [d for d in out if d is not None]


# ---------------------------------------------------------------------------------------------
# Drawing (for the dashboard's video), separate from the logic above.

_ZONE_COLOURS = [(255, 200, 0), (0, 200, 255), (255, 0, 200), (0, 255, 120), (200, 120, 255), (120, 255, 255)]


def annotate(img: np.ndarray, layout: Layout | None, mapper: FrameMapper | None, detections: list[CardDetection],
             stable: list[CardDetection] | None = None) -> np.ndarray:
    """A copy of the frame with the zones outlined and the recognised cards boxed and named."""
    import cv2

    out = img.copy()
    if layout is not None and mapper is not None:
        zones = [("stock", layout.stock), ("discard", layout.discard)] + list(layout.players.items())
        for i, (name, poly) in enumerate(zones):
            pts = mapper.polygon_px(poly).astype(np.int32)
            col = _ZONE_COLOURS[i % len(_ZONE_COLOURS)]
            cv2.polylines(out, [pts], True, col, 1, cv2.LINE_AA)
            cv2.putText(out, name, (int(pts[:, 0].min()) + 4, int(pts[:, 1].min()) + 14), cv2.FONT_HERSHEY_SIMPLEX,
                        0.45, col, 1, cv2.LINE_AA)
    stable_names = {d.card for d in stable or []}
    for d in detections:
        x1, y1, x2, y2 = (int(round(v)) for v in d.box)
        col = (0, 220, 0) if d.card in stable_names else (0, 160, 255)
        cv2.rectangle(out, (x1, y1), (x2, y2), col, 2)
        label = f"{d.card} {d.confidence:.2f}"
        cv2.putText(out, label, (x1, max(10, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, label, (x1, max(10, y1 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, col, 1, cv2.LINE_AA)
    return out


def crop_cards(img: np.ndarray, stable: list[CardDetection], cards: list[str], *, margin: float = 0.6,
               max_side: int = 480, quality: int = 80, extra_boxes=()) -> bytes | None:
    """A JPEG of the part of the frame that holds `cards` (their stable boxes, with a margin of `margin` box
    sizes around, so the whole card shows and not only its index), at most `max_side` pixels; the whole frame
    when none of them is found (an end of hand, a card no longer seen). `extra_boxes`: parts of the table the
    picture must hold too (where a card the camera could not see lies). None if the frame cannot be encoded."""
    import cv2

    h, w = img.shape[:2]
    boxes = [d.box for d in stable if d.card in set(cards)] + [tuple(b) for b in extra_boxes]
    if boxes:
        x1, y1 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x2, y2 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        size = max(max(b[2] - b[0], b[3] - b[1]) for b in boxes)
        pad = margin * size + 8
        x1, y1 = max(0, int(x1 - pad)), max(0, int(y1 - pad))
        x2, y2 = min(w, int(x2 + pad)), min(h, int(y2 + pad))
        part = img[y1:y2, x1:x2] if x2 > x1 and y2 > y1 else img
    else:
        part = img
    ph, pw = part.shape[:2]
    k = min(1.0, max_side / max(ph, pw, 1))
    if k < 1.0:
        part = cv2.resize(part, (max(1, int(pw * k)), max(1, int(ph * k))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", part, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return buf.tobytes() if ok else None


# ---------------------------------------------------------------------------------------------
# The live pipeline.


class Pipeline:
    """Background camera pipeline for the dashboard (a `vision.interfaces.CameraPipeline`).

    `source`: a capture source (see `vision.capture.open_source`) or a factory returning one.
    `referee`: the match the events go to (a `vision.interfaces.Referee`: a `referee.Match`, or the
    dashboard's `web_ui.camera.MatchReferee`);
    `detector`: a `vision.interfaces.Detector` (default: `vision.detector.Detector`, loaded lazily in the
    worker so the dashboard starts at once). `detector_kind`: what the dashboard says it shows (None: not said).
    `motion_gate`: as `TableTracker`'s (default: the detector runs only when the picture changed).
    """

    def __init__(self, source: FrameSource | Callable[[], FrameSource], layout: Layout, referee: Referee,
                 first_dealer: str, *, detector: Detector | None = None, fps: float = 10.0, loop: bool = False,
                 jpeg_quality: int = 75, min_confidence: float = 0.75, max_rate: float = 15.0,
                 motion_gate: bool | MotionConfig = True, detector_kind: str | None = None,
                 deck: str | None = None):
        self.layout = layout
        self.deck = deck  # a taught deck's profile (vision/enrol/profile.py) for the detector made here
        self.capture = Capture(source, loop=loop)
        self._detector = detector
        self.detector_kind = detector_kind
        self._tracker: TableTracker | None = None
        self._referee = referee
        self._first_dealer = first_dealer
        self._fps = fps
        self._min_conf = min_confidence
        self._motion_gate = motion_gate
        self._min_period = 1.0 / max_rate if max_rate else 0.0
        self._jpeg_quality = jpeg_quality
        self._listeners: list[Callable[[Outcome], None]] = []
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._jpeg_seq = -1
        self._last_frame: Frame | None = None
        self._view = None  # (frame seq, detections, stable, mapper) of the last processed frame
        self._crops: dict[int, bytes] = {}  # proposal id -> the picture of its cards (the last few)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.error: str | None = None
        self.processed = 0
        self.measured_fps: float | None = None

    # ---- control ----
    def start(self) -> Pipeline:
        if self._thread and self._thread.is_alive():
            return self
        self._stop.clear()
        self.capture.start()
        self._thread = threading.Thread(target=self._run, name="pipeline", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.capture.stop()
        if self._thread:
            self._thread.join(3)

    # ---- for the dashboard ----
    def camera_state(self) -> CameraState:
        if self._thread is None:
            return OFF
        return self.capture.state

    def on_event(self, callback: Callable[[Outcome], None]) -> None:
        self._listeners.append(callback)

    def pending(self) -> list[dict]:
        t = self._tracker
        return t.observer.pending() if t else []

    def confirm(self, pid: int) -> Outcome | None:
        t = self._tracker
        return t.observer.confirm(int(pid)) if t else None

    def reject(self, pid: int) -> bool:
        t = self._tracker
        return t.observer.reject(int(pid)) if t else False

    def correct(self, pid: int, event: dict) -> Outcome | None:
        """The players' version of a proposed event (see `Observer.correct`)."""
        t = self._tracker
        return t.observer.correct(int(pid), event) if t else None

    def crop(self, pid: int) -> bytes | None:
        """The JPEG of the cards proposal `pid` is about, as the camera saw them then (None if none)."""
        with self._lock:
            return self._crops.get(int(pid))

    def _keep_crop(self, out: Outcome) -> None:
        t, frame = self._tracker, self._last_frame
        if t is None or frame is None or out.get("id") is None:
            return
        cards = event_cards(out.get("event") or {}) + list(out.get("camera_cards") or [])
        box = out.get("box")
        jpeg = crop_cards(frame.image, t.last_stable, cards, extra_boxes=[tuple(box)] if box else ())
        if jpeg is None:
            return
        with self._lock:
            self._crops[int(out["id"])] = jpeg
            for k in sorted(self._crops)[:-8]:
                del self._crops[k]

    @property
    def referee(self) -> Referee:
        return self._referee

    def set_referee(self, referee: Referee, first_dealer: str | None = None) -> None:
        """Sends the camera's events to another match from now on (pending proposals are dropped); the table
        is compared with that match's state at the next stable change."""
        self._referee = referee
        if first_dealer is not None:
            self._first_dealer = first_dealer
        t = self._tracker
        if t is not None:
            t.observer = Observer(referee, self._first_dealer, min_confidence=self._min_conf,
                                  patience=t.stability.vote_window)
            t.observer.on_event(self._emit)

    def latest_jpeg(self) -> bytes | None:
        """The newest frame, annotated, as JPEG (None before the first frame)."""
        import cv2

        with self._lock:
            view, frame_seq = self._view, self._jpeg_seq
            frame = self._last_frame
        if frame is None:
            return None
        seq = view[0] if view else -2
        if seq == frame_seq and self._jpeg is not None:
            return self._jpeg
        if view is not None:
            img = annotate(frame.image, self.layout, view[3], view[1], view[2])
        else:
            img = frame.image
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self._jpeg_quality])
        if not ok:
            return self._jpeg
        with self._lock:
            self._jpeg, self._jpeg_seq = buf.tobytes(), seq
        return self._jpeg

    # ---- worker ----
    def _emit(self, out: Outcome) -> None:
        if out.get("proposed"):
            try:
                self._keep_crop(out)  # before the screens hear of it, so they can show it at once
            except Exception:
                log.exception("pipeline: no picture for proposal %s", out.get("id"))
        for cb in list(self._listeners):
            try:
                cb(out)
            except Exception:  # a listener must not stop the camera
                log.exception("pipeline listener failed")

    def _ensure_tracker(self) -> TableTracker:
        if self._tracker is None:
            det = self._detector
            if det is None:
                from vision.detector import Detector

                det = Detector(deck=self.deck)
            self._tracker = TableTracker(self.layout, self._referee, self._first_dealer, det, fps=self._fps,
                                         min_confidence=self._min_conf, motion_gate=self._motion_gate)
            self._tracker.observer.on_event(self._emit)
        return self._tracker

    def use_deck(self, deck: str | None) -> None:
        """Read the cards of a taught deck from now on (None: the general model).  The detector is loaded
        here, in the caller's thread (a bad deck raises `DeckError` and changes nothing), then swapped in."""
        from vision.detector import Detector

        det = Detector(deck=deck)
        self.deck = deck
        self._detector = det
        if self._tracker is not None:
            self._tracker.set_detector(det)

    def _run(self) -> None:
        try:
            tracker = self._ensure_tracker()
        except Exception as e:  # no model: show the camera without recognition
            log.exception("pipeline: detector unavailable")
            self.error = f"detector unavailable: {e}"
            tracker = None
        seq = 0
        rate_from, rate_n = None, 0
        finished, asked = False, False
        while not self._stop.is_set():
            t0 = time.monotonic()
            new_seq, frame = self.capture.latest(seq, timeout=0.5)
            if frame is None or new_seq == seq:
                if seq and tracker is not None and self.capture.state == OFF and not self._stop.is_set() \
                        and (not finished or (asked and not tracker.observer.pending())):
                    # a recording ended: its last table stays seen (TableTracker.finish); again once the question
                    # it left open is answered, for what that answer lets the table show next (Ben's hand after
                    # Ana's)
                    finished = True
                    try:
                        tracker.finish()
                    except Exception:
                        log.exception("pipeline: the recording's last table failed")
                    asked = bool(tracker.observer.pending())
                continue  # nothing new (a paused or ended source): never process a frame twice
            finished, asked = False, False
            seq = new_seq
            with self._lock:
                self._last_frame = frame
            if tracker is None:
                continue
            try:
                tracker.process(frame)
            except Exception:
                log.exception("pipeline: frame %d failed", seq)
                continue
            self.processed += 1
            # windows count processed frames: fit them, once, to the rate reached in the scene's time (frame
            # timestamps: wall time for a camera, the recording's clock for a recording played at any speed)
            if rate_from is None or frame.t < rate_from:
                rate_from, rate_n = frame.t, 0
            rate_n += 1
            if rate_n == 30 and self.measured_fps is None:
                rate = 29 / max(1e-6, frame.t - rate_from)
                self.measured_fps = rate
                if abs(rate - self._fps) > 0.3 * self._fps:
                    tracker.retune(rate)
            with self._lock:
                self._view = (seq, list(tracker.last_detections), list(tracker.last_stable), tracker.mapper)
            spare = self._min_period - (time.monotonic() - t0)
            if spare > 0:
                self._stop.wait(spare)
