"""training/quantize.py: the localiser's decoding stays in float (quantised, it found no box at all)."""

from __future__ import annotations

from pathlib import Path

import onnx

from training.quantize import calibration_pictures, head_nodes

ROOT = Path(__file__).resolve().parents[1]


def test_the_head_decoding_is_left_in_float_and_only_it():
    model = onnx.load(str(ROOT / "models" / "cards-yolo.onnx"))
    keep = head_nodes(model)
    out = model.graph.output[0].name
    producer = next(n for n in model.graph.node if out in n.output)
    assert producer.name in keep  # the output concatenation of boxes and scores
    convs = [n for n in model.graph.node if n.op_type == "Conv"]
    assert convs[0].name not in keep and sum(n.name in keep for n in convs) <= 1  # at most the DFL convolution
    assert 0 < len(keep) < len(model.graph.node) // 5


def test_calibration_pictures_take_every_step_th_up_to_a_count(tmp_path):
    for i in range(10):
        (tmp_path / f"p{i}.jpg").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("not a picture")
    got = calibration_pictures([f"{tmp_path}:3:2"])
    assert [p.name for p in got] == ["p0.jpg", "p3.jpg"]
    assert len(calibration_pictures([str(tmp_path)])) == 10
