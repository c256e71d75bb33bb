"""ONNX Runtime sessions on the CPU, built one way for every network the detector runs.

The detector runs two networks per frame, one after the other: the localiser, then the corner classifier on the
localiser's boxes.  By default each ONNX Runtime session keeps its own pool of worker threads that spin (busy-wait)
for a while after each run, waiting for more work.  With two sessions on a 2-core machine, the localiser's spinning
workers take the cores from the classifier that runs next, and the other way round.  Measured on this project's
2-core AMD EPYC (2026-12-07, each configuration in its own process, 40 rendered 1280×720 frames, the shipped
pair): `Detector.detect` took p50 49 ms with the default sessions and 32 ms with spinning off, the same
detections (models/MODEL.md, "Round fourteen").  A worker that sleeps also leaves the cores to the capture and
tracking threads of a live table.
"""

from __future__ import annotations

from pathlib import Path

SPINNING = "0"  # session.intra_op.allow_spinning: "0" = a worker sleeps as soon as its run ends


def cpu_session(path: str | Path, threads: int | None = None):
    """An ONNX Runtime inference session of `path` on the CPU: all graph optimisations, workers that do not spin,
    `threads` intra-op threads (None: ONNX Runtime's choice, one per core)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    if threads:
        opts.intra_op_num_threads = threads
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.add_session_config_entry("session.intra_op.allow_spinning", SPINNING)
    return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
