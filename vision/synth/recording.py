"""Recordings of scripted hands: the table geometry, the frames (rendered with vision/synth/scene.py) and
the recording folder `track` reads (frames/*.jpg, layout.json, match.json, expected.jsonl, truth.jsonl).

    python -m vision.synth.recording --out DIR --seed N [--deck NAME] [--surface felt]

Test and evaluation tooling: nothing the live pipeline loads imports it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from referee.cards import ALL_CARDS as DECK
from referee.cards import rank_of
from vision.geometry import union
from vision.synth.scripted_hands import Script, Table, script_hand

STOCK_BOX = (0.37, 0.40, 0.47, 0.60)
DISCARD_BOX = (0.51, 0.40, 0.66, 0.60)


def zone_boxes(players: list[str]) -> dict[str, tuple[float, float, float, float]]:
    """Player zones (relative x1, y1, x2, y2): the first player at the bottom, the others along the top."""
    out = {players[0]: (0.02, 0.61, 0.98, 0.99)}
    others = players[1:]
    w = 0.96 / len(others)
    for i, p in enumerate(others):
        out[p] = (0.02 + i * w, 0.01, 0.02 + (i + 1) * w - 0.01, 0.39)
    return out


SPREAD_DISCARD_BOX = (0.51, 0.40, 0.97, 0.60)  # a pile spread in a row (Rummy 500: every card may be taken)


def spreads_pile(match: dict) -> bool:
    """Whether the table lays the discard pile out spread (R500-2: deep pickups), not squared."""
    return match.get("rules") == "rummy500"


def layout_dict(players: list[str], card_height: float, spread: bool = False) -> dict:
    def sq(b):
        x1, y1, x2, y2 = b
        return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]

    return {"stock": sq(STOCK_BOX), "discard": sq(SPREAD_DISCARD_BOX if spread else DISCARD_BOX),
            "players": {p: sq(b) for p, b in zone_boxes(players).items()}, "card_height": card_height}


def _h(*parts) -> float:
    """A deterministic pseudo-random number in [0, 1) from the parts (jitter that stays put)."""
    import zlib

    return (zlib.crc32("|".join(map(str, parts)).encode()) % 100003) / 100003.0


def _room(cards: list[str]) -> tuple[int, int]:
    """Cards a meld may still take below and above (at most 4 each way): runs grow at both ends, sets up to 4."""
    if len(cards) < 3 or len({c[:-1] for c in cards}) == 1:
        return 0, max(0, 4 - len(cards)) if len(cards) >= 3 else 0
    ranks = sorted(rank_of(c) for c in cards)
    return min(4, ranks[0] - 1), min(4, 13 - ranks[-1])


@dataclass
class Geometry:
    width: int
    height: int
    players: list[str]
    card_height: float = 0.15  # relative to the frame height
    step: float = 0.27  # fan overlap: offset between cards, in card widths
    spread: bool = False  # the discard pile laid out in a row (Rummy 500), else squared
    anchors: dict = field(default_factory=dict)  # meld id / reveal key -> (zone, x, y, angle, lo, hi)
    fallback: set = field(default_factory=set)  # cards the deck design lacks (drawn with proc-classic)

    @property
    def ch(self) -> float:
        return self.card_height * self.height

    @property
    def cw(self) -> float:
        return self.ch * 0.714

    def _place_new(self, zone: str, cards: list[str], key) -> tuple[str, float, float, float]:
        """Anchor (centre of the group's first card, row y, angle) for a new group, beside the groups already
        in the zone, with room for the cards it may still take at each end. Players across the table (the top zones) see
        their cards upright, so for the camera those lie upside down and fan out leftwards."""
        x1, y1, x2, y2 = zone_boxes(self.players)[zone]
        X1, Y1, X2, Y2 = x1 * self.width, y1 * self.height, x2 * self.width, y2 * self.height
        cw, st = self.cw, self.step * self.cw
        rows = [Y1 + 0.55 * self.ch, Y1 + 2.0 * self.ch]  # two rows, 0.45 card heights apart
        top = zone != self.players[0]
        if top:
            rows = [Y2 - (r - Y1) for r in rows]
        low, high = _room(cards)
        need = cw + (len(cards) - 1 + low + high) * st
        gap = 0.6 * cw
        angle = (180.0 if top else 0.0) + (_h(key, "a") - 0.5) * 14
        for row in rows:
            used = [a for a in self.anchors.values() if a[0] == zone and abs(a[2] - row) < 1]
            if not top:
                lo = max((a[5] for a in used), default=X1 + 0.1 * cw - gap) + gap
                hi = lo + need
                x = lo + cw / 2 + low * st
            else:
                hi = min((a[4] for a in used), default=X2 - 0.1 * cw + gap) - gap
                lo = hi - need
                x = hi - cw / 2 - low * st
            if (lo >= X1 and hi <= X2) or row == rows[-1]:
                self.anchors[key] = (zone, x, row, angle, lo, hi)
                return self.anchors[key][:4]
        raise AssertionError("unreachable")

    def anchor(self, zone: str, cards: list[str], key):
        if key not in self.anchors:
            self._place_new(zone, cards, key)
        return self.anchors[key][:4]

    def placements(self, table: Table, deck: str, stock_cards: int = 5, empty: bool = False) -> list:
        from vision.synth.decks import load_deck
        from vision.synth.scene import Placement

        faces = load_deck(deck)
        self.fallback = {c for c in DECK if c not in faces}

        ch, cw = self.ch, self.cw
        out = []
        if empty:
            return out
        sx = (STOCK_BOX[0] + STOCK_BOX[2]) / 2 * self.width
        sy = (STOCK_BOX[1] + STOCK_BOX[3]) / 2 * self.height
        for i in range(stock_cards):
            out.append(Placement("AS", deck, (sx + i * 0.8, sy - i * 0.8), 90 + (_h("s", i) - 0.5) * 6, ch, False))
        dx = (DISCARD_BOX[0] + DISCARD_BOX[2]) / 2 * self.width
        dy = (DISCARD_BOX[1] + DISCARD_BOX[3]) / 2 * self.height
        if self.spread:  # a row from the left, each card's index showing, the top card last and whole
            x0 = SPREAD_DISCARD_BOX[0] * self.width + 0.6 * cw
            room = (SPREAD_DISCARD_BOX[2] - SPREAD_DISCARD_BOX[0]) * self.width - 1.2 * cw
            step = min(0.3 * cw, room / max(1, len(table.pile) - 1))
            for k, c in enumerate(table.pile):
                out.append(Placement(c, self._deck(c, deck), (x0 + k * step, dy + (_h(c, "y") - 0.5) * 0.06 * ch),
                                     (_h(c, "r") - 0.5) * 6, ch))
        for c in ([] if self.spread else table.pile):  # a squared pile, a little messy
            out.append(Placement(c, self._deck(c, deck), (dx + (_h(c, "x") - 0.5) * 0.12 * cw,
                                                          dy + (_h(c, "y") - 0.5) * 0.12 * ch),
                                 (_h(c, "r") - 0.5) * 16, ch))
        for m in table.melds:
            zone, x, y, angle = self.anchor(m["zone"], m["cards"], ("meld", m["id"]))
            out += self._fan(m["cards"], m.get("base", 0), x, y, angle, deck, self.step, zone)
        for p, cards in table.reveals.items():
            zone, x, y, angle = self.anchor(p, cards, ("reveal", p))
            out += self._fan(cards, 0, x, y, angle, deck, 0.42, zone)
        return out

    def _deck(self, card: str, deck: str) -> str:
        return "proc-classic" if card in self.fallback else deck

    def _fan(self, cards, base, x, y, angle, deck, step, zone):
        """Cards overlapping along the card's x axis, later ones on top; a fan that outgrew its room is pushed
        back inside its zone (players shift a meld that gets long)."""
        from vision.synth.scene import Placement

        a = math.radians(angle)
        ux, uy = math.cos(a), -math.sin(a)  # the renderer turns counter-clockwise
        offs = [(base + k) * step * self.cw for k in range(len(cards))]
        xs = [x + o * ux for o in offs]
        x1, _, x2, _ = zone_boxes(self.players)[zone]
        lo, hi = x1 * self.width + 0.55 * self.cw, x2 * self.width - 0.55 * self.cw
        shift = max(0.0, lo - min(xs)) - max(0.0, max(xs) - hi)
        out = []
        for c, o in zip(cards, offs, strict=True):
            out.append(Placement(c, self._deck(c, deck), (x + shift + o * ux, y + o * uy), angle, self.ch))
        return out


@dataclass
class RecordingSpec:
    width: int = 1280
    height: int = 720
    fps: float = 5.0
    deck: str = "proc-classic"
    surface: str = "felt"
    card_height: float = 0.15
    hold: int = 6  # frames a table state stays still after a move
    hand_frames: int = 2  # frames with the player's hand over the table around a move
    hand_prob: float = 0.7  # moves shown with a hand
    distractor_prob: float = 0.05  # a hand crossing the table during a still moment
    blur_prob: float = 0.04  # motion-blurred frames
    jpeg_quality: int = 82


def frames_of(script: Script, spec: RecordingSpec, rng: np.random.Generator, marks: list | None = None):
    """Yields (image_bgr, truth) per frame; truth = list of (card, box, corners) of the visible cards.
    `marks`, when given, receives (frame number, step number) for the first still frame after each step."""
    import cv2

    from vision.synth.scene import render
    from vision.synth.surfaces import make_surface

    geo = Geometry(spec.width, spec.height, script.match["players"], spec.card_height,
                   spread=spreads_pile(script.match))
    bg = make_surface(spec.surface, spec.width, spec.height, rng)
    cache: dict[int, tuple] = {}

    def draw(table: Table | None, hands: int, key: int | None):
        if hands == 0 and key is not None and key in cache:
            img, truth = cache[key]
            noisy = cv2.add(img, rng.integers(0, 3, img.shape, dtype=np.uint8))  # sensor noise, not the same bytes
            return noisy, truth
        pl = geo.placements(table or Table(), spec.deck, empty=table is None)
        img, labels = render(pl, bg, rng, effects=False, hands=hands)
        truth = _truth(labels)
        if hands == 0 and key is not None:
            cache.clear()
            cache[key] = (img, truth)
        return img, truth

    def maybe_blur(img):
        if rng.random() < spec.blur_prob:
            k = int(rng.integers(7, 15))
            kern = np.zeros((k, k), np.float32)
            kern[k // 2, :] = 1.0 / k
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
            kern = cv2.warpAffine(kern, rot, (k, k))
            img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
        return img

    prev: Table | None = None
    n = 0
    for _ in range(spec.hold):  # the empty table before the deal
        img, truth = draw(None, 0, -1)
        n += 1
        yield maybe_blur(img), truth
    for si, step in enumerate(script.steps):
        show_hand = step.actor is not None and rng.random() < spec.hand_prob
        if show_hand:
            for _ in range(spec.hand_frames):
                img, truth = draw(prev, 1, None)
                n += 1
                yield img, truth
        if marks is not None:
            marks.append((n, si))
        last = si == len(script.steps) - 1
        for _ in range(spec.hold * (3 if last else 1)):  # the final table stays a while
            n += 1
            hands = 1 if rng.random() < spec.distractor_prob else 0
            img, truth = draw(step.table, hands, si)
            yield maybe_blur(img), truth
        prev = step.table


def _truth(labels) -> list[tuple[str, tuple, tuple]]:
    """Renderer corner labels -> one entry per physical card: (card, union box, corner boxes)."""
    by: dict[str, list] = {}
    for lab in labels:
        by.setdefault(lab.card if lab.card != "BACK" else f"BACK#{len(by)}", []).append(lab.box)
    return [(card.split("#")[0], union(boxes), tuple(tuple(b) for b in boxes)) for card, boxes in by.items()]


def write_recording(script: Script, spec: RecordingSpec, out: Path, seed: int = 0) -> dict:
    """Renders the script into out/frames/*.jpg plus layout.json, match.json, expected.jsonl, truth.jsonl."""
    import cv2

    out = Path(out)
    (out / "frames").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n = 0
    with open(out / "truth.jsonl", "w", encoding="utf-8") as tf:
        for i, (img, truth) in enumerate(frames_of(script, spec, rng)):
            cv2.imwrite(str(out / "frames" / f"{i:05d}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, spec.jpeg_quality])
            tf.write(json.dumps([[c, [round(v, 1) for v in b]] for c, b, _ in truth]) + "\n")
            n += 1
    (out / "layout.json").write_text(json.dumps(layout_dict(script.match["players"], spec.card_height,
                                                            spreads_pile(script.match)), indent=1) + "\n")
    (out / "match.json").write_text(json.dumps(script.match_file()) + "\n")
    (out / "expected.jsonl").write_text("\n".join(script.expected_log()) + "\n")
    info = {"frames": n, "fps": spec.fps, "deck": spec.deck, "surface": spec.surface, "seed": seed,
            "width": spec.width, "height": spec.height, "events": len(script.events)}
    (out / "recording.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(prog="python -m vision.synth.recording",
                                 description="Render a scripted hand (any rule system) as a frame folder for `track`.")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deck", default="proc-classic")
    ap.add_argument("--surface", default="felt")
    ap.add_argument("--players", default="Ana,Ben,Cleo")
    ap.add_argument("--rules", default="basic", choices=["basic", "classic", "solitaired", "rummy500"])
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--fps", type=float, default=5.0)
    ap.add_argument("--hold", type=int, default=6, help="frames each table state is held")
    ap.add_argument("--max-events", type=int, default=40, help="pick a scripted hand with at most this many events")
    ap.add_argument("--quality", type=int, default=82, help="JPEG quality")
    a = ap.parse_args(argv)
    players = [p.strip() for p in a.players.split(",") if p.strip()]
    script = None
    for k in range(500):
        s = script_hand(np.random.default_rng(a.seed + k), players, players[0], rules=a.rules)
        if s is not None and len(s.events) <= a.max_events:
            script = s
            break
    if script is None:
        print("no scripted hand short enough; raise --max-events")
        return 1
    spec = RecordingSpec(width=a.width, height=a.height, fps=a.fps, deck=a.deck, surface=a.surface, hold=a.hold,
                         jpeg_quality=a.quality)
    info = write_recording(script, spec, Path(a.out), a.seed)
    print(json.dumps(info))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
