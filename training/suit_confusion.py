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

GROUPS = {
    "dev WIN": str(REAL / "dev" / "images" / "WIN*"),
    "train WIN": str(ROOT / "runs" / "data" / "real" / "images" / "train" / "WIN*"),
    "val WIN": str(ROOT / "runs" / "data" / "real" / "images" / "val" / "WIN*"),
}


def black_corners(pattern: str):
    import cv2

    from vision.types import CORNER_CLASSES

    for p in sorted(glob.glob(pattern)):
        label = Path(p.replace("/images/", "/labels/")).with_suffix(".txt")
        img = cv2.imread(p)
        if img is None or not label.exists():
            continue
        h, w = img.shape[:2]
        boxes, names = [], []
        for line in label.read_text().splitlines():
            v = line.split()
            if len(v) != 5:
                continue
            name = CORNER_CLASSES[int(v[0])]
            if name[-1] not in "CS" or name.startswith("BLACK"):
                continue
            x, y, bw, bh = map(float, v[1:])
            boxes.append(((x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h))
            names.append(name)
        if boxes:
            yield img, boxes, names


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
