"""An int8 copy of the localiser, for measuring (models/MODEL.md, round fourteen: measured, not shipped).

    python -m training.quantize models/cards-yolo.onnx --out runs/q/yolo-u8m.onnx --unsigned \
        --calib runs/data/real/images/train:12:40 --calib runs/data/synth640n/images/train:30:20 \
        --calib runs/data/calib416/images/train:1:80
    python -m training.compare --candidate u8m=runs/q/yolo-u8m.onnx,models/cards-cls.onnx,,,,auto

ONNX Runtime static quantisation (QDQ, per channel, min/max with a moving average) of the localiser's graph, the
detection head's decoding left in float: quantised too, the box coordinates (pixels) and the scores (0-1) share one
8-bit scale, and no box survives.  Calibration pictures are letterboxed at `--imgsz` as the detector does; take them
from training data only (never dev, val or the held-out deck).  `--calib DIR:STEP:COUNT` takes every STEP-th of
DIR's sorted pictures, at most COUNT.  `--unsigned`: unsigned 8-bit weights as well as activations (on AVX2
without VNNI, signed weights can saturate); `--reduce-range`: 7-bit signed weights, the other way round.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path


def calibration_pictures(specs: list[str]) -> list[Path]:
    out: list[Path] = []
    for spec in specs:
        folder, step, count = (spec.split(":") + ["1", "100000"])[:3]
        pics = sorted(p for p in Path(folder).iterdir() if p.suffix.lower() in (".jpg", ".jpeg", ".png"))
        out += pics[::int(step)][:int(count)]
    return out


def head_nodes(model) -> set[str]:
    """The nodes from the head's per-scale concatenations (box distribution and class scores, each from a
    convolution) to the output: the decoding that must stay in float."""
    nodes = model.graph.node
    producer = {o: n for n in nodes for o in n.output}
    consumers: dict[str, list] = {}
    for n in nodes:
        for i in n.input:
            consumers.setdefault(i, []).append(n)
    heads = [n for n in nodes if n.op_type == "Concat" and len(n.input) == 2
             and all(i in producer and producer[i].op_type == "Conv" for i in n.input)]
    seen: set[str] = set()
    stack = list(heads)
    while stack:
        n = stack.pop()
        if n.name in seen:
            continue
        seen.add(n.name)
        for o in n.output:
            stack += consumers.get(o, [])
    return seen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--out", required=True)
    ap.add_argument("--calib", action="append", required=True, help="DIR[:STEP[:COUNT]]")
    ap.add_argument("--imgsz", type=int, default=512)
    ap.add_argument("--unsigned", action="store_true")
    ap.add_argument("--reduce-range", action="store_true")
    args = ap.parse_args(argv)

    import cv2
    import numpy as np
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from vision.detector import _letterbox

    pictures = calibration_pictures(args.calib)
    if not pictures:
        raise SystemExit("no calibration pictures found in " + ", ".join(args.calib))
    with tempfile.TemporaryDirectory() as tmp:
        pre = str(Path(tmp) / "pre.onnx")
        quant_pre_process(args.model, pre, skip_symbolic_shape=True)
        model = onnx.load(pre)
        name = model.graph.input[0].name

        class Reader(CalibrationDataReader):
            def __init__(self):
                self.it = iter(pictures)

            def get_next(self):
                p = next(self.it, None)
                if p is None:
                    return None
                padded, _r, _pad = _letterbox(cv2.imread(str(p)), args.imgsz)
                return {name: np.ascontiguousarray(padded[:, :, ::-1].transpose(2, 0, 1))[None].astype(np.float32) / 255}

        quantize_static(pre, args.out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        reduce_range=args.reduce_range, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QUInt8 if args.unsigned else QuantType.QInt8,
                        calibrate_method=CalibrationMethod.MinMax, nodes_to_exclude=sorted(head_nodes(model)),
                        extra_options={"CalibMovingAverage": True})
    print(f"wrote {args.out} ({len(pictures)} calibration pictures)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
