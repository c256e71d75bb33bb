"""Scripted games for recordings and tests: a legal hand of `basic` Rummy, played greedily, and the
table it leaves after every step.

    script = script_hand(rng, ["Ana", "Ben", "Cleo"], dealer="Ana")
    script.events          # full-information events (the deal with hands, stock draws with their card)
    script.expected_log()  # what a camera can know: the contract's hidden-hand log (match line first)
    for step in script.steps: step.table, step.action   # table after each event; what changed and where

Pure Python and the referee; no images (the recording renderer draws the steps).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
DECK = tuple(r + s for s in SUITS for r in RANKS)
HAND_SIZE = {2: 10, 3: 7, 4: 7}


def rank_of(c: str) -> int:
    return RANKS.index(c[:-1]) + 1


def value_of(c: str) -> int:
    return min(10, rank_of(c))


@dataclass
class Table:
    """What lies face up on the table: the discard pile, the melds (with the zone they lie in), revealed
    hands."""

    pile: list[str] = field(default_factory=list)
    melds: list[dict] = field(default_factory=list)  # {"id", "zone", "cards" (in display order), "base"}
    reveals: dict[str, list[str]] = field(default_factory=dict)

    def copy(self) -> Table:
        return Table(list(self.pile), [dict(m, cards=list(m["cards"])) for m in self.melds],
                     {k: list(v) for k, v in self.reveals.items()})


@dataclass
class Step:
    event: dict  # full-information event
    table: Table  # the table after it
    actor: str | None  # who acts (reaches over the table)
    where: str  # "stock", "discard", "zone:<player>", "none": where the hand reaches


@dataclass
class Script:
    match: dict
    dealer: str
    events: list[dict]
    steps: list[Step]

    def expected_events(self) -> list[dict]:
        """The events as the camera can know them (hidden hands: no dealt hands, no stock-draw cards)."""
        out = []
        for e in self.events:
            e = dict(e)
            if e["type"] == "deal":
                e.pop("hands", None)
            if e["type"] == "draw":
                e.pop("card", None)
            out.append(e)
        return out

    def expected_log(self) -> list[str]:
        return [json.dumps(self.match)] + [json.dumps(e) for e in self.expected_events()]

    def match_file(self) -> dict:
        """MATCH.json of `track`: the match object plus the first dealer."""
        return dict(self.match, dealer=self.dealer)


def _meld_options(hand: list[str]) -> list[list[str]]:
    """Disjoint melds found greedily: runs first (longest), then sets."""
    left = set(hand)
    found = []
    for s in SUITS:
        ranks = sorted(rank_of(c) for c in left if c[-1] == s)
        run: list[int] = []
        for r in ranks + [99]:
            if run and r == run[-1] + 1:
                run.append(r)
                continue
            if len(run) >= 3:
                cards = [RANKS[x - 1] + s for x in run]
                found.append(cards)
                left -= set(cards)
            run = [r]
    for r in RANKS:
        same = sorted(c for c in left if c[:-1] == r)
        if len(same) >= 3:
            found.append(same[:4])
            left -= set(same[:4])
    return found


def _extends(meld: list[str], card: str) -> str | None:
    """'low'/'high'/'set' when the card can be laid off on this meld, else None."""
    if all(c[:-1] == meld[0][:-1] for c in meld) and len({c[-1] for c in meld}) == len(meld):
        if card[:-1] == meld[0][:-1] and len(meld) < 4:
            return "set"
        return None
    if card[-1] != meld[0][-1]:
        return None
    rs = [rank_of(c) for c in meld]
    if rank_of(card) == min(rs) - 1:
        return "low"
    if rank_of(card) == max(rs) + 1:
        return "high"
    return None


def script_hand(rng: np.random.Generator, players: list[str], dealer: str, max_turns: int = 60,
                rules: str = "basic") -> Script | None:
    """One hand, played greedily by every player, checked by the referee. None if the stock ran out."""
    from referee import Match

    n = len(players)
    deck = list(DECK)
    rng.shuffle(deck)
    d = players.index(dealer)
    order = [players[(d + 1 + i) % n] for i in range(n)]
    hands: dict[str, list[str]] = {p: [] for p in players}
    for _ in range(HAND_SIZE[n]):
        for p in order:
            hands[p].append(deck.pop())
    up = deck.pop()
    stock = deck
    match = {"type": "match", "rules": rules, "players": list(players)}
    ref = Match(match)
    table = Table(pile=[up])
    events: list[dict] = []
    steps: list[Step] = []

    def do(ev, actor, where):
        hidden = {k: v for k, v in ev.items() if k != "hands" and not (ev["type"] == "draw" and k == "card")}
        v = ref.apply(hidden)  # the referee sees what the camera can: hidden hands
        if not v.ok:
            raise AssertionError(f"scripted event refused: {ev}: {v.code} {v.message}")
        events.append(ev)
        steps.append(Step(ev, table.copy(), actor, where))
        cur = ref.public_state().get("current")
        return cur["phase"] if cur else "over"

    do({"type": "deal", "dealer": dealer, "upcard": up, "hands": {p: list(h) for p, h in hands.items()}},
       None, "discard")
    turn = 0
    out_player = None
    while out_player is None:
        if turn >= max_turns or not stock:
            return None
        p = order[turn % n]
        turn += 1
        hand = hands[p]
        top = table.pile[-1] if table.pile else None
        taken = None
        if top is not None and any(top in m for m in _meld_options(hand + [top])):
            taken = table.pile.pop()
            hand.append(taken)
            do({"type": "draw", "player": p, "from": "discard"}, p, "discard")
        else:
            c = stock.pop()
            hand.append(c)
            do({"type": "draw", "player": p, "from": "stock", "card": c}, p, "stock")
        for meld in _meld_options(hand):
            for c in meld:
                hand.remove(c)
            table.melds.append({"id": len(table.melds) + 1, "zone": p, "cards": list(meld), "base": 0})
            do({"type": "meld", "player": p, "cards": list(meld)}, p, f"zone:{p}")
            if not hand:
                break
        changed = True
        while changed and hand:
            changed = False
            for c in sorted(hand, key=rank_of):
                for m in table.melds:
                    how = _extends(m["cards"], c)
                    if how is None:
                        continue
                    if len(hand) == 1 and c == taken:
                        continue
                    hand.remove(c)
                    if how == "low":
                        m["cards"].insert(0, c)
                        m["base"] -= 1
                    else:
                        m["cards"].append(c)
                    do({"type": "lay_off", "player": p, "cards": [c], "meld": m["id"]}, p, f"zone:{m['zone']}")
                    changed = True
                    break
                if changed or not hand:
                    break
        if not hand:
            out_player = p
            break
        choices = [c for c in hand if c != taken] or hand
        x = max(choices, key=lambda c: (value_of(c), rank_of(c), c))
        hand.remove(x)
        table.pile.append(x)
        phase = do({"type": "discard", "player": p, "card": x}, p, "discard")
        if not hand:
            out_player = p
        elif phase not in ("draw", "play"):
            return None  # a stalemate (everyone holds one card): not a useful recording
    cur = ref.public_state()["current"] or {}
    for p in list(cur.get("awaiting_reveal") or []):
        table.reveals[p] = list(hands[p])
        do({"type": "reveal", "player": p, "cards": list(hands[p])}, p, f"zone:{p}")
    cur = ref.public_state().get("current")
    if cur is not None and cur.get("phase") != "over":
        return None
    return Script(match, dealer, events, steps)


def short_hand(seed: int, players: list[str], dealer: str, max_turns: int = 60, tries: int = 200) -> Script:
    """The first playable scripted hand from `seed` on (a hand whose stock does not run out)."""
    for k in range(tries):
        s = script_hand(np.random.default_rng(seed + k * 7919), players, dealer, max_turns)
        if s is not None:
            return s
    raise RuntimeError("no playable hand found")


# ---------------------------------------------------------------------------------------------
# Drawing the steps: table geometry, placements, frames.

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


def layout_dict(players: list[str], card_height: float) -> dict:
    def sq(b):
        x1, y1, x2, y2 = b
        return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]

    return {"stock": sq(STOCK_BOX), "discard": sq(DISCARD_BOX),
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
        for c in table.pile:  # a squared pile, a little messy
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


DEMO_DIR = Path(__file__).resolve().parent / "data" / "demo"


def frames_of(script: Script, spec: RecordingSpec, rng: np.random.Generator, marks: list | None = None):
    """Yields (image_bgr, truth) per frame; truth = list of (card, box, corners) of the visible cards.
    `marks`, when given, receives (frame number, step number) for the first still frame after each step."""
    import cv2

    from vision.synth.scene import render
    from vision.synth.surfaces import make_surface

    geo = Geometry(spec.width, spec.height, script.match["players"], spec.card_height)
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
    out = []
    for card, boxes in by.items():
        x1 = min(b[0] for b in boxes)
        y1 = min(b[1] for b in boxes)
        x2 = max(b[2] for b in boxes)
        y2 = max(b[3] for b in boxes)
        out.append((card.split("#")[0], (x1, y1, x2, y2), tuple(tuple(b) for b in boxes)))
    return out


class OracleDetector:
    """Ground truth from the renderer, with detector-like noise: per-frame dropouts, misreads, box jitter.
    Measures the pipeline's logic on its own (label it so: it is not the trained model)."""

    def __init__(self, rng: np.random.Generator, dropout: float = 0.05, misread: float = 0.02,
                 jitter_px: float = 2.0):
        self.rng, self.dropout, self.misread, self.jitter = rng, dropout, misread, jitter_px
        self.truth: list = []

    def detect(self, frame_bgr) -> list:
        from vision.types import CardDetection

        out = []
        for card, box, corners in self.truth:
            if self.rng.random() < self.dropout:
                continue
            if card != "BACK" and self.rng.random() < self.misread:
                card = DECK[int(self.rng.integers(len(DECK)))]
            j = self.rng.normal(0, self.jitter, 4)
            b = tuple(float(v + d) for v, d in zip(box, j, strict=True))
            out.append(CardDetection(card, float(self.rng.uniform(0.55, 0.99)), b, corners))
        return out


class TruthDetector(OracleDetector):
    """The oracle for a written recording: finds each frame's ground truth (truth.jsonl) by the frame's
    content, so it works whatever frames a live pipeline skips."""

    def __init__(self, recording_dir: str | Path, rng: np.random.Generator | None = None, **noise):
        import hashlib

        from vision.capture import FolderSource, iter_frames

        super().__init__(rng if rng is not None else np.random.default_rng(0), **noise)
        d = Path(recording_dir)
        lines = (d / "truth.jsonl").read_text(encoding="utf-8").splitlines()
        self._by_hash: dict[bytes, list] = {}
        for f in iter_frames(FolderSource(d / "frames")):
            truth = [(c, tuple(b), ()) for c, b in json.loads(lines[f.index])]
            self._by_hash[hashlib.md5(f.image.tobytes()).digest()] = truth
        self._md5 = hashlib.md5

    def detect(self, frame_bgr) -> list:
        self.truth = self._by_hash.get(self._md5(frame_bgr.tobytes()).digest(), [])
        return super().detect(frame_bgr)


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
    (out / "layout.json").write_text(json.dumps(layout_dict(script.match["players"], spec.card_height), indent=1) + "\n")
    (out / "match.json").write_text(json.dumps(script.match_file()) + "\n")
    (out / "expected.jsonl").write_text("\n".join(script.expected_log()) + "\n")
    info = {"frames": n, "fps": spec.fps, "deck": spec.deck, "surface": spec.surface, "seed": seed,
            "width": spec.width, "height": spec.height, "events": len(script.events)}
    (out / "recording.json").write_text(json.dumps(info, indent=1) + "\n")
    return info


def _norm_event(e: dict) -> str:
    e = dict(e)
    if e.get("type") == "draw":
        e.pop("card", None)  # the referee fills in the card of a discard-pile draw
    if "cards" in e:
        e["cards"] = sorted(e["cards"])
    return json.dumps(e, sort_keys=True)


def _lcs(a: list[str], b: list[str]) -> int:
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def compare_logs(inferred: list[str], expected: list[str]) -> dict:
    """Event-level agreement of two game logs (match line first): matched events in order (LCS), and whether
    both replay to the same result (hands and totals)."""
    from referee import replay_lines

    a = [_norm_event(json.loads(x)) for x in inferred[1:]]
    b = [_norm_event(json.loads(x)) for x in expected[1:]]
    tp = _lcs(a, b)
    ra, rb = replay_lines(inferred), replay_lines(expected)
    same = ra["hands"] == rb["hands"] and ra["totals"] == rb["totals"]
    return {"inferred": len(a), "expected": len(b), "matched": tp, "same_result": same}


def scripted_hands(n_hands: int, seed: int = 0):
    """(i, players, dealer, script) for `n_hands` playable scripted hands: 2 and 3 players in turn,
    the deal passing round; the same seed gives the same hands (used by `evaluate` and the benchmarks)."""
    k = 0
    for i in range(n_hands):
        players = ["Ana", "Ben", "Cleo"][: 2 + (i % 2)]
        dealer = players[i % len(players)]
        script = None
        while script is None:
            script = script_hand(np.random.default_rng(seed * 100003 + k), players, dealer)
            k += 1
        yield i, players, dealer, script


def evaluate(n_hands: int, detector: str = "oracle", deck: str = "kde-nicu-white", seed: int = 0,
             width: int = 1280, height: int = 720, surfaces: list[str] | None = None, verbose: bool = True,
             save_dir: Path | None = None, noise: dict | None = None, motion_gate: bool = True) -> dict:
    """Renders `n_hands` scripted hands (2 and 3 players, several table surfaces, hands over the cards, a few
    blurred frames) with `deck`, tracks each like `track` does (with the motion gate unless `motion_gate` is
    False), and compares with the scripted logs."""
    import time

    from referee import Match
    from vision.layout import Layout
    from vision.pipeline import TableTracker

    surfaces = surfaces or ["felt", "wood", "cloth", "plain", "marble", "noise"]
    if detector == "model":
        from vision.detector import Detector

        model = Detector()
    rows = []
    t0 = time.time()
    for i, players, dealer, script in scripted_hands(n_hands, seed):
        spec = RecordingSpec(width=width, height=height, deck=deck, surface=surfaces[i % len(surfaces)])
        rng = np.random.default_rng(seed * 7 + i)
        layout = Layout.from_dict(layout_dict(players, spec.card_height))
        if detector == "model":
            det = model
        else:
            det = OracleDetector(np.random.default_rng(1000 + i), **(noise or {}))
        tracker = TableTracker(layout, Match(script.match), dealer, det, fps=spec.fps, auto_confirm=True,
                               motion_gate=motion_gate)
        nframes = 0
        for img, truth in frames_of(script, spec, rng):
            if detector != "model":
                det.truth = truth
            tracker.process(img)
            nframes += 1
        inferred = [json.dumps(script.match)] + [json.dumps(e) for e in tracker.referee.events]
        expected = script.expected_log()
        row = compare_logs(inferred, expected)
        row.update(hand=i, players=len(players), surface=spec.surface, frames=nframes,
                   refused=sum(1 for o in tracker.observer.outcomes if not o["ok"]),
                   uncertain=sum(1 for o in tracker.observer.outcomes if o.get("uncertain")))
        rows.append(row)
        if save_dir is not None:
            d = Path(save_dir)
            d.mkdir(parents=True, exist_ok=True)
            (d / f"hand{i:02d}.inferred.jsonl").write_text("\n".join(inferred) + "\n")
            (d / f"hand{i:02d}.expected.jsonl").write_text("\n".join(expected) + "\n")
        if verbose:
            print(json.dumps(row), flush=True)
    tp = sum(r["matched"] for r in rows)
    n_inf = sum(r["inferred"] for r in rows)
    n_exp = sum(r["expected"] for r in rows)
    return {"detector": detector, "deck": deck, "noise": noise if detector == "oracle" else None, "hands": len(rows), "frames": sum(r["frames"] for r in rows),
            "events_expected": n_exp, "events_inferred": n_inf, "events_matched": tp,
            "precision": round(tp / n_inf, 4) if n_inf else 0.0, "recall": round(tp / n_exp, 4) if n_exp else 0.0,
            "exact_result": sum(r["same_result"] for r in rows), "seconds": round(time.time() - t0, 1)}


def evaluate_main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m vision.recording evaluate",
                                 description="Acceptance measurement: scripted hands rendered, tracked, compared.")
    ap.add_argument("--hands", type=int, default=20)
    ap.add_argument("--detector", choices=["oracle", "model"], default="oracle")
    ap.add_argument("--deck", default="kde-nicu-white", help="deck design (use one the detector never trained on)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=720)
    ap.add_argument("--save", default=None, help="folder for the inferred and expected logs")
    ap.add_argument("--dropout", type=float, default=0.05, help="oracle: chance a card is missed in a frame")
    ap.add_argument("--misread", type=float, default=0.02, help="oracle: chance a card is read as a random other")
    ap.add_argument("--jitter", type=float, default=2.0, help="oracle: box jitter (pixels, standard deviation)")
    ap.add_argument("--no-motion-gate", action="store_true", help="run the detector on every frame")
    a = ap.parse_args(argv)
    noise = {"dropout": a.dropout, "misread": a.misread, "jitter_px": a.jitter}
    res = evaluate(a.hands, a.detector, a.deck, a.seed, a.width, a.height,
                   save_dir=Path(a.save) if a.save else None, noise=noise, motion_gate=not a.no_motion_gate)
    print(json.dumps(res))
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["evaluate"]:
        return evaluate_main(argv[1:])
    ap = argparse.ArgumentParser(prog="python -m vision.recording",
                                 description="Render a scripted hand of basic Rummy as a frame folder for `track`.")
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--deck", default="proc-classic")
    ap.add_argument("--surface", default="felt")
    ap.add_argument("--players", default="Ana,Ben,Cleo")
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
        s = script_hand(np.random.default_rng(a.seed + k), players, players[0])
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
