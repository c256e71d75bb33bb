"""Random but plausible Rummy tables: a face-down stock, a discard pile, melds laid in
overlapping rows or fans, loose cards at any angle, and sometimes a fanned hand.

    rng = np.random.default_rng(1)
    placements = random_table(rng, 640, 640, decks=["proc-classic"])
"""

from __future__ import annotations

import math

import numpy as np

from .decks import CARDS, JOKERS, load_deck
from .scene import Placement


def _draw_cards(rng: np.random.Generator, deck_names: list[str], n: int, two_decks: bool) -> list[tuple[str, str]]:
    """n distinct (or, with two decks, possibly repeated) (card key, deck) pairs."""
    out = []
    used: dict[str, int] = {}
    limit = 2 if two_decks else 1
    for _ in range(n * 4):
        if len(out) >= n:
            break
        deck = deck_names[rng.integers(len(deck_names))]
        faces = load_deck(deck)
        pool = [c for c in CARDS + JOKERS if c in faces]
        if rng.random() < 0.04:
            pool = [c for c in JOKERS if c in faces] or pool
        card = pool[rng.integers(len(pool))]
        if used.get(card, 0) >= limit:
            continue
        used[card] = used.get(card, 0) + 1
        out.append((card, deck))
    return out


def random_table(rng: np.random.Generator, width: int, height: int, decks: list[str],
                 card_height: float | None = None) -> list[Placement]:
    """Placements for one table scene (bottom to top)."""
    s = min(width, height)
    ch = card_height or rng.uniform(0.13, 0.36) * s
    aspect = 0.7
    two_decks = rng.random() < 0.4
    back_deck = decks[rng.integers(len(decks))]
    out: list[Placement] = []

    def jitter_h() -> float:
        return ch * rng.uniform(0.96, 1.04)

    def rand_pt(margin: float = 0.0) -> tuple[float, float]:
        return (rng.uniform(-margin, width + margin), rng.uniform(-margin, height + margin))

    base_angle = rng.uniform(0, 360) if rng.random() < 0.3 else rng.normal(0, 10)
    # face-down stock
    if rng.random() < 0.7:
        c = rand_pt()
        a = base_angle + rng.normal(0, 8)
        for _k in range(int(rng.integers(2, 8))):
            out.append(Placement("BACK", back_deck, (c[0] + rng.normal(0, 1.5), c[1] + rng.normal(0, 1.5)),
                                 a + rng.normal(0, 2), jitter_h(), face_up=False))
    n_melds = int(rng.integers(0, 5))
    n_loose = int(rng.integers(0, 6))
    n_discard = int(rng.integers(0, 4))
    fan_hand = rng.random() < 0.25
    total = n_melds * 5 + n_loose + n_discard + (10 if fan_hand else 0)
    cards = _draw_cards(rng, decks, total, two_decks)
    it = iter(cards)

    def take() -> tuple[str, str] | None:
        return next(it, None)

    # discard pile: messy stack, top card fully visible
    if n_discard:
        c = rand_pt()
        for _k in range(n_discard):
            t = take()
            if t:
                out.append(Placement(t[0], t[1], (c[0] + rng.normal(0, ch * 0.08), c[1] + rng.normal(0, ch * 0.08)),
                                     base_angle + rng.normal(0, 25), jitter_h()))
    # melds: rows of overlapping cards, each card shifted so that its left index shows
    for _m in range(n_melds):
        k = int(rng.integers(3, 6))
        start = rand_pt(ch * 0.3)
        a = base_angle + rng.normal(0, 12)
        step = ch * aspect * rng.uniform(0.22, 0.6)
        fan = rng.normal(0, 6) if rng.random() < 0.3 else 0.0
        rad = math.radians(a)
        dx, dy = math.cos(rad) * step, -math.sin(rad) * step
        vertical = rng.random() < 0.2  # cards stacked downwards (top index showing)
        if vertical:
            dx, dy = math.sin(rad) * step * 0.9, math.cos(rad) * step * 0.9
        for j in range(k):
            t = take()
            if t is None:
                break
            out.append(Placement(t[0], t[1], (start[0] + dx * j, start[1] + dy * j), a + fan * j + rng.normal(0, 1.5),
                                 jitter_h()))
    # a hand fanned around a pivot
    if fan_hand:
        pivot = rand_pt()
        a0 = rng.uniform(0, 360)
        spread = rng.uniform(6, 14)
        k = int(rng.integers(4, 10))
        for j in range(k):
            t = take()
            if t is None:
                break
            ang = a0 + (j - k / 2) * spread
            r = math.radians(ang)
            cx = pivot[0] - math.sin(r) * ch * 0.35
            cy = pivot[1] - math.cos(r) * ch * 0.35
            out.append(Placement(t[0], t[1], (cx, cy), ang, jitter_h()))
    # loose cards anywhere
    for _k in range(n_loose):
        t = take()
        if t:
            out.append(Placement(t[0], t[1], rand_pt(ch * 0.2), rng.uniform(0, 360), jitter_h()))
    return out
