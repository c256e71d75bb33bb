"""Benchmark: referee replay speed and the cost of "what is legal now" queries as the table fills.

    .venv/bin/python benchmarks/replay.py [--games 6] [--seed 1]

Generates long random full-information matches (referee.sim) for every preset, then times, on one core:
- replaying their events through Match.apply (events/s, JSON parsing excluded) and through replay_lines
  (JSON Lines in, contract result out);
- Match.legal_moves() at each point of a hand, grouped by the number of melds on the table.
Prints the figures and the machine.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import machine  # noqa: E402

from referee import Match, replay_lines  # noqa: E402
from referee.sim import Simulator  # noqa: E402

CONFIGS = [("basic", 3), ("solitaired", 4), ("classic", 4), ("classic", 6), ("rummy500", 4), ("rummy500", 6)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=6, help="matches per configuration")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"machine: {machine()}")
    logs = []
    for rules, n in CONFIGS:
        for g in range(args.games):
            sim = Simulator(rules, [f"P{i}" for i in range(n)], seed=args.seed * 1000 + g)
            sim.play_match()
            logs.append((sim.setup, sim.log))
    total_events = sum(len(ev) for _, ev in logs)
    print(f"generated {len(logs)} matches, {total_events} events")

    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for setup, events in logs:
            m = Match(setup)
            for ev in events:
                m.apply(ev)
        dt = time.perf_counter() - t0
        best = max(best, total_events / dt)
    print(f"Match.apply replay: {best:,.0f} events/s (best of 3)")

    texts = [[json.dumps(setup)] + [json.dumps(e) for e in events] for setup, events in logs]
    t0 = time.perf_counter()
    for lines in texts:
        replay_lines(lines)
    dt = time.perf_counter() - t0
    print(f"replay_lines (JSON Lines in, contract result out): {total_events / dt:,.0f} events/s")

    by_melds: dict[int, list[float]] = {}
    for setup, events in logs[:: max(1, len(logs) // 12)]:
        m = Match(setup)
        for ev in events:
            m.apply(ev)
            h = m.hand
            if h is None or h.phase == "over":
                continue
            t0 = time.perf_counter()
            m.legal_moves()
            by_melds.setdefault(min(len(h.melds), 12), []).append(time.perf_counter() - t0)
    print("legal_moves() cost by melds on the table (median µs, samples):")
    for k in sorted(by_melds):
        v = by_melds[k]
        label = f"{k}+" if k == 12 else str(k)
        print(f"  {label:>3} melds: {statistics.median(v) * 1e6:8.1f} µs  ({len(v)})")


if __name__ == "__main__":
    main()
