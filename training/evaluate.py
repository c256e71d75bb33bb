"""Measure the detector on labelled photos: card-level precision/recall/F1 and corner mAP50.

    python -m training.evaluate --model models/cards-yolo.pt                # real dev photos
    python -m training.evaluate --model models/cards-yolo.pt --data runs/data/synth_heldout --split val

Card level: for each image the ground truth is the set of card identities labelled in its
label file (BACK ignored, both jokers = JK); the prediction is the set of cards the detector
reports (`Detector.detect`, BACK ignored).  A card is found when its identity is reported for
that image.  Precision/recall/F1 are micro-averaged over all images, and also given per
photo source (file-name prefix: IMG = phone photos, WIN = webcam photos).  Corner mAP50 is
ultralytics' validation of the .pt weights on the same images (55 classes).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from training.common import CLASS_NAMES, REAL, ROOT, offline_ultralytics


def truth(label_file: Path) -> set[str]:
    from vision.detector import canonical_card

    out = set()
    if label_file.exists():
        for line in label_file.read_text().splitlines():
            parts = line.split()
            if parts:
                card = canonical_card(CLASS_NAMES[int(float(parts[0]))])
                if card != "BACK":
                    out.add(card)
    return out


def prf(tp: int, fp: int, fn: int) -> dict:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4), "tp": tp, "fp": fp, "fn": fn}


def card_level(images: list[Path], labels_dir: Path, predict) -> dict:
    """Card-level counts per group.  Where the data set has `present/` beside `labels/` (rendered sets), a
    reported card that lies face up on the table with a corner index partly showing (under the labels'
    60 % visibility) is not counted as false: `precision`/`f1` use that, `strict` counts it as false too."""
    counts: dict[str, list[int]] = {}
    per_image = []
    present_dir = labels_dir.parent.parent / "present" / labels_dir.name
    if not present_dir.is_dir():
        present_dir = None
    for img_path in images:
        gt = truth(labels_dir / (img_path.stem + ".txt"))
        pred = predict(img_path)
        shown = set()
        if present_dir is not None and (present_dir / (img_path.stem + ".txt")).exists():
            shown = set((present_dir / (img_path.stem + ".txt")).read_text().split())
        tp, fp, fn = len(gt & pred), len(pred - gt - shown), len(gt - pred)
        fp_strict = len(pred - gt)
        group = img_path.name.split("_")[0] if img_path.name.split("_")[0] in ("IMG", "WIN") else "synthetic"
        for g in ("all", group):
            c = counts.setdefault(g, [0, 0, 0, 0])
            c[0] += tp
            c[1] += fp
            c[2] += fn
            c[3] += fp_strict
        per_image.append({"image": img_path.name, "missed": sorted(gt - pred), "extra": sorted(pred - gt - shown),
                          "partly_shown": sorted((pred - gt) & shown)})
    out = {}
    for g, (tp, fp, fn, fps) in counts.items():
        out[g] = prf(tp, fp, fn)
        if present_dir is not None:
            out[g]["strict"] = prf(tp, fps, fn)
    return {"by_group": out, "images": per_image}


def truth_boxes(label_file: Path, w: int, h: int) -> list[tuple[str, tuple]]:
    out = []
    if label_file.exists():
        for line in label_file.read_text().splitlines():
            p = [float(v) for v in line.split()]
            if len(p) == 5:
                c, x, y, bw, bh = p
            elif len(p) >= 7:
                xs, ys = p[1::2], p[2::2]
                c, x, y = p[0], (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
                bw, bh = max(xs) - min(xs), max(ys) - min(ys)
            else:
                continue
            out.append((CLASS_NAMES[int(c)], ((x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h)))
    return out


def iou(a, b) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    u = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / u if u > 0 else 0.0


def images_of(folder: Path, split: str | None = None) -> tuple[list[Path], Path]:
    """The images of a YOLO-format folder (images/[split], labels/[split]) and its labels folder."""
    img_dir = folder / "images" / split if split else folder / "images"
    lab_dir = folder / "labels" / split if split else folder / "labels"
    return sorted(p for p in img_dir.iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png")), lab_dir


def run_raw(det, images: list[Path]) -> tuple[dict, dict, float]:
    """The detector's corner list per image (name, score, box, per-class scores), the image sizes, and the
    seconds per image."""
    import cv2

    raw, sizes = {}, {}
    t0 = time.perf_counter()
    for p in images:
        img = cv2.imread(str(p))
        sizes[p] = (img.shape[1], img.shape[0])
        raw[p] = det.scored_corners(img)
    return raw, sizes, (time.perf_counter() - t0) / max(1, len(images))


def predictor(raw: dict, thr: float, pair_floor: float | None = None, decks: int | None = 1):
    """Card identities per image from its raw corners at threshold `thr` (as `Detector.detect`, with the
    one-deck rule for `decks`; None: without it).  With `pair_floor`, corners are kept from that
    probability and cards by their noisy-or pair confidence."""
    from vision.detector import decode_cards, merge_corners

    def full(c):
        return c if len(c) == 4 else (*c, None)

    def predict(p: Path) -> set[str]:
        if pair_floor is None:
            cards = decode_cards([full(c) for c in raw[p] if c[1] >= thr], thr, decks)
            return {c.card for c in cards if c.card != "BACK"}
        cards = merge_corners([c[:3] for c in raw[p] if c[1] >= min(thr, pair_floor)], combine="noisy_or")
        return {c.card for c in cards if c.card != "BACK" and c.confidence >= thr}
    return predict


def pipeline_map50(raw: dict, sizes: dict, labels_dir: Path) -> float:
    """Corner mAP50 of the detector's own corner list (YOLO boxes named by the classifier when
    used): all-point interpolated AP per class present in the ground truth, averaged."""
    gts: dict[str, dict] = {}
    dets: dict[str, list] = {}
    for p, corners in raw.items():
        w, h = sizes[p]
        for name, box in truth_boxes(labels_dir / (p.stem + ".txt"), w, h):
            gts.setdefault(name, {}).setdefault(p, []).append([box, False])
        for name, score, box, *_ in corners:
            dets.setdefault(name, []).append((score, p, box))
    aps = []
    for name, per_img in gts.items():
        n_gt = sum(len(v) for v in per_img.values())
        tp = []
        for _score, p, box in sorted(dets.get(name, []), key=lambda d: -d[0]):
            best, hit = 0.5, None
            for g in per_img.get(p, []):
                o = iou(box, g[0])
                if o >= best and not g[1]:
                    best, hit = o, g
            if hit is not None:
                hit[1] = True
            tp.append(1 if hit is not None else 0)
        if not tp:
            aps.append(0.0)
            continue
        import numpy as np

        ctp = np.cumsum(tp)
        rec = ctp / n_gt
        prec = ctp / np.arange(1, len(tp) + 1)
        mrec = np.concatenate([[0.0], rec, [1.0]])
        mpre = np.concatenate([[1.0], prec, [0.0]])
        mpre = np.flip(np.maximum.accumulate(np.flip(mpre)))
        idx = np.where(mrec[1:] != mrec[:-1])[0]
        aps.append(float(np.sum((mrec[idx + 1] - mrec[idx]) * mpre[idx + 1])))
    return round(sum(aps) / max(1, len(aps)), 4)


def corner_map50(model_path: Path, images_dir: Path, imgsz: int) -> dict:
    offline_ultralytics()
    import yaml
    from ultralytics import YOLO

    out = ROOT / "runs" / "eval"
    out.mkdir(parents=True, exist_ok=True)
    images_dir = images_dir.resolve()
    data = out / f"eval-{images_dir.parent.name}-{images_dir.name}.yaml"
    data.write_text(yaml.safe_dump({"path": str(images_dir.parent), "train": str(images_dir),
                                    "val": str(images_dir), "names": dict(enumerate(CLASS_NAMES))}))
    m = YOLO(str(model_path))
    r = m.val(data=str(data), imgsz=imgsz, batch=8, device="cpu", plots=False, verbose=False,
              project=str(out), name="val", exist_ok=True, workers=0)
    return {"map50": round(float(r.box.map50), 4), "map50_95": round(float(r.box.map), 4)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=str(ROOT / "models" / "cards-yolo.pt"))
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--data", default=str(REAL / "dev"), help="folder with images/ and labels/ (or a split)")
    ap.add_argument("--split", default=None, help="subfolder of images/ and labels/ (e.g. val)")
    ap.add_argument("--conf", type=float, default=None)
    ap.add_argument("--imgsz", type=int, default=None)
    ap.add_argument("--sweep", action="store_true", help="also report F1 for a range of thresholds")
    ap.add_argument("--classifier", default=None,
                    help="corner classifier weights (.onnx/.pt) to name the YOLO boxes; default: none")
    ap.add_argument("--box-conf", type=float, default=None, help="override vision.detector.BOX_CONF")
    ap.add_argument("--no-map", action="store_true")
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args(argv)
    offline_ultralytics()
    from vision.detector import DEFAULT_CONF, DEFAULT_IMGSZ, Detector


    images, lab_dir = images_of(Path(args.data), args.split)
    img_dir = images[0].parent if images else Path(args.data)
    det = Detector(args.model, backend=args.backend, conf=0.05, imgsz=args.imgsz, classifier=args.classifier)
    if args.box_conf is not None:
        det.box_conf = args.box_conf
    raw, sizes, spi = run_raw(det, images)
    conf = DEFAULT_CONF if args.conf is None else args.conf
    result = {"model": str(args.model), "classifier": args.classifier, "backend": det.backend, "data": str(img_dir), "images": len(images),
              "conf": conf, "imgsz": args.imgsz or DEFAULT_IMGSZ, "seconds_per_image": round(spi, 3)}
    result["cards"] = card_level(images, lab_dir, predictor(raw, conf))
    result["detector_corner_map50"] = pipeline_map50(raw, sizes, lab_dir)
    if args.sweep:
        result["sweep"] = {str(t): card_level(images, lab_dir, predictor(raw, t))["by_group"]["all"]
                           for t in (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6)}
    if not args.no_map and str(args.model).endswith(".pt"):
        result["corners"] = corner_map50(Path(args.model), img_dir, args.imgsz or DEFAULT_IMGSZ)
    summary = {k: v for k, v in result.items() if k != "cards"}
    summary["card_level"] = result["cards"]["by_group"]
    print(json.dumps(summary, indent=1))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
