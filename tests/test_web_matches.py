"""The host's evening, list side (issue 13): the matches list with status and winner, rename, archive and
restore, statistics per player, the players from before and their colours; through the API (Flask's test
client on a temporary database).  The statistics are checked against figures worked out by hand."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from web_ui import create_app
from web_ui.services import get_store
from web_ui.summaries import PALETTE, one_decimal, player_colors

ROOT = Path(__file__).resolve().parents[1]

# a hand played move by move (Ben goes out in one go: going rummy, 2 × (35 + 35) = 140 in Basic)
PLAYED = [
    {"type": "deal", "dealer": "ana", "upcard": "KD"},
    {"type": "draw", "player": "Ben", "from": "stock", "card": "KS"},
    {"type": "meld", "player": "Ben", "cards": ["3H", "4H", "5H", "6H", "7H", "8H", "9H"]},
    {"type": "discard", "player": "Ben", "card": "KS"},
    {"type": "reveal", "player": "Dee", "cards": ["2D", "3D", "4D", "5D", "6D", "7D", "8D"]},
    {"type": "reveal", "player": "ana", "cards": ["2C", "3C", "4C", "5C", "6C", "7C", "8C"]},
]


def new_match(client, **body) -> str:
    r = client.post("/api/matches", json={"type": "match", **body})
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def play(client, mid, *events):
    for ev in events:
        r = client.post(f"/api/matches/{mid}/events", json=ev)
        assert r.status_code == 200, (ev, r.get_json())


def listed(client, archived=False) -> dict:
    r = client.get("/api/matches" + ("?archived=1" if archived else ""))
    assert r.status_code == 200
    return {m["id"]: m for m in r.get_json()["matches"]}


@pytest.fixture
def evening(client):
    """Four scripted matches (and one not started), oldest first:

    m1 "Friday", Basic, Ana Ben Cleo: three quick results — Ben out (12 + 30 = 42), Ana out (5 + 20 = 25), a
       stalemate (nobody scores); in progress.
    m2 Basic to 50, ana (lower case) Ben Dee: one hand played move by move, Ben goes rummy: 140; over, Ben wins.
    m3 Rummy 500, Ana Ben: Ana melded 20 with 15 left (5), Ben out with 45 melded (45); in progress.
    m4 Basic, Ana Cleo Zed: Cleo out (30 + 20 = 50); archived.
    m5 Basic, Eve Ben: not started."""
    m1 = new_match(client, rules="basic", players=["Ana", "Ben", "Cleo"], dealer="Ana", title="Friday",
                   colors={"Ana": "#ff8c42", "Ben": "#4cc9f0", "Cleo": "#f72585"})
    play(client, m1,
         {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 12, "Ben": 0, "Cleo": 30}},
         {"type": "hand_result", "dealer": "Ben", "winner": "Ana", "points": {"Ana": 0, "Ben": 5, "Cleo": 20}},
         {"type": "hand_result", "dealer": "Cleo", "winner": None, "points": {"Ana": 3, "Ben": 4, "Cleo": 5}})
    m2 = new_match(client, rules="basic", players=["ana", "Ben", "Dee"], dealer="ana", options={"target": 50})
    play(client, m2, *PLAYED)
    m3 = new_match(client, rules="rummy500", players=["Ana", "Ben"], dealer="Ana", colors={"Ana": "#B39CFF"})
    play(client, m3, {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 15, "Ben": 0},
                      "melded": {"Ana": 20, "Ben": 45}})
    m4 = new_match(client, rules="basic", players=["Ana", "Cleo", "Zed"], dealer="Ana")
    play(client, m4, {"type": "hand_result", "dealer": "Ana", "winner": "Cleo", "points": {"Ana": 30, "Cleo": 0, "Zed": 20}})
    assert client.post(f"/api/matches/{m4}/archive").status_code == 200
    m5 = new_match(client, rules="basic", players=["Eve", "Ben"])
    return {"m1": m1, "m2": m2, "m3": m3, "m4": m4, "m5": m5}


# -- the list: status and winner ----------------------------------------------------------------------
def test_the_list_says_each_matchs_status_and_winner(client, evening):
    ms = listed(client)
    assert set(ms) == {evening[k] for k in ("m1", "m2", "m3", "m5")}  # the archived one is not in it
    m1, m2, m3, m5 = (ms[evening[k]] for k in ("m1", "m2", "m3", "m5"))
    assert (m1["status"], m1["hand"], m1["hands_played"], m1["winner"]) == ("in_progress", None, 3, None)
    assert m1["totals"] == {"Ana": 25, "Ben": 42, "Cleo": 0} and m1["title"] == "Friday"
    assert (m2["status"], m2["winner"], m2["totals"]) == ("over", "Ben", {"ana": 0, "Ben": 140, "Dee": 0})
    assert (m3["status"], m3["totals"]) == ("in_progress", {"Ana": 5, "Ben": 45})
    assert (m5["status"], m5["hand"], m5["hands_played"], m5["winner"]) == ("not_started", None, 0, None)
    # the existing columns stay: rules, players, events, times
    assert m1["rules"] == "basic" and m1["players"] == ["Ana", "Ben", "Cleo"] and m1["moves"] == 3
    assert m1["last_change"] >= m1["created"]
    # a hand being played: its number
    play(client, evening["m1"], {"type": "deal", "dealer": "Ana", "upcard": "KD"})
    assert listed(client)[evening["m1"]]["hand"] == 4
    page = client.get("/matches").get_data(as_text=True)
    assert "Hand 4" in page and "Ben 42, Ana 25, Cleo 0" in page  # the standing, leader first
    assert "★ Ben 140" in page and "★ Ben</strong>" in page  # over: the winner
    assert "Not started" in page and "Over" in page


def test_the_list_reads_the_stored_summaries_without_replaying(client, evening, app, tmp_path, monkeypatch):
    db = app.config["DATABASE"]
    rows = dict(sqlite3.connect(db).execute("SELECT id, summary FROM matches").fetchall())
    summ = json.loads(rows[evening["m2"]])  # written with the last event
    assert summ["status"] == "over" and summ["winner"] == "Ben" and summ["v"] == len(PLAYED)
    # a new server on the same file: nothing in memory, every summary on disk is current
    get_store(app).close()
    app2 = create_app({"DATABASE": db})
    from web_ui import store as store_mod

    calls = []
    real = store_mod.engine.rebuild
    monkeypatch.setattr(store_mod.engine, "rebuild", lambda *a: calls.append(a) or real(*a))
    ms = listed(app2.test_client())
    assert calls == [] and ms[evening["m2"]]["winner"] == "Ben"
    get_store(app2).close()


def test_an_old_database_gets_its_summaries_on_the_first_read(client, evening, app, monkeypatch):
    db = app.config["DATABASE"]
    before = listed(client)
    get_store(app).close()
    con = sqlite3.connect(db)
    con.execute("ALTER TABLE matches DROP COLUMN summary")  # as a database made before the column
    con.commit()
    con.close()
    app2 = create_app({"DATABASE": db})
    assert listed(app2.test_client()) == before
    stored = dict(sqlite3.connect(db).execute("SELECT id, summary FROM matches").fetchall())
    assert all(stored[mid] for mid in before)  # kept for the next read
    # a summary out of date (another version wrote the events) is made again
    con = sqlite3.connect(db)
    con.execute("UPDATE matches SET summary = ? WHERE id = ?",
                (json.dumps({"v": 1, "k": 0, "status": "not_started"}), evening["m2"]))
    con.commit()
    con.close()
    get_store(app2).close()
    app3 = create_app({"DATABASE": db})
    assert listed(app3.test_client())[evening["m2"]]["winner"] == "Ben"
    get_store(app3).close()


# -- rename -------------------------------------------------------------------------------------------
def test_rename_a_match(client, evening):
    mid = evening["m2"]
    r = client.post(f"/api/matches/{mid}/title", json={"title": "  Saturday rematch "})
    assert r.status_code == 200 and r.get_json() == {"ok": True, "id": mid, "title": "Saturday rematch"}
    assert listed(client)[mid]["title"] == "Saturday rematch"
    assert client.get(f"/api/matches/{mid}").get_json()["extra"]["title"] == "Saturday rematch"
    first = json.loads(client.get(f"/api/matches/{mid}/log?download=1").get_data(as_text=True).splitlines()[0])
    assert first["title"] == "Saturday rematch"  # the export keeps the new name
    assert client.patch(f"/api/matches/{mid}/title", json={"title": "x" * 60}).status_code == 200
    r = client.post(f"/api/matches/{mid}/title", json={"title": None})  # no name
    assert r.status_code == 200 and listed(client)[mid]["title"] is None
    assert "title" not in client.get(f"/api/matches/{mid}").get_json()["extra"]


@pytest.mark.parametrize("body, status, code", [
    (b"{nope", 400, "bad_json"),
    (b"", 400, "empty_body"),
    (b"[1, 2]", 422, "bad_body"),
    (b'"Friday"', 422, "bad_body"),
    (b"{}", 422, "bad_body"),
    (b'{"title": "ok", "colour": "red"}', 422, "bad_body"),
    (b'{"title": 7}', 422, "bad_name"),
    (b'{"title": "   "}', 422, "bad_name"),
    (b'{"title": ""}', 422, "bad_name"),
    (('{"title": "' + "x" * 61 + '"}').encode(), 422, "bad_name"),
    (b'{"title": "tab\\there"}', 422, "bad_name"),
    (b'{"title": "\\ud800"}', 400, "bad_text"),
])
def test_rename_refuses_bad_bodies(client, evening, body, status, code):
    mid = evening["m1"]
    r = client.post(f"/api/matches/{mid}/title", data=body, content_type="application/json")
    assert r.status_code == status, r.get_json()
    j = r.get_json()
    assert j["ok"] is False and j["code"] == code and j["message"]
    assert listed(client)[mid]["title"] == "Friday"  # nothing changed


def test_rename_or_archive_an_unknown_match_is_404(client):
    for path in ("/api/matches/nope/title", "/api/matches/nope/archive", "/api/matches/nope/restore"):
        r = client.post(path, json={"title": "x"})
        assert r.status_code == 404 and r.get_json()["ok"] is False


# -- archive and restore ------------------------------------------------------------------------------
def test_archive_keeps_the_match_and_restore_brings_it_back(client, evening):
    mid = evening["m5"]  # the match changed last: the one `/` opens
    assert client.get("/").headers["Location"].endswith(f"/m/{mid}")
    client.get(f"/m/{mid}")  # this browser opened it last, too
    r = client.post(f"/api/matches/{mid}/archive")
    assert r.status_code == 200 and r.get_json() == {"ok": True, "id": mid, "archived": True}
    assert mid not in listed(client) and mid in listed(client, archived=True)
    assert client.get(f"/api/matches/{mid}").status_code == 200  # still on disk, still opens by its address
    assert client.get(f"/api/matches/{mid}").get_json()["extra"]["archived"] is True
    # `/` never opens an archived match, not even the one this browser opened last
    assert not client.get("/").headers["Location"].endswith(f"/m/{mid}")
    assert client.get("/api/matches").get_json()["last"] != mid
    page = client.get("/matches").get_data(as_text=True)
    archived_part = page[page.index('id="archived-list"'):]
    assert f'data-mid="{mid}"' in archived_part and "Restore" in archived_part
    r = client.post(f"/api/matches/{mid}/restore", data=b"{}", content_type="application/json")
    assert r.status_code == 200 and r.get_json()["archived"] is False
    assert mid in listed(client) and mid not in listed(client, archived=True)
    assert "archived" not in client.get(f"/api/matches/{mid}").get_json()["extra"]


@pytest.mark.parametrize("body, status", [(b"{oops", 400), (b"[true]", 422), (b"12", 422)])
def test_archive_refuses_a_garbage_body(client, evening, body, status):
    r = client.post(f"/api/matches/{evening['m1']}/archive", data=body, content_type="application/json")
    assert r.status_code == status and r.get_json()["ok"] is False and r.get_json()["message"]
    assert evening["m1"] in listed(client)


def test_importing_an_archived_matchs_log_again_brings_it_back(client, evening):
    mid = evening["m1"]
    log = client.get(f"/api/matches/{mid}/log?download=1").get_data()
    r = client.post("/api/matches/import", data=log, content_type="application/x-ndjson")
    assert r.status_code == 201
    copy = r.get_json()["id"]
    assert client.post(f"/api/matches/{copy}/archive").status_code == 200
    r = client.post("/api/matches/import", data=log, content_type="application/x-ndjson")
    assert r.status_code == 200 and r.get_json()["duplicate"] and r.get_json()["id"] == copy
    assert copy in listed(client)


# -- statistics ---------------------------------------------------------------------------------------
def stats(client, query="") -> dict:
    r = client.get("/api/stats" + query)
    assert r.status_code == 200, r.get_json()
    return {p["name"]: p for p in r.get_json()["players"]}


def figures(p: dict) -> tuple:
    b = p["best"]
    return (p["matches"], p["matches_won"], p["hands"], p["hands_won"], p["points"], p["average"],
            None if b is None else (b["points"], b["match"], b["hand"]))


def test_statistics_per_player_in_basic(client, evening):
    s = stats(client, "?rules=basic")
    m1, m2 = evening["m1"], evening["m2"]
    # worked out by hand from the fixture's hands (m1: 42 / 25 / stalemate; m2: Ben 140, over)
    assert figures(s["Ben"]) == (2, 1, 4, 2, 182, 45.5, (140, m2, 1))
    # "Ana" (m1) and "ana" (m2) are one player, spelt as in the newest match with her (m3, in Rummy 500)
    assert figures(s["Ana"]) == (2, 0, 4, 1, 25, 6.3, (25, m1, 2))  # 25 / 4 = 6.25, shown 6.3
    assert figures(s["Cleo"]) == (1, 0, 3, 0, 0, 0.0, (0, m1, 1))  # best: the first of equal hands
    assert figures(s["Dee"]) == (1, 0, 1, 0, 0, 0.0, (0, m2, 1))
    assert "Eve" not in s and "Zed" not in s  # a match not started, an archived match
    assert list(s)[0] == "Ben"  # most matches won first
    assert "ana" not in s


def test_statistics_across_rule_systems_and_with_archived_matches(client, evening):
    m1, m2, m3, m4 = (evening[k] for k in ("m1", "m2", "m3", "m4"))
    r5 = stats(client, "?rules=rummy500")
    assert figures(r5["Ana"]) == (1, 0, 1, 0, 5, 5.0, (5, m3, 1))  # 20 melded − 15 left
    assert figures(r5["Ben"]) == (1, 0, 1, 1, 45, 45.0, (45, m3, 1))
    every = stats(client)  # all rule systems: the newest spelling is m3's "Ana"
    assert figures(every["Ana"]) == (3, 0, 5, 1, 30, 6.0, (25, m1, 2))
    assert figures(every["Ben"]) == (3, 1, 5, 3, 227, 45.4, (140, m2, 1))
    assert every["Ana"]["color"] == "#b39cff"  # the colour used last
    arch = stats(client, "?rules=basic&archived=1")  # m4 too: Cleo out with 30 + 20
    assert figures(arch["Cleo"]) == (2, 0, 4, 1, 50, 12.5, (50, m4, 1))
    assert figures(arch["Ana"]) == (3, 0, 5, 1, 25, 5.0, (25, m1, 2))
    assert figures(arch["Zed"]) == (1, 0, 1, 0, 0, 0.0, (0, m4, 1))
    j = client.get("/api/stats?rules=basic&archived=1").get_json()
    assert j["rules"] == "basic" and j["archived"] is True and j["matches"] == 4
    r = client.get("/api/stats?rules=poker")
    assert r.status_code == 422 and r.get_json()["code"] == "unknown_rules"


def test_the_statistics_page(client, evening):
    page = client.get("/stats?rules=basic").get_data(as_text=True)
    row = re.search(r'<tr class="stats-row" data-player="Ben">(.*?)</tr>', page, re.S).group(1)
    cells = dict(re.findall(r'data-key="(\w+)">\s*(.*?)\s*</td>', row, re.S))
    assert (cells["matches"], cells["matches_won"], cells["hands"], cells["hands_won"], cells["average"]) == \
        ("2", "1", "4", "2", "45.5")
    assert "<strong>140</strong>" in cells["best"] and f'/m/{evening["m2"]}' in cells["best"]
    assert 'aria-checked="false"' in page and "archived=1" in page  # the toggle for archived matches
    assert 'data-player="Zed"' in client.get("/stats?archived=1").get_data(as_text=True)
    assert client.get("/stats?rules=poker").status_code == 200  # an unknown filter shows all
    assert 'href="/stats"' in client.get("/matches").get_data(as_text=True)  # in the top bar


# -- players from before ------------------------------------------------------------------------------
def test_the_players_used_before(client, evening):
    j = client.get("/api/players").get_json()
    names = [p["name"] for p in j["players"]]
    # most recent first (m5, m3, m2, m1; m4 archived is forgotten), one entry a name whatever its case
    assert names == ["Eve", "Ben", "Ana", "Dee", "Cleo"]
    by = {p["name"]: p for p in j["players"]}
    assert by["Ana"]["color"] == "#b39cff" and by["Cleo"]["color"] == "#f72585" and by["Eve"]["color"] is None
    assert by["Ben"]["matches"] == 4
    assert j["last"]["id"] == evening["m5"] and j["last"]["players"] == ["Eve", "Ben"]
    assert j["last"]["colors"] == {"Eve": PALETTE[0], "Ben": PALETTE[1]}
    assert j["palette"] == list(PALETTE)


# -- colours ------------------------------------------------------------------------------------------
def test_colours_are_kept_with_the_match(client):
    mid = new_match(client, rules="basic", players=[" Ana ", "Ben"], colors={"Ana": "#FFD166", " Ben": "#2ec4b6"})
    assert client.get(f"/api/matches/{mid}").get_json()["extra"]["colors"] == {"Ana": "#ffd166", "Ben": "#2ec4b6"}
    assert listed(client)[mid]["colors"] == {"Ana": "#ffd166", "Ben": "#2ec4b6"}
    first = json.loads(client.get(f"/api/matches/{mid}/log").get_data(as_text=True).splitlines()[0])
    assert "colors" not in first  # the dashboard's, not the game log's


@pytest.mark.parametrize("colors", [
    "red", ["#ffd166"], {"Zed": "#ffd166"}, {"Ana": "#fff"}, {"Ana": "red"}, {"Ana": 16777215},
    {"Ana": "#ffd16g"}, {"Ana": None}, {"Ana": "#ffd1666"},
])
def test_bad_colours_are_refused(client, colors):
    r = client.post("/api/matches", json={"type": "match", "rules": "basic", "players": ["Ana", "Ben"], "colors": colors})
    assert r.status_code == 422, r.get_json()
    j = r.get_json()
    assert j["ok"] is False and j["code"] == "bad_colors" and j["message"]
    assert listed(client) == {}  # no match made


def test_default_colours_are_distinct_and_the_same_as_the_scripts():
    assert player_colors(["A", "B", "C"], {"B": PALETTE[0]}) == {"A": PALETTE[1], "B": PALETTE[0], "C": PALETTE[2]}
    assert len(set(player_colors([f"P{i}" for i in range(8)]).values())) == 8
    js = (ROOT / "web_ui/static/common.js").read_text(encoding="utf-8")
    m = re.search(r"RR\.COLORS = \[([^\]]*)\]", js)
    assert m and [c.strip().strip('"') for c in m.group(1).split(",")] == list(PALETTE)


def test_one_decimal_rounds_halves_away_from_zero():
    assert (one_decimal(6.25), one_decimal(-2.25), one_decimal(45.4), one_decimal(1 / 3)) == (6.3, -2.3, 45.4, 0.3)
