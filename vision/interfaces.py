"""What the camera side asks of its collaborators, written down as `typing.Protocol`s.

The pipeline is put together from parts that other code supplies: the referee the events go to (the engine's
`referee.Match`, or the dashboard's `web_ui.camera.MatchReferee`), the detector (the shipped
`vision.detector.Detector`, the motion-gated `vision.motion.GatedDetector`, an oracle in tests), the frame
source (`vision.capture.FolderSource`, `vision.capture.CvSource`) and, for the dashboard, the pipeline
itself (`vision.pipeline.Pipeline`). Each is used only through the methods below; nothing probes for them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from referee import Verdict
from vision.types import CardDetection, Frame

Outcome = dict  # {"event": {...}, "ok": bool, "code": str|None, "message": str, "proposed": bool, "id": int}


class Referee(Protocol):
    """The rules engine as the observer uses it (docs/REFEREE_API.md)."""

    def apply(self, event: dict) -> Verdict:
        """Check and apply one event; a refused event changes nothing."""
        ...

    def check(self, event: dict, *, after: Sequence[dict] = ()) -> Verdict:
        """What `apply(event)` would answer (after the events `after`), changing nothing."""
        ...

    def public_state(self) -> dict:
        """The match as the referee knows it: `referee.Match.public_state()`."""
        ...


@runtime_checkable
class Detector(Protocol):
    """Cards in a frame."""

    def detect(self, frame_bgr: np.ndarray) -> list[CardDetection]:
        ...


class FrameSource(Protocol):
    """Where frames come from. `live`: a camera or stream (reconnected when lost) rather than a recording;
    `fps`: the recording's clock (0 when unknown); `play_fps`: how fast a live `Capture` plays a recording;
    `skipped`: (name, reason) of the frames skipped as corrupt."""

    live: bool
    fps: float
    play_fps: float
    skipped: list[tuple[str, str]]

    def open(self) -> None:
        """Opens the source; raises `vision.capture.SourceError` when it cannot be opened now."""
        ...

    def read(self) -> Frame | None:
        """The next good frame; None at the end (or when a live source failed)."""
        ...

    def close(self) -> None:
        ...


class CameraPipeline(Protocol):
    """The live pipeline as the dashboard drives it (`vision.pipeline.Pipeline`).  `detector_kind`: what
    names the cards ("model", the shipped detector; "oracle", a demo recording's answer key; "given")."""

    detector_kind: str | None

    def start(self) -> CameraPipeline:
        ...

    def stop(self) -> None:
        ...

    def camera_state(self) -> str:
        """One of `vision.capture.CameraState`."""
        ...

    def latest_jpeg(self) -> bytes | None:
        ...

    def on_event(self, callback: Callable[[Outcome], None]) -> None:
        ...

    def pending(self) -> list[dict]:
        ...

    def confirm(self, pid: int) -> Outcome | None:
        ...

    def reject(self, pid: int) -> bool:
        ...

    def correct(self, pid: int, event: dict) -> Outcome | None:
        """The players' version of proposal `pid`: applied instead if the referee accepts it."""
        ...

    def crop(self, pid: int) -> bytes | None:
        """The camera's picture (JPEG) of the cards proposal `pid` is about."""
        ...

    def set_referee(self, referee: Referee, first_dealer: str | None = None) -> None:
        ...
