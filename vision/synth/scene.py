"""Composite cards onto a table surface and return the YOLO corner-index labels.

    import numpy as np
    from vision.synth.scene import Placement, render
    from vision.synth.surfaces import make_surface
    rng = np.random.default_rng(0)
    table = make_surface("felt", 1280, 720, rng)
    image, labels = render([Placement("10H", "proc-classic", (400, 300), 15, 180),
                            Placement("AS", "proc-classic", (700, 320), -80, 180, face_up=False)],
                           table, rng)
    # labels: [CornerLabel(card="10H", class_name="10H", box=(x1, y1, x2, y2), visible=1.0), ...]

Placements are drawn in order (later ones on top).  Each face-up card contributes the boxes
of its corner indices that stay at least `min_visible` visible (not covered by a later card, a
hand, or the image border); a face-down card contributes one "BACK" box (the whole card) when
it is mostly visible.  Optional effects: soft shadows, camera perspective, uneven light,
glare, colour cast, blur, noise, JPEG artefacts, and occluding hands/arms.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..geometry import Box
from .decks import load_deck


@dataclass(frozen=True)
class Placement:
    """One card on the table: `card` in canonical notation ("10H", "JK"; "JK_RED"/"JK_BLACK"
    pick a joker colour), its deck name, centre in pixels, rotation (degrees, counter-clockwise),
    height in pixels, and whether it lies face up."""

    card: str
    deck: str
    center_xy: tuple[float, float]
    angle_deg: float
    card_height_px: float
    face_up: bool = True


@dataclass(frozen=True)
class CornerLabel:
    card: str        # canonical: "10H", "JK", "BACK"
    class_name: str  # name in shared/data/real/classes.txt: "10H", "RED JOKER", "BACK"
    box: Box         # x1, y1, x2, y2 in image pixels
    visible: float   # fraction of the index not covered


def face_key(card: str, face_up: bool = True) -> str:
    if not face_up:
        return "BACK"
    if card == "JK":
        return "JK_RED"
    return card


def class_name_of(key: str) -> str:
    return {"JK_RED": "RED JOKER", "JK_BLACK": "BLACK JOKER"}.get(key, key)


def canonical_of(key: str) -> str:
    return "JK" if key.startswith("JK") else key


def _affine(w: int, h: int, p: Placement, scale: float) -> np.ndarray:
    m = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), p.angle_deg, scale)
    m[:, 2] += np.array(p.center_xy, np.float64) - np.array([w / 2.0, h / 2.0])
    return m


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return pts @ m[:, :2].T + m[:, 2]


def _box_pts(b: Box) -> np.ndarray:
    x1, y1, x2, y2 = b
    return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)


def _draw_hand(canvas: np.ndarray, owner: np.ndarray, rng: np.random.Generator) -> None:
    """A simple arm + hand shape coming in from an image edge."""
    h, w = owner.shape
    skins = [(80, 120, 190), (100, 150, 220), (60, 90, 150), (40, 60, 100), (120, 170, 230), (30, 45, 75)]
    color = np.array(skins[rng.integers(len(skins))], np.float64) * rng.uniform(0.8, 1.15)
    if rng.random() < 0.4:  # sleeve
        sleeve = rng.uniform(20, 230, 3)
    else:
        sleeve = None
    side = rng.integers(4)
    t = rng.uniform(0.1, 0.9)
    start = [(t * w, -20), (w + 20, t * h), (t * w, h + 20), (-20, t * h)][side]
    end = (rng.uniform(0.15, 0.85) * w, rng.uniform(0.15, 0.85) * h)
    arm_w = int(max(8, rng.uniform(0.07, 0.14) * min(h, w)))
    mask = np.zeros((h, w), np.uint8)
    s, e = tuple(int(v) for v in start), tuple(int(v) for v in end)
    cv2.line(mask, s, e, 255, arm_w, cv2.LINE_AA)
    d = np.array(end) - np.array(start)
    d = d / (np.linalg.norm(d) + 1e-6)
    palm_c = (int(end[0] + d[0] * arm_w * 0.6), int(end[1] + d[1] * arm_w * 0.6))
    ang = np.degrees(np.arctan2(d[1], d[0]))
    cv2.ellipse(mask, palm_c, (int(arm_w * 0.95), int(arm_w * 0.75)), ang, 0, 360, 255, -1, cv2.LINE_AA)
    perp = np.array([-d[1], d[0]])
    for k in range(4):
        off = (k - 1.5) * arm_w * 0.4
        base = np.array(palm_c) + d * arm_w * 0.6 + perp * off
        tip = base + d * arm_w * rng.uniform(0.6, 1.2) + perp * rng.uniform(-0.2, 0.2) * arm_w
        cv2.line(mask, tuple(int(v) for v in base), tuple(int(v) for v in tip), 255,
                 max(3, int(arm_w * 0.28)), cv2.LINE_AA)
    thumb_b = np.array(palm_c) + perp * arm_w * 0.8
    thumb_t = thumb_b + (d + perp) * arm_w * 0.5
    cv2.line(mask, tuple(int(v) for v in thumb_b), tuple(int(v) for v in thumb_t), 255, max(3, int(arm_w * 0.3)),
             cv2.LINE_AA)
    a = mask.astype(np.float32)[..., None] / 255.0
    shade = 0.8 + 0.3 * cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), max(3, arm_w / 2))[..., None]
    paint = np.broadcast_to(color, canvas.shape) * shade
    if sleeve is not None:
        sm = np.zeros((h, w), np.uint8)
        mid = (int(start[0] + (end[0] - start[0]) * 0.6), int(start[1] + (end[1] - start[1]) * 0.6))
        cv2.line(sm, s, mid, 255, int(arm_w * 1.3), cv2.LINE_AA)
        sa = sm.astype(np.float32)[..., None] / 255.0
        paint = paint * (1 - sa) + sleeve * shade * sa
        a = np.maximum(a, sa)
    # shadow of the arm
    sh = cv2.GaussianBlur(np.roll(a[..., 0], (int(arm_w * 0.3), int(arm_w * 0.3)), (0, 1)), (0, 0), arm_w / 3)
    canvas *= (1 - 0.35 * sh)[..., None]
    canvas[:] = canvas * (1 - a) + paint * a
    owner[a[..., 0] > 0.5] = -2


def _effects(img: np.ndarray, rng: np.random.Generator, glare: bool = True) -> np.ndarray:
    """Uneven light, glare, colour cast (float image in, float image out)."""
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2)
    light = 1 + rng.uniform(0.0, 0.35) * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy) * 2
    vign = 1 - rng.uniform(0, 0.35) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    img = img * (light * vign * rng.uniform(0.6, 1.25))[..., None]
    img = img * rng.uniform(0.85, 1.15, 3)[None, None, :]
    if rng.random() < 0.35 and glare:  # glare spot
        g = np.zeros((h, w), np.float32)
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        ax = (int(rng.uniform(0.03, 0.2) * w), int(rng.uniform(0.03, 0.2) * h))
        cv2.ellipse(g, c, ax, rng.uniform(0, 180), 0, 360, 1.0, -1)
        g = cv2.GaussianBlur(g, (0, 0), max(ax) / 3 + 1)
        img = img + g[..., None] * rng.uniform(60, 200)
    return img


def _camera(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Blur, sensor noise, JPEG artefacts (uint8 in, uint8 out)."""
    r = rng.random()
    if r < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.4))
    elif r < 0.45:
        k = int(rng.integers(3, 8))
        kern = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        kern = cv2.warpAffine(kern, rot, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    if rng.random() < 0.7:
        img = np.clip(img.astype(np.float32) + rng.normal(0, rng.uniform(1, 8), img.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.uniform(35, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


def render(placements: list[Placement], background: np.ndarray, rng: np.random.Generator | None = None, *,
           effects: bool = True, hands: int = 0, perspective: float = 0.0, min_visible: float = 0.6,
           shadows: bool = True, glare: bool = True, seen: set[str] | None = None) -> tuple[np.ndarray, list[CornerLabel]]:
    """Draw `placements` on a copy of `background` (BGR uint8).

    `hands`: how many occluding arms/hands to draw over the cards.  `perspective`: up to this
    fraction of the image size, the image corners move (a camera not straight above).
    Returns the image (BGR uint8, same size) and the corner labels of what stays visible.  `seen`, when
    given, receives every face-up card with any corner index at least 5 % visible: a detector that reads
    such a card has not made it up (the measurement's precision counts only cards outside `seen` as false).
    """
    rng = rng if rng is not None else np.random.default_rng()
    h, w = background.shape[:2]
    canvas = background.astype(np.float32).copy()
    owner = np.full((h, w), -1, np.int32)
    candidates: list[tuple[int, str, np.ndarray]] = []
    for i, p in enumerate(placements):
        deck = load_deck(p.deck)
        key = face_key(p.card, p.face_up)
        if key not in deck:
            raise KeyError(f"deck {p.deck!r} has no card {key!r}")
        face = deck[key]
        fh, fw = face.shape[:2]
        scale = p.card_height_px / fh
        m = _affine(fw, fh, p, scale)
        corners = _apply(m, _box_pts((0, 0, fw, fh)))
        x1, y1 = np.floor(corners.min(0)).astype(int) - 8
        x2, y2 = np.ceil(corners.max(0)).astype(int) + 8
        rx1, ry1, rx2, ry2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
        if rx2 <= rx1 or ry2 <= ry1:
            continue
        mr = m.copy()
        mr[:, 2] -= (rx1, ry1)
        interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        warped = cv2.warpAffine(face, mr, (rx2 - rx1, ry2 - ry1), flags=interp, borderValue=(0, 0, 0, 0))
        a = warped[..., 3].astype(np.float32) / 255.0
        roi = canvas[ry1:ry2, rx1:rx2]
        if shadows:
            off = max(1, int(p.card_height_px * 0.02))
            sh = np.roll(a, (off, off), (0, 1))
            sh = cv2.GaussianBlur(sh, (0, 0), max(1.0, p.card_height_px * 0.02))
            roi *= (1 - 0.4 * sh)[..., None]
        rgb = warped[..., :3].astype(np.float32) * rng.uniform(0.9, 1.05)
        roi[:] = roi * (1 - a[..., None]) + rgb * a[..., None]
        owner[ry1:ry2, rx1:rx2][a > 0.5] = i
        for b in deck.index_boxes[key]:
            candidates.append((i, key, _apply(m, _box_pts(b))))
    for _ in range(hands):
        _draw_hand(canvas, owner, rng)

    labels: list[CornerLabel] = []
    for i, key, quad in candidates:
        qx1, qy1 = np.floor(quad.min(0)).astype(int)
        qx2, qy2 = np.ceil(quad.max(0)).astype(int) + 1
        full = max(1, (qx2 - qx1) * (qy2 - qy1))
        cx1, cy1, cx2, cy2 = max(0, qx1), max(0, qy1), min(w, qx2), min(h, qy2)
        if cx2 <= cx1 or cy2 <= cy1:
            continue
        qm = np.zeros((qy2 - qy1, qx2 - qx1), np.uint8)
        cv2.fillPoly(qm, [np.round(quad - (qx1, qy1)).astype(np.int32)], 1)
        area = max(1, int(qm.sum()))
        sub_q = qm[cy1 - qy1:cy2 - qy1, cx1 - qx1:cx2 - qx1]
        vis = float(((owner[cy1:cy2, cx1:cx2] == i) & (sub_q > 0)).sum()) / area
        if seen is not None and vis >= 0.05 and key != "BACK":
            seen.add(canonical_of(key))
        if vis < min_visible or (cx2 - cx1) * (cy2 - cy1) / full < min_visible:
            continue
        labels.append(CornerLabel(canonical_of(key), class_name_of(key), (float(qx1), float(qy1), float(qx2),
                                  float(qy2)), vis))

    if perspective > 0:
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = src + rng.uniform(-perspective, perspective, (4, 2)).astype(np.float32) * np.float32([w, h])
        hm = cv2.getPerspectiveTransform(src, dst)
        canvas = cv2.warpPerspective(canvas, hm, (w, h), borderMode=cv2.BORDER_REFLECT)
        warped_labels = []
        for lab in labels:
            pts = cv2.perspectiveTransform(_box_pts(lab.box).reshape(-1, 1, 2).astype(np.float32), hm).reshape(-1, 2)
            x1, y1 = pts.min(0)
            x2, y2 = pts.max(0)
            full = (x2 - x1) * (y2 - y1)
            x1, y1, x2, y2 = max(0, x1), max(0, y1), min(w, x2), min(h, y2)
            if x2 <= x1 or y2 <= y1 or (x2 - x1) * (y2 - y1) / max(full, 1e-6) < min_visible:
                continue
            warped_labels.append(CornerLabel(lab.card, lab.class_name, (float(x1), float(y1), float(x2), float(y2)),
                                             lab.visible))
        labels = warped_labels
    if effects:
        canvas = _effects(canvas, rng, glare)
    img = np.clip(canvas, 0, 255).astype(np.uint8)
    if effects:
        img = _camera(img, rng)
    return img, labels
