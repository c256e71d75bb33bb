"""Second opinion on a corner index: a small CNN that names the card from a crop of the index.

The YOLO model finds corner indices; on CPU-trained weights its localisation is learnt well
before its 55-way classification, so `Detector` re-reads each corner box with this classifier
(when its weights are shipped, models/cards-cls.{onnx,pt}).  Classes: the 55 of
shared/data/real/classes.txt plus "NONE" (not a corner index: lets it reject false boxes).

Two crop conventions exist, recorded with the weights (`config`):

* "v1" (the first shipped classifier): the box grown by `margin` of its size on each side,
  clipped to the image and resized to size×size — a tall index is squashed into a square, so
  its shape changes with the card's rotation.  32 px, 6 convolutions, 96 k parameters.
* "v2": a square centred on the box, side = the box's longer side × (1 + 2·margin), padded
  by replicating the border where it leaves the image, resized to size×size (area
  interpolation when shrinking) — the index keeps its proportions at any rotation.  40 px,
  a stride-2 stage and 7 convolutions, 0.30 M parameters (17 M multiply-adds per crop; v1: 8.4 M).

The .pt file holds {"config": ..., "state_dict": ...} (a bare state dict is a v1 model); the
.onnx export keeps the config as JSON in its metadata ("crop_config").  BGR, /255.  Test-time
choices live in the same config (training/set_choices.py): "tta" (also read the crop turned 180°, or
"r4": at every quarter turn; "tta_below" and "tta_turns" say which boxes and which turns),
"views" (extra framings of each box, [dx, dy, scale], probabilities averaged), "table_views" (the framings
read instead when a table pipeline reads a camera's frames at up to `Detector.table_imgsz`) and "conf" (the
card threshold `Detector` uses unless given one) — chosen on validation data, see models/MODEL.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .types import CORNER_CLASSES

SIZE = 32
MARGIN = 0.15
CLASS_NAMES = [*CORNER_CLASSES, "NONE"]
NONE = len(CLASS_NAMES) - 1
TTA = True

V1 = {"arch": "v1", "size": 32, "margin": 0.15, "square": False, "tta": True}
V2 = {"arch": "v2", "size": 40, "margin": 0.15, "square": True, "tta": False}
V3 = {"arch": "v3", "size": 64, "margin": 0.2, "square": True, "tta": False}
CONFIGS = {"v1": V1, "v2": V2, "v3": V3}


def crop(img: np.ndarray, box, size: int = SIZE, margin: float = MARGIN, square: bool = False,
         stretch: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
    """The classifier's input crop of `box` (x1, y1, x2, y2) from a BGR image: size×size×3 uint8.
    `stretch` (sx, sy): read the picture as if it were stretched by sx across and sy down first (square crops
    only): a frame squashed on its way to us (a 16:9 webcam frame saved as a 640×640 photo) is read with its
    cards' own proportions (`Detector.aspect`, `vision.detector.squash_stretch`)."""
    import cv2

    h, w = img.shape[:2]
    x1, y1, x2, y2 = (float(v) for v in box)
    if square:
        sx, sy = (float(v) for v in stretch)
        side = max((x2 - x1) * sx, (y2 - y1) * sy, 2.0) * (1 + 2 * margin)  # in the stretched picture
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        a, b = int(np.floor(cx - side / sx / 2)), int(np.floor(cy - side / sy / 2))
        c, d = a + max(1, int(np.ceil(side / sx))), b + max(1, int(np.ceil(side / sy)))
        if c <= 0 or d <= 0 or a >= w or b >= h:
            return np.zeros((size, size, 3), np.uint8)
        region = img[max(0, b):min(h, d), max(0, a):min(w, c)]
        pads = (max(0, -b), max(0, d - h), max(0, -a), max(0, c - w))
        if any(pads):
            region = cv2.copyMakeBorder(region, *pads, cv2.BORDER_REPLICATE)
        n = min(region.shape[:2])
        return cv2.resize(region, (size, size), interpolation=cv2.INTER_AREA if n > size else cv2.INTER_LINEAR)
    mx, my = (x2 - x1) * margin, (y2 - y1) * margin
    a, b = int(max(0, np.floor(x1 - mx))), int(max(0, np.floor(y1 - my)))
    c, d = int(min(w, np.ceil(x2 + mx))), int(min(h, np.ceil(y2 + my)))
    if c <= a or d <= b:
        return np.zeros((size, size, 3), np.uint8)
    return cv2.resize(img[b:d, a:c], (size, size), interpolation=cv2.INTER_AREA if (c - a) > size else cv2.INTER_LINEAR)


def build_model(config: dict | None = None):
    import torch.nn as nn

    arch = (config or V1)["arch"]

    def conv(cin, cout, stride=1):
        return [nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]

    if arch == "v1":
        return nn.Sequential(*conv(3, 16), *conv(16, 16), nn.MaxPool2d(2), *conv(16, 32), *conv(32, 32), nn.MaxPool2d(2),
                             *conv(32, 64), nn.MaxPool2d(2), *conv(64, 96), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                             nn.Dropout(0.2), nn.Linear(96, len(CLASS_NAMES)))
    if arch == "v2":
        return nn.Sequential(*conv(3, 16), *conv(16, 32, 2), *conv(32, 32), nn.MaxPool2d(2),
                             *conv(32, 64), *conv(64, 64), nn.MaxPool2d(2), *conv(64, 128), *conv(128, 128),
                             nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(128, len(CLASS_NAMES)))
    if arch == "v3":
        return v3_model()
    raise ValueError(f"unknown corner classifier arch {arch!r} (v1, v2 or v3)")


def v3_model():
    """"v3": the first seven layers of YOLOv5n (its backbone to stride 16: 0.29 M parameters, the same
    layer shapes as ultralytics' yolov5n.yaml, so training can start from the COCO weights, see
    training/pretrained.py) on a 64 px square crop, then global average pooling and a linear layer.
    About 20 M multiply-adds per crop."""
    import importlib

    import torch.nn as nn

    importlib.import_module("vision.detector")  # sets ultralytics offline before it is imported
    from ultralytics.nn.modules import C3, Conv

    return nn.Sequential(Conv(3, 16, 6, 2, 2), Conv(16, 32, 3, 2), C3(32, 32, 1), Conv(32, 64, 3, 2), C3(64, 64, 2),
                         Conv(64, 128, 3, 2), C3(128, 128, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                         nn.Linear(128, len(CLASS_NAMES)))


def _batch(crops: list[np.ndarray]) -> np.ndarray:
    x = np.stack(crops).astype(np.float32) / 255.0
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(1, keepdims=True)


def load_checkpoint(path: str | Path) -> tuple[dict, dict]:
    """(config, state dict) of a .pt classifier file (a bare state dict is a v1 model)."""
    import torch

    obj = torch.load(str(path), map_location="cpu", weights_only=True)
    if isinstance(obj, dict) and "state_dict" in obj:
        return dict(obj.get("config") or V1), obj["state_dict"]
    return dict(V1), obj


class CornerClassifier:
    """`classify(img, boxes)` → list of (class name, probability) per box."""

    def __init__(self, path: str | Path, backend: str = "onnx"):
        path = Path(path)
        self.backend = backend
        if backend == "onnx":
            from .onnx_session import cpu_session

            self.session = cpu_session(path.with_suffix(".onnx"))  # workers that do not spin, as the localiser's
            self.input = self.session.get_inputs()[0].name
            meta = self.session.get_modelmeta().custom_metadata_map
            self.config = dict(json.loads(meta["crop_config"])) if "crop_config" in meta else dict(V1)
        else:
            self.config, state = load_checkpoint(path.with_suffix(".pt"))
            self.model = build_model(self.config)
            self.model.load_state_dict(state)
            self.model.eval()

    def logits(self, x: np.ndarray) -> np.ndarray:
        if self.backend == "onnx":
            return self.session.run(None, {self.input: x})[0]
        import torch

        with torch.no_grad():
            return self.model(torch.from_numpy(x)).numpy()

    def crops(self, img: np.ndarray, boxes, stretch: tuple[float, float] = (1.0, 1.0)) -> list[np.ndarray]:
        """The input crops of `boxes`, the picture read as if stretched by `stretch` (across, down) first (`crop`;
        square crops only)."""
        c = self.config
        return [crop(img, b, c["size"], c["margin"], c["square"], stretch) for b in boxes]

    def view_boxes(self, boxes, views: list | None = None) -> list[list]:
        """The boxes read for each view of `views` (default: the config's `views`, else the box itself): (dx, dy,
        scale) shifts by a share of the box size and rescales about the centre.  Reading a few
        framings and averaging tolerates a detector box that sits loose."""
        views = self.config.get("views") if views is None else views
        if not views:
            return [list(boxes)]
        out = []
        for dx, dy, sc in views:
            vb = []
            for x1, y1, x2, y2 in boxes:
                w, h = x2 - x1, y2 - y1
                cx, cy = (x1 + x2) / 2 + dx * w, (y1 + y2) / 2 + dy * h
                vb.append((cx - w * sc / 2, cy - h * sc / 2, cx + w * sc / 2, cy + h * sc / 2))
            out.append(vb)
        return out

    def probabilities(self, img: np.ndarray, boxes, tta: bool | None = None, views: list | None = None,
                      stretch: tuple[float, float] = (1.0, 1.0)) -> np.ndarray:
        """(len(boxes), 56) class probabilities.  With `tta` (default: the model's config), the
        crop turned 180° is read too and the probabilities averaged (a card's two indices are
        180° turns of each other, so both orientations are in the training data); with `tta="r4"`
        the crop is read at all four quarter turns (`_quarter_turns`).  `views`: other framings than the
        config's (`view_boxes`).  `stretch`: the picture read as if stretched so first (`crop`, `Detector.aspect`)."""
        tta = self.config.get("tta", TTA) if tta is None else tta
        crops = [c for vb in self.view_boxes(boxes, views) for c in self.crops(img, vb, stretch)]
        if tta == "r4":  # every quarter turn: an index on a fanned or sideways card is read upright once
            return self._quarter_turns(crops, len(boxes), self.config.get("tta_below"),
                                       tuple(self.config.get("tta_turns", (1, 2, 3))))
        if tta:
            crops = crops + [c[::-1, ::-1] for c in crops]
        q = _softmax(self.logits(_batch(crops)))
        return q.reshape(-1, len(boxes), q.shape[1]).mean(0)

    def _quarter_turns(self, crops: list[np.ndarray], n: int, below: float | None,
                       turns: tuple[int, ...] = (1, 2, 3)) -> np.ndarray:
        """The "r4" reading: every crop as it is, then turned by 90°, 180° and 270° (`turns`, quarter turns
        anticlockwise; the config's "tta_turns") for the boxes whose plain reading (views averaged; "not an
        index" counts) is under `below` (the config's "tta_below"; default: all boxes), the readings
        averaged.  A confident reading costs one pass; only the unsure ones cost more."""
        q = _softmax(self.logits(_batch(crops)))
        p = q.reshape(-1, n, q.shape[1]).mean(0)
        unsure = np.arange(n) if below is None else np.flatnonzero(p.max(1) < float(below))
        if len(unsure):
            views = len(crops) // n
            turned = [np.ascontiguousarray(np.rot90(crops[v * n + j], k)) for k in turns
                      for v in range(views) for j in unsure]
            qt = _softmax(self.logits(_batch(turned))).reshape(len(turns) * views, len(unsure), q.shape[1])
            p[unsure] = (p[unsure] * views + qt.sum(0)) / ((1 + len(turns)) * views)
        return p

    def classify(self, img: np.ndarray, boxes, tta: bool | None = None) -> list[tuple[str, float]]:
        """Class and probability per box."""
        if len(boxes) == 0:
            return []
        p = self.probabilities(img, boxes, tta)
        k = p.argmax(1)
        return [(CLASS_NAMES[int(i)], float(p[j, i])) for j, i in enumerate(k)]


def export_onnx(model, path: str | Path, cfg: dict) -> None:
    """ONNX export (dynamic batch) of a classifier network, with its crop convention and test-time choices
    `cfg` in the metadata ("crop_config"), as `CornerClassifier` reads them."""
    import warnings

    import torch

    size = cfg["size"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, torch.zeros(1, 3, size, size), str(path), input_names=["crops"],
                          output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                          opset_version=18, dynamo=False)
    write_config(path, cfg)


def write_config(path: str | Path, cfg: dict) -> None:
    """Store (or replace) the crop convention and test-time choices `cfg` in an exported classifier's metadata."""
    import onnx

    m = onnx.load(str(path))
    for entry in [e for e in m.metadata_props if e.key == "crop_config"]:
        m.metadata_props.remove(entry)
    entry = m.metadata_props.add()
    entry.key, entry.value = "crop_config", json.dumps(cfg)
    onnx.save(m, str(path))
