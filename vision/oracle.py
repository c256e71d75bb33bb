"""Oracle detectors: the renderer's ground truth instead of the trained model, with detector-like noise.

`OracleDetector` reads the truth it is handed frame by frame (the evaluation sets `truth` before each
frame); `TruthDetector` finds each frame's truth in a written recording (truth.jsonl) by the frame's content,
for the demo on a machine without the model. Both measure the pipeline's logic on its own: label what they
produce so, it is not the trained model's.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from referee.cards import ALL_CARDS as DECK
from vision.capture import FolderSource, iter_frames
from vision.types import CardDetection


class OracleDetector:
    """Ground truth from the renderer, with detector-like noise: per-frame dropouts, misreads, box jitter.
    Measures the pipeline's logic on its own (label it so: it is not the trained model)."""

    def __init__(self, rng: np.random.Generator, dropout: float = 0.05, misread: float = 0.02,
                 jitter_px: float = 2.0):
        self.rng, self.dropout, self.misread, self.jitter = rng, dropout, misread, jitter_px
        self.truth: list = []

    def detect(self, frame_bgr: np.ndarray) -> list[CardDetection]:
        out = []
        for card, box, corners in self.truth:
            if self.rng.random() < self.dropout:
                continue
            if card != "BACK" and self.rng.random() < self.misread:
                card = DECK[int(self.rng.integers(len(DECK)))]
            j = self.rng.normal(0, self.jitter, 4)
            b = tuple(float(v + d) for v, d in zip(box, j, strict=True))
            out.append(CardDetection(card, float(self.rng.uniform(0.55, 0.99)), b, corners))
        return out


class TruthDetector(OracleDetector):
    """The oracle for a written recording: finds each frame's ground truth (truth.jsonl) by the frame's
    content, so it works whatever frames a live pipeline skips."""

    def __init__(self, recording_dir: str | Path, rng: np.random.Generator | None = None, **noise):
        super().__init__(rng if rng is not None else np.random.default_rng(0), **noise)
        d = Path(recording_dir)
        lines = (d / "truth.jsonl").read_text(encoding="utf-8").splitlines()
        self._by_hash: dict[bytes, list] = {}
        for f in iter_frames(FolderSource(d / "frames")):
            truth = [(c, tuple(b), ()) for c, b in json.loads(lines[f.index])]
            self._by_hash[hashlib.md5(f.image.tobytes()).digest()] = truth

    def detect(self, frame_bgr: np.ndarray) -> list[CardDetection]:
        self.truth = self._by_hash.get(hashlib.md5(frame_bgr.tobytes()).digest(), [])
        return super().detect(frame_bgr)
