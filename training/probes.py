"""Rendered situation probes: small labelled sets, each stressing one situation, in the held-out
deck (kde-nicu-white, or a procedural deck where the Debian art is missing) that training never saw.

    python -m training.probes --out runs/data/probes --n 40

Writes <out>/<probe>/images/val and labels/val (YOLO format, 55 classes) for:

* `table-720p`  – a 1280×720 camera frame of an ordinary table (cards 130-250 px tall): what the
                  product sees, as opposed to the 640×640 dev photos;
* `far-720p`    – the same camera farther away: cards 85-120 px tall (indices about 15 px);
* `red-cloth`   – red felt, so red suits sit on red;
* `fanned`      – 1280×720, every meld and hand fanned tightly (only one index of most cards shows).

Used by training/analyze.py and training/compare.py (`--set`) to find where the detector fails
and to choose the input size; never used for training.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.synth.dataset import CLASS_INDEX, usable_decks
from vision.synth.layouts import random_table
from vision.synth.scene import Placement, render
from vision.synth.surfaces import felt, make_surface

HELD_OUT = ["kde-nicu-white"]
FALLBACK = ["proc-complex"]


def red_felt(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    img = felt(h, w, rng).astype(np.float32)
    grey = img.mean(2, keepdims=True) / max(1.0, float(img.mean()))
    red = np.array([35, 35, 150], np.float32) * rng.uniform(0.8, 1.2)
    return np.clip(grey * red, 0, 255).astype(np.uint8)


def tight_fans(placements: list[Placement], rng: np.random.Generator) -> list[Placement]:
    """Shift every card towards its predecessor so that only its index strip shows."""
    out: list[Placement] = []
    run, limit = 0, 4
    for p in placements:
        if out and p.face_up and out[-1].face_up and run < limit:
            run += 1
            q = out[-1]
            ang = np.deg2rad(q.angle_deg)  # counter-clockwise; image y points down
            step = p.card_height_px * rng.uniform(0.16, 0.22)
            center = (q.center_xy[0] + step * np.cos(ang), q.center_xy[1] - step * np.sin(ang))
            p = replace(p, center_xy=center, angle_deg=q.angle_deg + rng.normal(0, 4))
        else:
            run, limit = 0, int(rng.integers(2, 6))  # a new fan of 3-7 cards starts here
        out.append(p)
    return out


def scene(kind: str, rng: np.random.Generator, decks: list[str]):
    w, h = (1280, 720)
    if kind == "red-cloth":
        bg = red_felt(h, w, rng)
    else:
        bg = make_surface("marble", w, h, rng)
    ch = {"table-720p": rng.uniform(130, 250), "far-720p": rng.uniform(85, 120), "red-cloth": rng.uniform(130, 220),
          "fanned": rng.uniform(150, 250)}[kind]
    placements = random_table(rng, w, h, decks, card_height=ch)
    if kind == "fanned":
        placements = tight_fans(placements, rng)
    return render(placements, bg, rng, hands=int(rng.choice([0, 1])), perspective=rng.uniform(0, 0.06))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="runs/data/probes")
    ap.add_argument("--n", type=int, default=40)
    ap.add_argument("--seed", type=int, default=300)
    ap.add_argument("--probe", action="append", default=None, help="only these probes")
    args = ap.parse_args(argv)
    decks = usable_decks(HELD_OUT) or FALLBACK
    for k, kind in enumerate(args.probe or ["table-720p", "far-720p", "red-cloth", "fanned"]):
        rng = np.random.default_rng(args.seed + k)
        root = Path(args.out) / kind
        (root / "images" / "val").mkdir(parents=True, exist_ok=True)
        (root / "labels" / "val").mkdir(parents=True, exist_ok=True)
        for i in range(args.n):
            img, labels = scene(kind, rng, decks)
            H, W = img.shape[:2]
            stem = f"{kind}_{i:04d}"
            cv2.imwrite(str(root / "images" / "val" / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
            rows = [f"{CLASS_INDEX[lab.class_name]} {(lab.box[0] + lab.box[2]) / 2 / W:.6f} "
                    f"{(lab.box[1] + lab.box[3]) / 2 / H:.6f} {(lab.box[2] - lab.box[0]) / W:.6f} "
                    f"{(lab.box[3] - lab.box[1]) / H:.6f}\n" for lab in labels]
            (root / "labels" / "val" / f"{stem}.txt").write_text("".join(rows))
        print(f"{kind}: {args.n} images in {root} (decks {decks})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
