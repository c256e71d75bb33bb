"""Hardening (issue 15): no input can break a match, the server or a command.

One test (or a few) per finding 1-12 of the issue; each failed on the code before the fix."""

from __future__ import annotations

import http.client
import json
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from rummy_referee.cli import main as cli
from tests.conftest import running_server
from web_ui import create_app
from web_ui.server import ServerLimits
from web_ui.store import StoreUnavailable

ROOT = Path(__file__).resolve().parents[1]
SETUP = {"type": "match", "rules": "basic", "players": ["Ana", "Ben", "Cleo"]}
DEAL = {"type": "deal", "dealer": "Ana", "upcard": "KD"}


def strict(text: str):
    """Parse as a browser would: standard JSON only (no NaN), valid Unicode."""
    def no_constant(name):
        raise AssertionError(f"{name} in JSON")

    value = json.loads(text, parse_constant=no_constant)
    json.dumps(value).encode("utf-8")
    return value


def raw_post(client, path, text: str):
    return client.post(path, data=text.encode("utf-8", "surrogatepass"), content_type="application/json")


def new_match(client, setup=None) -> str:
    r = client.post("/api/matches", json=setup or SETUP)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def all_pages_answer(client, mid=None):
    for path in ["/api/matches", "/matches", "/"] + ([f"/api/matches/{mid}", f"/api/matches/{mid}/log",
                                                     f"/api/matches/{mid}/csv", f"/m/{mid}"] if mid else []):
        r = client.get(path)
        assert r.status_code in (200, 302), (path, r.status_code)
        if r.mimetype == "application/json":
            strict(r.get_data(as_text=True))


# ---- 1. a lone surrogate in a name, a title or an imported first line -------------------------------

@pytest.mark.parametrize("body", [
    '{"type": "match", "rules": "basic", "players": ["\\ud800", "B"]}',
    '{"type": "match", "rules": "basic", "players": ["A", "B"], "title": "x\\udfff"}',
])
def test_lone_surrogate_is_refused_and_nothing_breaks(client, body):
    r = raw_post(client, "/api/matches", body)
    assert r.status_code in (400, 422) and r.get_json()["code"] == "bad_text"
    assert client.get("/api/matches").get_json()["matches"] == []
    all_pages_answer(client)


def test_lone_surrogate_in_an_imported_first_line(client):
    r = raw_post(client, "/api/matches/import", '{"type": "match", "rules": "basic", "players": ["\\ud800", "B"]}\n')
    assert r.status_code == 422 and r.get_json()["code"] == "bad_text"
    all_pages_answer(client)


def test_a_surrogate_stored_by_an_older_version_no_longer_breaks_pages(app, client):
    mid = new_match(client)
    db = sqlite3.connect(app.config["DATABASE"])
    db.execute("UPDATE matches SET setup = ?, extra = ? WHERE id = ?",
               ('{"type": "match", "rules": "basic", "players": ["\\ud800", "Ben", "Cleo"]}',
                '{"title": "\\udfff"}', mid))
    db.commit()
    db.close()
    app.extensions["rummy_store"]._live.clear()
    all_pages_answer(client, mid)


# ---- 2. NaN / Infinity -------------------------------------------------------------------------------

@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_nan_event_is_refused_and_not_stored(client, literal):
    mid = new_match(client)
    assert client.post(f"/api/matches/{mid}/events", json=DEAL).status_code == 200
    r = raw_post(client, f"/api/matches/{mid}/events",
                 '{"type": "draw", "player": "Ben", "from": "stock", "n": ' + literal + "}")
    assert r.status_code == 400 and r.get_json()["code"] in ("bad_json", "bad_number")
    st = client.get(f"/api/matches/{mid}")
    state = strict(st.get_data(as_text=True))
    assert [a["status"] for a in state["activity"]] == ["accepted"]  # not even in the feed
    all_pages_answer(client, mid)


def test_nan_in_an_imported_line_is_refused_and_not_stored(client):
    log = json.dumps(SETUP) + "\n" + json.dumps(DEAL) + '\n{"type": "draw", "player": "Ben", "from": "stock", "x": NaN}\n'
    r = raw_post(client, "/api/matches/import", log)
    assert r.status_code == 201
    body = r.get_json()
    assert body["accepted"] == 1 and [x["line"] for x in body["refused"]] == [3]
    state = strict(client.get(f"/api/matches/{body['id']}").get_data(as_text=True))
    assert len(state["activity"]) == 1


# ---- 3. idle connections -----------------------------------------------------------------------------

def test_idle_connections_do_not_stop_the_server(tmp_path):
    limits = ServerLimits(connection_limit=24, channel_timeout=1.5, cleanup_interval=0.5, threads=8, max_streams=4)
    with running_server({"DATABASE": str(tmp_path / "idle.db")}, limits) as (url, _app):
        port = int(url.rsplit(":", 1)[1])
        idle = []
        for _ in range(60):  # more than the connection limit; each sends half a request line and waits
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /api/matc")
            idle.append(s)
        try:
            deadline = time.monotonic() + 20
            ok = False
            while time.monotonic() < deadline and not ok:
                try:
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
                    c.request("GET", "/api/matches")
                    ok = c.getresponse().status == 200
                except OSError:
                    time.sleep(0.2)
            assert ok, "the dashboard stopped answering behind idle connections"
        finally:
            for s in idle:
                s.close()


def test_stopping_the_server_ends_the_open_live_streams(tmp_path):
    """A screen following a match holds a stream (and a worker thread) open; stopping the server ends it,
    so `serve` stops at once on Ctrl-C rather than when the last tablet goes away."""
    from web_ui.server import make_server

    app = create_app({"DATABASE": str(tmp_path / "stop.db")})
    srv = make_server(app, "127.0.0.1", 0)
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    try:
        c = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        c.request("POST", "/api/matches", body=json.dumps({"type": "match", "rules": "basic",
                                                           "players": ["Ana", "Ben"]}),
                  headers={"Content-Type": "application/json"})
        mid = json.loads(c.getresponse().read())["id"]
        s = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        s.request("GET", f"/api/matches/{mid}/stream")
        r = s.getresponse()
        assert r.status == 200
        assert b"event: state" in r.read1(65536)
    finally:
        srv.close()
    t.join(10)
    assert not t.is_alive(), "the server kept running behind an open live stream"
    try:
        r.read()  # returns: the stream has ended (it would time out, still open, otherwise)
    except http.client.IncompleteRead:
        pass  # the connection closed before the stream's last chunk: ended too
    assert app.extensions["rummy_hub"].count() == 0
    app.extensions["rummy_store"].close()


# ---- 4. bodies that parse but used to crash ----------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/matches", "EVENTS", "/api/matches/import"])
def test_deeply_nested_json_is_a_clear_400(client, path):
    mid = new_match(client)
    path = f"/api/matches/{mid}/events" if path == "EVENTS" else path
    r = raw_post(client, path, "[" * 5000 + "]" * 5000)
    assert r.status_code in (400, 422) and r.get_json()["code"] == "too_deep"


def test_rules_as_a_list_is_a_422(client):
    r = client.post("/api/matches", json={"type": "match", "rules": ["basic"], "players": ["A", "B"]})
    assert r.status_code == 422 and r.get_json()["code"] == "unknown_rules"


# ---- 5. chunked uploads ------------------------------------------------------------------------------

def _chunked_post(port: int, path: str, size: int) -> int:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    line = (json.dumps({"type": "hand_result", "winner": "Ana", "points": {"Ben": 1}}) + "\n").encode()

    def body():
        yield (json.dumps(SETUP) + "\n").encode()
        sent = 0
        while sent < size:
            yield line * 200
            sent += len(line) * 200

    try:
        c.request("POST", path, body=body(), headers={"Content-Type": "application/x-ndjson"},
                  encode_chunked=True)
        return c.getresponse().status
    except (BrokenPipeError, ConnectionResetError):
        return 413  # the server refused and closed while the body was still being sent


def test_chunked_upload_over_the_limit_is_413(tmp_path):
    with running_server({"DATABASE": str(tmp_path / "c.db")}) as (url, app):
        port = int(url.rsplit(":", 1)[1])
        assert _chunked_post(port, "/api/matches/import", 3 * 1024 * 1024) == 413
        assert app.extensions["rummy_store"].list_matches() == []
        assert _chunked_post(port, "/api/matches/import", 100 * 1024) == 201


def test_whole_body_over_the_limit_is_413_without_hanging(tmp_path):
    with running_server({"DATABASE": str(tmp_path / "w.db")}) as (url, _app):
        port = int(url.rsplit(":", 1)[1])
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        body = b"x" * (5 * 1024 * 1024)
        t0 = time.monotonic()
        try:
            c.request("POST", "/api/matches/import", body=body, headers={"Content-Type": "application/x-ndjson"})
            status = c.getresponse().status
        except (BrokenPipeError, ConnectionResetError):
            status = 413
        assert status == 413 and time.monotonic() - t0 < 15


# ---- 6. the commands ---------------------------------------------------------------------------------

def write(tmp_path, name, content) -> str:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8", errors="surrogatepass")
    return str(p)


def test_replay_rules_as_list_exits_2(tmp_path, capsys):
    log = write(tmp_path, "g.jsonl", '{"type": "match", "rules": ["basic"], "players": ["A", "B"]}\n')
    assert cli(["replay", log, "--json"]) == 2
    assert "rules" in capsys.readouterr().err


def test_replay_deeply_nested_later_line_is_a_refused_line(tmp_path, capsys):
    log = write(tmp_path, "g.jsonl", json.dumps(SETUP) + "\n" + "[" * 3000 + "]" * 3000 + "\n")
    assert cli(["replay", log, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["events"] == [{"line": 2, "ok": False, "code": "too_deep", "message": out["events"][0]["message"]}]


def test_replay_lone_surrogate_name_in_text_mode(tmp_path, capsys):
    log = write(tmp_path, "g.jsonl", '{"type": "match", "rules": "basic", "players": ["\\ud800", "B"]}\n')
    assert cli(["replay", log]) == 2
    assert "invalid character" in capsys.readouterr().err


def _png_header(w: int, h: int) -> bytes:
    import struct
    import zlib

    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 64)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("w,h", [(40000, 40000), (30000, 30000)])
def test_detect_refuses_a_huge_image_unread_and_still_reports_the_good_one(tmp_path, capsys, w, h):
    import cv2
    import numpy as np

    bomb = write(tmp_path, "bomb.png", _png_header(w, h))
    good = str(tmp_path / "good.png")
    cv2.imwrite(good, np.full((40, 60, 3), 180, np.uint8))
    assert cli(["detect", bomb, good, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert "too large" in out[0]["error"] and "cards" not in out[0]
    assert out[1]["width"] == 60 and out[1]["cards"] == []


@pytest.fixture
def track_files(tmp_path):
    layout = {"stock": [[0, 0], [0.2, 0], [0.2, 0.2], [0, 0.2]], "discard": [[0.3, 0], [0.5, 0], [0.5, 0.2], [0.3, 0.2]],
              "players": {"Ana": [[0, 0.5], [0.5, 0.5], [0.5, 1], [0, 1]], "Ben": [[0.5, 0.5], [1, 0.5], [1, 1], [0.5, 1]]}}
    match = {"type": "match", "rules": "basic", "players": ["Ana", "Ben"], "dealer": "Ana"}
    frames = tmp_path / "frames"
    frames.mkdir()
    return write(tmp_path, "layout.json", json.dumps(layout)), write(tmp_path, "match.json", json.dumps(match)), str(frames)


@pytest.mark.parametrize("which,content", [
    ("layout", b"\x89PNG\r\n\x1a\n\x00\xff\xfe binary"),
    ("layout", "[" * 5000 + "]" * 5000),
    ("match", b"\xff\xfe\x00binary"),
    ("match", "{" + '"a":' * 3000 + "1" + "}" * 3000),
    ("match", '{"type": "match", "rules": ["basic"], "players": ["Ana", "Ben"], "dealer": "Ana"}'),
])
def test_track_bad_files_exit_2_with_one_line(tmp_path, capsys, track_files, which, content):
    layout, match, frames = track_files
    bad = write(tmp_path, f"bad-{which}.json", content)
    args = ["track", frames, "--layout", bad if which == "layout" else layout,
            "--match", bad if which == "match" else match, "--log", str(tmp_path / "out.jsonl")]
    assert cli(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rummy-referee track:") and "Traceback" not in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("fps", ["nan", "0", "-5", "inf"])
def test_track_bad_fps_exit_2(tmp_path, capsys, track_files, fps):
    layout, match, frames = track_files
    with pytest.raises(SystemExit) as e:
        cli(["track", frames, "--layout", layout, "--match", match, "--log", str(tmp_path / "o.jsonl"), "--fps", fps])
    assert e.value.code == 2 and "--fps" in capsys.readouterr().err


def test_serve_bad_database_paths_exit_2(tmp_path, capsys):
    not_db = write(tmp_path, "notes.db", "these are my notes, not a database\n" * 100)
    folder = tmp_path / "adir"
    folder.mkdir()
    for db, says in [(not_db, "not a Rummy Referee database"), (str(folder), "is a folder"),
                     ("/proc/rummy-referee/matches.db", "cannot")]:
        assert cli(["serve", "--db", db, "--no-browser"]) == 2, db
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err
    assert Path(not_db).read_text().startswith("these are my notes")  # nothing written into it


def test_serve_bad_port_exit_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        cli(["serve", "--port", "99999", "--db", str(tmp_path / "x.db"), "--no-browser"])
    assert e.value.code == 2 and "--port" in capsys.readouterr().err


# ---- 7. a read-only database --------------------------------------------------------------------------

def _in_read_only_mount(folder: Path, argv: list[str]) -> subprocess.CompletedProcess:
    """Run argv with `folder` mounted read-only (a private mount namespace: even root cannot write there)."""
    import shlex

    script = (f"mount --bind {shlex.quote(str(folder))} {shlex.quote(str(folder))} && "
              f"mount -o remount,bind,ro {shlex.quote(str(folder))} && exec " + " ".join(map(shlex.quote, argv)))
    return subprocess.run(["unshare", "-m", "sh", "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("existing", [True, False], ids=["read-only database", "read-only place"])
def test_read_only_database_or_place_is_refused_at_start(tmp_path, existing):
    folder = tmp_path / "ro"
    folder.mkdir()
    db = folder / "m.db"
    if existing:
        app = create_app({"DATABASE": str(db)})
        new_match(app.test_client())
        app.extensions["rummy_store"].close()
    r = _in_read_only_mount(folder, [sys.executable, "-m", "rummy_referee", "serve", "--db", str(db),
                                     "--no-browser", "--port", "0"])
    assert r.returncode == 2, r.stdout + r.stderr
    assert ("read-only" in r.stderr or "cannot" in r.stderr) and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_write_failure_at_run_time_is_a_clear_503(app, client, monkeypatch):
    mid = new_match(client)
    store = app.extensions["rummy_store"]
    real = store._write

    def failing(rows):
        raise StoreUnavailable("The change could not be saved: the database has become read-only.")

    monkeypatch.setattr(store, "_write", failing)
    r = client.post(f"/api/matches/{mid}/events", json=DEAL)
    assert r.status_code == 503 and r.get_json()["code"] == "not_saved" and "read-only" in r.get_json()["message"]
    monkeypatch.setattr(store, "_write", real)
    assert client.post(f"/api/matches/{mid}/events", json=DEAL).status_code == 200


# ---- 8. two servers on one database --------------------------------------------------------------------

def test_second_server_on_the_same_database_refuses_to_start(tmp_path, capsys):
    db = str(tmp_path / "shared.db")
    first = create_app({"DATABASE": db, "DATABASE_LOCK": True})
    try:
        assert cli(["serve", "--db", db, "--no-browser", "--port", "0"]) == 2
        assert "another Rummy Referee server" in capsys.readouterr().err
    finally:
        first.extensions["rummy_store"].close()
    second = create_app({"DATABASE": db, "DATABASE_LOCK": True})  # free again once the first has stopped
    second.extensions["rummy_store"].close()


# ---- 9. LAN exposure ----------------------------------------------------------------------------------

def test_lan_mode_checks_the_host_header(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "lan.db"), "LOCAL_ONLY": False, "PIN": "2468",
                      "ALLOWED_HOSTS": ["192.168.1.5", "table.local"]})
    c = app.test_client()
    assert c.get("/api/matches", headers={"Host": "attacker.example:5000"}).status_code == 403
    assert c.get("/api/matches", headers={"Host": "192.168.1.5:5000"}).status_code == 200
    assert c.get("/api/matches", headers={"Host": "TABLE.local"}).status_code == 200
    assert c.get("/api/matches", headers={"Host": "127.0.0.1:5000"}).status_code == 200
    app.extensions["rummy_store"].close()


def test_wrong_pins_have_a_global_budget_and_the_right_pin_still_works(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "pin.db"), "LOCAL_ONLY": False, "PIN": "2468"})
    guard = app.extensions["rummy_pin_guard"]

    def attempt(addr, pin):
        c = app.test_client()
        return c.post("/api/matches", json=SETUP, headers={"X-Rummy-Pin": pin},
                      environ_base={"REMOTE_ADDR": addr}).status_code

    # one address locked out does not refuse the right PIN of another
    for _ in range(5):
        assert attempt("10.0.0.66", "0000") == 401
    assert attempt("10.0.0.66", "0000") == 429
    assert attempt("10.0.0.2", "2468") == 201
    # many addresses, one wrong PIN each: the global budget stops them
    for i in range(guard.global_limit):
        attempt(f"10.0.1.{i}", "1111")
    assert attempt("10.0.1.3", "1112") == 429  # an address that has guessed wrong may not guess on
    assert attempt("10.0.0.3", "2468") == 201  # the host's tablet (no wrong PIN) still gets in
    app.extensions["rummy_store"].close()


def test_viewers_do_not_steer_what_slash_opens(app):
    host, viewer = app.test_client(), app.test_client()
    m1 = new_match(host)
    m2 = new_match(host)
    assert host.post(f"/api/matches/{m2}/events", json=DEAL).status_code == 200
    assert viewer.get(f"/m/{m1}").status_code == 200  # someone else looks at the old match
    r = host.get("/")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/m/{m2}")
    r = viewer.get("/")  # the viewer's own screen goes back to what it looked at
    assert r.headers["Location"].endswith(f"/m/{m1}")


# ---- 10. control characters ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["\x1b]0;pwned\x07", "A\nB", "Ana\x00", "x" * 60000, "\u202eevil"])
def test_names_with_control_characters_or_huge_are_refused(client, tmp_path, capsys, name):
    r = client.post("/api/matches", json={"type": "match", "rules": "basic", "players": [name, "B"]})
    assert r.status_code == 422 and r.get_json()["code"] == "bad_name"
    log = write(tmp_path, "g.jsonl", json.dumps({"type": "match", "rules": "basic", "players": [name, "B"]}) + "\n")
    assert cli(["replay", log]) == 2
    assert "\x1b" not in capsys.readouterr().err


def test_replay_text_never_prints_control_characters(tmp_path, capsys):
    log = write(tmp_path, "g.jsonl", json.dumps(SETUP) + "\n" + json.dumps(DEAL) + "\n"
                + json.dumps({"type": "draw", "player": "Ben", "from": "stock", "card": "\x1b[2J\x1b]0;x\x07"}) + "\n")
    assert cli(["replay", log]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "refused" in out


# ---- 11. numbers and options ---------------------------------------------------------------------------

def test_numbers_beyond_what_the_dashboard_holds_are_refused(client):
    r = raw_post(client, "/api/matches", '{"type": "match", "rules": "basic", "players": ["A", "B"], '
                                         '"options": {"target": 10000000000000000000}}')
    assert r.status_code == 400 and r.get_json()["code"] == "bad_number"
    mid = new_match(client, {"type": "match", "rules": "classic", "players": ["A", "B"]})
    r = raw_post(client, f"/api/matches/{mid}/events",
                 '{"type": "hand_result", "dealer": "A", "winner": "A", "points": {"B": 1000000000000000000000000000000}}')
    assert r.status_code == 400 and r.get_json()["code"] == "bad_number"
    assert client.get(f"/api/matches/{mid}").get_json()["totals"] == {"A": 0, "B": 0}


@pytest.mark.parametrize("options", ["[]", "null", '"fast"', "7"])
def test_options_must_be_an_object(client, tmp_path, options):
    body = '{"type": "match", "rules": "basic", "players": ["A", "B"], "options": ' + options + "}"
    r = raw_post(client, "/api/matches", body)
    assert r.status_code == 422 and r.get_json()["code"] == "bad_options"
    assert cli(["replay", write(tmp_path, "o.jsonl", body + "\n")]) == 2


# ---- 12. memory ----------------------------------------------------------------------------------------

def test_matches_no_longer_watched_are_released(app, client):
    from web_ui.store import LIVE_CACHE

    store = app.extensions["rummy_store"]
    mids = [new_match(client) for _ in range(LIVE_CACHE + 12)]
    for mid in mids:
        assert client.get(f"/api/matches/{mid}").status_code == 200
    assert len(store.cached()) <= LIVE_CACHE
    # a released match comes back from the disk as it was, and play goes on
    assert client.post(f"/api/matches/{mids[0]}/events", json=DEAL).status_code == 200
    assert client.get(f"/api/matches/{mids[0]}").get_json()["events"] == [{"line": 2, "ok": True}]


def test_a_watched_match_stays_in_memory(app, client):
    from web_ui.store import LIVE_CACHE

    store, hub = app.extensions["rummy_store"], app.extensions["rummy_hub"]
    watched = new_match(client)
    q = hub.subscribe(watched)
    try:
        for _ in range(LIVE_CACHE + 5):
            client.get(f"/api/matches/{new_match(client)}")
        assert watched in store.cached()
    finally:
        hub.unsubscribe(watched, q)
