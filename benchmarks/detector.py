"""Detector latency per 1280×720 frame, torch (ultralytics) and ONNX Runtime side by side.

    .venv/bin/python benchmarks/detector.py [--frames 40] [--warmup 5] [--imgsz 640] [--threads N]
    .venv/bin/python benchmarks/detector.py --config old=models/cards-yolo.onnx,models/cards-cls.onnx,480 \
        --config new=runs/new.onnx,runs/cls.onnx,416        # any configurations, ONNX or torch, side by side
    .venv/bin/python benchmarks/detector.py --deck DECK     # the shipped detector without and with a taught deck
    .venv/bin/python benchmarks/detector.py --backend onnx  # the product's backend alone (the speed goal's figure)
    .venv/bin/python benchmarks/detector.py --suit-judge J.onnx   # the ONNX detector without and with a suit judge
    .venv/bin/python benchmarks/detector.py --backend onnx --spinning   # as the sessions were built until 2026-12-07

Model load is excluded; each backend runs the same frames (synthetic table scenes rendered
with vision.synth at 1280×720, procedural decks only; with --deck, in that deck's own cards) through `Detector.detect` (inference +
corner classifier when shipped, corner merging), alternating
backends frame by frame so that a varying load on a shared machine hits both alike.  Prints the machine (CPU model, cores), p50/p95/mean per backend and which
backend is faster.
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


def taught_deck_design(deck: str) -> str:
    """Register a taught deck's own faces (its profile's faces/, the cards cut out of its photos) as a design the
    renderer can draw, with a procedural back as enrolment uses; returns the design's name."""
    import cv2

    from vision.enrol.profile import load_profile
    from vision.synth.decks import Deck, load_deck, register_deck

    profile = load_profile(deck)
    faces = {k: cv2.imread(str(p), cv2.IMREAD_UNCHANGED) for k, p in profile.faces().items()}
    faces = {k: f for k, f in faces.items() if f is not None and f.ndim == 3 and f.shape[2] == 4}
    if len(faces) < 52:
        raise SystemExit(f"deck {deck}: {len(faces)} readable faces in {profile.path / 'faces'} (52 needed)")
    h, w = next(iter(faces.values())).shape[:2]
    faces["BACK"] = cv2.resize(load_deck("proc-classic")["BACK"], (w, h), interpolation=cv2.INTER_AREA)
    name = f"taught-{profile.name}"
    register_deck(Deck(name, faces, {k: [] for k in faces}, licence="the table's own cards (its enrolment photos)"))
    return name


def frames(n: int, seed: int = 0, decks: list[str] | None = None):
    import numpy as np

    from vision.synth.layouts import random_table
    from vision.synth.scene import render
    from vision.synth.surfaces import list_surfaces, make_surface

    rng = np.random.default_rng(seed)
    decks = decks or ["proc-classic", "proc-duplex", "proc-jumbo"]
    out = []
    for k in range(n):
        bg = make_surface(list_surfaces()[k % 5], 1280, 720, rng)
        img, _ = render(random_table(rng, 1280, 720, decks, card_height=rng.uniform(110, 180)), bg, rng)
        out.append(img)
    return out


def bench(backends: list[str], imgs, warmup: int, imgsz: int | None, weights: dict,
          configs: dict | None = None) -> list[dict]:
    """Time the backends (or the named `configs`: label → Detector keyword arguments) on the same
    frames, alternating frame by frame (fair under a varying load)."""
    from vision.detector import Detector

    configs = configs or {b: {"weights": weights.get(b), "backend": b, "imgsz": imgsz} for b in backends}
    backends = list(configs)
    dets, loads = {}, {}
    for b, kw in configs.items():
        t0 = time.perf_counter()
        dets[b] = Detector(**kw)
        loads[b] = time.perf_counter() - t0
    for img in imgs[:warmup]:
        for b in backends:
            dets[b].detect(img)
    times: dict[str, list[float]] = {b: [] for b in backends}
    for k, img in enumerate(imgs):
        order = backends if k % 2 == 0 else backends[::-1]
        for b in order:
            t = time.perf_counter()
            dets[b].detect(img)
            times[b].append((time.perf_counter() - t) * 1000)
    out = []
    for b in backends:
        ts = sorted(times[b])
        det = dets[b]
        out.append({"backend": b, "engine": det.backend, "weights": str(det.weights), "classifier": det.classifier is not None,
                    "imgsz": det.imgsz, "load_s": round(loads[b], 2), "p50_ms": round(statistics.median(ts), 1),
                    "p95_ms": round(ts[int(0.95 * (len(ts) - 1))], 1), "mean_ms": round(statistics.fmean(ts), 1),
                    "fps_p50": round(1000 / statistics.median(ts), 1)})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--imgsz", type=int, default=None)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's choice)")
    ap.add_argument("--pt", default=None, help="torch weights (default: shipped)")
    ap.add_argument("--onnx", default=None, help="onnx weights (default: shipped)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--config", action="append", default=[],
                    help="LABEL=YOLO_WEIGHTS,CLASSIFIER[,IMGSZ]: time these instead of the two shipped backends")
    ap.add_argument("--deck", default=None,
                    help="a taught deck (rummy-referee enrol): time the shipped ONNX detector without and with it")
    ap.add_argument("--suit-judge", default=None,
                    help="a black-suit judge (vision/suit_judge.py): time the ONNX detector without and with it")
    ap.add_argument("--frames-deck", choices=["taught", "procedural"], default="taught",
                    help="with --deck: draw the frames in the taught deck's own cards (the table it is taught for; "
                         "default) or in the procedural decks")
    ap.add_argument("--backend", choices=["both", "onnx", "torch"], default="both",
                    help="time the shipped detector's ONNX backend (the product's) or torch backend alone, in this "
                         "process: beside torch, torch's idle OpenMP workers take some of the cores from ONNX Runtime "
                         "(default: both, side by side)")
    ap.add_argument("--spinning", action="store_true",
                    help="build the ONNX sessions with workers that spin after each run (ONNX Runtime's default, "
                         "the detector's sessions until 2026-12-07; vision/onnx_session.py)")
    args = ap.parse_args(argv)
    if args.spinning:
        import vision.onnx_session

        vision.onnx_session.SPINNING = "1"
    configs = {}
    if args.deck:
        configs = {"general": {"backend": "onnx"}, "with --deck": {"backend": "onnx", "deck": args.deck}}
    if args.suit_judge:
        configs = {"no judge": {"backend": "onnx", "suit_judge": None},
                   "with --suit-judge": {"backend": "onnx", "suit_judge": args.suit_judge}}
    for text in args.config:
        label, _, rest = text.partition("=")
        parts = rest.split(",")
        configs[label] = {"weights": parts[0], "backend": "onnx" if parts[0].endswith(".onnx") else "torch",
                          "classifier": parts[1] if len(parts) > 1 and parts[1] else None,
                          "imgsz": int(parts[2]) if len(parts) > 2 and parts[2] else args.imgsz}
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    machine = {"cpu": cpu_model(), "cores": os.cpu_count(), "torch_threads": torch.get_num_threads(),
               "python": platform.python_version(), "torch": torch.__version__}
    try:
        import onnxruntime

        machine["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        pass
    design = taught_deck_design(args.deck) if args.deck and args.frames_deck == "taught" else None
    imgs = frames(args.frames, decks=[design] if design else None)
    backends = ["torch", "onnx"] if args.backend == "both" else [args.backend]
    results = bench(backends, imgs, args.warmup, args.imgsz, {"torch": args.pt, "onnx": args.onnx},
                    configs or None)
    fastest = min(results, key=lambda r: r["p50_ms"])["backend"]
    machine["onnx_spinning"] = bool(args.spinning)
    report = {"machine": machine, "frame": "1280x720", "frames": len(imgs), "frames_deck": design or "procedural",
              "results": results, "fastest": fastest}
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"machine: {machine['cpu']}, {machine['cores']} cores, torch threads {machine['torch_threads']}, "
              f"ONNX Runtime workers {'spinning' if args.spinning else 'not spinning'}")
        print(f"frames: {len(imgs)} x 1280x720 in {design or 'the procedural decks'} (model load excluded); "
              f"load average at the end "
              f"{os.getloadavg()[0]:.2f}")
        for r in results:
            print(f"  {r['backend']:>5} ({r['engine']}): p50 {r['p50_ms']:7.1f} ms  p95 {r['p95_ms']:7.1f} ms  mean {r['mean_ms']:7.1f} ms"
                  f"  ({r['fps_p50']} fps)  imgsz {r['imgsz']}  load {r['load_s']} s  {r['weights']}")
        print(f"fastest: {fastest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
