"""How the corner classifier reads the black suits at the *labelled* boxes (the localiser left out).

    python -m training.suit_confusion models/cards-cls.onnx runs/cls10/best-r4b8.onnx

For each classifier and each photo group (real dev webcam scenes `WIN_*`, the same kind of photos in the
training split and in the real val split) it counts label suit → read suit for every labelled clubs or spades
index ("N": read as not an index), with the classifier's stored reading (its `tta`) and with the plain one.
A classifier that reads the training photos right and the unseen ones wrong has memorised them.

    python -m training.suit_confusion models/cards-cls.onnx --judge runs/suit/cards-suit.onnx --weights 0 0.5 1 2

With `--judge` (vision/suit_judge.py) it reads every group, the rendered val split and the held-out deck
included, with the classifier's stored reading and the photos stretched back as the detector reads them, and
counts clubs → spades and spades → clubs with the judge folded in at each weight (0: the classifier alone).
"""

from __future__ import annotations

import argparse
import glob
from collections import Counter
from pathlib import Path

from training.common import REAL, ROOT
from training.evaluate import truth_boxes

GROUPS = {
    "dev WIN": str(REAL / "dev" / "images" / "WIN*"),
    "train WIN": str(ROOT / "runs" / "data" / "real" / "images" / "train" / "WIN*"),
    "val WIN": str(ROOT / "runs" / "data" / "real" / "images" / "val" / "WIN*"),
}
RENDERED = {
    "rendered val": str(ROOT / "runs" / "data" / "synth" / "images" / "val" / "*.jpg"),
    "held-out deck": str(ROOT / "runs" / "data" / "synth_heldout" / "images" / "val" / "*.jpg"),
}


def black_corners(pattern: str):
    """(image, boxes, names) of every labelled clubs or spades index in the photos matching `pattern`."""
    import cv2

    for p in sorted(glob.glob(pattern)):
        img = cv2.imread(p)
        if img is None:
            continue
        label = Path(p.replace("/images/", "/labels/")).with_suffix(".txt")
        black = [(n, b) for n, b in truth_boxes(label, img.shape[1], img.shape[0])
                 if n[-1] in "CS" and not n.startswith("BLACK")]
        if black:
            yield img, [b for _, b in black], [n for n, _ in black]


def main(argv: list[str] | None = None) -> int:
    from vision.corner_classifier import CornerClassifier

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("classifier", nargs="+")
    ap.add_argument("--judge", help="a suit judge's weights (.onnx): read with it folded in at each --weights")
    ap.add_argument("--weights", type=float, nargs="+", default=[0.0, 0.5, 1.0, 2.0])
    ap.add_argument("--below", type=float, default=None, help="read only suits the classifier is this unsure of")
    args = ap.parse_args(argv)
    if args.judge:
        return judged(args.classifier[0], args.judge, args.weights, args.below)
    data = {g: list(black_corners(p)) for g, p in GROUPS.items()}
    for path in args.classifier:
        clf = CornerClassifier(path)
        stored = clf.config.get("tta")
        for tta in (stored, None) if stored else (None,):
            clf.config["tta"] = tta
            for g, items in data.items():
                c: Counter = Counter()
                for img, boxes, names in items:
                    for name, (read, _p) in zip(names, clf.classify(img, boxes), strict=True):
                        c[f"{name[-1]}>{read[-1] if read != 'NONE' else 'N'}"] += 1
                clubs = sum(v for k, v in c.items() if k.startswith("C"))
                print(f"{path} reading={tta or 'plain'} {g}: clubs read as spades {c['C>S']}/{clubs}; "
                      + " ".join(f"{k} {v}" for k, v in sorted(c.items())))
        clf.config["tta"] = stored
    return 0


def judged(classifier: str, judge: str, weights: list[float], below: float | None = None) -> int:
    """Clubs → spades and spades → clubs per group at each judge weight (see the module's docstring)."""
    from vision.corner_classifier import CLASS_NAMES, CornerClassifier
    from vision.detector import squash_stretch
    from vision.suit_judge import SuitJudge

    clf, jd = CornerClassifier(classifier), SuitJudge(judge)
    print(f"classifier {classifier}, judge {judge} (size {jd.config['size']}, margin {jd.config['margin']}, "
          f"below {below})")
    for g, pattern in {**GROUPS, **RENDERED}.items():
        counts = {w: Counter() for w in weights}
        for img, boxes, names in black_corners(pattern):
            st = (squash_stretch(img.shape, boxes), 1.0)
            p = clf.probabilities(img, boxes, stretch=st)
            for w in weights:
                q = jd.adjust(img, boxes, p, CLASS_NAMES, st, weight=w, below=below)
                for name, k in zip(names, q.argmax(1), strict=True):
                    read = CLASS_NAMES[int(k)]
                    counts[w][f"{name[-1]}>{read[-1] if read != 'NONE' else 'N'}"] += 1
                    counts[w]["right"] += read == name
                    counts[w]["all"] += 1
        if not counts[weights[0]]["all"]:
            continue
        clubs = sum(v for k, v in counts[weights[0]].items() if k.startswith("C>"))
        spades = sum(v for k, v in counts[weights[0]].items() if k.startswith("S>"))
        print(f"{g} ({clubs} clubs, {spades} spades): " + "; ".join(
            f"w {w:g}: C>S {c['C>S']} S>C {c['S>C']} right {c['right']}" for w, c in counts.items()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
