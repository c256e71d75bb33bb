"""The one-deck rule in decoding (issue 10): the same card cannot be in two places of a one-deck frame."""

from __future__ import annotations

import numpy as np

from vision.detector import decode_cards
from vision.types import CORNER_CLASSES

IDX = {n: i for i, n in enumerate(CORNER_CLASSES)}


def corner(name_scores: dict, box):
    v = np.zeros(len(CORNER_CLASSES), np.float32)
    for n, s in name_scores.items():
        v[IDX[n]] = s
    top = max(name_scores, key=name_scores.get)
    return (top, float(name_scores[top]), box, v)


def test_two_reads_of_one_card_take_the_second_choice():
    far_apart = [
        corner({"7H": 0.9}, (10, 10, 30, 40)),
        corner({"7H": 0.8}, (60, 90, 80, 120)),  # the same card's other corner
        corner({"7H": 0.7, "7D": 0.6}, (400, 10, 420, 40)),  # really the 7D, misread
    ]
    cards = decode_cards(far_apart, conf=0.5, decks=1)
    assert sorted(c.card for c in cards) == ["7D", "7H"]
    seven_d = next(c for c in cards if c.card == "7D")
    assert seven_d.box[0] == 400 and abs(seven_d.confidence - 0.6) < 1e-6


def test_a_duplicate_with_no_other_name_is_dropped_not_reported_twice():
    cards = decode_cards([corner({"QS": 0.9}, (10, 10, 30, 40)), corner({"QS": 0.6, "QC": 0.2}, (500, 300, 520, 330))],
                         conf=0.5, decks=1)
    assert [c.card for c in cards] == ["QS"] and cards[0].box[0] == 10


def test_the_more_likely_assignment_wins_over_the_first_read():
    # card A reads 5C 0.9 / 5S 0.85; card B reads 5C 0.88 / 5S 0.1: A is the 5S
    cards = decode_cards([corner({"5C": 0.9, "5S": 0.85}, (10, 10, 30, 40)),
                          corner({"5C": 0.88, "5S": 0.1}, (500, 300, 520, 330))], conf=0.5, decks=1)
    by_x = {c.box[0]: c.card for c in cards}
    assert by_x == {10: "5S", 500: "5C"}


def test_two_decks_allow_two_copies_and_jokers_and_backs_are_free():
    cs = [corner({"9D": 0.9}, (10, 10, 30, 40)), corner({"9D": 0.9}, (500, 300, 520, 330)),
          corner({"RED JOKER": 0.9}, (200, 10, 220, 40)), corner({"BLACK JOKER": 0.9}, (700, 10, 720, 40))]
    assert sorted(c.card for c in decode_cards(cs, 0.5, decks=2)) == ["9D", "9D", "JK", "JK"]
    assert sorted(c.card for c in decode_cards(cs, 0.5, decks=1)) == ["9D", "JK", "JK"]
    assert sorted(c.card for c in decode_cards(cs, 0.5, decks=None)) == ["9D", "9D", "JK", "JK"]
