"""Teaching the referee a deck (issue 11): `rummy-referee enrol`, deck profiles, `--deck`, the dashboard.

The deck here is drawn by the test itself in a design no model was trained on (its own font, colours and
paper), and its suit photos are rendered by vision/synth/suit_photos.py.  The learning runs with a small
budget (seconds, not minutes), so these tests check that it works and what it refuses, not how well it
reads; models/MODEL.md ("Enrolment") has the measurement.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from rummy_referee.cli import main as cli
from vision.enrol.photos import PAPER_LEVEL, EnrolError, even_papers, find_cards, paper_colour
from vision.enrol.profile import DeckError, load_profile
from vision.synth.decks import ALL_FACES, Deck, _proc_card, register_deck
from vision.synth.scene import Placement, render
from vision.synth.suit_photos import photo, suit_cards
from vision.synth.surfaces import make_surface

ROOT = Path(__file__).resolve().parents[1]

# a design of the test's own: never seen by the detector's training (vision/synth/decks.py has no such deck)
DESIGN = dict(font=cv2.FONT_HERSHEY_PLAIN, paper=(235, 250, 240), red=(60, 30, 190), black=(70, 40, 10),
              idx_h=0.1, suit_h=0.075, idx_x=0.05, idx_y=0.04, border=(120, 160, 120), thick=0.15,
              back=((90, 20, 90), (200, 160, 200)), face=(200, 120, 40))
NAME = "test-plain-green"


@pytest.fixture(scope="module")
def deck() -> str:
    faces, boxes = {}, {}
    for card in (*ALL_FACES, "BACK"):
        faces[card], boxes[card] = _proc_card(card, DESIGN)
    register_deck(Deck(NAME, faces, boxes))
    return NAME


@pytest.fixture(scope="module")
def photos(deck, tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("suit-photos")
    rng = np.random.default_rng(5)
    paths = {}
    for s in "CDHS":
        paths[s] = out / f"{s}.jpg"
        cv2.imwrite(str(paths[s]), photo(deck, suit_cards(s), rng, width=1280, height=800, surface="felt"))
    return paths


def _suit_args(paths: dict[str, Path]) -> list[str]:
    return [a for s in "CDHS" for a in ("--suit", s, str(paths[s]))]


def _table(deck: str, rng: np.random.Generator, cards: list[str]) -> np.ndarray:
    """An easy table: the cards laid apart, a little turned, at a webcam's size."""
    bg = make_surface("wood", 1280, 720, rng)
    pl = [Placement(c, deck, (160 + 240 * (i % 5), 180 + 330 * (i // 5)), float(rng.normal(0, 8)), 230)
          for i, c in enumerate(cards)]
    img, _ = render(pl, bg, rng, hands=0)
    return img


@pytest.fixture(scope="module")
def taught(photos, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("decks") / "green"
    t0 = time.perf_counter()
    rc = cli(["enrol", "--out", str(out), *_suit_args(photos), "--name", "Green deck", "--seconds", "12",
              "--scenes", "24"])
    assert rc == 0
    assert time.perf_counter() - t0 < 300
    return out


def test_enrol_writes_a_profile_with_every_card(taught, capsys):
    prof = load_profile(taught)
    assert prof.name == "Green deck"
    assert prof.meta["cards"] == 52 and prof.meta["jokers"] == 0
    assert sorted(prof.faces()) == sorted(f"{r}{s}" for s in "CDHS" for r in
                                          ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"))
    assert prof.classifier.is_file() and (taught / "cards-cls.pt").is_file()
    learning = prof.meta["learning"]
    assert learning["steps"] > 0 and 0 < learning["conf"] < 1
    assert "framing" in learning  # the localiser's framing measured on practice tables (framing_ratio)
    # the faces are the photo's cards in order: the ace of clubs is the first card of the clubs photo
    ace = cv2.imread(str(prof.faces()["AC"]))
    assert ace.shape[:2] == (350, 250)
    # every suit's faces are white-balanced alike, whatever each photo's light (even_papers)
    for card in ("AC", "7D", "QH", "KS"):
        paper = paper_colour(cv2.imread(str(prof.faces()[card])))
        assert np.abs(paper - PAPER_LEVEL).max() <= 3, (card, paper)


def test_detect_with_the_deck_reads_its_cards(taught, deck, tmp_path, capsys):
    rng = np.random.default_rng(11)
    cards = ["AS", "7H", "10C", "QD", "3S", "KH", "5D", "JC", "9S", "2H"]
    path = tmp_path / "table.jpg"
    cv2.imwrite(str(path), _table(deck, rng, cards))
    capsys.readouterr()
    assert cli(["detect", "--deck", str(taught), "--json", str(path)]) == 0
    got = {c["card"] for c in json.loads(capsys.readouterr().out)[0]["cards"]}
    assert len(got & set(cards)) >= 6, got  # a 12-second lesson on easy, large, well-lit cards
    assert len(got - set(cards)) <= 2, got


def test_a_deck_is_found_by_name_and_a_missing_one_is_an_error(taught, tmp_path, capsys):
    assert load_profile("green", search=taught.parent).path == taught
    with pytest.raises(DeckError, match="no deck profile"):
        load_profile(tmp_path / "nothing")
    (tmp_path / "fake").mkdir()
    with pytest.raises(DeckError, match="no deck.json"):
        load_profile(tmp_path / "fake")
    img = tmp_path / "x.jpg"
    cv2.imwrite(str(img), np.zeros((100, 100, 3), np.uint8))
    assert cli(["detect", "--deck", str(tmp_path / "nothing"), str(img)]) == 2
    assert "no deck profile" in capsys.readouterr().err


@pytest.mark.parametrize("case", ["twelve", "mixed", "blank", "twice", "missing", "unreadable"])
def test_wrong_photos_exit_2_name_the_photo_and_write_nothing(case, deck, photos, tmp_path, capsys):
    rng = np.random.default_rng(3)
    paths = dict(photos)
    bad = tmp_path / "bad.jpg"
    if case == "twelve":
        cv2.imwrite(str(bad), photo(deck, suit_cards("H")[:12], rng, width=1280, height=800, surface="felt"))
        paths["H"] = bad
    elif case == "mixed":  # four spades among the clubs
        cards = suit_cards("C")
        cards[2:6] = ["3S", "4S", "5S", "6S"]
        cv2.imwrite(str(bad), photo(deck, cards, rng, width=1280, height=800, surface="felt"))
        paths["C"] = bad
    elif case == "blank":
        cv2.imwrite(str(bad), make_surface("felt", 1280, 800, rng))
        paths["D"] = bad
    elif case == "missing":
        paths["S"] = tmp_path / "nowhere.jpg"
    elif case == "unreadable":
        bad.write_bytes(b"not a photo at all")
        paths["S"] = bad
    args = _suit_args(paths)
    if case == "twice":
        args += ["--suit", "H", str(photos["H"])]
    out = tmp_path / "deck"
    assert cli(["enrol", "--out", str(out), *args, "--seconds", "1", "--scenes", "12"]) == 2
    err = capsys.readouterr().err
    assert not out.exists()
    expect = {"twelve": r"bad\.jpg \(hearts\): found 12 separate cards, expected 13",
              "mixed": r"bad\.jpg.*card \d+ \(reading order\)",
              "blank": r"bad\.jpg \(diamonds\): found no cards",
              "twice": r"hearts \(H\) is given twice",
              "missing": r"nowhere\.jpg \(spades\): no such file",
              "unreadable": r"bad\.jpg \(spades\): cannot read image"}[case]
    assert re.search(expect, err), err
    assert err.count("\n") == 1  # one line


def test_each_photos_light_is_taken_off_the_faces():
    """One suit photographed in dim, bluish light and another in lilac light: after even_papers their faces'
    paper is the same neutral colour, the ink stays ink, and the faces match the card as printed."""
    face, boxes = _proc_card("7C", DESIGN)
    dim = face.copy()
    dim[..., :3] = (face[..., :3] * np.float32([0.62, 0.56, 0.52])).astype(np.uint8)
    lilac = face.copy()
    lilac[..., :3] = np.clip(face[..., :3] * np.float32([1.0, 0.85, 0.97]), 0, 255).astype(np.uint8)
    before = {k: paper_colour(f) for k, f in (("dim", dim), ("lilac", lilac))}
    assert np.abs(before["dim"] - before["lilac"]).max() > 40
    out = even_papers({"printed": face, "dim": dim, "lilac": lilac})
    x1, y1, x2, y2 = (int(v) for v in boxes[0])
    for k in ("printed", "dim", "lilac"):
        paper = paper_colour(out[k])
        assert np.abs(paper - PAPER_LEVEL).max() <= 3, (k, paper)
        index = out[k][y1:y2, x1:x2, :3].astype(np.float32).mean(axis=2)
        assert index.min() < PAPER_LEVEL - 100, k  # the index's ink is still dark on the paper
        assert np.array_equal(out[k][..., 3], face[..., 3])
    diff = np.abs(out["dim"][..., :3].astype(np.int16) - out["printed"][..., :3].astype(np.int16))
    assert diff.mean() < 8
    assert np.abs(out["lilac"][..., :3].astype(np.int16) - out["printed"][..., :3].astype(np.int16)).mean() < 8


def test_touching_cards_are_split_and_reading_order_is_rows(deck):
    rng = np.random.default_rng(8)
    bg = make_surface("cloth", 1200, 800, rng)
    cards = suit_cards("S")
    pl = []
    for i, c in enumerate(cards):
        r, k = divmod(i, 5)
        # the second card of each row is turned a little and touches the first at a corner (a card is
        # 164 px wide); the others lie apart
        x = 130 + 180 if k == 1 else 130 + 240 * k
        pl.append(Placement(c, deck, (float(x), 140.0 + 260 * r), 6.0 if k == 1 else 0.0, 230))
    img, _ = render(pl, bg, rng, hands=0, glare=False)
    found = find_cards(img, 13)
    xs = [(c.box[0], c.box[1]) for c in found]
    rows = [xs[0:5], xs[5:10], xs[10:13]]
    for row in rows:
        assert [p[0] for p in row] == sorted(p[0] for p in row)
    assert max(p[1] for p in rows[0]) < min(p[1] for p in rows[1])


def test_find_cards_refuses_a_non_photo():
    with pytest.raises(EnrolError, match="not a photo"):
        find_cards(np.zeros((10, 10, 3), np.uint8))


def test_dashboard_teaches_a_deck_and_it_survives_a_restart(photos, tmp_path):
    from web_ui import create_app
    from web_ui.services import get_decks

    cfg = {"DATABASE": str(tmp_path / "m.db"), "ENROL_SECONDS": 4, "ENROL_SCENES": 12, "TESTING": True}
    app = create_app(cfg)
    c = app.test_client()
    html = c.get("/decks").get_data(as_text=True)
    assert "Teach the referee this deck" in html
    token = re.search(r'name="csrf-token" content="([^"]+)"', html).group(1)
    h = {"X-CSRF-Token": token}
    r = c.post("/api/decks/teach", json={"name": "Too soon"}, headers=h)
    assert r.status_code == 422 and "first" in r.json["message"]
    r = c.post("/api/decks/photos/H", data=b"\xff\xd8 garbage", headers={**h, "Content-Type": "image/jpeg"})
    assert r.status_code == 422 and r.json["code"] == "bad_photo"
    r = c.post("/api/decks/photos/X", data=b"", headers=h)
    assert r.status_code == 404
    r = c.post("/api/decks/photos/C", json={"from": "camera"}, headers=h)
    assert r.status_code == 409  # no camera on this server
    for s in "CDHS":
        r = c.post(f"/api/decks/photos/{s}", data=photos[s].read_bytes(), headers={**h, "Content-Type": "image/jpeg"})
        assert r.status_code == 200, r.json
        assert [x["card"] for x in r.json["cards"]][:3] == [f"A{s}", f"2{s}", f"3{s}"]
    r = c.get("/api/decks/photos/D.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg"
    assert c.get("/api/decks").json["photos"] == {"C": 13, "D": 13, "H": 13, "S": 13}
    r = c.post("/api/decks/teach", json={"name": "Club night"}, headers=h)
    assert r.status_code == 202
    for _ in range(240):
        job = c.get("/api/decks/job").json
        if job["state"] != "running":
            break
        time.sleep(0.5)
    assert job["state"] == "done", job
    st = c.get("/api/decks").json
    assert [d["name"] for d in st["decks"]] == ["Club night"]
    assert st["using"] == str(tmp_path / "decks" / "Club night")
    get_decks(app)  # the same object the routes use
    # a restart: the deck is still there, and still the one in use
    app2 = create_app(cfg)
    st2 = app2.test_client().get("/api/decks").json
    assert [d["name"] for d in st2["decks"]] == ["Club night"] and st2["using"] == st["using"]
    c2 = app2.test_client()
    token2 = re.search(r'name="csrf-token" content="([^"]+)"', c2.get("/decks").get_data(as_text=True)).group(1)
    r = c2.post("/api/decks/use", json={"name": None}, headers={"X-CSRF-Token": token2})
    assert r.status_code == 200 and r.json["using"] is None
    r = c2.post("/api/decks/use", json={"name": "No such deck"}, headers={"X-CSRF-Token": token2})
    assert r.status_code == 422


def test_serve_and_track_refuse_a_missing_deck(tmp_path, capsys):
    assert cli(["serve", "--deck", str(tmp_path / "nothing"), "--db", str(tmp_path / "m.db"), "--no-browser"]) == 2
    assert "--deck: no deck profile" in capsys.readouterr().err
    (tmp_path / "frames").mkdir()
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps({"stock": [[0, 0], [0.2, 0], [0.2, 0.2]], "discard": [[0.3, 0], [0.5, 0], [0.5, 0.2]],
                                  "players": {"Ana": [[0, 0.5], [0.5, 0.5], [0.5, 1]], "Ben": [[0.5, 0.5], [1, 0.5], [1, 1]]}}))
    match = tmp_path / "match.json"
    match.write_text(json.dumps({"type": "match", "rules": "basic", "players": ["Ana", "Ben"], "dealer": "Ana"}))
    rc = cli(["track", str(tmp_path / "frames"), "--layout", str(layout), "--match", str(match), "--log",
              str(tmp_path / "out.jsonl"), "--deck", str(tmp_path / "nothing")])
    assert rc == 2 and "no deck profile" in capsys.readouterr().err


def test_detector_benchmark_draws_the_taught_decks_own_cards(taught):
    """`benchmarks/detector.py --deck` times detection on a table of that deck (its profile's faces)."""
    import importlib.util

    from vision.synth.decks import load_deck

    spec = importlib.util.spec_from_file_location("bench_detector", ROOT / "benchmarks" / "detector.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    design = bench.taught_deck_design(str(taught))
    faces = load_deck(design)
    assert len(faces) == 53 and "BACK" in faces and faces["AC"].shape == (350, 250, 4)
    imgs = bench.frames(2, decks=[design])
    assert len(imgs) == 2 and imgs[0].shape == (720, 1280, 3)


def test_training_crops_are_sharpened_as_well_as_blurred(monkeypatch):
    """The faces come from a photo, softer than the cards at the table: a share of the training crops is
    sharpened (`SHARPEN`), so the crops' edges come out crisper than with blur alone."""
    from vision.enrol import learn

    im = np.full((64, 64, 3), 230, np.uint8)
    cv2.putText(im, "3", (18, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (20, 20, 20), 3)
    batch = np.repeat(cv2.GaussianBlur(im, (0, 0), 1.2)[None], 200, axis=0)

    def crispness(share: float) -> float:
        monkeypatch.setattr(learn, "SHARPEN", share)
        out = learn.augment(batch, np.random.default_rng(3))
        assert out.shape == batch.shape and out.dtype == np.uint8
        return float(np.mean([cv2.Laplacian(cv2.cvtColor(o, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var() for o in out]))

    assert learn.SHARPEN > 0
    assert crispness(0.7) > 1.15 * crispness(0.0)  # measured: 241 against 187


def test_practice_tables_frame_an_index_as_the_localiser_does(deck):
    """The index boxes taken from the suit photos are the localiser's on a photo of 13 small cards, looser than
    its boxes at a table.  `framing_ratio` measures the localiser's framing on rendered tables against the
    deck's boxes: a deck whose boxes are drawn 1.4 times too large measures about 1.4 times smaller, so `teach`
    can box the practice tables' indices as they will be boxed at the table."""
    from vision.detector import Detector
    from vision.enrol.learn import _scaled, framing_ratio
    from vision.synth.decks import load_deck

    src = load_deck(deck)
    loose = {k: (v if k == "BACK" else [_scaled(b, 1.4) for b in v]) for k, v in src.index_boxes.items()}
    register_deck(Deck(f"{deck}-loose", dict(src), loose))
    det = Detector()
    as_drawn = framing_ratio(deck, det, np.random.default_rng(4))
    too_large = framing_ratio(f"{deck}-loose", det, np.random.default_rng(4))
    assert as_drawn is not None and too_large is not None
    assert 0.5 < as_drawn < 2.0
    assert too_large == pytest.approx(as_drawn / 1.4, rel=0.1)


def test_the_threshold_chosen_is_the_best_f1_on_the_practice_tables():
    """`_choose_conf` sweeps the thresholds on the kept-apart practice tables, takes the best F1 (not the best
    F0.5, which prefers the higher threshold that loses a card) and keeps the whole sweep."""
    from types import SimpleNamespace

    from vision.enrol import learn

    def decode(corners, conf, decks):
        return [SimpleNamespace(card=c[0]) for c in corners]

    class Cands:  # scored_candidates: (name, score, box, per-class scores)
        def scored_candidates(self, img):
            return [("2C", 0.95, None, None), ("3C", 0.75, None, None), ("4C", 0.55, None, None),
                    ("5C", 0.35, None, None), ("9S", 0.45, None, None), ("NONE", 0.99, None, None)]

    truth = [(None, [SimpleNamespace(card=c) for c in ("2C", "3C", "4C", "5C")])]
    conf, check = learn._choose_conf(Cands(), truth, decode)
    # 0.3: 4 right and 9S wrong (P 0.8, R 1, F1 0.889); 0.5: 3 right (P 1, R 0.75, F1 0.857, the best F0.5)
    assert set(check["sweep"]) == {"0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9"}
    assert check["sweep"]["0.5"] == {"precision": 1.0, "recall": 0.75, "f1": 0.8571}
    assert conf == 0.3 and check["precision"] == 0.8 and check["recall"] == 1.0 and check["f1"] == 0.8889
