"""The motion gate (vision/motion.py) with the shipped detector: how many detector runs it saves, at what cost.

    .venv/bin/python benchmarks/motion_gate.py [--frames 200] [--every 20] [--fps 10] [--seed 0] [--no-demo]
                                               [--tracking HANDS]

At 1280x720, with `vision.detector.Detector()`, a table scene is rendered once (vision.synth, 16 cards of
`proc-classic` on felt) and played as a camera: every frame gets its own sensor noise (Gaussian, sigma 2 grey
levels) and goes through a JPEG round trip (quality 80), as a camera stream does. Two recordings:

(a) static: the same table for `--frames` frames;
(b) changing: every `--every` frames something happens, in turn: a card moves with no hand in view (the
    picture jumps between two frames), a hand reaches in for 3 frames and moves a card, a hand passes over
    the table for 3 frames and changes nothing.

Each frame goes through the gated detector (`GatedDetector`, `MotionConfig.for_fps(--fps)`: the refresh every
2 s) and through the plain detector, in alternating order (a varying load hits both alike). Prints the
machine and the load average, then per recording: detector runs / frames (by reason), mean and p50 time per
frame gated vs ungated, the gate's own cost per frame, whether the gated output on each frame is one the
detector gives on that picture (on still frames: how often its card names equal the ungated call's on the
same frame, next to how often two ungated calls on consecutive frames of the same still table agree: the
model's own flicker under sensor noise), and for (b) whether every table state was looked at once still.
Rendering, noise and JPEG are not timed.

(c) the bundled demo recording (vision/data/demo, 960x540, 172 JPEG frames at 5 frames/s: a whole scripted
    hand, hands over the table) tracked by `TableTracker` with the gate (default settings, and with only 3
    settling looks) and without: detector runs, time per frame, events inferred and matched with the
    scripted log. `--no-demo` skips it.

(d) `--tracking HANDS` (extra, a few minutes): HANDS scripted hands rendered as in `vision.synth.recording
    evaluate` (1280x720, 5 frames/s, hands over the table, blurred frames) but with each table state held
    `--hold` frames (default 15, 3 s, so that the gate has still frames to skip), tracked with the
    renderer's ground truth plus detector-like noise (the oracle; default and harsh noise): ungated, gated
    (the defaults: the looks at a still picture handed out in turn), gated with only 3 settling looks, and
    gated repeating only the last look (`keep=1`): events matched with the scripted logs, detector runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import machine  # noqa: E402

W, H = 1280, 720


def load() -> str:
    try:
        return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())
    except OSError:
        return "load average unknown"


def table(seed: int):
    """A rendered table: (background, placements), 16 cards face up in four rows, card height 108 px (15 %)."""
    import numpy as np

    from vision.synth.scene import Placement
    from vision.synth.surfaces import make_surface

    rng = np.random.default_rng(seed)
    bg = make_surface("felt", W, H, rng)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    cards = [r + s for s in "SHDC" for r in ranks]
    pick = rng.choice(len(cards), 16, replace=False)
    pl = []
    for k, ci in enumerate(pick):
        x = 200 + (k % 8) * 120 + rng.uniform(-10, 10)
        y = 150 + (k // 8) * 170 + rng.uniform(-10, 10)
        pl.append(Placement(cards[ci], "proc-classic", (x, y), float(rng.uniform(-8, 8)), 108.0))
    return bg, pl


def camera(img, rng, sigma: float = 2.0, quality: int = 80):
    """Sensor noise and a JPEG round trip: every frame of a still table has other bytes."""
    import cv2
    import numpy as np

    out = np.clip(img.astype(np.float32) + rng.normal(0, sigma, img.shape).astype(np.float32), 0, 255)
    ok, buf = cv2.imencode(".jpg", out.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality])
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


def static_frames(n: int, seed: int):
    import numpy as np

    from vision.synth.scene import render

    bg, pl = table(seed)
    rng = np.random.default_rng(seed + 1)
    img, _ = render(pl, bg, rng, effects=False)
    for _ in range(n):
        yield camera(img, rng), ("still", 0)


def changing_frames(n: int, every: int, seed: int):
    """Yields (frame, (kind, state)): kind "still" or "hand"; state numbers the table's content."""
    import numpy as np

    from vision.synth.scene import render

    bg, pl = table(seed)
    rng = np.random.default_rng(seed + 2)
    state = 0
    img, _ = render(pl, bg, rng, effects=False)
    hand_imgs: list = []
    k = 0
    event = 0
    while k < n:
        if k and k % every == 0:
            kind = event % 3  # 0: a card moves, no hand; 1: a hand moves a card; 2: a hand passes over
            event += 1
            if kind in (0, 1):
                i = int(rng.integers(len(pl)))
                x, y = pl[i].center_xy
                pl[i] = dataclasses.replace(pl[i], center_xy=(float(np.clip(x + rng.uniform(-150, 150), 80, W - 80)),
                                                               float(np.clip(y + rng.uniform(60, 160), 80, H - 80))))
            if kind in (1, 2):
                hand_imgs = [render(pl, bg, rng, effects=False, hands=1)[0] for _ in range(3)]
            if kind in (0, 1):
                state += 1
                img, _ = render(pl, bg, rng, effects=False)
        if hand_imgs:
            yield camera(hand_imgs.pop(0), rng), ("hand", state)
        else:
            yield camera(img, rng), ("still", state)
        k += 1


def ms(xs) -> str:
    return f"mean {1000 * statistics.fmean(xs):5.1f} ms, p50 {1000 * statistics.median(xs):5.1f} ms"


def compare(name: str, frames, det, cfg) -> dict:
    from vision.motion import GatedDetector

    gated = GatedDetector(det, cfg)
    t_gate: list[float] = []
    check = gated.gate.check

    def timed_check(frame):
        t = time.perf_counter()
        try:
            return check(frame)
        finally:
            t_gate.append(time.perf_counter() - t)

    gated.gate.check = timed_check
    t_gated, t_plain = [], []
    runs = [("gated", gated.detect, t_gated), ("plain", det.detect, t_plain)]
    same = flicker = pairs = 0
    prev = None
    n = 0
    looked: dict[int, bool] = {}
    for img, (kind, state) in frames:
        out = {}
        for key, fn, times in (runs if n % 2 else runs[::-1]):  # alternate which goes first
            t0 = time.perf_counter()
            out[key] = fn(img)
            times.append(time.perf_counter() - t0)
        a, b = out["gated"], out["plain"]
        names = sorted(d.card for d in b)
        if kind == "still" and prev is not None and prev[0] == (kind, state):
            pairs += 1
            same += sorted(d.card for d in a) == names
            flicker += prev[1] == names
        prev = ((kind, state), names)
        if kind == "still":
            looked[state] = looked.get(state, False) or gated.ran
        n += 1
    st = gated.stats()
    reasons = ", ".join(f"{k} {v}" for k, v in st["reasons"].items() if v)
    print(f"({name}) {n} frames {W}x{H}: detector runs {st['detections']} / {n} = {st['detections'] / n:.1%} "
          f"({reasons}); skipped {st['skipped']}")
    print(f"    per frame, gated:   {ms(t_gated)}")
    print(f"    per frame, ungated: {ms(t_plain)}   -> gated / ungated mean {statistics.fmean(t_gated) / statistics.fmean(t_plain):.1%}")
    print(f"    the gate itself: {ms(t_gate)} per frame")
    print(f"    still frames whose card names equal those of the ungated call on that frame: gated output "
          f"{same} / {pairs}; the ungated call on the previous frame (the model's own flicker) {flicker} / {pairs}")
    if len(looked) > 1:
        print(f"    table states looked at once still: {sum(looked.values())} / {len(looked)}")
    return {"recording": name, "frames": n, "detections": st["detections"], "reasons": st["reasons"],
            "gated_mean_ms": round(1000 * statistics.fmean(t_gated), 2),
            "gated_p50_ms": round(1000 * statistics.median(t_gated), 2),
            "ungated_mean_ms": round(1000 * statistics.fmean(t_plain), 2),
            "ungated_p50_ms": round(1000 * statistics.median(t_plain), 2),
            "gate_mean_ms": round(1000 * statistics.fmean(t_gate), 3),
            "gate_p50_ms": round(1000 * statistics.median(t_gate), 3), "same_cards": [same, pairs], "flicker_same": [flicker, pairs],
            "states_looked": [sum(looked.values()), len(looked)]}


def demo(det) -> dict:
    from referee import Match
    from vision.capture import FolderSource, iter_frames
    from vision.demo import DEMO_DIR
    from vision.evaluation import compare_logs
    from vision.layout import Layout
    from vision.motion import MotionConfig
    from vision.pipeline import TableTracker
    from vision.tracking import load_match

    setup, dealer = load_match(DEMO_DIR / "match.json")
    frames = [f.image for f in iter_frames(FolderSource(DEMO_DIR / "frames"))]
    expected = (DEMO_DIR / "expected.jsonl").read_text(encoding="utf-8").splitlines()
    out = {}

    class Counting:
        def __init__(self):
            self.calls = 0

        def detect(self, img):
            self.calls += 1
            return det.detect(img)

    for label, gate in (("gated", True), ("gated, settle 3", MotionConfig.for_fps(5, settle=3)),
                        ("ungated", False)):
        counting = Counting()
        tr = TableTracker(Layout.load(DEMO_DIR / "layout.json"), Match(setup), dealer, counting, fps=5,
                          auto_confirm=True, motion_gate=gate)
        times = []
        for img in frames:
            t0 = time.perf_counter()
            tr.process(img)
            times.append(time.perf_counter() - t0)
        row = compare_logs([json.dumps(setup)] + [json.dumps(e) for e in tr.referee.events], expected)
        settle = f" (settle {tr.gated.config.settle})" if label == "gated" else ""
        print(f"    {label + settle:22s}: detector runs {counting.calls} / {len(frames)}, per frame {ms(times)}; "
              f"events inferred {row['inferred']}, matched {row['matched']} of {row['expected']} scripted")
        out[label] = {"detections": counting.calls, "frames": len(frames),
                      "mean_ms": round(1000 * statistics.fmean(times), 2),
                      "p50_ms": round(1000 * statistics.median(times), 2), **row}
    return out


def tracking(hands: int, seed: int = 0, hold: int = 15) -> dict:
    """Oracle tracking, ungated vs gated vs gated repeating the last look (see the module's docstring)."""
    import numpy as np

    from referee import Match
    from vision.evaluation import compare_logs
    from vision.layout import Layout
    from vision.motion import GatedDetector, MotionConfig
    from vision.oracle import OracleDetector
    from vision.pipeline import TableTracker
    from vision.synth.recording import RecordingSpec, frames_of, layout_dict
    from vision.synth.scripted_hands import scripted_hands

    surfaces = ["felt", "wood", "cloth", "plain", "marble", "noise"]
    noises = (("default noise", {}), ("harsh noise", {"dropout": 0.15, "misread": 0.05, "jitter_px": 4.0}))
    modes = ("ungated", "gated", "gated, settle 3", "gated, last look only")
    tot = {(n, m): {"matched": 0, "inferred": 0, "expected": 0, "exact": 0, "runs": 0} for n, _ in noises
           for m in modes}
    nframes = 0
    t_track = 0.0
    t0 = time.perf_counter()
    for i, players, dealer, script in scripted_hands(hands, seed):
        spec = RecordingSpec(width=W, height=H, deck="kde-nicu-white", surface=surfaces[i % len(surfaces)],
                             hold=hold)
        runs = []  # every variant sees the same frames, one frame at a time (no recording held in memory)
        for noise_name, noise in noises:
            for mode in modes:
                oracle = OracleDetector(np.random.default_rng(1000 + i), **noise)
                det = oracle
                if mode != "ungated":
                    cfg = MotionConfig.for_fps(spec.fps, **({"settle": 3} if "settle 3" in mode else {}))
                    det = GatedDetector(oracle, cfg, keep=1 if "last" in mode else None)
                tr = TableTracker(Layout.from_dict(layout_dict(players, spec.card_height)), Match(script.match),
                                  dealer, det, fps=spec.fps, auto_confirm=True, motion_gate=False)
                runs.append(((noise_name, mode), oracle, det, tr))
        n = 0
        for img, truth in frames_of(script, spec, np.random.default_rng(seed * 7 + i)):
            t1 = time.perf_counter()
            for _, oracle, _, tr in runs:
                oracle.truth = truth
                tr.process(img)
            t_track += time.perf_counter() - t1
            n += 1
        nframes += n
        for key, _, det, tr in runs:
            row = compare_logs([json.dumps(script.match)] + [json.dumps(e) for e in tr.referee.events],
                               script.expected_log())
            for f in ("matched", "inferred", "expected"):
                tot[key][f] += row[f]
            tot[key]["exact"] += bool(row["same_result"])
            tot[key]["runs"] += det.detections if key[1] != "ungated" else n
    print(f"(d) oracle tracking: {hands} scripted hands, {nframes} frames {W}x{H} at 5 frames/s, each table held "
          f"{hold} frames (rendering and tracking {time.perf_counter() - t0:.0f} s, of which tracking "
          f"{t_track:.0f} s)")
    out = {}
    for (noise_name, mode), t in tot.items():
        print(f"    {noise_name:13s} {mode:22s}: matched {t['matched']} of {t['expected']} scripted events "
              f"({t['inferred']} inferred), exact replays {t['exact']} / {hands}, detector runs "
              f"{t['runs']} / {nframes}")
        out[f"{noise_name}, {mode}"] = t
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--frames", type=int, default=200)
    ap.add_argument("--every", type=int, default=20, help="(b): frames between two changes")
    ap.add_argument("--fps", type=float, default=10.0, help="processing rate the gate's refresh is set for")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-demo", action="store_true", help="skip (c), the demo recording")
    ap.add_argument("--tracking", type=int, default=0, metavar="HANDS", help="also (d), oracle tracking")
    ap.add_argument("--hold", type=int, default=15, help="(d): frames each table state stays still")
    a = ap.parse_args(argv)

    from vision.detector import Detector
    from vision.motion import MotionConfig

    print(f"machine: {machine()}")
    print(f"at start: {load()}")
    cfg = MotionConfig.for_fps(a.fps)
    print(f"gate: {cfg}")
    t0 = time.perf_counter()
    det = Detector()
    print(f"detector: {getattr(det, 'backend', '?')} {getattr(det, 'weights', '')} (loaded in "
          f"{time.perf_counter() - t0:.1f} s)")
    for img, _ in static_frames(3, a.seed):
        det.detect(img)  # warm-up
    res = {"machine": machine(), "gate": dataclasses.asdict(cfg)}
    res["static"] = compare("a, static", static_frames(a.frames, a.seed), det, cfg)
    res["changing"] = compare(f"b, a change every {a.every} frames", changing_frames(a.frames, a.every, a.seed),
                              det, cfg)
    if not a.no_demo:
        print("(c) the demo recording (960x540, 172 frames), TableTracker:")
        res["demo"] = demo(det)
    if a.tracking:
        res["tracking"] = tracking(a.tracking, a.seed, a.hold)
    print(f"at end: {load()}")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
