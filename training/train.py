"""Train the corner-index detector (ultralytics YOLO) from scratch or from a checkpoint, offline.

    python -m training.train --data runs/data/real --data runs/data/synth --epochs 12 \
        --imgsz 320 --model yolo11n.yaml --name cards --threads 2

Each --data folder holds images/{train,val} and labels/{train,val} in YOLO format with the
55 classes of shared/data/real/classes.txt.  Weights are written every epoch to
runs/train/<name>/weights/{last,best}.pt, so an interrupted run still leaves a model.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from training.common import CLASS_NAMES, ROOT, offline_ultralytics


def write_data_yaml(data_dirs: list[Path], out: Path) -> Path:
    import yaml

    train = [str((d / "images" / "train").resolve()) for d in data_dirs]
    val = [str((d / "images" / "val").resolve()) for d in data_dirs if any((d / "images" / "val").glob("*"))]
    spec = {"path": str(ROOT), "train": train, "val": val or train[:1],
            "names": dict(enumerate(CLASS_NAMES))}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(yaml.safe_dump(spec, sort_keys=False))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", action="append", required=True, help="dataset folder (repeatable)")
    ap.add_argument("--model", default="yolo11n.yaml", help="model yaml (from scratch) or .pt checkpoint")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--imgsz", type=int, default=320)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--name", default="cards")
    ap.add_argument("--project", default=str(ROOT / "runs" / "train"))
    ap.add_argument("--lr0", type=float, default=0.002)
    ap.add_argument("--hours", type=float, default=None, help="train for this long (overrides --epochs)")
    ap.add_argument("--close-mosaic", type=int, default=2)
    ap.add_argument("--fraction", type=float, default=1.0)
    ap.add_argument("--val", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--single-cls", action="store_true",
                    help="train YOLO to find corner indices only (one class); the corner classifier names them")
    args = ap.parse_args(argv)

    offline_ultralytics()
    import torch

    torch.set_num_threads(args.threads)
    from ultralytics import YOLO

    data_yaml = write_data_yaml([Path(d) for d in args.data], Path(args.project) / f"{args.name}-data.yaml")
    model = YOLO(args.model)
    model.train(
        data=str(data_yaml), epochs=args.epochs, imgsz=args.imgsz, batch=args.batch,
        workers=args.workers, device=args.device, seed=args.seed, deterministic=False,
        project=args.project, name=args.name, exist_ok=True, pretrained=False,
        optimizer="AdamW", lr0=args.lr0, cos_lr=False, time=args.hours,
        warmup_epochs=min(1.0, args.epochs / 10), close_mosaic=args.close_mosaic,
        # corner indices: no mirror images (a mirrored '7' is not a card); any rotation of the
        # card is handled by training on both corners (the lower one is upside down).
        fliplr=0.0, flipud=0.0, degrees=15.0, scale=0.5, translate=0.1, mosaic=1.0,
        hsv_h=0.015, hsv_s=0.6, hsv_v=0.4, amp=False, plots=False, val=args.val,
        fraction=args.fraction, save_period=-1, single_cls=args.single_cls, verbose=True, cache=False,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
