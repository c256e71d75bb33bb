"""The table's word on an unsure read (issue 12): the real camera pipeline (capture thread, stabiliser,
observer) behind the dashboard, a detector that cannot make up its mind about one card, the camera's picture
of that card, and the players' correction through the API — applied instead, and the card keeps their name."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np

from vision.layout import Layout
from vision.pipeline import Pipeline, crop_cards
from vision.types import CardDetection, Frame
from web_ui import create_app
from web_ui.camera import MatchReferee

LAYOUT = {"stock": [[0.37, 0.4], [0.47, 0.4], [0.47, 0.6], [0.37, 0.6]],
          "discard": [[0.51, 0.4], [0.66, 0.4], [0.66, 0.6], [0.51, 0.6]],
          "players": {"Ana": [[0.02, 0.61], [0.98, 0.61], [0.98, 0.99], [0.02, 0.99]],
                      "Ben": [[0.02, 0.01], [0.49, 0.01], [0.49, 0.39], [0.02, 0.39]],
                      "Cleo": [[0.5, 0.01], [0.97, 0.01], [0.97, 0.39], [0.5, 0.39]]},
          "card_height": 0.15}
W, H = 640, 360


class Source:
    """A camera that shows the same grey table until closed."""

    live, fps, play_fps, skipped = False, 20.0, 20.0, []

    def __init__(self):
        self.i = 0

    def open(self):
        self.i = 0

    def read(self):
        time.sleep(0.02)
        self.i += 1
        img = np.full((H, W, 3), 90, np.uint8)
        cv2.rectangle(img, (356, 156), (400, 212), (250, 250, 250), -1)  # a card on the pile, to be pictured
        return Frame(self.i, self.i / self.fps, img)

    def close(self):
        pass


class Unsure:
    """The upcard 5C, then a second card discarded on it (on top: a larger box, both indices seen) read as KD
    and KS in turn (the camera's doubt)."""

    def __init__(self):
        self.second = False
        self.n = 0
        self.lock = threading.Lock()

    def detect(self, img):
        with self.lock:
            self.n += 1
            out = [CardDetection("5C", 0.95, (340.0, 150.0, 372.0, 200.0))]
            if self.second:
                out.append(CardDetection("KD" if self.n % 2 else "KS", 0.9, (356.0, 156.0, 400.0, 212.0)))
            return out


def wait(cond, what: str, timeout: float = 20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"waited {timeout} s for {what}")


def test_an_unsure_card_is_pictured_and_corrected_by_the_table(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "w.db")})
    live = app.extensions["rummy_live"]
    c = app.test_client()
    r = c.post("/api/matches", json={"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"],
                                     "dealer": "Ana"})
    mid = r.get_json()["id"]
    det = Unsure()
    pipe = Pipeline(Source, Layout.from_dict(LAYOUT), MatchReferee(live), "Ana", detector=det, fps=20.0,
                    motion_gate=False, max_rate=0)
    live.attach(pipe)
    pipe.start()
    try:
        wait(lambda: c.get(f"/api/matches/{mid}").get_json()["current"], "the deal")
        assert c.get(f"/api/matches/{mid}").get_json()["current"]["discard"] == ["5C"]
        det.second = True
        props = wait(lambda: c.get("/api/camera").get_json()["pending"], "a proposal")
        [p] = props
        assert p["event"]["type"] == "discard" and p["event"]["card"] in ("KD", "KS")
        # the camera's picture of the card in question
        r = c.get(f"/api/camera/proposals/{p['id']}/crop.jpg")
        assert r.status_code == 200 and r.mimetype == "image/jpeg"
        pic = cv2.imdecode(np.frombuffer(r.data, np.uint8), cv2.IMREAD_COLOR)
        assert pic is not None and pic.shape[0] < H and pic.shape[1] < W  # a crop, not the whole frame
        assert pic.mean() > 90  # with the (white) card in it
        assert c.get("/api/camera/proposals/999/crop.jpg").status_code == 404
        # a garbage correction is a clear 400; an illegal one a 422 that leaves the proposal waiting
        assert c.post(f"/api/camera/proposals/{p['id']}/correct", data="{", content_type="application/json"
                      ).status_code == 400
        r = c.post(f"/api/camera/proposals/{p['id']}/correct", json={"type": "discard", "player": "Cleo", "card": "QS"})
        assert r.status_code == 422 and r.get_json()["code"] == "not_your_turn"
        assert c.get("/api/camera").get_json()["pending"]
        # the players say what it is
        r = c.post(f"/api/camera/proposals/{p['id']}/correct", json={"type": "discard", "player": "Ben", "card": "QS"})
        assert r.status_code == 200, r.get_json()
        st = c.get(f"/api/matches/{mid}").get_json()
        assert st["current"]["discard"] == ["5C", "QS"]
        assert [a["source"] for a in st["activity"]][-1] == "camera"
        # the camera still wavers over that card: it is the players' QS now, no new event, no new question
        time.sleep(1.0)
        assert c.get("/api/camera").get_json()["pending"] == []
        assert c.get(f"/api/matches/{mid}").get_json()["current"]["discard"] == ["5C", "QS"]
        assert c.post("/api/camera/proposals/999/correct", json={"type": "discard"}).status_code == 404
    finally:
        pipe.stop()
        app.extensions["rummy_store"].close()


def test_crop_cards_falls_back_to_the_whole_frame():
    img = np.zeros((100, 200, 3), np.uint8)
    one = cv2.imdecode(np.frombuffer(crop_cards(img, [], ["KD"]), np.uint8), cv2.IMREAD_COLOR)
    assert one.shape[:2] == (100, 200)
    part = crop_cards(img, [CardDetection("KD", 0.9, (90.0, 40.0, 100.0, 55.0))], ["KD"])
    assert cv2.imdecode(np.frombuffer(part, np.uint8), cv2.IMREAD_COLOR).shape[1] < 200
