"""Card detector: a YOLO model finds the printed corner indices; corners are merged into cards.

    from vision.detector import Detector
    det = Detector()                       # shipped model, fastest backend (see models/MODEL.md)
    for d in det.detect(frame_bgr):        # list[vision.types.CardDetection]
        print(d.card, d.confidence, d.box, d.corners)

The model detects the 55 classes of shared/data/real/classes.txt (52 cards, BACK, two jokers)
around the rank+suit index printed in a card's corners.  A fully visible card usually shows two
of them (diagonally opposite).  `merge_corners` turns corner detections into one
`CardDetection` per physical card:

* both jokers become "JK"; a BACK detection (the model boxes a face-down card whole) is a card,
  unless a face-up corner index lies inside it (then it outlines a face-up card);
* two detections of the same class that overlap or nearly touch (centre distance under
  `DUPLICATE_RATIO` × corner size) are one corner seen twice;
* two corners of the same class whose centre distance is at most `PAIR_RATIO` × corner size
  (corner size = the longer side of the corner box, the mean of the two) are the two corners of
  one card, paired greedily closest first, each corner used once.  Measured on the labelled
  photos, a card's two index centres lie 1.8–5.6 corner sizes apart (2nd–98th percentile);
  farther apart identical corners stay separate cards (a two-deck game can have both);
* a card's `box` is the union of its corner boxes (so it bounds the indices, not the whole card;
  for BACK it is the card), `confidence` the highest corner confidence, `corners` the corner
  boxes it was built from.

Naming the corners: the YOLO model's own class is used when no corner classifier is shipped.
When models/cards-cls.{onnx,pt} exists (vision/corner_classifier.py, a small CNN trained on
crops of the same labelled corners), YOLO boxes from score `BOX_CONF` are re-read by it; its
class and probability replace YOLO's, and boxes it calls "NONE" are dropped.  On CPU-trained
weights the YOLO localisation is learnt well before its 55-way classification (models/MODEL.md).

Frames of any size are letterboxed to `imgsz` (default 480) on their long side, padded to a
multiple of 32; boxes come back in the frame's own pixels.

Backends: "torch" (ultralytics on a .pt file) or "onnx" (ONNX Runtime on a .onnx export with
dynamic input size); "auto" picks the one measured fastest on the project's 2-core CPU
(`AUTO_ORDER`, see benchmarks/detector.py) among the weights that exist.  Nothing is ever
downloaded: ultralytics runs offline and weights load by local path only.
"""

from __future__ import annotations

import ast
import os
import tempfile
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.corner_classifier import CLASS_NAMES as CLASSIFIER_CLASSES
from vision.geometry import Box
from vision.geometry import area as _area
from vision.geometry import center as _center
from vision.geometry import distance as _dist
from vision.geometry import intersection as _inter
from vision.geometry import size as _size
from vision.geometry import union as _union
from vision.types import CORNER_CLASSES, UNKNOWN, CardDetection

# never download anything (weights, fonts, packages): set before ultralytics is imported
os.environ["YOLO_OFFLINE"] = "true"
os.environ["YOLO_AUTOINSTALL"] = "false"
os.environ.setdefault("YOLO_VERBOSE", "false")
if "YOLO_CONFIG_DIR" not in os.environ:
    os.environ["YOLO_CONFIG_DIR"] = str(Path(tempfile.gettempdir()) / "rummy-referee-yolo")

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
WEIGHTS_STEM = "cards-yolo"
DEFAULT_CONF = 0.5
DEFAULT_IMGSZ = 480
IOU = 0.5
DUPLICATE_RATIO = 0.9
PAIR_RATIO = 6.5
AUTO_ORDER = ("onnx", "torch")  # fastest first, as measured by benchmarks/detector.py
CLASSIFIER_STEM = "cards-cls"
SUIT_JUDGE_STEM = "cards-suit"  # a black-suit judge (vision/suit_judge.py), read with the shipped classifier if present
BOX_CONF = 0.01  # with the corner classifier: YOLO boxes kept from this score, named by the classifier
MAX_CANDIDATES = 120  # at most this many of them (highest YOLO scores) go to the classifier
# an index whose longer side is under this share of the frame's typical index (the median of its named corner
# indices, when it has at least SMALL_MIN_REF) is no card's own index but a picture on a card: a deck's back that
# shows four aces, an ace in a court card's art.  A camera looking down sees every card of a table at about one
# size.  0.6 chosen on validation data: the enrolment practice tables (F0.5 0.9502 -> 0.9530) and the general
# validation splits (unchanged); models/MODEL.md, "Round eight"
SMALL_RATIO = 0.6
SMALL_MIN_REF = 3
# two boxes of different names that share this much of the smaller one lie on one corner index (the indices of two
# visible cards never overlap so: a card over another's index hides it); see `one_name_per_index`
INDEX_OVERLAP = 0.8
# ... and are two looks at one index when each names the other at least this much (its second choice)
MUTUAL_SCORE = 0.1
STRADDLE_PART = 0.3  # a box two other indices each cover this share of, and together `INDEX_OVERLAP`, straddles them
STRADDLE_ROOM = 0.8  # ... when they lie too close for an index between them (`_adjacent`)

JOKER_CLASSES = {"BLACK JOKER", "RED JOKER", "JK", "JOKER"}

# A photo may reach us squashed across: a 16:9 webcam frame saved as a 640×640 square (how photo datasets are often
# exported) makes every corner index narrower than the card's own, and the classifier reads such squashed clubs as
# spades (models/MODEL.md, "Round thirteen").  A camera looking down sees most indices upright or upside down, and an
# upright index box is about 0.6 as wide as tall (log -0.45).  The tallest tenth of a frame's boxes (log width/height)
# lies above -0.85 in 246 of 248 unsquashed frames measured (rendered validation and held-out tables, phone photos),
# and between -1.15 and -0.65 on 16:9 webcam frames saved square, 22 of 30 under -0.85.  With `Detector.aspect` "auto", in a square frame with at least `ASPECT_MIN_BOXES`
# boxes from localiser score `ASPECT_SCORE`, when the tallest tenth (log width/height) lies under `ASPECT_TALL` the
# classifier reads the crops stretched back across by exp(`INDEX_LOG_ASPECT` − that), at most `ASPECT_MAX`.  A
# frame that is not square (a camera's own 16:9 or 4:3) is read as it comes.
INDEX_LOG_ASPECT = -0.45
ASPECT_TALL = -0.85
ASPECT_SCORE = 0.3
ASPECT_MIN_BOXES = 5
ASPECT_MAX = 16 / 9


def default_weights_path(backend: str = "auto") -> Path:
    """The shipped weights (env RUMMY_MODEL overrides): models/cards-yolo.onnx or .pt."""
    env = os.environ.get("RUMMY_MODEL")
    if env:
        return Path(env)
    order = AUTO_ORDER if backend == "auto" else (backend,)
    for b in order:
        p = MODELS_DIR / f"{WEIGHTS_STEM}.{'onnx' if b == 'onnx' else 'pt'}"
        if p.exists():
            return p
    return MODELS_DIR / f"{WEIGHTS_STEM}.{'onnx' if order[0] == 'onnx' else 'pt'}"


def canonical_card(class_name: str) -> str:
    """Model class name → canonical card ("RED JOKER" → "JK", "10H" stays)."""
    name = class_name.strip().upper()
    if name in JOKER_CLASSES:
        return "JK"
    return name


# ------------------------------------------------------------------ merging corners into cards


def merge_corners(corners: list[tuple[str, float, Box]], pair_ratio: float = PAIR_RATIO,
                  duplicate_ratio: float = DUPLICATE_RATIO, combine: str = "max") -> list[CardDetection]:
    """Corner detections (class name, confidence, box) → one CardDetection per physical card.

    `combine`: a paired card's confidence is the higher of its two corners' ("max"), or
    "noisy_or", 1 - (1 - p1)(1 - p2): both indices read as the same card are two pieces of
    evidence."""
    by_card: dict[str, list[tuple[float, Box]]] = {}
    for name, conf, box in corners:
        by_card.setdefault(canonical_card(name), []).append((float(conf), tuple(float(v) for v in box)))
    cards: list[CardDetection] = []
    for card, dets in by_card.items():
        dets.sort(key=lambda d: -d[0])
        if card == "BACK":
            # a face-down card shows no face-up corner index: a BACK box around one is the
            # outline of a face-up card, not a back
            faces = [_center(b) for name, _, b in corners if canonical_card(name) != "BACK"]
            cards += [CardDetection("BACK", c, b, (b,)) for c, b in dets
                      if not any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for x, y in faces)]
            continue
        # 1. the same corner detected twice → keep the more confident one
        kept: list[tuple[float, Box]] = []
        for c, b in dets:
            if any(_dist(b, kb) < duplicate_ratio * (_size(b) + _size(kb)) / 2 for _, kb in kept):
                continue
            kept.append((c, b))
        # 2. pair corners of one card, closest pairs first
        pairs = []
        for i in range(len(kept)):
            for j in range(i + 1, len(kept)):
                bi, bj = kept[i][1], kept[j][1]
                ratio = _dist(bi, bj) / max(1e-6, (_size(bi) + _size(bj)) / 2)
                if ratio <= pair_ratio and not side_by_side(bi, bj):
                    pairs.append((ratio, i, j))
        pairs.sort()
        used: set[int] = set()
        for _, i, j in pairs:
            if i in used or j in used:
                continue
            used |= {i, j}
            (ci, bi), (cj, bj) = kept[i], kept[j]
            conf = 1 - (1 - ci) * (1 - cj) if combine == "noisy_or" else max(ci, cj)
            cards.append(CardDetection(card, conf, _union([bi, bj]), (bi, bj)))
        for i, (c, b) in enumerate(kept):
            if i not in used:
                cards.append(CardDetection(card, c, b, (b,)))
    cards.sort(key=lambda d: (d.box[1], d.box[0]))
    return cards


ELONGATED = 1.5  # an index box this much longer one way than the other: its card lies along that way
SIDE_BY_SIDE = 0.5  # two such boxes less than this share of their long side apart along it lie side by side


def side_by_side(a: Box, b: Box) -> bool:
    """Whether two index boxes lie side by side, so cannot be one card's two corners.  A card's two indices sit
    at opposite corners: on an upright (or upside-down) card, whose index boxes are tall, the second lies a card's
    height lower; on a sideways card (wide boxes) a card's length along.  Two tall boxes (or two wide ones)
    nearly level along their long side are two cards of a fan or a row.  In a fanned club run read at a table's
    scale the 3C read 9C (0.33) beside the real 9C five cards on was taken as the 9C's other index, and both the
    3C and the 9C were lost (basic hand 1, docs/PIPELINE.md)."""
    (aw, ah), (bw, bh) = (a[2] - a[0], a[3] - a[1]), (b[2] - b[0], b[3] - b[1])
    (ax, ay), (bx, by) = _center(a), _center(b)
    if ah >= ELONGATED * aw and bh >= ELONGATED * bw:
        return abs(ay - by) < SIDE_BY_SIDE * (ah + bh) / 2
    if aw >= ELONGATED * ah and bw >= ELONGATED * bh:
        return abs(ax - bx) < SIDE_BY_SIDE * (aw + bw) / 2
    return False


# ------------------------------------------------------------------ backends

def _letterbox(img: np.ndarray, imgsz: int, stride: int = 32) -> tuple[np.ndarray, float, tuple[int, int]]:
    """Resize keeping aspect so the long side is imgsz, pad to a multiple of stride (grey 114)."""
    import cv2

    h, w = img.shape[:2]
    r = min(imgsz / h, imgsz / w)
    nh, nw = int(round(h * r)), int(round(w * r))
    ph, pw = int(np.ceil(nh / stride) * stride), int(np.ceil(nw / stride) * stride)
    top, left = (ph - nh) // 2, (pw - nw) // 2
    resized = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_LINEAR) if (nh, nw) != (h, w) else img
    out = np.full((ph, pw, 3), 114, np.uint8)
    out[top:top + nh, left:left + nw] = resized
    return out, r, (left, top)


def _nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    order = scores.argsort()[::-1]
    keep = []
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    while order.size:
        i = order[0]
        keep.append(i)
        xx1 = np.maximum(boxes[i, 0], boxes[order[1:], 0])
        yy1 = np.maximum(boxes[i, 1], boxes[order[1:], 1])
        xx2 = np.minimum(boxes[i, 2], boxes[order[1:], 2])
        yy2 = np.minimum(boxes[i, 3], boxes[order[1:], 3])
        inter = np.clip(xx2 - xx1, 0, None) * np.clip(yy2 - yy1, 0, None)
        ov = inter / (areas[i] + areas[order[1:]] - inter + 1e-9)
        order = order[1:][ov <= iou]
    return np.array(keep, dtype=np.int64)


# a corner index as a backend reports it: class name, score, box (frame pixels), per-class scores
Corner = tuple[str, float, Box, "np.ndarray | None"]


def _decode_raw(out: np.ndarray, names: list[str], shape: tuple[int, int], r: float, pad: tuple[int, int],
                conf: float) -> list[Corner]:
    """YOLO's raw output (4 + nc, N) in letterboxed pixels → corners in frame pixels, class-agnostic NMS."""
    scores_all = out[4:]
    cls = scores_all.argmax(0)
    scores = scores_all[cls, np.arange(scores_all.shape[1])]
    m = scores >= conf
    if not m.any():
        return []
    cx, cy, bw, bh = out[0, m], out[1, m], out[2, m], out[3, m]
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], 1)
    scores, cls, probs = scores[m], cls[m], scores_all[:, m].T
    keep = _nms(boxes, scores, IOU)[:300]
    boxes = boxes[keep]
    boxes[:, [0, 2]] = (boxes[:, [0, 2]] - pad[0]) / r
    boxes[:, [1, 3]] = (boxes[:, [1, 3]] - pad[1]) / r
    h, w = shape
    boxes[:, [0, 2]] = boxes[:, [0, 2]].clip(0, w)
    boxes[:, [1, 3]] = boxes[:, [1, 3]].clip(0, h)
    return [(names[int(c)], float(sc), tuple(float(v) for v in b), pr)
            for b, sc, c, pr in zip(boxes, scores[keep], cls[keep], probs[keep], strict=True)]


class _OnnxBackend:
    def __init__(self, path: Path, threads: int | None = None):
        from .onnx_session import cpu_session

        self.session = cpu_session(path, threads)  # workers that do not spin (vision/onnx_session.py)
        self.input = self.session.get_inputs()[0]
        meta = self.session.get_modelmeta().custom_metadata_map
        names = ast.literal_eval(meta["names"]) if "names" in meta else {}
        self.names = [names[i] for i in sorted(names)]
        shape = self.input.shape
        self.fixed = (shape[2], shape[3]) if all(isinstance(s, int) for s in shape[2:]) else None

    def corners(self, img: np.ndarray, imgsz: int, conf: float) -> list[Corner]:
        import cv2

        if self.fixed:
            h, w = img.shape[:2]
            r = min(self.fixed[0] / h, self.fixed[1] / w)
            nh, nw = int(round(h * r)), int(round(w * r))
            padded = np.full((self.fixed[0], self.fixed[1], 3), 114, np.uint8)
            top, left = (self.fixed[0] - nh) // 2, (self.fixed[1] - nw) // 2
            padded[top:top + nh, left:left + nw] = cv2.resize(img, (nw, nh))
            pad = (left, top)
        else:
            padded, r, pad = _letterbox(img, imgsz)
        x = np.ascontiguousarray(padded[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255.0
        out = self.session.run(None, {self.input.name: x})[0][0]  # (4 + nc, N)
        return _decode_raw(out, self.names, img.shape[:2], r, pad, conf)


class _TorchBackend:
    """ultralytics weights run directly (no `predict`): the same letterbox and decoding as the ONNX
    backend, so both give the same corners and the per-class scores the one-deck rule needs."""

    def __init__(self, path: Path):
        import torch
        from ultralytics import YOLO

        self.torch = torch
        yolo = YOLO(str(path), task="detect")
        self.model = yolo.model.float().eval()
        names = yolo.names
        self.names = [names[k] for k in sorted(names)] if isinstance(names, dict) else list(names)

    def corners(self, img: np.ndarray, imgsz: int, conf: float) -> list[Corner]:
        padded, r, pad = _letterbox(img, imgsz)
        x = np.ascontiguousarray(padded[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255.0
        with self.torch.inference_mode():
            y = self.model(self.torch.from_numpy(x))
        out = (y[0] if isinstance(y, (list, tuple)) else y)[0].cpu().numpy()
        return _decode_raw(out, self.names, img.shape[:2], r, pad, conf)


class Detector:
    """Frame in (BGR uint8, any size), cards out.  Load once, call `detect` per frame."""

    def __init__(self, weights: str | Path | None = None, backend: str = "auto", conf: float | None = None,
                 imgsz: int | None = None, classifier: str | Path | bool | None = "auto",
                 deck: str | Path | None = None, suit_judge: str | Path | bool | None = "auto"):
        """`classifier`: "auto" uses models/cards-cls.{onnx,pt} when shipped (and `weights` is the
        shipped model), a path uses that file, None/False reads classes from YOLO alone.  `deck`: a deck
        profile taught by `rummy-referee enrol` (a folder, or a deck's name in the dashboard's deck folder):
        its own classifier names the corners (vision/enrol/profile.py); raises `DeckError` when unusable.
        `suit_judge`: the black-suit judge that reads clubs or spades again from around the index
        (vision/suit_judge.py): "auto" uses models/cards-suit.onnx when that file is present (none is shipped) and
        the shipped classifier is read (a taught deck has learnt its own clubs), a path uses that file, None/False none."""
        self.deck = None
        if deck is not None:
            from vision.enrol.profile import load_profile

            self.deck = load_profile(deck)
            classifier = self.deck.classifier
        if backend not in ("auto", "torch", "onnx"):
            raise ValueError(f"unknown backend {backend!r} (auto, torch or onnx)")
        path = Path(weights) if weights is not None else default_weights_path(backend)
        if backend == "auto":
            if weights is None or path.suffix.lower() == ".onnx":
                backend = "onnx" if path.suffix.lower() == ".onnx" else "torch"
            else:
                backend = "torch"
        if not path.exists():
            raise FileNotFoundError(f"detector weights not found: {path}")
        if backend == "onnx" and path.suffix.lower() != ".onnx":
            onnx = path.with_suffix(".onnx")
            if not onnx.exists():
                raise FileNotFoundError(f"the onnx backend needs a .onnx file next to {path}")
            path = onnx
        if backend == "torch" and path.suffix.lower() == ".onnx":
            pt = path.with_suffix(".pt")
            if not pt.exists():
                raise FileNotFoundError(f"the torch backend needs a .pt file next to {path}")
            path = pt
        self.weights = path
        self.backend = backend
        self.conf = DEFAULT_CONF if conf is None else float(conf)
        self.imgsz = DEFAULT_IMGSZ if imgsz is None else int(imgsz)
        self.imgsz_given = imgsz is not None  # chosen by the caller: the table pipeline keeps it (`table_imgsz`)
        self._impl = _OnnxBackend(path) if backend == "onnx" else _TorchBackend(path)
        self.classifier = None
        auto_classifier = classifier == "auto" and self.deck is None
        if classifier == "auto":
            cls_path = MODELS_DIR / f"{CLASSIFIER_STEM}.{'onnx' if backend == 'onnx' else 'pt'}"
            classifier = cls_path if (weights is None and cls_path.exists()) else None
        if classifier:
            from vision.corner_classifier import CornerClassifier

            self.classifier = CornerClassifier(Path(classifier), backend=backend)
        self.suit_judge = None
        if suit_judge == "auto":
            judge_path = MODELS_DIR / f"{SUIT_JUDGE_STEM}.onnx"
            suit_judge = judge_path if (auto_classifier and self.classifier is not None and judge_path.exists()) else None
        if suit_judge and self.classifier is not None:
            from vision.suit_judge import SuitJudge

            self.suit_judge = SuitJudge(Path(suit_judge))
        self.box_conf, self.max_candidates = BOX_CONF, MAX_CANDIDATES
        if self.classifier is not None:
            # the test-time choices made with these weights on validation data (models/MODEL.md)
            cfg = self.classifier.config
            if conf is None and "conf" in cfg:
                self.conf = float(cfg["conf"])
            if imgsz is None and "imgsz" in cfg:
                self.imgsz = int(cfg["imgsz"])
            self.box_conf = float(cfg.get("box_conf", BOX_CONF))
            self.max_candidates = int(cfg.get("max_candidates", MAX_CANDIDATES))
        names = self._impl.names
        names = [names[k] for k in sorted(names)] if isinstance(names, dict) else list(names)
        self.corner_only = len(names) == 1  # trained with one class ("corner index"): names come from the classifier
        if self.corner_only and self.classifier is None:
            raise ValueError(f"{path.name} only finds corner indices (one class, {names[0]!r}); it needs the corner "
                             "classifier (cards-cls.onnx/.pt) to name them: pass classifier=PATH")

    @staticmethod
    def _bgr(frame_bgr: np.ndarray) -> np.ndarray:
        if frame_bgr is None or not isinstance(frame_bgr, np.ndarray) or frame_bgr.ndim not in (2, 3):
            raise ValueError("detect() needs an image array (H×W×3 BGR)")
        if frame_bgr.ndim == 2:
            frame_bgr = np.repeat(frame_bgr[..., None], 3, axis=2)
        elif frame_bgr.shape[2] == 4:
            frame_bgr = frame_bgr[..., :3]
        return np.ascontiguousarray(frame_bgr)

    def scored_candidates(self, frame_bgr: np.ndarray, floor: float | None = None) -> list[Corner]:
        """Every box from score `floor` (default: `BOX_CONF` with the classifier, else the threshold), with
        its class, probability and per-class scores (the classifier's when it names the boxes)."""
        frame_bgr = self._bgr(frame_bgr)
        if self.classifier is None:
            return self._impl.corners(frame_bgr, self.imgsz, self.conf if floor is None else floor)
        return [c for c, _score in self._named_boxes(frame_bgr, floor)]

    def _named_boxes(self, frame_bgr: np.ndarray, floor: float | None = None) -> list[tuple[Corner, float]]:
        """The classifier's reading of the localiser's boxes (see `scored_candidates`), each with the
        localiser's own score."""
        boxes = self._boxes(frame_bgr, min(self.conf, self.box_conf) if floor is None else floor)
        if not boxes:
            return []
        # a table read at its own size frames the crops as chosen for it (the classifier's "table_views")
        views = self.classifier.config.get("table_views") if self.table_imgsz is not None else None
        stretch = self.stretch_for(frame_bgr, boxes)
        probs = self.classifier.probabilities(frame_bgr, [c[2] for c in boxes], views=views, stretch=stretch)
        if self.suit_judge is not None:  # clubs or spades read again from around the index (vision/suit_judge.py)
            probs = self.suit_judge.adjust(frame_bgr, [c[2] for c in boxes], probs, CLASSIFIER_CLASSES, stretch)
        k = probs.argmax(1)
        return [((CLASSIFIER_CLASSES[int(i)], float(probs[j, i]), c[2], probs[j, :-1]), float(c[1]))
                for j, (i, c) in enumerate(zip(k, boxes, strict=True))]

    def stretch_for(self, frame_bgr: np.ndarray, boxes: list[Corner]) -> tuple[float, float]:
        """The stretch (across, down) the classifier reads this frame with: `aspect` when given (None: as it
        comes), else ("auto") from the shape of the localiser's boxes, see `INDEX_LOG_ASPECT`."""
        if self.aspect != "auto":
            return (1.0, 1.0) if self.aspect is None else (float(self.aspect[0]), float(self.aspect[1]))
        if frame_bgr.shape[0] != frame_bgr.shape[1]:
            return (1.0, 1.0)  # a camera's own frame (every table frame): nothing more to look at
        return (squash_stretch(frame_bgr.shape, [c[2] for c in boxes if c[1] >= ASPECT_SCORE]), 1.0)

    def input_size(self, shape: tuple[int, ...]) -> int:
        """The localiser's input size for a frame of this shape: `imgsz`, or with `table_imgsz` the frame's own
        long side up to `table_imgsz` (never less than `imgsz`)."""
        if self.table_imgsz is None:
            return self.imgsz
        return max(self.imgsz, min(int(self.table_imgsz), -(-max(shape[:2]) // 32) * 32))

    def _boxes(self, frame_bgr: np.ndarray, floor: float) -> list[Corner]:
        return sorted(self._impl.corners(frame_bgr, self.input_size(frame_bgr.shape), floor),
                      key=lambda c: -c[1])[:self.max_candidates]

    def localise(self, frame_bgr: np.ndarray, floor: float | None = None) -> list[Corner]:
        """The localiser's own boxes from score `floor` (default `box_conf`), best first, at most
        `max_candidates`, before the classifier names them (enrolment frames its training crops with them)."""
        return self._boxes(self._bgr(frame_bgr), self.box_conf if floor is None else floor)

    def candidates(self, frame_bgr: np.ndarray) -> list[tuple[str, float, Box]]:
        """Every YOLO box the classifier reads (from score `BOX_CONF`, the `MAX_CANDIDATES` best), with the
        classifier's class and probability — "NONE" and low probabilities included (for failure analysis;
        `detect_corners` keeps the confident corner indices).  Without a classifier: YOLO's own boxes."""
        return [(n, p, b) for n, p, b, _ in self.scored_candidates(frame_bgr)]

    def scored_corners(self, frame_bgr: np.ndarray) -> list[Corner]:
        """The confident corner indices (from the threshold), with their per-class scores."""
        return [c for c in self.scored_candidates(frame_bgr) if c[0] != "NONE" and c[1] >= self.conf]

    def detect_corners(self, frame_bgr: np.ndarray) -> list[tuple[str, float, Box]]:
        """Raw corner-index detections: (class name, confidence, box in frame pixels)."""
        return [(n, p, b) for n, p, b, _ in self.scored_corners(frame_bgr)]

    decks: int | None = 1  # how many decks are on the table (the one-deck rule); the pipeline sets the match's
    # the table pipeline may also take the corners read less surely than `conf`, from this score (None: not):
    # its vote over many looks, with each look's second choices, settles them (vision/stability.py)
    floor: float | None = None
    # and, with a floor, the corner indices the localiser finds from this score that the classifier cannot name:
    # cards named "?" (their alternatives the classifier's best guesses), for the players to name (None: not)
    unknown_from: float | None = None
    # the table pipeline reads a camera's frames at up to this input size (their long side), not `imgsz`: a
    # whole table's cards are small in the frame, their indices a few pixels at 512 (vision.pipeline.TABLE_IMGSZ)
    table_imgsz: int | None = None
    # indices far smaller than the frame's typical one are dropped as pictures on a card (`SMALL_RATIO`; 0: off).
    # The table pipeline turns it off: its layout's stock zone already sets a back's pictures aside, and on a
    # spread discard pile an index half covered by the next card is small too (Rummy 500 hand 1 lost a discard
    # and 25 of its 107 events with it on; docs/PIPELINE.md)
    small_ratio: float = SMALL_RATIO
    # how the picture is stretched before its indices are read: "auto" (a square frame squashed across is read
    # stretched back, `INDEX_LOG_ASPECT`), None (as it comes) or (across, down)
    aspect: str | tuple[float, float] | None = "auto"

    def detect(self, frame_bgr: np.ndarray, decks: int | None | str = "table") -> list[CardDetection]:
        """One CardDetection per physical card (see `merge_corners`), the same card at most `decks` times
        in the frame (`resolve_decks`; "table": `self.decks`; None: no limit).  Each card carries its
        `alternatives`: the other names its corners' scores give (best first, from 0.05)."""
        decks = self.decks if decks == "table" else decks
        if self.floor is None or (self.floor >= self.conf and self.unknown_from is None):
            return self._decoded(self.scored_corners(frame_bgr), self.conf, decks)
        # a floor under the threshold lowers it; one at or above it (a taught deck's own threshold may be the
        # floor, 0.3) keeps the threshold, and the cards not named are still shown with `unknown_from`
        lo = min(float(self.floor), self.conf)
        if self.unknown_from is None or self.classifier is None:
            return self._decoded([c for c in self.scored_candidates(frame_bgr) if c[0] != "NONE" and c[1] >= lo],
                                 lo, decks)
        named, unsure = [], []
        for (name, p, box, pr), score in self._named_boxes(self._bgr(frame_bgr)):
            if name != "NONE" and p >= lo:
                named.append((name, p, box, pr))
            elif score >= self.unknown_from:
                unsure.append((name, score, box, pr))
        cards = self._decoded(named, lo, decks)
        return cards + unknown_cards(unsure, cards)

    def _decoded(self, corners: list[Corner], conf: float, decks: int | None) -> list[CardDetection]:
        """`decode_cards` with each card's alternatives, both from the corners as `settled_corners` left them (a
        merged index's mean scores), settled once."""
        corners = settled_corners(corners, self.small_ratio)
        return with_alternatives(_cards_of(corners, conf, decks), corners)


# ------------------------------------------------------------------ what the table guarantees

UNLIMITED = {"BACK", "JK"}  # face-down cards and jokers may appear any number of times


def squash_stretch(shape: tuple[int, ...], boxes: list[Box]) -> float:
    """How much a frame of `shape` whose corner indices the localiser boxed as `boxes` was squashed across (1.0: not,
    or not known): see `INDEX_LOG_ASPECT`."""
    if shape[0] != shape[1] or len(boxes) < ASPECT_MIN_BOXES:
        return 1.0
    logs = [np.log(max(b[2] - b[0], 1e-3) / max(b[3] - b[1], 1e-3)) for b in boxes]
    tall = float(np.percentile(logs, 10))
    if tall >= ASPECT_TALL:
        return 1.0
    return float(min(ASPECT_MAX, np.exp(INDEX_LOG_ASPECT - tall)))


def typical_index_size(corners) -> float | None:
    """The frame's typical corner-index size (median longer side of its named corner indices, backs left out),
    or None with fewer than `SMALL_MIN_REF` of them."""
    sizes = [_size(b) for n, _c, b, *_ in corners if n not in ("NONE", "BACK")]
    return float(np.median(sizes)) if len(sizes) >= SMALL_MIN_REF else None


def without_small_indices(corners: list, typical: float | None = None, ratio: float | None = None) -> list:
    """The corners less those far smaller than the frame's typical index (`ratio`, default `SMALL_RATIO`):
    pictures of cards printed on a card (a back showing four aces), not cards.  Backs (boxed whole) are kept."""
    ratio = SMALL_RATIO if ratio is None else ratio
    if not ratio:  # off (the table pipeline): nothing to compute
        return list(corners)
    typical = typical_index_size(corners) if typical is None else typical
    if typical is None:
        return list(corners)
    return [c for c in corners if c[0] == "BACK" or _size(c[2]) >= ratio * typical]


def _shared(a: Box, b: Box) -> float:
    """How much of the smaller box the two share."""
    x = _inter(a, b)
    return 0.0 if x is None else _area(x) / max(1e-9, min(_area(a), _area(b)))


def one_name_per_index(corners: list[Corner]) -> list[Corner]:
    """One corner index, one name.  The localiser may put two boxes on one index (overlapping under NMS's 0.5),
    and the classifier may name them differently: the 7C of a fanned set read 7C in a wide box and 7S in a tight
    one became two cards, and the 7S a lay-off (Rummy 500 hand 0).  Two boxes of different names that share
    `INDEX_OVERLAP` of the smaller one and each name the other as a second choice (`MUTUAL_SCORE`) are two looks
    at one index: one corner remains, the smaller box (the tighter fit) with the mean of both score vectors, named
    by it.  Overlapping boxes that do not name each other are left alone: in a tightly fanned run the localiser's
    boxes are wider than the index strip that shows, and the 4D's wide box shares 82 % of the 3D's (classic
    hand 3).  Then a box that straddles two neighbouring indices of other names (`_straddling`) is dropped.  Only
    corners with per-class scores (the classifier's or YOLO's) are compared; backs and unnamed boxes stay."""
    out = list(corners)
    while True:
        best = None
        for i in range(len(out)):
            ni, _ci, bi, pi = out[i]
            if ni in ("NONE", "BACK") or pi is None or len(pi) != len(_CLASSES):
                continue
            for j in range(i + 1, len(out)):
                nj, _cj, bj, pj = out[j]
                if nj in ("NONE", "BACK") or pj is None or len(pj) != len(_CLASSES):
                    continue
                if canonical_card(ni) == canonical_card(nj):
                    continue
                sh = _shared(bi, bj)
                if sh < INDEX_OVERLAP or (best is not None and sh <= best[0]):
                    continue
                ki, kj = _CLASS_INDEX.get(canonical_card(nj)), _CLASS_INDEX.get(canonical_card(ni))
                if ki is not None and kj is not None and float(pi[ki]) >= MUTUAL_SCORE \
                        and float(pj[kj]) >= MUTUAL_SCORE:
                    best = (sh, i, j)
        if best is None:
            drop = _straddling(out)  # after the pairs: a wide box read right over a misread tight one is merged
            return [c for k, c in enumerate(out) if k not in drop]
        _sh, i, j = best
        pi, pj = out[i][3], out[j][3]
        small = i if _area(out[i][2]) <= _area(out[j][2]) else j
        mean = (np.asarray(pi, dtype=np.float64) + np.asarray(pj, dtype=np.float64)) / 2
        k = int(mean.argmax())
        merged = (_CLASS_NAMES_RAW[k], float(mean[k]), out[small][2], mean.astype(np.float32))
        out = [c for n, c in enumerate(out) if n not in (i, j)] + [merged]


def _straddling(corners: list[Corner]) -> set[int]:
    """The boxes that sit between two neighbouring indices of other names (`_adjacent`: no room for a third
    between them), each covering `STRADDLE_PART` of it and both together `INDEX_OVERLAP`, read less surely than
    the better of the two: the localiser's box over the QD and QC of a fanned set, read QS (Rummy 500 hand 0).
    A card's own index between its two neighbours' is not one (the KD of KC KD KH, whose neighbours' wide boxes
    cover 87 % of its box)."""
    named = [k for k, c in enumerate(corners) if c[0] not in ("NONE", "BACK")]
    out = set()
    for k in named:
        nk, ck, bk, _ = corners[k]
        ak = _area(bk)
        if ak <= 0:
            continue
        parts = []
        for m in named:
            nm, cm, bm, _ = corners[m]
            if m == k or canonical_card(nm) == canonical_card(nk):
                continue
            x = _inter(bk, bm)
            if x is not None and _area(x) >= STRADDLE_PART * ak:
                parts.append((x, cm, bm))
        for u in range(len(parts)):
            for v in range(u + 1, len(parts)):
                (xu, cu, bu), (xv, cv, bv) = parts[u], parts[v]
                both = _inter(xu, xv)
                covered = _area(xu) + _area(xv) - (_area(both) if both is not None else 0.0)
                if covered >= INDEX_OVERLAP * ak and ck < max(cu, cv) and _adjacent(bu, bv, bk):
                    out.add(k)
    return out


def _adjacent(a: Box, b: Box, between: Box) -> bool:
    """Whether indices `a` and `b` lie too close together for another index between them: their centres nearer
    than `STRADDLE_ROOM` of the extent of the box `between` along the line joining them.  In a fanned meld the
    indices on both sides of a card's are two steps apart (the KD between KC and KH: 1.15 of its box's width; the
    6D between 5D and 7D, read in skewed boxes: 0.98), those of two neighbours one step (the QD and QC under a box
    read QS: 0.72)."""
    (ax, ay), (bx, by) = _center(a), _center(b)
    # the box's side along the line's main direction (a fan runs about along a side of its indices)
    extent = between[2] - between[0] if abs(bx - ax) >= abs(by - ay) else between[3] - between[1]
    return _dist(a, b) < STRADDLE_ROOM * extent


def decode_cards(corners: list[Corner], conf: float, decks: int | None = 1,
                 small_ratio: float | None = None) -> list[CardDetection]:
    """Corners (with per-class scores) → cards (`without_small_indices` with `small_ratio`, default
    `SMALL_RATIO`; 0: off), `one_name_per_index`: `settled_corners`), `merge_corners`, then the one-deck rule
    (`resolve_decks`)."""
    return _cards_of(settled_corners(corners, small_ratio), conf, decks)


def settled_corners(corners: list[Corner], small_ratio: float | None = None) -> list[Corner]:
    """The corners cards are made of: `without_small_indices` (`small_ratio`), then `one_name_per_index`."""
    return one_name_per_index(without_small_indices(corners, ratio=small_ratio))


def _cards_of(corners: list[Corner], conf: float, decks: int | None) -> list[CardDetection]:
    """Settled corners → cards (`merge_corners`, then `resolve_decks` unless `decks` is None)."""
    cards = merge_corners([(n, c, b) for n, c, b, _ in corners])
    return cards if decks is None else resolve_decks(cards, corners, conf, decks)


def with_alternatives(cards: list[CardDetection], corners: list[Corner], k: int = 3,
                      min_score: float = 0.05) -> list[CardDetection]:
    """The cards with their `alternatives`: the `k` best other names of their corners' per-class scores (the
    best corner's score for each name) from `min_score`.  Cards of corners without scores keep none."""
    scores = _corner_scores(corners)
    if not scores:
        return cards
    out = []
    for c in cards:
        v = _card_scores(c, scores)
        if v is None or c.card in UNLIMITED:
            out.append(c)
            continue
        alts: dict[str, float] = {}
        for i in np.argsort(-v)[:k + 2]:
            name = _CLASSES[int(i)]
            p = float(v[int(i)])
            if p < min_score or len(alts) >= k:
                break
            if name != c.card and name not in UNLIMITED and name not in alts:
                alts[name] = round(p, 4)
        out.append(replace(c, alternatives=tuple(alts.items())) if alts else c)
    return out


def _corner_scores(corners: list[Corner]) -> dict[tuple, np.ndarray]:
    """Each corner's per-class scores, by its box."""
    return {tuple(float(v) for v in b): pr for _n, _c, b, pr in corners if pr is not None}


def _card_scores(card: CardDetection, scores: dict[tuple, np.ndarray]) -> np.ndarray | None:
    """A card's score for each corner class: its best corner's (None when none of its corners has scores)."""
    vecs = [scores.get(tuple(float(v) for v in b)) for b in card.corners]
    vecs = [v for v in vecs if v is not None and len(v) == len(_CLASSES)]
    return np.max(np.stack(vecs), 0) if vecs else None


def unknown_cards(corners: list[Corner], named: list[CardDetection], k: int = 3,
                  min_evidence: float = 0.01) -> list[CardDetection]:
    """Corner indices found but not named (score: the localiser's) → cards named `UNKNOWN`, their classifier's
    best guesses as alternatives.  Left out: one whose guesses add up to under `min_evidence`, a corner inside
    a named card's box, or one that may be the other index of a named card (within pairing distance, and that
    name among its guesses).  Two such corners of one card (the same best guess, within pairing distance) are
    one card."""
    out: list[CardDetection] = []
    for _n, score, box, pr in corners:
        cx, cy = _center(box)
        if any(d.box[0] <= cx <= d.box[2] and d.box[1] <= cy <= d.box[3] for d in named):
            continue
        best = [int(i) for i in np.argsort(-pr)[:k + 2] if _CLASSES[int(i)] not in UNLIMITED][:k]
        alts = tuple((_CLASSES[i], round(float(pr[i]), 4)) for i in best)
        guesses = [g for g, _p in alts]
        if sum(float(pr[i]) for i in best) < min_evidence:
            continue  # the classifier is sure it is no card's index (a back, the table's pattern)
        if any(d.card in guesses and min(_dist(box, b) for b in d.corners or (d.box,))
               <= PAIR_RATIO * (_size(box) + _size(d.box)) / 2 for d in named):
            continue
        twin = next((j for j, u in enumerate(out) if u.alternatives[:1] == alts[:1] and len(u.corners) == 1
                     and _dist(box, u.box) <= PAIR_RATIO * (_size(box) + _size(u.box)) / 2), None)
        if twin is not None:
            u = out[twin]
            out[twin] = CardDetection(UNKNOWN, max(u.confidence, score), _union([u.box, box]), (u.box, box),
                                      u.alternatives)
            continue
        out.append(CardDetection(UNKNOWN, float(score), tuple(box), (tuple(box),), alts))
    return out


# the score columns the one-deck rule assigns: the canonical names of the corner classes, jokers and backs left out
_CLASSES = [canonical_card(n) for n in CORNER_CLASSES]
_CLASS_NAMES_RAW = list(CORNER_CLASSES)
_CLASS_INDEX = {n: i for i, n in enumerate(_CLASSES) if n not in UNLIMITED}
_COLS = [i for i, n in enumerate(_CLASSES) if n not in UNLIMITED]
_COL_NAMES = [_CLASSES[i] for i in _COLS]
_COL_INDEX = {n: j for j, n in enumerate(_COL_NAMES)}


def resolve_decks(cards: list[CardDetection], corners: list[Corner], conf: float, decks: int = 1) -> list[CardDetection]:
    """A deck holds each card once (twice with two decks): when the frame has more cards of one name than
    that, they cannot all be right.  The names are then chosen for all the frame's cards at once (an
    assignment: each name at most `decks` times, a card may also be dropped) so that the product of the
    cards' scores is highest; a card's score for a name is its best corner's per-class score (from the
    classifier or YOLO; `corners` are the ones the cards were merged from).  A card with no other name worth
    `conf` is dropped rather than reported twice.  Without per-class scores a card only has its own name, so
    the less confident duplicates are dropped."""
    counts = Counter(c.card for c in cards)
    if not any(n > decks for name, n in counts.items() if name not in UNLIMITED):
        return cards  # the usual frame: nothing more to do
    corner_scores = _corner_scores(corners)
    free = [c for c in cards if c.card in UNLIMITED]
    named = [c for c in cards if c.card not in UNLIMITED]
    eps = 1e-6
    rows = []
    for c in named:
        best = _card_scores(c, corner_scores)
        v = best[_COLS].astype(np.float64) if best is not None else np.zeros(len(_COLS))
        j = _COL_INDEX.get(c.card)
        if j is not None:
            v[j] = max(v[j], c.confidence)
        rows.append(v)
    score = np.stack(rows)  # (cards, names)
    n = len(named)
    # columns: each name `decks` times, then one "drop" column per card (cost of a card below `conf`)
    cost = np.concatenate([np.repeat(-np.log(np.clip(score, eps, 1.0)), decks, axis=1),
                           np.full((n, n), -np.log(max(conf, eps)) + 1e-3)], axis=1)
    from scipy.optimize import linear_sum_assignment

    r, k = linear_sum_assignment(cost)
    out = list(free)
    for i, col in zip(r, k, strict=True):
        if col >= decks * len(_COLS):
            continue  # dropped
        j = col // decks
        c = named[i]
        p = float(score[i, j])
        name = _COL_NAMES[j]
        if p < conf and name != c.card:
            continue
        out.append(c if name == c.card else CardDetection(name, p, c.box, c.corners))
    out.sort(key=lambda d: (d.box[1], d.box[0]))
    return out
