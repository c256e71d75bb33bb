"""The four enrolment photos of a deck, rendered: one per suit, its 13 cards face up in the order
A 2 … 10 J Q K in reading order (rows left to right, top to bottom), not overlapping, as
`rummy-referee enrol` expects them (shared/contracts/game-log.md, "Teaching the referee a deck").

    python -m vision.synth.suit_photos --deck kde-nicu-white --out runs/enrol/nicu [--seed 0] [--jokers]

writes C.jpg, D.jpg, H.jpg, S.jpg (and jokers.jpg) on a random table surface, with a little rotation,
perspective, uneven light and camera noise, like a phone photo taken from above.  Test and measurement
tooling: the product never imports it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cv2
import numpy as np

from .decks import full_deck
from .scene import Placement, render
from .surfaces import list_surfaces, make_surface

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")


def suit_cards(suit: str) -> list[str]:
    return [f"{r}{suit}" for r in RANKS]


def photo(deck: str, cards: list[str], rng: np.random.Generator, width: int = 1600, height: int = 1000,
          surface: str | None = None, rows: int | None = None, perspective: float = 0.03,
          glare: bool = False) -> np.ndarray:
    """`cards` laid out in reading order in `rows` rows (default: 2 or 3), none overlapping.  No glare spot
    by default: the enrolment screen asks for a photo without one (the finder copes with mild glare)."""
    n = len(cards)
    rows = rows or int(rng.choice([2, 3])) if n > 4 else 1
    per_row = -(-n // rows)
    cell_w, cell_h = width / (per_row + 0.4), height / (rows + 0.3)
    card_h = min(cell_h * 0.75, cell_w * 0.7 / 0.71)  # cards are about 0.71 as wide as tall
    deck = full_deck(deck).name  # every card, also one whose index the label finder misses
    surface = surface or str(rng.choice(list_surfaces()))
    bg = make_surface(surface, width, height, rng)
    placements = []
    for i, card in enumerate(cards):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n - r * per_row)
        x0 = (width - in_row * cell_w) / 2
        cx = x0 + (c + 0.5) * cell_w + rng.uniform(-0.04, 0.04) * cell_w
        cy = (r + 0.65) * cell_h + rng.uniform(-0.04, 0.04) * cell_h
        angle = float(rng.normal(0, 3)) + (180.0 if rng.random() < 0.3 else 0.0)
        placements.append(Placement(card, deck, (cx, cy), angle, card_h * rng.uniform(0.97, 1.03)))
    img, _ = render(placements, bg, rng, hands=0, perspective=perspective, glare=glare)
    return img


def write_photos(deck: str, out: Path, seed: int = 0, jokers: bool = False, **kw) -> dict[str, Path]:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for suit in SUITS:
        p = out / f"{suit}.jpg"
        cv2.imwrite(str(p), photo(deck, suit_cards(suit), rng, **kw), [cv2.IMWRITE_JPEG_QUALITY, 90])
        paths[suit] = p
    if jokers:
        p = out / "jokers.jpg"
        cv2.imwrite(str(p), photo(deck, ["JK_RED", "JK_BLACK"], rng, rows=1, **kw), [cv2.IMWRITE_JPEG_QUALITY, 90])
        paths["jokers"] = p
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deck", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jokers", action="store_true")
    ap.add_argument("--surface", default=None)
    ap.add_argument("--width", type=int, default=1600)
    ap.add_argument("--height", type=int, default=1000)
    a = ap.parse_args(argv)
    paths = write_photos(a.deck, Path(a.out), a.seed, a.jokers, surface=a.surface, width=a.width, height=a.height)
    for k, p in paths.items():
        print(f"{k}: {p}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
