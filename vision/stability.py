"""Stability over frames: a change counts only once it has held for a short window.

Two small stages:

- `Stabilizer`: per-card tracks keyed by position (the box, or one corner index seen again). A track is *present* once it was seen in `appear_hits`
  of the last `window` frames, and stays present until it was missed `vanish_misses` frames in a row
  (inertia: a hand reaching across or a shadow does not remove a card). Its identity is a
  confidence-weighted vote over the last `vote_window` sightings, so one misread frame changes nothing;
  the winning label's weight against the runner-up's is the card's confidence downstream. One card per label,
  or two with two decks (`copies`): two tracks of a label seen at once are two cards, tracked apart.
- `SnapshotGate`: passes a table snapshot on only when its content has stayed the same for `hold_frames`
  frames in a row.

Counts are in frames; `StabilityConfig.for_fps` scales the defaults (tuned at 10 frames/s) to a rate.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from vision.geometry import Box, center, iou, union
from vision.types import UNKNOWN, CardDetection

UNKNOWN_WEIGHT = 0.1  # what one look that could not name a card weighs against the names it guessed
RENAME_SHARE = 0.3  # a card whose vote names a card another keeps takes its next name from this share (`_renamed`)
OTHER_INDEX_TIE = 0.5  # a corner on a card's other index is that card when the card's name scores this share of its own


@dataclass(frozen=True)
class StabilityConfig:
    window: int = 5
    appear_hits: int = 3
    vanish_misses: int = 8
    vote_window: int = 8
    hold_frames: int = 3
    same_label_iou: float = 0.1  # a sighting with the track's label joins it from this overlap
    other_label_iou: float = 0.6  # a different label must sit nearly exactly where the track is

    @classmethod
    def for_fps(cls, fps: float) -> StabilityConfig:
        k = max(0.3, fps / 10.0)

        def s(n: int, lo: int = 1) -> int:
            return max(lo, round(n * k))

        return cls(window=s(5, 3), appear_hits=s(3, 2), vanish_misses=s(8, 2), vote_window=s(8, 6),
                   hold_frames=s(3))


@dataclass
class _Track:
    tid: int
    box: Box
    votes: deque = field(default_factory=deque)  # (label, confidence, alternatives: ((label, score), ...))
    hits: deque = field(default_factory=deque)  # bools over the last `window` frames
    misses: int = 0
    present: bool = False
    sightings: int = 0  # the frames it was seen in since it was born
    born: int = 0  # the frame it was first seen in
    seen: int = 0  # the frame it was last seen in
    corners: tuple = ()  # the corner indices it was last seen by (a detector that gives them)
    remembered: tuple = ()  # the two indices it was last seen by together under its own name

    def weights(self) -> dict[str, float]:
        """Each label's weight in the vote: the confidences of the looks that read it, plus the scores it had
        as a second choice (a detector that gives them: a card read 0.4 as 7S with 7C at 0.35 is not sure)."""
        w: dict[str, float] = {}
        for lab, c, alts in self.votes:
            w[lab] = w.get(lab, 0.0) + (UNKNOWN_WEIGHT if lab == UNKNOWN else max(c, 1e-3))
            for a, p in alts:
                w[a] = w.get(a, 0.0) + p
        return w

    def label(self, w: dict[str, float] | None = None) -> tuple[str, float]:
        """The winning label and its certainty: its weight against the runner-up's, best / (best + second).
        Scattered misreads barely lower it; a second label seen again and again (a real confusion, or another
        card now lying there) does. `w`: the vote's `weights()`, when already counted."""
        w = self.weights() if w is None else w
        if not w:
            return "", 0.0
        ranked = sorted(w.values(), reverse=True)
        best = max(w, key=w.get)
        second = ranked[1] if len(ranked) > 1 else 0.0
        return best, w[best] / (w[best] + second)

    def alternatives(self, best: str, w: dict[str, float] | None = None, k: int = 3,
                     min_share: float = 0.05) -> tuple[tuple[str, float], ...]:
        """The other labels of the vote, best first, with their weight against the winner's (up to `k`, from
        `min_share`)."""
        w = self.weights() if w is None else w
        top = w.get(best, 0.0)
        if top <= 0:
            return ()
        ranked = sorted(((a, v / (top + v)) for a, v in w.items() if a not in (best, "BACK", UNKNOWN)),
                        key=lambda x: -x[1])
        return tuple((a, round(v, 4)) for a, v in ranked[:k] if v >= min_share)


def corner_overlap(a, b) -> float:
    """The best overlap between one corner index of `a` and one of `b`: a card seen by both its indices in one
    look and by one of them in the next (a hand over the other) is still one card, although its box shrank
    from the whole card to one index.  Used for the track's own name, or a name it is confused with (one's
    name among the other's second choices: a new discard laid on the pile, index on index, is another card)."""
    return max((iou(x, y) for x in a for y in b), default=0.0)


class Stabilizer:
    """Feed one frame's detections with `update`; get the cards that are stably on the table."""

    def __init__(self, config: StabilityConfig = StabilityConfig(), copies: int = 1, jokers: int = 1):
        self.config = config
        self.copies = copies  # the decks in play: how many cards may carry one label
        self.jokers = max(1, jokers)  # the jokers in play: how many cards may be read as JK
        # a match played without jokers (`jokers` 0): a JK read is a misread, and the vote's other names decide
        # (basic hand 7, taught deck: Cleo's 8C laid off read JK, asked as a joker, and the hand never added up)
        self.no_jokers = jokers == 0
        # where a card must be seen steadily before it counts (`_flicker`): a box -> bool (the table pipeline
        # gives the discard pile; None: nowhere)
        self.steady: Callable[[Box], bool] | None = None
        self._tracks: list[_Track] = []
        self._next = 1
        self._frame = 0

    def reset(self) -> None:
        self._tracks.clear()

    def update(self, dets: list[CardDetection]) -> list[CardDetection]:
        cfg = self.config
        self._frame += 1
        labels = [t.label()[0] for t in self._tracks]
        pairs = []
        for ti, t in enumerate(self._tracks):
            seconds = None  # the track's second choices, counted once a frame when needed
            for di, d in enumerate(dets):
                same = d.card == labels[ti]
                o = iou(t.box, d.box)
                if 0.0 < o < cfg.other_label_iou:  # boxes that do not touch share no index (a box holds its corners)
                    if not same and seconds is None:
                        seconds = {a for _, _, alts in t.votes for a, _ in alts}
                    if same or d.card in seconds or any(a == labels[ti] for a, _ in d.alternatives):
                        o = max(o, corner_overlap(t.corners, d.corners))
                if (same and o >= cfg.same_label_iou) or o >= cfg.other_label_iou:
                    pairs.append((0 if same else 1, -o, ti, di))
        pairs.sort()
        used_t, used_d = set(), set()
        for _, _, ti, di in pairs:
            if ti in used_t or di in used_d:
                continue
            used_t.add(ti)
            used_d.add(di)
            t, d = self._tracks[ti], dets[di]
            t.seen = self._frame
            t.corners = tuple(d.corners)
            if d.card == labels[ti] and len(d.corners) >= 2:
                t.remembered = tuple(d.corners)
            if d.card == UNKNOWN and labels[ti] not in (UNKNOWN, ""):
                # a card named before whose index is now hard to read (covered, in a shadow): still there, and
                # it keeps the name it was read by
                self._hit(t, True)
                continue
            if d.card == labels[ti] and iou(t.box, d.box) > 0.5:  # smooth the jitter of a resting card
                t.box = tuple(0.6 * a + 0.4 * b for a, b in zip(t.box, d.box, strict=True))
            else:
                t.box = d.box
            t.votes.append((d.card, float(d.confidence), d.alternatives))
            while len(t.votes) > cfg.vote_window:
                t.votes.popleft()
            k = max(3, cfg.appear_hits)
            votes = list(t.votes)
            recent = votes[-(k + 1):]
            if d.card != UNKNOWN and len(votes) > k + 1 and sum(v[0] == d.card for v in recent) >= k \
                    and any(v[0] != d.card for v in votes[:-(k + 1)]):
                # a label seen k times in the last k+1 sightings (one misread allowed) that the older votes do
                # not share: another card now lies here (a new discard on the pile); forget the old one
                t.votes = deque(recent)
                t.remembered = ()
            self._hit(t, True)
        for di, d in enumerate(dets):
            if di not in used_d and self._other_index(d, labels, used_t):
                used_d.add(di)
        keep = []
        for ti, t in enumerate(self._tracks):
            if ti not in used_t:
                self._hit(t, False)
                if t.present and t.misses >= cfg.vanish_misses:
                    continue
                if not t.present and not any(t.hits):
                    continue
            keep.append(t)
        for di, d in enumerate(dets):
            if di not in used_d:
                t = _Track(self._next, d.box, born=self._frame, seen=self._frame, corners=tuple(d.corners))
                self._next += 1
                t.votes.append((d.card, float(d.confidence), d.alternatives))
                self._hit(t, True)
                keep.append(t)
        self._tracks = keep
        return self.stable()

    def _other_index(self, d: CardDetection, labels: list[str], matched: set[int]) -> bool:
        """Whether `d`, matched to no track, is the other corner index of a card already seen this frame: it
        lies on one of the indices that card was seen by (the pair read as one card before), and it is a
        near-tie between its own name and the card's (the card's name scores at least `OTHER_INDEX_TIE` of
        its own).  Then it is that card (kept in its corners), not a new card: the JC of a meld, whose corner
        is read 0.51 JS / 0.42 JC once the real JS leaves the pile, must not become a JS in the meld (and hold
        the JS that another player melds).  A confident read there is a new card laid over it."""
        for ti in matched:
            t, lab = self._tracks[ti], labels[ti]
            if lab in ("", UNKNOWN, "BACK") or d.card == lab or len(t.corners) != 1:
                continue
            alt = dict(d.alternatives).get(lab, 0.0)
            if d.card != UNKNOWN and alt < OTHER_INDEX_TIE * d.confidence:
                continue
            mine = [c for c in t.remembered if iou(c, t.corners[0]) < self.config.other_label_iou]
            if corner_overlap(mine, d.corners or (d.box,)) >= self.config.other_label_iou:
                t.corners = t.corners + tuple(d.corners or (d.box,))
                t.box = union([t.box, d.box])
                return True
        return False

    def _hit(self, t: _Track, hit: bool) -> None:
        t.hits.append(hit)
        while len(t.hits) > self.config.window:
            t.hits.popleft()
        t.misses = 0 if hit else t.misses + 1
        t.sightings += hit
        if not t.present and sum(t.hits) >= self.config.appear_hits:
            t.present = True

    def stable(self) -> list[CardDetection]:
        """Present cards, one per label and deck (one deck: a label seen twice keeps its best-supported track).

        With two decks (`copies` 2) a second track of a label is a second card only when both were seen
        while the other existed (two 7H on the table at once); a track last seen before the other one
        appeared is the same card, moved (picked off the pile into a meld), and is dropped."""
        by: dict[str, list[tuple[tuple, _Track, float]]] = {}
        out: list[CardDetection] = []
        unknown: list[tuple[_Track, dict]] = []
        weights: dict[int, dict[str, float]] = {}
        for t in self._tracks:
            if not t.present or self._flicker(t):
                continue
            w = weights[t.tid] = t.weights()
            if self.no_jokers and "JK" in w:
                del w["JK"]
                if not any(a not in (UNKNOWN, "BACK") for a in w):
                    continue
            lab, share = t.label(w)
            if lab == "BACK":
                out.append(CardDetection(lab, share, t.box))
                continue
            if lab == UNKNOWN:
                unknown.append((t, w))
                continue
            # a card moved: the place it is seen at now wins over the place it is remembered at; then the better
            # supported track
            by.setdefault(lab, []).append(((-t.misses, share * len(t.votes)), t, share))
        losers: list[tuple[_Track, str]] = []
        for lab, cands in by.items():
            cands.sort(key=lambda c: c[0], reverse=True)
            kept: list[_Track] = []
            limit = self.jokers if lab == "JK" else self.copies
            for _w, t, share in cands:
                if len(kept) >= limit:
                    if lab != "JK" and any(t.seen >= k.born and k.seen >= t.born for k in kept):
                        losers.append((t, lab))  # another card, seen beside the one that keeps the name
                    continue
                if all(t.seen >= k.born and k.seen >= t.born for k in kept):
                    kept.append(t)
                    out.append(CardDetection(lab, share, t.box, alternatives=t.alternatives(lab, weights[t.tid])))
        out += self._renamed(losers, weights, out)
        named = [d.box for d in out if d.card != "BACK"]
        for t, w in unknown:
            # a card not named: each one is a card of its own ("?" and the track's number), unless it lies on
            # a named card (that card's other index)
            cx, cy = center(t.box)
            if any((b[0] <= cx <= b[2] and b[1] <= cy <= b[3]) or iou(b, t.box) > 0.3 for b in named):
                continue
            out.append(CardDetection(f"{UNKNOWN}{t.tid}", 0.0, t.box, alternatives=t.alternatives(UNKNOWN, w)))
        return out

    def _renamed(self, losers: list[tuple[_Track, str]], weights: dict[int, dict[str, float]],
                 named: list[CardDetection]) -> list[CardDetection]:
        """Cards whose vote went to a name another card keeps (a deck has each card once, or `copies` times), seen
        on the table beside it: each is the best of its other names that no card holds, when that name weighs at
        least `RENAME_SHARE` of the taken one in its vote; else it is left out, as before.  A clear 3C laid below a
        run 4C-10C is read 3C 0.30 / 9C 0.27 / 5C 0.23 look after look; its vote says 9C and the real 9C keeps that
        name, so without this the 3C could never show (basic hand 1; offline its reads there stay under the
        table's 0.3, so it still does not, docs/PIPELINE.md, stop 47).  The renamed card's
        certainty is its name's weight against the taken one's (about a half): the observer treats it as
        unsure."""
        taken: dict[str, int] = {}
        for d in named:
            taken[d.card] = taken.get(d.card, 0) + 1
        out = []
        for t, lab in sorted(losers, key=lambda x: -max(weights[x[0].tid].values())):
            w = weights[t.tid]
            top = w.get(lab, 0.0)
            for alt, v in sorted(w.items(), key=lambda kv: -kv[1]):
                if alt in (lab, "BACK", "JK", UNKNOWN) or taken.get(alt, 0) >= self.copies:
                    continue
                if v >= RENAME_SHARE * top:
                    taken[alt] = taken.get(alt, 0) + 1
                    out.append(CardDetection(alt, v / (v + top), t.box, alternatives=t.alternatives(alt, w)))
                break
        return out

    def _flicker(self, t: _Track) -> bool:
        """Where cards must be seen steadily (`steady`: the discard pile), a track seen in no more frames than
        it takes to appear (`appear_hits`) and missed since: not yet a card.  A discard lies on top of the pile,
        in full view, and is seen frame after frame once the hand leaves it; a misread that comes and goes
        there (one index of the QH on the pile read QS in two frames, while its other index reads QH) must not
        hold a snapshot long enough to be taken for a discard, and then for the next player's pickup (basic
        hand 7, docs/PIPELINE.md).  It counts again when it is seen again.  Not in the players' zones: a meld's
        card read now and then is still best reported when first seen (its turn is what the observer needs)."""
        return (t.misses > 0 and t.sightings <= self.config.appear_hits and self.steady is not None
                and self.steady(t.box))


class SnapshotGate:
    """Lets a snapshot through once its `signature()` held for `hold_frames` successive frames."""

    def __init__(self, hold_frames: int = 3):
        self.hold_frames = hold_frames
        self._candidate = None
        self._count = 0
        self._emitted = None

    def holding(self, snapshot) -> bool:
        """Whether this snapshot shows what the last stable one showed."""
        return self._emitted is not None and snapshot.signature() == self._emitted

    def update(self, snapshot):
        """Returns the snapshot when it has just become the new stable one, else None."""
        sig = snapshot.signature()
        if sig == self._candidate:
            self._count += 1
        else:
            self._candidate, self._count = sig, 1
        if self._count >= self.hold_frames and sig != self._emitted:
            self._emitted = sig
            return snapshot
        return None
