"""The synthetic renderer's API (used for training data and demo recordings)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.synth.decks import CARDS, list_decks, load_deck
from vision.synth.layouts import random_table
from vision.synth.scene import Placement, render
from vision.synth.surfaces import list_surfaces, make_surface


def test_procedural_decks_are_complete():
    names = list_decks(include_svg=False)
    assert {"proc-classic", "proc-duplex", "proc-jumbo", "proc-complex"} <= set(names)
    deck = load_deck("proc-classic")
    assert set(CARDS) <= set(deck) and {"JK_RED", "JK_BLACK", "BACK"} <= set(deck)
    img = deck["10H"]
    assert img.dtype == np.uint8 and img.shape[2] == 4
    boxes = deck.index_boxes["10H"]
    assert len(boxes) == 2
    (x1, y1, x2, y2), (bx1, by1, _, _) = boxes
    assert x2 < img.shape[1] * 0.3 and y2 < img.shape[0] * 0.35  # top-left corner index
    assert bx1 > img.shape[1] * 0.6 and by1 > img.shape[0] * 0.6  # bottom-right one


def test_surfaces():
    rng = np.random.default_rng(0)
    for name in list_surfaces():
        s = make_surface(name, 64, 48, rng)
        assert s.shape == (48, 64, 3) and s.dtype == np.uint8


def test_render_labels_visible_corners_only():
    rng = np.random.default_rng(0)
    table = make_surface("felt", 400, 300, rng)
    placements = [
        Placement("10H", "proc-classic", (120, 150), 0, 150),
        # covers the bottom-right corner of the 10H
        Placement("4C", "proc-classic", (190, 200), 0, 150),
        Placement("JK", "proc-duplex", (330, 80), 90, 100),
        Placement("AS", "proc-classic", (330, 230), 10, 100, face_up=False),
    ]
    img, labels = render(placements, table, rng, effects=False)
    assert img.shape == (300, 400, 3)
    got = sorted(lab.card for lab in labels)
    assert got == ["10H", "4C", "4C", "BACK", "JK", "JK"]
    assert {lab.class_name for lab in labels if lab.card == "JK"} == {"RED JOKER"}
    ten = [lab for lab in labels if lab.card == "10H"][0]
    assert ten.box[0] < 80 and ten.box[1] < 110  # the visible (top-left) index


def test_random_table_renders():
    rng = np.random.default_rng(3)
    placements = random_table(rng, 320, 320, ["proc-classic", "proc-jumbo"])
    img, labels = render(placements, make_surface("wood", 320, 320, rng), rng, hands=1, perspective=0.05)
    assert img.shape == (320, 320, 3)
    for lab in labels:
        x1, y1, x2, y2 = lab.box
        assert 0 <= x1 < x2 <= 320 and 0 <= y1 < y2 <= 320


def test_camera_faults_squash_the_frame_and_its_labels_together():
    from vision.synth.dataset import render_scene

    decks, surfaces = ["proc-classic", "proc-duplex"], ["felt", "plain"]
    beyond = 0
    for seed in range(12):
        img, labels, info = render_scene(np.random.default_rng(seed), 256, decks, surfaces, faults=1.0)
        assert img.shape == (256, 256, 3)
        assert 0.55 <= info["squash"] <= 0.9
        for lab in labels:
            x1, y1, x2, y2 = lab.box
            # the scene is rendered wider (or taller) than 256 and shrunk: unscaled labels would overflow
            assert -1 <= x1 < x2 <= 257 and -1 <= y1 < y2 <= 257
            beyond += max(x2, y2) / info["squash"] > 260
    assert beyond > 0  # some indices did lie beyond the 256 px frame before the squash
    assert render_scene(np.random.default_rng(0), 256, decks, surfaces)[2]["squash"] == 1.0


def test_faults_off_keeps_the_original_random_stream():
    from vision.synth.dataset import render_scene

    a, la, _ = render_scene(np.random.default_rng(4), 192, ["proc-classic"], ["plain"])
    b, lb, _ = render_scene(np.random.default_rng(4), 192, ["proc-classic"], ["plain"], faults=0.0)
    assert np.array_equal(a, b) and la == lb


def test_a_rendered_card_reaches_the_cache_whole_or_not_at_all(tmp_path, monkeypatch):
    """Two processes rendering one Debian deck at once (two evaluations) read each other's cache: a card is
    rendered beside its cache file and moved into place, and a failed render leaves nothing behind (before, the
    other process could read a half-written PNG and lose the card: "deck 'kde-nicu-white' has no card 'BACK'")."""
    import subprocess

    from vision.synth import decks

    seen = []

    def fake_run(cmd, **_kw):
        out = Path(cmd[cmd.index("-o") + 1])
        seen.append(out)
        if "good" in cmd:
            out.write_bytes(b"png")
        else:
            out.write_bytes(b"half")  # written, then the renderer fails
        return subprocess.CompletedProcess(cmd, 0 if "good" in cmd else 1)

    monkeypatch.setattr(decks.subprocess, "run", fake_run)
    target = tmp_path / "AS.png"
    assert not decks._render_svg_card(tmp_path / "deck.svg", "bad", 350, target)
    assert not target.exists() and list(tmp_path.iterdir()) == []
    assert decks._render_svg_card(tmp_path / "deck.svg", "good", 350, target)
    assert target.read_bytes() == b"png" and all(p != target for p in seen)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["AS.png"]


def _font_decks() -> list[str]:
    return [n for n in list_decks(include_svg=False, include_fonts=True) if n.startswith("font-")]


def test_font_decks_are_asked_for_and_complete():
    import pytest

    from vision.synth.decks import FONT_DESIGNS

    assert not any(n.startswith("font-") for n in list_decks(include_svg=False))  # earlier datasets drawn as they were
    names = _font_decks()
    if not names:
        pytest.skip("no DejaVu or Liberation font on this machine")
    assert set(names) <= set(FONT_DESIGNS)
    deck = load_deck(names[0])
    assert set(CARDS) <= set(deck) and {"JK_RED", "JK_BLACK", "BACK"} <= set(deck)
    for card in ("10H", "QS", "4C"):
        img, ((x1, y1, x2, y2), (bx1, by1, _, _)) = deck[card], deck.index_boxes[card]
        assert x2 < img.shape[1] * 0.3 and y2 < img.shape[0] * 0.35
        assert bx1 > img.shape[1] * 0.6 and by1 > img.shape[0] * 0.6
        # the index box holds ink of the card's colour, the paper beside it none
        inside = img[int(y1):int(y2), int(x1):int(x2), :3].astype(int)
        paper = np.array(img[img.shape[0] // 2, 3, :3], int)
        assert (np.abs(inside - paper).sum(axis=2) > 120).mean() > 0.1


def test_each_round_s_font_decks_are_their_own_and_drawn_where_their_fonts_are():
    """Round eighteen's twelve font decks stay what its script draws (round twenty's are added beside them), and
    every design whose font files this machine has draws a whole deck, each index inked; a missing font names the
    packages to install."""
    import pytest

    from vision.synth.decks import FONT_DESIGNS, FONT_DESIGNS_R18, FONT_DESIGNS_R20, FONT_PACKAGES, font_file

    assert len(FONT_DESIGNS_R18) == 12 and len(FONT_DESIGNS_R20) == 12
    assert not set(FONT_DESIGNS_R18) & set(FONT_DESIGNS_R20)
    assert set(FONT_DESIGNS) == set(FONT_DESIGNS_R18) | set(FONT_DESIGNS_R20)
    assert "fonts-urw-base35" in FONT_PACKAGES
    here = [n for n in FONT_DESIGNS_R20 if all(font_file(FONT_DESIGNS[n][k]) for k in ("ttf", "suit_ttf")
                                                  if k in FONT_DESIGNS[n])]
    assert here == [n for n in _font_decks() if n in FONT_DESIGNS_R20]
    if not here:
        pytest.skip("no URW or FreeFont font on this machine")
    deck = load_deck(here[0])
    for card in ("AS", "JH", "10C"):
        (x1, y1, x2, y2), img = deck.index_boxes[card][0], deck[card]
        inside = img[int(y1):int(y2), int(x1):int(x2), :3].astype(int)
        paper = np.array(img[img.shape[0] // 2, 3, :3], int)
        assert (np.abs(inside - paper).sum(axis=2) > 120).mean() > 0.1


def test_font_text_fills_the_height_it_is_given():
    import pytest

    from vision.synth.decks import font_file
    from vision.synth.glyphs import draw_suit_ttf, draw_text_ttf

    path = font_file("DejaVuSans.ttf")
    if path is None:
        pytest.skip("no DejaVu font on this machine")
    img = np.full((120, 200, 3), 255, np.uint8)
    x1, y1, x2, y2 = draw_text_ttf(img, "10", 20, 30, 40, (0, 0, 0), path)
    assert (y1, y2) == (30, 70) and 20 < x2 - x1 < 70
    ink = np.nonzero(img[:, :, 0] < 128)
    assert ink[0].min() >= 29 and ink[0].max() <= 70 and ink[1].min() >= 19 and ink[1].max() <= x2 + 1
    before = img.copy()
    draw_suit_ttf(img, "C", 150, 60, 30, (0, 0, 200), path, upside_down=True)
    changed = np.nonzero((img != before).any(axis=2))
    assert 44 <= changed[0].min() and changed[0].max() <= 76
    assert img[60, 150, 2] > 150 and img[60, 150, 0] < 100  # red ink (BGR) at the symbol's middle
