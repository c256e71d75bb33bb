"""Capture: folders in name order, corrupt frames skipped, video files, camera loss and reconnect."""

import threading
import time

import cv2
import numpy as np
import pytest

from vision.capture import (
    LIVE,
    LOST,
    OFF,
    RECONNECTING,
    Capture,
    CvSource,
    FolderSource,
    Frame,
    SourceError,
    decode_image_file,
    iter_frames,
    open_source,
)


def img(v, w=64, h=48):
    a = np.zeros((h, w, 3), np.uint8)
    a[:] = v
    return a


def write_folder(d, n=5):
    for i in range(n):
        cv2.imwrite(str(d / f"f{i:03d}.jpg"), img(i * 40))
    return d


def test_folder_in_name_order_with_timestamps(tmp_path):
    write_folder(tmp_path)
    frames = list(iter_frames(FolderSource(tmp_path, fps=5)))
    assert [f.index for f in frames] == [0, 1, 2, 3, 4]
    assert [f.t for f in frames] == [0, 0.2, 0.4, 0.6, 0.8]
    assert frames[2].image.shape == (48, 64, 3)


def test_corrupt_jpeg_is_skipped_with_a_reason(tmp_path):
    write_folder(tmp_path)
    good = (tmp_path / "f002.jpg").read_bytes()
    (tmp_path / "f002.jpg").write_bytes(good[: len(good) // 2])  # truncated mid-file
    (tmp_path / "f003.jpg").write_bytes(b"not a picture at all")
    (tmp_path / "notes.txt").write_text("ignored")
    src = FolderSource(tmp_path, fps=10)
    frames = list(iter_frames(src))
    assert [f.index for f in frames] == [0, 1, 4]  # never a half-decoded frame
    reasons = dict(src.skipped)
    assert "truncated JPEG" in reasons["f002.jpg"]
    assert reasons["f003.jpg"]
    assert decode_image_file(tmp_path / "f000.jpg")[0] is not None


def test_empty_or_missing_folder(tmp_path):
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path).open()
    with pytest.raises(SourceError):
        open_source(str(tmp_path / "nope.mp4")).open()


def test_video_file(tmp_path):
    p = tmp_path / "clip.avi"
    vw = cv2.VideoWriter(str(p), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for i in range(6):
        vw.write(img(i * 30))
    vw.release()
    src = open_source(str(p))
    assert isinstance(src, CvSource) and not src.live
    frames = list(iter_frames(src))
    assert len(frames) == 6
    assert frames[-1].t == pytest.approx(0.5, abs=0.11)


def test_open_source_kinds(tmp_path):
    assert isinstance(open_source("0"), CvSource) and open_source("0").live
    assert open_source("rtsp://cam.local/stream").live
    assert isinstance(open_source(str(tmp_path)), FolderSource)


class FlakyCamera:
    """A fake live camera: gives `n` frames per connection (`then` after the first), then dies;
    the first reopens fail."""

    live = True
    fps = play_fps = 0
    skipped: list = []

    def __init__(self, log, n=5, fail_opens=2, stall=False, then=None):
        self.log, self.n, self.stall = log, n, stall
        self.then = n if then is None else then
        self.fail_opens = fail_opens
        self.closed = threading.Event()

    def __call__(self):  # used as the factory: a fresh connection each time
        return self

    def open(self):
        self.log.append("open")
        if self.log.count("open") > 1 and self.fail_opens > 0:
            self.fail_opens -= 1
            raise SourceError("unplugged")
        self.left = self.n if self.log.count("open") == 1 else self.then
        self.closed.clear()

    def read(self):
        if self.left <= 0:
            if self.stall:  # a stream that stops sending without an error
                self.closed.wait(5)
            return None
        self.left -= 1
        time.sleep(0.005)
        return Frame(0, time.monotonic(), img(self.left % 256))

    def close(self):
        self.closed.set()


def wait_for(pred, timeout=3.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.005)
    return False


def test_camera_lost_mid_stream_reconnects():
    log = []
    # the connection after the reconnect lasts (~5 s), so no further reopen can race the count below
    cam = FlakyCamera(log, n=5, fail_opens=2, then=1000)
    seen = set()
    cap = Capture(cam, backoff=(0.01, 0.04), lost_after=10).start()
    assert wait_for(lambda: seen.add(cap.state) or (log.count("open") >= 4 and cap.latest()[0] >= 10))
    assert {LIVE, RECONNECTING} <= seen
    assert cap.state in (LIVE, RECONNECTING) and cap.reconnects >= 1
    assert log.count("open") == 4  # two failed reopens, then back
    cap.stop()
    assert cap.state == OFF


def test_back_off_is_capped_and_state_becomes_lost():
    opens = []

    class Dead:
        live = True

        def open(self):
            opens.append(time.monotonic())
            raise SourceError("no camera")

    cap = Capture(lambda: Dead(), backoff=(0.01, 0.03), lost_after=0.1).start()
    assert wait_for(lambda: cap.state == RECONNECTING, 1)
    assert wait_for(lambda: cap.state == LOST, 2)
    assert wait_for(lambda: len(opens) >= 8, 2)
    gaps = np.diff(opens[-4:])
    assert gaps.max() < 0.5  # capped at 0.03 s plus scheduling; uncapped doubling would reach 1.28 s by the 8th
    cap.stop()


def test_stalled_stream_is_reopened_by_the_watchdog():
    log = []
    cam = FlakyCamera(log, n=3, fail_opens=0, stall=True)
    cap = Capture(cam, backoff=(0.01, 0.02), stall_timeout=0.2).start()
    assert wait_for(lambda: log.count("open") >= 2, 3)
    cap.stop()


def test_latest_frame_only_and_recording_end(tmp_path):
    write_folder(tmp_path, n=4)
    cap = Capture(FolderSource(tmp_path, fps=100)).start()
    assert wait_for(lambda: cap.state == OFF and cap.latest()[0] == 4, 3)
    seq, frame = cap.latest()
    assert frame.index == 3  # the newest frame; older ones were replaced
    cap.stop()
