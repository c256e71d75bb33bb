"""Write rendered table scenes as a YOLO dataset (images/<split>, labels/<split>).

    python -m vision.synth.dataset --out runs/data/synth --train 3000 --val 100 --size 416 \
        --exclude-deck kde-nicu-white --exclude-surface marble

Class indices follow shared/data/real/classes.txt (55 classes).  `--only-deck` /
`--only-surface` make a held-out set in a design and surface that training never saw.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from ..types import CORNER_CLASSES
from .decks import list_decks, load_deck
from .layouts import random_table
from .scene import render
from .surfaces import list_surfaces, make_surface

CLASS_NAMES = list(CORNER_CLASSES)
CLASS_INDEX = {n: i for i, n in enumerate(CLASS_NAMES)}


def usable_decks(names: list[str]) -> list[str]:
    ok = []
    for n in names:
        try:
            load_deck(n)
            ok.append(n)
        except (KeyError, OSError):
            pass
    return ok


def render_scene(rng: np.random.Generator, size: int, decks: list[str], surfaces: list[str], faults: float = 0.0):
    """One rendered table (size×size) and its corner labels.  `faults` > 0 adds, each with that
    probability, what real photo pipelines do to a frame and the base renderer does not: an
    anamorphic squash (a 16:9 webcam frame stored as a square, or strong foreshortening: one
    axis at 55-90 % of the other), and salt-and-pepper pixels (dead/hot pixels, dataset noise).
    With faults=0 the random stream is the original one (old data sets stay reproducible)."""
    squash = 1.0
    if faults > 0 and rng.random() < faults:
        squash = float(rng.uniform(0.55, 0.9))
    horizontal = faults > 0 and rng.random() < 0.7
    rw, rh = (int(round(size / squash)), size) if horizontal else (size, int(round(size / squash)))
    surface = surfaces[rng.integers(len(surfaces))]
    bg = make_surface(surface, rw, rh, rng)
    n_deck = 1 if rng.random() < 0.6 else 2
    chosen = list(rng.choice(decks, size=min(n_deck, len(decks)), replace=False))
    placements = random_table(rng, rw, rh, chosen)
    hands = int(rng.choice([0, 0, 1, 1, 2]))
    seen: set[str] = set()
    img, labels = render(placements, bg, rng, hands=hands, perspective=rng.uniform(0, 0.08), seen=seen)
    if (rw, rh) != (size, size):
        sx, sy = size / rw, size / rh
        img = cv2.resize(img, (size, size), interpolation=cv2.INTER_AREA)
        labels = [replace(lab, box=(lab.box[0] * sx, lab.box[1] * sy, lab.box[2] * sx, lab.box[3] * sy)) for lab in labels]
    if faults > 0 and rng.random() < faults:
        mask = rng.random(img.shape[:2]) < rng.uniform(0.002, 0.02)
        img[mask] = rng.choice([0, 255], size=(int(mask.sum()), 1)).astype(np.uint8)
    return img, labels, {"surface": surface, "decks": chosen, "squash": round(squash, 3), "seen": sorted(seen)}


def write_yolo_dataset(out: Path, n: int, split: str, size: int, decks: list[str], surfaces: list[str],
                       seed: int, faults: float = 0.0) -> dict:
    rng = np.random.default_rng(seed)
    (out / "images" / split).mkdir(parents=True, exist_ok=True)
    (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    meta = {}
    for k in range(n):
        img, labels, info = render_scene(rng, size, decks, surfaces, faults)
        stem = f"synth_{split}_{seed}_{k:05d}"
        cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        rows = []
        for lab in labels:
            x1, y1, x2, y2 = lab.box
            rows.append(f"{CLASS_INDEX[lab.class_name]} {(x1 + x2) / 2 / size:.6f} {(y1 + y2) / 2 / size:.6f} "
                        f"{(x2 - x1) / size:.6f} {(y2 - y1) / size:.6f}\n")
        (out / "labels" / split / f"{stem}.txt").write_text("".join(rows))
        # the face-up cards with any index part showing: reading one of them is not a false card
        (out / "present" / split).mkdir(parents=True, exist_ok=True)
        (out / "present" / split / f"{stem}.txt").write_text("".join(f"{c}\n" for c in info.pop("seen")))
        meta[stem] = info
    return meta


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--train", type=int, default=0)
    ap.add_argument("--val", type=int, default=0)
    ap.add_argument("--size", type=int, default=416)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exclude-deck", action="append", default=[])
    ap.add_argument("--exclude-surface", action="append", default=[])
    ap.add_argument("--only-deck", action="append", default=[])
    ap.add_argument("--only-surface", action="append", default=[])
    ap.add_argument("--no-svg", action="store_true", help="procedural decks only")
    ap.add_argument("--font-decks", action="store_true",
                    help="also the decks printed in the machine's TrueType fonts (vision/synth/decks.py, FONT_DESIGNS)")
    ap.add_argument("--faults", type=float, default=0.0,
                    help="probability of each camera fault (anamorphic squash, salt-and-pepper pixels)")
    args = ap.parse_args(argv)
    decks = args.only_deck or [d for d in list_decks(include_svg=not args.no_svg, include_fonts=args.font_decks)
                                if d not in args.exclude_deck]
    decks = usable_decks(decks)
    surfaces = args.only_surface or [s for s in list_surfaces() if s not in args.exclude_surface]
    if not decks:
        raise SystemExit("no usable deck")
    out = Path(args.out)
    meta = {}
    if args.train:
        meta.update(write_yolo_dataset(out, args.train, "train", args.size, decks, surfaces, args.seed, args.faults))
    if args.val:
        meta.update(write_yolo_dataset(out, args.val, "val", args.size, decks, surfaces, args.seed + 1, args.faults))
    out.mkdir(parents=True, exist_ok=True)
    (out / "meta.json").write_text(json.dumps({"decks": decks, "surfaces": surfaces, "images": meta}, indent=0))
    print(f"wrote {args.train} train + {args.val} val images to {out} with decks {decks} on {surfaces}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
