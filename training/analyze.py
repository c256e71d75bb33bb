"""Where does the detector fail?  Per-corner and per-card failure analysis on labelled photos.

    python -m training.analyze                                   # shipped model, real dev photos
    python -m training.analyze --data runs/data/synth_heldout --split val --md runs/eval/heldout-analysis.md

For every labelled corner index (BACK excluded) it finds the best YOLO candidate box (IoU with
the label, candidates from `BOX_CONF` up, class-agnostic) and sorts the corner into one of:

* `not localised`     – no YOLO candidate overlaps it with IoU >= 0.5 (`loose` when one does at
                        0.3 <= IoU < 0.5: found but badly boxed);
* `rejected NONE`     – boxed, but the corner classifier says "not a corner index";
* `misread`           – boxed and named as another class (goes into the confusion table);
* `below threshold`   – named right, probability under the card threshold (`--conf`);
* `read`              – named right and confident.

Each corner is also tagged with its situation, measured from the label and the pixels only (the
dev photos carry no other annotation):

* size: the corner's longer side in pixels *at the model's input scale* (imgsz on the long
  side): tiny < 10, small 10-16, medium 16-28, large >= 28;
* crowded: another labelled corner's centre lies within 1.5 corner sizes (fanned melds, rows of
  overlapping cards);
* rotated: the box's aspect is far from an upright index (w/h > 0.9: an index turned towards
  45-90 degrees);
* glare: over 20 % of the crop is near-white and low-saturation *and* brighter than the card's
  own paper (hard to tell from white card stock, so this is approximate);
* red-on-red: a red suit on a reddish table (median hue of a ring around the corner box).

Card level (what the referee sees) uses `Detector.detect` semantics via `merge_corners`: a missed
card is explained by its best corner's outcome, a false card by the labelled corner its box
overlaps (a misread) or by nothing (a false detection on texture, court-card art, etc.).
Writes a Markdown report (`--md`) and a JSON file (`--out`).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

from training.common import REAL, ROOT, offline_ultralytics
from training.evaluate import images_of, iou, truth, truth_boxes

RED = {"H", "D"}


def suit_of(name: str) -> str:
    return name[-1] if name not in ("BACK", "BLACK JOKER", "RED JOKER", "JK") else name


def rank_of(name: str) -> str:
    return name[:-1] if suit_of(name) != name else name


def situations(img: np.ndarray, box, others: list, scale: float) -> list[str]:
    import cv2

    x1, y1, x2, y2 = box
    w, h = x2 - x1, y2 - y1
    size = max(w, h) * scale
    tags = ["tiny" if size < 10 else "small" if size < 16 else "medium" if size < 28 else "large"]
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    s = max(w, h)
    if any(np.hypot((o[0] + o[2]) / 2 - cx, (o[1] + o[3]) / 2 - cy) < 1.5 * s for o in others):
        tags.append("crowded")
    if h > 0 and w / h > 0.9:
        tags.append("rotated")
    H, W = img.shape[:2]
    a, b, c, d = int(max(0, x1)), int(max(0, y1)), int(min(W, x2)), int(min(H, y2))
    if c > a and d > b:
        hsv = cv2.cvtColor(img[b:d, a:c], cv2.COLOR_BGR2HSV)
        bright = (hsv[..., 2] > 245) & (hsv[..., 1] < 25)
        paper = np.percentile(hsv[..., 2], 60)
        if bright.mean() > 0.2 and paper > 235:
            tags.append("glare")
        ring = img[int(max(0, y1 - s)):int(min(H, y2 + s)), int(max(0, x1 - s)):int(min(W, x2 + s))]
        if ring.size:
            rh = cv2.cvtColor(ring, cv2.COLOR_BGR2HSV).reshape(-1, 3)
            red = ((rh[:, 0] < 10) | (rh[:, 0] > 170)) & (rh[:, 1] > 90) & (rh[:, 2] > 60)
            if red.mean() > 0.35:
                tags.append("red-on-red")
    return tags


def analyse(det, images: list[Path], labels_dir: Path, conf: float) -> dict:
    import cv2

    import vision.detector as vd

    outcomes = Counter()
    by_tag: dict[str, Counter] = defaultdict(Counter)
    by_group: dict[str, Counter] = defaultdict(Counter)
    confusion: Counter = Counter()
    rank_conf: Counter = Counter()
    suit_conf: Counter = Counter()
    card_missed: Counter = Counter()
    card_false: Counter = Counter()
    false_examples: list[str] = []
    per_class = defaultdict(Counter)
    for p in images:
        img = cv2.imread(str(p))
        H, W = img.shape[:2]
        scale = det.imgsz / max(H, W)
        group = p.name.split("_")[0] if p.name.split("_")[0] in ("IMG", "WIN") else "synthetic"
        gts = [(n, b) for n, b in truth_boxes(labels_dir / (p.stem + ".txt"), W, H) if n != "BACK"]
        cands = det.candidates(img)
        corner_out = {}
        for i, (name, box) in enumerate(gts):
            best, bi = 0.0, None
            for j, (_, _, cb) in enumerate(cands):
                o = iou(box, cb)
                if o > best:
                    best, bi = o, j
            if best < 0.3:
                out = "not localised"
            elif best < 0.5:
                out = "not localised (loose box)"
            else:
                cname, cp, _ = cands[bi]
                if cname == "NONE":
                    out = "rejected NONE"
                elif vd.canonical_card(cname) != vd.canonical_card(name):
                    out = "misread"
                    confusion[(name, cname)] += 1
                    if suit_of(name) == suit_of(cname):
                        rank_conf[(rank_of(name), rank_of(cname))] += 1
                    elif rank_of(name) == rank_of(cname):
                        suit_conf[(suit_of(name), suit_of(cname))] += 1
                elif cp < conf:
                    out = "below threshold"
                else:
                    out = "read"
            corner_out[i] = out
            outcomes[out] += 1
            by_group[group][out] += 1
            per_class[name][out] += 1
            others = [b for k, (_, b) in enumerate(gts) if k != i]
            tags = situations(img, box, others, scale)
            if name[-1:] in RED and name not in ("BLACK JOKER", "RED JOKER"):
                tags.append("red suit")
            for t in tags:
                by_tag[t][out] += 1
            by_tag["all"][out] += 1
        # card level, as the detector reports it
        kept = [(n, pr, b) for n, pr, b in cands if n != "NONE" and pr >= conf]
        cards = vd.merge_corners(kept)
        pred = {c.card for c in cards if c.card != "BACK"}
        gt_cards = truth(labels_dir / (p.stem + ".txt"))
        rank = ["read", "below threshold", "misread", "rejected NONE", "not localised (loose box)", "not localised"]
        for card in gt_cards - pred:
            outs = [corner_out[i] for i, (n, _) in enumerate(gts) if vd.canonical_card(n) == card]
            best = min(outs, key=rank.index) if outs else "not labelled"
            card_missed[best if best != "read" else "read but merged away"] += 1
        for c in cards:
            if c.card == "BACK" or c.card in gt_cards:
                continue
            hit = None
            for n, b in gts:
                if any(iou(cb, b) >= 0.3 for cb in c.corners):
                    hit = n
            reason = f"misread of {hit}" if hit else "no labelled corner there"
            card_false["misread of a labelled corner" if hit else "no labelled corner there"] += 1
            if len(false_examples) < 40:
                false_examples.append(f"{p.name[:28]}: {c.card} ({c.confidence:.2f}) - {reason}")
    return {"outcomes": dict(outcomes), "by_group": {g: dict(c) for g, c in by_group.items()},
            "by_tag": {t: dict(c) for t, c in by_tag.items()},
            "confusion": {f"{a} -> {b}": n for (a, b), n in confusion.most_common()},
            "rank_confusion": {f"{a} -> {b}": n for (a, b), n in rank_conf.most_common()},
            "suit_confusion": {f"{a} -> {b}": n for (a, b), n in suit_conf.most_common()},
            "per_class": {k: dict(v) for k, v in sorted(per_class.items())},
            "cards_missed_because": dict(card_missed), "false_cards": dict(card_false),
            "false_examples": false_examples}


ORDER = ["read", "below threshold", "misread", "rejected NONE", "not localised (loose box)", "not localised"]


def markdown(res: dict, title: str) -> str:
    def row(name: str, c: dict) -> str:
        n = sum(c.values())
        cells = [f"{100 * c.get(o, 0) / n:.0f} %" if n else "-" for o in ORDER]
        return f"| {name} | {n} | " + " | ".join(cells) + " |"

    lines = [f"### {title}", "", "Corner outcomes by situation (share of the labelled corners in that situation):", "",
             "| situation | corners | " + " | ".join(ORDER) + " |", "|" + " --- |" * (len(ORDER) + 2)]
    tags = res["by_tag"]
    for t in ["all", "large", "medium", "small", "tiny", "crowded", "rotated", "glare", "red suit", "red-on-red"]:
        if t in tags:
            lines.append(row(t, tags[t]))
    for g, c in sorted(res["by_group"].items()):
        lines.append(row(f"photos {g}", c))
    lines += ["", "Why cards were missed (best corner of each missed card): " +
              ", ".join(f"{k} {v}" for k, v in sorted(res["cards_missed_because"].items(), key=lambda kv: -kv[1])),
              "", "False cards: " + ", ".join(f"{k} {v}" for k, v in res["false_cards"].items()), "",
              "Most frequent misreads (label -> read as): " +
              ", ".join(f"{k} ×{v}" for k, v in list(res["confusion"].items())[:15]), "",
              "Rank mix-ups (same suit): " + (", ".join(f"{k} ×{v}" for k, v in list(res["rank_confusion"].items())[:12]) or "none"),
              "", "Suit mix-ups (same rank): " + (", ".join(f"{k} ×{v}" for k, v in list(res["suit_confusion"].items())[:8]) or "none"),
              ""]
    return "\n".join(lines)


def per_card_table(res: dict, title: str) -> str:
    """One row per labelled class: its corners, how many were read right / misread / lost, and what the
    misreads were read as (the per-card confusion, compactly)."""
    read_as: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for pair, n in res["confusion"].items():
        a, b = pair.split(" -> ")
        read_as[a].append((b, n))
    lines = [f"### {title}", "", "| card | corners | read | misread | below thr. / NONE / not localised | read as |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, c in sorted(res["per_class"].items(), key=lambda kv: (kv[0][-1], kv[0])):
        n = sum(c.values())
        lost = n - c.get("read", 0) - c.get("misread", 0)
        wrong = ", ".join(f"{b} ×{k}" for b, k in sorted(read_as.get(name, []), key=lambda t: -t[1]))
        lines.append(f"| {name} | {n} | {c.get('read', 0)} | {c.get('misread', 0)} | {lost} | {wrong} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=None, help="YOLO weights (default: the shipped model)")
    ap.add_argument("--classifier", default="auto")
    ap.add_argument("--backend", default="onnx")
    ap.add_argument("--data", default=str(REAL / "dev"))
    ap.add_argument("--split", default=None)
    ap.add_argument("--conf", type=float, default=None)
    ap.add_argument("--imgsz", type=int, default=None)
    ap.add_argument("--title", default=None)
    ap.add_argument("--md", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--per-card-md", default=None, help="also write the per-card confusion table here")
    ap.add_argument("--aspect", choices=["auto", "none"], default="auto", help="Detector.aspect (none: as it comes)")
    args = ap.parse_args(argv)
    offline_ultralytics()
    from vision.detector import Detector

    images, lab_dir = images_of(Path(args.data), args.split)
    img_dir = images[0].parent if images else Path(args.data)
    classifier = args.classifier
    if classifier == "auto":
        classifier = ROOT / "models" / ("cards-cls.onnx" if args.backend == "onnx" else "cards-cls.pt")
    model = args.model or ROOT / "models" / ("cards-yolo.onnx" if args.backend == "onnx" else "cards-yolo.pt")
    det = Detector(model, backend=args.backend, imgsz=args.imgsz, classifier=classifier or None)
    det.aspect = None if args.aspect == "none" else "auto"
    conf = det.conf if args.conf is None else args.conf  # the threshold stored with the classifier
    res = analyse(det, images, lab_dir, conf)
    res.update({"model": str(model), "classifier": str(classifier), "data": str(img_dir), "conf": conf,
                "imgsz": det.imgsz})
    md = markdown(res, args.title or f"{img_dir} ({len(images)} images)")
    print(md)
    if args.md:
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.md).write_text(md)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(res, indent=1))
    if args.per_card_md:
        Path(args.per_card_md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.per_card_md).write_text(per_card_table(res, args.title or str(img_dir)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
