"""A second opinion on the black suits: clubs or spades, read from a wide crop around an index.

The corner classifier (vision/corner_classifier.py) names a card from a 64 px crop of its index alone.  At a
webcam's resolution a small index club is a blob with a stem, and that classifier reads it as a spade (the real
dev photos' webcam scenes: 55 of 113 clubs; models/MODEL.md, rounds five and seventeen).  The card's large pips
beside the index stay plain clubs or spades at the same resolution, and so does the small suit sign beside a
court figure.  This network reads a square of `1 + 2 * margin` times the index's longer side around it (the
index, and whatever of the card's face shows) and says clubs or spades.

`SuitJudge.adjust` only moves probability between a rank's two black cards, for a box the classifier reads as a
clubs or spades card: the log odds of clubs against spades become the classifier's plus `weight` times the
judge's.  In "swap" mode (the default) the card then takes the suit that wins, with the classifier's
probabilities for the two swapped if need be, so its confidence, and whether it passes the threshold, stay the
classifier's; in "pool" mode the two probabilities become those log odds, their sum kept.  `sure` hears the judge
only where it is that sure itself, `below` reads only the suits the classifier is unsure of, `least` skips boxes
under a probability.  These reading choices are kept in the weights' ONNX metadata
(`vision.corner_classifier.write_config`) and were chosen on validation data with training/compare.py
(models/MODEL.md, round seventeen).
Trained by training/train_suit.py.  `Detector()` reads models/cards-suit.onnx when that file is present; none is
shipped (it costs about 4 ms a frame, past the speed goal: models/MODEL.md, round seventeen).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import numpy as np

SUITS = ("C", "S")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CONFIG = {"arch": "v3-suit", "size": 128, "margin": 0.75, "square": True, "weight": 1.0, "below": None, "mode": "swap",
          "sure": None, "least": None}


def build_model(config: dict | None = None):
    """"v3-suit": the corner classifier's "v3" network (YOLOv5n layers 0-6) with a two-way head; "narrow-suit": the
    same layers at half the width (a quarter of the multiply-adds), trained from scratch."""
    import importlib

    import torch.nn as nn

    from .corner_classifier import v3_model

    arch = (config or CONFIG).get("arch", "v3-suit")
    if arch == "narrow-suit":
        importlib.import_module("vision.detector")  # sets ultralytics offline before it is imported
        from ultralytics.nn.modules import C3, Conv

        return nn.Sequential(Conv(3, 8, 6, 2, 2), Conv(8, 16, 3, 2), C3(16, 16, 1), Conv(16, 32, 3, 2), C3(32, 32, 2),
                             Conv(32, 64, 3, 2), C3(64, 64, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                             nn.Linear(64, len(SUITS)))
    if arch != "v3-suit":
        raise ValueError(f"unknown suit judge arch {arch!r} (v3-suit or narrow-suit)")
    m = v3_model()
    m[-1] = nn.Linear(m[-1].in_features, len(SUITS))
    return m


def export_onnx(model, path: str | Path, cfg: dict) -> None:
    from .corner_classifier import export_onnx as export

    export(model, path, cfg)


def black_pairs(class_names: Sequence[str]) -> dict[int, tuple[int, int]]:
    """Class index → (its rank's clubs index, spades index), for every clubs or spades card of `class_names`
    (worked out once per list of names: `adjust` asks it every frame)."""
    return _black_pairs(tuple(class_names))


@cache
def _black_pairs(class_names: tuple[str, ...]) -> dict[int, tuple[int, int]]:
    at = {n: i for i, n in enumerate(class_names)}
    out = {}
    for r in RANKS:
        c, s = at.get(r + "C"), at.get(r + "S")
        if c is not None and s is not None:
            out[c] = out[s] = (c, s)
    return out


class SuitJudge:
    """`clubs(img, boxes)` → P(clubs) per box; `adjust(...)` folds it into a classifier's probabilities."""

    def __init__(self, path: str | Path):
        from .onnx_session import cpu_session

        path = Path(path).with_suffix(".onnx")
        if not path.exists():
            raise FileNotFoundError(f"suit judge weights not found: {path}")
        self.session = cpu_session(path)
        self.input = self.session.get_inputs()[0].name
        meta = self.session.get_modelmeta().custom_metadata_map
        self.config = dict(CONFIG, **json.loads(meta["crop_config"])) if "crop_config" in meta else dict(CONFIG)
        self.path = path

    def clubs(self, img: np.ndarray, boxes, stretch: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
        from .corner_classifier import _batch, _softmax, crop

        if len(boxes) == 0:
            return np.zeros(0)
        c = self.config
        crops = [crop(img, b, c["size"], c["margin"], True, stretch) for b in boxes]
        return _softmax(self.session.run(None, {self.input: _batch(crops)})[0])[:, SUITS.index("C")]

    def adjust(self, img: np.ndarray, boxes, probs: np.ndarray, class_names: Sequence[str],
               stretch: tuple[float, float] = (1.0, 1.0), weight: float | None = None,
               below: float | None = None, sure: float | None = None, least: float | None = None) -> np.ndarray:
        """`probs` (boxes × classes) with each black card's suit judged again (see the module's docstring); only
        the boxes whose most likely class is a clubs or spades card are read, and of those, with `below` (default:
        the config's "below", else all), only the ones whose suit is that unsure: their card's share of the
        rank's two black cards under `below`.  A suit the classifier is sure of costs nothing.  With `sure`
        (default: the config's "sure", else none) the judge is heard only where it is that sure of one suit
        (P(clubs) ≥ `sure` or ≤ 1 − `sure`).  `least` (default: the config's "least", else 0): boxes read under
        that probability are not judged (in "swap" mode a card under the threshold stays under it, so judging it
        costs time for nothing)."""
        w = float(self.config.get("weight", 1.0) if weight is None else weight)
        below = self.config.get("below") if below is None else below
        swap = self.config.get("mode", "swap") == "swap"
        pairs = black_pairs(class_names)
        top = probs.argmax(1)
        least = float(self.config.get("least") or 0.0) if least is None else float(least)
        which = [j for j, k in enumerate(top) if int(k) in pairs and probs[j, int(k)] >= least
                 and (below is None or probs[j, int(k)] < float(below) * probs[j, list(pairs[int(k)])].sum())]
        if not which or w == 0:
            return probs
        q = np.clip(self.clubs(img, [boxes[j] for j in which], stretch), 1e-4, 1 - 1e-4)
        sure = self.config.get("sure") if sure is None else sure
        out = probs.copy()
        for j, qc in zip(which, q, strict=True):
            if sure is not None and 1 - float(sure) < qc < float(sure):
                continue  # the judge is not sure either: the classifier's reading stands
            c, s = pairs[int(top[j])]
            pc, ps = max(float(out[j, c]), 1e-6), max(float(out[j, s]), 1e-6)
            r = np.log(pc / ps) + w * np.log(qc / (1 - qc))
            if swap:  # the suit may change, the card's confidence may not
                if (r > 0) != (pc > ps):
                    out[j, c], out[j, s] = out[j, s], out[j, c]
                continue
            m = float(out[j, c] + out[j, s])
            out[j, c], out[j, s] = m / (1 + np.exp(-r)), m / (1 + np.exp(r))
        return out
