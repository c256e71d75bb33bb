"""Teaching the referee a deck from its four suit photos (and, optionally, a photo of its jokers).

    from vision.enrol.learn import read_photos, teach
    found = read_photos({"C": "clubs.jpg", "D": "diamonds.jpg", "H": "hearts.jpg", "S": "spades.jpg"})
    meta = teach(found, "decks/friday", name="Friday deck", seconds=150, progress=print)

What it does, and why (measured in models/MODEL.md, "Enrolment"):

1. Each photo's 13 cards are found, cut out and put in order (`vision.enrol.photos`); a wrong photo stops
   everything before anything is written (`EnrolError`).  The faces are white-balanced one by one
   (`even_papers`): each suit's photo has its own light, and a classifier taught from grey clubs and white
   spades reads a white club at the table as a spade.
2. The general localiser finds corner indices in a deck it never saw almost as well as in known ones (97.7 %
   of the indices on the held-out rendered deck); what fails is *naming* them (79 % of the found indices
   named right).  So the localiser is kept, and only the corner classifier is taught this deck.
3. Where each card prints its index is read from the photo by the localiser itself, else from the ink in the
   card's corner; then scaled by how the localiser frames this deck's indices on a few practice tables
   (`framing_ratio`: on the photo's 13 small cards its boxes are looser), so the training crops are framed as
   the detector will frame them at the table.
4. Table scenes are rendered with the project's own renderer from the cut-out faces (melds, fans, piles,
   hands over the cards, many surfaces, light and blur), and the classifier is fine-tuned on crops of them (a
   share blurred, as many sharpened: the faces from a photo are softer than the cards at the table):
   crops at the true index boxes (shifted and scaled a little) and at the localiser's own boxes on the
   scenes (its real framing, and its false boxes as "not an index").
5. A part of the scenes is kept apart to check the result and to choose the card threshold; the
   classifier is exported to ONNX beside the faces.  Detection with the deck runs the same networks as
   without it, so it is as fast.

Only `rummy-referee enrol` and the dashboard's "Teach the referee this deck" load this module (it needs
torch and the renderer); reading with a taught deck needs only `vision.enrol.profile`.
"""

from __future__ import annotations

import datetime as _dt
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from ..geometry import Box, best_match, iou
from ..images import read_image
from .photos import (
    FACE_H,
    FACE_W,
    SUIT_WORDS,
    EnrolError,
    FoundCard,
    check_suit_photos,
    even_papers,
    find_cards,
    find_jokers,
    index_box,
)
from .profile import CLASSIFIER, write_meta

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
# share of training crops turned by a random quarter turn: the classifier then reads an index on a sideways or
# fanned card as surely as an upright one (the general classifier is trained the same way, --rot90)
QUARTER_TURNS = 0.5
BLUR = 0.3  # share of training crops blurred
SHARPEN = 0.3  # share sharpened (unsharp mask): the faces from a photo are softer than the cards at the table
Progress = Callable[[float, str], None]


def _quiet(_f: float, _t: str) -> None:
    pass


# ------------------------------------------------------------------ the photos

def read_photos(suits: dict[str, str | Path], jokers: str | Path | None = None,
                images: dict[str, np.ndarray] | None = None, detector=None) -> dict[str, list[FoundCard]]:
    """The cards of each suit photo (and "JK" for the jokers photo), checked, each with its corner index as
    the localiser boxes it.  `images` may hold photos already decoded, keyed like `suits`.  Raises
    `EnrolError` naming the photo."""
    given = {k.upper(): v for k, v in suits.items()}
    if sorted(given) != sorted(SUITS):
        missing = [SUIT_WORDS[s] for s in SUITS if s not in given]
        raise EnrolError(f"one photo per suit is needed; missing: {', '.join(missing)}")
    paths = [str(Path(p).resolve()) for p in given.values()]
    if len(set(paths)) < len(paths):
        raise EnrolError("the same photo is given for two suits: each suit needs its own photo")
    found: dict[str, list[FoundCard]] = {}
    names = {s: str(given[s]) for s in SUITS}
    for s in SUITS:
        img = (images or {}).get(s)
        if img is None:
            img, err = read_image(str(given[s]))
            if err:
                raise EnrolError(f"{names[s]} ({SUIT_WORDS[s]}): {err}")
        found[s] = find_cards(img, 13, name=f"{names[s]} ({SUIT_WORDS[s]})")
    detector = detector or _general_detector()
    for cards in found.values():
        locate_indices(cards, detector)
    check_suit_photos(found, names, suit_reader(detector))
    if jokers is not None:
        img = (images or {}).get("JK")
        if img is None:
            img, err = read_image(str(jokers))
            if err:
                raise EnrolError(f"{jokers} (jokers): {err}")
        found["JK"] = locate_indices(find_jokers(img, name=f"{jokers} (jokers)"), detector)
    return found


def _general_detector():
    from ..detector import Detector

    return Detector()


def locate_indices(cards: list[FoundCard], detector) -> list[FoundCard]:
    """Set each card's `index` (face pixels) from the localiser's boxes on its photo."""
    if cards and cards[0].photo is not None:
        for c, b in zip(cards, _photo_index_boxes(cards[0].photo, cards, detector), strict=True):
            c.index = b
    return cards


def suit_reader(detector):
    """card -> {suit: probability}: the general classifier's reading of the card's two corner indices."""
    from ..corner_classifier import CLASS_NAMES

    suit_of = [n[-1] if n[-1] in "CDHS" and n[:-1] in RANKS else None for n in CLASS_NAMES]

    def read(card: FoundCard) -> dict[str, float]:
        b = card.index if card.index is not None else index_box(card.face)
        if b is None or detector.classifier is None:
            return {}
        x1, y1, x2, y2 = b
        boxes = [b, (FACE_W - 1 - x2, FACE_H - 1 - y2, FACE_W - 1 - x1, FACE_H - 1 - y1)]
        p = detector.classifier.probabilities(np.ascontiguousarray(card.face[..., :3]), boxes).mean(0)
        out: dict[str, float] = {}
        for k, s in enumerate(suit_of):
            if s is not None:
                out[s] = out.get(s, 0.0) + float(p[k])
        return out
    return read


def _redness(face: np.ndarray) -> float:
    lab = cv2.cvtColor(face[..., :3], cv2.COLOR_BGR2LAB).astype(np.float32)
    return float(np.percentile(lab[..., 1], 99))


def cards_of(found: dict[str, list[FoundCard]]) -> dict[str, FoundCard]:
    """Card name → the found card: the suits' cards in A..K order; jokers as JK_RED / JK_BLACK (the redder
    first)."""
    named = {f"{r}{s}": c for s in SUITS for r, c in zip(RANKS, found[s], strict=True)}
    jk = sorted(found.get("JK", []), key=lambda c: -_redness(c.face))
    named.update(zip(("JK_RED", "JK_BLACK"), jk, strict=False))
    return named


# ------------------------------------------------------------------ where the indices are

def _photo_index_boxes(img: np.ndarray, cards: list[FoundCard], detector) -> list[Box | None]:
    """For each found card, its top-left corner index as the localiser boxes it, in face pixels."""
    corners = detector.localise(img, max(0.2, detector.box_conf))
    out: list[Box | None] = []
    for c in cards:
        dst = np.float32([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]])
        m = cv2.getPerspectiveTransform(c.quad, dst)
        best, best_d = None, None
        for _n, _s, b, *_ in corners:
            cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
            if cv2.pointPolygonTest(c.quad.reshape(-1, 1, 2), (float(cx), float(cy)), False) < 0:
                continue
            pts = cv2.perspectiveTransform(np.float32([[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]])
                                           .reshape(-1, 1, 2), m).reshape(-1, 2)
            x1, y1 = pts.min(0)
            x2, y2 = pts.max(0)
            # the bottom-right index, turned 180°, is the top-left one
            if (x1 + x2) / 2 > FACE_W / 2 and (y1 + y2) / 2 > FACE_H / 2:
                x1, y1, x2, y2 = FACE_W - 1 - x2, FACE_H - 1 - y2, FACE_W - 1 - x1, FACE_H - 1 - y1
            if (x1 + x2) / 2 > 0.35 * FACE_W or (y1 + y2) / 2 > 0.35 * FACE_H:
                continue  # a pip or court art, not the index
            d = float(x1 + y1)
            if best_d is None or d < best_d:
                best, best_d = (float(max(0, x1)), float(max(0, y1)), float(x2), float(y2)), d
        out.append(best)
    return out


def index_boxes(faces: dict[str, np.ndarray], located: dict[str, Box | None] | None = None) -> dict[str, list[Box]]:
    """Each face's two corner-index boxes (top-left, and the same turned 180° for bottom-right): the
    localiser's box from the photo when it had one, else the ink in the corner, else the deck's typical
    box (a deck prints every index in the same place)."""
    located = located or {}
    tl: dict[str, Box | None] = {}
    for k, f in faces.items():
        b = located.get(k)
        tl[k] = b if b is not None else index_box(f)
    known = np.array([b for b in tl.values() if b is not None], np.float32)
    typical = tuple(float(v) for v in np.median(known, 0)) if len(known) else (
        0.02 * FACE_W, 0.02 * FACE_H, 0.17 * FACE_W, 0.25 * FACE_H)
    out = {}
    for k, b in tl.items():
        x1, y1, x2, y2 = b if b is not None else typical
        out[k] = [(x1, y1, x2, y2), (FACE_W - 1 - x2, FACE_H - 1 - y2, FACE_W - 1 - x1, FACE_H - 1 - y1)]
    return out


# ------------------------------------------------------------------ how the localiser frames an index

FRAMING_SCENES = 16  # practice tables rendered to measure the framing
FRAMING_TOLERANCE = 0.05  # a framing within 5 % of the localiser's is left as it is


def _scaled(b: Box, r: float) -> Box:
    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    w, h = (b[2] - b[0]) * r, (b[3] - b[1]) * r
    return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


def framing_ratio(deck_name: str, detector, rng: np.random.Generator, scenes: int = FRAMING_SCENES) -> float | None:
    """How much larger (linear, median) the localiser boxes this deck's corner indices on a rendered table than
    the deck's own index boxes say (None: too few indices matched to tell).  The boxes from the suit photos
    are the localiser's on a photo of 13 cards, where each index is small and soft and its box comes out
    about a fifth looser than on a table (measured on the rendered held-out deck: 0.84 of it there).  Crops
    taught at the photo's framing would not look like the crops read at the table."""
    from ..synth.layouts import random_table
    from ..synth.scene import render
    from ..synth.surfaces import list_surfaces, make_surface

    surfaces = list_surfaces()
    ratios = []
    for _ in range(scenes):
        size = int(rng.choice([416, 512, 640]))
        bg = make_surface(surfaces[int(rng.integers(len(surfaces)))], size, size, rng)
        img, labels = render(random_table(rng, size, size, [deck_name]), bg, rng, perspective=0.03,
                             min_visible=0.25)
        found = [c[2] for c in detector.localise(img) if c[1] >= 0.3]
        if not found:
            continue
        for lab in labels:
            if lab.card == "BACK" or lab.visible < 0.6:
                continue
            b = lab.box
            best = max(found, key=lambda f, b=b: iou(f, b))
            if iou(best, b) >= 0.3:
                ratios.append(np.sqrt((best[2] - best[0]) * (best[3] - best[1])
                                      / max(1e-6, (b[2] - b[0]) * (b[3] - b[1]))))
    return float(np.median(ratios)) if len(ratios) >= 20 else None


# ------------------------------------------------------------------ crops

def _scene_crops(img, labels, cands, crop, cls_index, none, rng, jitter: int = 2):
    """Crops of one scene: the true boxes shifted/scaled a little, the localiser's boxes named by overlap
    (IoU ≥ 0.5) or "not an index" (IoU < 0.2), and random patches of the table and the cards' faces."""
    xs, ys = [], []
    # `labels` hold every index at least a quarter visible: the well visible ones are taught, the others
    # only keep a localiser box on them from being taught as "not an index"
    every = [lab.box for lab in labels]
    boxes = [(cls_index[lab.class_name], lab.box) for lab in labels if lab.class_name in cls_index
             and lab.visible >= 0.6]
    for c, b in boxes:
        bw, bh = b[2] - b[0], b[3] - b[1]
        for _ in range(jitter):
            dx, dy = rng.normal(0, 0.08, 2) * (bw, bh)
            s = rng.uniform(0.85, 1.2)
            cx, cy = (b[0] + b[2]) / 2 + dx, (b[1] + b[3]) / 2 + dy
            xs.append(crop(img, (cx - bw * s / 2, cy - bh * s / 2, cx + bw * s / 2, cy + bh * s / 2)))
            ys.append(c)
    for _n, _s, cb, *_ in cands:
        best, cls = best_match(cb, boxes)
        if best >= 0.5:
            xs.append(crop(img, cb))
            ys.append(cls)
        elif best < 0.2 and all(iou(cb, b) < 0.1 for b in every):
            xs.append(crop(img, cb))
            ys.append(none)
    h, w = img.shape[:2]
    sizes = [(b[2] - b[0], b[3] - b[1]) for _, b in boxes] or [(0.05 * w, 0.08 * h)]
    for _ in range(3):
        bw, bh = sizes[rng.integers(len(sizes))]
        bw, bh = bw * rng.uniform(0.7, 1.5), bh * rng.uniform(0.7, 1.5)
        x1, y1 = rng.uniform(0, max(1, w - bw)), rng.uniform(0, max(1, h - bh))
        nb = (x1, y1, x1 + bw, y1 + bh)
        if all(iou(nb, b) < 0.1 for b in every):
            xs.append(crop(img, nb))
            ys.append(none)
    return xs, ys


def augment(batch: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Quarter turns, small turns and shifts, light, colour, blur or sharpening, noise and low resolution, as a
    webcam frame varies."""
    out = np.empty_like(batch)
    size = batch.shape[1]
    for i, im in enumerate(batch):
        if rng.random() < QUARTER_TURNS:
            im = np.ascontiguousarray(np.rot90(im, int(rng.integers(1, 4))))
        m = cv2.getRotationMatrix2D((size / 2, size / 2), rng.normal(0, 6), rng.uniform(0.92, 1.08))
        if rng.random() < 0.3:
            axis = rng.integers(2)
            m[axis, :2] *= rng.uniform(0.65, 1.0)
            m[axis, 2] = size / 2 - (m[axis, 0] + m[axis, 1]) * size / 2
        m[:, 2] += rng.normal(0, 1.5, 2)
        im = cv2.warpAffine(im, m, (size, size), borderMode=cv2.BORDER_REPLICATE)
        if rng.random() < 0.3:
            r = rng.uniform(0.45, 0.9)
            small = cv2.resize(im, (max(4, int(size * r)),) * 2, interpolation=cv2.INTER_AREA)
            im = cv2.resize(small, (size, size), interpolation=cv2.INTER_LINEAR)
        im = im.astype(np.float32) * rng.uniform(0.65, 1.25) + rng.uniform(-25, 25)
        im = im * rng.uniform(0.88, 1.12, 3)
        r = rng.random()
        if r < BLUR:
            im = cv2.GaussianBlur(im, (0, 0), rng.uniform(0.3, 1.1))
        elif r < BLUR + SHARPEN:
            soft = cv2.GaussianBlur(im, (0, 0), rng.uniform(0.6, 1.5))
            im = im + rng.uniform(0.4, 1.5) * (im - soft)
        if rng.random() < 0.5:
            im = im + rng.normal(0, rng.uniform(1, 8), im.shape)
        out[i] = np.clip(im, 0, 255).astype(np.uint8)
    return out


# ------------------------------------------------------------------ the learning

def teach(found: dict[str, list[FoundCard]], out: str | Path, *, name: str | None = None,
          photos: dict[str, str] | None = None, seconds: float = 180.0, scenes: int = 360, seed: int = 0,
          threads: int | None = None, progress: Progress | None = None, detector=None,
          base: str | Path | None = None) -> dict:
    """Learn the deck of `found` (see `read_photos`) and write its profile to the folder `out` (replaced
    whole when it exists; written to a temporary folder first, so a failure leaves nothing half-written).
    `seconds`: the time for fine-tuning; `scenes`: rendered tables (a sixth kept for checking); `base`: the
    classifier checkpoint fine-tuned (default: the shipped one).  Returns the profile's metadata (deck.json)."""
    import torch

    from ..corner_classifier import (
        CLASS_NAMES,
        NONE,
        build_model,
        crop,
        export_onnx,
        load_checkpoint,
        write_config,
    )
    from ..detector import CLASSIFIER_STEM, MODELS_DIR, Detector, decode_cards
    from ..synth.decks import Deck, load_deck, register_deck
    from ..synth.layouts import random_table
    from ..synth.scene import render
    from ..synth.surfaces import list_surfaces, make_surface

    progress = progress or _quiet
    t_start = time.perf_counter()
    out = Path(out)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)
    progress(0.01, "reading the photos")
    named = cards_of(found)  # each card's index was boxed on its photo by `read_photos` (or the dashboard)
    # one paper colour for the deck: each suit's photo has its own light (even_papers says why)
    faces = even_papers({k: c.face for k, c in named.items()})
    located: dict[str, Box | None] = {k: c.index for k, c in named.items()}
    detector = detector or Detector()
    boxes = index_boxes(faces, located)
    deck_name = f"enrolled-{seed}-{id(found)}"
    back = load_deck("proc-classic")["BACK"]
    faces_b = dict(faces)
    faces_b["BACK"] = cv2.resize(back, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    boxes["BACK"] = [(0.0, 0.0, FACE_W - 1.0, FACE_H - 1.0)]
    licence = "the table's own cards (enrolment photos)"
    register_deck(Deck(deck_name, faces_b, boxes, licence=licence))
    # the boxes come from the photo, where the localiser frames an index more loosely than at a table: the
    # practice tables' indices are boxed as the localiser boxes them there (`framing_ratio`)
    progress(0.015, "measuring how the cards' indices are framed")
    ratio = framing_ratio(deck_name, detector, np.random.default_rng(seed + 1))
    if ratio is not None and abs(np.log(ratio)) > FRAMING_TOLERANCE:
        boxes = {k: (v if k == "BACK" else [_scaled(b, ratio) for b in v]) for k, v in boxes.items()}
        register_deck(Deck(deck_name, faces_b, boxes, licence=licence))

    base = Path(base) if base is not None else MODELS_DIR / f"{CLASSIFIER_STEM}.pt"
    cfg, state = load_checkpoint(base)
    cls_index = {n: i for i, n in enumerate(CLASS_NAMES)}

    def cut(img, b):
        return crop(img, b, cfg["size"], cfg["margin"], cfg["square"])

    # 1. rendered tables of this deck, and their crops
    surfaces = list_surfaces()
    n_val = max(4, scenes // 6)
    train_x, train_y, val_scenes = [], [], []
    t0 = time.perf_counter()
    for i in range(scenes):
        size = int(rng.choice([416, 512, 640]))
        w, h = (size, size) if rng.random() < 0.5 else (int(size * 1.6), size)
        bg = make_surface(surfaces[int(rng.integers(len(surfaces)))], w, h, rng)
        placements = random_table(rng, w, h, [deck_name])
        img, labels = render(placements, bg, rng, hands=int(rng.choice([0, 0, 1, 2])),
                             perspective=float(rng.uniform(0, 0.06)), min_visible=0.25)
        if i < n_val:
            val_scenes.append((img, [lab for lab in labels if lab.visible >= 0.6]))
            continue
        xs, ys = _scene_crops(img, labels, detector.localise(img), cut, cls_index, NONE, rng)
        train_x += xs
        train_y += ys
        if i % 10 == 0:
            progress(0.02 + 0.23 * (i + 1) / scenes, f"drawing practice tables ({i + 1} of {scenes})")
    # the cut-out faces themselves, each index at several sizes
    for k, f in faces.items():
        cname = "RED JOKER" if k == "JK_RED" else "BLACK JOKER" if k == "JK_BLACK" else k
        for b in boxes[k]:
            for _ in range(4):
                s = rng.uniform(0.9, 1.15)
                cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
                bw, bh = (b[2] - b[0]) * s, (b[3] - b[1]) * s
                train_x.append(cut(f[..., :3], (cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2)))
                train_y.append(cls_index[cname])
    x = np.stack(train_x)
    y = np.array(train_y, np.int64)
    t_render = time.perf_counter() - t0

    # 2. fine-tune the general classifier on them
    model = build_model(cfg)
    model.load_state_dict(state)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-4)
    lossf = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    batch = 64
    t0 = time.perf_counter()
    step, seen = 0, 0
    model.train()
    while True:
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
        for g in opt.param_groups:  # cosine decay over the time budget
            g["lr"] = 1e-3 * (0.05 + 0.95 * 0.5 * (1 + np.cos(np.pi * min(1.0, elapsed / seconds))))
        idx = rng.integers(0, len(y), batch)
        xb = augment(x[idx], rng).astype(np.float32).transpose(0, 3, 1, 2) / 255.0
        loss = lossf(model(torch.from_numpy(np.ascontiguousarray(xb))), torch.from_numpy(y[idx]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        seen += batch
        if step % 20 == 0:
            progress(0.25 + 0.65 * min(1.0, elapsed / seconds), f"learning the cards ({int(elapsed)} of "
                     f"{int(seconds)} s, loss {float(loss.detach()):.2f})")
    model.eval()
    t_train = time.perf_counter() - t0

    # 3. write the profile (to a temporary folder first), then check it on the kept-apart tables
    progress(0.92, "checking on practice tables it has not seen")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        (tmp / "faces").mkdir()
        for k, f in faces.items():
            cv2.imwrite(str(tmp / "faces" / f"{k}.png"), f)
        export_onnx(model, tmp / CLASSIFIER, dict(cfg))
        conf, check = _choose_conf(Detector(classifier=tmp / CLASSIFIER), val_scenes, decode_cards)
        # the threshold chosen goes with the weights (the sweep reads every box, whatever the stored one)
        final = dict(cfg, conf=conf)
        write_config(tmp / CLASSIFIER, final)
        torch.save({"config": final, "state_dict": model.state_dict()}, tmp / "cards-cls.pt")
        meta = {
            "name": name or out.name,
            "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "cards": sum(1 for k in faces if not k.startswith("JK")),
            "jokers": sum(1 for k in faces if k.startswith("JK")),
            "photos": photos or {},
            "classifier": CLASSIFIER,
            "base_classifier": base.name,
            "learning": {"scenes": scenes, "checked_on": len(val_scenes), "crops": int(len(y)),
                         "steps": step, "crops_seen": seen, "render_s": round(t_render, 1),
                         "train_s": round(t_train, 1), "total_s": round(time.perf_counter() - t_start, 1),
                         "conf": conf, "check": check,
                         "indices_from_localiser": sum(1 for v in located.values() if v is not None),
                         "framing": None if ratio is None else round(ratio, 3)},
        }
        write_meta(tmp, meta)
        if out.exists():
            shutil.rmtree(out)
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    progress(1.0, "done")
    return meta


def _choose_conf(detector, scenes, decode_cards) -> tuple[float, dict]:
    """The card threshold that reads the kept-apart tables best, and the card-level figures there (with the
    whole sweep, `sweep`).  Best is the best F1 (the higher threshold on a tie): the measure of issue 11's
    acceptance and of the general detector's threshold (models/MODEL.md, round twelve).  Until stop 48 it was
    the best F0.5, which chose 0.9 for some enrolments: a tenth of the cards lost for 0.03 of precision.  The
    best F1 among the thresholds precise to 0.99 was tried too: 60 tables cannot tell 0.99 from 0.985, and one
    enrolment of two went to 0.9 by it (models/MODEL.md, round sixteen)."""
    per = []
    for img, labels in scenes:
        truth = {lab.card for lab in labels if lab.card != "BACK"}
        per.append((detector.scored_candidates(img), truth))
    rows = []
    for conf in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        tp = fp = fn = 0
        for cands, truth in per:
            corners = [c for c in cands if c[0] != "NONE" and c[1] >= conf]
            got = {d.card for d in decode_cards(corners, conf, 1) if d.card != "BACK"}
            tp, fp, fn = tp + len(got & truth), fp + len(got - truth), fn + len(truth - got)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        rows.append((conf, {"precision": round(p, 4), "recall": round(r, 4), "f1": round(f1, 4)}))
    conf, best = max(rows, key=lambda row: (row[1]["f1"], row[0]))
    return conf, dict(best, sweep={str(c): row for c, row in rows})
