"""Frame sources: a webcam by index, a video file, an RTSP/HTTP stream, a folder of images.

Two ways to read them:

- offline, every frame in order: `iter_frames(source)` (used by `track` and the tests);
- live: `Capture(source).start()`: a thread keeps only the latest frame; a watchdog reopens a source that
  stops, stalls or unplugs, with capped exponential back-off, and `state` tells the dashboard how the camera
  is: "live", "reconnecting", "lost" (failing for a while, still retrying) or "off" (not started, stopped, or
  a recording that ended).

A corrupt frame is skipped, never half-used: an image file that does not decode completely (a truncated
JPEG or PNG) is skipped with a logged reason; a frame whose size or type differs from the stream's is
dropped.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path

import numpy as np

from vision.interfaces import FrameSource
from vision.types import Frame

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}


class CameraState(StrEnum):
    """How the camera is, for the dashboard (compares equal to its text)."""

    LIVE = "live"
    RECONNECTING = "reconnecting"
    LOST = "lost"  # failing for a while, still retrying
    OFF = "off"  # not started, stopped, or a recording that ended


LIVE, RECONNECTING, LOST, OFF = CameraState


class SourceError(Exception):
    """A source that cannot be opened (now)."""


def decode_image_file(path: str | Path) -> tuple[np.ndarray | None, str]:
    """Decode an image completely, or return (None, reason). Truncated JPEG/PNG files are refused: OpenCV
    would decode them half grey."""
    import cv2

    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return None, f"cannot read: {e.strerror or e}"
    if not data:
        return None, "empty file"
    if data[:2] == b"\xff\xd8" and not data.rstrip(b"\x00\r\n ").endswith(b"\xff\xd9"):
        return None, "truncated JPEG (no end-of-image marker)"
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" not in data[-16:]:
        return None, "truncated PNG (no IEND chunk)"
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None or img.size == 0:
        return None, "not a decodable image"
    return img, ""


class FolderSource:
    """Images of a folder in name order, as frames at `fps` (a `FrameSource`)."""

    live = False

    def __init__(self, folder: str | Path, fps: float = 10.0, play_fps: float | None = None):
        self.folder = Path(folder)
        self.fps = float(fps) if fps and fps > 0 else 10.0  # the recording's clock (frame timestamps)
        self.play_fps = play_fps or self.fps  # how fast a live `Capture` plays it
        self.skipped: list[tuple[str, str]] = []
        self._files: list[Path] = []
        self._pos = 0

    def open(self) -> None:
        if not self.folder.is_dir():
            raise SourceError(f"{self.folder} is not a folder")
        self._files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self._files:
            raise SourceError(f"{self.folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self._pos = 0

    def read(self) -> Frame | None:
        """The next good frame, or None at the end."""
        while self._pos < len(self._files):
            i = self._pos
            self._pos += 1
            img, why = decode_image_file(self._files[i])
            if img is None:
                self.skipped.append((self._files[i].name, why))
                log.warning("skipping %s: %s", self._files[i].name, why)
                continue
            return Frame(i, i / self.fps, img)
        return None

    def close(self) -> None:
        pass


class CvSource:
    """A webcam index, a video file, or a stream URL, read through OpenCV (a `FrameSource`). A corrupt frame
    is dropped, not listed in `skipped` (a video has no file names)."""

    def __init__(self, target: int | str):
        self.target = target
        self.live = isinstance(target, int) or "://" in str(target)
        self.fps = 0.0  # known once opened (0 when the file does not say)
        self.skipped: list[tuple[str, str]] = []
        self._cap = None
        self._index = 0
        self._shape = None

    def open(self) -> None:
        import cv2

        if isinstance(self.target, str) and "://" not in self.target and not os.path.exists(self.target):
            raise SourceError(f"{self.target}: no such file")
        cap = cv2.VideoCapture(self.target)
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"cannot open {self.target}")
        self._cap = cap
        fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
        self.fps = fps if 1 <= fps <= 240 else 0.0
        self._index = 0

    def read(self) -> Frame | None:
        """The next good frame; None when the source ended or failed (a live source then reconnects)."""
        import cv2

        cap = self._cap
        if cap is None:
            return None
        for _ in range(10):  # a few corrupt frames in a row are skipped
            ok, img = cap.read()
            if not ok or img is None:
                return None
            i = self._index
            self._index += 1
            if img.ndim != 3 or img.dtype != np.uint8 or img.size == 0 or (
                    self._shape is not None and img.shape != self._shape):
                log.warning("dropping a corrupt frame %d from %s", i, self.target)
                continue
            self._shape = img.shape
            if self.live:
                t = time.monotonic()
            else:
                ms = cap.get(cv2.CAP_PROP_POS_MSEC)
                t = ms / 1000.0 if ms and ms > 0 else i / (self.fps or 10.0)
            return Frame(i, t, img)
        return None

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None

    @property
    def play_fps(self) -> float:
        return self.fps


def open_source(spec: str | int, fps: float = 10.0) -> FolderSource | CvSource:
    """A source object for a camera index ("0"), a folder, a video file or a URL (not yet opened)."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.strip().isdigit()):
        return CvSource(int(spec))
    if "://" in str(spec):
        return CvSource(str(spec))
    if Path(spec).is_dir():
        return FolderSource(spec, fps)
    return CvSource(str(spec))


def iter_frames(source: FrameSource) -> Iterator[Frame]:
    """Every good frame of a recording, in order (opens and closes the source)."""
    source.open()
    try:
        while True:
            f = source.read()
            if f is None:
                return
            yield f
    finally:
        source.close()


class Capture:
    """Live capture: a thread keeps only the latest frame; a watchdog reconnects with capped back-off.

    `source` is a source object (see `open_source`) or a factory returning one (sources are not callable).
    Recordings (folders, files) are played at their frame rate; with `loop=True` they start again at the
    end, else the state becomes "off"."""

    def __init__(self, source: FrameSource | Callable[[], FrameSource], *, loop: bool = False,
                 backoff: tuple[float, float] = (0.5, 8.0), lost_after: float = 10.0, stall_timeout: float = 5.0,
                 clock: Callable[[], float] = time.monotonic):
        self._factory: Callable[[], FrameSource] = source if callable(source) else (lambda: source)
        self.loop = loop
        self.backoff_min, self.backoff_max = backoff
        self.lost_after = lost_after
        self.stall_timeout = stall_timeout
        self._clock = clock
        self._state = OFF
        self._cond = threading.Condition()
        self._latest: Frame | None = None
        self._seq = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._src: FrameSource | None = None
        self._last_frame_at = 0.0
        self.reconnects = 0

    @property
    def state(self) -> CameraState:
        return self._state

    def start(self) -> Capture:
        if self._thread and self._thread.is_alive():
            return self
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="capture", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        src = self._src
        if src is not None:
            try:
                src.close()
            except Exception:  # closing a dead camera may fail; we are stopping anyway
                pass
        with self._cond:
            self._cond.notify_all()
        if self._thread:
            self._thread.join(timeout)
        self._state = OFF

    def latest(self, after_seq: int = 0, timeout: float | None = None) -> tuple[int, Frame | None]:
        """(seq, frame) of the newest frame; waits up to `timeout` for one newer than `after_seq`."""
        with self._cond:
            if timeout is not None and self._seq <= after_seq:
                self._cond.wait_for(lambda: self._seq > after_seq or self._stop.is_set(), timeout)
            return self._seq, self._latest

    # ---- the capture thread ----
    def _run(self) -> None:
        delay = self.backoff_min
        failing_since = None
        while not self._stop.is_set():
            try:
                src = self._factory()
                src.open()
            except Exception as e:  # SourceError, or a driver error: retry with back-off
                now = self._clock()
                failing_since = failing_since or now
                self._state = LOST if now - failing_since >= self.lost_after else RECONNECTING
                log.info("camera unavailable (%s); retrying in %.1fs", e, delay)
                if self._stop.wait(delay):
                    break
                delay = min(delay * 2, self.backoff_max)
                continue
            self._src = src
            self._state = LIVE
            failing_since, delay = None, self.backoff_min
            ended = self._pump(src)
            try:
                src.close()
            except Exception:
                pass
            self._src = None
            if self._stop.is_set():
                break
            if ended and not src.live:
                if self.loop:
                    continue
                self._state = OFF
                return
            self.reconnects += 1
            self._state = RECONNECTING
            failing_since = self._clock()
            if self._stop.wait(delay):
                break
        self._state = OFF

    def _pump(self, src: FrameSource) -> bool:
        """Reads frames until the source ends or fails. True when it ended (a recording's end, or a dead
        live source)."""
        rate = src.play_fps
        period = 1.0 / rate if not src.live and rate else 0.0
        next_at = self._clock()
        watchdog = threading.Thread(target=self._watch, args=(src,), daemon=True)
        self._last_frame_at = self._clock()
        watchdog.start()
        while not self._stop.is_set():
            try:
                f = src.read()
            except Exception as e:
                log.warning("camera read failed: %s", e)
                return True
            if f is None:
                return True
            self._last_frame_at = self._clock()
            with self._cond:
                self._seq += 1
                self._latest = f
                self._cond.notify_all()
            if period:
                next_at += period
                wait = next_at - self._clock()
                if wait > 0 and self._stop.wait(wait):
                    break
                if wait < -1.0:
                    next_at = self._clock()
        return False

    def _watch(self, src: FrameSource) -> None:
        """Closes a source that stopped delivering frames (a stalled stream), so `_pump` returns."""
        while not self._stop.is_set() and self._src is src:
            if self._clock() - self._last_frame_at > self.stall_timeout:
                log.warning("no frame for %.1fs: reconnecting", self.stall_timeout)
                try:
                    src.close()
                except Exception:
                    pass
                return
            self._stop.wait(min(0.5, self.stall_timeout / 4))
