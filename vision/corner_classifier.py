"""Second opinion on a corner index: a small CNN that names the card from a crop of the index.

The YOLO model finds corner indices; on CPU-trained weights its localisation is learnt well
before its 55-way classification, so `Detector` re-reads each corner box with this classifier
(when its weights are shipped, models/cards-cls.{onnx,pt}).  Classes: the 55 of
shared/data/real/classes.txt plus "NONE" (not a corner index: lets it reject false boxes).

Crop convention (training and inference alike): the box grown by `MARGIN` of its size on each
side, clipped to the image, resized to SIZE×SIZE, BGR, /255.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .types import CORNER_CLASSES

SIZE = 32
MARGIN = 0.15
CLASS_NAMES = [*CORNER_CLASSES, "NONE"]
NONE = len(CLASS_NAMES) - 1
TTA = True


def crop(img: np.ndarray, box, size: int = SIZE, margin: float = MARGIN) -> np.ndarray:
    """The classifier's input crop of `box` (x1, y1, x2, y2) from a BGR image: size×size×3 uint8."""
    import cv2

    h, w = img.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    mx, my = (x2 - x1) * margin, (y2 - y1) * margin
    a, b = int(max(0, np.floor(x1 - mx))), int(max(0, np.floor(y1 - my)))
    c, d = int(min(w, np.ceil(x2 + mx))), int(min(h, np.ceil(y2 + my)))
    if c <= a or d <= b:
        return np.zeros((size, size, 3), np.uint8)
    return cv2.resize(img[b:d, a:c], (size, size), interpolation=cv2.INTER_AREA if (c - a) > size else cv2.INTER_LINEAR)


def build_model():
    import torch.nn as nn

    def conv(cin, cout):
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    return nn.Sequential(*conv(3, 16), *conv(16, 16), nn.MaxPool2d(2), *conv(16, 32), *conv(32, 32), nn.MaxPool2d(2),
                         *conv(32, 64), nn.MaxPool2d(2), *conv(64, 96), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(96, len(CLASS_NAMES)))


def _batch(crops: list[np.ndarray]) -> np.ndarray:
    x = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


class CornerClassifier:
    """`classify(img, boxes)` → list of (class name, probability) per box."""

    def __init__(self, path: str | Path, backend: str = "onnx"):
        path = Path(path)
        self.backend = backend
        if backend == "onnx":
            import onnxruntime as ort

            self.session = ort.InferenceSession(str(path.with_suffix(".onnx")), providers=["CPUExecutionProvider"])
            self.input = self.session.get_inputs()[0].name
        else:
            import torch

            self.model = build_model()
            self.model.load_state_dict(torch.load(str(path.with_suffix(".pt")), map_location="cpu", weights_only=True))
            self.model.eval()

    def logits(self, x: np.ndarray) -> np.ndarray:
        if self.backend == "onnx":
            return self.session.run(None, {self.input: x})[0]
        import torch

        with torch.no_grad():
            return self.model(torch.from_numpy(x)).numpy()

    def classify(self, img: np.ndarray, boxes, tta: bool = TTA) -> list[tuple[str, float]]:
        """Class and probability per box.  With `tta`, the crop turned 180° is read too and the
        probabilities averaged (a card's two indices are 180° turns of each other, so both
        orientations are in the training data)."""
        if len(boxes) == 0:
            return []
        crops = [crop(img, b) for b in boxes]
        if tta:
            x = _batch(crops + [c[::-1, ::-1] for c in crops])
            q = _softmax(self.logits(x))
            p = (q[:len(crops)] + q[len(crops):]) / 2
        else:
            p = _softmax(self.logits(_batch(crops)))
        k = p.argmax(1)
        return [(CLASS_NAMES[int(i)], float(p[j, i])) for j, i in enumerate(k)]
