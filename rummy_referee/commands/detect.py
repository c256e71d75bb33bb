"""`rummy-referee detect IMAGE... [--json] [--model PATH] [--backend auto|torch|onnx] [--conf X] [--decks N]
[--deck DECK] [--aspect auto|none]` (`--deck`: a deck taught by `enrol`, see vision/enrol/profile.py; `--aspect`:
"auto", the default, reads a square photo squashed across, such as a 16:9 webcam frame saved as 640×640, stretched
back, "none" reads every photo as it comes: `Detector.aspect`).

Prints, per image, the cards face up on it (contract: shared/contracts/game-log.md, "Detecting
cards in a photo").  With --json, a JSON list with one object per image:
`{"image", "width", "height", "cards": [{"card", "confidence", "box": [x1, y1, x2, y2]}]}`;
an image that cannot be read (missing, corrupt, over the pixel limit of vision/images.py) gets
`"error"` (and no `cards`), the others are still processed, and the exit status is then 1.
"""

from __future__ import annotations

import json
import sys

from referee.strict_json import one_line
from vision.images import read_image


def run_detect(images: list[str], model: str | None = None, backend: str = "auto",
               conf: float | None = None, decks: int = 1, deck: str | None = None,
               aspect: str = "auto") -> tuple[list[dict], int]:
    """Detect cards in each image; returns (contract entries, exit status)."""
    from vision.detector import Detector

    def make(taught: str | None = None) -> Detector:
        det = Detector(weights=model, backend=backend, conf=conf, deck=taught)
        det.decks = decks
        det.aspect = None if aspect == "none" else "auto"
        return det

    detector = make(deck) if deck is not None else None  # a bad deck is an error before any photo is read
    results, status = [], 0
    for path in images:
        img, err = read_image(path)
        if err:
            results.append({"image": path, "error": err})
            status = 1
            continue
        if detector is None:
            detector = make()
        h, w = img.shape[:2]
        cards = [d.to_json() for d in detector.detect(img)]
        results.append({"image": path, "width": int(w), "height": int(h), "cards": cards})
    return results, status


def _table(results: list[dict]) -> str:
    lines = []
    for r in results:
        if "error" in r:
            lines.append(f"{r['image']}: ERROR {r['error']}")
            continue
        lines.append(f"{r['image']} ({r['width']}x{r['height']}): {len(r['cards'])} card(s)")
        for c in r["cards"]:
            x1, y1, x2, y2 = c["box"]
            lines.append(f"  {c['card']:>5}  {c['confidence']:.2f}  [{x1}, {y1}, {x2}, {y2}]")
    return "\n".join(lines)


def cli_detect(args) -> int:
    try:
        results, status = run_detect(list(args.images), model=getattr(args, "model", None),
                                     backend=getattr(args, "backend", "auto") or "auto",
                                     conf=getattr(args, "conf", None), decks=getattr(args, "decks", 1) or 1,
                                     deck=getattr(args, "deck", None), aspect=getattr(args, "aspect", "auto") or "auto")
    except (FileNotFoundError, ValueError) as e:
        print(one_line(f"rummy-referee detect: {e}"), file=sys.stderr)
        return 2
    if getattr(args, "json", False):
        print(json.dumps(results))
    else:
        print(_table(results))
    return status
