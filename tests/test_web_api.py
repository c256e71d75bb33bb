"""Dashboard JSON API (contract: shared/contracts/game-log.md) with Flask's test client on a temp DB."""

from __future__ import annotations

import json

import pytest

from web_ui import create_app

PLAYERS = ["Ana", "Ben", "Cleo"]
SETUP = {"type": "match", "rules": "basic", "players": PLAYERS}
# One hand, hidden-hand mode: Ana deals, Ben draws, melds seven hearts in one go, discards: out.
HAND = [
    {"type": "deal", "dealer": "Ana", "upcard": "KD"},
    {"type": "draw", "player": "Ben", "from": "stock", "card": "KS"},
    {"type": "meld", "player": "Ben", "cards": ["3H", "4H", "5H", "6H", "7H", "8H", "9H"]},
    {"type": "discard", "player": "Ben", "card": "KS"},
    {"type": "reveal", "player": "Cleo", "cards": ["2D", "3D", "4D", "5D", "6D", "7D", "8D"]},
    {"type": "reveal", "player": "Ana", "cards": ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]},
]
CONTRACT_KEYS = ("rules", "players", "events", "hands", "totals", "match_over", "match_winner")


def new_match(client, setup=None, **extra) -> str:
    r = client.post("/api/matches", json={**(setup or SETUP), **extra})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def post(client, mid, ev):
    return client.post(f"/api/matches/{mid}/events", json=ev)


def play(client, mid, events):
    for ev in events:
        r = post(client, mid, ev)
        assert r.status_code == 200, (ev, r.get_json())
        assert r.get_json()["ok"] is True


def contract_view(state: dict) -> dict:
    return {k: state[k] for k in CONTRACT_KEYS}


def replay(text: str) -> dict:
    from referee import replay_lines

    return contract_view(replay_lines(text.splitlines()))


# -- creating matches ---------------------------------------------------------------------------------
def test_create_and_get_match(client):
    mid = new_match(client, dealer="Ana")
    st = client.get(f"/api/matches/{mid}").get_json()
    assert st["rules"] == "basic" and st["players"] == PLAYERS
    assert st["events"] == [] and st["hands"] == [] and st["totals"] == {p: 0 for p in PLAYERS}
    assert st["match_over"] is False and st["match_winner"] is None
    assert st["next_dealer"] == "Ana"
    # the dashboard-only "dealer" does not leak into the game log
    first = json.loads(client.get(f"/api/matches/{mid}/log").get_data(as_text=True).splitlines()[0])
    assert first["type"] == "match" and "dealer" not in first


@pytest.mark.parametrize("body", [
    {"type": "match", "rules": "poker", "players": PLAYERS},
    {"type": "match", "rules": "basic", "players": ["Solo"]},
    {"type": "match", "rules": "basic", "players": PLAYERS, "options": {"no_such_option": 1}},
    {"type": "match", "rules": "basic", "players": PLAYERS, "options": {"target": "lots"}},
    {"type": "deal", "dealer": "Ana"},
    [1, 2, 3],
    "match",
])
def test_bad_setup_is_422(client, body):
    r = client.post("/api/matches", json=body)
    assert r.status_code == 422
    j = r.get_json()
    assert j["code"] and j["message"]


def test_bad_first_dealer(client):
    r = client.post("/api/matches", json={**SETUP, "dealer": "Zed"})
    assert r.status_code == 422 and "Zed" in r.get_json()["message"]


# -- events -------------------------------------------------------------------------------------------
def test_play_a_hand_and_replay_log_gives_same_state(client):
    mid = new_match(client)
    play(client, mid, HAND)
    st = client.get(f"/api/matches/{mid}").get_json()
    assert len(st["hands"]) == 1
    h = st["hands"][0]
    assert h["winner"] == "Ben" and h["result"] == "out"
    assert st["totals"]["Ben"] > 0 and st["totals"]["Ana"] == 0
    log = client.get(f"/api/matches/{mid}/log")
    assert log.status_code == 200
    lines = log.get_data(as_text=True).splitlines()
    assert len(lines) == 1 + len(HAND)
    assert all(json.loads(ln) for ln in lines)
    assert replay(log.get_data(as_text=True)) == contract_view(st)
    # every key replay --json gives (the contract's and the engine's extras) is the same in GET
    from referee import replay_lines

    full = replay_lines(log.get_data(as_text=True).splitlines())
    assert {k: st[k] for k in full} == full


def test_refused_event_changes_nothing(client):
    mid = new_match(client)
    play(client, mid, HAND[:1])
    before = contract_view(client.get(f"/api/matches/{mid}").get_json())
    r = post(client, mid, {"type": "draw", "player": "Cleo", "from": "stock"})  # Ben is to play
    assert r.status_code == 422
    j = r.get_json()
    assert j["ok"] is False and j["code"] and j["message"]
    st = client.get(f"/api/matches/{mid}").get_json()
    assert contract_view(st) == before
    # the refusal is shown to every screen, with the reason
    last = st["activity"][-1]
    assert last["status"] == "refused" and last["message"] == j["message"]
    # and is not part of the log
    assert len(client.get(f"/api/matches/{mid}/log").get_data(as_text=True).splitlines()) == 2


@pytest.mark.parametrize("raw,status", [
    (b"{not json", 400),
    (b"", 400),
    (b"\xff\xfe\x00garbage", 400),
    (b"[1, 2]", 422),
    (b"42", 422),
    (b'"deal"', 422),
    (b"{}", 422),
    (b'{"type": "teleport", "player": "Ana"}', 422),
    (b'{"type": "deal", "dealer": "Ana", "upcard": "ZZ"}', 422),
    (b'{"type": "deal", "dealer": "Nobody", "upcard": "KD"}', 422),
    (b'{"type": "deal"}', 422),
])
def test_garbage_event_bodies(client, raw, status):
    mid = new_match(client)
    r = client.post(f"/api/matches/{mid}/events", data=raw, content_type="application/json")
    assert r.status_code == status
    j = r.get_json()
    assert j["ok"] is False and isinstance(j["code"], str) and isinstance(j["message"], str) and j["message"]
    assert "Traceback" not in r.get_data(as_text=True)
    assert client.get(f"/api/matches/{mid}").get_json()["events"] == []


def test_too_large_body_is_413_json(client):
    mid = new_match(client)
    r = client.post(f"/api/matches/{mid}/events", data=b"[" + b"1," * 100_000 + b"1]",
                    content_type="application/json")
    assert r.status_code == 413 and r.get_json()["code"]
    r = client.post("/api/matches/import", data=b"x" * (3 * 1024 * 1024), content_type="text/plain")
    assert r.status_code == 413 and r.get_json()["code"]


def test_unknown_match_is_404_json(client):
    for r in (client.get("/api/matches/nope"), client.post("/api/matches/nope/events", json={}),
              client.post("/api/matches/nope/undo"), client.get("/api/matches/nope/log")):
        assert r.status_code == 404
        assert r.get_json()["code"] == "not_found"


def test_no_stack_trace_on_server_error(app, client, monkeypatch):
    mid = new_match(client)

    def boom(*a, **k):
        raise RuntimeError("secret internals /home/x")

    monkeypatch.setattr(app.extensions["rummy_store"], "apply", boom)
    r = post(client, mid, HAND[0])
    assert r.status_code == 500
    body = r.get_data(as_text=True)
    assert r.get_json()["code"] == "internal_error"
    assert "secret internals" not in body and "Traceback" not in body


# -- undo -----------------------------------------------------------------------------------------------
def test_undo(client):
    mid = new_match(client)
    play(client, mid, HAND[:2])
    before = contract_view(client.get(f"/api/matches/{mid}").get_json())
    play(client, mid, HAND[2:3])
    r = client.post(f"/api/matches/{mid}/undo")
    assert r.status_code == 200 and r.get_json()["undone"]["type"] == "meld"
    assert contract_view(client.get(f"/api/matches/{mid}").get_json()) == before
    # the move can be entered again after the undo
    play(client, mid, HAND[2:])
    st = client.get(f"/api/matches/{mid}").get_json()
    assert len(st["hands"]) == 1
    for _ in range(len(HAND)):
        assert client.post(f"/api/matches/{mid}/undo").status_code == 200
    r = client.post(f"/api/matches/{mid}/undo")
    assert r.status_code == 409 and r.get_json()["code"] == "nothing_to_undo"
    assert client.get(f"/api/matches/{mid}").get_json()["events"] == []


# -- quick mode -------------------------------------------------------------------------------------------
def test_quick_hand_result(client):
    mid = new_match(client)
    r = post(client, mid, {"type": "hand_result", "dealer": "Ana", "winner": "Ben",
                           "points": {"Ana": 13, "Ben": 0, "Cleo": 20}})
    assert r.status_code == 200, r.get_json()
    r = post(client, mid, {"type": "hand_result", "dealer": "Ben", "winner": "Cleo",
                           "hands": {"Ana": ["KS", "3D"], "Ben": ["2C"], "Cleo": []}})
    assert r.status_code == 200, r.get_json()
    st = client.get(f"/api/matches/{mid}").get_json()
    assert [h["winner"] for h in st["hands"]] == ["Ben", "Cleo"]
    assert st["totals"]["Ben"] == 33 and st["totals"]["Cleo"] == 15
    assert st["hand_details"][0]["points_left"]["Cleo"] == 20
    assert st["hand_details"][1]["hands"]["Ana"] == ["KS", "3D"]
    text = client.get(f"/api/matches/{mid}/log").get_data(as_text=True)
    assert replay(text) == contract_view(st)


# -- export / import --------------------------------------------------------------------------------------
def test_csv_export(client):
    mid = new_match(client, {"type": "match", "rules": "basic", "players": ["=cmd", "Ben", "Cleo"]})
    post(client, mid, {"type": "hand_result", "dealer": "=cmd", "winner": "Ben",
                       "points": {"=cmd": 13, "Ben": 0, "Cleo": 20}})
    r = client.get(f"/api/matches/{mid}/csv")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    rows = r.get_data(as_text=True).splitlines()
    assert rows[0].startswith("hand,dealer,winner,result,going_rummy,")
    assert "'=cmd points" in rows[0]  # no formula injection in spreadsheets
    assert rows[1].split(",")[:4] == ["1", "'=cmd", "Ben", "out"]
    assert len(rows) == 2


def test_import_round_trip(client):
    mid = new_match(client)
    play(client, mid, HAND)
    text = client.get(f"/api/matches/{mid}/log").get_data(as_text=True)
    # a refused line and a garbage line in the middle are skipped and reported
    lines = text.splitlines()
    lines.insert(2, '{"type": "discard", "player": "Ana", "card": "2C"}')
    lines.insert(3, "this is not json")
    r = client.post("/api/matches/import", data="\n".join(lines), content_type="application/x-ndjson")
    assert r.status_code == 201, r.get_json()
    j = r.get_json()
    assert j["accepted"] == len(HAND)
    assert [x["line"] for x in j["refused"]] == [3, 4]
    a = contract_view(client.get(f"/api/matches/{mid}").get_json())
    b = contract_view(client.get(f"/api/matches/{j['id']}").get_json())
    assert a == b
    assert client.get(f"/api/matches/{j['id']}/log").get_data(as_text=True) == text


@pytest.mark.parametrize("text", ["", "not json\n", '{"type": "deal", "dealer": "Ana", "upcard": "KD"}\n',
                                  '{"type": "match", "rules": "nope", "players": ["A", "B"]}\n'])
def test_import_bad_log(client, text):
    r = client.post("/api/matches/import", data=text, content_type="text/plain")
    assert r.status_code == 422 and r.get_json()["message"]


def test_import_form_page(app, client):
    html = client.get("/matches").get_data(as_text=True)
    token = html.split('name="csrf_token" value="')[1].split('"')[0]
    import io

    log = "\n".join(json.dumps(x) for x in [SETUP, *HAND]) + "\n"
    r = client.post("/matches/import", data={"csrf_token": token, "log": (io.BytesIO(log.encode()), "g.jsonl")},
                    content_type="multipart/form-data")
    assert r.status_code == 302 and "/m/" in r.headers["Location"]
    # without the token the form is refused
    r = client.post("/matches/import", data={"log": (io.BytesIO(log.encode()), "g.jsonl")},
                    content_type="multipart/form-data")
    assert r.status_code == 403


# -- durability across restarts -----------------------------------------------------------------------------
def test_matches_resume_after_restart(tmp_path):
    db = str(tmp_path / "r.db")
    app1 = create_app({"DATABASE": db})
    c1 = app1.test_client()
    m1 = new_match(c1)
    play(c1, m1, HAND)
    m2 = new_match(c1)
    play(c1, m2, HAND[:3])
    c1.post(f"/api/matches/{m2}/undo")
    post(c1, m2, {"type": "draw", "player": "Cleo", "from": "stock"})  # refused, kept in the feed
    s1 = {m: c1.get(f"/api/matches/{m}").get_json() for m in (m1, m2)}
    app1.extensions["rummy_store"].close()

    app2 = create_app({"DATABASE": db})
    c2 = app2.test_client()
    for m in (m1, m2):
        s2 = c2.get(f"/api/matches/{m}").get_json()
        assert contract_view(s2) == contract_view(s1[m])
        assert s2["current"] == s1[m]["current"]
        assert [a["status"] for a in s2["activity"]] == [a["status"] for a in s1[m]["activity"]]
    # the last match opens by default
    r = c2.get("/")
    assert r.status_code == 302 and r.headers["Location"].endswith(f"/m/{m2}")
    assert c2.get("/api/matches").get_json()["last"] == m2
    # opening another one makes it the default
    assert c2.get(f"/m/{m1}").status_code == 200
    assert c2.get("/").headers["Location"].endswith(f"/m/{m1}")
    app2.extensions["rummy_store"].close()


def test_events_table_is_append_only(app, client):
    import sqlite3

    mid = new_match(client)
    play(client, mid, HAND[:2])
    db = sqlite3.connect(app.config["DATABASE"])
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    with pytest.raises(sqlite3.DatabaseError):
        db.execute("DELETE FROM events")
    with pytest.raises(sqlite3.DatabaseError):
        db.execute("UPDATE events SET body = '{}'")
    db.close()


# -- security ------------------------------------------------------------------------------------------------
def test_programs_on_localhost_need_no_token_but_other_sites_are_refused(client):
    mid = new_match(client)
    r = client.post(f"/api/matches/{mid}/events", json=HAND[0], headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and r.get_json()["code"] == "csrf"
    r = client.post(f"/api/matches/{mid}/events", json=HAND[0], headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = client.post(f"/api/matches/{mid}/events", json=HAND[0], headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    r = client.post("/api/matches", json=SETUP, headers={"Origin": "http://localhost"})
    assert r.status_code == 201
    assert client.get(f"/api/matches/{mid}").get_json()["events"] == []


def test_page_token_works(client):
    html = client.get("/new").get_data(as_text=True)
    token = html.split('name="csrf-token" content="')[1].split('"')[0]
    r = client.post("/api/matches", json=SETUP, headers={"X-CSRF-Token": token, "Origin": "http://localhost"})
    assert r.status_code == 201


def test_dns_rebinding_host_refused(client):
    r = client.get("/api/matches", headers={"Host": "evil.example:5000"})
    assert r.status_code == 403


def test_pin_required_for_changes(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "p.db"), "PIN": "4321", "LOCAL_ONLY": False})
    c = app.test_client()
    r = c.post("/api/matches", json=SETUP)
    assert r.status_code == 401 and r.get_json()["code"] == "pin_required"
    r = c.post("/api/matches", json=SETUP, headers={"X-Rummy-Pin": "0000"})
    assert r.status_code == 401 and r.get_json()["code"] == "bad_pin"
    r = c.post("/api/matches", json=SETUP, headers={"X-Rummy-Pin": "4321"})
    assert r.status_code == 201
    mid = r.get_json()["id"]
    assert c.get(f"/api/matches/{mid}").status_code == 200  # reading is open
    # a tablet unlocks once through the page
    html = c.get("/unlock").get_data(as_text=True)
    token = html.split('name="csrf_token" value="')[1].split('"')[0]
    assert c.post("/unlock", data={"csrf_token": token, "pin": "4321", "next": "/"}).status_code == 302
    r = c.post(f"/api/matches/{mid}/events", json=HAND[0], headers={"X-CSRF-Token": token})
    assert r.status_code == 200
    # brute force is slowed down
    c2 = app.test_client()
    codes = [c2.post("/api/matches", json=SETUP, headers={"X-Rummy-Pin": str(i)}).status_code for i in range(7)]
    assert codes[-1] == 429
    app.extensions["rummy_store"].close()


# -- live updates --------------------------------------------------------------------------------------------
def _read_event(it) -> dict:
    buf = ""
    for chunk in it:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        if "\n\n" in buf and "data: " in buf:
            break
    data = [ln[6:] for ln in buf.splitlines() if ln.startswith("data: ")]
    return json.loads(data[-1])


def test_sse_stream_sends_state_then_changes(client):
    mid = new_match(client)
    r = client.get(f"/api/matches/{mid}/stream", buffered=False)
    assert r.mimetype == "text/event-stream"
    it = r.response
    first = _read_event(it)
    assert first["state"]["id"] == mid and first["change"] is None
    play(client, mid, HAND[:1])
    msg = _read_event(it)
    assert msg["change"]["status"] == "accepted" and msg["state"]["current"] is not None
    post(client, mid, {"type": "discard", "player": "Ana", "card": "2C"})
    msg = _read_event(it)
    assert msg["change"]["status"] == "refused" and msg["change"]["message"]
    r.close()


# -- pages and camera ----------------------------------------------------------------------------------------
def test_pages_render(client):
    assert client.get("/").headers["Location"].endswith("/new")
    html = client.get("/new").get_data(as_text=True)
    assert "New match" in html and "https://" not in html  # no CDN
    mid = new_match(client)
    html = client.get(f"/m/{mid}").get_data(as_text=True)
    assert "Enter a move" in html
    assert client.get("/matches").status_code == 200
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/m/nope").status_code == 404
    presets = client.get("/api/presets").get_json()
    assert presets["presets"]["basic"]["players"] == [2, 3, 4]
    assert presets["presets"]["basic"]["defaults"]["3"]["target"] == 150
    assert presets["presets"]["rummy500"]["defaults"]["2"]["target"] == 500
    assert "double" in presets["choices"]["going_rummy"]


class FakePipeline:
    """A camera pipeline as the dashboard drives it (vision.interfaces.CameraPipeline), without a camera."""

    detector_kind = "given"

    def __init__(self):
        self.cb = None
        self.proposals: dict[int, dict] = {}

    def start(self):
        return self

    def stop(self):
        pass

    def pending(self):
        return list(self.proposals.values())

    def confirm(self, pid):
        return self.proposals.pop(pid, None)

    def reject(self, pid):
        return self.proposals.pop(pid, None) is not None

    def latest_jpeg(self):
        return b"\xff\xd8fakejpeg\xff\xd9"

    def camera_state(self):
        return "live"

    def on_event(self, cb):
        self.cb = cb

    def set_referee(self, referee, first_dealer=None):
        self.switched = (referee, first_dealer)


def test_camera_pipeline_plugs_in(tmp_path):
    pipe = FakePipeline()
    app = create_app({"DATABASE": str(tmp_path / "c.db")}, pipeline=pipe)
    c = app.test_client()
    assert c.get("/api/camera").get_json()["state"] == "live"
    r = c.get("/camera.mjpg", buffered=False)
    chunk = next(iter(r.response))
    assert b"Content-Type: image/jpeg" in chunk and b"fakejpeg" in chunk
    r.close()
    mid = new_match(c)
    # plain game-log events are applied like manual ones
    assert pipe.cb(HAND[0])["ok"] is True
    assert pipe.cb({"type": "draw", "player": "Cleo", "from": "stock"})["ok"] is False
    st = c.get(f"/api/matches/{mid}").get_json()
    assert len(st["events"]) == 1
    assert [a["source"] for a in st["activity"]] == ["camera", "camera"]
    app.extensions["rummy_store"].close()


def test_vision_pipeline_referee_adapter(tmp_path):
    """vision.pipeline applies events through MatchReferee (stored and shown), and sends outcomes."""
    from web_ui.camera import MatchReferee

    pipe = FakePipeline()
    app = create_app({"DATABASE": str(tmp_path / "v.db")}, pipeline=pipe)
    c = app.test_client()
    mid = new_match(c)
    ref = MatchReferee(app.extensions["rummy_live"])
    v = ref.apply(HAND[0])
    assert v.ok
    assert ref.public_state()["current"]["dealer"] == "Ana"
    assert not ref.apply({"type": "draw", "player": "Cleo", "from": "stock"}).ok
    # outcomes of applied events are not applied twice; proposals are offered to the players
    assert pipe.cb({"event": HAND[0], "ok": True, "code": None, "message": "", "proposed": False})["ok"]
    pipe.cb({"event": HAND[1], "ok": True, "code": None, "message": "not sure", "proposed": True, "id": 7})
    st = c.get(f"/api/matches/{mid}").get_json()
    assert len(st["events"]) == 1 and [a["source"] for a in st["activity"]] == ["camera", "camera"]
    r = c.post("/api/camera/proposals/7/confirm")
    assert r.status_code == 404  # this fake pipeline has no confirm()
    app.extensions["rummy_store"].close()


def test_no_camera(client):
    assert client.get("/api/camera").get_json() == {"state": "off", "match": None, "available": False, "pending": [], "detector": None}
    r = client.get("/camera.mjpg")
    assert r.status_code == 503 and r.get_json()["code"] == "no_camera"


def test_serve_access_rules():
    from rummy_referee.commands.serve import access, default_db_path

    assert access("127.0.0.1", None) == (True, None, False)
    assert access("localhost", "12") == (True, "12", False)
    local, pin, generated = access("0.0.0.0", None)
    assert not local and generated and len(pin) == 6 and pin.isdigit()
    assert access("0.0.0.0", "9876") == (False, "9876", False)
    with pytest.raises(ValueError):
        access("0.0.0.0", "  ")
    assert default_db_path().endswith("rummy-referee/matches.db")


@pytest.mark.slow
def test_demo_recording_plugs_in(tmp_path):
    """serve --demo: the bundled recording plays into a match of its own, through MatchReferee."""
    pytest.importorskip("cv2")
    from web_ui.camera import attach_camera

    app = create_app({"DATABASE": str(tmp_path / "d.db")})
    label = attach_camera(app, None, None, demo=True, detector="oracle")
    if label is None:
        pytest.skip("the vision pipeline could not be set up here")
    live = app.extensions["rummy_live"]
    c = app.test_client()
    mid = live.camera_target()
    assert mid is not None and c.get("/api/camera").get_json()["available"] is True
    st = c.get(f"/api/matches/{mid}").get_json()
    assert st["players"] == ["Ana", "Ben", "Cleo"] and st["next_dealer"] == "Ana"
    live.pipeline.start()
    try:
        import time

        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not c.get(f"/api/matches/{mid}").get_json()["activity"]:
            time.sleep(0.2)
        acts = c.get(f"/api/matches/{mid}").get_json()["activity"]
        assert acts and all(a["source"] == "camera" for a in acts)
        assert c.get("/camera.jpg").status_code == 200
    finally:
        live.pipeline.stop()
        app.extensions["rummy_store"].close()


def _json_values():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8) | st.sampled_from(
        ["Ana", "Ben", "Cleo", "KD", "10H", "JK=8S", "stock", "discard", "deal", "draw", "meld", "basic"])
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.sampled_from(["type", "player", "cards", "card", "from", "dealer",
                                                           "upcard", "rules", "players", "options", "meld",
                                                           "winner", "points", "hands"]), inner, max_size=5),
                        max_leaves=12)


def test_fuzzed_bodies_never_crash_the_server(tmp_path):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    app = create_app({"DATABASE": str(tmp_path / "f.db")})
    c = app.test_client()
    mid = new_match(c)
    play(c, mid, HAND[:2])
    event_types = st.sampled_from(["deal", "draw", "meld", "lay_off", "discard", "reveal", "call_rummy",
                                   "end_hand", "hand_result", "match"])

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(body=_json_values(), typ=event_types, as_event=st.booleans())
    def check(body, typ, as_event):
        if as_event and isinstance(body, dict):
            body = {**body, "type": typ}
        if body is None:  # the test client then sends no body at all (a 400, tested above)
            body = {}
        r = c.post(f"/api/matches/{mid}/events", json=body)
        assert r.status_code in (200, 422), (body, r.status_code, r.get_data(as_text=True))
        r = c.post("/api/matches", json=body)
        assert r.status_code in (201, 422), (body, r.status_code, r.get_data(as_text=True))

    check()
    # whatever was accepted, the log still replays to the same state
    st_ = c.get(f"/api/matches/{mid}").get_json()
    assert replay(c.get(f"/api/matches/{mid}/log").get_data(as_text=True)) == contract_view(st_)
    app.extensions["rummy_store"].close()


def test_failed_commit_is_not_kept(app, client, monkeypatch):
    """A row that could not be written (disk full...) is not in the match afterwards: 500, then the
    match is rebuilt from the disk and play goes on."""
    store = app.extensions["rummy_store"]
    mid = new_match(client)
    play(client, mid, HAND[:1])
    real = store._insert

    def disk_full(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(store, "_insert", disk_full)
    r = post(client, mid, HAND[1])
    assert r.status_code == 500 and r.get_json()["code"] == "internal_error"
    monkeypatch.setattr(store, "_insert", real)
    st = client.get(f"/api/matches/{mid}").get_json()
    assert len(st["events"]) == 1 and st["current"]["phase"] == "draw"
    play(client, mid, HAND[1:])
    assert len(client.get(f"/api/matches/{mid}").get_json()["hands"]) == 1


def test_camera_follows_new_match_set_up_with_it(tmp_path):
    pipe = FakePipeline()
    app = create_app({"DATABASE": str(tmp_path / "s.db"), "CAMERA_SOURCES": ["cam0"]}, pipeline=pipe)
    c = app.test_client()
    live = app.extensions["rummy_live"]
    m1 = new_match(c, camera="cam0", dealer="Cleo")
    assert live.camera_target() == m1
    ref, dealer = pipe.switched
    assert ref.mid == m1 and dealer == "Cleo"
    assert ref.apply({**HAND[0], "dealer": "Cleo"}).ok
    assert c.get(f"/api/matches/{m1}").get_json()["activity"][-1]["source"] == "camera"
    pipe.switched = None
    m2 = new_match(c)  # no camera: the camera stays with m1
    assert live.camera_target() == m1 and pipe.switched is None
    c.get(f"/m/{m2}")
    assert live.camera_target() == m1
    app.extensions["rummy_store"].close()


def test_import_keeps_the_name_and_a_second_import_opens_the_first(client):
    r = client.post("/api/matches", json={**SETUP, "title": "Friday at Ana's"})
    mid = r.get_json()["id"]
    play(client, mid, HAND)
    plain = client.get(f"/api/matches/{mid}/log").get_data(as_text=True)
    assert "title" not in json.loads(plain.splitlines()[0])  # the contract's log: the match line as given
    export = client.get(f"/api/matches/{mid}/log?download=1").get_data(as_text=True)
    assert json.loads(export.splitlines()[0])["title"] == "Friday at Ana's"
    r = client.post("/api/matches/import", data=export, content_type="application/x-ndjson")
    assert r.status_code == 201
    new = r.get_json()["id"]
    assert any(m["id"] == new and m["title"] == "Friday at Ana's" for m in client.get("/api/matches").get_json()["matches"])
    r = client.post("/api/matches/import", data=export, content_type="application/x-ndjson")
    assert r.status_code == 200 and r.get_json()["duplicate"] and r.get_json()["id"] == new
    assert sum(1 for m in client.get("/api/matches").get_json()["matches"] if m["title"] == "Friday at Ana's") == 2


def test_each_start_of_the_demo_keeps_one_demo_match(tmp_path):
    from web_ui.camera import attach_camera
    from web_ui.services import get_matches, get_store

    db = str(tmp_path / "demo.db")
    ids = []
    for _ in range(2):  # two server starts on one database
        app = create_app({"DATABASE": db})
        assert attach_camera(app, None, None, demo=True, detector="oracle") == "demo recording"
        get_matches(app).pipeline.stop()
        ids.append(get_matches(app).camera_match)
        listed = [m for m in get_store(app).list_matches() if m["title"] == "Demo"]
        assert [m["id"] for m in listed] == [ids[-1]]
        get_store(app).close()
    app = create_app({"DATABASE": db})
    assert [m["id"] for m in get_store(app).list_matches(archived=True)] == [ids[0]]  # kept on disk, put away
    assert get_store(app).last_match_id() == ids[1]
    get_store(app).close()


def test_the_camera_state_belongs_to_the_match_it_plays_into(tmp_path):
    """A manual match on a server whose camera plays the demo shows no camera (no demo picture, no "answer key")."""
    from web_ui.camera import attach_camera
    from web_ui.services import get_matches

    app = create_app({"DATABASE": str(tmp_path / "cam.db"), "TESTING": True})
    assert attach_camera(app, None, None, demo=True, detector="oracle") == "demo recording"
    try:
        c = app.test_client()
        demo = get_matches(app).camera_match
        manual = new_match(c)
        j = c.get(f"/api/camera?match={manual}").get_json()
        assert j["available"] is False and j["elsewhere"] is True and j["state"] == "off" and j["detector"] is None
        j = c.get(f"/api/camera?match={demo}").get_json()
        assert j["available"] is True and j["detector"] == "oracle" and "elsewhere" not in j
    finally:
        get_matches(app).pipeline.stop()
