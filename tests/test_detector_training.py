"""The training pipeline cannot rot: render a handful of tiny images, train one epoch, detect."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_one_epoch_training_smoke(tmp_path):
    data = tmp_path / "data"
    env_py = sys.executable
    r = subprocess.run([env_py, "-m", "vision.synth.dataset", "--out", str(data), "--train", "6", "--val", "2",
                        "--size", "128", "--no-svg", "--seed", "5"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(list((data / "images" / "train").glob("*.jpg"))) == 6
    r = subprocess.run([env_py, "-m", "training.train", "--data", str(data), "--epochs", "1", "--imgsz", "128",
                        "--batch", "4", "--workers", "0", "--threads", "2", "--name", "smoke",
                        "--project", str(tmp_path / "runs"), "--no-val"],
                       cwd=ROOT, capture_output=True, text=True, timeout=300,
                       env={"PATH": "/usr/bin:/bin", "YOLO_CONFIG_DIR": str(tmp_path / "cfg"), "HOME": str(tmp_path)})
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    weights = tmp_path / "runs" / "smoke" / "weights" / "last.pt"
    assert weights.exists()

    import cv2

    from vision.detector import Detector

    det = Detector(weights, backend="torch", conf=0.01, imgsz=128)
    img = cv2.imread(str(next((data / "images" / "val").glob("*.jpg"))))
    cards = det.detect(img)  # an untrained model may find nothing; it must run
    assert isinstance(cards, list)


@pytest.mark.slow
def test_corner_only_detector_with_a_v2_classifier(tmp_path):
    """The round-two recipe: YOLO trained with one class (corner indices) + a v2 classifier."""
    data = tmp_path / "data"
    env = {"PATH": "/usr/bin:/bin", "YOLO_CONFIG_DIR": str(tmp_path / "cfg"), "HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "vision.synth.dataset", "--out", str(data), "--train", "6", "--val", "2",
                        "--size", "128", "--no-svg", "--seed", "6", "--faults", "0.5"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "training.train", "--data", str(data), "--epochs", "1", "--imgsz", "128",
                        "--batch", "4", "--workers", "0", "--threads", "2", "--name", "one", "--single-cls",
                        "--project", str(tmp_path / "runs"), "--no-val"], cwd=ROOT, capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    r = subprocess.run([sys.executable, "-m", "training.train_classifier", "--data", str(data), "--arch", "v2",
                        "--epochs", "1", "--batch", "32", "--strong-aug", "--card-negatives", "1", "--jitter", "2",
                        "--loose", "0.1", "--margin", "0.3", "--aux", "0.5", "--out", str(tmp_path / "cls" / "cards-cls")], cwd=ROOT, capture_output=True,
                       text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    weights = tmp_path / "runs" / "one" / "weights" / "last.pt"

    import cv2

    from vision.detector import Detector

    with pytest.raises(ValueError, match="needs the corner"):
        Detector(weights, backend="torch", classifier=None)
    img = cv2.imread(str(next((data / "images" / "val").glob("*.jpg"))))
    for backend, suffix in (("torch", ".pt"), ("onnx", ".onnx")):
        clf = tmp_path / "cls" / f"cards-cls{suffix}"
        assert clf.exists()
        det = Detector(weights, backend="torch", conf=0.0, imgsz=128, classifier=clf)
        det.classifier = type(det.classifier)(clf, backend=backend)
        assert det.classifier.config["arch"] == "v2"
        assert det.classifier.config["margin"] == 0.3  # --margin is the crop convention stored with the weights
        corners = det.detect_corners(img)
        assert all(name != "NONE" for name, _, _ in corners)


def test_auxiliary_targets_name_each_classes_suit_and_rank():
    from training.train_classifier import aux_targets
    from vision.corner_classifier import CLASS_NAMES

    suit, rank = aux_targets()
    at = {n: (int(suit[i]), int(rank[i])) for i, n in enumerate(CLASS_NAMES)}
    assert at["10C"] == (0, 9) and at["AS"] == (3, 0) and at["KD"] == (1, 12) and at["2H"] == (2, 1)
    for other in ("BACK", "NONE", "BLACK JOKER", "RED JOKER"):
        assert at[other] == (4, 13)
