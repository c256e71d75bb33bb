"""Pipeline throughput at 1280×720 and the delay from a card coming to rest to its event being applied.

    .venv/bin/python benchmarks/pipeline.py [--detector model|oracle] [--fps 10] [--seed 3] [--no-motion-gate]

A scripted hand of basic Rummy is rendered at 1280×720 as a 10 frames/s recording (vision.synth.recording: hands
over the table, a few blurred frames), then fed frame by frame to `TableTracker` (detector -> stabiliser ->
snapshot -> observer -> referee), as the live pipeline does. Rendering is excluded from the timings.

Prints the machine, then:
- throughput: frames processed per second, split into the detector and the rest of the pipeline;
- delay: for each visible move (deal, meld, lay-off, discard, reveal), the frames between the first still
  frame showing it and the frame whose processing applied its event; in seconds at the camera rate, plus the
  processing time of one frame (the event is applied when that frame's processing ends).
`--detector oracle` replaces the model by the renderer's ground truth with noise (the pipeline's own cost).
The detector runs behind `TableTracker`'s default motion gate (vision/motion.py); `--no-motion-gate` runs it
on every frame, as the figures in docs/PIPELINE.md measured before the gate existed did.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import cpu_model  # noqa: E402


class Timed:
    def __init__(self, inner):
        self.inner = inner
        self.times: list[float] = []
        self.truth = None

    def detect(self, img):
        if self.truth is not None:
            self.inner.truth = self.truth
        t0 = time.perf_counter()
        out = self.inner.detect(img)
        self.times.append(time.perf_counter() - t0)
        return out


def main(argv=None) -> int:
    import numpy as np

    from referee import Match
    from vision.evaluation import norm_event
    from vision.layout import Layout
    from vision.oracle import OracleDetector
    from vision.pipeline import TableTracker
    from vision.synth.recording import RecordingSpec, frames_of, layout_dict
    from vision.synth.scripted_hands import script_hand

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--detector", choices=["model", "oracle"], default="model")
    ap.add_argument("--fps", type=float, default=10.0, help="camera frame rate of the rendered recording")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--deck", default="proc-classic")
    ap.add_argument("--no-motion-gate", action="store_true", help="run the detector on every frame")
    a = ap.parse_args(argv)

    print(f"machine: {cpu_model()}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}")
    players = ["Ana", "Ben", "Cleo"]
    script = None
    k = a.seed
    while script is None:
        script = script_hand(np.random.default_rng(k), players, "Ana")
        k += 1
    spec = RecordingSpec(width=1280, height=720, fps=a.fps, deck=a.deck, hold=round(1.2 * a.fps),
                         hand_frames=round(0.4 * a.fps))
    marks: list = []
    t0 = time.perf_counter()
    frames = list(frames_of(script, spec, np.random.default_rng(a.seed), marks))
    print(f"recording: {len(frames)} frames 1280x720 at {a.fps:g} fps, {len(script.events)} scripted events "
          f"(rendered in {time.perf_counter() - t0:.1f}s, not counted)")

    if a.detector == "model":
        from vision.detector import Detector

        det = Timed(Detector())
        det.detect(frames[0][0])  # warm-up
        det.times.clear()
    else:
        det = Timed(OracleDetector(np.random.default_rng(0)))
    layout = Layout.from_dict(layout_dict(players, spec.card_height))
    tracker = TableTracker(layout, Match(script.match), "Ana", det, fps=a.fps, auto_confirm=True,
                           motion_gate=not a.no_motion_gate)
    applied_at: dict[str, int] = {}
    per_frame: list[float] = []
    for i, (img, truth) in enumerate(frames):
        det.truth = truth if a.detector == "oracle" else None
        t = time.perf_counter()
        outs = tracker.process(img)
        per_frame.append(time.perf_counter() - t)
        for o in outs:
            if o["ok"]:
                applied_at.setdefault(norm_event(o["event"]), i)

    total = sum(per_frame)
    det_total = sum(det.times)
    fps = len(per_frame) / total
    print(f"throughput: {fps:.1f} frames/s processed (detector {len(det.times) / det_total:.1f} frames/s alone; "
          f"the rest of the pipeline {1000 * (total - det_total) / len(per_frame):.2f} ms/frame); "
          f"per frame p50 {1000 * statistics.median(per_frame):.0f} ms, "
          f"p95 {1000 * sorted(per_frame)[int(0.95 * len(per_frame))]:.0f} ms")

    expected = script.expected_events()
    delays = []
    slow: list = []
    missed = 0
    for n, si in marks:
        ev = expected[si]
        if ev["type"] == "draw":
            continue  # invisible: inferred at the player's next move
        key = norm_event(ev)
        if key not in applied_at:
            missed += 1
            continue
        delays.append(applied_at[key] - n)
        slow.append((applied_at[key] - n, ev["type"]))
    frame_s = statistics.median(per_frame)
    if delays:
        med = statistics.median(delays)
        worst = max(delays)
        print(f"delay, card at rest -> event applied: median {med:.0f} frames = {med / a.fps + frame_s:.2f} s, "
              f"max {worst} frames = {worst / a.fps + frame_s:.2f} s at {a.fps:g} fps "
              f"({len(delays)} visible moves, {missed} not applied)")
        by_type: dict = {}
        for dl, t in slow:
            by_type.setdefault(t, []).append(dl)
        print("  by move (frames): " + ", ".join(f"{t} median {statistics.median(v):g} max {max(v)}"
                                                  for t, v in sorted(by_type.items())))
    print(json.dumps({"detector": a.detector, "fps_processed": round(fps, 2), "frames": len(per_frame),
                      "delay_frames_median": statistics.median(delays) if delays else None,
                      "delay_frames_max": max(delays) if delays else None, "camera_fps": a.fps,
                      "delay_s_median": round(statistics.median(delays) / a.fps + frame_s, 3) if delays else None,
                      "delay_s_max": round(max(delays) / a.fps + frame_s, 3) if delays else None}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
