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
    r = subprocess.run([env_py, "training/train.py", "--data", str(data), "--epochs", "1", "--imgsz", "128",
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
