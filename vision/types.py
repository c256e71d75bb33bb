"""The data that flows through every vision stage: frames, and the one detection type."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.geometry import Box, center

# The detector's 55 corner-index classes, in the label-index order of shared/data/real/classes.txt.
CORNER_CLASSES = (
    "10C", "10D", "10H", "10S", "2C", "2D", "2H", "2S", "3C", "3D", "3H", "3S", "4C", "4D", "4H", "4S",
    "5C", "5D", "5H", "5S", "6C", "6D", "6H", "6S", "7C", "7D", "7H", "7S", "8C", "8D", "8H", "8S",
    "9C", "9D", "9H", "9S", "AC", "AD", "AH", "AS", "BACK", "BLACK JOKER", "JC", "JD", "JH", "JS",
    "KC", "KD", "KH", "KS", "QC", "QD", "QH", "QS", "RED JOKER",
)


# the name of a card the localiser found and the classifier could not name (the stabiliser numbers each one:
# "?12"); off unless `vision.detector.Detector.unknown_from` is set
UNKNOWN = "?"


@dataclass
class Frame:
    """One picture of a frame source (vision/capture.py)."""

    index: int  # position in the source (files skipped as corrupt still count)
    t: float  # seconds since the start of the source
    image: np.ndarray  # BGR, uint8


@dataclass(frozen=True)
class CardDetection:
    """One physical card seen in a frame.

    `card` is canonical notation ("10H", "AS", "JK" for a joker, "BACK" for a face-down card).
    `box` bounds the card's visible corner indices merged into one card (pixels, original image).
    `corners` are the corner-index boxes it was built from.
    `alternatives` are the other names it may carry, best first, with their scores (the classifier's second
    choices for one look; the vote shares of the other names for a stable card): the multi-frame vote and
    the observer's legality check use them (they are not part of `detect`'s output).
    """

    card: str
    confidence: float
    box: Box
    corners: tuple[Box, ...] = field(default_factory=tuple)
    alternatives: tuple[tuple[str, float], ...] = field(default_factory=tuple)

    @property
    def center(self) -> tuple[float, float]:
        return center(self.box)

    def to_json(self) -> dict:
        return {"card": self.card, "confidence": round(float(self.confidence), 4),
                "box": [int(round(v)) for v in self.box]}
