"""The shipped detector on the fixture photos, its Python API and the `detect` command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.detector import Detector, default_weights_path

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "tests" / "fixtures" / "images"
FIXTURES = sorted(p for p in FIX.glob("*.json"))


@pytest.fixture(scope="module")
def detector():
    return Detector()


def test_shipped_weights_exist():
    assert (ROOT / "models" / "cards-yolo.pt").exists()
    assert (ROOT / "models" / "cards-yolo.onnx").exists()
    assert default_weights_path().exists()


@pytest.mark.parametrize("spec", FIXTURES, ids=lambda p: p.stem)
def test_finds_the_cards_it_is_known_to_find(detector, spec):
    expected = json.loads(spec.read_text())
    img = cv2.imread(str(FIX / expected["image"]))
    found = detector.detect(img)
    names = {d.card for d in found}
    missing = set(expected.get("must_find", [])) - names
    assert not missing, f"{expected['image']}: missed {sorted(missing)}, found {sorted(names)}"
    h, w = img.shape[:2]
    for d in found:
        x1, y1, x2, y2 = d.box
        assert 0 <= x1 <= x2 <= w and 0 <= y1 <= y2 <= h
        assert 0 < d.confidence <= 1
        assert d.corners and all(len(c) == 4 for c in d.corners)


def test_backends_agree(detector):
    img = cv2.imread(str(FIX / "rendered_melds.jpg"))
    a = sorted(d.card for d in Detector(backend="torch").detect(img))
    b = sorted(d.card for d in Detector(backend="onnx").detect(img))
    assert a == b


def test_any_frame_size_and_grey_frames(detector):
    img = cv2.imread(str(FIX / "rendered_wood.jpg"))
    big = cv2.resize(img, (1280, 720))
    assert isinstance(detector.detect(big), list)
    assert isinstance(detector.detect(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)), list)
    assert detector.detect(np.zeros((200, 300, 3), np.uint8)) == []


def test_bad_input_and_missing_weights(detector, tmp_path):
    with pytest.raises(ValueError):
        detector.detect(None)
    with pytest.raises(FileNotFoundError):
        Detector(weights=tmp_path / "nope.pt")
    with pytest.raises(ValueError):
        Detector(backend="tpu")


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "rummy_referee", "detect", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=180)


def test_cli_json_contract_with_bad_files(tmp_path):
    good = FIX / "rendered_melds.jpg"
    missing = tmp_path / "missing.jpg"
    corrupt = FIX / "corrupt.jpg"
    r = run_cli(str(good), str(missing), str(corrupt), "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert [o["image"] for o in out] == [str(good), str(missing), str(corrupt)]
    ok = out[0]
    assert set(ok) == {"image", "width", "height", "cards"}
    assert (ok["width"], ok["height"]) == (640, 400)
    for c in ok["cards"]:
        assert set(c) == {"card", "confidence", "box"}
        assert len(c["box"]) == 4 and all(isinstance(v, int) for v in c["box"])
    for bad in out[1:]:
        assert "error" in bad and "cards" not in bad


def test_cli_ok_and_table_output():
    good = FIX / "rendered_wood.jpg"
    r = run_cli(str(good), "--json", "--backend", "onnx", "--conf", "0.5")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)[0]["image"] == str(good)
    r = run_cli(str(good))
    assert r.returncode == 0
    assert "rendered_wood.jpg (640x400)" in r.stdout


def test_a_table_camera_is_read_at_its_own_resolution_up_to_the_table_size():
    """The table pipeline reads a camera frame at its long side up to TABLE_IMGSZ (a table's card indices are a
    few pixels at the model's own size); a photo, or a size the caller chose, at the model's size."""
    from referee import Match
    from vision.layout import Layout
    from vision.pipeline import TABLE_IMGSZ, TableTracker
    from vision.synth.recording import layout_dict

    photo = Detector()
    assert photo.table_imgsz is None and photo.input_size((720, 1280, 3)) == photo.imgsz
    match = Match({"type": "match", "rules": "basic", "players": ["Ana", "Ben"]})
    layout = Layout.from_dict(layout_dict(["Ana", "Ben"], 0.15, False))
    table = TableTracker(layout, match, "Ana", Detector(), auto_confirm=True).detector
    assert table.table_imgsz == TABLE_IMGSZ > table.imgsz
    assert table.input_size((720, 1280, 3)) == TABLE_IMGSZ
    assert table.input_size((360, 640, 3)) == 640  # its own size: not enlarged
    assert table.input_size((200, 300, 3)) == table.imgsz  # never less than the model's size
    chosen = TableTracker(layout, match, "Ana", Detector(imgsz=640), auto_confirm=True).detector
    assert chosen.table_imgsz is None and chosen.input_size((720, 1280, 3)) == 640
    # and the larger reading finds the corner indices of a rendered table's small fanned cards the model's own misses
    from vision.geometry import iou
    from vision.synth.scene import Placement, render

    cards = ["7H", "8H", "9H", "10H", "JH", "KS", "QD", "2C", "5S", "6D"]
    pl = [Placement(c, "proc-classic", (300 + 22 * i + (300 if i > 4 else 0), 360), 0.0, 108)
          for i, c in enumerate(cards)]
    img, labels = render(pl, np.full((720, 1280, 3), 60, np.uint8), np.random.default_rng(0), effects=False)

    def found(det):
        boxes = [b for _n, _s, b, _p in det.localise(img)]
        return sum(any(iou(b, lab.box) >= 0.5 for b in boxes) for lab in labels)

    assert found(table) >= len(labels) // 2 > found(photo)


def test_the_squash_of_a_square_photo_is_read_from_its_index_boxes():
    from vision.detector import ASPECT_MAX, squash_stretch

    upright = [(10 * i, 0, 10 * i + 12, 20) for i in range(8)]  # w/h 0.6: an index as printed
    squashed = [(10 * i, 0, 10 * i + 6.7, 20) for i in range(8)]  # the same, 16:9 saved as a square
    assert squash_stretch((640, 640, 3), upright) == 1.0
    assert squash_stretch((640, 640, 3), squashed) == pytest.approx(ASPECT_MAX, rel=0.05)
    assert squash_stretch((720, 1280, 3), squashed) == 1.0  # a camera's own frame is read as it comes
    assert squash_stretch((640, 640, 3), squashed[:3]) == 1.0  # too few indices to tell
    # cards lying sideways give wide boxes: not a squash
    assert squash_stretch((640, 640, 3), [(y0, x0, y1, x1) for x0, y0, x1, y1 in upright]) == 1.0


def test_a_webcam_photo_saved_square_is_read_stretched_back(detector):
    """The whole path on a real photo: a 16:9 webcam frame saved as a 640×640 square (a training photo) is read
    stretched back across by about 16/9 (`Detector.aspect` "auto"); the same frame restored to 16:9, as a camera
    gives it, and a phone photo with upright indices are read as they come."""
    img = cv2.imread(str(FIX / "real_train_webcam_square.jpg"))

    def stretch(frame):
        return detector.stretch_for(frame, detector.localise(frame))

    sx, sy = stretch(img)
    assert 1.5 < sx <= 16 / 9 + 1e-6 and sy == 1.0
    assert stretch(cv2.resize(img, (1138, 640), interpolation=cv2.INTER_CUBIC)) == (1.0, 1.0)
    assert stretch(cv2.imread(str(FIX / "real_dev_table.jpg"))) == (1.0, 1.0)
    detector.aspect = None
    try:
        assert stretch(img) == (1.0, 1.0)
    finally:
        detector.aspect = "auto"


def test_detect_command_reads_as_it_comes_with_aspect_none(detector):
    from rummy_referee.commands.detect import run_detect

    path = str(FIX / "real_train_webcam_square.jpg")
    img = cv2.imread(path)
    for aspect, setting in (("auto", "auto"), ("none", None)):
        results, status = run_detect([path], aspect=aspect)
        detector.aspect = setting
        try:
            assert status == 0 and [c["card"] for c in results[0]["cards"]] == [d.card for d in detector.detect(img)]
        finally:
            detector.aspect = "auto"


def test_both_networks_run_in_sessions_whose_workers_do_not_spin(detector):
    """The localiser's and the classifier's ONNX Runtime sessions sleep their workers after each run: spinning
    workers of one took the 2 cores from the other (p50 49 → 32 ms per frame, vision/onnx_session.py)."""
    key = "session.intra_op.allow_spinning"
    onnx = detector if detector.backend == "onnx" else Detector(backend="onnx")
    sessions = [onnx._impl.session, onnx.classifier.session]
    assert [s.get_session_options().get_session_config_entry(key) for s in sessions] == ["0", "0"]
