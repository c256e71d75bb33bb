"""Motion gate (vision/motion.py): the detector runs when the picture changed, and only then.

Small synthetic frames (320x180: a textured cloth, white cards, a skin-coloured hand), a fake detector that
counts its calls and remembers the frames it saw."""

import cv2
import numpy as np
import pytest

from vision.motion import GatedDetector, MotionConfig, MotionGate
from vision.types import CardDetection

W, H = 320, 180
_CLOTH = None


def cloth() -> np.ndarray:
    global _CLOTH
    if _CLOTH is None:
        rng = np.random.default_rng(7)
        base = np.empty((H, W, 3), np.uint8)
        base[:] = (40, 110, 45)
        tex = rng.integers(-12, 13, (H, W, 1))
        _CLOTH = np.clip(base.astype(int) + tex, 0, 255).astype(np.uint8)
    return _CLOTH


def scene(cards=((60, 50), (150, 60)), hand=None, brightness=0.0, rng=None, noise=2.0, jpeg=True) -> np.ndarray:
    """The table with cards (top-left corners, 30x42 px) and optionally a hand (centre), per-frame sensor noise
    and JPEG compression."""
    img = cloth().copy()
    for x, y in cards:
        cv2.rectangle(img, (x, y), (x + 29, y + 41), (235, 235, 235), -1)
        cv2.putText(img, "7", (x + 3, y + 12), cv2.FONT_HERSHEY_PLAIN, 0.8, (20, 20, 160), 1)
    if hand is not None:
        cv2.ellipse(img, hand, (28, 20), 30, 0, 360, (120, 160, 210), -1)
        cv2.rectangle(img, (hand[0], hand[1]), (W, hand[1] + 14), (90, 60, 50), -1)  # the sleeve
    out = img.astype(np.float32) + brightness
    if rng is not None and noise:
        out += rng.normal(0, noise, out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if jpeg:
        out = cv2.imdecode(cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 75])[1], cv2.IMREAD_COLOR)
    return out


class FakeDetector:
    """Counts its calls; each call returns a new list with a detection named after the call."""

    def __init__(self):
        self.calls = 0
        self.seen: list[np.ndarray] = []
        self.results: list[list[CardDetection]] = []

    def detect(self, frame):
        self.calls += 1
        self.seen.append(frame)
        out = [CardDetection(f"call{self.calls}", 0.9, (1.0, 2.0, 3.0, 4.0)), CardDetection("7H", 0.8, (5, 6, 7, 8))]
        self.results.append(out)
        return out


def saw(det: FakeDetector, frame) -> bool:
    return any(f is frame for f in det.seen)


def test_static_noisy_table_is_detected_once_plus_settling_and_refreshes():
    rng = np.random.default_rng(0)
    frames = [scene(rng=rng) for _ in range(60)]
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=3, max_age=0))
    for f in frames:
        g.detect(f)
    assert det.calls == 1 + 3  # the first frame and the settling looks, then nothing: noise is not motion
    assert g.frames == 60 and g.detections == 4 and g.skipped == 56
    assert g.reasons == {"first": 1, "motion": 0, "settle": 3, "refresh": 0}

    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=1, max_age=20))
    for f in frames:
        g.detect(f)
    # frames 0 (first), 1 (settle), then a refresh every 20 frames: 21, 41
    assert [i for i, f in enumerate(frames) if saw(det, f)] == [0, 1, 21, 41]
    assert g.reasons == {"first": 1, "motion": 0, "settle": 1, "refresh": 2}
    st = g.stats()
    assert st["frames"] == 60 and st["detections"] == 4 and st["skipped"] == 56 and st["gate_ms_per_frame"] > 0


def test_flicker_and_slow_light_drift_do_not_count_as_motion():
    rng = np.random.default_rng(1)
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=1, max_age=0))
    for i in range(80):
        flicker = 3.0 if i % 2 else -3.0  # +-3 grey levels every other frame
        g.detect(scene(rng=rng, brightness=flicker))
    assert det.calls == 2
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=1, max_age=0))
    for i in range(100):
        g.detect(scene(rng=rng, brightness=0.25 * i))  # 25 grey levels over 100 frames
    # the drift adds up against the reference: it may cost a detection or two, never one per frame
    assert 2 <= det.calls <= 6


def test_a_moved_card_and_a_hand_reaching_in_trigger_the_detector():
    rng = np.random.default_rng(2)
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=1, max_age=0))
    for _ in range(10):
        g.detect(scene(rng=rng))
    assert det.calls == 2
    moved = scene(cards=((60, 50), (190, 100)), rng=rng)  # the second card moved 40 px right, 40 down
    g.detect(moved)
    assert saw(det, moved) and g.gate.reason == "motion"
    for _ in range(10):
        g.detect(scene(cards=((60, 50), (190, 100)), rng=rng))
    before = det.calls
    hand = scene(cards=((60, 50), (190, 100)), hand=(250, 120), rng=rng)
    g.detect(hand)
    assert saw(det, hand) and g.gate.reason == "motion" and det.calls == before + 1
    # a hand moving over the table: every frame is looked at
    for x in (230, 210, 190):
        f = scene(cards=((60, 50), (190, 100)), hand=(x, 110), rng=rng)
        g.detect(f)
        assert saw(det, f)


def test_the_first_still_frame_after_motion_is_always_detected():
    """The hand's last frame and the final table may differ by less than the thresholds (here: a fingertip
    still at the card's edge as the hand leaves): the frame after a moving one is looked at anyway."""
    rng = np.random.default_rng(3)
    det = FakeDetector()
    cfg = MotionConfig(settle=1, max_age=0)
    g = GatedDetector(det, cfg)
    for _ in range(5):
        g.detect(scene(rng=rng))
    moving = scene(cards=((60, 50), (200, 60)), rng=rng, jpeg=False)
    moving[100:106, 229:235] = (120, 160, 210)  # the fingertip
    g.detect(moving)
    assert g.gate.reason == "motion"
    final = [scene(cards=((60, 50), (200, 60)), rng=rng) for _ in range(6)]
    gate = MotionGate(cfg)
    assert gate.changed_fraction(gate.small(moving), gate.small(final[0])) <= cfg.area  # below the thresholds
    for f in final:
        g.detect(f)
    assert saw(det, final[0])  # the first still frame: the final state of the table is seen
    assert not any(saw(det, f) for f in final[1:])  # and then the still table is no longer detected


def test_settle_looks_after_motion_then_skips():
    rng = np.random.default_rng(4)
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=3, max_age=0))
    frames = [scene(rng=rng) for _ in range(3)] + [scene(hand=(160, 90), rng=rng)] + \
        [scene(rng=rng) for _ in range(8)]
    for f in frames:
        g.detect(f)
    ran = [i for i, f in enumerate(frames) if saw(det, f)]
    # 0 first, 1-2 settling; 3 the hand; 4 the table without the hand (motion), 5-7 settling; 8-11 skipped
    assert ran == [0, 1, 2, 3, 4, 5, 6, 7]


def test_skipped_frames_get_the_cached_detections_unchanged():
    rng = np.random.default_rng(5)
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=1, max_age=0), keep=1)
    outs = [g.detect(scene(rng=rng)) for _ in range(6)]
    assert det.calls == 2
    last = det.results[-1]
    for out in outs[2:]:
        assert out == last and all(a is b for a, b in zip(out, last, strict=True))
    outs[2].clear()  # a caller changing the list it got does not change what the next frames get
    assert g.detect(scene(rng=rng)) == last

    # default: the looks at the still picture are handed out in turn (the stabiliser's votes see all of them)
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=2, max_age=0))
    g.detect(scene(hand=(160, 90), rng=rng))  # look 1: another picture, not kept once the hand is gone
    outs = [g.detect(scene(rng=rng)) for _ in range(9)]
    assert det.calls == 4
    looks = det.results[1:]
    assert outs[:3] == looks
    for k, out in enumerate(outs[3:]):
        assert all(a is b for a, b in zip(out, looks[k % 3], strict=True))


def test_bad_frames_raise_a_clear_value_error():
    det = FakeDetector()
    g = GatedDetector(det)
    bad = [None, [[1, 2], [3, 4]], np.zeros((10,), np.uint8), np.zeros((4, 10, 10, 3), np.uint8),
           np.zeros((20, 30, 2), np.uint8), np.zeros((0, 30, 3), np.uint8), np.zeros((20, 30, 3), np.float32)]
    for frame in bad:
        with pytest.raises(ValueError, match="motion gate"):
            g.detect(frame)
    assert det.calls == 0 and g.frames == 0
    for img in (np.zeros((20, 30), np.uint8), np.zeros((20, 30, 1), np.uint8), np.zeros((20, 30, 4), np.uint8)):
        GatedDetector(FakeDetector()).detect(img)  # grey and BGRA frames are fine, as small as they come
    for kw in ({"size": 4}, {"blur": 4}, {"threshold": 300}, {"area": 1.5}, {"settle": 0}, {"max_age": -1}):
        with pytest.raises(ValueError):
            MotionConfig(**kw)
    with pytest.raises(TypeError):
        GatedDetector(object())


def test_a_new_frame_size_and_a_failing_detector_look_again():
    rng = np.random.default_rng(6)
    det = FakeDetector()
    g = GatedDetector(det, MotionConfig(settle=1, max_age=0))
    for _ in range(4):
        g.detect(scene(rng=rng))
    assert det.calls == 2
    g.detect(cv2.resize(scene(rng=rng), (W // 2, H // 2)))
    assert det.calls == 3 and g.gate.reason == "first"

    class Flaky(FakeDetector):
        def detect(self, frame):
            out = super().detect(frame)
            if self.calls in (2, 4):
                raise RuntimeError("inference failed")
            return out

    det = Flaky()
    g = GatedDetector(det, MotionConfig(settle=1, max_age=0))
    g.detect(scene(rng=rng))
    with pytest.raises(RuntimeError):
        g.detect(scene(rng=rng))  # the settling look fails
    f = scene(rng=rng)
    g.detect(f)  # so the next still frame is looked at instead
    assert saw(det, f) and det.calls == 3 and g.detections == 2
    with pytest.raises(RuntimeError):
        g.detect(scene(hand=(160, 90), rng=rng))
    g.detect(scene(hand=(160, 90), rng=rng))  # the failed look is taken again
    assert det.calls == 5 and g.detections == 3


def test_table_tracker_gates_its_detector_by_default():
    from referee import Match
    from vision.layout import Layout
    from vision.pipeline import TableTracker
    from vision.synth.recording import layout_dict

    players = ["Ana", "Ben", "Cleo"]
    rng = np.random.default_rng(8)
    frames = [scene(rng=rng) for _ in range(30)]

    def tracker(**kw):
        det = FakeDetector()
        t = TableTracker(Layout.from_dict(layout_dict(players, 0.15)),
                         Match({"type": "match", "rules": "basic", "players": players}), "Ana", det, fps=10, **kw)
        for f in frames:
            t.process(f)
        return t, det

    t, det = tracker()
    # the settling looks fill the stabiliser's vote window (8 frames at 10 frames/s), a refresh every 2 s
    assert t.gated is not None and t.gated.config.settle == 7 and t.gated.config.max_age == 20
    assert det.calls == 1 + 7 + 1  # frames 0 (first), 1-7 (settling), 27 (refresh)
    assert t.frames == 30 and t.last_detections[0].card.startswith("call")
    t.retune(5.0)
    assert t.gated.config.max_age == 10 and t.gated.config.settle == t.stability.vote_window - 1 == 5
    t, det = tracker(motion_gate=False)
    assert t.gated is None and det.calls == 30
    t, det = tracker(motion_gate=MotionConfig(settle=1, max_age=0))
    assert det.calls == 2
    t.retune(5.0)
    assert t.gated.config.max_age == 0  # a configuration given is kept
