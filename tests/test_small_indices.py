"""Pictures of cards printed on a card (a back showing four aces) are not cards (issue 11, round eight): an
index far smaller than the frame's other indices is dropped in decoding; a frame with too few indices to tell
keeps everything, and backs (boxed whole) are never dropped."""

from __future__ import annotations

import numpy as np

from vision.detector import SMALL_RATIO, decode_cards, typical_index_size, without_small_indices
from vision.types import CORNER_CLASSES

IDX = {n: i for i, n in enumerate(CORNER_CLASSES)}


def corner(name: str, p: float, box):
    v = np.zeros(len(CORNER_CLASSES), np.float32)
    v[IDX[name]] = p
    return (name, p, box, v)


def idx(x: float, y: float, h: float = 30.0):
    return (x, y, x + h * 0.6, y + h)


TABLE = [corner("7H", 0.9, idx(10, 10)), corner("8C", 0.9, idx(200, 10)), corner("QD", 0.9, idx(400, 10)),
         corner("3S", 0.9, idx(600, 10, 28))]


def test_aces_on_a_cards_back_are_not_cards():
    back = corner("BACK", 0.9, (800, 300, 900, 440))
    aces = [corner(a, 0.95, idx(810 + 20 * i, 320, 9)) for i, a in enumerate(("AS", "AH", "AD", "AC"))]
    cards = decode_cards(TABLE + [back] + aces, conf=0.5, decks=1)
    assert sorted(c.card for c in cards) == ["3S", "7H", "8C", "BACK", "QD"]


def test_a_frame_with_too_few_indices_keeps_them_all():
    few = [corner("7H", 0.9, idx(10, 10)), corner("AS", 0.9, idx(300, 10, 8))]
    assert typical_index_size(few) is None
    assert sorted(c.card for c in decode_cards(few, conf=0.5, decks=1)) == ["7H", "AS"]


def test_the_limit_is_a_share_of_the_typical_index():
    typical = typical_index_size(TABLE)
    assert 28 <= typical <= 30
    just_in = corner("5D", 0.9, idx(0, 300, SMALL_RATIO * typical + 0.5))
    just_out = corner("6D", 0.9, idx(100, 300, SMALL_RATIO * typical - 0.5))
    kept = [c[0] for c in without_small_indices(TABLE + [just_in, just_out], typical)]
    assert "5D" in kept and "6D" not in kept
    assert len(without_small_indices(TABLE + [just_out], ratio=0)) == 5


def test_stills_drop_small_indices_and_the_table_pipeline_does_not():
    """`detect` (stills) drops them; the table pipeline turns it off: its stock zone sets a back's pictures aside,
    and on a spread discard pile an index half covered by the next card is small but real."""
    from referee import Match
    from vision.detector import Detector
    from vision.layout import Layout
    from vision.pipeline import TableTracker
    from vision.synth.recording import layout_dict

    assert Detector().small_ratio == SMALL_RATIO > 0
    match = Match({"type": "match", "rules": "rummy500", "players": ["Ana", "Ben"]})
    layout = Layout.from_dict(layout_dict(["Ana", "Ben"], 0.15, False))
    for answered in (True, False):
        assert TableTracker(layout, match, "Ana", Detector(), auto_confirm=not answered).detector.small_ratio == 0
    covered = corner("QH", 0.9, (300, 300, 316, 310))  # the bottom half of a pile card's index hidden
    assert [c.card for c in decode_cards(TABLE + [covered], 0.5, 1, small_ratio=0)].count("QH") == 1
    assert "QH" not in [c.card for c in decode_cards(TABLE + [covered], 0.5, 1)]
