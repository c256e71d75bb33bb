"""Suit symbols and index text drawn with OpenCV primitives (no font files, no art licences)."""

from __future__ import annotations

import functools

import cv2
import numpy as np

RED_SUITS = ("H", "D")


def draw_suit(img: np.ndarray, suit: str, cx: float, cy: float, size: float, color, upside_down=False) -> None:
    """Draw a filled suit symbol of height `size` centred at (cx, cy)."""
    s = size / 2.0
    sgn = -1.0 if upside_down else 1.0

    def pt(dx: float, dy: float) -> tuple[int, int]:
        return (int(round((cx + dx * s) * 16)), int(round((cy + sgn * dy * s) * 16)))

    def circle(dx: float, dy: float, r: float) -> None:
        cv2.circle(img, pt(dx, dy), int(round(r * s * 16)), color, -1, cv2.LINE_AA, shift=4)

    def poly(points) -> None:
        cv2.fillPoly(img, [np.array([pt(x, y) for x, y in points], np.int32)], color, cv2.LINE_AA, shift=4)

    if suit == "D":
        poly([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])
    elif suit == "H":
        circle(-0.42, -0.45, 0.46)
        circle(0.42, -0.45, 0.46)
        poly([(-0.86, -0.33), (0.86, -0.33), (0, 1)])
    elif suit == "S":
        circle(-0.42, 0.25, 0.44)
        circle(0.42, 0.25, 0.44)
        poly([(-0.84, 0.15), (0.84, 0.15), (0, -1)])
        poly([(0, 0.3), (0.3, 1), (-0.3, 1)])
    elif suit == "C":
        circle(0, -0.5, 0.42)
        circle(-0.48, 0.18, 0.42)
        circle(0.48, 0.18, 0.42)
        poly([(0, -0.1), (0.32, 1), (-0.32, 1)])
    else:
        raise ValueError(f"unknown suit {suit!r}")


def text_size(text: str, font: int, scale: float, thickness: int) -> tuple[int, int]:
    (w, h), _ = cv2.getTextSize(text, font, scale, thickness)
    return w, h


def draw_text_fit(img: np.ndarray, text: str, x: float, y_top: float, height: float, color, font: int,
                  thickness_ratio: float = 0.12, max_width: float | None = None, center: bool = False) -> tuple:
    """Draw `text` with its cap height ≈ `height` px, top edge at y_top. Returns its (x1, y1, x2, y2)."""
    _, h1 = text_size(text, font, 1.0, 1)
    scale = height / max(1, h1)
    thickness = max(1, int(round(height * thickness_ratio)))
    w, h = text_size(text, font, scale, thickness)
    if max_width is not None and w > max_width:
        scale *= max_width / w
        w, h = text_size(text, font, scale, thickness)
    x0 = x - w / 2 if center else x
    cv2.putText(img, text, (int(round(x0)), int(round(y_top + h))), font, scale, color, thickness, cv2.LINE_AA)
    return (x0, y_top, x0 + w, y_top + h)


# --------------------------------------------------------------------------- text and suits from a font file
# The "font-*" training decks (vision/synth/decks.py, FONT_DESIGNS) print their indices in the machine's own
# TrueType fonts (Debian's DejaVu and Liberation families), read at training time only: more typefaces than
# OpenCV's few Hershey fonts, so the corner classifier learns an index's shape rather than one lettering.

SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


@functools.lru_cache(maxsize=256)
def ink_mask(text: str, font_path: str) -> np.ndarray:
    """`text` drawn white on black in the font at 160 px, cropped to its ink (uint8)."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(font_path, 160)
    x1, y1, x2, y2 = font.getbbox(text)
    canvas = Image.new("L", (x2 - x1 + 20, y2 - y1 + 20), 0)
    ImageDraw.Draw(canvas).text((10 - x1, 10 - y1), text, fill=255, font=font)
    a = np.asarray(canvas)
    ys, xs = np.nonzero(a > 40)
    if not len(ys):
        raise ValueError(f"{font_path} draws no ink for {text!r}")
    return a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def draw_text_ttf(img: np.ndarray, text: str, x: float, y_top: float, height: float, color, font_path: str,
                  max_width: float | None = None, center: bool = False, upside_down: bool = False) -> tuple:
    """Draw `text` in a TrueType font with its ink `height` px tall, top edge at y_top (as `draw_text_fit`;
    narrowed to `max_width`).  Returns its (x1, y1, x2, y2)."""
    mask = ink_mask(text, font_path)
    mh, mw = mask.shape
    h = height
    w = mw * h / mh
    if max_width is not None and w > max_width:
        w = max_width
    x0 = x - w / 2 if center else x
    _blend(img, mask, x0, y_top, w, h, color, upside_down)
    return (x0, y_top, x0 + w, y_top + h)


def draw_suit_ttf(img: np.ndarray, suit: str, cx: float, cy: float, size: float, color, font_path: str,
                  upside_down: bool = False) -> None:
    """A suit symbol of height `size` centred at (cx, cy), the font's own glyph (as `draw_suit`)."""
    mask = ink_mask(SUIT_CHARS[suit], font_path)
    w = mask.shape[1] * size / mask.shape[0]
    _blend(img, mask, cx - w / 2, cy - size / 2, w, size, color, upside_down)


def _blend(img: np.ndarray, mask: np.ndarray, x0: float, y0: float, w: float, h: float, color,
           upside_down: bool) -> None:
    W, H = max(1, int(round(w))), max(1, int(round(h)))
    a = cv2.resize(mask, (W, H), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    if upside_down:
        a = a[::-1, ::-1]
    X, Y = int(round(x0)), int(round(y0))
    ix1, iy1, ix2, iy2 = max(0, X), max(0, Y), min(img.shape[1], X + W), min(img.shape[0], Y + H)
    if ix2 <= ix1 or iy2 <= iy1:
        return
    a = a[iy1 - Y:iy2 - Y, ix1 - X:ix2 - X, None]
    region = img[iy1:iy2, ix1:ix2, :3].astype(np.float32)
    img[iy1:iy2, ix1:ix2, :3] = (region * (1 - a) + np.asarray(color, np.float32)[:region.shape[2]] * a).astype(np.uint8)
