"""Dashboard server benchmark: events per second through the HTTP API while 20 screens follow the
match over Server-Sent Events, and the delay until every screen has each update (p50/p95).

    .venv/bin/python benchmarks/server.py [--clients 20] [--matches 3] [--seed 1]

Starts `rummy-referee serve` (waitress, web_ui/server.py) as a subprocess on a free 127.0.0.1 port with a temporary database
(WAL, synchronous=FULL: every event is on disk before the 200), plays whole random matches
(referee.sim, classic rules, 4 players) event by event through POST /api/matches/<id>/events, and
times each event from just before its POST until the last of the SSE clients has the message.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from machine import machine  # noqa: E402


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process so far (Linux), None elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("server exited early")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/api/matches")
            if c.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("server did not start")


class SSEClient(threading.Thread):
    """Reads one match's stream; records when each version arrived (by the SSE id line)."""

    def __init__(self, port: int, mid: str):
        super().__init__(daemon=True)
        self.port, self.mid = port, mid
        self.got: dict[int, float] = {}
        self.retries = 0
        self.ready = threading.Event()
        self.stop = False

    def run(self) -> None:
        deadline = time.monotonic() + 60
        try:
            while True:  # as a browser's EventSource: a stream refused while the server is full is retried
                self.conn = c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                c.request("GET", f"/api/matches/{self.mid}/stream")
                r = c.getresponse()
                if r.status == 200:
                    break
                r.read()
                c.close()
                if r.status != 503 or time.monotonic() > deadline:
                    raise SystemExit(f"stream refused: {r.status}")
                self.retries += 1
                time.sleep(1.0)
            while not self.stop:
                line = r.readline()
                if not line:
                    return
                if line.startswith(b"id: "):
                    v = int(line[4:])
                    self.got[v] = time.perf_counter()
                    self.ready.set()
        except (OSError, ValueError, AttributeError):
            return  # closed by close() at the end of the match

    def close(self) -> None:
        """Stop following the match: the server frees the stream (and its thread) at once."""
        self.stop = True
        conn = getattr(self, "conn", None)
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def play(port: int, setup: dict, events: list[dict], n_clients: int) -> tuple[list[float], float, int]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("POST", "/api/matches", body=json.dumps(setup), headers={"Content-Type": "application/json"})
    r = c.getresponse()
    mid = json.loads(r.read())["id"]
    clients = [SSEClient(port, mid) for _ in range(n_clients)]
    for cl in clients:
        cl.start()
    for cl in clients:
        cl.ready.wait(60)
    sent: dict[int, float] = {}
    t0 = time.perf_counter()
    for ev in events:
        ts = time.perf_counter()
        c.request("POST", f"/api/matches/{mid}/events", body=json.dumps(ev),
                  headers={"Content-Type": "application/json"})
        r = c.getresponse()
        body = json.loads(r.read())
        if r.status != 200:
            raise SystemExit(f"event refused: {ev} -> {body}")
        sent[body["version"]] = ts
    elapsed = time.perf_counter() - t0
    last = max(sent)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not all(last in cl.got for cl in clients):
        time.sleep(0.01)
    delays = []
    missing = 0
    for v, ts in sent.items():
        arr = [cl.got.get(v) for cl in clients]
        if any(a is None for a in arr):
            missing += 1  # a slow client may skip to a newer state (each message carries all of it)
            arr = [a if a is not None else min((cl.got[w] for w in cl.got if w > v), default=None) for a, cl in zip(arr, clients, strict=True)]
            if any(a is None for a in arr):
                continue
        delays.append(max(arr) - ts)
    for cl in clients:
        cl.close()
    for cl in clients:
        cl.join(5)
    return delays, elapsed, missing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    from referee.sim import Simulator

    games = []
    for k in range(args.matches):
        sim = Simulator("classic", ["Ana", "Ben", "Cleo", "Dan"], seed=args.seed + k)
        sim.play_match()
        games.append((sim.setup, list(sim.log)))

    tmp = tempfile.mkdtemp(prefix="rr-bench-")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "rummy_referee", "serve", "--port", str(port),
                             "--db", os.path.join(tmp, "bench.db"), "--no-browser"], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_up(port, proc)
        all_delays: list[float] = []
        total_events = 0
        total_time = 0.0
        skipped = 0
        cpu0 = cpu_seconds(proc.pid)
        for setup, events in games:
            delays, elapsed, missing = play(port, setup, events, args.clients)
            all_delays += delays
            total_events += len(events)
            total_time += elapsed
            skipped += missing
        cpu1 = cpu_seconds(proc.pid)
    finally:
        proc.terminate()
        proc.wait(10)

    q = statistics.quantiles(all_delays, n=100)
    print(f"machine: {machine()}")
    print(f"matches: {len(games)} random classic matches, 4 players; {total_events} events, "
          f"{args.clients} SSE clients open")
    print(f"throughput: {total_events / total_time:.0f} events/s (one client posting, each answered 200 "
          f"after it is on disk)")
    print(f"delay until all {args.clients} clients have the update: p50 {q[49] * 1000:.1f} ms, "
          f"p95 {q[94] * 1000:.1f} ms, max {max(all_delays) * 1000:.1f} ms")
    if cpu0 is not None and cpu1 is not None:
        print(f"server CPU: {(cpu1 - cpu0) / total_events * 1000:.2f} ms per event (all threads; includes "
              f"connecting the SSE clients); load average before the run {os.getloadavg()[0]:.1f}")
    if skipped:
        print(f"({skipped} updates reached some client only as a newer state)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
