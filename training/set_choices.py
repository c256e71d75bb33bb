"""Store test-time choices with a corner classifier: the views it reads, the 180° reading, and
the card threshold, the YOLO input size and how many of its boxes are read — chosen on validation data (training/compare.py), kept in the weights so that
`Detector()` uses them (models/MODEL.md).

    python -m training.set_choices runs/cls/cards-cls.pt --out models/cards-cls \
        --views "0,0,1;0.08,0.08,1;-0.08,-0.08,1;0,0,1.2;0,0,0.85" --tta --conf 0.5
    python -m training.set_choices models/cards-cls.pt --out runs/r4/cards-cls --tta-r4   # every quarter turn

Writes <out>.pt ({"config", "state_dict"}) and <out>.onnx (config as JSON metadata "crop_config").
"""

from __future__ import annotations

import argparse

from training import train_classifier
from training.common import output_stem, with_ext
from vision.corner_classifier import build_model, load_checkpoint


def parse_views(text: str) -> list[list[float]]:
    views = [[float(v) for v in part.split(",")] for part in text.split(";") if part.strip()]
    if not views or any(len(v) != 3 or v[2] <= 0 for v in views):
        raise SystemExit(f"--views wants 'dx,dy,scale;...' with scale > 0, got {text!r}")
    return views


def main(argv: list[str] | None = None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("weights", help="classifier .pt (bare state dict = v1, or {config, state_dict})")
    ap.add_argument("--out", required=True, help="output path without suffix")
    ap.add_argument("--views", default=None)
    ap.add_argument("--table-views", default=None,
                    help="the views read when the table pipeline reads a camera's frames (Detector.table_imgsz); "
                         "'none' removes them")
    ap.add_argument("--tta", action=argparse.BooleanOptionalAction, default=None, help="also read each crop turned 180°")
    ap.add_argument("--tta-r4", action="store_true", help="read each crop at all four quarter turns (tta = \"r4\")")
    ap.add_argument("--tta-below", type=float, default=None,
                    help="with --tta-r4: turn only the boxes whose plain reading is under this probability")
    ap.add_argument("--tta-turns", default=None,
                    help="with --tta-r4: the quarter turns read, e.g. 1,3 (default 1,2,3: 90°, 180°, 270°)")
    ap.add_argument("--conf", type=float, default=None, help="card threshold for Detector()")
    ap.add_argument("--imgsz", type=int, default=None, help="YOLO input size for Detector() (long side)")
    ap.add_argument("--box-conf", type=float, default=None, help="YOLO boxes kept from this score")
    ap.add_argument("--max-candidates", type=int, default=None, help="at most this many boxes go to the classifier")
    args = ap.parse_args(argv)
    cfg, state = load_checkpoint(args.weights)
    if args.views is not None:
        cfg["views"] = parse_views(args.views)
    if args.table_views is not None:
        if args.table_views.strip().lower() == "none":
            cfg.pop("table_views", None)
        else:
            cfg["table_views"] = parse_views(args.table_views)
    if args.tta is not None:
        cfg["tta"] = args.tta
    if args.tta_r4:
        cfg["tta"] = "r4"
    if args.tta_below is not None:
        cfg["tta_below"] = args.tta_below
    if args.tta_turns is not None:
        turns = [int(k) for k in args.tta_turns.split(",") if k.strip()]
        if not turns or any(k not in (1, 2, 3) for k in turns):
            ap.error(f"--tta-turns: quarter turns 1, 2 or 3, comma-separated (got {args.tta_turns!r})")
        cfg["tta_turns"] = turns
    for key in ("conf", "imgsz", "box_conf", "max_candidates"):
        if getattr(args, key) is not None:
            cfg[key] = getattr(args, key)
    model = build_model(cfg)
    model.load_state_dict(state)
    model.eval()
    out = output_stem(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"config": cfg, "state_dict": model.state_dict()}, with_ext(out, ".pt"))
    train_classifier.export_onnx(model, with_ext(out, ".onnx"), cfg)
    print(f"wrote {with_ext(out, '.pt')} and {with_ext(out, '.onnx')} with {cfg}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
