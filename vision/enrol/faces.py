"""Card faces as images: the rounded shape of a card and where its corner indices are printed.

Used by the renderer (vision/synth/decks.py) for its decks and by enrolment for the faces cut out of a
table's own photos; needs only OpenCV and numpy.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..geometry import Box


def rounded_alpha(h: int, w: int, radius: int) -> np.ndarray:
    """An opaque rounded rectangle (uint8 0/255): the shape of a card."""
    a = np.zeros((h, w), np.uint8)
    cv2.rectangle(a, (radius, 0), (w - 1 - radius, h - 1), 255, -1)
    cv2.rectangle(a, (0, radius), (w - 1, h - 1 - radius), 255, -1)
    for cx, cy in ((radius, radius), (w - 1 - radius, radius), (radius, h - 1 - radius), (w - 1 - radius, h - 1 - radius)):
        cv2.circle(a, (cx, cy), radius, 255, -1, cv2.LINE_AA)
    return a


def find_index_boxes(rgba: np.ndarray) -> list[Box] | None:
    """Corner-index boxes of a rendered card face: small ink blobs inside the top-left corner
    region (not touching the card's edge), and the same box turned 180° for the bottom-right."""
    h, w = rgba.shape[:2]
    rgb = rgba[..., :3]
    hsv = cv2.cvtColor(rgb, cv2.COLOR_BGR2HSV)
    paper = np.median(rgb[int(h * 0.4):int(h * 0.6), int(w * 0.03):int(w * 0.08)].reshape(-1, 3), axis=0)
    diff = np.abs(rgb.astype(np.int16) - paper.astype(np.int16)).max(axis=2)
    ink = ((diff > 70) | (hsv[..., 1] > 90)) & (rgba[..., 3] > 200)
    ink = ink.astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    rx, ry = 0.26 * w, 0.46 * h
    comps = []
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < 6 or x <= 2 or y <= 2 or bw > 0.22 * w or bh > 0.25 * h:
            continue
        if x + bw > rx or y + bh > ry:
            continue
        comps.append([x, y, x + bw, y + bh])
    if not comps:
        return None
    # grow a cluster from the blob nearest the corner, adding blobs within a small gap
    comps.sort(key=lambda b: b[0] + b[1])
    x1, y1, x2, y2 = comps[0]
    gx, gy = 0.03 * w, 0.045 * h
    changed = True
    rest = comps[1:]
    while changed:
        changed = False
        for b in list(rest):
            if b[0] <= x2 + gx and b[2] >= x1 - gx and b[1] <= y2 + gy and b[3] >= y1 - gy:
                x1, y1, x2, y2 = min(x1, b[0]), min(y1, b[1]), max(x2, b[2]), max(y2, b[3])
                rest.remove(b)
                changed = True
    # the suit symbol may sit further below the rank (large-index decks): take a blob right
    # under the cluster, overlapping it horizontally, no wider than it
    for b in sorted(rest, key=lambda b: b[1]):
        if b[1] >= y2 and b[1] - y2 <= 0.09 * h and b[0] < x2 and b[2] > x1 and (b[2] - b[0]) <= 1.3 * (x2 - x1):
            x1, y1, x2, y2 = min(x1, b[0]), min(y1, b[1]), max(x2, b[2]), max(y2, b[3])
            break
    x1, y1, x2, y2 = x1 - 1, y1 - 1, x2 + 1, y2 + 1
    bw, bh = x2 - x1, y2 - y1
    if not (0.04 * w < bw < 0.26 * w and 0.07 * h < bh < 0.46 * h):
        return None
    return [(float(x1), float(y1), float(x2), float(y2)),
            (float(w - 1 - x2), float(h - 1 - y2), float(w - 1 - x1), float(h - 1 - y1))]
