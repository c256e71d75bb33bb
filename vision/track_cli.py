"""`rummy-referee track SOURCE --layout LAYOUT.json --match MATCH.json --log OUT.jsonl [--fps 10] [--json]
[--no-motion-gate]`.

Runs the live pipeline offline, on every frame of a recording in order, and writes the game log it inferred:
the `match` line first (MATCH.json without its `dealer`), then `deal` and every event the referee accepted,
in hidden-hand mode (stock draws carry no card). Offline nobody can confirm an uncertain event, so it is
applied and listed on standard error. `--json` prints the replay result of the log, as `replay --json` does.
The detector runs only on frames where the picture changed (vision/motion.py); `--no-motion-gate` runs it on
every frame.

Exit status: 0 when the recording was tracked; 2 for a bad layout, match file or source, or no detector.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from vision.capture import SourceError, iter_frames, open_source
from vision.layout import Layout, LayoutError


class InputError(Exception):
    pass


def load_match(path: str | Path) -> tuple[dict, str]:
    """MATCH.json -> (the match object for the log, the first dealer)."""
    from referee import Match, SetupError
    from referee.strict_json import StrictJSONError, check_match_object
    from vision.jsonfile import load_json_file

    try:
        data = load_json_file(path, "match")
    except ValueError as e:
        raise InputError(str(e)) from None
    if not isinstance(data, dict):
        raise InputError("match: expected a JSON object (a match line plus 'dealer')")
    if data.get("type", "match") != "match":
        raise InputError(f"match: 'type' must be 'match', got {str(data.get('type'))[:40]!r}")
    setup = {"type": "match", **{k: v for k, v in data.items() if k not in ("type", "dealer")}}
    try:
        check_match_object(setup)
        Match(setup)
    except StrictJSONError as e:
        raise InputError(f"match: {e.message}") from None
    except SetupError as e:
        raise InputError(f"match: {getattr(e, 'message', None) or e}") from None
    players = setup.get("players") or []
    dealer = data.get("dealer")
    if dealer is None:
        raise InputError("match: 'dealer' is missing (the dealer of the first hand)")
    if not isinstance(dealer, str) or dealer not in players:
        raise InputError(f"match: dealer {str(dealer)[:40]!r} is not one of the players {players}")
    return setup, dealer


def track(source, layout: Layout, setup: dict, dealer: str, detector, *, fps: float = 10.0,
          auto_confirm: bool = True, frames=None, on_outcome=None, motion_gate=True):
    """Tracks a whole recording. Returns (log lines, outcomes, tracker). `frames` (an iterable of `Frame`s or
    images) replaces reading `source`. `motion_gate`: as `TableTracker`'s."""
    from referee import Match
    from vision.pipeline import TableTracker

    if set(layout.players) != set(setup.get("players") or []):
        raise InputError(f"layout: player zones {sorted(layout.players)} do not match the players "
                         f"{sorted(setup.get('players') or [])}")
    referee = Match(setup)
    tracker = TableTracker(layout, referee, dealer, detector, fps=fps, auto_confirm=auto_confirm,
                           motion_gate=motion_gate)
    if on_outcome is not None:
        tracker.observer.on_event(on_outcome)
    for f in (frames if frames is not None else iter_frames(source)):
        tracker.process(f)
    lines = [json.dumps(setup, ensure_ascii=False)] + [json.dumps(e, ensure_ascii=False) for e in referee.events]
    return lines, tracker.observer.outcomes, tracker


def cli_track(args) -> int:
    try:
        layout = Layout.load(args.layout)
        setup, dealer = load_match(args.match)
        src = open_source(args.source, fps=args.fps)
        if not hasattr(src, "folder") and not Path(str(args.source)).exists() and "://" not in str(args.source):
            raise InputError(f"source: {args.source}: no such file or folder")
    except (LayoutError, InputError) as e:
        print(f"rummy-referee track: {e}", file=sys.stderr)
        return 2
    try:
        from vision.detector import Detector

        detector = Detector(weights=args.model)
    except Exception as e:  # missing model file, missing runtime
        print(f"rummy-referee track: cannot load the detector: {e}", file=sys.stderr)
        return 2
    fps = args.fps
    if getattr(src, "live", False) is False and hasattr(src, "target"):
        try:  # a video file: stability windows follow its own frame rate
            src.open()
            fps = src.fps or fps
            src.close()
        except SourceError:
            pass

    def report(out: dict) -> None:
        if not out["ok"]:
            print(f"refused: {json.dumps(out['event'])}: {out.get('code')}: {out.get('message')}", file=sys.stderr)
        elif out.get("uncertain"):
            print(f"uncertain (applied): {json.dumps(out['event'])}", file=sys.stderr)

    try:
        lines, outcomes, tracker = track(src, layout, setup, dealer, detector, fps=fps, on_outcome=report,
                                         motion_gate=not getattr(args, "no_motion_gate", False))
    except SourceError as e:
        print(f"rummy-referee track: {e}", file=sys.stderr)
        return 2
    except InputError as e:
        print(f"rummy-referee track: {e}", file=sys.stderr)
        return 2
    skipped = getattr(src, "skipped", [])
    for name, why in skipped:
        print(f"skipped frame {name}: {why}", file=sys.stderr)
    try:
        Path(args.log).write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as e:
        print(f"rummy-referee track: cannot write {args.log}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"tracked {tracker.frames} frames: {len(lines) - 1} events -> {args.log}", file=sys.stderr)
    if args.json:
        from referee import replay_lines

        print(json.dumps(replay_lines(lines), ensure_ascii=False))
    return 0
