"""Turn the labelled real photos (shared/data/real/train) into YOLO training tiles.

For every training photo (640x640) this writes
  * the whole photo, which the trainer scales to its `imgsz`, and
  * one crop of `--tile` pixels at the photo's native resolution around a random labelled
    corner, so that small corner indices (as in multi-card table scenes) are seen at the size
    the detector meets them at inference (imgsz 640).
Labels of boxes cut by a crop are clipped; boxes with less than 60 % of their area inside
are dropped.  A few photos (every 8th multi-card scene) are kept apart as the `val` split
used for checkpoint selection.  `shared/data/real/dev/` is never read here.

    python -m training.prepare_real --src ../shared/data/real/train --out runs/data/real
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import cv2
import numpy as np


def read_labels(path: Path) -> np.ndarray:
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            parts = [float(v) for v in line.split()]
            if len(parts) == 5:
                rows.append(parts)
            elif len(parts) >= 7 and len(parts) % 2 == 1:  # a polygon (used for BACK): its bounding box
                xs, ys = parts[1::2], parts[2::2]
                x1, x2 = max(0.0, min(xs)), min(1.0, max(xs))
                y1, y2 = max(0.0, min(ys)), min(1.0, max(ys))
                rows.append([parts[0], (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1])
    return np.array(rows, dtype=np.float64).reshape(-1, 5)


def write_labels(path: Path, labels: np.ndarray) -> None:
    path.write_text("".join(f"{int(c)} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in labels))


def crop_labels(labels: np.ndarray, w: int, h: int, x0: int, y0: int, tile: int) -> np.ndarray:
    """Labels (normalised to w,h) → labels normalised to the tile at (x0, y0)."""
    out = []
    for c, cx, cy, bw, bh in labels:
        x1, y1 = (cx - bw / 2) * w, (cy - bh / 2) * h
        x2, y2 = (cx + bw / 2) * w, (cy + bh / 2) * h
        area = max(1e-6, (x2 - x1) * (y2 - y1))
        cx1, cy1 = max(x1, x0), max(y1, y0)
        cx2, cy2 = min(x2, x0 + tile), min(y2, y0 + tile)
        if cx2 <= cx1 or cy2 <= cy1:
            continue
        if (cx2 - cx1) * (cy2 - cy1) / area < 0.6:
            continue
        out.append([c, ((cx1 + cx2) / 2 - x0) / tile, ((cy1 + cy2) / 2 - y0) / tile,
                    (cx2 - cx1) / tile, (cy2 - cy1) / tile])
    return np.array(out, dtype=np.float64).reshape(-1, 5)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="../shared/data/real/train")
    ap.add_argument("--out", default="runs/data/real")
    ap.add_argument("--tile", type=int, default=320)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    src, out = Path(args.src), Path(args.out)
    if "dev" in src.parts:
        raise SystemExit("refusing to build training data from the dev split")
    rng = random.Random(args.seed)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    images = sorted((src / "images").glob("*.jpg"))
    multi = 0
    n = {"train": 0, "val": 0}
    for img_path in images:
        labels = read_labels(src / "labels" / (img_path.stem + ".txt"))
        split = "train"
        if len(labels) >= 3:
            multi += 1
            if multi % 8 == 0:
                split = "val"
        img = cv2.imread(str(img_path))
        if img is None:
            continue
        h, w = img.shape[:2]
        stem = img_path.stem[:60]
        cv2.imwrite(str(out / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        write_labels(out / "labels" / split / f"{stem}.txt", labels)
        n[split] += 1
        if split == "val" or len(labels) == 0 or min(h, w) <= args.tile:
            continue
        c, cx, cy, _, _ = labels[rng.randrange(len(labels))]
        px = int(cx * w + rng.uniform(-0.35, 0.35) * args.tile - args.tile / 2)
        py = int(cy * h + rng.uniform(-0.35, 0.35) * args.tile - args.tile / 2)
        x0 = min(max(0, px), w - args.tile)
        y0 = min(max(0, py), h - args.tile)
        tl = crop_labels(labels, w, h, x0, y0, args.tile)
        tile = img[y0:y0 + args.tile, x0:x0 + args.tile]
        cv2.imwrite(str(out / "images" / split / f"{stem}_t.jpg"), tile, [cv2.IMWRITE_JPEG_QUALITY, 92])
        write_labels(out / "labels" / split / f"{stem}_t.txt", tl)
        n[split] += 1
    print(f"wrote {n['train']} train and {n['val']} val images under {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
