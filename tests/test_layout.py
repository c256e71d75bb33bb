"""Zones: validation with clear errors, point-in-zone, JSON round trip, ArUco calibration."""

import json

import numpy as np
import pytest

from vision.layout import Calibration, FrameMapper, Layout, LayoutError

SQ = lambda x0, y0, x1, y1: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]  # noqa: E731

LAYOUT = {
    "stock": SQ(0.35, 0.40, 0.48, 0.60),
    "discard": SQ(0.52, 0.40, 0.65, 0.60),
    "players": {"Ana": SQ(0.0, 0.65, 1.0, 1.0), "Ben": SQ(0.0, 0.0, 1.0, 0.35),
                "Cleo": [[0.0, 0.36], [0.3, 0.36], [0.3, 0.64], [0.0, 0.64]]},
}


def test_zone_assignment():
    lay = Layout.from_dict(LAYOUT)
    assert lay.zone_of((0.40, 0.5)) == "stock"
    assert lay.zone_of((0.60, 0.5)) == "discard"
    assert lay.zone_of((0.5, 0.9)) == "player:Ana"
    assert lay.zone_of((0.5, 0.1)) == "player:Ben"
    assert lay.zone_of((0.1, 0.5)) == "player:Cleo"
    assert lay.zone_of((0.9, 0.5)) is None
    assert lay.player_names == ["Ana", "Ben", "Cleo"]


def test_rotated_polygon_zone():
    diamond = [[0.5, 0.1], [0.9, 0.5], [0.5, 0.9], [0.1, 0.5]]
    lay = Layout.from_dict({"stock": SQ(0, 0, 0.05, 0.05), "discard": SQ(0.95, 0.95, 1, 1),
                            "players": {"Ana": diamond}})
    assert lay.zone_of((0.5, 0.5)) == "player:Ana"
    assert lay.zone_of((0.15, 0.15)) is None


def test_round_trip(tmp_path):
    lay = Layout.from_dict(dict(LAYOUT, card_height=0.2))
    p = tmp_path / "layout.json"
    lay.save(p)
    again = Layout.load(p)
    assert again == lay
    assert json.loads(p.read_text())["players"]["Ana"] == LAYOUT["players"]["Ana"]


@pytest.mark.parametrize("bad, words", [
    ({"stock": SQ(0, 0, .1, .1), "players": {"A": SQ(0, 0, 1, 1)}}, "'discard' is missing"),
    (dict(LAYOUT, tables=1), "unknown key 'tables'"),
    (dict(LAYOUT, stock=[[0, 0], [1, 1]]), "stock: a zone needs at least 3 points"),
    (dict(LAYOUT, discard=SQ(0, 0, 1.5, 1)), "outside 0..1"),
    (dict(LAYOUT, players={}), "at least one player zone"),
    (dict(LAYOUT, players={"Ana": [[0, 0], [0.5, 0.5], [1, 1]]}), "no area"),
    ([1, 2], "expected a JSON object"),
])
def test_bad_layouts_say_what_is_wrong(bad, words):
    with pytest.raises(LayoutError) as e:
        Layout.from_dict(bad)
    assert words in str(e.value)


def test_unreadable_files(tmp_path):
    with pytest.raises(LayoutError, match="cannot read"):
        Layout.load(tmp_path / "missing.json")
    p = tmp_path / "bad.json"
    p.write_text("{nope")
    with pytest.raises(LayoutError, match="not valid JSON"):
        Layout.load(p)


def test_aruco_calibration_follows_a_bumped_camera():
    import cv2

    lay = Layout.from_dict(dict(LAYOUT, aruco={"dictionary": "DICT_4X4_50", "ids": [0, 1, 2, 3]}))
    cal = Calibration(lay.aruco)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    W, H = 640, 480

    def scene(shift):
        img = np.full((H, W, 3), 200, np.uint8)
        for mid, (cx, cy) in enumerate([(60, 60), (580, 60), (580, 420), (60, 420)]):
            m = cv2.aruco.generateImageMarker(d, mid, 50)
            x, y = cx - 25 + shift[0], cy - 25 + shift[1]
            img[y:y + 50, x:x + 50] = m[..., None]
        return img

    assert cal.update(scene((0, 0)))
    m = cal.mapper(W, H)
    assert np.allclose(m.to_rel(60, 60), (0, 0), atol=1e-2)
    assert np.allclose(m.to_rel(320, 240), (0.5, 0.5), atol=1e-2)
    assert cal.update(scene((20, 10)))  # the camera was bumped: the table moved in the picture
    m = cal.mapper(W, H)
    assert np.allclose(m.to_rel(340, 250), (0.5, 0.5), atol=1e-2)
    assert np.allclose(m.to_px(0.5, 0.5), (340, 250), atol=1)
    blank = np.full((H, W, 3), 200, np.uint8)
    assert not cal.update(blank)  # markers hidden: the last homography is kept
    assert cal.homography is not None


def test_plain_mapper():
    m = FrameMapper(1280, 720)
    assert m.to_rel(640, 360) == (0.5, 0.5)
    assert m.to_px(0.25, 0.5) == (320, 360)


def test_tracker_zones_follow_the_markers():
    """Through the whole chain: a card keeps its zone when the camera moves, because the markers move too."""
    import cv2

    from referee import Match
    from vision.pipeline import TableTracker
    from vision.types import CardDetection

    lay = Layout.from_dict(dict(LAYOUT, aruco={"dictionary": "DICT_4X4_50", "ids": [0, 1, 2, 3]}))
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    W, H = 800, 560

    def scene(dx, dy):
        img = np.full((H, W, 3), 200, np.uint8)
        for mid, (cx, cy) in enumerate([(60, 60), (580, 60), (580, 420), (60, 420)]):
            m = cv2.aruco.generateImageMarker(d, mid, 50)
            img[cy - 25 + dy:cy + 25 + dy, cx - 25 + dx:cx + 25 + dx] = m[..., None]
        return img

    class OneCard:
        box = (0, 0, 0, 0)

        def detect(self, img):
            return [CardDetection("7H", 0.9, self.box)]

    det = OneCard()
    tr = TableTracker(lay, Match({"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"]}), "Ana",
                      det, fps=10, calibrate_every=1)
    # the discard zone is x 0.52..0.65, y 0.40..0.60 of the marker quad (60..580 x 60..420)
    det.box = (60 + 0.55 * 520, 60 + 0.45 * 360, 60 + 0.62 * 520, 60 + 0.55 * 360)
    for _ in range(6):
        tr.process(scene(0, 0))
    assert tr.last_snapshot.discard == ("7H",)
    # the camera is bumped 80 px right and 40 px down: the card and the markers move together
    b = det.box
    det.box = (b[0] + 80, b[1] + 40, b[2] + 80, b[3] + 40)
    assert lay.zone_of(FrameMapper(W, H, tr.calibration.homography).to_rel(det.box[0], det.box[1])) is None
    for _ in range(12):
        tr.process(scene(80, 40))
    assert tr.last_snapshot.discard == ("7H",)
