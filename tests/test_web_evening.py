"""The host's evening through the dashboard's API (issue 13): corrections, target and seating as events, redo
after undo (a stack that survives a restart), rematch; bad bodies get a 4xx JSON answer."""

from __future__ import annotations

import json

from tests.test_web_api import new_match, play, post
from web_ui import create_app

PLAYERS = ["Ana", "Ben", "Cleo"]
SETUP = {"type": "match", "rules": "basic", "players": PLAYERS}  # to 150 with three players
H1 = {"type": "hand_result", "dealer": "Ana", "winner": "Ben", "points": {"Ana": 12, "Ben": 0, "Cleo": 30}}
H2 = {"type": "hand_result", "winner": "Cleo", "points": {"Ana": 50, "Ben": 60, "Cleo": 0}}
H3_WIN = {"type": "hand_result", "winner": "Cleo", "points": {"Ana": 20, "Ben": 25, "Cleo": 0}}  # Cleo 155
# as the log keeps them (the engine names the dealer)
N2, N3 = {**H2, "dealer": "Ben"}, {**H3_WIN, "dealer": "Cleo"}


def state(client, mid) -> dict:
    return client.get(f"/api/matches/{mid}").get_json()


def log_of(client, mid) -> list[dict]:
    return [json.loads(ln) for ln in client.get(f"/api/matches/{mid}/log").get_data(as_text=True).splitlines()]


# -- corrections, target and players are events of the log ------------------------------------------------------
def test_corrections_through_the_api(client):
    mid = new_match(client, dealer="Ana")
    play(client, mid, [H1, H2])
    r = post(client, mid, {"type": "correct_hand", "hand": 1, "points": {"Ben": 52}})
    assert r.status_code == 200 and r.get_json()["ok"] is True
    st = state(client, mid)
    assert st["totals"] == {"Ana": 0, "Ben": 52, "Cleo": 110}
    assert st["hands"][0]["corrected"] is True and st["hands"][0]["original"]["points"]["Ben"] == 42
    r = post(client, mid, {"type": "correct_hand", "hand": 2, "void": True})
    assert r.status_code == 200
    st = state(client, mid)
    assert st["hands"][1]["void"] is True and st["totals"]["Cleo"] == 0
    # the CSV export has the corrected figures
    csv = client.get(f"/api/matches/{mid}/csv").get_data(as_text=True).splitlines()
    assert csv[1].split(",")[-3:] == ["0", "52", "0"] and csv[2].split(",")[-3:] == ["0", "52", "0"]
    # refusals: 422 with the stable code and a player's message
    r = post(client, mid, {"type": "correct_hand", "hand": 9, "void": True})
    assert r.status_code == 422 and r.get_json()["code"] == "no_such_hand" and "hand 9" in r.get_json()["message"]
    r = post(client, mid, {"type": "correct_hand", "hand": 1, "points": "lots"})
    assert r.status_code == 422 and r.get_json()["code"] == "bad_correction"
    # the log holds the corrections; replaying it gives the same figures
    from referee import replay_lines

    text = client.get(f"/api/matches/{mid}/log").get_data(as_text=True)
    res = replay_lines(text.splitlines())
    assert res["totals"] == st["totals"] and res["hands"][1]["void"] is True


def test_target_and_players_through_the_api(client):
    mid = new_match(client, dealer="Ana")
    play(client, mid, [H1, H2])
    r = post(client, mid, {"type": "set_target", "target": 100})
    assert r.status_code == 422 and r.get_json()["code"] == "target_reached"
    play(client, mid, [{"type": "set_target", "target": 300}])
    play(client, mid, [{"type": "seat_players", "players": ["Ana", "Ben", "Cleo", "Dan"]}])
    st = state(client, mid)
    assert st["target"] == 300 and st["players"] == ["Ana", "Ben", "Cleo", "Dan"] and st["totals"]["Dan"] == 0
    assert st["next_dealer"] == "Cleo" and "seat_players" in st["legal"]["allowed"]
    r = post(client, mid, {"type": "seat_players", "players": ["A", "B", "C", "D", "E"]})
    assert r.status_code == 422 and r.get_json()["code"] == "bad_player_count"
    play(client, mid, [{"type": "seat_players", "players": ["Ana", "Ben"]}])
    st = state(client, mid)
    # Cleo's hands stay in the history and her total is shown apart; Dan, who played no hand, is simply gone
    assert st["left_players"] == ["Cleo"] and st["left_totals"] == {"Cleo": 110}


def test_first_dealer_shown_until_the_first_hand_even_after_a_seating_change(client):
    mid = new_match(client, dealer="Ben")
    play(client, mid, [{"type": "seat_players", "players": ["Ana", "Ben", "Cleo", "Dan"]}])
    assert state(client, mid)["next_dealer"] == "Ben"
    play(client, mid, [{"type": "seat_players", "players": ["Ana", "Cleo"]}])
    assert state(client, mid)["next_dealer"] is None  # the chosen dealer left: anyone may deal


# -- redo ---------------------------------------------------------------------------------------------------------
def test_redo_is_a_stack_of_what_was_undone(client):
    mid = new_match(client, dealer="Ana")
    r = client.post(f"/api/matches/{mid}/redo")
    assert r.status_code == 409 and r.get_json() == {"ok": False, "code": "nothing_to_redo",
                                                     "message": "There is nothing to redo."}
    fix = {"type": "correct_hand", "hand": 1, "points": {"Ben": 52}}
    play(client, mid, [H1, H2, fix])
    full = state(client, mid)
    log = log_of(client, mid)
    assert full["can_redo"] is False and full["redo_next"] is None and full["can_undo"] is True
    assert client.post(f"/api/matches/{mid}/undo").get_json()["undone"]["type"] == "correct_hand"
    assert client.post(f"/api/matches/{mid}/undo").get_json()["undone"] == N2
    st = state(client, mid)
    assert st["can_redo"] is True and st["redo_next"] == N2 and st["totals"] == {"Ana": 0, "Ben": 42, "Cleo": 0}
    r = client.post(f"/api/matches/{mid}/redo")
    assert r.status_code == 200 and r.get_json()["ok"] is True and r.get_json()["redone"] == N2
    assert state(client, mid)["redo_next"]["type"] == "correct_hand"
    r = client.post(f"/api/matches/{mid}/redo")
    assert r.status_code == 200 and r.get_json()["redone"]["type"] == "correct_hand"
    assert client.post(f"/api/matches/{mid}/redo").status_code == 409
    st = state(client, mid)
    assert st["totals"] == full["totals"] and st["hands"] == full["hands"] and st["can_redo"] is False
    assert log_of(client, mid) == log  # the log is as before: the undone events are back, in order
    # append-only: each undo and redo is a row of its own; a redo is an accepted row with the code "redo"
    acts = st["activity"]
    assert [(a["status"], a.get("code")) for a in acts[-4:]] == [("undo", None), ("undo", None),
                                                                 ("accepted", "redo"), ("accepted", "redo")]


def test_a_new_event_after_an_undo_clears_the_redo_stack_a_refused_one_does_not(client):
    mid = new_match(client, dealer="Ana")
    play(client, mid, [H1, H2])
    client.post(f"/api/matches/{mid}/undo")
    r = post(client, mid, {"type": "draw", "player": "Ben", "from": "stock"})  # refused: no hand dealt
    assert r.status_code == 422
    assert state(client, mid)["can_redo"] is True
    play(client, mid, [{"type": "hand_result", "winner": "Ana", "points": {"Ana": 0, "Ben": 5, "Cleo": 5}}])
    assert state(client, mid)["can_redo"] is False
    r = client.post(f"/api/matches/{mid}/redo")
    assert r.status_code == 409 and r.get_json()["code"] == "nothing_to_redo"


def test_the_redo_stack_survives_a_restart(tmp_path):
    db = str(tmp_path / "redo.db")
    app1 = create_app({"DATABASE": db})
    c1 = app1.test_client()
    mid = new_match(c1, dealer="Ana")
    play(c1, mid, [H1, H2, H3_WIN])
    assert state(c1, mid)["match_over"] is True
    for _ in range(3):
        assert c1.post(f"/api/matches/{mid}/undo").status_code == 200
    assert c1.post(f"/api/matches/{mid}/redo").get_json()["redone"] == H1
    app1.extensions["rummy_store"].close()

    app2 = create_app({"DATABASE": db})
    c2 = app2.test_client()
    st = state(c2, mid)
    assert st["can_redo"] is True and st["redo_next"] == N2 and len(st["hands"]) == 1
    assert c2.post(f"/api/matches/{mid}/redo").get_json()["redone"] == N2
    assert c2.post(f"/api/matches/{mid}/redo").get_json()["redone"] == N3
    assert c2.post(f"/api/matches/{mid}/redo").status_code == 409
    st = state(c2, mid)
    assert st["match_over"] is True and st["match_winner"] == "Cleo"
    app2.extensions["rummy_store"].close()
    # and once more from the disk: nothing left to redo
    app3 = create_app({"DATABASE": db})
    assert state(app3.test_client(), mid)["can_redo"] is False
    app3.extensions["rummy_store"].close()


def test_redo_needs_the_pin(tmp_path):
    app = create_app({"DATABASE": str(tmp_path / "p.db"), "PIN": "4321", "LOCAL_ONLY": False})
    c = app.test_client()
    pin = {"X-Rummy-Pin": "4321"}
    mid = c.post("/api/matches", json=SETUP, headers=pin).get_json()["id"]
    assert c.post(f"/api/matches/{mid}/events", json=H1, headers=pin).status_code == 200
    assert c.post(f"/api/matches/{mid}/undo", headers=pin).status_code == 200
    r = c.post(f"/api/matches/{mid}/redo")
    assert r.status_code == 401 and r.get_json()["code"] == "pin_required"
    r = c.post(f"/api/matches/{mid}/rematch")
    assert r.status_code == 401 and r.get_json()["code"] == "pin_required"
    assert c.post(f"/api/matches/{mid}/redo", headers=pin).status_code == 200
    app.extensions["rummy_store"].close()


# -- rematch ----------------------------------------------------------------------------------------------------
def test_rematch_of_a_finished_match(client):
    mid = new_match(client, setup={**SETUP, "options": {"going_rummy": "plus10"}}, dealer="Ben", title="Friday")
    play(client, mid, [{**H1, "dealer": "Ben"}, H2, H3_WIN])
    assert state(client, mid)["match_over"] is True
    r = client.post(f"/api/matches/{mid}/rematch")
    assert r.status_code == 201, r.get_json()
    new = r.get_json()["id"]
    assert new != mid
    st = state(client, new)
    assert st["rules"] == "basic" and st["players"] == PLAYERS and st["hands"] == [] and st["match_over"] is False
    assert st["options"]["going_rummy"] == "plus10" and st["setup"]["options"] == {"going_rummy": "plus10"}
    assert st["extra"]["rematch_of"] == mid and st["extra"]["title"] == "Friday (rematch)"
    assert st["next_dealer"] == "Cleo"  # Ben dealt first last time: the next one in rotation
    # a second tap (another tablet) opens the same rematch
    r = client.post(f"/api/matches/{mid}/rematch", json={})
    assert r.status_code == 200 and r.get_json() == {"ok": True, "id": new, "existing": True}
    # the rematch of the rematch counts on
    r = client.post(f"/api/matches/{new}/rematch")
    assert r.status_code == 201
    third = state(client, r.get_json()["id"])
    assert third["extra"]["title"] == "Friday (rematch 2)" and third["extra"]["rematch_of"] == new


def test_rematch_keeps_the_seating_and_target_of_now_and_the_table(client):
    mid = new_match(client, dealer="Ana", layout="table.json", colors={"Ana": "#ff0000", "Cleo": "#00ff00"})
    play(client, mid, [H1, {"type": "set_target", "target": 400},
                       {"type": "seat_players", "players": ["Cleo", "Ana", "Dan"]}])
    r = client.post(f"/api/matches/{mid}/rematch")
    assert r.status_code == 201
    st = state(client, r.get_json()["id"])
    assert st["players"] == ["Cleo", "Ana", "Dan"] and st["target"] == 400
    assert st["setup"]["options"] == {"target": 400}
    assert st["next_dealer"] == "Dan"  # Ana dealt first: the one after her in the seating of now
    assert st["extra"]["layout"] == "table.json" and "title" not in st["extra"]
    assert st["extra"]["colors"] == {"Cleo": "#00ff00", "Ana": "#ff0000"}


def test_rematch_before_any_hand_and_of_an_archived_rematch(client):
    mid = new_match(client)
    r = client.post(f"/api/matches/{mid}/rematch")
    assert r.status_code == 201
    first = r.get_json()["id"]
    assert state(client, first)["next_dealer"] is None  # nobody dealt: anyone may
    client.application.extensions["rummy_store"].archive(first)
    r = client.post(f"/api/matches/{mid}/rematch")
    assert r.status_code == 201 and r.get_json()["id"] != first


def test_bad_bodies_get_a_json_4xx(client):
    mid = new_match(client)
    for route in ("redo", "rematch"):
        r = client.post(f"/api/matches/{mid}/{route}", data="{nope", content_type="application/json")
        assert r.status_code == 400 and r.get_json()["ok"] is False and r.get_json()["code"]
        r = client.post(f"/api/matches/{mid}/{route}", json=[1, 2])
        assert r.status_code == 422 and r.get_json()["ok"] is False and r.get_json()["code"] == "bad_body"
        r = client.post(f"/api/matches/{mid}/{route}", data=b"\xff\xfe", content_type="application/json")
        assert 400 <= r.status_code < 500 and r.get_json()["ok"] is False
        r = client.post(f"/api/matches/nosuch/{route}")
        assert r.status_code == 404 and r.get_json()["ok"] is False
    for ev in ({"type": "correct_hand", "hand": 1, "void": True}, {"type": "set_target", "target": "lots"},
               {"type": "seat_players", "players": None}):
        r = post(client, mid, ev)
        assert r.status_code == 422 and r.get_json()["ok"] is False and r.get_json()["code"] and r.get_json()["message"]
