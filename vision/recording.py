"""The old home of the recording tools, kept for the commands in docs/PIPELINE.md and older scripts.

Each concern now has its own module:

- `vision.synth.scripted_hands`: scripted legal hands and the table after every step;
- `vision.synth.recording`: drawing them into a recording folder (`python -m vision.synth.recording`);
- `vision.oracle`: the ground-truth detectors (`OracleDetector`, `TruthDetector`);
- `vision.demo`: the bundled demo recording played as a live camera (`DEMO_DIR`, `demo_pipeline`);
- `vision.evaluation`: the acceptance measurement (`python -m vision.evaluation`).

`python -m vision.recording evaluate ...` runs `vision.evaluation`, `python -m vision.recording ...` the
renderer. Nothing the live pipeline loads imports this module.
"""

from __future__ import annotations

import sys

from vision.demo import DEMO_DIR
from vision.evaluation import _norm_event, compare_logs, evaluate
from vision.oracle import OracleDetector, TruthDetector
from vision.synth.recording import (
    Geometry,
    RecordingSpec,
    frames_of,
    layout_dict,
    write_recording,
    zone_boxes,
)
from vision.synth.scripted_hands import Script, Step, Table, script_hand, scripted_hands

__all__ = [
    "DEMO_DIR", "Geometry", "OracleDetector", "RecordingSpec", "Script", "Step", "Table", "TruthDetector",
    "_norm_event", "compare_logs", "evaluate", "frames_of", "layout_dict", "script_hand", "scripted_hands",
    "write_recording", "zone_boxes",
]


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["evaluate"]:
        from vision.evaluation import main as evaluate_main

        return evaluate_main(argv[1:])
    from vision.synth.recording import main as render_main

    return render_main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
