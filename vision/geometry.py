"""Boxes in image pixels: the one `Box` type and the few measures the vision stages share."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels of the original frame


def center(b: Sequence[float]) -> tuple[float, float]:
    return ((b[0] + b[2]) / 2.0, (b[1] + b[3]) / 2.0)


def size(b: Sequence[float]) -> float:
    """The longer side."""
    return max(b[2] - b[0], b[3] - b[1])


def centre_in(box: Sequence[float], region: Sequence[float], pad: float = 0.0) -> bool:
    """Whether `box`'s centre lies in `region` (widened by `pad` pixels on each side)."""
    cx, cy = center(box)
    return region[0] - pad <= cx <= region[2] + pad and region[1] - pad <= cy <= region[3] + pad


def distance(a: Sequence[float], b: Sequence[float]) -> float:
    """Between the centres."""
    (ax, ay), (bx, by) = center(a), center(b)
    return math.hypot(ax - bx, ay - by)


def union(boxes: Iterable[Sequence[float]]) -> Box:
    """The smallest box holding all of them."""
    bs = list(boxes)
    return (min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs))


def area(b: Sequence[float]) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def intersection(a: Sequence[float], b: Sequence[float]) -> Box | None:
    """The box both cover (None when they do not overlap)."""
    box = (max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3]))
    return box if box[2] > box[0] and box[3] > box[1] else None


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union (0 when they do not overlap)."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    if inter <= 0:
        return 0.0
    ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / ua if ua > 0 else 0.0


def best_match(box: Sequence[float], labelled) -> tuple[float, object]:
    """(IoU, label) of the labelled box `box` overlaps most, among (label, box) pairs; (0.0, None) when it
    overlaps none (the first of equal ones)."""
    best, label = 0.0, None
    for c, b in labelled:
        o = iou(box, b)
        if o > best:
            best, label = o, c
    return best, label
