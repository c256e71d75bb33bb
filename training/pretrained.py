"""Start a detector from the COCO-pretrained YOLOv5n weights in shared/models/pretrained/.

The checkpoint (`yolov5n-coco.pt`, see the README beside it) is a pickle naming YOLOv5's own
classes (`models.yolo.Model`, `models.common.C3`, ...), which are not installed and must never
be imported: it is read with a restricted unpickler whose `find_class` gives a harmless
placeholder for anything outside `torch`, `collections` and a few builtins, and only the
tensors are kept.  Layers 0-23 (backbone and neck) have exactly the names and shapes of
ultralytics' `yolov5n.yaml`; the detection head (layer 24) is new.

    python -m training.pretrained --nc 55 --out runs/yolov5n-coco-55.pt

writes an ultralytics checkpoint (`{"model": ..., "train_args": {}}`) that `YOLO(path).train()`
fine-tunes.
"""

from __future__ import annotations

import argparse
import pickle
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_WEIGHTS = ROOT.parent / "shared" / "models" / "pretrained" / "yolov5n-coco.pt"

_SAFE_MODULES = ("torch", "collections")
_SAFE_BUILTINS = {"set", "frozenset", "dict", "list", "tuple", "int", "float", "str", "bytes",
                  "bool", "slice", "complex", "getattr"}


class _Placeholder:
    """Stands in for any class the checkpoint names outside torch: it only stores its state."""

    def __init__(self, *args, **kwargs):
        pass

    def __setstate__(self, state):
        if isinstance(state, dict):
            self.__dict__.update(state)
        else:
            self.__dict__["_state"] = state

    def __call__(self, *args, **kwargs):  # a placeholder "function" (e.g. an activation)
        return _Placeholder()


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if module == "builtins" and name in _SAFE_BUILTINS:
            return super().find_class(module, name)
        root = module.split(".")[0]
        if root in _SAFE_MODULES:
            return super().find_class(module, name)
        return type(name, (_Placeholder,), {"__module__": "_placeholder." + module})


class _RestrictedPickleModule:
    """A `pickle_module` for torch.load that never imports code from the checkpoint."""

    Unpickler = _RestrictedUnpickler
    load = staticmethod(lambda f, **kw: _RestrictedUnpickler(f, **kw).load())
    __name__ = "restricted_pickle"


def _collect(obj, prefix: str, out: dict, seen: set) -> None:
    import torch

    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, torch.Tensor):
        out[prefix.rstrip(".")] = obj
        return
    d = getattr(obj, "__dict__", None)
    if not isinstance(d, dict):
        return
    for key in ("_parameters", "_buffers"):
        for name, t in (d.get(key) or {}).items():
            if isinstance(t, torch.Tensor):
                out[prefix + name] = t
    for name, sub in (d.get("_modules") or {}).items():
        if sub is not None:
            _collect(sub, prefix + name + ".", out, seen)


def load_tensors(path: Path = DEFAULT_WEIGHTS) -> dict:
    """The checkpoint's tensors by name (`model.<layer>.<...>`), without running any of its code."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"pretrained weights not found: {path}")
    ckpt = torch.load(str(path), map_location="cpu", pickle_module=_RestrictedPickleModule, weights_only=False)
    model = ckpt.get("ema") or ckpt.get("model") if isinstance(ckpt, dict) else ckpt
    if model is None:
        raise ValueError(f"{path}: no model in the checkpoint")
    tensors: dict = {}
    _collect(model, "", tensors, set())
    if not tensors:
        raise ValueError(f"{path}: no tensors found")
    return tensors


def build_model(nc: int, names: list[str] | None = None, weights: Path = DEFAULT_WEIGHTS,
                cfg: str = "yolov5n.yaml"):
    """An ultralytics DetectionModel (`yolov5n.yaml`, `nc` classes) with the COCO backbone and neck.

    Returns (model, n_loaded).  Raises if the pretrained tensors do not fit layers 0-23."""
    from ultralytics.nn.tasks import DetectionModel

    model = DetectionModel(cfg, nc=nc, verbose=False)
    if names is not None:
        model.names = dict(enumerate(names))
    src = load_tensors(weights)
    own = model.state_dict()
    head = f"model.{len(model.model) - 1}."
    loaded = {}
    for name, t in src.items():
        if name.startswith(head):
            continue
        if name not in own:
            continue
        if tuple(own[name].shape) != tuple(t.shape):
            raise ValueError(f"pretrained tensor {name} has shape {tuple(t.shape)}, model wants {tuple(own[name].shape)}")
        loaded[name] = t.float()
    backbone = [n for n in own if not n.startswith(head) and not n.endswith("num_batches_tracked")]
    missing = [n for n in backbone if n not in loaded]
    if missing:
        raise ValueError(f"{len(missing)} backbone/neck tensors missing from the pretrained weights, e.g. {missing[:3]}")
    model.load_state_dict(loaded, strict=False)
    return model, len(loaded)


def write_checkpoint(out: Path, nc: int, names: list[str] | None = None, weights: Path = DEFAULT_WEIGHTS) -> int:
    import torch

    model, n = build_model(nc, names, weights)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"model": model.half(), "train_args": {}, "epoch": -1, "date": None, "version": "pretrained"}, out)
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weights", default=str(DEFAULT_WEIGHTS))
    ap.add_argument("--nc", type=int, default=55)
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    from training.common import CLASS_NAMES, offline_ultralytics

    offline_ultralytics()
    names = CLASS_NAMES if args.nc == len(CLASS_NAMES) else (["corner"] if args.nc == 1 else None)
    n = write_checkpoint(Path(args.out), args.nc, names, Path(args.weights))
    print(f"wrote {args.out}: {n} pretrained tensors in layers 0-23, new {args.nc}-class head")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
