"""`rummy-referee detect IMAGE... [--json] [--model PATH] [--backend auto|torch|onnx] [--conf X]`.

Prints, per image, the cards face up on it (contract: shared/contracts/game-log.md, "Detecting
cards in a photo").  With --json, a JSON list with one object per image:
`{"image", "width", "height", "cards": [{"card", "confidence", "box": [x1, y1, x2, y2]}]}`;
an image that cannot be read gets `"error"` (and no `cards`), the others are still processed,
and the exit status is then 1.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

MAX_PIXELS = 80_000_000  # 80 MP: beyond any camera at a card table; a decompression bomb is refused unread
MAX_FILE_BYTES = 200 * 1024 * 1024
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))  # OpenCV's own guard, as a second line


def image_size(path: Path) -> tuple[int, int] | None:
    """(width, height) from the file's header alone (nothing decoded), or None when Pillow cannot tell."""
    try:
        from PIL import Image
    except ImportError:
        return None
    try:
        with Image.open(path) as im:  # lazy: reads the header only
            return int(im.width), int(im.height)
    except Image.DecompressionBombError:  # Pillow's own limit, far beyond ours
        return (-1, -1)
    except Exception:  # not an image Pillow knows (OpenCV may still read it) or a broken header
        return None


def _read(path: str):
    import cv2
    import numpy as np

    p = Path(path)
    if not p.is_file():
        return None, f"no such file: {path}"
    try:
        if p.stat().st_size > MAX_FILE_BYTES:
            return None, f"file too large to be a photo ({p.stat().st_size // (1024 * 1024)} MB): {path}"
        size = image_size(p)
        if size == (-1, -1) or (size is not None and size[0] * size[1] > MAX_PIXELS):
            shown = "more pixels than any photo" if size == (-1, -1) else f"{size[0]}x{size[1]} pixels"
            return None, f"image too large: {shown} (at most {MAX_PIXELS // 1_000_000} megapixels): {path}"
        data = np.fromfile(str(p), dtype=np.uint8)
        img = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    except (OSError, cv2.error, MemoryError) as e:
        return None, f"cannot read image: {path} ({str(e).strip().splitlines()[-1][:120] if str(e) else type(e).__name__})"
    if img is None:
        return None, f"cannot read image: {path}"
    return img, None


def run_detect(images: list[str], model: str | None = None, backend: str = "auto",
               conf: float | None = None, decks: int = 1) -> tuple[list[dict], int]:
    """Detect cards in each image; returns (contract entries, exit status)."""
    from vision.detector import Detector

    detector = None
    results, status = [], 0
    for path in images:
        img, err = _read(path)
        if err:
            results.append({"image": path, "error": err})
            status = 1
            continue
        if detector is None:
            detector = Detector(weights=model, backend=backend, conf=conf)
            detector.decks = decks
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
                                     conf=getattr(args, "conf", None), decks=getattr(args, "decks", 1) or 1)
    except (FileNotFoundError, ValueError) as e:
        print(f"rummy-referee detect: {e}", file=sys.stderr)
        return 2
    if getattr(args, "json", False):
        print(json.dumps(results))
    else:
        print(_table(results))
    return status
