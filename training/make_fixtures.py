"""Make the small test images in tests/fixtures/images/ with their expected cards.

    python -m training.make_fixtures

* two real photos (CC BY 4.0, see models/MODEL.md): one multi-card scene from the training
  split and one from the dev split, re-encoded as JPEG;
* two rendered tables (procedural decks drawn by this project, no third-party art);
* for each, `<name>.json`: {"image", "cards": ground truth (card identities, BACK ignored)}.
  `must_find` (the cards the shipped model is asserted to find) is added by hand/`--must-find`
  after checking what the shipped model really gets right, so the test can fail but is not flaky.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from training.common import CLASS_NAMES, REAL, ROOT

OUT = ROOT / "tests" / "fixtures" / "images"
REAL_PICKS = {
    "real_train_table.jpg": REAL / "train" / "images" / "IMG_7745_JPG.rf.07b7bdd1c21b6a77601480b0d213f41d.jpg",
    "real_dev_table.jpg": REAL / "dev" / "images" / "IMG_7760_JPG.rf.1f91d6d00b503e7dcaa241585e54438c.jpg",
    # a 16:9 webcam frame saved as a 640×640 square (Detector.aspect reads it stretched back)
    "real_train_webcam_square.jpg": REAL / "train" / "images" / "WIN_20240627_12_07_20_Pro_jpg.rf.b5fd28f3a13403a8ebf83d84746861c7.jpg",
}


def truth_from_labels(path: Path) -> list[str]:
    from vision.detector import canonical_card

    cards = set()
    for line in path.read_text().splitlines():
        if line.split():
            c = canonical_card(CLASS_NAMES[int(float(line.split()[0]))])
            if c != "BACK":
                cards.add(c)
    return sorted(cards)


def main() -> int:
    from vision.synth.scene import Placement, render
    from vision.synth.surfaces import make_surface

    OUT.mkdir(parents=True, exist_ok=True)
    for name, src in REAL_PICKS.items():
        if not src.exists():
            matches = sorted(src.parent.glob(src.name.split(".rf.")[0] + "*"))
            src = matches[0]
        img = cv2.imread(str(src))
        cv2.imwrite(str(OUT / name), img, [cv2.IMWRITE_JPEG_QUALITY, 85])
        lab = src.parent.parent / "labels" / (src.stem + ".txt")
        (OUT / (Path(name).stem + ".json")).write_text(json.dumps(
            {"image": name, "source": src.name, "cards": truth_from_labels(lab)}, indent=1) + "\n")
    rng = np.random.default_rng(7)
    scenes = {
        "rendered_melds.jpg": ("felt", [
            Placement("7H", "proc-classic", (150, 120), 0, 150), Placement("8H", "proc-classic", (195, 120), 0, 150),
            Placement("9H", "proc-classic", (240, 120), 0, 150), Placement("KS", "proc-jumbo", (480, 130), -20, 150),
            Placement("QD", "proc-duplex", (420, 280), 95, 150), Placement("2C", "proc-classic", (170, 300), 30, 150),
            Placement("AS", "proc-classic", (560, 300), 0, 150, face_up=False)]),
        "rendered_wood.jpg": ("wood", [
            Placement("10D", "proc-jumbo", (140, 180), 10, 170), Placement("JC", "proc-classic", (320, 170), -8, 170),
            Placement("4S", "proc-duplex", (500, 180), 180, 170)]),
    }
    for name, (surface, placements) in scenes.items():
        bg = make_surface(surface, 640, 400, rng)
        img, labels = render(placements, bg, rng, effects=False)
        cv2.imwrite(str(OUT / name), img, [cv2.IMWRITE_JPEG_QUALITY, 85])
        cards = sorted({lab.card for lab in labels if lab.card != "BACK"})
        (OUT / (Path(name).stem + ".json")).write_text(json.dumps({"image": name, "cards": cards}, indent=1) + "\n")
    (OUT / "corrupt.jpg").write_bytes(b"\xff\xd8\xff\xe0 this is not really a jpeg")
    print(f"fixtures written to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
