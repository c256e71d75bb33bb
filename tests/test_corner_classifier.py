"""The corner classifier's crop conventions and weight files (v1 legacy, v2 square crops)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.corner_classifier import CONFIGS, CornerClassifier, build_model, crop, load_checkpoint


def _marked_image():
    img = np.full((200, 300, 3), 50, np.uint8)
    img[40:100, 100:130] = 255  # a tall white "index", 30 wide, 60 high
    return img


def test_v1_crop_squashes_the_box_into_a_square():
    c = crop(_marked_image(), (100, 40, 130, 100), size=32, margin=0.0, square=False)
    assert c.shape == (32, 32, 3)
    assert c.min() == 255  # the box only, stretched


def test_v2_crop_keeps_the_proportions():
    c = crop(_marked_image(), (100, 40, 130, 100), size=40, margin=0.0, square=True)
    assert c.shape == (40, 40, 3)
    white = (c[..., 0] > 200)
    cols = np.where(white.any(0))[0]
    rows = np.where(white.any(1))[0]
    # a 30x60 index in a 60x60 square: full height, about half the width, centred
    assert rows.min() <= 1 and rows.max() >= 38
    assert 17 <= len(cols) <= 23 and abs((cols.min() + cols.max()) / 2 - 19.5) <= 2


def test_v2_crop_at_the_border_replicates_instead_of_shifting():
    img = _marked_image()
    c = crop(img, (-10, -10, 10, 30), size=40, margin=0.0, square=True)
    assert c.shape == (40, 40, 3)
    assert crop(img, (400, 400, 420, 430), size=40, square=True).max() == 0  # wholly outside: blank


@pytest.mark.parametrize("arch", ["v1", "v2"])
def test_weights_carry_their_crop_convention(tmp_path, arch):
    import torch

    cfg = CONFIGS[arch]
    model = build_model(cfg).eval()
    path = tmp_path / "cls.pt"
    if arch == "v1":
        torch.save(model.state_dict(), path)  # the first shipped format: a bare state dict
    else:
        torch.save({"config": cfg, "state_dict": model.state_dict()}, path)
    got_cfg, state = load_checkpoint(path)
    assert got_cfg == cfg
    clf = CornerClassifier(path, backend="torch")
    assert clf.config == cfg
    out = clf.classify(_marked_image(), [(100, 40, 130, 100), (0, 0, 20, 20)])
    assert len(out) == 2 and all(0 <= p <= 1 for _, p in out)
    x = torch.zeros(1, 3, cfg["size"], cfg["size"])
    assert model(x).shape == (1, 56)


def test_unknown_arch_is_refused():
    with pytest.raises(ValueError, match="unknown corner classifier arch"):
        build_model({"arch": "v9"})


def test_shipped_classifier_reads_its_config_from_onnx_metadata():
    from pathlib import Path

    shipped = Path(__file__).resolve().parents[1] / "models" / "cards-cls.onnx"
    onnx_cfg = CornerClassifier(shipped, backend="onnx").config
    torch_cfg = CornerClassifier(shipped.with_suffix(".pt"), backend="torch").config
    assert onnx_cfg == torch_cfg and onnx_cfg["arch"] in CONFIGS


def test_views_read_shifted_and_scaled_framings(tmp_path):
    import torch

    cfg = dict(CONFIGS["v1"], views=[[0, 0, 1.0], [0.1, 0, 1.0], [0, 0, 2.0]], tta=False, conf=0.42)
    path = tmp_path / "cls.pt"
    torch.save({"config": cfg, "state_dict": build_model(cfg).state_dict()}, path)
    clf = CornerClassifier(path, backend="torch")
    (a, b, c) = clf.view_boxes([(10, 20, 30, 60)])
    assert a == [(10, 20, 30, 60)]
    assert b == [(12, 20, 32, 60)]  # shifted by 10 % of the width
    assert c == [(0, 0, 40, 80)]  # twice the size about the centre
    p = clf.probabilities(_marked_image(), [(100, 40, 130, 100), (0, 0, 20, 20)])
    assert p.shape == (2, 56) and np.allclose(p.sum(1), 1)
    # the mean over the views, each view read on its own
    each = []
    for v in cfg["views"]:
        clf.config = dict(cfg, views=[v])
        each.append(clf.probabilities(_marked_image(), [(100, 40, 130, 100), (0, 0, 20, 20)]))
    assert np.allclose(p, np.mean(each, 0), atol=1e-5)


def test_a_table_read_at_its_own_size_uses_the_table_views(tmp_path):
    """`table_views` frame the crops when the table pipeline reads a camera's frames (`Detector.table_imgsz`);
    a still photo keeps the plain reading."""
    import torch

    from vision.detector import MODELS_DIR, Detector

    cfg = dict(CONFIGS["v1"], tta=False, table_views=[[0, 0, 0.9]])
    torch.save({"config": cfg, "state_dict": build_model(cfg).state_dict()}, tmp_path / "cls.pt")
    det = Detector(MODELS_DIR / "cards-yolo.pt", backend="torch", classifier=tmp_path / "cls.pt")
    assert det.classifier.view_boxes([(10, 20, 30, 60)], [[0, 0, 0.9]]) == [[(11.0, 22.0, 29.0, 58.0)]]
    seen = []
    real = det.classifier.probabilities
    det.classifier.probabilities = lambda img, boxes, tta=None, views=None, stretch=(1.0, 1.0): (
        seen.append(views) or real(img, boxes, tta, views, stretch))
    det._impl.corners = lambda img, imgsz, conf: [("corner", 0.9, (100.0, 40.0, 130.0, 100.0), None)]
    det.candidates(_marked_image())
    det.table_imgsz = 800
    det.candidates(_marked_image())
    assert seen == [None, [[0, 0, 0.9]]]


def test_detector_takes_the_threshold_stored_with_the_classifier(tmp_path):
    import torch

    from vision.detector import DEFAULT_CONF, MODELS_DIR, Detector

    cfg = dict(CONFIGS["v1"], conf=0.37, imgsz=416, box_conf=0.07, max_candidates=33)
    torch.save({"config": cfg, "state_dict": build_model(cfg).state_dict()}, tmp_path / "cls.pt")
    yolo = MODELS_DIR / "cards-yolo.pt"
    det = Detector(yolo, backend="torch", classifier=tmp_path / "cls.pt")
    assert (det.conf, det.imgsz, det.box_conf, det.max_candidates) == (0.37, 416, 0.07, 33)
    det = Detector(yolo, backend="torch", classifier=tmp_path / "cls.pt", conf=0.8, imgsz=640)
    assert (det.conf, det.imgsz) == (0.8, 640)  # explicit wins
    # the shipped YOLO only finds corner indices: without a classifier it says what it needs
    with pytest.raises(ValueError, match="needs the corner classifier"):
        Detector(yolo, backend="torch", classifier=None)
    # a YOLO that names the cards itself needs none, and takes the default threshold
    import torch
    from ultralytics.nn.tasks import DetectionModel

    from vision.types import CORNER_CLASSES

    named = tmp_path / "named.pt"  # (untrained: only its class list matters here; needs nothing outside the repo)
    model = DetectionModel("yolov5n.yaml", nc=len(CORNER_CLASSES), verbose=False)
    model.names = dict(enumerate(CORNER_CLASSES))
    torch.save({"model": model.half(), "train_args": {}, "epoch": -1, "date": None, "version": "test"}, named)
    assert Detector(named, backend="torch", classifier=None).conf == DEFAULT_CONF


def test_quarter_turns_average_the_four_readings_and_skip_confident_boxes(tmp_path):
    """tta "r4": each crop is read at 0/90/180/270° (or the "tta_turns" given), the probabilities averaged; with "tta_below" only the
    boxes whose plain reading is under it are turned (a confident reading keeps its single pass)."""
    import torch

    cfg = dict(CONFIGS["v1"], tta="r4")
    path = tmp_path / "cls.pt"
    torch.manual_seed(0)
    model = build_model(cfg)
    with torch.no_grad():
        model[-1].weight.mul_(200)  # an untrained network reads nearly uniform: make its readings differ
    torch.save({"config": cfg, "state_dict": model.state_dict()}, path)
    clf = CornerClassifier(path, backend="torch")
    img = _marked_image()
    img[40:60, 100:110] = 0  # not symmetric under a quarter turn
    boxes = [(100, 40, 130, 100), (0, 0, 20, 20)]
    crops = clf.crops(img, boxes)

    def read(cs):
        return _softmax_of(clf, cs)

    turns = [read([np.ascontiguousarray(np.rot90(c, k)) for c in crops]) for k in range(4)]
    p = clf.probabilities(img, boxes)
    assert p.shape == (2, 56) and np.allclose(p, np.mean(turns, 0), atol=1e-5)
    assert not np.allclose(turns[0], turns[1], atol=1e-4)  # the turns are real, different readings
    plain = turns[0]
    cut = float(plain.max(1).mean())  # between the two boxes' plain readings: one is turned, the other not
    assert plain[0].max() != plain[1].max()
    clf.config = dict(cfg, tta_below=cut)
    q = clf.probabilities(img, boxes)
    for j in range(2):
        want = np.mean([t[j] for t in turns], 0) if plain[j].max() < cut else plain[j]
        assert np.allclose(q[j], want, atol=1e-5)
    clf.config = dict(cfg, tta_turns=[1, 3])  # "tta_turns": only the sideways readings are added
    assert np.allclose(clf.probabilities(img, boxes), np.mean([turns[0], turns[1], turns[3]], 0), atol=1e-5)


def _softmax_of(clf, crops):
    from vision.corner_classifier import _batch, _softmax

    return _softmax(clf.logits(_batch(crops)))


def test_set_choices_and_soup_keep_dots_in_the_output_name(tmp_path):
    """`--out runs/soup/s0.5` writes s0.5.pt / s0.5.onnx (it once wrote s0.pt, over another file)."""
    import torch

    from training import set_choices, soup

    cfg = CONFIGS["v2"]
    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    for path, fill in ((a, 0.0), (b, 1.0)):
        model = build_model(cfg)
        for t in model.state_dict().values():
            if t.is_floating_point():
                t.fill_(fill)
        torch.save({"config": cfg, "state_dict": model.state_dict()}, path)
    assert soup.main([str(a), str(b), "--alpha", "0.25", "--out", str(tmp_path / "s0.25.pt")]) == 0
    _, state = load_checkpoint(tmp_path / "s0.25.pt")
    weights = [t for t in state.values() if t.is_floating_point()]
    assert all(torch.allclose(t, torch.full_like(t, 0.25)) for t in weights)
    assert set_choices.main([str(tmp_path / "s0.25.pt"), "--out", str(tmp_path / "s0.25-r4"), "--tta-r4"]) == 0
    assert (tmp_path / "s0.25-r4.pt").exists() and (tmp_path / "s0.25-r4.onnx").exists()
    assert not (tmp_path / "s0.pt").exists()
    assert CornerClassifier(tmp_path / "s0.25-r4.onnx").config["tta"] == "r4"
    with pytest.raises(SystemExit):  # a weight outside [0, 1] is refused (argparse error, exit 2)
        soup.main([str(a), str(b), "--alpha", "1.5", "--out", str(tmp_path / "x")])


def test_a_squashed_index_read_stretched_back_looks_like_the_index_itself():
    """`crop(..., stretch=(sx, sy))` reads the picture as if it had been stretched first: an index squashed to half
    its width (a 16:9 frame saved as a square does that) is cropped as the unsquashed one is."""
    img = np.full((200, 300, 3), 50, np.uint8)
    img[40:100, 100:130] = 255  # 30 wide, 60 high
    img[60:70, 110:120] = 0  # a dark mark inside it
    squashed = np.ascontiguousarray(img[:, ::2])  # every other column: the same picture, half as wide
    own = crop(img, (100, 40, 130, 100), size=40, margin=0.1, square=True).astype(float)
    back = crop(squashed, (50, 40, 65, 100), size=40, margin=0.1, square=True, stretch=(2.0, 1.0)).astype(float)
    as_is = crop(squashed, (50, 40, 65, 100), size=40, margin=0.1, square=True).astype(float)
    assert np.abs(back - own).mean() < 12
    assert np.abs(as_is - own).mean() > 3 * np.abs(back - own).mean()
    assert crop(squashed, (50, 40, 65, 100), size=40, square=True, stretch=(1.0, 1.0)).shape == (40, 40, 3)
