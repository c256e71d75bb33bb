"""One corner index, one name (issue 12, Rummy 500 hand 0): two localiser boxes on one index that the classifier
names differently are one card, and a box straddling two indices is no card."""

from __future__ import annotations

from tests.test_one_deck import corner  # (name: score, ...), box -> a corner with per-class scores
from vision.detector import decode_cards, one_name_per_index

# the 7C of a fanned set 7C 7D 7H (boxes and scores as the taught deck read them): a tight box read 7S, a wider
# one over the same index read 7C, and the 7D's own index beside them
TIGHT_7S = corner({"7S": 0.51, "7C": 0.33}, (276, 451, 302, 498))
WIDE_7C = corner({"7C": 0.57, "7S": 0.25, "7D": 0.08}, (279, 448, 320, 500))
SEVEN_D = corner({"7D": 0.70, "7H": 0.10}, (300, 446, 328, 498))


def test_two_looks_at_one_index_are_one_card_named_by_both():
    out = one_name_per_index([TIGHT_7S, WIDE_7C, SEVEN_D])
    assert sorted(c[0] for c in out) == ["7C", "7D"]
    seven_c = next(c for c in out if c[0] == "7C")
    assert seven_c[2] == TIGHT_7S[2]  # the tighter box
    assert abs(seven_c[1] - (0.57 + 0.33) / 2) < 1e-6  # the mean of both looks
    cards = decode_cards([TIGHT_7S, WIDE_7C, SEVEN_D], conf=0.2, decks=1)
    assert sorted(c.card for c in cards) == ["7C", "7D"]


def test_without_the_merge_the_wide_box_would_be_dropped_as_straddling():
    # the order matters: the wide 7C also covers most of the 7S box and the 7D; merged first, it is kept
    out = one_name_per_index([SEVEN_D, WIDE_7C, TIGHT_7S])
    assert sorted(c[0] for c in out) == ["7C", "7D"]


def test_a_box_between_two_indices_is_dropped():
    qd = corner({"QD": 0.96}, (136, 226, 163, 274))
    qc = corner({"QC": 0.87, "QS": 0.09}, (160, 225, 185, 273))
    straddler = corner({"QS": 0.81, "QD": 0.06}, (146, 225, 178, 275))
    assert sorted(c[0] for c in one_name_per_index([qd, straddler, qc])) == ["QC", "QD"]
    # read more surely than both it covers, it stays (the two beside it may be the misread ones)
    sure = corner({"QS": 0.99}, (146, 225, 178, 275))
    assert sorted(c[0] for c in one_name_per_index([qd, sure, qc])) == ["QC", "QD", "QS"]


def test_wide_boxes_of_a_tight_run_that_do_not_name_each_other_are_all_cards():
    # 3D 4D 5D 6D 7D fanned (classic hand 3, the taught deck's boxes): the 4D's wide box shares 82 % of the 3D's,
    # and the 5D's and 7D's boxes together cover 81 % of the 6D's; every one is a card
    run = [corner({"3D": 0.62, "9D": 0.21}, (72, 447, 106, 492)), corner({"4D": 0.65, "AD": 0.08, "3D": 0.07}, (78, 442, 120, 496)),
           corner({"5D": 0.56, "6D": 0.12}, (119, 442, 146, 494)), corner({"6D": 0.78, "6H": 0.07}, (134, 442, 168, 495)),
           corner({"7D": 0.94}, (151, 446, 180, 500))]
    assert sorted(c[0] for c in one_name_per_index(run)) == ["3D", "4D", "5D", "6D", "7D"]


def test_cards_side_by_side_are_left_alone():
    row = [corner({"5H": 0.9, "6H": 0.2}, (10, 10, 30, 50)), corner({"6H": 0.9, "5H": 0.2}, (32, 10, 52, 50)),
           corner({"7H": 0.6}, (54, 10, 74, 50))]
    assert one_name_per_index(row) == row
    same = [corner({"9C": 0.9}, (10, 10, 30, 50)), corner({"9C": 0.8}, (12, 11, 31, 50))]
    assert one_name_per_index(same) == same  # one name twice: `merge_corners` keeps the better


def test_a_card_between_its_two_neighbours_is_kept():
    # K C D H fanned (Rummy 500 hand 2): the KC read KS and the KH in wide boxes cover 87 % of the KD's box, but they
    # lie two steps apart: the KD's own index is between them
    ks = corner({"KS": 0.92, "KC": 0.05}, (33, 447, 67, 492))
    kd = corner({"KD": 0.66, "KH": 0.13}, (55, 446, 85, 493))
    kh = corner({"KH": 0.90}, (71, 446, 98, 494))
    assert sorted(c[0] for c in one_name_per_index([ks, kd, kh])) == ["KD", "KH", "KS"]
