"""From detections to a table snapshot: cards per zone, melds grouped, the discard pile ordered.

Pure functions of one frame's (usually already stabilised) detections; no state, no drawing.

- Cards are assigned to the zone holding the centre of their box (`Layout.zone_of`).
- Cards in a player's zone are grouped into melds by proximity relative to the card size: two cards are in
  the same group when their boxes overlap or the gap between them is under `link_gap` (0.25) card heights. This
  groups fans, overlapping rows, columns and rotated melds alike; whether a group is a set or a run is the
  referee's concern.
- The discard pile is ordered along its spread direction; the top (last) card is the most visible one
  (the largest box: a card lying on top shows both corner indices).
- Face-down cards (``BACK``) carry no identity: they are only counted per zone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.layout import DISCARD, STOCK, FrameMapper, Layout
from vision.types import CardDetection

BACK = "BACK"


@dataclass(frozen=True)
class Group:
    """Cards lying together in a player's zone (a meld, a meld with its lay-offs, or a spread hand)."""

    cards: tuple[str, ...]  # ordered along the group's main axis
    box: tuple[float, float, float, float]  # union of the card boxes, pixels

    @property
    def cardset(self) -> frozenset[str]:
        return frozenset(self.cards)


@dataclass(frozen=True)
class TableSnapshot:
    discard: tuple[str, ...] = ()  # visible discard-pile cards, bottom -> top (top last)
    players: dict[str, tuple[Group, ...]] = field(default_factory=dict)
    confidence: dict[str, float] = field(default_factory=dict)  # card -> certainty of its identity
    backs: dict[str, int] = field(default_factory=dict)  # zone key -> face-down cards seen there
    outside: tuple[str, ...] = ()  # face-up cards in no zone (ignored by the observer)
    # card -> the other names it may carry, best first (the vote's runners-up; the observer tries them when the
    # camera's names make a play the rules refuse)
    alternatives: dict[str, tuple[tuple[str, float], ...]] = field(default_factory=dict)
    # card -> its box in the frame (pixels, the union of its corner indices seen), where known: tells two cards of
    # one name apart by where they lie (the observer's corrected names stay with the card the players corrected)
    boxes: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)

    @property
    def discard_top(self) -> str | None:
        return self.discard[-1] if self.discard else None

    def player_cards(self, name: str) -> frozenset[str]:
        return frozenset(c for g in self.players.get(name, ()) for c in g.cards)

    def zone_cards(self) -> frozenset[str]:
        """Every face-up card in a player's zone."""
        return frozenset(c for groups in self.players.values() for g in groups for c in g.cards)

    def table_cards(self) -> frozenset[str]:
        """Every face-up card in the discard pile or a player's zone."""
        return self.zone_cards() | frozenset(self.discard)

    def is_empty(self) -> bool:
        return not self.discard and not any(self.players.values())

    def signature(self) -> tuple:
        """Hashable content (what the observer looks at), to tell whether the table changed."""
        return (
            self.discard,
            tuple(sorted((n, tuple(sorted(tuple(sorted(g.cards)) for g in gs))) for n, gs in self.players.items())),
        )


@dataclass(frozen=True)
class SnapshotConfig:
    link_gap: float = 0.25  # max gap between two boxes of one group, in card heights
    min_card_px: float = 8.0


def estimate_card_height(dets: Sequence[CardDetection], layout: Layout | None, frame_h: int) -> float:
    """A card's long side in pixels: from the layout's `card_height` when given, else from the boxes."""
    if layout is not None and layout.card_height:
        return layout.card_height * frame_h
    sizes = [max(d.box[2] - d.box[0], d.box[3] - d.box[1]) for d in dets]
    if not sizes:
        return 0.15 * frame_h
    return float(np.percentile(sizes, 90))


def _gap(a, b) -> float:
    """Gap between two axis-aligned boxes (0 when they touch or overlap)."""
    dx = max(0.0, max(a[0], b[0]) - min(a[2], b[2]))
    dy = max(0.0, max(a[1], b[1]) - min(a[3], b[3]))
    return (dx * dx + dy * dy) ** 0.5


def group_cards(dets: Sequence[CardDetection], card_h: float, link_gap: float = 0.25) -> list[Group]:
    """Single-linkage clustering of boxes: overlapping or close (gap < link_gap * card_h) cards join."""
    n = len(dets)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    limit = link_gap * card_h
    for i in range(n):
        for j in range(i + 1, n):
            if _gap(dets[i].box, dets[j].box) <= limit:
                parent[find(i)] = find(j)
    clusters: dict[int, list[CardDetection]] = {}
    for i in range(n):
        clusters.setdefault(find(i), []).append(dets[i])
    groups = [_make_group(members) for members in clusters.values()]
    groups.sort(key=lambda g: (g.box[0] + g.box[2], g.box[1] + g.box[3]))
    return groups


def _principal_order(dets: Sequence[CardDetection]) -> list[int]:
    """Indices of dets ordered along the main axis of their centres (left-to-right / top-to-bottom)."""
    if len(dets) < 2:
        return list(range(len(dets)))
    c = np.array([d.center for d in dets], dtype=np.float64)
    c0 = c - c.mean(axis=0)
    _, _, vt = np.linalg.svd(c0, full_matrices=False)
    axis = vt[0]
    if axis[0] < -1e-9 or (abs(axis[0]) <= 1e-9 and axis[1] < 0):
        axis = -axis
    proj = c0 @ axis
    return list(np.argsort(proj, kind="stable"))


def _make_group(members: Sequence[CardDetection]) -> Group:
    order = _principal_order(members)
    cards = tuple(members[i].card for i in order)
    box = (min(d.box[0] for d in members), min(d.box[1] for d in members),
           max(d.box[2] for d in members), max(d.box[3] for d in members))
    return Group(cards, box)


ROW_SPREAD = 0.4  # card heights: a discard pile whose centres spread wider than this is laid out in a row


def order_discard(dets: Sequence[CardDetection], card_h: float) -> tuple[str, ...]:
    """Discard-pile cards bottom -> top. The top is the most visible card (largest box); the others are
    ordered along the spread direction towards it, or by visible area when the pile is squared."""
    if not dets:
        return ()
    if len(dets) == 1:
        return (dets[0].card,)
    area = [(d.box[2] - d.box[0]) * (d.box[3] - d.box[1]) for d in dets]
    top = int(np.argmax(area))
    c = np.array([d.center for d in dets], dtype=np.float64)
    spread = float(np.ptp(c, axis=0).max())
    if spread < 0.1 * card_h:
        order = sorted(range(len(dets)), key=lambda i: area[i])
    else:
        order = _principal_order(dets)
        if spread >= ROW_SPREAD * card_h and len(dets) >= 3 and top not in (order[0], order[-1]):
            # a pile laid out in a row (Rummy 500's spread pile): the top card lies at one end, whatever the
            # camera read larger in the middle (a misread box); the larger end card is the top
            if area[order[0]] > area[order[-1]]:
                order = order[::-1]
        else:
            if order.index(top) < len(order) / 2:
                order = order[::-1]
            order.remove(top)
            order.append(top)
    return tuple(dets[i].card for i in order)


def build_snapshot(dets: Iterable[CardDetection], layout: Layout, mapper: FrameMapper,
                   config: SnapshotConfig = SnapshotConfig()) -> TableSnapshot:
    """One table snapshot from one frame's detections (pixels) and the zones."""
    dets = [d for d in dets if (d.box[2] - d.box[0]) >= 1 and (d.box[3] - d.box[1]) >= 1]
    card_h = max(config.min_card_px, estimate_card_height(dets, layout, mapper.height))
    by_zone: dict[str, list[CardDetection]] = {}
    backs: dict[str, int] = {}
    outside: list[str] = []
    for d in dets:
        zone = layout.zone_of(mapper.to_rel(*d.center))
        if d.card == BACK:
            if zone is not None:
                backs[zone] = backs.get(zone, 0) + 1
            continue
        if zone is None:
            outside.append(d.card)
            continue
        by_zone.setdefault(zone, []).append(d)
    discard = order_discard(by_zone.get(DISCARD, []), card_h)
    players = {}
    for name in layout.players:
        players[name] = tuple(group_cards(by_zone.get(f"player:{name}", []), card_h, config.link_gap))
    conf = {d.card: float(d.confidence) for d in dets if d.card != BACK}
    for d in by_zone.get(STOCK, []):  # a face-up card on the stock: treat as outside the game zones
        outside.append(d.card)
    alts = {d.card: tuple(d.alternatives) for d in dets if d.card != BACK and d.alternatives}
    boxes = {d.card: tuple(float(v) for v in d.box) for d in dets if d.card != BACK}
    return TableSnapshot(discard=discard, players=players, confidence=conf, backs=backs, outside=tuple(outside),
                         alternatives=alts, boxes=boxes)
