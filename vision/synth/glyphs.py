"""Suit symbols and index text drawn with OpenCV primitives (no font files, no art licences)."""

from __future__ import annotations

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
