"""Fan-out of match changes to Server-Sent Event clients (one queue per open screen)."""

from __future__ import annotations

import queue
import threading

CLOSED = b""  # queued to every stream when the server stops: the stream ends instead of waiting for a change


class Hub:
    def __init__(self, max_queue: int = 256):
        self._subs: dict[str, set[queue.Queue]] = {}
        self._lock = threading.Lock()
        self._max = max_queue
        self.closed = False

    def subscribe(self, mid: str) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=self._max)
        with self._lock:
            self._subs.setdefault(mid, set()).add(q)
            if self.closed:
                q.put_nowait(CLOSED)
        return q

    def close(self) -> None:
        """The server is stopping: every open stream ends now (its screen reconnects to the next server)."""
        with self._lock:
            self.closed = True
            subs = [q for s in self._subs.values() for q in s]
        for q in subs:
            _put_newest(q, CLOSED)

    def unsubscribe(self, mid: str, q: queue.Queue) -> None:
        with self._lock:
            s = self._subs.get(mid)
            if s is not None:
                s.discard(q)
                if not s:
                    del self._subs[mid]

    def count(self, mid: str | None = None) -> int:
        with self._lock:
            if mid is None:
                return sum(len(s) for s in self._subs.values())
            return len(self._subs.get(mid, ()))

    def publish(self, mid: str, message: bytes) -> None:
        """Queue an already formatted SSE message for every subscriber of ``mid``.

        A client too slow to keep up loses its oldest messages, not the server's time: each message
        carries the whole state, so the newest one is enough to be right again."""
        with self._lock:
            subs = list(self._subs.get(mid, ()))
        for q in subs:
            _put_newest(q, message)


def _put_newest(q: queue.Queue, message: bytes) -> None:
    try:
        q.put_nowait(message)
    except queue.Full:
        try:
            q.get_nowait()
        except queue.Empty:
            pass
        try:
            q.put_nowait(message)
        except queue.Full:
            pass


class StreamSlots:
    """Counts the live streams (each holds a server thread): at most MAX_STREAMS (set by web_ui/server.py)."""

    def __init__(self):
        self.open = 0
        self._lock = threading.Lock()

    def take(self, limit: int | None) -> bool:
        with self._lock:
            if limit is not None and self.open >= limit:
                return False
            self.open += 1
            return True

    def give_back(self) -> None:
        with self._lock:
            self.open -= 1
