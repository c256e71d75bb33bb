"""The acceptance measurement of the camera pipeline: scripted hands rendered, tracked like `track` does,
and the inferred game logs compared with the scripted ones (docs/PIPELINE.md).

    python -m vision.evaluation --hands 20 --detector oracle --deck kde-nicu-white [--save DIR]

Evaluation tooling: nothing the live pipeline loads imports it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from vision.observer import event_cards
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


def _inside(box, region, pad: float = 4.0) -> bool:
    """Whether `box`'s centre lies in `region` (widened by `pad` pixels)."""
    from vision.geometry import centre_in

    return centre_in(box, region, pad)


class Tracer:
    """`--trace`: what the observer saw and did, a line each, on `out` (standard error), to follow a hand that
    went wrong: each new stable snapshot ("S": its number, the pile, each zone's groups, the cards read under
    0.9 with their certainty and the vote's other names), each outcome ("O": applied, refused, proposed) and
    each answer of the stand-in players ("Q")."""

    def __init__(self, out):
        self.out = out
        self._snap = None
        self._observer = None
        self.snaps = 0

    @classmethod
    def following(cls, out, observer) -> Tracer | None:
        """A tracer writing to `out` about `observer`'s outcomes (None without `out`)."""
        if out is None:
            return None
        tracer = cls(out)
        tracer.attach(observer)
        return tracer

    def attach(self, observer) -> None:
        self._observer = observer
        observer.on_event(self.outcome)

    def line(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def frame(self, observer) -> None:
        snap = observer.last_snapshot if observer is not None else None
        if snap is None or snap is self._snap:
            return
        self._snap = snap
        self.snaps += 1
        zones = {p: [list(g.cards) for g in gs] for p, gs in snap.players.items() if gs}
        unsure = {c: round(v, 2) for c, v in snap.confidence.items() if v < 0.9}
        alts = {c: [a for a, _w in v] for c, v in snap.alternatives.items() if c in unsure}
        self.line(f"S {self.snaps} pile={list(snap.discard)} zones={zones} unsure={unsure} others={alts}")

    def outcome(self, o: dict) -> None:
        self.frame(self._observer)  # the snapshot it came from first
        kind = "proposed" if o.get("proposed") and "confirmed" not in o else "applied" if o.get("ok") else "refused"
        extra = f" ({o.get('code')}: {o.get('message')})" if kind == "refused" else \
            f" ({o.get('message')})" if kind == "proposed" else ""
        self.line(f"O {kind} {json.dumps(o.get('event'))}{extra}")

    def answered(self, what: str, q: dict, true: dict) -> None:
        self.line(f"Q {what} {json.dumps(q.get('event'))} -> {json.dumps(true)}")


class TruthfulTable:
    """The players at a rendered table, answering the camera's questions as people who see the cards would
    (the evaluation's stand-in for the dashboard's Yes / Correct it / No): each card a question names is
    looked at where the camera saw it (its stable box) and named by the renderer's truth; a question the
    scripted hand has an event for (a hand shown) is answered with that event; a meld not all seen, with the
    cards lying where the question shows.  A move the scripted hand never had (those cards, that player) is
    answered No (one tap); a right one is confirmed (one tap), a misread one corrected (one tap to open the
    picker, one per card changed, one to send), or rejected when the referee refuses the players' version.
    A question that names a move exactly as the scripted hand played it (player, cards, meld) is confirmed
    without looking at the camera's boxes: people answer the question they are asked (stop 43).
    The players' knowledge is the renderer's truth and the script: the camera's reading is never used to
    answer it."""

    def __init__(self, expected: list[dict], tracer: Tracer | None = None):
        self.expected = expected
        self.tracer = tracer
        self.questions = self.confirmed = self.corrected = self.rejected = self.taps = 0

    def _said(self, what: str, q: dict, true: dict) -> None:
        if self.tracer is not None:
            self.tracer.answered(what, q, true)

    @staticmethod
    def _true_name(name: str, stable, truth, aliases: dict[str, str]) -> str | None:
        return TruthfulTable._true_names([name], stable, truth, aliases)[0]

    @staticmethod
    def _cards_in(box, truth, exclude: set[str]) -> list[str]:
        """The cards lying in `box` widened by half its longer side (the part of the table a question shows)."""
        from vision.geometry import size

        pad = 0.5 * size(box)
        return [c for c, tb, _k in truth if c != "BACK" and c not in exclude and _inside(tb, box, pad)]

    @staticmethod
    def _true_names(names: list[str], stable, truth, aliases: dict[str, str]) -> list[str | None]:
        """Each camera card's true name: the card whose truth box holds the centre of the card's stable box
        (the nearest such card), each true card given to one of them only (in a fan one index box may lie on
        two cards: the nearer claim wins, the other takes its next card). None where the card is not seen."""
        from vision.geometry import distance

        claims = []
        for i, name in enumerate(names):
            camera = next((a for a, b in aliases.items() if b == name), name)
            box = next((d.box for d in stable if d.card == camera), None)
            if box is None:
                continue
            claims += [(distance(box, tb), i, k, card) for k, (card, tb, _corners) in enumerate(truth)
                       if card != "BACK" and _inside(box, tb)]
        out: list[str | None] = [None] * len(names)
        used = set()
        for _d, i, _k, card in sorted(claims):
            if out[i] is None and card not in used:
                out[i] = card
                used.add(card)
        return out

    def truth_of(self, ev: dict, stable, truth, aliases: dict[str, str], box=None, on_table=(),
                 camera_cards=()) -> dict:
        if box is not None and ev.get("type") == "meld":  # a meld not all seen: the players look at it
            cards = self._cards_in(box, truth, set(on_table))
            if len(cards) >= 3:
                return dict(ev, cards=cards)
        true = dict(ev)
        for key in ("card", "upcard"):
            if isinstance(ev.get(key), str):
                true[key] = self._true_name(ev[key], stable, truth, aliases) or ev[key]
        if isinstance(ev.get("cards"), list):
            named = self._true_names(ev["cards"], stable, truth, aliases)
            true["cards"] = [n or c for n, c in zip(named, ev["cards"], strict=True)]
            if ev.get("type") == "meld" and not self.happened(true):
                # the players look at the cards the camera showed them and say which meld lies there (a card's
                # other index read as another card, a card the camera missed)
                from vision.geometry import iou, union

                # (the question's picture shows the cards as the camera read them too: `camera_cards`)
                shown = set(ev["cards"]) | {a for a, b in aliases.items() if b in ev["cards"]} | set(camera_cards)
                boxes = [d.box for d in stable if d.card in shown]
                if boxes:
                    region, laid = union(boxes), set(on_table)
                    for near in (lambda b, r: iou(b, r) > 0, _inside):  # overlapping it, then centred in it
                        there = [c for c, tb, _k in truth if c != "BACK" and c not in laid and near(tb, region)]
                        if len(there) >= 3 and self.happened(dict(ev, cards=there)):
                            return dict(ev, cards=there)
        if true.get("type") == "reveal":  # a hand shown: the players show it whole
            for e in self.expected:
                if e.get("type") == "reveal" and e.get("player") == true.get("player"):
                    return dict(e)
        return true

    def happened(self, ev: dict) -> bool:
        """Whether the hand had this move (one deck: a play of given cards by a player happens once at most;
        a lay-off's meld number and a draw's card aside). Moves without cards (the end of a hand) count."""
        def key(e: dict):
            return (e.get("type"), e.get("player"), tuple(sorted(e.get("cards") or [])), e.get("card"),
                    e.get("upcard"), bool(e.get("face_down")))

        if ev.get("type") in ("draw", "end_hand", "call_rummy") or not event_cards(ev):
            return True
        k = key(ev)
        return any(key(e) == k for e in self.expected)

    @staticmethod
    def _correct(observer, pid: int, true: dict):
        out = observer.correct(pid, true)
        if (out is None or not out.get("ok")) and true.get("type") == "lay_off":
            # the players point at the meld it went on: the one the referee takes it on
            for m in (observer.referee.public_state().get("current") or {}).get("melds") or []:
                if m["id"] != true.get("meld"):
                    out = observer.correct(pid, dict(true, meld=m["id"]))
                    if out is not None and out.get("ok"):
                        break
        return out

    def answer(self, observer, stable, truth) -> None:
        for q in observer.pending():
            self.questions += 1
            ev = q["event"]
            said = norm_event(ev)
            if event_cards(ev) and ev.get("type") != "reveal" and any(norm_event(e) == said for e in self.expected):
                # the question names a move of the hand exactly as it was played (its player, its cards, its meld):
                # the players say Yes (below), whatever box the camera read a name in. Before, each name was looked
                # up where the camera saw it: the demo with the round-six localiser asked "Ana lays off AS?", which
                # she did, but the camera's "AS" was a box straddling three indices and the stand-ins answered No
                true = dict(ev)
            else:
                cur = observer.referee.public_state().get("current") or {}
                on_table = [c for m in cur.get("melds") or [] for c in m.get("cards", [])] + list(cur.get("discard") or [])
                true = self.truth_of(ev, stable, truth, dict(observer._aliases), q.get("box"), on_table,
                                     q.get("camera_cards") or ())
            if not self.happened(true):  # the players saw no such move: No
                self._said("No (no such move)", q, true)
                observer.reject(q["id"])
                self.rejected += 1
                self.taps += 1
                continue
            if norm_event(true) == said:
                self._said("Yes", q, true)
                observer.confirm(q["id"])
                self.confirmed += 1
                self.taps += 1
                continue
            out = self._correct(observer, q["id"], true)
            if out is not None and out.get("ok"):
                self._said("corrected", q, true)
                self.corrected += 1
                seen = event_cards(ev)
                self.taps += 2 + sum(1 for c in event_cards(true) if c not in seen)
            else:
                self._said("No (the referee refuses the players' version)", q, true)
                observer.reject(q["id"])
                self.rejected += 1
                self.taps += 1


def _looked(tracker, tracer: Tracer | None, answers: TruthfulTable | None, truth) -> None:
    """After a look at the table: the tracer's line, and the stand-in players answering what it asks (`truth()`:
    that table's cards, worked out only when something is asked)."""
    if tracer is not None:
        tracer.frame(tracker.observer)
    if answers is not None and tracker.observer.pending():
        answers.answer(tracker.observer, tracker.last_stable, truth())


def _finish(tracker, tracer: Tracer | None, answers: TruthfulTable | None, truth) -> None:
    """The recording's end, as `track` and the dashboard meet it (`TableTracker.finish`): the last table
    looked at again, the stand-in players answering what it asks (`truth()`: that table's cards)."""
    tracker.finish(on_look=lambda: _looked(tracker, tracer, answers, truth))


def evaluate(n_hands: int, detector: str = "oracle", deck: str = "kde-nicu-white", seed: int = 0,
             width: int = 1280, height: int = 720, surfaces: list[str] | None = None, verbose: bool = True,
             save_dir: Path | None = None, noise: dict | None = None, motion_gate: bool = True,
             rules: str = "basic", taught: str | None = None, conf: float | None = None,
             floor: float | None = None, table: str = "camera", unknown: float | None = None,
             imgsz: int | None = None, only: set[int] | None = None, trace=None) -> dict:
    """Renders `n_hands` scripted hands of `rules` (the player counts of `scripted_hands`, several table
    surfaces, hands over the cards, a few blurred frames) with `deck`, tracks each like `track` does (with the
    motion gate unless `motion_gate` is False), and compares with the scripted logs. `taught`: a deck profile
    (`rummy-referee enrol`) the model reads with, as `--deck` does.  `only`: the hand numbers to run (the others
    skipped; each hand is the same with or without the others).  `trace`: a stream for `Tracer`'s lines."""
    import time

    from referee import Match
    from vision.layout import Layout
    from vision.pipeline import TableTracker

    surfaces = surfaces or ["felt", "wood", "cloth", "plain", "marble", "noise"]
    if detector == "model":
        from vision.detector import Detector

        model = Detector(deck=taught, conf=conf, imgsz=imgsz)
        model.floor, model.unknown_from = floor, unknown  # floor None: the pipeline's own (UNSURE_FLOOR)
    rows = []
    t0 = time.time()
    for i, players, dealer, script in scripted_hands(n_hands, seed, rules):
        if only is not None and i not in only:
            continue
        spec = RecordingSpec(width=width, height=height, deck=deck, surface=surfaces[i % len(surfaces)])
        rng = np.random.default_rng(seed * 7 + i)
        layout = Layout.from_dict(layout_dict(players, spec.card_height, spreads_pile(script.match)))
        if detector == "model":
            det = model
        else:
            det = OracleDetector(np.random.default_rng(1000 + i), **(noise or {}))
        expected = script.expected_log()
        players_answer = table == "truthful"
        tracker = TableTracker(layout, Match(script.match), dealer, det, fps=spec.fps,
                               auto_confirm=not players_answer, motion_gate=motion_gate)
        tracer = Tracer.following(trace, tracker.observer)
        if tracer is not None:
            tracer.line(f"# hand {i}: {rules}, players {', '.join(players)}, {spec.surface}")
        answers = TruthfulTable([json.loads(x) for x in expected[1:]], tracer) if players_answer else None
        nframes = 0
        for img, truth in frames_of(script, spec, rng):
            if detector != "model":
                det.truth = truth
            tracker.process(img)
            _looked(tracker, tracer, answers, lambda t=truth: t)
            nframes += 1
        _finish(tracker, tracer, answers, lambda t=truth if nframes else []: t)
        inferred = [json.dumps(script.match)] + [json.dumps(e) for e in tracker.referee.events]
        row = compare_logs(inferred, expected)
        row.update(hand=i, players=len(players), surface=spec.surface, frames=nframes,
                   refused=sum(1 for o in tracker.observer.outcomes if not o["ok"] and not o.get("proposed")),
                   uncertain=(answers.questions if answers is not None
                              else sum(1 for o in tracker.observer.outcomes if o.get("uncertain"))))
        if answers is not None:
            row.update(confirmed=answers.confirmed, corrected=answers.corrected, rejected=answers.rejected,
                       taps=answers.taps)
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
            "table": table,
            **({"taps_per_hand": round(sum(r["taps"] for r in rows) / len(rows), 2),
                "corrected": sum(r["corrected"] for r in rows), "rejected": sum(r["rejected"] for r in rows)}
               if table == "truthful" and rows else {}),
            "seconds": round(time.time() - t0, 1)}


def evaluate_demo(table: str = "truthful", taught: str | None = None, verbose: bool = True, trace=None) -> dict:
    """The bundled demo recording (vision/data/demo) read by the shipped model as the dashboard's demo reads
    it, compared with its scripted log; `table` "truthful": the questions answered as the players would, from
    the recording's per-frame truth (each card's box), as `evaluate` does; "camera": applied as read."""
    import time

    from referee import Match
    from vision.capture import FolderSource, iter_frames
    from vision.demo import DEMO_DIR, demo_recording
    from vision.detector import Detector
    from vision.pipeline import TableTracker

    t0 = time.time()
    layout, setup, dealer, fps = demo_recording()
    expected = (DEMO_DIR / "expected.jsonl").read_text(encoding="utf-8").splitlines()
    truths = [json.loads(x) for x in (DEMO_DIR / "truth.jsonl").read_text(encoding="utf-8").splitlines()]
    players_answer = table == "truthful"
    tracker = TableTracker(layout, Match(setup), dealer, Detector(deck=taught), fps=fps,
                           auto_confirm=not players_answer)
    tracer = Tracer.following(trace, tracker.observer)
    answers = TruthfulTable([json.loads(x) for x in expected[1:]], tracer) if players_answer else None
    def truth_at(i: int | None) -> list:
        return [(c, tuple(b), ()) for c, b in truths[i]] if i is not None and i < len(truths) else []

    frames, last = 0, None
    for frame in iter_frames(FolderSource(DEMO_DIR / "frames", fps=fps)):
        tracker.process(frame)
        frames, last = frames + 1, frame.index
        _looked(tracker, tracer, answers, lambda i=last: truth_at(i))
    _finish(tracker, tracer, answers, lambda: truth_at(last))
    inferred = [expected[0]] + [json.dumps(e) for e in tracker.referee.events]
    row = compare_logs(inferred, expected)
    n_inf, n_exp, tp = row["inferred"], row["expected"], row["matched"]
    row.update(demo=str(DEMO_DIR), frames=frames, table=table, taught=taught,
               precision=round(tp / n_inf, 4) if n_inf else 0.0, recall=round(tp / n_exp, 4) if n_exp else 0.0,
               seconds=round(time.time() - t0, 1))
    if answers is not None:
        row.update(questions=answers.questions, confirmed=answers.confirmed, corrected=answers.corrected,
                   rejected=answers.rejected, taps=answers.taps)
    if verbose:
        for line in inferred[1:]:
            print(line)
    return row


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
    ap.add_argument("--floor", type=float, default=None,
                    help="model only: the pipeline also takes corners read from this score (settled by the vote; "
                         "default: vision.pipeline.UNSURE_FLOOR, 0.2; 0.5 or more: only the confident ones)")
    ap.add_argument("--table", choices=["camera", "truthful"], default="camera",
                    help="camera: questions applied as the camera read them (as `track`); truthful: answered as the "
                         "players would, from the renderer's truth (taps counted)")
    ap.add_argument("--unknown", type=float, default=None,
                    help="model only, with --floor: corners the localiser finds from this score and the classifier "
                         "cannot name become cards for the players to name")
    ap.add_argument("--imgsz", type=int, default=None, help="model only: the localiser's input size (default: the model's)")
    ap.add_argument("--conf", type=float, default=None, help="model only: the corner threshold (default: the model's)")
    ap.add_argument("--only", default=None, help="run only these hands (numbers, comma-separated; for debugging)")
    ap.add_argument("--demo", action="store_true",
                    help="the bundled demo recording read by the shipped model (with --table and --taught)")
    ap.add_argument("--trace", action="store_true",
                    help="print what the observer saw and did (snapshots, outcomes, answers) on standard error")
    a = ap.parse_args(argv)
    trace = sys.stderr if a.trace else None
    if a.demo:
        print(json.dumps(evaluate_demo(a.table, a.taught, trace=trace)))
        return 0
    noise = {"dropout": a.dropout, "misread": a.misread, "jitter_px": a.jitter}
    res = evaluate(a.hands, a.detector, a.deck, a.seed, a.width, a.height,
                   save_dir=Path(a.save) if a.save else None, noise=noise, motion_gate=not a.no_motion_gate,
                   rules=a.rules, taught=a.taught, conf=a.conf, floor=a.floor, table=a.table, unknown=a.unknown, imgsz=a.imgsz,
                   only={int(x) for x in a.only.split(",")} if a.only else None, trace=trace)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
