"""The black-suit judge (vision/suit_judge.py): what `adjust` may and may not change, and when the detector reads
it.  The network itself is measured in models/MODEL.md; here its reading is given."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.corner_classifier import CLASS_NAMES
from vision.suit_judge import SuitJudge, black_pairs


def _judge(clubs: list[float], weight: float = 1.0, mode: str = "swap") -> SuitJudge:
    j = SuitJudge.__new__(SuitJudge)
    j.config = {"size": 64, "margin": 0.75, "weight": weight, "mode": mode}
    j.read = []

    def fake(img, boxes, stretch=(1.0, 1.0)):
        j.read.append(list(boxes))
        return np.array(clubs[:len(boxes)])

    j.clubs = fake
    return j


def _probs(*rows: dict[str, float]) -> np.ndarray:
    p = np.full((len(rows), len(CLASS_NAMES)), 1e-3)
    for i, row in enumerate(rows):
        for name, v in row.items():
            p[i, CLASS_NAMES.index(name)] = v
    return p / p.sum(1, keepdims=True)


def test_a_black_card_changes_suit_and_keeps_its_rank_and_confidence():
    p = _probs({"9S": 0.6, "9C": 0.3}, {"4H": 0.9}, {"QC": 0.8, "QS": 0.1})
    boxes = [(0, 0, 10, 20), (20, 0, 30, 20), (40, 0, 50, 20)]
    j = _judge([0.95, 0.5], weight=1.0)
    q = j.adjust(np.zeros((50, 60, 3), np.uint8), boxes, p, CLASS_NAMES)
    assert j.read == [[boxes[0], boxes[2]]]  # the heart is not read again
    assert CLASS_NAMES[int(q[0].argmax())] == "9C"  # 0.3/0.6 against 0.95/0.05: clubs
    c, s = CLASS_NAMES.index("9C"), CLASS_NAMES.index("9S")
    assert q[0, c] + q[0, s] == pytest.approx(p[0, c] + p[0, s])  # the card's confidence is the classifier's
    assert np.allclose(np.delete(q[0], [c, s]), np.delete(p[0], [c, s]))  # every other class untouched
    assert np.allclose(q[1], p[1])
    assert np.allclose(q[2], p[2])  # an undecided judge (0.5) changes nothing
    assert np.allclose(q.sum(1), 1.0)


def test_the_weight_sets_how_far_the_judge_is_heard():
    p = _probs({"JS": 0.7, "JC": 0.2})
    box = [(0, 0, 10, 20)]
    img = np.zeros((30, 30, 3), np.uint8)
    jc, js = CLASS_NAMES.index("JC"), CLASS_NAMES.index("JS")
    for mode in ("swap", "pool"):
        assert np.allclose(_judge([0.8], mode=mode).adjust(img, box, p, CLASS_NAMES, weight=0.0), p)
        half = _judge([0.8], mode=mode).adjust(img, box, p, CLASS_NAMES, weight=0.5)  # 0.7/0.2 against 0.8/0.2, halved
        two = _judge([0.8], mode=mode).adjust(img, box, p, CLASS_NAMES, weight=2.0)
        assert CLASS_NAMES[int(half[0].argmax())] == "JS" and CLASS_NAMES[int(two[0].argmax())] == "JC"
    pool = [_judge([0.8], mode="pool").adjust(img, box, p, CLASS_NAMES, weight=w)[0, jc] for w in (0.5, 2.0)]
    assert p[0, jc] < pool[0] < pool[1]  # pooled: the log odds move by the weight
    swapped = _judge([0.8]).adjust(img, box, p, CLASS_NAMES, weight=2.0)
    assert swapped[0, jc] == pytest.approx(p[0, js]) and swapped[0, js] == pytest.approx(p[0, jc])  # swapped: the
    # suit changes, the card's confidence (and so whether it passes the threshold) does not


def test_a_suit_the_classifier_is_sure_of_is_not_read_again():
    p = _probs({"5S": 0.9, "5C": 0.002}, {"KC": 0.4, "KS": 0.5})
    boxes = [(0, 0, 10, 20), (20, 0, 30, 20)]
    j = _judge([0.9, 0.9])
    q = j.adjust(np.zeros((30, 40, 3), np.uint8), boxes, p, CLASS_NAMES, below=0.95)
    assert j.read == [[boxes[1]]]  # 5S holds 99.8 % of the rank's black pair; KS only 56 %
    assert np.allclose(q[0], p[0]) and CLASS_NAMES[int(q[1].argmax())] == "KC"


def test_an_unsure_judge_is_not_heard():
    p = _probs({"6S": 0.6, "6C": 0.3}, {"2S": 0.6, "2C": 0.3})
    boxes = [(0, 0, 10, 20), (20, 0, 30, 20)]
    j = _judge([0.8, 0.95])
    j.config["sure"] = 0.9
    q = j.adjust(np.zeros((30, 40, 3), np.uint8), boxes, p, CLASS_NAMES)
    assert CLASS_NAMES[int(q[0].argmax())] == "6S"  # 0.8 clubs: not sure enough to overrule
    assert CLASS_NAMES[int(q[1].argmax())] == "2C"  # 0.95: heard


def test_a_box_under_the_least_probability_is_not_judged():
    p = _probs({"7S": 0.2, "7C": 0.15, "4H": 0.19, "5H": 0.19, "6H": 0.19}, {"7S": 0.5, "7C": 0.4})
    assert CLASS_NAMES[int(p[0].argmax())] == "7S" and p[0].max() < 0.3  # a black card on top, under 0.3
    boxes = [(0, 0, 10, 20), (20, 0, 30, 20)]
    j = _judge([0.99, 0.99])
    q = j.adjust(np.zeros((30, 40, 3), np.uint8), boxes, p, CLASS_NAMES, least=0.3)
    assert j.read == [[boxes[1]]] and np.allclose(q[0], p[0]) and CLASS_NAMES[int(q[1].argmax())] == "7C"


def test_only_ranks_with_both_black_cards_are_paired():
    pairs = black_pairs(CLASS_NAMES)
    assert len(pairs) == 26 and pairs[CLASS_NAMES.index("10S")] == (CLASS_NAMES.index("10C"), CLASS_NAMES.index("10S"))
    assert all(CLASS_NAMES[k] not in ("BLACK JOKER", "BACK", "NONE") for k in pairs)


def test_missing_weights_are_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="suit judge weights not found"):
        SuitJudge(tmp_path / "nope.onnx")


CANDIDATE = Path(__file__).resolve().parents[1] / "training" / "candidates" / "cards-suit-r17.onnx"


@pytest.mark.skipif(not CANDIDATE.exists(), reason="the round-seventeen judge is not in this checkout")
def test_the_detector_reads_a_judge_it_is_given_and_no_other():
    import cv2

    from vision.detector import MODELS_DIR, SUIT_JUDGE_STEM, Detector

    img = cv2.imread(str(Path(__file__).parent / "fixtures" / "images" / "real_dev_table.jpg"))
    plain = Detector()
    assert (plain.suit_judge is not None) == (MODELS_DIR / f"{SUIT_JUDGE_STEM}.onnx").exists()
    judged = Detector(suit_judge=CANDIDATE)
    assert judged.suit_judge is not None and judged.suit_judge.config["size"] == 128
    off = Detector(suit_judge=None)
    base = off.scored_candidates(img)
    read = judged.scored_candidates(img)
    assert [c[2] for c in read] == [c[2] for c in base]  # the same boxes
    # only a black card's suit may change; its rank and confidence stay
    for a, b in zip(base, read, strict=True):
        assert a[1] == pytest.approx(b[1])
        if a[0] != b[0]:
            assert a[0][:-1] == b[0][:-1] and {a[0][-1], b[0][-1]} == {"C", "S"}
    judged.suit_judge.config["weight"] = 0.0
    assert [c[0] for c in judged.scored_candidates(img)] == [c[0] for c in base]
