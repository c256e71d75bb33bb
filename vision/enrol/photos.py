"""The cards on an enrolment photo: found, cut out, turned upright and put in reading order.

    cards = find_cards(image)            # [FoundCard(quad, box, face), ...] in reading order
    check_suit_photos({"C": cards_c, ...}, {"C": "clubs.jpg", ...})   # raises EnrolError on a mixed suit

A suit photo shows 13 cards face up, apart from each other, on a table (shared/contracts/game-log.md,
"Teaching the referee a deck").  The table is whatever is at the photo's border: a pixel belongs to a
card when its colour is far from the border's (Otsu's threshold on the colour distance), and each card is
one blob whose outline is close to a rectangle of a card's proportions.  Two cards that touch make one
blob of two cards' size, which is reported, as is a photo with too few or too many cards.

A mixed photo (a heart among the clubs, a spade among the clubs) is found two ways: a card printed in
another ink colour than the rest of its photo, and a card that the general corner classifier reads, sure,
as another suit, unless its suit symbol (the index's lowest ink blob) is more like its own photo's than
that suit's (the classifier is then wrong about an unusual design).  The card is named in the error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from .faces import find_index_boxes, rounded_alpha

FACE_W, FACE_H = 250, 350  # the rectified face, like the renderer's decks
SUIT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


class EnrolError(ValueError):
    """A photo that cannot teach the deck; the message names the photo and says what is wrong."""


@dataclass
class FoundCard:
    quad: np.ndarray        # 4×2 float32, the card's corners in the photo (top-left, top-right, bottom-right, bottom-left)
    box: tuple[int, int, int, int]  # its bounding box in the photo
    face: np.ndarray        # FACE_H×FACE_W×4 BGRA, upright, transparent outside the rounded card
    photo: np.ndarray | None = None  # the photo it was found on
    index: tuple[float, float, float, float] | None = None  # its top-left corner index in face pixels, if known


def _order(pts: np.ndarray) -> np.ndarray:
    """4 corners → top-left, top-right, bottom-right, bottom-left, with a short side on top (portrait)."""
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    p = pts[np.argsort(ang)]  # clockwise in image coordinates, starting left-ish
    # rotate so that p[0]->p[1] is a short side
    if np.linalg.norm(p[1] - p[0]) > np.linalg.norm(p[2] - p[1]):
        p = np.roll(p, -1, axis=0)
    # of the two short sides, the upper one is the top
    if (p[0][1] + p[1][1]) > (p[2][1] + p[3][1]):
        p = np.roll(p, 2, axis=0)
    # p[0] must be the left end of the top side
    if p[0][0] > p[1][0]:
        p = p[[1, 0, 3, 2]]
    return p.astype(np.float32)


def _foreground(img: np.ndarray) -> np.ndarray:
    """Pixels unlike the photo's border (the table), as a cleaned 0/255 mask: the Mahalanobis distance of
    each pixel's Lab colour from the border's colours, above what the border itself reaches."""
    h, w = img.shape[:2]
    lab = cv2.cvtColor(cv2.GaussianBlur(img, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    bw = max(4, int(0.02 * min(h, w)))
    border = np.concatenate([lab[:bw].reshape(-1, 3), lab[-bw:].reshape(-1, 3), lab[:, :bw].reshape(-1, 3),
                             lab[:, -bw:].reshape(-1, 3)])
    mean = border.mean(0)
    cov = np.cov((border - mean).T) + np.eye(3) * 4.0
    inv = np.linalg.inv(cov)
    d = lab.reshape(-1, 3) - mean
    dist = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", d, inv, d), 0)).reshape(h, w)
    db = border - mean
    border_d = np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", db, inv, db), 0))
    thr = max(3.0, 1.15 * float(np.percentile(border_d, 99.5)))
    mask = (dist > thr).astype(np.uint8) * 255
    k = max(3, int(0.006 * min(h, w)) | 1)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((2 * k, 2 * k), np.uint8))
    return _fill_holes(mask)


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 255, -1)
    return out


def _edge_foreground(img: np.ndarray) -> np.ndarray:
    """What the card outlines enclose: the regions that cannot be reached from the photo's border without
    crossing an edge (for a table the colour of the cards)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    med = float(np.median(grey))
    edges = cv2.Canny(grey, max(5.0, 0.4 * med), max(15.0, 1.0 * med))
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    n, lab = cv2.connectedComponents((edges == 0).astype(np.uint8), connectivity=4)
    outside = set(np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))) - {0}
    fg = ~np.isin(lab, list(outside))
    h, w = img.shape[:2]
    k = max(3, int(0.006 * min(h, w)) | 1)
    return cv2.morphologyEx(fg.astype(np.uint8) * 255, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))


def _blobs(mask: np.ndarray, frame_area: float) -> list[tuple]:
    """(contour, min-area rectangle, area, fill of the rectangle, short/long side) of each sizeable blob."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < 0.002 * frame_area:
            continue
        rect = cv2.minAreaRect(c)
        rw, rh = rect[1]
        if min(rw, rh) < 8:
            continue
        out.append((c, rect, area, area / max(rw * rh, 1.0), min(rw, rh) / max(rw, rh)))
    return out


def _split(contour: np.ndarray, shape: tuple[int, ...], typical: float, frame_area: float) -> list[tuple] | None:
    """The cards of a blob of several touching cards (or of one card with a crack of the table's pattern stuck
    to it), found by eroding it until it falls apart into card-shaped parts (each then grown back by as
    much); None when it does not."""
    blob = np.zeros(shape[:2], np.uint8)
    cv2.drawContours(blob, [contour], -1, 255, -1)
    side = np.sqrt(typical)
    for k in (0.02, 0.04, 0.07, 0.1, 0.14, 0.18):
        r = max(1, int(k * side))
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
        parts = _blobs(cv2.erode(blob, kernel), frame_area)
        if len(parts) >= 1:
            grown = []
            for c, *_ in parts:
                m = np.zeros_like(blob)
                cv2.drawContours(m, [c], -1, 255, -1)
                grown.extend(_blobs(cv2.dilate(m, kernel) & blob, frame_area))
            if grown and all(_card_like(b) for b in grown):
                return grown
    return None


def _card_like(b: tuple) -> bool:
    return b[3] > 0.82 and 0.5 < b[4] < 0.85


def _card_blobs(mask: np.ndarray, frame_area: float) -> tuple[list[tuple], list[tuple]]:
    """The card-shaped blobs of a mask (touching cards split apart), and the blobs the size of several cards
    that would not split."""
    blobs = _blobs(mask, frame_area)
    shaped = [b for b in blobs if _card_like(b)]
    if not shaped:
        return [], []
    typical = float(np.median([b[2] for b in shaped]))
    for b in [b for b in blobs if b[2] >= 1.6 * typical or (b[2] > 0.5 * typical and not _card_like(b))]:
        parts = _split(b[0], mask.shape, typical, frame_area)  # touching cards: eroded, they fall apart
        if parts:
            blobs = [o for o in blobs if o is not b] + parts
    cards = [b for b in blobs if _card_like(b) and 0.5 * typical < b[2] < 1.6 * typical]
    big = [b for b in blobs if b[2] >= 1.6 * typical]
    return cards, big


def find_cards(img: np.ndarray, expected: int = 13, name: str = "the photo") -> list[FoundCard]:
    """The separate cards on `img` in reading order (rows top to bottom, left to right in a row).  Raises
    `EnrolError` when it does not find exactly `expected` separate cards."""
    if img is None or img.ndim != 3 or min(img.shape[:2]) < 64:
        raise EnrolError(f"{name}: not a photo of a table")
    h, w = img.shape[:2]
    best: list[tuple] | None = None
    joined: list[tuple] = []
    colour = _foreground(img)
    edges = None
    for kind in ("colour", "outlines", "both"):  # the table's colour first, then the cards' outlines
        if kind != "colour" and edges is None:
            edges = _edge_foreground(img)
        mask = {"colour": colour, "outlines": edges, "both": None}[kind]
        if mask is None:
            mask = colour | edges
        cards, big = _card_blobs(mask, h * w)
        if best is None or abs(len(cards) - expected) < abs(len(best) - expected):
            best, joined = cards, big
        if len(cards) == expected:
            break
    cards = best
    if joined and len(cards) < expected:
        raise EnrolError(f"{name}: {len(cards)} separate cards and {len(joined)} patch(es) the size of several "
                         f"cards: lay the {expected} cards apart so that none touches another")
    if len(cards) != expected:
        what = "no cards" if not cards else f"{len(cards)} separate card{'s' if len(cards) != 1 else ''}"
        raise EnrolError(f"{name}: found {what}, expected {expected} (face up, apart from each other, on a plain "
                         "table that shows around them)")
    found = []
    for c, rect, _a, _f, _r in cards:
        approx = cv2.approxPolyDP(c, 0.02 * cv2.arcLength(c, True), True).reshape(-1, 2).astype(np.float32)
        pts = approx if len(approx) == 4 else cv2.boxPoints(rect).astype(np.float32)
        quad = _order(pts)
        x, y, bw, bh = cv2.boundingRect(c)
        found.append(FoundCard(quad, (int(x), int(y), int(x + bw), int(y + bh)), rectify(img, quad), img))
    return reading_order(found)


def find_jokers(img: np.ndarray, name: str = "the jokers photo") -> list[FoundCard]:
    """The jokers of a deck on one photo: 1 to 4 of them, apart (two, the usual count, tried first)."""
    for n in (2, 1, 3, 4):
        try:
            return find_cards(img, n, name=name)
        except EnrolError:
            continue
    raise EnrolError(f"{name}: found no joker apart from the others (1 to 4 jokers, face up)")


def rectify(img: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The card inside `quad` as an upright FACE_W×FACE_H BGRA face (1.2 % grown, rounded corners)."""
    inset = -0.012  # grown a little: the mask hugs the card, and the index sits close to its edge
    dst = np.float32([[-inset * FACE_W, -inset * FACE_H], [(1 + inset) * FACE_W, -inset * FACE_H],
                      [(1 + inset) * FACE_W, (1 + inset) * FACE_H], [-inset * FACE_W, (1 + inset) * FACE_H]])
    m = cv2.getPerspectiveTransform(quad, dst)
    rgb = cv2.warpPerspective(img, m, (FACE_W, FACE_H), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return np.dstack([rgb, rounded_alpha(FACE_H, FACE_W, int(FACE_W * 0.06))])


def reading_order(cards: list[FoundCard]) -> list[FoundCard]:
    """Rows from top to bottom (a card starts a new row when its centre is more than half a card's height
    below the row's), left to right within a row."""
    if not cards:
        return []
    hs = np.median([c.box[3] - c.box[1] for c in cards])
    by_y = sorted(cards, key=lambda c: (c.box[1] + c.box[3]) / 2)
    rows: list[list[FoundCard]] = []
    for c in by_y:
        cy = (c.box[1] + c.box[3]) / 2
        if rows and abs(cy - np.mean([(r.box[1] + r.box[3]) / 2 for r in rows[-1]])) < 0.5 * hs:
            rows[-1].append(c)
        else:
            rows.append([c])
    return [c for row in rows for c in sorted(row, key=lambda c: c.box[0])]


# ------------------------------------------------------------------ which suit a card shows

GLYPH = 24


def index_box(face: np.ndarray) -> tuple[float, float, float, float] | None:
    boxes = find_index_boxes(face)
    return boxes[0] if boxes else None


def _index_ink(face: np.ndarray, box) -> tuple[np.ndarray, np.ndarray] | None:
    """The corner index's pixels (BGR) and which of them are ink: darker than its paper, or coloured."""
    if box is None:
        return None
    x1, y1, x2, y2 = (int(round(v)) for v in box)
    sub = face[max(0, y1):y2 + 1, max(0, x1):x2 + 1, :3]
    if sub.size == 0:
        return None
    grey = cv2.cvtColor(sub, cv2.COLOR_BGR2GRAY).astype(np.float32)
    hsv = cv2.cvtColor(sub, cv2.COLOR_BGR2HSV)
    return sub, (np.percentile(grey, 90) - grey > 60) | (hsv[..., 1] > 90)


def suit_glyph(face: np.ndarray, box=None) -> np.ndarray | None:
    """The suit symbol of the face's top-left corner index (its lowest sizeable ink blob) as a GLYPH×GLYPH
    float mask, or None when the index is not found."""
    got = _index_ink(face, box if box is not None else index_box(face))
    if got is None:
        return None
    n, lab, stats, _ = cv2.connectedComponentsWithStats(got[1].astype(np.uint8), connectivity=8)
    if n <= 1:
        return None
    big = max(stats[1:, cv2.CC_STAT_AREA])
    comps = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.25 * big]
    low = max(comps, key=lambda i: stats[i, cv2.CC_STAT_TOP] + stats[i, cv2.CC_STAT_HEIGHT])
    x, y, bw, bh = stats[low, :4]
    g = (lab[y:y + bh, x:x + bw] == low).astype(np.float32)
    side = max(bw, bh)
    pad = np.zeros((side, side), np.float32)
    pad[(side - bh) // 2:(side - bh) // 2 + bh, (side - bw) // 2:(side - bw) // 2 + bw] = g
    return cv2.resize(pad, (GLYPH, GLYPH), interpolation=cv2.INTER_AREA)


def ink_colour(face: np.ndarray, box=None) -> np.ndarray | None:
    """The mean Lab colour of the corner index's ink."""
    got = _index_ink(face, box if box is not None else index_box(face))
    if got is None or got[1].sum() < 5:
        return None
    sub, ink = got
    return cv2.cvtColor(sub, cv2.COLOR_BGR2LAB)[ink].astype(np.float32).mean(0)


def _similarity(a: np.ndarray, b: np.ndarray) -> float:
    inter = np.minimum(a, b).sum()
    uni = np.maximum(a, b).sum()
    return float(inter / uni) if uni else 0.0


def check_suit_photos(cards: dict[str, list[FoundCard]], names: dict[str, str],
                      read_suit: Callable[[FoundCard], dict[str, float]] | None = None) -> None:
    """Raise `EnrolError` when a photo holds a card of another suit: its index's ink colour is unlike its
    photo's, or `read_suit` (the general corner classifier's reading: suit -> probability) is sure of
    another suit and the card's suit symbol is not more like its own photo's than that suit's.  The symbol
    alone does not decide (clubs and spades are too alike in a small photo).  Cards whose index cannot be
    read are not judged (the learning copes with them)."""
    boxes = {s: [index_box(c.face) for c in cs] for s, cs in cards.items()}  # found once, used twice
    glyphs = {s: [suit_glyph(c.face, b) if b is not None else None for c, b in zip(cs, boxes[s], strict=True)]
              for s, cs in cards.items()}
    typical = {}
    for s, gs in glyphs.items():
        ok = [g for g in gs if g is not None]
        if len(ok) >= 5:
            typical[s] = np.median(np.stack(ok), 0)
    for s, cs in cards.items():
        colours = [ink_colour(c.face, b) if b is not None else None for c, b in zip(cs, boxes[s], strict=True)]
        ok = [c for c in colours if c is not None]
        if len(ok) >= 5:
            med = np.median(np.stack(ok), 0)
            for i, col in enumerate(colours):
                if col is not None and np.linalg.norm((col - med)[1:]) > 45:
                    raise EnrolError(f"{names[s]}: card {i + 1} (reading order) is printed in another colour than "
                                     f"the other {SUIT_WORDS.get(s, s)}: is it of another suit?")
        if read_suit is not None:
            for i, c in enumerate(cs):
                probs = read_suit(c)
                other = max((o for o in probs if o != s), key=lambda o: probs[o], default=None)
                if other is None or probs[other] < 0.75 or probs.get(s, 0.0) > 0.1:
                    continue
                g = glyphs[s][i]
                if g is not None and s in typical and other in typical and \
                        _similarity(g, typical[s]) > _similarity(g, typical[other]) + 0.02:
                    continue  # its symbol is its photo's: the classifier is wrong about this design
                raise EnrolError(f"{names[s]}: card {i + 1} (reading order) reads as one of the "
                                 f"{SUIT_WORDS.get(other, other)}, not the {SUIT_WORDS.get(s, s)}: each photo "
                                 "shows one suit")


# ------------------------------------------------------------------ one paper colour for the whole deck

PAPER_LEVEL = 235.0  # every channel of a face's paper after white balance (of 255)
PAPER_GAIN = (0.5, 3.0)  # no card's channels are scaled further than this


def paper_colour(face: np.ndarray) -> np.ndarray | None:
    """The BGR colour of a face's paper: the median of its brightest fifth (by luminance), inside the card
    and away from its edge (where the table may show around a rounded corner).  None for a face with no
    opaque pixels."""
    h, w = face.shape[:2]
    y0, y1, x0, x1 = int(0.06 * h), int(0.94 * h), int(0.06 * w), int(0.94 * w)
    inner = face[y0:y1, x0:x1]
    rgb = inner[..., :3].reshape(-1, 3).astype(np.float32)
    if inner.shape[2] == 4:
        rgb = rgb[inner[..., 3].reshape(-1) > 200]
    if len(rgb) == 0:
        return None
    lum = rgb @ np.float32([0.114, 0.587, 0.299])
    bright = rgb[lum >= np.percentile(lum, 80)]
    return np.median(bright, axis=0)


def even_papers(faces: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The faces white-balanced: each face's paper brought to one neutral colour (`PAPER_LEVEL` in every
    channel).

    Each suit is photographed apart, under its own light and the camera's own white balance, so one suit's
    cards can come out grey or tinted where another's are white.  A classifier taught from those faces
    learns the paper's colour as a sign of the suit (found on a rendered deck: its clubs' paper was grey,
    its diamonds' lilac and its spades' and hearts' white, and at the table white clubs were read as spades).
    So each face's channels are scaled to make its paper neutral and equally bright.  Neutral rather than the
    deck's own tint because the four photos cannot tell the deck's tint from their light (a median of them
    came out lilac on that deck), and a camera's white balance makes the paper at the table about neutral
    too; the renderer varies the light from there.  The ink keeps its colour relative to the paper; the
    alpha channel, if any, is unchanged; a channel is scaled at most within `PAPER_GAIN`."""
    out = {}
    for k, f in faces.items():
        p = paper_colour(f)
        if p is None:
            out[k] = f
            continue
        gain = np.clip(PAPER_LEVEL / np.maximum(p, 1.0), *PAPER_GAIN).astype(np.float32)
        g = f.copy()
        g[..., :3] = np.clip(f[..., :3].astype(np.float32) * gain, 0, 255).astype(np.uint8)
        out[k] = g
    return out
