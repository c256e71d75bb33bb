"""Durability: SIGKILL `rummy-referee serve` in the middle of a stream of events; after a restart every
event that was answered 200 is still there, in order, and the match resumes."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = ["Ana", "Ben"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(db: Path, port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-m", "rummy_referee", "serve", "--port", str(port), "--db", str(db),
                          "--no-browser"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if p.poll() is not None:
            raise AssertionError(f"server exited: {p.stdout.read().decode(errors='replace')}")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/api/matches")
            if c.getresponse().status == 200:
                c.close()
                return p
        except OSError:
            time.sleep(0.05)
    p.kill()
    raise AssertionError("server did not start")


def request(conn, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data, headers={"Content-Type": "application/json"} if data else {})
    r = conn.getresponse()
    return r.status, r.read()


def event(i: int) -> dict:
    # quick-mode hands: Ben goes out every hand, Ana is caught with i % 7 + 1 points
    return {"type": "hand_result", "dealer": PLAYERS[i % 2], "winner": "Ben",
            "points": {"Ana": i % 7 + 1, "Ben": 0}}


def stop_server(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        kill(proc)


def kill(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def acked_events_kept(conn, mid: str, n_acked: int) -> list[dict]:
    """The match's game log after a restart (without its match line), checked: everything answered 200 is
    there, in order; at most the one request in flight came on top."""
    st, body = request(conn, "GET", f"/api/matches/{mid}/log")
    assert st == 200
    events = [json.loads(x) for x in body.decode().splitlines()[1:]]
    assert n_acked <= len(events) <= n_acked + 1
    for i, ev in enumerate(events):
        assert ev["dealer"] == event(i)["dealer"] and ev["points"] == event(i)["points"]
    return events


LONG_MATCH = {"type": "match", "rules": "classic", "players": PLAYERS, "options": {"target": 10**9}}


def new_long_match(port: int) -> str:
    """A match that does not end during the test (its target is out of reach)."""
    st, body = request(http.client.HTTPConnection("127.0.0.1", port, timeout=10), "POST", "/api/matches", LONG_MATCH)
    assert st == 201, body
    return json.loads(body)["id"]


@pytest.mark.slow
def test_sigkill_mid_stream_loses_nothing_answered_200(tmp_path):
    db = tmp_path / "durable.db"
    port = free_port()
    proc = start(db, port)
    try:
        mid = new_long_match(port)

        acked: list[int] = []
        failed: list[str] = []

        def stream():
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            i = 0
            while True:
                try:
                    status, b = request(c, "POST", f"/api/matches/{mid}/events", event(i))
                except (OSError, http.client.HTTPException) as e:
                    failed.append(repr(e))
                    return
                if status != 200:
                    failed.append(f"{status} {b!r}")
                    return
                acked.append(i)
                i += 1

        t = threading.Thread(target=stream)
        t.start()
        deadline = time.monotonic() + 20
        while len(acked) < 150 and time.monotonic() < deadline and t.is_alive():
            time.sleep(0.01)
        assert len(acked) >= 150, failed
        proc.send_signal(signal.SIGKILL)  # mid-stream: the poster is sending as fast as it can
        proc.wait(10)
        t.join(10)
        assert failed, "the stream should have been cut by the kill"
        n_acked = len(acked)
    finally:
        kill(proc)

    proc = start(db, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        events = acked_events_kept(conn, mid, n_acked)
        st, body = request(conn, "GET", f"/api/matches/{mid}")
        state = json.loads(body)
        assert len(state["hands"]) == len(events)
        assert state["totals"]["Ben"] == sum(i % 7 + 1 for i in range(len(events)))
        # and the match goes on
        st, body = request(conn, "POST", f"/api/matches/{mid}/events", event(len(events)))
        assert st == 200, body
    finally:
        stop_server(proc)


def _import_log(n: int, k: int = 0) -> bytes:
    """A log of `n` events; `k` names it (the same log twice would open the first import, not make another)."""
    lines = [json.dumps({**LONG_MATCH, "title": f"import {k}"})]
    lines += [json.dumps(event(i)) for i in range(n)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.slow
def test_sigkill_during_imports_and_writes_loses_nothing_and_leaves_no_half_import(tmp_path):
    db = tmp_path / "durable-import.db"
    port = free_port()
    proc = start(db, port)
    n_lines = 300
    try:
        mid = new_long_match(port)
        acked: list[int] = []
        imported: list[str] = []
        stop = threading.Event()

        def writer():
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            i = 0
            while not stop.is_set():
                try:
                    status, _ = request(c, "POST", f"/api/matches/{mid}/events", event(i))
                except (OSError, http.client.HTTPException):
                    return
                if status != 200:
                    return
                acked.append(i)
                i += 1

        def importer():
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            k = 0
            while not stop.is_set():
                k += 1
                try:
                    c.request("POST", "/api/matches/import", body=_import_log(n_lines, k),
                              headers={"Content-Type": "application/x-ndjson"})
                    r = c.getresponse()
                    b = r.read()
                except (OSError, http.client.HTTPException):
                    return
                if r.status != 201:
                    return
                imported.append(json.loads(b)["id"])

        threads = [threading.Thread(target=writer), threading.Thread(target=importer)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while (len(acked) < 60 or len(imported) < 2) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(acked) >= 60 and len(imported) >= 2, (len(acked), len(imported))
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        stop.set()
        for t in threads:
            t.join(10)
        n_acked, done = len(acked), list(imported)
    finally:
        kill(proc)

    proc = start(db, port)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        acked_events_kept(conn, mid, n_acked)
        st, body = request(conn, "GET", "/api/matches")
        listed = json.loads(body)["matches"]
        for m in listed:
            if m["id"] == mid:
                continue
            assert m["moves"] == n_lines, m  # an import is all there or not there at all
        assert set(done) <= {m["id"] for m in listed}
    finally:
        stop_server(proc)
