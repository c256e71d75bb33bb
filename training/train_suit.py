"""Train the black-suit judge (vision/suit_judge.py): clubs or spades, read from a wide crop around an index.

    python -m training.train_suit --data runs/data/real640 --data runs/data/synth640n --data runs/data/synth640x \
        --unsquash runs/data/real640 --size 128 --epochs 8 --jitter 2 --any-angle 0.3 --seed 19 --out runs/suit/s19
    python -m training.train_suit ... --size 128 --epochs 4 --jitter 1 --any-angle 0.3 --lr 0.0005 \
        --resume runs/suit/s19-last.pt --mine models/cards-yolo.onnx --seed 20 --out runs/suit/s20
    (round seventeen's candidate, training/candidates/cards-suit-r17.onnx: models/MODEL.md)

The corner classifier reads a 64 px crop of the index alone; at a webcam's resolution a small index club is a
blob with a stem and is read as a spade (models/MODEL.md, round five: 55 of the dev webcam scenes' 113 clubs).
The card's large pips beside the index are plain clubs at the same resolution.  This network sees a square
`1 + 2 * margin` times the index's longer side (the pips, the court figure's small suit sign, the index itself)
and says clubs or spades.  Crops: every labelled clubs or spades index of the datasets' train splits, each
`jitter` times shifted and scaled as the localiser's boxes are; the val splits measure it.  The trunk starts from
the shipped corner classifier's (the YOLOv5n layers 0-6, COCO-pretrained before that); the head is new.
`--mine` adds crops of the localiser's own boxes.  Augmentation: the corner classifier's (`train_classifier.augment`,
strong) after a turn: by any angle for a share `--any-angle` of the crops, else by a quarter turn.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np

from training.common import output_stem
from training.train_classifier import UNSQUASH, augment, labelled_images
from vision.corner_classifier import crop, load_checkpoint
from vision.suit_judge import CONFIG, RANKS, SUITS, build_model
from vision.types import CORNER_CLASSES

BLACK = {i: SUITS.index(n[-1]) for i, n in enumerate(CORNER_CLASSES) if n[-1] in SUITS and n[:-1] in RANKS}


def collect(dirs: list[Path], split: str, rng: np.random.Generator, jitter: int, loose: float,
            margin: float, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, suit 0/1, is-real) of every labelled clubs or spades index in the `split` of `dirs`."""
    xs, ys, real = [], [], []
    for d, img, boxes, st in labelled_images(dirs, split):
        for c, b in boxes:
            if c not in BLACK:
                continue
            bw, bh = b[2] - b[0], b[3] - b[1]
            for k in range(jitter):
                dx, dy = (rng.normal(0, loose, 2) * (bw, bh)) if k else (0.0, 0.0)
                s = rng.uniform(0.85, 1.2) if k else 1.0
                cx, cy = (b[0] + b[2]) / 2 + dx, (b[1] + b[3]) / 2 + dy
                jb = (cx - bw * s / 2, cy - bh * s / 2, cx + bw * s / 2, cy + bh * s / 2)
                xs.append(crop(img, jb, size, margin, True, st))
                ys.append(BLACK[c])
                real.append("real" in d.name)
    return _arrays(xs, ys, real, size)


def mined(dirs: list[Path], split: str, weights: str, margin: float, size: int, imgsz: int = 512,
          box_conf: float = 0.05, per_image: int = 60) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, suit, is-real) of the localiser's own boxes (`weights`) that overlap a labelled clubs or spades
    index (IoU >= 0.5): the loose, offset boxes the judge reads at a table."""
    from training.evaluate import iou
    from vision.detector import _OnnxBackend

    yolo = _OnnxBackend(Path(weights))
    xs, ys, real = [], [], []
    for d, img, boxes, st in labelled_images(dirs, split):
        black = [(c, b) for c, b in boxes if c in BLACK]
        if not black:
            continue
        for cand in sorted(yolo.corners(img, imgsz, box_conf), key=lambda c: -c[1])[:per_image]:
            cb = cand[2]
            o, c = max((iou(cb, b), c) for c, b in black)
            if o >= 0.5 and max(iou(cb, b) for _, b in boxes) <= o:
                xs.append(crop(img, cb, size, margin, True, st))
                ys.append(BLACK[c])
                real.append("real" in d.name)
    return _arrays(xs, ys, real, size)


def _arrays(xs: list, ys: list, real: list, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(crops, suit, is-real) as arrays; empty ones of the right shape when no crop was made."""
    if not xs:
        return np.zeros((0, size, size, 3), np.uint8), np.zeros(0, np.int64), np.zeros(0, bool)
    return np.stack(xs), np.array(ys, np.int64), np.array(real, bool)


def turn(batch: np.ndarray, rng: np.random.Generator, share: float = 1.0) -> np.ndarray:
    """A `share` of the crops turned by any angle (a card lies at any angle; the pips are anywhere around its
    index), the rest by a quarter turn."""
    size = batch.shape[1]
    out = np.empty_like(batch)
    for i, im in enumerate(batch):
        angle = rng.uniform(0, 360) if rng.random() < share else 90.0 * int(rng.integers(4))
        m = cv2.getRotationMatrix2D((size / 2, size / 2), angle, 1.0)
        out[i] = cv2.warpAffine(im, m, (size, size), borderMode=cv2.BORDER_REPLICATE)
    return out


def accuracy(model, x: np.ndarray, y: np.ndarray) -> float:
    import torch

    if len(x) == 0:
        return float("nan")
    model.eval()
    with torch.no_grad():
        p = np.concatenate([model(torch.from_numpy(_float(x[i:i + 256]))).argmax(1).numpy()
                            for i in range(0, len(x), 256)])
    return float((p == y).mean())


def _float(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x.astype(np.float32).transpose(0, 3, 1, 2) / 255.0)


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", action="append", required=True, type=Path)
    ap.add_argument("--unsquash", action="append", default=[], type=Path)
    ap.add_argument("--init", default="models/cards-cls.pt", help="the corner classifier whose trunk starts this one")
    ap.add_argument("--resume", default=None, help="a suit judge (.pt) to go on training (all of it, head included)")
    ap.add_argument("--slice", default=None, help="narrow-suit: start from this v3-suit judge (.pt), each tensor's "
                    "first channels kept")
    ap.add_argument("--mine", default=None, help="also the crops of this localiser's (.onnx) boxes on the labels")
    ap.add_argument("--margin", type=float, default=CONFIG["margin"])
    ap.add_argument("--size", type=int, default=CONFIG["size"], help="crop side in pixels")
    ap.add_argument("--arch", default=CONFIG["arch"], choices=["v3-suit", "narrow-suit"])
    ap.add_argument("--any-angle", type=float, default=1.0, help="share of crops turned by any angle")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.001)
    ap.add_argument("--jitter", type=int, default=2)
    ap.add_argument("--loose", type=float, default=0.12)
    ap.add_argument("--real-weight", type=int, default=4, help="each real crop is seen this many times an epoch")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-minutes", type=float, default=30.0)
    ap.add_argument("--out", default="runs/suit/cards-suit")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    UNSQUASH.update(Path(p) for p in args.unsquash)
    cfg = dict(CONFIG, margin=args.margin, size=args.size, arch=args.arch)
    t0 = time.time()
    x, y, real = collect(args.data, "train", rng, args.jitter, args.loose, cfg["margin"], cfg["size"])
    vx, vy, vreal = collect(args.data, "val", np.random.default_rng(1), 1, 0.0, cfg["margin"], cfg["size"])
    if args.mine:
        mx, my, mr = mined(args.data, "train", args.mine, cfg["margin"], cfg["size"])
        x, y, real = np.concatenate([x, mx]), np.concatenate([y, my]), np.concatenate([real, mr])
        print(f"mined {len(mx)} crops of {args.mine}'s boxes ({mr.sum()} real)", flush=True)
    print(f"crops: train {len(x)} ({real.sum()} real, {(y == 0).sum()} clubs), val {len(vx)} ({vreal.sum()} real); "
          f"{time.time() - t0:.0f} s", flush=True)
    model = build_model(cfg)
    if args.resume:
        model.load_state_dict(load_checkpoint(args.resume)[1])
        print(f"resumed from {args.resume}", flush=True)
    elif args.arch == "narrow-suit" and args.slice:
        wide = load_checkpoint(args.slice)[1]
        sliced = {k: wide[k][tuple(slice(0, n) for n in v.shape)].clone() if v.dim() else wide[k].clone()
                  for k, v in model.state_dict().items()}
        model.load_state_dict(sliced)
        print(f"narrow-suit: each tensor's first channels of {args.slice}", flush=True)
    elif args.arch == "narrow-suit":
        print("narrow-suit: from scratch", flush=True)
    else:
        _, state = load_checkpoint(args.init)
        trunk = {k: v for k, v in state.items() if not k.startswith(f"{len(model) - 1}.")}
        missing = model.load_state_dict(trunk, strict=False)
        print(f"trunk from {args.init}: {len(trunk)} tensors; new: {missing.missing_keys}", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    order = np.concatenate([np.arange(len(x))] + [np.flatnonzero(real)] * (args.real_weight - 1))
    steps = args.epochs * int(np.ceil(len(order) / args.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, args.lr, total_steps=steps, pct_start=0.15)
    out = output_stem(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    best, step = -1.0, 0
    loss_fn = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(args.epochs):
        model.train()
        perm = rng.permutation(order)
        te, total = time.time(), 0.0
        for i in range(0, len(perm), args.batch):
            idx = perm[i:i + args.batch]
            xb = augment(turn(x[idx], rng, args.any_angle), rng, strong=True)
            loss = loss_fn(model(torch.from_numpy(_float(xb))), torch.from_numpy(y[idx]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step < steps - 1:
                sched.step()
            step += 1
            total += float(loss.detach()) * len(idx)
        acc = accuracy(model, vx, vy)
        racc = accuracy(model, vx[vreal], vy[vreal]) if vreal.any() else float("nan")
        print(f"epoch {epoch + 1}/{args.epochs}: loss {total / len(perm):.4f}, val acc {acc:.4f} (real {racc:.4f}), "
              f"{len(perm) / (time.time() - te):.0f} crops/s", flush=True)
        torch.save({"config": cfg, "state_dict": model.state_dict()}, f"{out}-last.pt")
        if acc > best:
            best = acc
            torch.save({"config": cfg, "state_dict": model.state_dict()}, f"{out}.pt")
        if (time.time() - t0) / 60 > args.max_minutes:
            print(f"stopped after {epoch + 1} epochs: --max-minutes {args.max_minutes}", flush=True)
            break
    from vision.suit_judge import export_onnx

    for stem in (f"{out}", f"{out}-last"):
        cfg_s, st = load_checkpoint(f"{stem}.pt")
        m = build_model(cfg_s)
        m.load_state_dict(st)
        m.eval()
        export_onnx(m, f"{stem}.onnx", cfg_s)
    print(f"wrote {out}.pt/.onnx (best val acc {best:.4f}) and {out}-last.pt/.onnx", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
