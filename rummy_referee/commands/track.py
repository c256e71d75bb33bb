"""`rummy-referee track SOURCE --layout LAYOUT.json --match MATCH.json --log OUT.jsonl [--fps 10] [--json]
[--no-motion-gate] [--deck DECK]` (contract: shared/contracts/game-log.md, "Tracking a recording").

Runs the live pipeline offline (vision/tracking.py) and writes the game log it inferred; uncertain events
are applied and listed on standard error. `--json` prints the replay result of the log, as `replay --json`
does. The detector runs only on frames where the picture changed (vision/motion.py); `--no-motion-gate`
runs it on every frame.

Exit status: 0 when the recording was tracked; 2 for a bad layout, match file or source, or no detector.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from referee.strict_json import one_line
from vision.capture import FolderSource, SourceError, open_source
from vision.layout import Layout, LayoutError
from vision.tracking import InputError, load_match, track


def cli_track(args) -> int:
    try:
        layout = Layout.load(args.layout)
        setup, dealer = load_match(args.match)
        src = open_source(args.source, fps=args.fps)
        if not isinstance(src, FolderSource) and not Path(str(args.source)).exists() and "://" not in str(args.source):
            raise InputError(f"source: {args.source}: no such file or folder")
    except (LayoutError, InputError) as e:
        print(one_line(f"rummy-referee track: {e}"), file=sys.stderr)
        return 2
    try:
        from vision.detector import Detector

        detector = Detector(weights=args.model, deck=getattr(args, "deck", None))
    except Exception as e:  # missing model file, missing runtime
        print(one_line(f"rummy-referee track: cannot load the detector: {e}"), file=sys.stderr)
        return 2
    fps = args.fps
    if not src.live and not isinstance(src, FolderSource):
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
        print(one_line(f"rummy-referee track: {e}"), file=sys.stderr)
        return 2
    except InputError as e:
        print(one_line(f"rummy-referee track: {e}"), file=sys.stderr)
        return 2
    for name, why in src.skipped:
        print(f"skipped frame {name}: {why}", file=sys.stderr)
    try:
        Path(args.log).write_text("\n".join(lines) + "\n", encoding="utf-8")
    except OSError as e:
        print(one_line(f"rummy-referee track: cannot write {args.log}: {e.strerror or e}"), file=sys.stderr)
        return 2
    print(f"tracked {tracker.frames} frames: {len(lines) - 1} events -> {args.log}", file=sys.stderr)
    if args.json:
        from referee import replay_lines

        print(json.dumps(replay_lines(lines), ensure_ascii=False))
    return 0
