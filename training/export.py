"""Ship a trained checkpoint: models/cards-yolo.pt (optimizer stripped) + models/cards-yolo.onnx.

    python -m training.export runs/train/stageB/weights/best.pt [--out models]

The ONNX file has a dynamic input size (letterboxed frames keep their aspect ratio, padded to a
multiple of 32), opset 18, and carries the class names in its metadata.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from training.common import ROOT, offline_ultralytics


def export(checkpoint: Path, out_dir: Path, stem: str = "cards-yolo", imgsz: int = 640) -> tuple[Path, Path]:
    offline_ultralytics()
    from ultralytics import YOLO
    from ultralytics.utils.torch_utils import strip_optimizer

    out_dir.mkdir(parents=True, exist_ok=True)
    pt = out_dir / f"{stem}.pt"
    shutil.copy(checkpoint, pt)
    strip_optimizer(str(pt))
    model = YOLO(str(pt))
    onnx_tmp = Path(model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=False, opset=18,
                                 device="cpu", half=False, nms=False))
    onnx_path = out_dir / f"{stem}.onnx"
    # one self-contained file: inline any external tensor data the exporter left beside it
    import onnx

    proto = onnx.load(str(onnx_tmp), load_external_data=True)
    for leftover in (onnx_tmp, Path(str(onnx_tmp) + ".data")):
        if leftover.exists():
            leftover.unlink()
    onnx.save_model(proto, str(onnx_path), save_as_external_data=False)
    return pt, onnx_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--out", default=str(ROOT / "models"))
    ap.add_argument("--stem", default="cards-yolo")
    args = ap.parse_args(argv)
    pt, onnx = export(Path(args.checkpoint), Path(args.out), args.stem)
    print(f"wrote {pt} ({pt.stat().st_size / 1e6:.1f} MB) and {onnx} ({onnx.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
