"""Teaching the referee this table's deck from the dashboard ("Teach the referee this deck", `/decks`).

The screen walks the players through the four suit photos (and, if they like, the jokers): each taken from
the live camera or uploaded from the tablet (downscaled in the browser), checked at once by the same code
as `rummy-referee enrol` (vision/enrol/photos.py), and shown back with a box and a name on every card
found, so that a bad photo can be retaken.  Then the learning runs in a background thread with a progress
bar (vision/enrol/learn.py); the deck is kept in `DECKS_DIR` under its name and the camera reads with it.
The deck in use is remembered in `DECKS_DIR/using.json` and offered again next time.

    GET  /decks                           the screen
    GET  /api/decks                       {"decks": [...], "using", "camera", "photos": {slot: n}, "job"}
    POST /api/decks/photos/<slot>         body: a JPEG/PNG (or {"from": "camera"}); slot C, D, H, S or JK
                                          -> 200 {"ok", "cards": [{"card", "box"}], "width", "height"} | 422
    GET  /api/decks/photos/<slot>.jpg     that photo with what was found drawn on it
    DELETE /api/decks/photos/<slot>       forget it
    POST /api/decks/teach                 {"name"} -> 202 {"ok", "job"} | 422 (a photo missing or wrong)
    GET  /api/decks/job                   {"state": idle|running|done|failed, "progress", "text", "deck", "error"}
    POST /api/decks/use                   {"name": NAME | null} -> 200 (the camera reads with that deck)
"""

from __future__ import annotations

import json
import logging
import re
import threading
from pathlib import Path

from flask import Blueprint, Response, current_app, jsonify, render_template, request
from flask_babel import gettext

from .api import _err, _json_body
from .services import get_decks, get_matches

log = logging.getLogger(__name__)
bp = Blueprint("decks", __name__)

SLOTS = ("C", "D", "H", "S", "JK")
SLOT_WORDS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades", "JK": "jokers"}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
MAX_PHOTO_BYTES = 2 * 1024 * 1024  # the browser downscales photos to 1600 px before sending them


def _slug(name: str) -> str:
    s = re.sub(r"[^\w .'-]+", "", name, flags=re.UNICODE).strip()[:40]
    return s or "deck"


class DeckTeacher:
    """The photos taken so far, the one learning job, and the deck the camera reads with."""

    def __init__(self, root: str | Path, using: str | None = None):
        self.root = Path(root)
        self.lock = threading.Lock()
        self.photos: dict[str, tuple] = {}  # slot -> (image, found cards)
        self.job: dict = {"state": "idle", "progress": 0.0, "text": "", "deck": None, "error": None}
        self._thread: threading.Thread | None = None
        self.using = using or self._remembered()

    # ---- decks
    def _remembered(self) -> str | None:
        try:
            name = json.loads((self.root / "using.json").read_text(encoding="utf-8")).get("deck")
        except (OSError, ValueError, AttributeError):
            return None
        return str(name) if isinstance(name, str) else None

    def decks(self) -> list[dict]:
        from vision.enrol.profile import list_profiles

        return [dict(p.summary(), folder=p.path.name) for p in list_profiles(self.root)]

    def profile_path(self, name: str) -> Path:
        from vision.enrol.profile import load_profile

        p = Path(name)
        if p.is_absolute():
            return load_profile(p).path
        return load_profile(_slug(name), search=self.root).path

    def use(self, name: str | None) -> None:
        """The camera reads with deck `name` from now on (None: the general model).  Raises DeckError."""
        path = str(self.profile_path(name)) if name else None
        pipe = get_matches().pipeline
        if pipe is not None and hasattr(pipe, "use_deck"):
            pipe.use_deck(path)
        self.using = path
        current_app.config["DECK"] = path
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "using.json").write_text(json.dumps({"deck": path}), encoding="utf-8")

    # ---- photos
    def add_photo(self, slot: str, img) -> list:
        from vision.enrol.photos import find_cards, find_jokers

        name = f"the {SLOT_WORDS[slot]} photo"
        cards = find_jokers(img, name) if slot == "JK" else find_cards(img, 13, name=name)
        with self.lock:
            self.photos[slot] = (img, cards)
        return cards

    def drawn(self, slot: str) -> bytes | None:
        import cv2
        import numpy as np

        with self.lock:
            got = self.photos.get(slot)
        if got is None:
            return None
        img, cards = got
        out = img.copy()
        scale = max(1.0, max(img.shape[:2]) / 1000)
        for i, c in enumerate(cards):
            cv2.polylines(out, [np.round(c.quad).astype(np.int32)], True, (60, 220, 60), max(2, int(3 * scale)))
            label = card_names(slot, len(cards))[i]
            x, y = int(c.quad[0][0]), int(c.quad[0][1])
            cv2.putText(out, label, (x + 4, y + int(30 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 1.0 * scale,
                        (0, 0, 0), int(5 * scale), cv2.LINE_AA)
            cv2.putText(out, label, (x + 4, y + int(30 * scale)), cv2.FONT_HERSHEY_SIMPLEX, 1.0 * scale,
                        (60, 220, 60), int(2 * scale), cv2.LINE_AA)
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return buf.tobytes() if ok else None

    # ---- learning
    def teach(self, name: str, seconds: float, scenes: int) -> None:
        from vision.detector import Detector
        from vision.enrol.learn import locate_indices, suit_reader, teach
        from vision.enrol.photos import EnrolError, check_suit_photos

        with self.lock:
            if self.job["state"] == "running":
                raise EnrolError("a deck is being learnt already: wait until it is done")
            missing = [SLOT_WORDS[s] for s in SLOTS[:4] if s not in self.photos]
            if missing:
                raise EnrolError(f"take the photo of the {', '.join(missing)} first")
            found = {s: self.photos[s][1] for s in SLOTS if s in self.photos}
        detector = Detector()
        for cards in found.values():
            locate_indices(cards, detector)
        check_suit_photos({s: found[s] for s in SLOTS[:4]}, {s: f"the {SLOT_WORDS[s]} photo" for s in SLOTS[:4]},
                          suit_reader(detector))
        folder = self.root / _slug(name)
        self.job = {"state": "running", "progress": 0.0, "text": "starting", "deck": name, "error": None}
        app = current_app._get_current_object()

        def progress(frac: float, text: str) -> None:
            self.job.update(progress=round(float(frac), 3), text=text)

        def run() -> None:
            try:
                teach(found, folder, name=name, seconds=seconds, scenes=scenes, progress=progress, detector=detector)
                with app.app_context():
                    self.use(str(folder))
                with self.lock:
                    self.photos.clear()
                self.job.update(state="done", progress=1.0, text="done")
            except Exception as e:  # shown on the screen; nothing half-written is left (teach writes atomically)
                log.exception("teaching the deck failed")
                self.job.update(state="failed", error=str(e) or e.__class__.__name__)

        self._thread = threading.Thread(target=run, name="deck-teacher", daemon=True)
        self._thread.start()


def card_names(slot: str, n: int) -> list[str]:
    return [f"{r}{slot}" for r in RANKS] if slot != "JK" else ["joker"] * n


def _slot(slot: str) -> str | None:
    s = slot.upper()
    return s if s in SLOTS else None


@bp.get("/decks")
def page():
    return render_template("decks.html")


@bp.get("/api/decks")
def state():
    t = get_decks()
    pipe = get_matches().pipeline
    with t.lock:
        photos = {s: len(c) for s, (_img, c) in t.photos.items()}
    return jsonify(ok=True, decks=t.decks(), using=t.using, camera=pipe is not None, photos=photos, job=t.job,
                   slots=[{"slot": s, "words": SLOT_WORDS[s]} for s in SLOTS])


@bp.post("/api/decks/photos/<slot>")
def add_photo(slot):
    from vision.enrol.photos import EnrolError

    s = _slot(slot)
    if s is None:
        return _err(404, "no_such_slot", gettext("Photos are of clubs (C), diamonds (D), hearts (H), spades (S) or jokers (JK)."))
    img = None
    if request.mimetype == "application/json":
        body = request.get_json(silent=True)
        if not (isinstance(body, dict) and body.get("from") == "camera"):
            return _err(400, "bad_body", gettext('Send a photo (image/jpeg or image/png), or {"from": "camera"}.'))
        pipe = get_matches().pipeline
        frame = None
        if pipe is not None and hasattr(pipe, "capture"):
            _seq, f = pipe.capture.latest(0, timeout=1.0)
            frame = getattr(f, "image", None)
        if frame is None:
            return _err(409, "no_camera_picture", gettext("The camera has no picture to take: upload a photo instead."))
        img = frame.copy()
    else:
        from vision.images import decode_image

        raw = request.get_data(cache=False)
        if len(raw) > MAX_PHOTO_BYTES:
            return _err(413, "too_large", gettext("That photo is too large: at most 2 MB."))
        if not raw:
            return _err(400, "empty_body", gettext("The request has no photo in it."))
        img, why = decode_image(raw, "the upload")  # the pixel count is checked before decoding
        if img is None:
            return _err(422, "bad_photo", gettext("That file is not a photo the referee can read (JPEG or PNG): %(why)s.", why=why))
    try:
        cards = get_decks().add_photo(s, img)
    except EnrolError as e:
        return _err(422, "bad_photo", str(e))
    names = card_names(s, len(cards))
    return jsonify(ok=True, slot=s, width=int(img.shape[1]), height=int(img.shape[0]),
                   cards=[{"card": names[i], "box": list(c.box)} for i, c in enumerate(cards)])


@bp.get("/api/decks/photos/<slot>.jpg")
def photo(slot):
    s = _slot(slot)
    data = get_decks().drawn(s) if s else None
    if data is None:
        return _err(404, "no_photo", gettext("No photo of that suit yet."))
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.delete("/api/decks/photos/<slot>")
def forget_photo(slot):
    s = _slot(slot)
    t = get_decks()
    with t.lock:
        t.photos.pop(s, None)
    return jsonify(ok=True)


@bp.post("/api/decks/teach")
def teach():
    from vision.enrol.photos import EnrolError

    body, err = _json_body()
    if err:
        return err
    name = body.get("name") if isinstance(body, dict) else None
    if not isinstance(name, str) or not name.strip() or len(name) > 40:
        return _err(422, "bad_name", gettext("Give the deck a name (at most 40 characters)."))
    cfg = current_app.config
    try:
        get_decks().teach(name.strip(), float(cfg["ENROL_SECONDS"]), int(cfg["ENROL_SCENES"]))
    except EnrolError as e:
        return _err(422, "bad_photo", str(e))
    return jsonify(ok=True, job=get_decks().job), 202


@bp.get("/api/decks/job")
def job():
    return jsonify(ok=True, **get_decks().job)


@bp.post("/api/decks/use")
def use():
    from vision.enrol.profile import DeckError

    body, err = _json_body()
    if err:
        return err
    name = body.get("name") if isinstance(body, dict) else None
    if name is not None and not isinstance(name, str):
        return _err(400, "bad_body", gettext("'name' must be a deck's name or null."))
    try:
        get_decks().use(name)
    except DeckError as e:
        return _err(422, "no_such_deck", str(e))
    return jsonify(ok=True, using=get_decks().using)
