"""Train the corner-index classifier (vision/corner_classifier.py) on crops of labelled corners.

    python -m training.train_classifier --data runs/data/real --data runs/data/synth \
        --data runs/data/synth_noir --epochs 8 --out models/cards-cls

Crops come from the YOLO labels of each dataset's train split (val split for validation),
plus "NONE" crops: random boxes of corner-like size that overlap no label.  Augmentation:
small shifts/scales/rotations, colour and brightness changes, blur and noise.  Writes
<out>.pt (state dict) and <out>.onnx (dynamic batch).  Seed 0.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from training.common import output_stem, with_ext
from training.evaluate import iou
from vision.corner_classifier import CLASS_NAMES, CONFIGS, NONE, build_model, crop, load_checkpoint

CFG = dict(CONFIGS["v1"])  # the crop convention in use (set from --arch in main)


def read_boxes(label: Path, w: int, h: int) -> list[tuple[int, tuple[float, float, float, float]]]:
    out = []
    if label.exists():
        for line in label.read_text().splitlines():
            p = [float(v) for v in line.split()]
            if len(p) == 5:
                c, x, y, bw, bh = p
                out.append((int(c), ((x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h)))
    return out


UNSQUASH: set[Path] = set()  # --unsquash DIR: its photos squashed across are cropped stretched back (as detected)


def _stretch(img, boxes, d: Path) -> tuple[float, float]:
    """How the detector (`Detector.aspect` "auto") would stretch this photo of folder `d` back, from its labelled
    index boxes (backs left out): its crops are taken so when `d` is one of `--unsquash`."""
    if Path(d) not in UNSQUASH:
        return (1.0, 1.0)
    from vision.detector import squash_stretch

    return (squash_stretch(img.shape, [b for c, b in boxes if c != 40]), 1.0)


def _crop(img, box, stretch=(1.0, 1.0)):
    return crop(img, box, CFG["size"], CFG["margin"], CFG["square"], stretch)


def labelled_images(dirs: list[Path], split: str):
    """(folder, picture, labelled boxes, stretch) of every readable picture of `split` in `dirs`, sorted by name;
    `stretch` is how the detector would read the picture (`_stretch`)."""
    for d in dirs:
        for img_path in sorted((d / "images" / split).glob("*.jpg")):
            img = cv2.imread(str(img_path))
            if img is None:
                continue
            boxes = read_boxes(d / "labels" / split / (img_path.stem + ".txt"), img.shape[1], img.shape[0])
            yield d, img, boxes, _stretch(img, boxes, d)


def collect(dirs: list[Path], split: str, rng: np.random.Generator, negatives: int = 2, jitter: int = 1,
            loose: float = 0.06, card_negatives: int = 0):
    """Crops of the labelled corners (each `jitter` times, shifted by `loose` of the box size and
    scaled, like the detector's own boxes) and NONE crops: random boxes of corner size that overlap
    no label, plus `card_negatives` per image taken next to a labelled corner, on the card's face
    (pips, court-card art, the card edge): the false corners a detector meets."""
    xs, ys = [], []
    for _d, img, boxes, st in labelled_images(dirs, split):
        h, w = img.shape[:2]
        for c, b in boxes:
            if c == 40 and (b[2] - b[0]) * (b[3] - b[1]) > 0.5 * w * h:
                continue
            for _ in range(jitter):
                bw, bh = b[2] - b[0], b[3] - b[1]
                dx, dy = rng.normal(0, loose, 2) * (bw, bh)
                s = rng.uniform(0.9, 1.12) if loose <= 0.06 else rng.uniform(0.8, 1.3)
                cx, cy = (b[0] + b[2]) / 2 + dx, (b[1] + b[3]) / 2 + dy
                jb = (cx - bw * s / 2, cy - bh * s / 2, cx + bw * s / 2, cy + bh * s / 2)
                if iou(jb, b) < 0.35:
                    continue
                xs.append(_crop(img, jb, st))
                ys.append(c)
        sizes = [(b[2] - b[0], b[3] - b[1]) for _, b in boxes] or [(0.05 * w, 0.1 * h)]
        for _ in range(negatives):
            bw, bh = sizes[rng.integers(len(sizes))]
            bw, bh = bw * rng.uniform(0.6, 1.6), bh * rng.uniform(0.6, 1.6)
            x1, y1 = rng.uniform(0, max(1, w - bw)), rng.uniform(0, max(1, h - bh))
            nb = (x1, y1, x1 + bw, y1 + bh)
            if all(iou(nb, b) < 0.15 for _, b in boxes):
                xs.append(_crop(img, nb, st))
                ys.append(NONE)
        for _ in range(card_negatives if boxes else 0):
            _, b = boxes[rng.integers(len(boxes))]
            bw, bh = b[2] - b[0], b[3] - b[1]
            ang, dist = rng.uniform(0, 2 * np.pi), rng.uniform(1.2, 3.0) * max(bw, bh)
            cx, cy = (b[0] + b[2]) / 2 + dist * np.cos(ang), (b[1] + b[3]) / 2 + dist * np.sin(ang)
            s = rng.uniform(0.8, 1.5)
            nb = (cx - bw * s / 2, cy - bh * s / 2, cx + bw * s / 2, cy + bh * s / 2)
            if 0 <= cx < w and 0 <= cy < h and all(iou(nb, ob) < 0.1 for _, ob in boxes):
                xs.append(_crop(img, nb, st))
                ys.append(NONE)
    if not xs:
        return np.zeros((0, CFG["size"], CFG["size"], 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def mine(dirs: list[Path], split: str, weights: str, imgsz: int = 480, box_conf: float = 0.01,
         per_image: int = 60) -> tuple[np.ndarray, np.ndarray]:
    """Crops of a trained YOLO's own candidate boxes on the labelled images: a box overlapping a
    label (IoU >= 0.5) gets that label (the detector's real, sometimes loose boxes), one
    overlapping none (IoU < 0.2) is a hard negative (NONE): the texture, pip or card-back
    pattern that YOLO mistook for an index."""
    from vision.detector import _OnnxBackend, _TorchBackend
    from vision.geometry import best_match

    yolo = _OnnxBackend(Path(weights)) if str(weights).endswith(".onnx") else _TorchBackend(Path(weights))
    xs, ys = [], []
    for _d, img, labelled, st in labelled_images(dirs, split):  # backs do not count in the stretch either
        boxes = [(c, b) for c, b in labelled if c != 40]
        cands = sorted(yolo.corners(img, imgsz, box_conf), key=lambda c: -c[1])[:per_image]
        for _, _, cb, *_ in cands:
            best, cls = best_match(cb, boxes)
            if best >= 0.5:
                xs.append(_crop(img, cb, st))
                ys.append(cls)
            elif best < 0.2:
                xs.append(_crop(img, cb, st))
                ys.append(NONE)
    if not xs:
        return np.zeros((0, CFG["size"], CFG["size"], 3), np.uint8), np.zeros(0, np.int64)
    return np.stack(xs), np.array(ys, np.int64)


LOWRES = 0.3  # with strong augmentation: share of crops down- and up-scaled (--lowres)
ROT90 = 0.0  # share of crops turned by a random quarter turn (--rot90): an index is read at any angle


def augment(batch: np.ndarray, rng: np.random.Generator, strong: bool = False) -> np.ndarray:
    """Shifts, scales, rotations, colour and brightness, blur and noise; `strong` adds what real
    cameras do that the renderer does not: foreshortening / anamorphic frames (one axis squashed
    to 55-100 %), low resolution (down- and up-scaled), and salt-and-pepper pixels."""
    out = np.empty_like(batch)
    size = batch.shape[1]
    for i, im in enumerate(batch):
        if ROT90 and rng.random() < ROT90:
            im = np.ascontiguousarray(np.rot90(im, int(rng.integers(1, 4))))
        m = cv2.getRotationMatrix2D((size / 2, size / 2), rng.normal(0, 8), rng.uniform(0.9, 1.1))
        if strong and rng.random() < 0.5:
            axis = rng.integers(2)
            m[axis, :2] *= rng.uniform(0.55, 1.0)
            m[axis, 2] = size / 2 - (m[axis, 0] + m[axis, 1]) * size / 2
        m[:, 2] += rng.normal(0, 2, 2)
        im = cv2.warpAffine(im, m, (size, size), borderMode=cv2.BORDER_REPLICATE)
        if strong and rng.random() < LOWRES:
            r = rng.uniform(0.4, 0.9)
            small = cv2.resize(im, (max(4, int(size * r)),) * 2, interpolation=cv2.INTER_AREA)
            im = cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
        im = im.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
        im = im * rng.uniform(0.85, 1.15, 3)
        if rng.random() < 0.3:
            im = cv2.GaussianBlur(im, (0, 0), rng.uniform(0.3, 1.2))
        if rng.random() < 0.5:
            im = im + rng.normal(0, rng.uniform(1, 10), im.shape)
        if rng.random() < 0.1:
            im = np.repeat(im.mean(2, keepdims=True), 3, 2)
        if strong and rng.random() < 0.25:
            mask = rng.random(im.shape[:2]) < rng.uniform(0.005, 0.04)
            im[mask] = rng.choice([0.0, 255.0], size=(int(mask.sum()), 1))
        out[i] = np.clip(im, 0, 255).astype(np.uint8)
    return out


def aux_targets():
    """Class index → suit index (C, D, H, S; 4 = no suit) and rank index (A..K; 13 = no rank), as tensors."""
    import torch

    suits, ranks = "CDHS", ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    suit = [suits.index(n[-1]) if n[:-1] in ranks and n[-1] in suits else 4 for n in CLASS_NAMES]
    rank = [ranks.index(n[:-1]) if n[:-1] in ranks and n[-1] in suits else 13 for n in CLASS_NAMES]
    return torch.tensor(suit), torch.tensor(rank)


def export_onnx(model, path: Path, cfg: dict | None = None) -> None:
    """ONNX export with the crop convention `cfg` (default: the one in use); see vision.corner_classifier."""
    from vision.corner_classifier import export_onnx as export

    export(model, path, CFG if cfg is None else cfg)


def main(argv: list[str] | None = None) -> int:
    global LOWRES, ROT90, UNSQUASH
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", action="append", required=True)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--real-weight", type=int, default=2, help="repeat the real crops this many times")
    ap.add_argument("--synth-fraction", type=float, default=0.35, help="keep this share of synthetic crops")
    ap.add_argument("--out", default="models/cards-cls")
    ap.add_argument("--init", default=None, help="start from these weights (.pt state dict)")
    ap.add_argument("--max-minutes", type=float, default=30)
    ap.add_argument("--arch", choices=sorted(CONFIGS), default="v1", help="crop convention + network")
    ap.add_argument("--margin", type=float, default=None,
                    help="crop margin (share of the box's longer side added on each side; default: the arch's)")
    ap.add_argument("--jitter", type=int, default=1, help="crops per labelled corner")
    ap.add_argument("--loose", type=float, default=0.06, help="box shift (share of its size) for positives")
    ap.add_argument("--card-negatives", type=int, default=0, help="NONE crops per image on card faces")
    ap.add_argument("--strong-aug", action="store_true", help="squash / low-res / salt-and-pepper augmentation")
    ap.add_argument("--lowres", type=float, default=LOWRES, help="with --strong-aug: share of low-resolution crops")
    ap.add_argument("--mine", default=None, help="also crop this YOLO model's own boxes (see mine())")
    ap.add_argument("--mine-imgsz", type=int, default=480)
    ap.add_argument("--mine-data", action="append", default=None, help="mine only these folders (default: --data)")
    ap.add_argument("--aux", type=float, default=0.0,
                    help="weight of the auxiliary suit and rank losses (training only: heads on the pooled features)")
    ap.add_argument("--rot90", type=float, default=ROT90, help="share of crops turned by a random quarter turn")
    ap.add_argument("--unsquash", action="append", default=[], metavar="DIR",
                    help="crop this --data folder's photos squashed across stretched back, as the detector reads "
                         "them (Detector.aspect; real photos: their labels' boxes say it as the localiser's would)")
    args = ap.parse_args(argv)
    CFG.clear()
    CFG.update(CONFIGS[args.arch])
    if args.margin is not None:
        CFG["margin"] = args.margin
    LOWRES, ROT90, UNSQUASH = args.lowres, args.rot90, {Path(d) for d in args.unsquash}
    import torch

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    dirs = [Path(d) for d in args.data]
    t0 = time.time()
    parts_x, parts_y = [], []

    def add(d: Path, x: np.ndarray, y: np.ndarray, what: str) -> None:
        """Real crops repeated `real_weight` times; a `synth_fraction` share of the synthetic ones."""
        reps = args.real_weight if "real" in d.name else 1
        if "real" not in d.name:
            keep = rng.random(len(y)) < args.synth_fraction
            x, y = x[keep], y[keep]
        parts_x.extend([x] * reps)
        parts_y.extend([y] * reps)
        print(f"{d}: {len(y)} {what} ({int((y == NONE).sum())} NONE, x{reps})", flush=True)

    for d in dirs:
        add(d, *collect([d], "train", rng, jitter=args.jitter, loose=args.loose, card_negatives=args.card_negatives),
            "train crops")
    if args.mine:
        for d in [Path(m) for m in args.mine_data] if args.mine_data else dirs:
            add(d, *mine([d], "train", args.mine, args.mine_imgsz), f"mined crops from {args.mine}")
    xtr, ytr = np.concatenate(parts_x), np.concatenate(parts_y)
    xva, yva = collect(dirs, "val", np.random.default_rng(1), jitter=1, loose=args.loose,
                       card_negatives=args.card_negatives)
    print(f"{len(ytr)} train / {len(yva)} val crops in {time.time() - t0:.0f} s", flush=True)

    model = build_model(CFG)
    if CFG["arch"] == "v3" and not args.init:
        # the COCO-pretrained YOLOv5n backbone (layers 0-6) as the starting trunk
        from training.pretrained import load_tensors

        own = model.state_dict()
        start = {k[len("model."):]: v.float() for k, v in load_tensors().items()
                 if k.startswith("model.") and k[len("model."):] in own and own[k[len("model."):]].shape == v.shape}
        model.load_state_dict(start, strict=False)
        print(f"v3 trunk: {len(start)} tensors from the COCO-pretrained YOLOv5n", flush=True)
    if args.init:
        cfg, state = load_checkpoint(args.init)
        if cfg["arch"] != CFG["arch"] or cfg.get("square") != CFG["square"]:
            raise SystemExit(f"--init {args.init} is a {cfg['arch']} model, not {CFG['arch']}")
        model.load_state_dict(state)
    aux_head, suit_of, rank_of = None, None, None
    if args.aux > 0:
        # Auxiliary heads (dropped at export): the suit (4 + "none") and the rank (13 + "none") of each crop, from
        # the same pooled features.  The joint 56-way head sees each suit through 13 separate classes; these give
        # the trunk one direct signal per suit and per rank, shared across all cards.
        suit_of, rank_of = aux_targets()
        aux_head = torch.nn.Linear(model[-1].in_features, 5 + 14)
    params = list(model.parameters()) + (list(aux_head.parameters()) if aux_head is not None else [])
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=1e-4)
    steps = args.epochs * int(np.ceil(len(ytr) / args.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=steps, pct_start=0.15)
    lossf = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    out = output_stem(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    best = -1.0
    for ep in range(args.epochs):
        model.train()
        perm = rng.permutation(len(ytr))
        tl, n = 0.0, 0
        for k in range(0, len(perm), args.batch):
            idx = perm[k:k + args.batch]
            xb = augment(xtr[idx], rng, args.strong_aug).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
            yb = torch.from_numpy(ytr[idx])
            feats = model[:-1](torch.from_numpy(np.ascontiguousarray(xb)))  # the pooled features; model[-1]: the head
            loss = lossf(model[-1](feats), yb)
            if aux_head is not None:
                extra = aux_head(feats)
                loss = loss + args.aux * (lossf(extra[:, :5], suit_of[yb]) + lossf(extra[:, 5:], rank_of[yb]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched.last_epoch < steps - 1:
                sched.step()
            tl += float(loss.detach()) * len(idx)
            n += len(idx)
        model.eval()
        with torch.no_grad():
            pred = np.concatenate([model(torch.from_numpy(np.ascontiguousarray(
                xva[k:k + 512].astype(np.float32).transpose(0, 3, 1, 2) / 255.0))).argmax(1).numpy()
                for k in range(0, len(yva), 512)] or [np.zeros(0, np.int64)])
        acc = float((pred == yva).mean()) if len(yva) else 0.0
        corner = yva != NONE
        acc_c = float((pred[corner] == yva[corner]).mean()) if corner.any() else 0.0
        print(f"epoch {ep + 1}/{args.epochs} loss {tl / n:.3f} val acc {acc:.3f} corner acc {acc_c:.3f} "
              f"({time.time() - t0:.0f} s)", flush=True)
        if acc >= best:
            best = acc
            torch.save({"config": dict(CFG), "state_dict": model.state_dict()}, with_ext(out, ".pt"))
        # the latest epoch too (the real val split is small: a later epoch may read the other sets better)
        torch.save({"config": dict(CFG), "state_dict": model.state_dict()}, out.with_name(out.name + "-last.pt"))
        if (time.time() - t0) / 60 > args.max_minutes:
            print("time budget reached", flush=True)
            break
    model.load_state_dict(load_checkpoint(with_ext(out, ".pt"))[1])
    model.eval()
    export_onnx(model, with_ext(out, ".onnx"))
    print(f"wrote {with_ext(out, '.pt')} and {with_ext(out, '.onnx')} (best val acc {best:.3f}); "
          f"classes: {len(CLASS_NAMES)}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
