"""Totals of `scripts/eval_hands.sh`'s rows: events matched / expected, precision, recall, hands exact, taps.

    python scripts/eval_hands_summary.py OUT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(out: str) -> None:
    tot = dict(expected=0, inferred=0, matched=0, exact=0, hands=0, taps=0)
    for f in sorted(Path(out).glob("*.jsonl")):
        rows = [json.loads(x) for x in f.read_text().splitlines() if x.strip().startswith("{")]
        hands = [r for r in rows if "hand" in r]
        if not hands:
            print(f.name, "no hands")
            continue
        m, e, i = (sum(r[k] for r in hands) for k in ("matched", "expected", "inferred"))
        ex, taps = sum(1 for r in hands if r.get("same_result")), sum(r.get("taps", 0) for r in hands)
        lost = [(r["hand"], r["matched"], r["expected"]) for r in hands if not r.get("same_result")]
        print(f"{f.stem}: {m}/{e} (inferred {i}), exact {ex}/{len(hands)}, taps {taps}; not exact: {lost}")
        for k, v in zip(("matched", "expected", "inferred", "exact", "hands", "taps"), (m, e, i, ex, len(hands), taps),
                        strict=True):
            tot[k] += v
    if tot["hands"]:
        print(f"all: {tot['matched']}/{tot['expected']} (inferred {tot['inferred']}), "
              f"P {tot['matched'] / max(1, tot['inferred']):.3f} R {tot['matched'] / tot['expected']:.3f}, "
              f"exact {tot['exact']}/{tot['hands']}, taps a hand {tot['taps'] / tot['hands']:.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
