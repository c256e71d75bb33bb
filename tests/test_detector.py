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
