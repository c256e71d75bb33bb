"""Detections -> table snapshot: zones, meld grouping (fans, rows, columns, rotated), the discard pile."""

import math

import pytest

from vision.layout import FrameMapper, Layout
from vision.snapshot import build_snapshot, group_cards, order_discard
from vision.types import CardDetection

W, H = 1280, 720
CH = 120.0  # card height in pixels
CW = CH * 0.7
SQ = lambda x0, y0, x1, y1: [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]  # noqa: E731
LAYOUT = Layout.from_dict({
    "stock": SQ(0.35, 0.38, 0.48, 0.62), "discard": SQ(0.52, 0.38, 0.70, 0.62),
    "players": {"Ana": SQ(0.0, 0.63, 1.0, 1.0), "Ben": SQ(0.0, 0.0, 1.0, 0.37)},
})
MAPPER = FrameMapper(W, H)


def card(name, cx, cy, angle=0.0, part="full", conf=0.95):
    """A detection as the detector reports it: the box of the card's visible corner indices.
    part="full": both corners visible (the whole card); "tl": only the top-left index (covered card)."""
    a = math.radians(angle)
    ux, uy = math.cos(a), math.sin(a)  # card's x axis
    vx, vy = -math.sin(a), math.cos(a)  # card's y axis
    if part == "full":
        pts = [(-CW / 2, -CH / 2), (CW / 2, -CH / 2), (CW / 2, CH / 2), (-CW / 2, CH / 2)]
    else:  # the top-left index: a small patch in the corner
        pts = [(-CW / 2, -CH / 2), (-CW / 2 + 0.22 * CW, -CH / 2), (-CW / 2 + 0.22 * CW, -CH / 2 + 0.3 * CH),
               (-CW / 2, -CH / 2 + 0.3 * CH)]
    xs = [cx + px * ux + py * vx for px, py in pts]
    ys = [cy + px * uy + py * vy for px, py in pts]
    return CardDetection(name, conf, (min(xs), min(ys), max(xs), max(ys)))


def fan(names, x0, y0, angle=0.0, step=0.25):
    """Cards overlapping along the card's x axis (the last one on top, fully visible)."""
    a = math.radians(angle)
    out = []
    for i, n in enumerate(names):
        cx = x0 + i * step * CW * math.cos(a)
        cy = y0 + i * step * CW * math.sin(a)
        out.append(card(n, cx, cy, angle, "full" if i == len(names) - 1 else "tl"))
    return out


def column(names, x0, y0, step=0.3):
    """Cards overlapping downwards (each card shows its top strip)."""
    return [card(n, x0, y0 + i * step * CH, 0, "full" if i == len(names) - 1 else "tl")
            for i, n in enumerate(names)]


def sets(groups):
    return sorted(sorted(g.cards) for g in groups)


def test_fans_in_a_row_are_separate_melds():
    dets = fan(["7H", "8H", "9H"], 200, 560) + fan(["KS", "KD", "KC", "KH"], 520, 560)
    g = group_cards(dets, CH)
    assert sets(g) == [["7H", "8H", "9H"], ["KC", "KD", "KH", "KS"]]
    assert g[0].cards == ("7H", "8H", "9H")  # ordered along the fan


def test_row_of_separate_cards_with_small_gaps():
    # a run laid out as a row of cards that touch or nearly touch; the next meld is a card apart
    dets = [card(n, 150 + i * (CW + 4), 560) for i, n in enumerate(["3C", "4C", "5C"])]
    dets += [card(n, 150 + (3 + 1) * (CW + 4) + i * (CW + 4), 560) for i, n in enumerate(["QD", "QS", "QH"])]
    assert sets(group_cards(dets, CH)) == [["3C", "4C", "5C"], ["QD", "QH", "QS"]]


def test_columns():
    dets = column(["2S", "3S", "4S", "5S"], 300, 460) + column(["9D", "9C", "9S"], 500, 460)
    assert sets(group_cards(dets, CH)) == [["2S", "3S", "4S", "5S"], ["9C", "9D", "9S"]]


@pytest.mark.parametrize("angle", [15, 30, 45, 90, 135, -60])
def test_rotated_fans(angle):
    dets = fan(["JH", "QH", "KH"], 300, 300, angle) + fan(["4D", "4S", "4C"], 800, 300, angle)
    g = group_cards(dets, CH)
    assert sets(g) == [["4C", "4D", "4S"], ["JH", "KH", "QH"]]


def test_zones_and_groups_in_a_snapshot():
    dets = fan(["7H", "8H", "9H"], 200, 580) + fan(["KS", "KD", "KC"], 700, 120)
    dets += [card("5C", 0.61 * W, 0.5 * H), CardDetection("BACK", 0.9, (0.38 * W, 0.42 * H, 0.45 * W, 0.58 * H))]
    dets += [card("2D", 0.9 * W, 0.5 * H)]  # outside every zone
    s = build_snapshot(dets, LAYOUT, MAPPER)
    assert s.discard == ("5C",)
    assert s.player_cards("Ana") == {"7H", "8H", "9H"}
    assert s.player_cards("Ben") == {"KS", "KD", "KC"}
    assert s.backs == {"stock": 1}
    assert s.outside == ("2D",)
    assert s.table_cards() == {"5C", "7H", "8H", "9H", "KS", "KD", "KC"}
    assert not s.is_empty()


def test_discard_spread_orders_to_the_most_visible_top():
    # Rummy 500 spread, right to left: the top card (fully visible) at the left end
    dets = [card("4S", 780, 360, part="tl"), card("9H", 760, 360, part="tl"), card("QC", 740, 360, part="tl"),
            card("2D", 700, 360)]
    assert order_discard(dets, CH) == ("4S", "9H", "QC", "2D")
    squared = [card("8C", 700, 360, part="tl"), card("JD", 702, 361)]
    assert order_discard(squared, CH) == ("8C", "JD")


def test_signature_ignores_order_of_detections():
    a = fan(["7H", "8H", "9H"], 200, 580)
    s1 = build_snapshot(a, LAYOUT, MAPPER)
    s2 = build_snapshot(list(reversed(a)), LAYOUT, MAPPER)
    assert s1.signature() == s2.signature()


def test_a_pile_in_a_row_has_its_top_at_an_end_even_when_a_middle_box_is_larger():
    """A Rummy 500 spread pile whose middle card the camera boxed larger (its index read twice, a misread box):
    the top is still an end card, the larger end one; the order runs along the row (stop 27)."""
    dets = [card("4S", 620, 360, part="tl"), card("9H", 660, 360), card("QC", 700, 360, part="tl"),
            card("2D", 760, 360, part="tl", conf=0.9)]
    dets[3] = CardDetection("2D", 0.9, (dets[3].box[0], 300.0, dets[3].box[2] + 20, 360.0))  # the larger end
    assert order_discard(dets, CH) == ("4S", "9H", "QC", "2D")
    assert order_discard(list(reversed(dets)), CH) == ("4S", "9H", "QC", "2D")
