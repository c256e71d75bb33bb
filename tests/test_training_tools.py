"""The round-two detector tools: failure analysis, same-run comparison and situation probes."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from training import analyze, compare, probes
from training.evaluate import truth_boxes

ROOT = Path(__file__).resolve().parents[1]


def _labelled_folder(tmp_path, n=2):
    from vision.synth.dataset import write_yolo_dataset

    write_yolo_dataset(tmp_path, n, "val", 256, ["proc-classic"], ["plain"], seed=11)
    imgs = sorted((tmp_path / "images" / "val").glob("*.jpg"))
    return imgs, tmp_path / "labels" / "val"


class _FakeDetector:
    """A detector double for analyze.analyse: its candidates are the labelled boxes of the image last read,
    named by `rule(true name) -> (name, probability)`."""

    imgsz = 256

    def __init__(self, labels_dir):
        self.labels_dir = labels_dir
        self.current = None  # stem of the image last read (set by the patched cv2.imread)
        self.rule = None

    def candidates(self, img):
        h, w = img.shape[:2]
        return [(*self.rule(n), b) for n, b in truth_boxes(self.labels_dir / (self.current + ".txt"), w, h)]


def test_analysis_counts_every_corner_and_finds_misreads(tmp_path, monkeypatch):
    images, labels = _labelled_folder(tmp_path)
    det = _FakeDetector(labels)
    truth = {}
    for p in images:
        img = cv2.imread(str(p))
        truth[p.stem] = [n for n, _ in truth_boxes(labels / (p.stem + ".txt"), img.shape[1], img.shape[0])]
    real_imread = cv2.imread

    def imread(path, *a):
        det.current = Path(path).stem
        return real_imread(path, *a)

    monkeypatch.setattr(cv2, "imread", imread)

    def rule_right(n):  # the classifier reads every corner right
        return (n, 0.9)

    def run(rule):
        det.rule = rule
        return analyze.analyse(det, images, labels, 0.5)

    faces = sum(1 for v in truth.values() for n in v if n != "BACK")
    assert faces > 0
    right = run(rule_right)
    assert right["outcomes"] == {"read": faces}
    assert right["false_cards"] == {} and not right["cards_missed_because"]

    def swap_suit(n):  # clubs <-> spades, hearts <-> diamonds
        if n[-1:] in "CSHD" and n not in ("BACK",):
            n = n[:-1] + {"C": "S", "S": "C", "H": "D", "D": "H"}[n[-1]]
        return (n, 0.9)

    wrong = run(swap_suit)
    assert wrong["outcomes"].get("misread", 0) == sum(1 for v in truth.values() for n in v if n[-1:] in "CSHD"
                                                      and n != "BACK")
    assert sum(wrong["suit_confusion"].values()) == wrong["outcomes"]["misread"]
    assert wrong["false_cards"].get("misread of a labelled corner", 0) > 0
    md = analyze.markdown(wrong, "t")
    assert "| all |" in md and "Suit mix-ups" in md
    table = analyze.per_card_table(wrong, "t")
    some = next(n for v in truth.values() for n in v if n[-1:] in "CSHD")
    row = next(r for r in table.splitlines() if r.startswith(f"| {some} |"))
    swapped = some[:-1] + {"C": "S", "S": "C", "H": "D", "D": "H"}[some[-1]]
    assert f"{swapped} ×" in row  # e.g. a club read as the spade of its rank


def test_situation_tags():
    img = np.full((300, 300, 3), 255, np.uint8)
    assert "glare" in analyze.situations(img, (100, 100, 120, 140), [], 1.0)
    assert analyze.situations(img, (100, 100, 104, 108), [], 1.0)[0] == "tiny"
    tags = analyze.situations(img, (100, 100, 140, 120), [(150, 100, 170, 140)], 1.0)
    assert "rotated" in tags and "crowded" in tags and tags[0] == "large"
    red = np.zeros((300, 300, 3), np.uint8)
    red[..., 2] = 200
    assert "red-on-red" in analyze.situations(red, (100, 100, 120, 140), [], 1.0)


def test_compare_helpers():
    name, spec = compare.parse_candidate("x=a.onnx,b.onnx,416,0.02,60")
    assert name == "x" and spec == {"weights": "a.onnx", "classifier": "b.onnx", "imgsz": 416, "box_conf": 0.02,
                                    "max_candidates": 60}
    assert compare.parse_candidate("y=a.pt,none")[1]["classifier"] is None
    # precision counts double: the more precise of two equal-F1 results scores higher
    precise = compare.fbeta({"precision": 0.9, "recall": 0.6})
    loose = compare.fbeta({"precision": 0.6, "recall": 0.9})
    assert precise > loose
    raw = {Path("a"): [("10H", 0.9, (0, 0, 10, 20)), ("KS", 0.45, (50, 50, 60, 70))]}
    assert compare.predictor(raw, 0.5)(Path("a")) == {"10H"}
    assert compare.predictor(raw, 0.4)(Path("a")) == {"10H", "KS"}


def test_compare_candidate_takes_boxes_from_its_own_floor():
    """A candidate's box_conf is the localiser's floor, not the 0.05 the sweep reads the classifier from."""
    img = cv2.imread(str(ROOT / "tests" / "fixtures" / "images" / "rendered_melds.jpg"))
    models = ROOT / "models"
    spec = {"weights": str(models / "cards-yolo.onnx"), "classifier": str(models / "cards-cls.onnx")}
    low = compare.candidate_detector(dict(spec, box_conf=0.05))
    low_scores = sorted(s for _c, s in low._named_boxes(img))
    # a floor between the shipped localiser's own box scores (whatever model ships): some boxes fall under it
    floor = round(low_scores[len(low_scores) // 2], 3)
    assert low_scores[0] < floor
    high = compare.candidate_detector(dict(spec, box_conf=floor))
    high_scores = [s for _c, s in high._named_boxes(img)]
    assert high.conf == low.conf == 0.05
    assert high_scores and min(high_scores) >= floor
    assert len(low_scores) > len(high_scores)


def test_probes_render_labelled_frames(tmp_path):
    assert probes.main(["--out", str(tmp_path), "--n", "1", "--probe", "fanned", "--probe", "red-cloth"]) == 0
    for kind in ("fanned", "red-cloth"):
        (img,) = (tmp_path / kind / "images" / "val").glob("*.jpg")
        assert cv2.imread(str(img)).shape == (720, 1280, 3)
        rows = (tmp_path / kind / "labels" / "val" / (img.stem + ".txt")).read_text().split("\n")
        assert any(r.strip() for r in rows)
    red = probes.red_felt(40, 60, np.random.default_rng(0))
    assert red[..., 2].mean() > 2 * red[..., 1].mean()
