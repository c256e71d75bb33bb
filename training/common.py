"""Shared set-up for the training scripts: offline ultralytics, class names, paths."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from vision.types import CORNER_CLASSES

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "data" / "real"


# The 55 classes of shared/data/real/classes.txt, in label-index order.
CLASS_NAMES = list(CORNER_CLASSES)
CLASS_INDEX = {name: i for i, name in enumerate(CLASS_NAMES)}


def output_stem(out: str | Path) -> Path:
    """An `--out` path as the stem its .pt / .onnx files are named from: a given .pt or .onnx suffix is
    dropped; any other dot stays part of the name ("runs/soup/s0.5" writes s0.5.pt, not s0.pt)."""
    out = Path(out)
    return out.with_suffix("") if out.suffix.lower() in (".pt", ".onnx") else out


def with_ext(stem: Path, ext: str) -> Path:
    """`stem` + `ext` (".pt", ".onnx"), whatever dots the stem's name holds."""
    return stem.with_name(stem.name + ext)


def offline_ultralytics(config_dir: Path | None = None) -> Path:
    """Configure ultralytics to never download anything; call before importing it."""
    config_dir = Path(config_dir or os.environ.get("YOLO_CONFIG_DIR") or ROOT / "runs" / "yolo_config")
    config_dir.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    os.environ["YOLO_OFFLINE"] = "true"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ.setdefault("YOLO_VERBOSE", "true")
    # ultralytics wants Arial.ttf for plots and downloads it when missing: give it a local font.
    font = config_dir / "Arial.ttf"
    if not font.exists():
        for cand in ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                     "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"):
            if Path(cand).exists():
                shutil.copy(cand, font)
                shutil.copy(cand, config_dir / "Arial.Unicode.ttf")
                break
    return config_dir
