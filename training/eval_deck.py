"""Card-level figures of the shipped detector, general and with taught decks, on the same labelled images.

    python -m training.eval_deck --data runs/data/synth_heldout --split val --deck runs/decks/nicu-default

Each detector reads every image once (`Detector.detect`, the one-deck rule on); precision, recall and F1 as
in `training.evaluate.card_level` (with `strict` where the set records the cards partly showing).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from training.evaluate import card_level, images_of


def main(argv: list[str] | None = None) -> int:
    import cv2

    from vision.detector import Detector

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--split", default="val")
    ap.add_argument("--deck", action="append", default=[], help="a taught deck (repeatable)")
    ap.add_argument("--no-general", action="store_true", help="leave out the general detector")
    a = ap.parse_args(argv)
    imgs, labels = images_of(Path(a.data), a.split)
    specs = ([] if a.no_general else [None]) + a.deck
    for deck in specs:
        det = Detector(deck=deck)
        r = card_level(imgs, labels, lambda p, det=det: {d.card for d in det.detect(cv2.imread(str(p)))
                                                         if d.card != "BACK"})
        print(json.dumps({"detector": deck or "general", "conf": det.conf, **r["by_group"]["all"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
