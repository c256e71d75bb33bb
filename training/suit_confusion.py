"""How the corner classifier reads the black suits at the *labelled* boxes (the localiser left out).

    python -m training.suit_confusion models/cards-cls.onnx runs/cls10/best-r4b8.onnx

For each classifier and each photo group (real dev webcam scenes `WIN_*`, the same kind of photos in the
training split and in the real val split) it counts label suit → read suit for every labelled clubs or spades
index ("N": read as not an index), with the classifier's stored reading (its `tta`) and with the plain one.
A classifier that reads the training photos right and the unseen ones wrong has memorised them.
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
    args = ap.parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())
