"""The acceptance measurement of the camera pipeline: scripted hands rendered, tracked like `track` does,
and the inferred game logs compared with the scripted ones (docs/PIPELINE.md).

    python -m vision.evaluation --hands 20 --detector oracle --deck kde-nicu-white [--save DIR]

Evaluation tooling: nothing the live pipeline loads imports it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.oracle import OracleDetector
from vision.synth.recording import RecordingSpec, frames_of, layout_dict, spreads_pile
from vision.synth.scripted_hands import scripted_hands


def norm_event(e: dict) -> str:
    e = dict(e)
    if e.get("type") == "draw":
        e.pop("card", None)  # the referee fills in the card of a discard-pile draw
    if "cards" in e:
        e["cards"] = sorted(e["cards"])
    return json.dumps(e, sort_keys=True)


def _lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def compare_logs(inferred: list[str], expected: list[str]) -> dict:
    """Event-level agreement of two game logs (match line first): matched events in order (LCS), and whether
    both replay to the same result (hands and totals)."""
    from referee import replay_lines

    a = [norm_event(json.loads(x)) for x in inferred[1:]]
    b = [norm_event(json.loads(x)) for x in expected[1:]]
    tp = _lcs(a, b)
    ra, rb = replay_lines(inferred), replay_lines(expected)
    same = ra["hands"] == rb["hands"] and ra["totals"] == rb["totals"]
    return {"inferred": len(a), "expected": len(b), "matched": tp, "same_result": same}


def evaluate(n_hands: int, detector: str = "oracle", deck: str = "kde-nicu-white", seed: int = 0,
             width: int = 1280, height: int = 720, surfaces: list[str] | None = None, verbose: bool = True,
             save_dir: Path | None = None, noise: dict | None = None, motion_gate: bool = True,
             rules: str = "basic", taught: str | None = None) -> dict:
    """Renders `n_hands` scripted hands of `rules` (the player counts of `scripted_hands`, several table
    surfaces, hands over the cards, a few blurred frames) with `deck`, tracks each like `track` does (with the
    motion gate unless `motion_gate` is False), and compares with the scripted logs. `taught`: a deck profile
    (`rummy-referee enrol`) the model reads with, as `--deck` does."""
    import time

    from referee import Match
    from vision.layout import Layout
    from vision.pipeline import TableTracker

    surfaces = surfaces or ["felt", "wood", "cloth", "plain", "marble", "noise"]
    if detector == "model":
        from vision.detector import Detector

        model = Detector(deck=taught)
    rows = []
    t0 = time.time()
    for i, players, dealer, script in scripted_hands(n_hands, seed, rules):
        spec = RecordingSpec(width=width, height=height, deck=deck, surface=surfaces[i % len(surfaces)])
        rng = np.random.default_rng(seed * 7 + i)
        layout = Layout.from_dict(layout_dict(players, spec.card_height, spreads_pile(script.match)))
        if detector == "model":
            det = model
        else:
            det = OracleDetector(np.random.default_rng(1000 + i), **(noise or {}))
        tracker = TableTracker(layout, Match(script.match), dealer, det, fps=spec.fps, auto_confirm=True,
                               motion_gate=motion_gate)
        nframes = 0
        for img, truth in frames_of(script, spec, rng):
            if detector != "model":
                det.truth = truth
            tracker.process(img)
            nframes += 1
        inferred = [json.dumps(script.match)] + [json.dumps(e) for e in tracker.referee.events]
        expected = script.expected_log()
        row = compare_logs(inferred, expected)
        row.update(hand=i, players=len(players), surface=spec.surface, frames=nframes,
                   refused=sum(1 for o in tracker.observer.outcomes if not o["ok"]),
                   uncertain=sum(1 for o in tracker.observer.outcomes if o.get("uncertain")))
        rows.append(row)
        if save_dir is not None:
            d = Path(save_dir)
            d.mkdir(parents=True, exist_ok=True)
            (d / f"hand{i:02d}.inferred.jsonl").write_text("\n".join(inferred) + "\n")
            (d / f"hand{i:02d}.expected.jsonl").write_text("\n".join(expected) + "\n")
        if verbose:
            print(json.dumps(row), flush=True)
    tp = sum(r["matched"] for r in rows)
    n_inf = sum(r["inferred"] for r in rows)
    n_exp = sum(r["expected"] for r in rows)
    return {"rules": rules, "detector": detector, "deck": deck, "taught": taught, "noise": noise if detector == "oracle" else None, "hands": len(rows), "frames": sum(r["frames"] for r in rows),
            "events_expected": n_exp, "events_inferred": n_inf, "events_matched": tp,
            "precision": round(tp / n_inf, 4) if n_inf else 0.0, "recall": round(tp / n_exp, 4) if n_exp else 0.0,
            "exact_result": sum(r["same_result"] for r in rows),
            # the events the players would have been asked to confirm (applied unasked offline)
            "questions_per_hand": round(sum(r["uncertain"] for r in rows) / len(rows), 2) if rows else 0.0,
            "seconds": round(time.time() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m vision.evaluation",
                                 description="Acceptance measurement: scripted hands rendered, tracked, compared.")
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--detector", choices=["oracle", "model"], default="oracle")
    ap.add_argument("--deck", default="kde-nicu-white", help="deck design (use one the detector never trained on)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--save", default=None, help="folder for the inferred and expected logs")
    ap.add_argument("--dropout", type=float, default=0.05, help="oracle: chance a card is missed in a frame")
    ap.add_argument("--misread", type=float, default=0.02, help="oracle: chance a card is read as a random other")
    ap.add_argument("--jitter", type=float, default=2.0, help="oracle: box jitter (pixels, standard deviation)")
    ap.add_argument("--no-motion-gate", action="store_true", help="run the detector on every frame")
    ap.add_argument("--rules", default="basic", choices=["basic", "classic", "solitaired", "rummy500"])
    ap.add_argument("--taught", default=None, help="model only: a taught deck profile to read with (as --deck)")
    a = ap.parse_args(argv)
    noise = {"dropout": a.dropout, "misread": a.misread, "jitter_px": a.jitter}
    res = evaluate(a.hands, a.detector, a.deck, a.seed, a.width, a.height,
                   save_dir=Path(a.save) if a.save else None, noise=noise, motion_gate=not a.no_motion_gate,
                   rules=a.rules, taught=a.taught)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
