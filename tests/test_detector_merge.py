"""Corner merging: corner-index detections → one CardDetection per physical card."""

from __future__ import annotations

from vision.detector import canonical_card, merge_corners


def corner(name, x, y, size=20.0, conf=0.9):
    return (name, conf, (x, y, x + size * 0.7, y + size))


def test_two_corners_of_one_card_are_one_card():
    # a card ~100 px tall: top-left index at (10, 10), bottom-right at (70, 80)
    cards = merge_corners([corner("10H", 10, 10, conf=0.8), corner("10H", 70, 80, conf=0.6)])
    assert len(cards) == 1
    c = cards[0]
    assert c.card == "10H"
    assert c.confidence == 0.8
    assert len(c.corners) == 2
    assert c.box == (10.0, 10.0, 70 + 14.0, 80 + 20.0)  # union of the corner boxes


def test_far_apart_identical_corners_are_two_cards():
    # two decks: two 7S lying far apart (more than PAIR_RATIO corner sizes)
    cards = merge_corners([corner("7S", 10, 10), corner("7S", 500, 400)])
    assert [c.card for c in cards] == ["7S", "7S"]
    assert all(len(c.corners) == 1 for c in cards)


def test_same_corner_detected_twice_counts_once():
    cards = merge_corners([corner("QD", 100, 100, conf=0.9), corner("QD", 103, 101, conf=0.5)])
    assert len(cards) == 1
    assert cards[0].confidence == 0.9
    assert len(cards[0].corners) == 1


def test_different_cards_never_merge():
    cards = merge_corners([corner("AS", 10, 10), corner("AH", 60, 70)])
    assert sorted(c.card for c in cards) == ["AH", "AS"]


def test_two_identical_cards_pair_with_their_own_corners():
    # two 5C cards side by side (two decks), each showing both corners
    a1, a2 = corner("5C", 0, 0), corner("5C", 60, 75)
    b1, b2 = corner("5C", 400, 0), corner("5C", 460, 75)
    cards = merge_corners([a1, b2, b1, a2])
    assert len(cards) == 2
    boxes = sorted(c.box for c in cards)
    assert boxes[0][0] == 0 and boxes[0][2] < 100
    assert boxes[1][0] == 400


def test_three_corners_make_a_pair_and_a_single():
    cards = merge_corners([corner("9D", 0, 0), corner("9D", 60, 75), corner("9D", 600, 600)])
    assert sorted(len(c.corners) for c in cards) == [1, 2]


def test_jokers_and_backs():
    cards = merge_corners([corner("RED JOKER", 0, 0), corner("BLACK JOKER", 300, 300),
                           ("BACK", 0.7, (500.0, 10.0, 570.0, 110.0)), ("BACK", 0.6, (505.0, 12.0, 575.0, 112.0))])
    names = sorted(c.card for c in cards)
    assert names == ["BACK", "BACK", "JK", "JK"]  # backs are whole cards, never paired


def test_canonical_card_names():
    assert canonical_card("RED JOKER") == "JK"
    assert canonical_card("BLACK JOKER") == "JK"
    assert canonical_card("10h") == "10H"
    assert canonical_card("BACK") == "BACK"


def test_to_json_matches_the_contract():
    (c,) = merge_corners([corner("KS", 10.4, 20.6)])
    j = c.to_json()
    assert set(j) == {"card", "confidence", "box"}
    assert j["card"] == "KS" and all(isinstance(v, int) for v in j["box"])


def test_back_around_a_face_up_corner_is_not_a_back():
    cards = merge_corners([("BACK", 0.9, (100.0, 100.0, 200.0, 240.0)), corner("4S", 110, 110),
                           ("BACK", 0.8, (400.0, 100.0, 500.0, 240.0))])
    assert sorted(c.card for c in cards) == ["4S", "BACK"]
    assert [c.box for c in cards if c.card == "BACK"] == [(400.0, 100.0, 500.0, 240.0)]


def test_noisy_or_pairs_two_readings_of_one_card():
    pair = [corner("10H", 10, 10, conf=0.6), corner("10H", 70, 80, conf=0.5)]
    (card,) = merge_corners(pair, combine="noisy_or")
    assert abs(card.confidence - 0.8) < 1e-9  # 1 - 0.4 * 0.5
    (single,) = merge_corners([corner("10H", 10, 10, conf=0.6)], combine="noisy_or")
    assert single.confidence == 0.6  # one corner: no second opinion


def tall(name, x, y, conf=0.9):
    """An upright card's index box as a table camera sees it: twice as tall as wide."""
    return (name, conf, (x, y, x + 20.0, y + 48.0))


def test_two_tall_indices_side_by_side_are_two_cards():
    # a fanned club run at a table's scale: the 3C's index read 9C (0.33) five cards before the real 9C, on the
    # same row; one upright card's two indices lie a card's height apart, so these are two cards (the one-deck
    # rule then chooses between them), not one 9C spanning the fan
    cards = merge_corners([tall("9C", 54, 442, 0.33), tall("9C", 178, 447, 0.48)])
    assert len(cards) == 2 and all(len(c.corners) == 1 for c in cards)


def test_an_upright_cards_two_indices_still_pair():
    # the same card's top-left index and its bottom-right one, a card's height lower and a card's width along
    cards = merge_corners([tall("9C", 100, 100), tall("9C", 160, 190)])
    assert len(cards) == 1 and len(cards[0].corners) == 2


def test_a_sideways_cards_indices_pair_along_it_and_not_across():
    def wide(name, x, y):
        return (name, 0.9, (x, y, x + 48.0, y + 20.0))

    assert len(merge_corners([wide("4D", 100, 100), wide("4D", 190, 160)])) == 1  # one card lying sideways
    assert len(merge_corners([wide("4D", 100, 100), wide("4D", 110, 200)])) == 2  # two in a column
