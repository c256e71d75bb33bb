"""Average two corner-classifier checkpoints of one lineage (a "model soup"): (1 - alpha) A + alpha B.

    python -m training.soup runs/cls5/cards-cls.pt runs/cls10/cards-cls.pt --alpha 0.5 --out runs/soup/s5.pt

Both must share the crop convention (arch, size, margin); B is usually a fine-tune of A.  Batch-norm running
statistics are averaged like the weights.  The result is a .pt checkpoint for `training.set_choices`.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    import torch

    from vision.corner_classifier import load_checkpoint

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--alpha", type=float, default=0.5, help="weight of B (0: A, 1: B)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args(argv)
    if not 0.0 <= args.alpha <= 1.0:
        ap.error(f"--alpha must lie in [0, 1] (got {args.alpha})")
    ca, sa = load_checkpoint(args.a)
    cb, sb = load_checkpoint(args.b)
    convention = ("arch", "size", "margin", "square")
    if any(ca.get(k) != cb.get(k) for k in convention) or sa.keys() != sb.keys():
        ap.error(f"{args.a} and {args.b} are different networks or crop conventions")
    soup = {k: (sa[k].float() * (1 - args.alpha) + sb[k].float() * args.alpha).to(sa[k].dtype)
            if sa[k].is_floating_point() else sb[k] for k in sa}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"config": dict(ca), "state_dict": soup}, out)
    print(f"wrote {out} = {1 - args.alpha:g} x {args.a} + {args.alpha:g} x {args.b}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
