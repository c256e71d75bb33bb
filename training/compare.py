"""Compare detector configurations on the same photos in one run (the shipping decision).

    python -m training.compare \
        --candidate old=models/cards-yolo.onnx,models/cards-cls.onnx \
        --candidate new=runs/stageC.onnx,runs/cls-v2/cards-cls.onnx \
        --md runs/eval/compare.md

Each candidate is NAME=YOLO_WEIGHTS,CLASSIFIER[,imgsz[,box_conf[,max_candidates[,aspect[,suit_judge]]]]] (aspect:
auto or none, `Detector.aspect`; suit_judge: a black-suit judge's .onnx, vision/suit_judge.py, or none).  For every
candidate and every data set (default: the real dev photos and the rendered held-out set) it
reports card-level precision / recall / F1 at the candidate's confidence threshold, chosen
beforehand on *validation* data (`--choose-on`, default the rendered val split plus the real
val split, never dev): the threshold with the best F1, the acceptance's own measure (models/MODEL.md,
round twelve; rounds one to eleven took the best F0.5, and this tool did until stop 48, whose round-twelve
and -thirteen rows were read from the sweeps it stores).  Also the detector's corner mAP50 and seconds per
image, and every threshold's figures (`val_sweep`, `sweep`) in the JSON.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from training.common import REAL, ROOT, offline_ultralytics
from training.evaluate import card_level, images_of, pipeline_map50, predictor, prf, run_raw

THRESHOLDS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95]
DEFAULT_SETS = {"dev": (REAL / "dev", None), "heldout": (ROOT / "runs" / "data" / "synth_heldout", "val")}
DEFAULT_CHOOSE = {"synth-val": (ROOT / "runs" / "data" / "synth", "val"), "real-val": (ROOT / "runs" / "data" / "real", "val")}


def fbeta(r: dict, beta: float = 0.5) -> float:
    p, q = r["precision"], r["recall"]
    return (1 + beta ** 2) * p * q / (beta ** 2 * p + q) if p + q else 0.0


def parse_candidate(text: str) -> tuple[str, dict]:
    name, _, rest = text.partition("=")
    parts = rest.split(",")
    spec = {"weights": parts[0], "classifier": parts[1] if len(parts) > 1 and parts[1] not in ("", "none") else None}
    if len(parts) > 2 and parts[2]:
        spec["imgsz"] = int(parts[2])
    if len(parts) > 3 and parts[3]:
        spec["box_conf"] = float(parts[3])
    if len(parts) > 4 and parts[4]:
        spec["max_candidates"] = int(parts[4])
    if len(parts) > 5 and parts[5]:
        spec["aspect"] = None if parts[5] == "none" else parts[5]
    if len(parts) > 6 and parts[6] and parts[6] != "none":
        spec["suit_judge"] = parts[6]
    return name, spec


def candidate_detector(spec: dict):
    """The detector of a candidate (`parse_candidate`): its corners read from classifier probability 0.05 (the
    sweep and the corner mAP start there), the localiser's boxes from the candidate's `box_conf`.  Built at
    conf 0.05, the detector would take the boxes from min(conf, box_conf) = 0.05 whatever `box_conf` was given
    (until 2026-12-06 every `box_conf` above 0.05 here was measured as 0.05)."""
    import vision.detector as vd

    det = vd.Detector(spec["weights"], backend="onnx" if spec["weights"].endswith(".onnx") else "torch",
                      conf=0.05, imgsz=spec.get("imgsz"), classifier=spec["classifier"],
                      suit_judge=spec.get("suit_judge"))
    # the candidate's own choices, else those stored with its classifier, else the module defaults
    det.box_conf = spec.get("box_conf", det.box_conf)
    det.max_candidates = spec.get("max_candidates", det.max_candidates)
    det.aspect = spec.get("aspect", det.aspect)
    boxes, floor = det._boxes, det.box_conf
    det._boxes = lambda img, _floor: boxes(img, floor)
    return det


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--candidate", action="append", required=True)
    ap.add_argument("--fixed-conf", type=float, default=None, help="use this threshold instead of choosing one")
    ap.add_argument("--val-only", action="store_true",
                    help="only the validation sweep (for choosing between training runs without touching dev)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=FOLDER[:SPLIT]",
                    help="also measure on this labelled folder (e.g. probe=runs/data/probes/far-720p:val)")
    ap.add_argument("--md", default=None)
    ap.add_argument("--out", default=None)
    ap.add_argument("--pair-floor", type=float, default=None,
                    help="keep corners from this probability and threshold cards on noisy-or pair confidence")
    args = ap.parse_args(argv)
    offline_ultralytics()
    sets = {k: images_of(*v) for k, v in DEFAULT_SETS.items()}
    for text in args.set:
        k, _, rest = text.partition("=")
        folder, _, split = rest.partition(":")
        sets[k] = images_of(Path(folder), split or None)
    choose = {k: images_of(*v) for k, v in DEFAULT_CHOOSE.items() if (v[0] / "images" / v[1]).exists()}
    results = {}
    for text in args.candidate:
        name, spec = parse_candidate(text)
        det = candidate_detector(spec)
        # 1. the threshold, from validation data only
        val_raw = {}
        for k, (imgs, _) in choose.items():
            val_raw[k] = run_raw(det, imgs)[0]
        if args.fixed_conf is not None:
            conf, sweep = args.fixed_conf, {}
        else:
            sweep = {}
            for t in THRESHOLDS:
                tp = fp = fn = 0
                for k, (imgs, labs) in choose.items():
                    r = card_level(imgs, labs, predictor(val_raw[k], t, args.pair_floor))["by_group"]["all"]
                    tp, fp, fn = tp + r["tp"], fp + r["fp"], fn + r["fn"]
                sweep[t] = prf(tp, fp, fn)
            conf = max(THRESHOLDS, key=lambda t: (round(fbeta(sweep[t], 1.0), 4), t))
        res = {"spec": spec, "conf": conf, "val_sweep": {str(t): v for t, v in sweep.items()}}
        if args.val_only:
            print(name, "chosen conf", conf, "val:", sweep.get(conf), flush=True)
            results[name] = res
            continue
        # 2. the measured sets
        for k, (imgs, labs) in sets.items():
            raw, sizes, spi = run_raw(det, imgs)
            cl = card_level(imgs, labs, predictor(raw, conf, args.pair_floor))["by_group"]
            res[k] = {"cards": cl, "corner_map50": pipeline_map50(raw, sizes, labs), "seconds_per_image": round(spi, 4),
                      "sweep": {str(t): card_level(imgs, labs, predictor(raw, t, args.pair_floor))["by_group"]["all"] for t in THRESHOLDS}}
        results[name] = res
        print(name, json.dumps({k: (v["cards"]["all"] if isinstance(v, dict) and "cards" in v else v)
                                for k, v in res.items() if k not in ("val_sweep",)}, indent=None), flush=True)
    if args.val_only:
        return 0
    lines = ["| candidate | conf (chosen on val) | dev P | dev R | dev F1 | dev IMG F1 | dev WIN F1 | dev corner mAP50 | "
             "held-out P | held-out R | held-out F1 | held-out corner mAP50 |", "|" + " --- |" * 12]
    for name, r in results.items():
        d, h = r["dev"]["cards"], r["heldout"]["cards"]
        lines.append(f"| {name} | {r['conf']} | {d['all']['precision']:.3f} | {d['all']['recall']:.3f} | "
                     f"**{d['all']['f1']:.3f}** | {d.get('IMG', {}).get('f1', 0):.3f} | {d.get('WIN', {}).get('f1', 0):.3f} | "
                     f"{r['dev']['corner_map50']:.3f} | {h['all']['precision']:.3f} | {h['all']['recall']:.3f} | "
                     f"**{h['all']['f1']:.3f}** | {r['heldout']['corner_map50']:.3f} |")
    extra = [k for k in sets if k not in DEFAULT_SETS]
    if extra:
        lines += ["", "| candidate | " + " | ".join(f"{k} P / R / F1" for k in extra) + " |", "|" + " --- |" * (len(extra) + 1)]
        for name, r in results.items():
            cells = [f"{r[k]['cards']['all']['precision']:.3f} / {r[k]['cards']['all']['recall']:.3f} / "
                     f"**{r[k]['cards']['all']['f1']:.3f}**" for k in extra]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    md = "\n".join(lines)
    print(md)
    if args.md:
        Path(args.md).parent.mkdir(parents=True, exist_ok=True)
        Path(args.md).write_text(md + "\n")
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
