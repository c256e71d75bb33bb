"""From successive stable table snapshots to game-log events, checked by the referee.

The observer compares what the table shows with what the referee knows (`public_state()`: melds with
their ids, the discard pile, whose turn it is, the phase, hand counts) and derives, one at a time:

- ``deal``: between hands, once the table was cleared, a lone face-up card on the discard pile.
- ``draw``: never seen directly (stock draws are hidden). It is inferred when the current player's first
  visible action of the turn happens (a meld, a lay-off or a discard): from the discard pile when the
  previous top card vanished from it during the turn (or turns up in the player's new meld), else from the
  stock, without a card (hidden-hand mode).
- ``meld``: a group of at least three new cards in the current player's zone.
- ``lay_off``: new cards in a group that holds cards of a meld on the table, with that meld's number.
- ``discard``: a new card on the discard pile; where the rules let the last card go face down (Basic's
  CGI-4), a face-down card on the pile when the current player holds exactly one card
  (``{"face_down": true}``, no card: nobody saw it).
- a deep pickup (Rummy 500, ``discard_draw: top_or_deep``): the top cards of the pile vanish down to a
  card that is still there, and the player's play uses them: a draw from the discard pile naming the deepest
  card taken (the referee then checks that it is used at once).
- ``call_rummy`` (Rummy 500, R500-9): while the call is open, the top discard vanishes and turns up in a new
  group in another player's zone: that player called; the play that follows is read as their turn.
- ``end_hand`` on an empty stock (where the rules end the hand there, Rummy 500's R500-10): proposed, never
  applied by itself, since the player may still take from the pile; once declined it is not asked again in
  that turn.  An ``end_hand`` by agreement comes from the dashboard (a "Rummy!" call may too).
- the stock turned over (recycled) is derived by the referee from a draw on an empty stock; the pile that
  vanishes with it is not a pickup (the draw is from the stock while the referee's stock is empty).
- ``reveal``: after someone went out, the new cards spread in a player's zone, once as many as the referee
  counts in that hand; the winner's face-down last card when it is turned face up on the pile. A hand shown
  with cards missing, still after a long look, is asked about ("look at Ana's hand: 6 of the 7 cards..."), to be
  corrected with the whole hand; the question goes by itself once the whole hand shows.

Each event goes to the referee at once. A refused one is reported (code and message from the referee) and its
cards are set aside until they leave the table. An event the observer is unsure of (a card whose identity vote
is weak, a lay-off that fits several melds) is *proposed*: it waits in `pending()` until `confirm(id)`,
`reject(id)` or `correct(id, event)` (the players' own version of it), and nothing else is derived meanwhile.
A correction that renames cards (the camera read 7D, the players say 7H) is remembered: while that card stays on
the table the observer reads it by the players' name, so the misread is not taken for a new card.

Outcomes are dicts: ``{"event": {...}, "ok": bool, "code": str|None, "message": str, "proposed": bool,
"id": int}``.
"""

from __future__ import annotations

import itertools
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from referee import Phase
from referee.cards import ALL_CARDS, RANKS
from referee.options import DiscardDraw, Scoring
from vision.geometry import centre_in, union
from vision.interfaces import Outcome, Referee
from vision.layout import DISCARD
from vision.snapshot import Group, TableSnapshot
from vision.types import UNKNOWN


def _physical(card: str) -> str:
    """'JK=8S' -> 'JK' (a joker in a meld names the card it stands for)."""
    return card.split("=", 1)[0]


def _unknown(card: str) -> bool:
    """A card the camera found and could not name: "?" and its track's number ("?12")."""
    return card.startswith(UNKNOWN)


def _same_place(box, at, pad: float = 4.0) -> bool:
    """Whether two boxes are of one card: the centre of one lies in the other (`pad` pixels wider).  A card seen
    by one index and then by both keeps the index's place inside its box; a neighbour in a fan does not."""
    return centre_in(box, at, pad) or centre_in(at, box, pad)


def _box_json(box) -> list[float]:
    return [round(float(v), 1) for v in box]


def _loose(new_groups: list, owner: str) -> list:
    """The groups of new cards in `owner`'s zone that touch no meld, and, when there are several, all of them
    as one (a meld whose middle card is not seen shows as two groups)."""
    mine = [(o, n, t, b) for o, n, t, b in new_groups if o == owner and not t]
    if len(mine) > 1:
        mine.append((owner, [c for _o, n, _t, _b in mine for c in n], set(), union(b for *_r, b in mine)))
    return mine


def event_cards(ev: dict) -> list[str]:
    """The physical cards an event names (its `cards`, `card` or `upcard`; a joker as ``JK``)."""
    out = [c for c in ev.get("cards") or [] if isinstance(c, str)]
    out += [ev[k] for k in ("card", "upcard") if isinstance(ev.get(k), str)]
    return [_physical(c) for c in out]


@dataclass
class _Candidate:
    event: dict
    confidence: float
    reason: str = ""
    cards: tuple[str, ...] = ()
    follow: _Candidate | None = None  # an inferred draw: the visible move that implies it
    turn: tuple | None = None  # an empty-stock end of hand: the turn it was asked in
    short: int = 0  # a reveal with fewer cards than the hand holds: how many are missing
    ask: bool = False  # a question more looks cannot settle (a lay-off that fits two melds): asked at once
    renames: tuple[tuple[str, str], ...] = ()  # camera's name -> the name the play uses (see `_complete`)
    region: tuple | None = None  # the table's part the question is about (pixels), when its cards are not all seen
    # a guess at a discard the camera never saw ("Ben's discard was picked up before it was seen: AH?"): (hand,
    # player, card). A No says that card was not the discard, not that it is no card (`reject`)
    guess: tuple | None = None

    @property
    def camera_cards(self) -> list[str]:
        """The cards as the camera named them, where the play renamed them (the question's picture of them)."""
        return [a for a, _b in self.renames]


def spread_pile(referee: Referee) -> bool:
    """Whether the match's discard pile lies spread, for deep pickups (Rummy 500), its cards side by side; a
    squared pile shows only its top card."""
    return (referee.public_state().get("options") or {}).get("discard_draw") == DiscardDraw.TOP_OR_DEEP


class Observer:
    """Turns stable snapshots into referee events. `referee` is a `referee.Match` or the dashboard's
    `web_ui.camera.MatchReferee` (`vision.interfaces.Referee`): events are tried with its `check` and sent with
    its `apply`; `first_dealer` deals the first hand."""

    # snapshots after a turn's end (its discard seen) in which a card put on a meld is still the player's: the
    # camera may name a lay-off a moment after the discard that followed it (a hand over it); the next
    # player's lay-off comes after their draw, seconds later (each snapshot holds at least `hold_frames`; a
    # still table looked at again while an event waits counts as a snapshot too)
    TURN_MARGIN = 3
    # a card seen in a zone on one look only, then on none of the next this many looks or more, was a misread
    # there (`_note_arrivals`): a card really laid is seen on look after look while the table is still
    MISREAD_GONE = 2
    # offline (`auto_confirm`: `track`, nobody to answer), the guesses at what the camera did not see (a meld's
    # card hidden under the others, a lay-off's misread card, a discard picked up before it was seen) are still
    # made, and applied flagged "uncertain", as the players would have been asked them.  Measured on the 20
    # recorded hands of docs/PIPELINE.md, unanswered (stop 46): 774 -> 1009 of 1092 events, 1 -> 8 results right.
    # Without the guess, one card the camera never saw makes every later count of that player's hand wrong.
    # Guessing only the surest unseen discard (as before) was tried: 994 events (basic hand 7 lost 15), though
    # the demo read 17 of 21 events against 15.  False: offline only the surest guess (a discard picked up and
    # melded by the next player) is made.
    guess_unasked = True

    def __init__(self, referee: Referee, first_dealer: str, *, min_confidence: float = 0.75, auto_confirm: bool = False,
                 patience: int = 0):
        self.referee = referee
        self.spread_pile = spread_pile(referee)  # the match's rule, fixed for the match
        self.patience = patience  # frames of an unchanged table an unsure or illegal event waits for
        self._looks = 0
        self._wait_key = None
        self.waiting = False  # an event waits for more looks (feed the same snapshot again)
        self.first_dealer = first_dealer
        self.min_confidence = min_confidence
        self.auto_confirm = auto_confirm  # offline tracking: proposals are applied (and flagged)
        self._lock = threading.RLock()
        self._listeners: list[Callable[[Outcome], None]] = []
        self._pending: list[tuple[int, _Candidate]] = []
        self._next_id = 1
        self._disputed: set[str] = set()  # cards of refused/rejected events, ignored while they stay
        self._declined_guesses: set[tuple] = set()  # (hand, player, card) of unseen-discard guesses answered No
        # cards lying on a meld that this look sets aside as no play (a misread of a meld card, an earlier turn's):
        # they do not keep a card unseen elsewhere from being named (`_turn_candidate`)
        self._unexplained: frozenset[str] = frozenset()
        # card -> the melds it was refused or answered No as a lay-off on, this hand: ignored there even when
        # its track flickers (a meld card's other index, read as another card, comes and goes)
        self._disputed_on: dict[str, set[int]] = {}
        self._hand = None  # the hand those (and `_arrived`) are of
        self._cleared = True  # the table was seen empty since the last hand ended
        self._turn_key = None
        self._top_taken = False
        # (turn, cards): the deepest pickup seen this turn, the pile seen down to the card under it (`_turn_candidate`)
        self._deep_taken: tuple = (None, [])
        # (hand, player, card): the first new card seen on top of a spread pile this turn (`_spread_discard`)
        self._turn_top: tuple | None = None
        self._last: TableSnapshot | None = None  # the last snapshot, cards renamed as the players corrected
        self._raw: TableSnapshot | None = None  # the same as the camera gave it
        self._options: dict = {}  # the match's rule options (public_state()["options"])
        self._declined_end = None  # the turn whose "end the hand on the empty stock?" was answered no
        self._aliases: dict[str, str] = {}  # camera's name -> the players' name, for cards they corrected
        self._off_pile: set[str] = set()  # of those, the names corrected in a player's zone: not read so on the pile
        self._alias_at: dict[str, tuple] = {}  # of those, where the corrected card lay (its box), where known
        self._short_key, self._short_looks = None, 0  # a hand shown with cards missing, and how long
        self._joker_memo: dict = {}  # the legal declarations of a joker in a play (this turn's)
        self._snaps = 0  # snapshots seen
        # the upcard's names as read on the pile while a deal waits (name -> summed confidence), one look per
        # snapshot, and (hands played, last snapshot counted) they are of: a card read two ways in turn is
        # dealt as the name most looks give it (`_deal_candidate`)
        self._upcard_votes: Counter = Counter()
        self._upcard_at: tuple = (None, None)
        self._arrived: dict[str, int] = {}  # card -> the snapshot it first came in this hand (`_note_arrivals`)
        self._in_zone: dict[str, int] = {}  # card -> the snapshot it first lay in a player's zone this hand
        self._zone_last: dict[str, tuple[int, str]] = {}  # card -> (the last snapshot it lay in a zone, whose)
        self._card_looks: dict[str, int] = {}  # card -> in how many snapshots it was seen on the table this hand
        self._card_last_look: dict[str, int] = {}  # card -> the last snapshot it was seen in
        self._card_first_box: dict[str, tuple] = {}  # card -> where it was first seen (its box), where known
        # the snapshot the last discard applied came in: a card new on a meld that came by then is an earlier
        # turn's, never a later player's lay-off (`_turn_candidate`)
        self._turn_from = 0
        self.outcomes: list[Outcome] = []

    # ---- public API ------------------------------------------------------------------------------
    @property
    def last_snapshot(self) -> TableSnapshot | None:
        """The latest stable snapshot observed, by the players' names for the cards they corrected."""
        return self._last

    def on_event(self, callback: Callable[[Outcome], None]) -> None:
        self._listeners.append(callback)

    def observe(self, snap: TableSnapshot) -> list[Outcome]:
        """Feed the next stable snapshot; returns the outcomes it caused (applied, refused, proposed)."""
        with self._lock:
            self._raw = snap
            self._last = self._oriented(self._renamed(snap))
            self._note_arrivals(self._last)
            return self._derive()

    def _note_arrivals(self, snap: TableSnapshot) -> None:
        """When each card came on the table this hand (the number of the snapshot it was first seen in; a card
        that flickers keeps its first time): what came after a turn's discard is the next player's.  A card seen
        in a zone on a single look, then nowhere for `MISREAD_GONE` looks or more, was another card's index
        misread on that look: when it comes back elsewhere, it comes then (classic hand 3, taught deck: the same
        misread back where it was, a 5S's index read 9S again, is no new card) (basic hand 0: Ana's AH read 4H on one look during
        Ben's turn; two turns later Ben laid off the real 4H on her AH 2H 3H, and the 4H counted as a card left by
        an earlier turn, so the lay-off was lost, Ana's 5H after it was refused, and the hand ended wrong)."""
        self._snaps += 1
        now = self._snaps
        for groups in snap.players.values():
            for g in groups:
                for c in g.cards:
                    if self._card_looks.get(c) == 1 and c in self._in_zone and \
                            now - self._card_last_look.get(c, now) > self.MISREAD_GONE:
                        then, box = self._card_first_box.get(c), snap.boxes.get(c)
                        if then is not None and box is not None and _same_place(box, then):
                            continue  # the same misread again, where it was: that card keeps its time
                        for seen in (self._arrived, self._in_zone, self._zone_last, self._card_looks,
                                     self._card_first_box):
                            seen.pop(c, None)
        for c in snap.table_cards():
            self._arrived.setdefault(c, now)
            if c not in self._card_first_box and c in snap.boxes:
                self._card_first_box[c] = snap.boxes[c]
            self._card_looks[c] = self._card_looks.get(c, 0) + 1
            self._card_last_look[c] = now
        for owner, groups in snap.players.items():
            for g in groups:
                for c in g.cards:
                    self._in_zone.setdefault(c, self._snaps)
                    self._zone_last[c] = (self._snaps, owner)

    def _oriented(self, snap: TableSnapshot) -> TableSnapshot:
        """The discard pile in the order the referee knows it.  The snapshot orders a spread pile from what one
        frame shows (the most visible card is the top), and a top card seen by one index only looks smaller than
        the bottom card: the whole row is then read backwards.  When the pile's cards the referee holds come in
        the reverse of its order (more pairs of them reversed than in order, at least two), the row is turned
        round: the new card at the far end is the new top (Rummy 500 hand 0, taught deck: Ana's QH discard
        was read at the bottom of "QH JC 4S QC QD", no discard was seen, and Ben's pickup of it was taken for
        one of the older cards).  A pile in order, or with one known card, is left as it is.  Only where the
        pile is spread (deep pickups, Rummy 500): a squared pile shows its top card, and the cards the camera
        reads beside it there are an index peeking out or a misread, in no order (the demo's Basic hand lost 15
        of its 21 events when they were turned round)."""
        if len(snap.discard) < 2 or not self.spread_pile:
            return snap
        pile = (self.referee.public_state().get("current") or {}).get("discard") or []
        pos = {_physical(c): i for i, c in enumerate(pile)}
        idx = [pos[c] for c in snap.discard if c in pos]
        up = sum(1 for a, b in itertools.pairwise(idx) if b > a)
        down = sum(1 for a, b in itertools.pairwise(idx) if b < a)
        # one known card, the referee's top, read at the top of the row with new cards under it: nothing goes
        # under a pile's top, so the row is backwards too (Rummy 500 hand 3: Ana's JS spread over the upcard AC
        # read "JS AC", no discard was seen, and each later discard was given to the player before)
        under_top = len(idx) == 1 and pos.get(_physical(snap.discard[-1])) == len(pile) - 1
        if (len(idx) >= 2 and down > up) or under_top:
            return replace(snap, discard=tuple(reversed(snap.discard)))
        return snap

    def _renamed(self, snap: TableSnapshot) -> TableSnapshot:
        """The snapshot with the players' names for the cards they corrected (forgotten once off the table).
        A card corrected in a player's zone keeps its new name there, not on the pile: a card the camera names
        so on the pile is another (Rummy 500 hand 2: the AC of a meld read 4C, corrected; then the real 4C is
        discarded, and read as the AC it was not a discard).  Where the snapshots say where cards lie (`boxes`),
        the new name stays with the card where the players corrected it: a card the camera names so elsewhere,
        or while it names the corrected card right, is another card (one deck holds each card once)."""
        if not self._aliases:
            return snap
        in_zones = snap.zone_cards()
        self._aliases = {a: b for a, b in self._aliases.items()
                         if a in in_zones or (a not in self._off_pile and a in snap.discard)}
        self._off_pile &= set(self._aliases)
        self._alias_at = {k: v for k, v in self._alias_at.items() if k in self._aliases}
        if not self._aliases:
            return snap
        a = {}
        one_deck = int(self._options.get("decks") or 1) == 1
        seen = snap.table_cards() if one_deck else frozenset()  # with two decks the other copy may be seen
        for wrong, right in self._aliases.items():
            at, box = self._alias_at.get(wrong), snap.boxes.get(wrong)
            if at is not None and box is not None and (right in seen or not _same_place(box, at)):
                # a card the camera names so away from where the corrected one lay, or while it reads that one
                # right, is another card (the real 9C laid on the meld whose 7C, read 9C, the players corrected:
                # basic hand 1 lost the lay-off and every later one on that meld)
                continue
            a[wrong] = right
        if not a:
            return snap
        on_pile = {k: v for k, v in a.items() if k not in self._off_pile}
        players = {p: tuple(Group(tuple(a.get(c, c) for c in g.cards), g.box) for g in gs)
                   for p, gs in snap.players.items()}
        conf = dict(snap.confidence) | dict.fromkeys(a.values(), 1.0)  # the players' word
        boxes = {k: v for k, v in snap.boxes.items() if k not in a} | {a[k]: v for k, v in snap.boxes.items() if k in a}
        return replace(snap, discard=tuple(on_pile.get(c, c) for c in snap.discard), players=players, confidence=conf,
                       boxes=boxes)

    def _alias(self, pairs) -> None:
        """The players named the camera's cards otherwise (camera's name, players' name): read so from now on."""
        raw = self._raw
        for wrong, right in pairs:
            self._aliases[wrong] = right
            # what the camera called `wrong` so far was this card: a card it reads so from now on where the alias
            # does not hold (`_renamed`) is another one, which comes when it is first seen (the demo with the
            # round-six localiser: Cleo's AC read AS, corrected; Ana's real AS laid off on that meld two turns
            # later counted as a card "in the zone" since the misread, an earlier turn's, and was never asked)
            for seen in (self._arrived, self._in_zone, self._zone_last, self._card_looks, self._card_last_look,
                         self._card_first_box):
                seen.pop(wrong, None)
            box = raw.boxes.get(wrong) if raw is not None else None
            if box is not None:
                self._alias_at[wrong] = box
            else:
                self._alias_at.pop(wrong, None)
            if raw is not None and wrong not in raw.discard and wrong in raw.zone_cards():
                self._off_pile.add(wrong)
            else:
                self._off_pile.discard(wrong)

    def pending(self) -> list[dict]:
        with self._lock:
            return [dict({"id": i, "event": dict(c.event), "reason": c.reason}, **({"missing": c.short} if c.short else {}),
                         **({"box": _box_json(c.region)} if c.region is not None else {}),
                         **({"camera_cards": c.camera_cards} if c.renames else {}))
                    for i, c in self._pending]

    def confirm(self, pid: int) -> Outcome | None:
        with self._lock:
            cand = self._take(pid)
            if cand is None:
                return None
            out = self._apply(cand, proposed_id=pid)
            if self._last is not None:
                self._derive()
            return out

    def correct(self, pid: int, event: dict) -> Outcome | None:
        """The players' version of a proposed event: sent to the referee instead of the camera's. Cards the
        camera named differently are read by the players' names from then on, while they stay on the table.
        None when no such proposal waits; a refused correction leaves the proposal waiting."""
        with self._lock:
            cand = next((c for i, c in self._pending if i == pid), None)
            if cand is None:
                return None
            seen = event_cards(cand.event)
            said = event_cards(event)
            fixed = _Candidate(dict(event), 1.0, "", tuple(said))
            v = self.referee.check(fixed.event)
            if not v.ok:
                return {"event": dict(event), "ok": False, "code": v.code, "message": v.message or "",
                        "proposed": True, "id": pid}
            self._take(pid)
            wrong = [c for c in seen if c not in said]
            right = [c for c in said if c not in seen]
            # (an upcard corrected to the pile's other reading renames nothing: that name is set aside, `_apply`)
            if len(wrong) == len(right) and wrong and not (event.get("type") == "deal" and self._last is not None
                                                           and set(right) <= set(self._last.discard)):
                self._alias(zip(wrong, right, strict=True))
                if self._raw is not None:
                    self._last = self._oriented(self._renamed(self._raw))
            elif wrong and event.get("type") in ("meld", "lay_off"):
                # cards the camera saw in the play that the players' version leaves out are misreads: set aside
                # while they stay (Solitaired hand 1, taught deck: Cleo's 2H 3H 4H 5H read with an "AH", the
                # 4H's other index; corrected to the four cards, the AH was then applied as her lay-off, and
                # Ana's real AH could not be revealed)
                self._disputed.update(wrong)
            out = self._apply(fixed, proposed_id=pid)
            out["corrected"] = True
            if self._last is not None:
                self._derive()
            return out

    def reject(self, pid: int) -> bool:
        with self._lock:
            cand = self._take(pid)
            if cand is None:
                return False
            self._dispute(cand)
            if cand.turn is not None:
                self._declined_end = cand.turn  # the players play on: not asked again this turn
            if self._last is not None:
                self._derive()
            return True

    # ---- internals -------------------------------------------------------------------------------
    def _dispute(self, cand: _Candidate) -> None:
        """Sets the cards of a refused or rejected event aside (and a lay-off's on its meld, for the hand); a refused
        or rejected guess at an unseen discard only declines that guess (`_missed_discard`).  A question that
        renamed the camera's cards (`_complete`) sets the camera's names aside too: those are the cards the camera
        goes on seeing, and the same question would come back on every snapshot (basic hand 1:
        "is it 9C?" for the camera's 7C, answered No 30 times)."""
        if cand.guess is not None:
            # "was AH Ben's discard?" No: AH is still the next player's card (the demo with the round-six localiser:
            # Cleo's AH AD meld was set aside and never applied); only the guess is not made again
            self._declined_guesses.add(cand.guess)
            return
        cards = {*cand.cards, *(camera for camera, _said in cand.renames)}
        self._disputed.update(cards)
        if cand.event.get("type") == "lay_off" and isinstance(cand.event.get("meld"), int):
            for c in cards:
                self._disputed_on.setdefault(c, set()).add(cand.event["meld"])

    def _take(self, pid: int) -> _Candidate | None:
        for k, (i, c) in enumerate(self._pending):
            if i == pid:
                del self._pending[k]
                return c
        return None

    def _emit(self, out: Outcome) -> Outcome:
        self.outcomes.append(out)
        for cb in list(self._listeners):
            cb(out)
        return out

    def _apply(self, cand: _Candidate, proposed_id: int | None = None) -> Outcome:
        v = self.referee.apply(cand.event)
        out = {"event": dict(cand.event), "ok": bool(v.ok), "code": v.code, "message": v.message or "",
               "proposed": False}
        if proposed_id is not None:
            out["id"] = proposed_id
            out["confirmed"] = True
        if not v.ok:
            self._dispute(cand)
        if v.ok and cand.event.get("type") == "deal" and self._last is not None:
            # the other name the upcard was read by (`_deal_candidate`) is no card of the pile: set aside while
            # the camera goes on reading it, so it is no discard of the first player's
            self._disputed.update(c for c in self._last.discard if c != cand.event.get("upcard"))
        if v.ok and cand.event.get("type") == "discard":
            self._turn_top = None  # the turn is over
            at = self._arrived.get(_physical(cand.event.get("card") or ""))
            if at is not None:
                self._turn_from = max(self._turn_from, at)
        elif cand.event.get("type") == "discard" and self._turn_top and self._turn_top[2] == cand.event.get("card"):
            self._turn_top = (*self._turn_top[:2], None)  # refused: not proposed again this turn
        if v.ok and cand.renames:
            # the camera's names the play was completed from: read by the play's names while they stay
            self._alias(cand.renames)
            if self._raw is not None:
                self._last = self._oriented(self._renamed(self._raw))
                # the card the camera named `wrong` is `right`: it came when the camera first saw it, and the
                # name `wrong` has not come yet (the real one, laid later, is new then: a lay-off, not a card
                # of an earlier turn)
                present = self._last.table_cards()
                for wrong, right in cand.renames:
                    for arrived in (self._arrived, self._in_zone):
                        if wrong in arrived and wrong not in present:
                            at = arrived.pop(wrong)
                            arrived[right] = min(at, arrived.get(right, at))
        return self._emit(out)

    def _derive(self) -> list[Outcome]:
        outs: list[Outcome] = []
        snap = self._last
        self.waiting = False
        if snap is not None and self._pending:
            self._withdraw_answered(snap)
        if snap is None or self._pending:
            return outs
        for _ in range(64):
            cand = self._next_candidate(snap)
            if cand is None:
                break
            if self._should_wait(cand.follow or cand):  # a draw waits until the move implying it is sure
                self.waiting = True
                break
            if cand.confidence < self.min_confidence and not self.auto_confirm:
                pid = self._next_id
                self._next_id += 1
                self._pending.append((pid, cand))
                out = {"event": dict(cand.event), "ok": True, "code": None, "message": cand.reason, "proposed": True,
                       "id": pid}
                if cand.region is not None:  # the part of the table to look at (a card the camera did not see)
                    out["box"] = _box_json(cand.region)
                if cand.renames:  # the cards as the camera named them (its picture of them)
                    out["camera_cards"] = cand.camera_cards
                outs.append(self._emit(out))
                break
            out = self._apply(cand)
            # a play completed from other names (a guess applied unasked) renames the camera's cards: the next
            # candidate is read from the table so renamed, or the camera's name comes back as a new card
            snap = self._last
            if cand.confidence < self.min_confidence:
                out["uncertain"] = True
            outs.append(out)
            if not out["ok"] and not cand.cards:
                break  # a refused draw or deal: nothing later can be right
        return outs

    def _withdraw_answered(self, snap: TableSnapshot) -> None:
        """A question the table answered by itself: a hand shown short that is now shown whole."""
        cur = self.referee.public_state().get("current") or {}
        for i, c in list(self._pending):
            if c.short and c.event.get("type") == "reveal":
                p = c.event.get("player")
                need = int((cur.get("hand_counts") or {}).get(p, 0))
                _shown, groups = self._split(snap, *self._table_known(cur))
                seen = [x for owner, cards, _t, _b in groups if owner == p for x in cards]
                if len(seen) >= need:
                    self._pending.remove((i, c))

    def _should_wait(self, cand: _Candidate) -> bool:
        """An unsure event, or one the referee would refuse (a meld missing a card not recognised yet, a meld
        still being laid out), is looked at again on the next `patience` frames of the same table before it
        is proposed or sent (and then refused and reported)."""
        if self.patience <= 0 or cand.ask:
            return False
        unsure = cand.confidence < self.min_confidence
        if not unsure and not (cand.cards and not self._legal(cand.event)):
            return False
        # one wait for this move, in whatever order the camera lists its cards (a fan read left to right, then
        # right to left): a busy table does not put the question off again and again
        key = (cand.event.get("type"), cand.event.get("player"), tuple(sorted(event_cards(cand.event))),
               cand.event.get("meld"), bool(cand.event.get("face_down")))
        if cand.event.get("type") == "deal":
            key = ("deal",)  # one deal a hand, whatever the upcard is read as from look to look
        if key != self._wait_key:
            self._wait_key, self._looks = key, 0
        if self._looks < self.patience:
            self._looks += 1
            return True
        return False

    def tick(self) -> None:
        """A frame went by while an event waits for more looks (`waiting`) and the table was not still: it
        counts towards the wait (`patience` is in frames), so a table that keeps moving does not keep the
        question off the dashboard. Offline (`auto_confirm`: nobody to ask) the wait is for a still table only:
        an unsure event applied early there is applied unasked (measured: basic hand 4 lost 17 of 39 events)."""
        with self._lock:
            if self.waiting and not self.auto_confirm and self._looks < self.patience:
                self._looks += 1

    def _conf(self, snap: TableSnapshot, cards) -> float:
        vals = [snap.confidence.get(c, 1.0) for c in cards]
        return min(vals) if vals else 1.0

    def _next_candidate(self, snap: TableSnapshot) -> _Candidate | None:
        state = self.referee.public_state()
        self._options = state.get("options") or {}
        self._unexplained = frozenset()
        cur = state.get("current")
        visible = snap.table_cards()
        self._disputed &= visible  # a disputed card that left the table counts again when it comes back
        hand = (cur or {}).get("number")
        if hand != self._hand:
            self._hand, self._disputed_on, self._turn_from = hand, {}, 0
            self._arrived = {c: n for c, n in self._arrived.items() if c in visible}  # the deal's cards
            self._in_zone = {c: n for c, n in self._in_zone.items() if c in visible}
            self._zone_last = {c: v for c, v in self._zone_last.items() if c in visible}
            self._card_looks = {c: n for c, n in self._card_looks.items() if c in visible}
            self._card_last_look = {c: n for c, n in self._card_last_look.items() if c in visible}
            self._card_first_box = {c: b for c, b in self._card_first_box.items() if c in visible}
        if cur is not None and (cur.get("awaiting_reveal") or cur.get("phase") == "reveal"):
            self._cleared = False
            return self._named(snap, self._reveal_candidate(snap, cur), cur)
        if cur is None or cur.get("phase") == Phase.OVER:
            return self._named(snap, self._deal_candidate(snap, state), cur or {})
        self._cleared = False
        phase = cur.get("phase")
        if phase not in (Phase.DRAW, Phase.PLAY):
            return None
        return self._turn_candidate(snap, cur)

    def _named(self, snap: TableSnapshot, cand: _Candidate | None, cur: dict) -> _Candidate | None:
        """A deal or a hand shown with cards the camera could not name: named by `_complete` (a question)."""
        if cand is None or not any(_unknown(c) for c in cand.cards):
            return cand
        return self._complete(snap, cand, self._table_known(cur)[0])

    # -- between hands
    def _deal_candidate(self, snap: TableSnapshot, state: dict) -> _Candidate | None:
        if state.get("match_over"):
            return None
        if snap.is_empty():
            self._cleared = True
            return None
        hands_played = len(state.get("hands") or [])
        if not self._cleared and hands_played > 0:
            return None
        if not snap.discard or len(snap.discard) > 2 or any(snap.players.get(p) for p in snap.players):
            return None
        dealer = state.get("next_dealer") if hands_played else self.first_dealer
        if not dealer:
            dealer = self.first_dealer
        # a deal turns one card up: two names on the pile are one card read two ways (its two indices; the demo
        # with a 0.9-scale crop read the 5D as 5D and 6D and never saw a deal, so nothing after it): the surer
        # name, asked (offline taken), rather than no deal at all
        if self._upcard_at[0] != hands_played:
            self._upcard_votes = Counter()
        if self._upcard_at[1] != self._snaps:
            for c in snap.discard:
                self._upcard_votes[c] += snap.confidence.get(c, 1.0)
        self._upcard_at = (hands_played, self._snaps)
        # a lone card read as 5D in one look and 6D in the next (the demo with the round-eighteen classifier, the
        # pile at 0.52-0.73 either way) is one card: the name of the most looks, summed by confidence, and its
        # surest reading; this look's own two names decide a tie
        if len(snap.discard) == 1:
            up = max(self._upcard_votes, key=lambda c: (self._upcard_votes[c], c == snap.discard[0]))
        else:
            up = max(snap.discard, key=lambda c: (self._upcard_votes[c], snap.confidence.get(c, 1.0),
                                                  snap.discard.index(c)))
        conf, reason = snap.confidence.get(up, 1.0) if up in snap.discard else 0.0, f"is {up} the upcard?"
        if up not in snap.discard:
            conf = min(self._upcard_votes[up] / max(1, sum(self._upcard_votes.values())), 0.5 * self.min_confidence)
            reason = f"the camera reads the pile as {snap.discard[0]} now, {up} in more looks: {reason}"
        others = [c for c in snap.discard if c != up]
        if others:
            conf, reason = min(conf, 0.5 * self.min_confidence), f"the camera reads {up} and {others[0]} on the pile: {reason}"
        return _Candidate({"type": "deal", "dealer": dealer, "upcard": up}, conf, reason, ())

    # -- after someone went out
    def _table_known(self, cur: dict) -> tuple[Counter, dict[str, set[int]], dict[int, int]]:
        """The cards the referee has on the table (counted), the melds each label is in, and each meld's size."""
        known = Counter(_physical(c) for c in cur.get("discard") or [])
        meld_ids: dict[str, set[int]] = {}
        sizes = {m["id"]: len(m.get("cards", [])) for m in cur.get("melds") or []}
        for m in cur.get("melds") or []:
            for c in m.get("cards", []):
                known[_physical(c)] += 1
                meld_ids.setdefault(_physical(c), set()).add(m["id"])
        return known, meld_ids, sizes

    def _reveal_candidate(self, snap: TableSnapshot, cur: dict) -> _Candidate | None:
        counts = cur.get("hand_counts") or {}
        pile = cur.get("discard") or []
        shown, groups = self._split(snap, *self._table_known(cur))
        new_of: dict[str, list[str]] = {}
        for owner, cards, _touched, _box in groups:
            new_of.setdefault(owner, []).extend(cards)
        for p in cur.get("awaiting_reveal") or []:
            if p == cur.get("winner") and pile and pile[-1] == "??":
                # the winner's face-down last card (CGI-4), turned face up on the pile
                if not shown:
                    continue
                x = shown[-1]
                return _Candidate({"type": "reveal", "player": p, "cards": [x]}, self._conf(snap, [x]),
                                  f"is {x} the card {p} discarded face down?", (x,))
            need = int(counts.get(p, 0))
            new = new_of.get(p, [])
            if need == 0:
                return _Candidate({"type": "reveal", "player": p, "cards": []}, 1.0)
            if len(new) < need:
                if new and self.patience > 0:
                    # a hand shown short: after a long still look, the table is told whom to look at
                    key = (p, tuple(sorted(new)))
                    if key != self._short_key:
                        self._short_key, self._short_looks = key, 0
                    self._short_looks += 1
                    self.waiting = True  # looked at again on the next frames of the same table
                    if self._short_looks > 2 * self.patience:
                        return _Candidate({"type": "reveal", "player": p, "cards": new}, 0.0,
                                          f"look at {p}'s hand: {len(new)} of the {need} cards {p} holds are seen",
                                          tuple(new), short=need - len(new))
                continue
            if len(new) > need and self.auto_confirm and self.guess_unasked:
                # offline nobody can say which card is not theirs: the surest `need` of them are the hand, the
                # others misreads (the demo, unanswered: a lone 6D read 0.61 beside Ben's 8D 7D made his hand
                # "6D 8D 7D", refused for holding two, and the hand never ended)
                new = sorted(new, key=lambda c: -snap.confidence.get(c, 1.0))[:need]
                return _Candidate({"type": "reveal", "player": p, "cards": new}, 0.0,
                                  f"{p}'s hand: {' '.join(new)}?", tuple(new))
            conf = self._conf(snap, new)
            reason = f"{p}'s hand: {' '.join(new)}?"
            if len(new) > need:
                conf, reason = 0.0, f"{p} shows {len(new)} cards but holds {need}: {' '.join(new)}?"
            return _Candidate({"type": "reveal", "player": p, "cards": new}, conf, reason, tuple(new))
        return None

    def _split(self, snap: TableSnapshot, known: Counter, meld_ids: dict[str, set[int]],
               sizes: dict[int, int] | None = None):
        """What on the table is new: (new discard-pile cards, [(zone owner, new cards, meld ids touched, the
        group's box)] for the groups holding new cards, in the snapshot's order). `known` counts the cards the
        referee already has on the table (two of a card with two decks): each copy seen accounts for one, the
        pile first, then the groups that hold the most known cards (a meld where it lies), so a second 7H in a
        new meld is new. `sizes` (meld id -> its cards) lets a card not named in a meld seen short count as one
        of the meld's own.
        Cards set aside (refused, rejected) are neither."""
        pool = Counter(known)
        disputed = self._disputed

        def take(c: str) -> bool:
            if pool[c] > 0:
                pool[c] -= 1
                return True
            return False

        new_discards = [c for c in snap.discard if c not in disputed and not take(c)]
        # a card on the pile the camera cannot name is new only on top (a new discard covers the old top)
        new_discards = [c for c in new_discards if not _unknown(c) or c == snap.discard[-1]]
        groups = [(owner, g) for owner, gs in snap.players.items() for g in gs]
        order = sorted(range(len(groups)), key=lambda i: -sum(1 for c in groups[i][1].cards if pool[c] > 0))
        result: dict[int, tuple[str, list[str], set[int], tuple]] = {}
        for i in order:
            owner, g = groups[i]
            new, touched = [], set()
            near = set().union(*(meld_ids.get(c, set()) for c in g.cards)) if self._disputed_on else set()
            # (the melds this group lies on)
            for c in g.cards:
                if c in disputed or self._disputed_on.get(c, set()) & near:
                    continue
                if take(c):
                    ids = meld_ids.get(c, set())
                    if len(ids) == 1:  # a card of two melds (two decks) says nothing of which one is here
                        touched |= ids
                else:
                    new.append(c)
            if touched and any(_unknown(c) for c in new):
                # cards not named in a meld seen with fewer of its cards named than it holds: its own cards
                missing = sum((sizes or {}).get(m, 0) for m in touched) - sum(
                    1 for c in g.cards if meld_ids.get(c, set()) & touched)
                for c in [c for c in new if _unknown(c)][:max(0, missing)]:
                    new.remove(c)
            if new:
                result[i] = (owner, new, touched, g.box)
        return new_discards, [result[i] for i in sorted(result)]

    # -- a turn
    def _turn_candidate(self, snap: TableSnapshot, cur: dict) -> _Candidate | None:
        player = cur.get("current_player")
        phase = cur.get("phase")
        pile = [_physical(c) for c in cur.get("discard") or []]
        melds = cur.get("melds") or []
        top = pile[-1] if pile else None
        turn_key = (cur.get("number"), player, len(pile), len(melds))  # this turn, until a play of it is applied
        taken: list[str] = []  # pile cards that may have been taken this turn, deepest first
        if phase == Phase.DRAW and top is not None and top not in snap.discard:
            taken = self._taken_from_pile(pile, snap.discard)
            # the top is gone and so is a card under it, lying in the player's zone, while one card taken with
            # it is back on the pile (R500: a deep pickup, and one of its cards discarded again)
            taken = max(taken, self._taken_under_top(pile, snap, player), key=len)
        elif phase == Phase.DRAW and top is not None:
            taken = self._taken_under_top(pile, snap, player)
        if phase == Phase.DRAW and top is not None:
            taken = self._seen_deep(taken, snap, turn_key)
        # the cards the referee has on the table; the top discard (or, deep, several) may have gone into a meld
        known, meld_ids, sizes = self._table_known(cur)
        known -= Counter(taken)

        # where each player scores the cards they lay off (Rummy 500), those lie in the layer's own zone
        lay_in_own_zone = self._options.get("scoring") == Scoring.MELD_MINUS_HAND
        # what the player put down: groups holding new cards (zone owner, new cards, meld ids touched, box)
        new_discards, new_groups = self._split(snap, known, meld_ids, sizes)
        # a discard lies on top: a new card under the top is a pile card read anew (misread), not a discard
        new_discards = [c for c in new_discards if c == snap.discard[-1]][:1]
        new_discards = self._spread_discard(snap, cur, player, new_discards, known)

        if phase == Phase.DRAW:
            if turn_key != self._turn_key:
                self._turn_key, self._top_taken = turn_key, False
            if top is not None:
                if top in snap.discard:
                    self._top_taken = False
                elif not new_discards and (
                        (len(pile) >= 2 and snap.discard and snap.discard[-1] == pile[-2])
                        or (len(pile) == 1 and not snap.discard)):
                    self._top_taken = True

        # "Rummy!" (R500-9): before the player to move draws, another player takes the discard and plays it
        if phase == Phase.DRAW and cur.get("rummy_call_open") and top is not None and top not in snap.discard:
            for owner, new, _touched, _box in new_groups:
                if owner != player and top in new:
                    return _Candidate({"type": "call_rummy", "player": owner, "card": top}, self._conf(snap, [top]),
                                      f"did {owner} call “Rummy!” on {top}?", (top,))

        on_melds = {c for _o, n, t, _b in new_groups if t for c in n}
        new_groups = [(o, self._stood_in(snap, n, t, melds, player, known), t, b) for o, n, t, b in new_groups]
        # the turn is over once its discard comes, or once another player lays down a meld of their own (their
        # turn has begun: the discard was picked up unseen): new cards on a meld outside the player's own zone
        # that came after that are a later turn's (a lay-off seen before the draw it implies)
        ends = [self._arrived[c] for c in new_discards if c in self._arrived]
        ends += [min(self._arrived.get(c, 0) for c in n) for o, n, t, _b in new_groups
                 if o != player and not t and len(n) >= 3]
        if ends:
            came = min(ends) + self.TURN_MARGIN
            new_groups = [(o, n if o == player or not t else [c for c in n if self._arrived.get(c, 0) <= came], t, b)
                          for o, n, t, b in new_groups]
        # a card new on a meld that came no later than the last turn's discard is that turn's or an earlier
        # one's, left unexplained (a misread index: classic hand 3, taught deck: Ana's 3S read 9S on Ben's spade
        # run was not her lay-off; two turns later Ben laid off 8S, "8S 9S" fitted, and Ben went out on it).
        # When it came to the players' zones counts, not to the table: a card taken from the pile and laid off
        # lay on the pile long before (Rummy 500 hand 2)
        if self._turn_from:
            new_groups = [(o, [c for c in n if self._in_zone.get(c, self._snaps) > self._turn_from] if t else n, t, b)
                          for o, n, t, b in new_groups]
        new_groups = [g for g in new_groups if g[1]]
        # the cards on melds set aside above are no cards of this turn; a card the camera reads there is most
        # likely a meld card's other index misread, and it does not make the real card "seen": Rummy 500 hand 0,
        # taught deck (seed 2): the 6S of Ben's 6S 6D 6C also read 8S, so Ana's 7S 8S 9S, seen as "7S 9S",
        # could not be asked about with the 8S, and was never applied
        self._unexplained = frozenset(on_melds - {c for _o, n, t, _b in new_groups if t for c in n})
        if new_discards or any(o == player and (t or len(n) >= 3) for o, n, t, _b in new_groups):
            # not while the player may still be laying the meld out: once the turn is over, or once another
            # play of theirs is applied (the order of the melds numbers them)
            new_groups = self._joined(new_groups, player, melds, lay_in_own_zone)

        # candidate plays in order: melds, lay-offs, then the discard
        plays: list[_Candidate] = []
        for owner, new, touched, _box in new_groups:
            if touched:
                ev = {"type": "lay_off", "player": player, "cards": new}
                if len(touched) == 1:
                    ev["meld"] = next(iter(touched))
                    plays.append(_Candidate(ev, 1.0, "", tuple(new)))
                else:
                    plays.append(self._ambiguous_layoff(ev, sorted(touched), new))
            elif owner == player and len(new) >= 3:
                plays.append(_Candidate({"type": "meld", "player": player, "cards": new}, 1.0, "", tuple(new),
                                        region=_box))
            elif owner != player and not lay_in_own_zone and (
                    beside := self._beside_meld(player, owner, new, melds)) is not None:
                # new cards alone in another player's zone, on no meld: laid beside one of theirs, a little
                # apart, and seen as a group of their own (basic hand 1: Cleo's JC at the end of Ana's club run)
                plays.append(_Candidate({"type": "lay_off", "player": player, "cards": new, "meld": beside}, 1.0,
                                        "", tuple(new)))
            elif owner == player and lay_in_own_zone:
                # Rummy 500: a lay-off lies in the zone of the player who lays it off; fewer than three new
                # cards may also be a meld being laid out, so only a lay-off the referee accepts counts, on the
                # meld it fits (asked when it fits several)
                ev = {"type": "lay_off", "player": player, "cards": new}
                fit = [m["id"] for m in melds if self._legal(dict(ev, meld=m["id"]))]
                if len(fit) == 1:
                    plays.append(_Candidate(dict(ev, meld=fit[0]), 1.0, "", tuple(new)))
                elif fit:
                    plays.append(self._ambiguous_layoff(ev, fit, new))
        plays = [self._declare_joker(c, turn_key) for c in plays]
        plays = [self._complete(snap, c, known) for c in plays]
        plays = [self._gap_meld(snap, c, known) for c in plays]
        # the guesses at what the camera did not see: asked, or offline (`track`, nobody to answer) applied flagged
        # (`guess_unasked`); without it, offline only the surest is made: a discard picked up by the next player,
        # who shows a whole new meld with it
        guess = not self.auto_confirm or self.guess_unasked
        if guess:
            plays = [self._misread_layoff(snap, c, known) for c in plays]
        plays.sort(key=lambda c: 0 if c.event["type"] == "meld" else 1)
        missed = None
        if not plays and (new_discards or not self._face_down_last(snap, cur, player, plays)) and (
                guess or not new_discards):
            # the next player shows new cards: the current player's discard was picked up by them before it
            # was seen (and a new discard is theirs)
            missed = self._missed_discard(player, new_groups, cur, known if guess else None, snap.table_cards())
        if (new_discards or missed is not None) and guess:
            # the turn is over, and two new cards lie together in the player's zone: a meld whose third card
            # the camera could not see; asked, with the card the rules allow proposed (in Rummy 500, where
            # two cards in one's own zone may be a lay-off, only when they fit no meld)
            loose = _loose(new_groups, player)
            flicker = self._flickered_meld(snap, loose[-1] if loose else None, player, known, plays)
            if flicker is not None:
                plays.append(flicker)
                loose = []
            for _owner, new, _touched, box in loose:
                if len(new) == 2 and not any(map(_unknown, new)) and not any(
                        set(new) <= set(c.cards) for c in plays):
                    short = _Candidate({"type": "meld", "player": player, "cards": [*new, UNKNOWN]}, 0.0, "",
                                       (*new, UNKNOWN), region=box)
                    # a card taken from the pile this turn and seen nowhere now is the likeliest one: it lies in
                    # the meld, its index under the others (Rummy 500 hand 2: KD taken deep with KC KH, the meld
                    # KC KD KH read as KC KH; asked "KC KH KS?" the players said No and the turn never ended)
                    # (after the draw: the card the referee says the player must still use). Only a card the
                    # rules oblige the player to use: where a card taken may stay in the hand (Basic), the
                    # third card is as likely one from the hand, and the proposal misled (basic hand 3: 26 of
                    # 48 events with it, 48 of 48 without)
                    if phase == Phase.DRAW:
                        must = len(taken) > 1 or bool(self._options.get("top_discard_must_be_used"))
                        pool = taken if must else []
                    else:
                        pool = [c for c in [cur.get("must_use")] if c]
                    hidden = [c for c in pool if (c not in snap.table_cards() or c in self._unexplained)
                              and c not in new and self._legal(
                        {"type": "meld", "player": player, "cards": [*new, c]})]
                    named = (_Candidate(dict(short.event, cards=[*new, hidden[0]]), 0.0, "", (*new, hidden[0]),
                                        region=box) if hidden else self._complete(snap, short, known))
                    if UNKNOWN not in named.cards:
                        named.reason = (f"{player} laid down {' '.join(new)} and a card the camera could not see: "
                                        f"is the meld {' '.join(named.event['cards'])}?")
                        named.renames = ()
                        # asked at once when the cards seen are sure: the turn is over (its discard is seen), so
                        # more looks add no card to the meld, and the next player may take the pile before they
                        # end (Rummy 500 hand 1, taught deck: Ben's 4S 5S 6S waited, Cleo took the 10H deep, and
                        # Ben's discard became Ana's 10D); a name still unsure is looked at again (the demo's
                        # JS, read JC on the first looks)
                        named.ask = self._conf(snap, new) >= self.min_confidence
                        plays.append(named)
        if missed is not None:
            plays.append(missed)
        elif new_discards:
            x = new_discards[0]
            discard = self._complete(snap, _Candidate({"type": "discard", "player": player, "card": x}, 1.0, "",
                                                      (x,)), known)
            # the pile's top read as another card where it lies (the demo's upcard 5D read 6D at 0.8 once Ben had
            # melded, with 5D among its other names): no discard seen for sure, asked
            top = (cur.get("discard") or [None])[-1]
            at, box = self._card_first_box.get(top), snap.boxes.get(x)
            if (top and top != x and top not in snap.table_cards() and at is not None and box is not None
                    and any(a == top for a, _p in snap.alternatives.get(x, ())) and _same_place(box, at)):
                discard.confidence = min(discard.confidence, 0.5 * self.min_confidence)
                discard.reason = f"{x} lies where {top} lay and may be {top} read again: did {player} discard {x}?"
            plays.append(discard)
        elif self._face_down_last(snap, cur, player, plays):
            plays.append(_Candidate({"type": "discard", "player": player, "face_down": True}, 1.0, "", ()))
        for c in plays:
            conf = self._conf(snap, c.cards)
            if conf < c.confidence:
                c.confidence = conf
                c.reason = c.reason or f"not sure of {' '.join(c.cards)} ({conf:.0%})"
        if not plays:
            return self._empty_stock_end(cur, player) if phase == Phase.DRAW else None
        if phase == Phase.DRAW:
            # the cards taken that lie new in the player's zone count as used, even before the play they are
            # in is settled (a deep pickup's cards laid out as a meld whose third card is not read yet)
            # (not a name the camera gave that a play's question renames: basic hand 7, taught deck: Cleo's 3S
            # read 9S, the upcard, whose 9S lay hidden under her discard; the meld "5S 4S 9S" was asked as
            # "5S 4S 3S", but the 9S had been taken as drawn from the pile, and the hand never added up)
            misnamed = {wrong for p in plays for wrong, _right in p.renames}
            used = {c for p in plays for c in p.cards} | (set(taken) & {
                c for o, n, _t, _b in new_groups if o == player for c in n} - misnamed)
            from_discard = top is not None and (top not in snap.discard or len(taken) > 1) and (
                self._top_taken or any(c in used for c in taken))
            ev = {"type": "draw", "player": player, "from": "discard" if from_discard else "stock"}
            deep = [c for c in taken[:-1] if c in used]  # a deep pickup: down to the deepest card used
            if from_discard and deep:
                ev["card"] = deep[0]
            return _Candidate(ev, 1.0, follow=plays[0])
        return plays[0]

    def _flickered_meld(self, snap: TableSnapshot, loose, player: str, known: Counter,
                        plays: list[_Candidate]) -> _Candidate | None:
        """The turn is over and the player's zone holds new cards that make no play, with cards seen there
        earlier this turn that the camera has lost since (a card read while it was put down keeps its name when
        it is covered later): together they are a meld the rules accept, or one card more makes them one.
        Asked (Solitaired hand 1, taught deck: Cleo's 2H 3H 4H 5H was seen as "5H 4H 2H" for two looks, then
        only as "5H" and "2H"; her discard was applied without the meld and the hand never added up)."""
        if loose is None:
            return None
        _o, new, _t, box = loose
        if any(map(_unknown, new)) or any(set(new) & set(c.cards) for c in plays):
            return None
        present = snap.table_cards()
        lost = sorted((c for c, (n, o) in self._zone_last.items()
                       if o == player and n > self._turn_from and c not in present and not known[c] and c not in new
                       and not _unknown(c)), key=lambda c: self._zone_last[c][0])
        if not lost or len(new) + len(lost) < 3:
            return None
        cards = [*new, *lost]
        cand = _Candidate({"type": "meld", "player": player, "cards": cards}, 0.0, "", tuple(cards), region=box)
        if not self._legal(cand.event):
            cand = self._gap_meld(snap, cand, known)
            if not self._legal(cand.event):
                return None
        cand.reason = (f"{player} laid down {' '.join(new)}, and {' '.join(lost)} seen there before: "
                       f"is the meld {' '.join(cand.event['cards'])}?")
        cand.confidence, cand.ask, cand.renames = 0.0, True, ()
        return cand

    def _joined(self, new_groups: list, player: str, melds: list[dict], lay_in_own_zone: bool) -> list:
        """Two groups of new cards in the player's own zone, each too short to be a meld, that together make a
        meld the rules accept, are that meld: a meld laid a little spread is seen as two groups (basic hand 4,
        taught deck: Ana's 5S 6S 7S seen as "5S 6S" and "7S"; her 10C 10H 10S, laid beside it, was applied first
        and every later meld number was one off).  Where a group of one's own zone may be a lay-off (Rummy 500),
        only groups that fit no meld as a lay-off are joined.  Called once the turn is over or another play of
        the player's is seen with them (while the player may still be laying a meld out, it waits: the demo's
        Ana laid JC JH JS, seen as "JH JC" and "JS", and an ace on Cleo's meld seen only after her discard)."""
        small = [i for i, (o, n, t, _b) in enumerate(new_groups) if o == player and not t and len(n) < 3
                 and not any(map(_unknown, n))]
        if lay_in_own_zone:
            small = [i for i in small if not any(
                self._legal({"type": "lay_off", "player": player, "cards": new_groups[i][1], "meld": m["id"]})
                for m in melds)]
        for a, i in enumerate(small):
            for j in small[a + 1:]:
                cards = [*new_groups[i][1], *new_groups[j][1]]
                if len(cards) >= 3 and self._legal({"type": "meld", "player": player, "cards": cards}):
                    joined = (player, cards, set(), union([new_groups[i][3], new_groups[j][3]]))
                    return [joined if k == i else g for k, g in enumerate(new_groups) if k != j]
        return new_groups

    def _gap_meld(self, snap: TableSnapshot, cand: _Candidate, known: Counter) -> _Candidate:
        """A new meld of three or more named cards the rules refuse, and that no other reading of its cards
        makes legal (`_complete` left it as it was), which one more card makes legal: a card the camera could
        not see (classic hand 3, taught deck: Ana's 4D 5D 6D 7D read 4D 6D 7D, sure of each, refused; her
        turn's later plays then did not add up). Asked, with that card (the first the rules accept, any card
        not on the table); the players confirm it or correct it. Unchanged where no one card fits."""
        ev = cand.event
        if ev.get("type") != "meld" or cand.ask or cand.renames or len(cand.cards) < 3:
            return cand
        cards = list(ev.get("cards") or [])
        if any(not isinstance(c, str) or _unknown(c) or c.startswith("JK") for c in cards) or self._legal(ev):
            return cand
        seen = self._named_on_table(snap)
        for a in ALL_CARDS:
            if known[a] or a in seen or a in cards:
                continue
            new_ev = dict(ev, cards=sorted([*cards, a], key=lambda c: ALL_CARDS.index(c) if c in ALL_CARDS else -1))
            if self._legal(new_ev):
                reason = (f"{ev.get('player')} laid down {' '.join(cards)} and a card the camera could not see: "
                          f"is the meld {' '.join(new_ev['cards'])}?")
                return _Candidate(new_ev, min(cand.confidence, self.min_confidence / 2), reason,
                                  tuple(new_ev["cards"]), cand.follow, cand.turn, region=cand.region)
        return cand

    def _named_on_table(self, snap: TableSnapshot) -> set[str]:
        """The cards the camera names on the table, less those set aside on melds as no play (`_unexplained`):
        a card a question may not name for a card the camera could not see or read."""
        return {_physical(c) for c in snap.table_cards() if not _unknown(c)} - self._unexplained

    def _misread_layoff(self, snap: TableSnapshot, cand: _Candidate, known: Counter) -> _Candidate:
        """A lay-off the rules refuse on the meld it lies on, that no other name of the vote makes legal
        (`_complete` left it as it was), and that one of its cards named otherwise makes legal: most likely that
        card is misread, with a name the vote never gave it (basic hand 5, taught deck: Ana laid 3C 2C on the
        run 4C..9C, read "AC 2C", sure of each and refused; the hand never added up).  Asked, with the first
        name the rules accept (the least sure card first; its own suit first, then its own rank, then the
        nearest rank; a card on the table or accounted for is never tried): the players confirm it, correct
        it, or say No (a lay-off that really broke the rules: its cards are then set aside, as when refused).
        Offline (`auto_confirm`) the guess is applied unasked, flagged uncertain, where `guess_unasked` allows."""
        ev = cand.event
        if ev.get("type") != "lay_off" or cand.ask or cand.renames or not isinstance(ev.get("meld"), int):
            return cand
        cards = list(ev.get("cards") or [])
        # (a joker or a card the camera could not name is no natural card: `_declare_joker`, `_complete`)
        if not cards or any(c not in ALL_CARDS for c in cards) or self._legal(ev):
            return cand
        seen = self._named_on_table(snap)

        def likeness(a: str, c: str) -> tuple:
            ra, rc = RANKS.index(a[:-1]), RANKS.index(c[:-1])
            return (a[-1] != c[-1], a[:-1] != c[:-1], abs(ra - rc), ALL_CARDS.index(a))

        for i in sorted(range(len(cards)), key=lambda i: snap.confidence.get(cards[i], 1.0)):
            for a in sorted((a for a in ALL_CARDS if not known[a] and a not in seen and a not in cards),
                            key=lambda a: likeness(a, cards[i])):
                names = [*cards[:i], a, *cards[i + 1:]]
                new_ev = dict(ev, cards=names)
                if self._legal(new_ev):
                    reason = (f"the rules refuse what the camera read ({' '.join(cards)} on meld {ev['meld']}): "
                              f"is it {' '.join(names)}?")
                    return _Candidate(new_ev, min(cand.confidence, self.min_confidence / 2), reason, tuple(names),
                                      cand.follow, cand.turn, renames=((cards[i], a),), region=cand.region)
        return cand

    def _beside_meld(self, player: str, owner: str, new: list[str], melds: list[dict]) -> int | None:
        """The meld of `owner`'s that `new` (cards that came to `owner`'s zone after the last turn's discard,
        touching no meld) is a lay-off on, where the rules put lay-offs on the meld itself (not Rummy 500's own
        zone): the one meld of theirs the referee accepts them on; None when none or several do, or when a card
        came by the last discard (an earlier turn's, unexplained)."""
        if any(self._in_zone.get(c, self._snaps) <= self._turn_from for c in new):
            return None
        ev = {"type": "lay_off", "player": player, "cards": list(new)}
        fit = [m["id"] for m in melds if m.get("owner") == owner and self._legal(dict(ev, meld=m["id"]))]
        return fit[0] if len(fit) == 1 else None

    def _stood_in(self, snap: TableSnapshot, new: list[str], touched: set[int], melds: list[dict],
                  player: str, known: Counter) -> list[str]:
        """The new cards of a group lying on a meld, less those that are one of the meld's own cards read
        anew, when the rules refuse them as a lay-off there: the vote also read the new card as a card of the
        meld (the 3C's other index read 3S), or a card of the meld is not seen now and the new card shares its
        rank or its suit (3S in the place of the 3C of 3C 4C 5C: the one-deck rule and the meld as it was put
        down say it is the 3C), or the vote also read it as another of the new cards (that card's other index).
        A card the rules accept stays new, and so does one whose vote gave, before the meld card's name (or at
        all, for a meld card unseen), a name of a card still in the players' hands that the rules accept there:
        that is a new card misread, for `_complete` to ask about (classic hand 3, taught deck: Ana's 3S at the
        low end of 4S..7S, read 9S with 3S, 5S its second choices, was taken for the 5S read anew, and the
        lay-off was never seen)."""
        if len(touched) != 1 or not new:
            return new
        mid = next(iter(touched))
        meld = next((m for m in melds if m["id"] == mid), None)
        if meld is None:
            return new
        present = snap.table_cards()
        own = [_physical(c) for c in meld.get("cards", [])]
        unseen = {c for c in own if c not in present}
        ev = {"type": "lay_off", "player": player, "cards": list(new), "meld": mid}
        if self._legal(ev):
            return new

        seen = self._named_on_table(snap)
        alts = {c: [a for a, _w in snap.alternatives.get(c, ())] for c in new}

        def fits(c: str) -> int:
            # where among the vote's names for `c` the first comes that the rules accept there as a card from
            # a hand (not on the table, not accounted for); len: none does
            others = [x for x in new if x != c]
            for i, a in enumerate(alts[c]):
                if a in ALL_CARDS and a not in seen and a not in new and not known[a] \
                        and self._legal(dict(ev, cards=[*others, a])):
                    return i
            return len(alts[c])

        fit = {c: fits(c) for c in new}  # (each asks the referee: once a card)

        def like(c: str, m: str) -> int:
            # a meld card not seen now: a card like it in its place is it; one seen: the vote read the new one
            # as it too (its other index, read as another card), and not first as a card the rules accept
            # there. 0: not alike; the higher, the likelier
            if m in alts[c]:
                return 3 if alts[c].index(m) < fit[c] else 0
            if m in unseen and not _unknown(c) and not c.startswith("JK") and fit[c] == len(alts[c]):
                return 2 if c[:-1] == m[:-1] else 1 if c[-1] == m[-1] else 0
            return 0

        # the first meld card whose stand-in, taken out, leaves nothing or a lay-off the rules accept; then the
        # new cards themselves: one the vote also named as another new card is that card's other index (basic
        # hand 3, taught deck: Ana's 8S on 8H 8D 8C also read "10S", with 8S its second choice, and the lay-off
        # "8S 10S" was asked, answered No, and never seen again)
        for m in [*own, *new]:
            for c in sorted((c for c in new if c != m and like(c, m)), key=lambda c: -like(c, m)):
                rest = [x for x in new if x != c]
                if not rest or self._legal(dict(ev, cards=rest)):
                    return rest
        return new

    def _declare_joker(self, cand: _Candidate, turn_key: tuple) -> _Candidate:
        """A meld or lay-off with a joker the camera sees only as ``JK``: the referee needs the card it stands
        for (R500-6). One joker whose only legal card is clear (7H JK 9H: the 8H) is declared so; otherwise
        (two cards would do, or two jokers) the players are asked, with the first legal one proposed."""
        cards = cand.event.get("cards") or []
        if cand.event.get("type") not in ("meld", "lay_off") or "JK" not in cards:
            return cand
        key = (repr(sorted(cand.event.items())), turn_key)
        if key not in self._joker_memo:
            options = []
            if cards.count("JK") == 1:
                i = cards.index("JK")
                for c in ALL_CARDS:
                    ev = dict(cand.event, cards=cards[:i] + [f"JK={c}"] + cards[i + 1:])
                    if self._legal(ev):
                        options.append(ev)
            self._joker_memo = {key: options}  # one turn's looks only
        options = self._joker_memo[key]
        if len(options) == 1:
            return _Candidate(options[0], cand.confidence, cand.reason, cand.cards)
        named = options[0] if options else cand.event
        return _Candidate(named, 0.0, f"which card does the joker stand for in {' '.join(cards)}?", cand.cards,
                          ask=True)

    MAX_UNSURE = 4  # cards of one play whose other names `_complete` tries (at most 4**4 dry runs)

    def _complete(self, snap: TableSnapshot, cand: _Candidate, known: Counter) -> _Candidate:
        """A meld or lay-off the rules refuse with the camera's names, whose cards the vote also read as other
        names (`snap.alternatives`), or any event with a card the camera found but could not name ("?12"):
        the likeliest set of names the referee accepts (each card's certainty for its own name, its vote share
        for another; for one unnamed card, after its guesses, any card not on the table; names already on the
        table are not tried) becomes a question ("the rules refuse what the camera read (7S 7D 8S): is it 7S 7D
        7C?"): the players confirm it or correct it (`correct`). Unchanged when nothing fits: the referee then
        refuses it and its cards are set aside."""
        ev = cand.event
        kind = ev.get("type")
        key = "cards" if kind in ("meld", "lay_off", "reveal") else "card" if kind == "discard" else \
            "upcard" if kind == "deal" else None
        if key is None or cand.ask or not cand.cards:
            return cand
        cards = list(ev.get("cards") or []) if key == "cards" else [ev.get(key)]
        if any(not isinstance(c, str) or c.startswith("JK") for c in cards):
            return cand
        has_unknown = any(_unknown(c) for c in cards)
        if not has_unknown and (kind not in ("meld", "lay_off") or not snap.alternatives or self._legal(ev)):
            return cand
        seen = self._named_on_table(snap)
        options: list[list[tuple[str, float]]] = []
        for c in cards:
            own = [] if _unknown(c) else [(c, max(1e-3, snap.confidence.get(c, 1.0)))]
            alts = [(a, max(1e-3, w)) for a, w in snap.alternatives.get(c, ())
                    if known[a] == 0 and a not in cards and (a not in seen or not _unknown(c))]
            if _unknown(c) and sum(map(_unknown, cards)) == 1:
                # one card nobody could read: any card not on the table may be it, the guesses first
                alts += [(a, 1e-4) for a in ALL_CARDS if known[a] == 0 and a not in seen and a not in cards
                         and all(a != x for x, _w in alts)]
            options.append(own + alts)
        if any(not o for o in options):
            return cand  # a card nothing can name: the referee refuses it, the players fix the table
        unsure = sorted((i for i in range(len(cards)) if len(options[i]) > 1 or _unknown(cards[i])),
                        key=lambda i: options[i][0][1] if not _unknown(cards[i]) else -1.0)[:self.MAX_UNSURE]
        if not unsure or any(_unknown(cards[i]) for i in range(len(cards)) if i not in unsure):
            return cand
        tried = []
        for combo in itertools.product(*(options[i][:60] for i in unsure)):
            names = list(cards)
            score = 1.0
            for i, (name, w) in zip(unsure, combo, strict=True):
                names[i] = name
                score *= w
            if len(set(names)) < len(names):
                continue
            tried.append((score, names))
            if len(tried) > 400:
                break
        for score, names in sorted(tried, key=lambda x: -x[0]):
            if names == cards:
                continue
            new_ev = dict(ev, **({"cards": names} if key == "cards" else {key: names[0]}))
            if kind in ("meld", "lay_off", "discard") and not self._legal(new_ev):
                continue
            if kind in ("deal", "reveal") and not self.referee.check(new_ev).ok:
                continue
            renames = tuple((a, b) for a, b in zip(cards, names, strict=True) if a != b)
            said = " ".join(names)
            shown = " ".join("?" if _unknown(c) else c for c in cards)
            why = "a card the camera could not read" if has_unknown else "the rules refuse what the camera read"
            return _Candidate(new_ev, min(cand.confidence, 0.5 * score, self.min_confidence / 2),
                              f"{why} ({shown}): is it {said}?", tuple(names), cand.follow, cand.turn,
                              cand.short, renames=renames, region=cand.region)
        return cand

    def _spread_discard(self, snap: TableSnapshot, cur: dict, player: str, new_discards: list[str],
                        known: Counter) -> list[str]:
        """On a spread pile (Rummy 500) the turn's discard is the first new card seen on top this turn: while the
        turn waits on a question, the next player may draw and discard on it, and the camera sees the newer card
        on top, the first one under it or, losing it a moment, not at all. The first card stands when it is in no
        player's zone, and it came before the card on top now, which is not a reading of the same card (not among
        its other names)."""
        if self._options.get("discard_draw") != DiscardDraw.TOP_OR_DEEP:
            return new_discards
        turn = (cur.get("number"), player)
        if self._turn_top is None or self._turn_top[:2] != turn:
            self._turn_top = (*turn, new_discards[0]) if new_discards else None
            return new_discards
        first = self._turn_top[2]
        if first is None or not new_discards or new_discards[0] == first or known[first] \
                or first in snap.zone_cards():
            return new_discards
        x = new_discards[0]
        if first in snap.discard and self._arrived.get(first, 0) >= self._arrived.get(x, 0):
            return new_discards  # both on the pile: the one seen first is the turn's, if it came first
        if first in {a for a, _p in snap.alternatives.get(x, ())} or x in {a for a, _p in snap.alternatives.get(first, ())}:
            return new_discards
        return [first]

    def _seen_deep(self, taken: list[str], snap: TableSnapshot, turn: tuple) -> list[str]:
        """A deep pickup seen this turn stays taken when one of its cards comes back on top of the pile: the
        player discarded it.  Read now, the pile may not show the pickup whole any more: a card under the one
        discarded back is hidden by it (Rummy 500 hand 2: Cleo took the pile down to 9H, laid 8H 9H 10H and
        discarded the 9C back on the 10D; the 9H had lain unseen under the 9C since it was discarded, so "10D 9C"
        read as only the 10H taken, the 9C as no discard, and the hand lost 30 of its 91 events)."""
        if len(taken) > 1:
            if self._deep_taken[0] != turn or len(taken) > len(self._deep_taken[1]):
                self._deep_taken = (turn, list(taken))
            return taken
        if self._deep_taken[0] != turn or len(self._deep_taken[1]) <= len(taken) or not snap.discard:
            return taken
        back = [c for c in self._deep_taken[1] if c in snap.discard]
        return list(self._deep_taken[1]) if back == [snap.discard[-1]] else taken

    def _taken_from_pile(self, pile: list[str], seen: tuple[str, ...]) -> list[str]:
        """The cards off the top of the pile that are no longer there (deepest first): the top card, or where
        the rules allow a deep pickup, every card above the highest one still seen (all, if none is)."""
        if self._options.get("discard_draw") != DiscardDraw.TOP_OR_DEEP:
            return pile[-1:]
        visible = set(seen)
        k = 0
        while k < len(pile) and pile[-1 - k] not in visible:
            k += 1
        if not set(pile[:len(pile) - k]) <= visible:
            return pile[-1:]  # the pile does not show whole as a shorter pile: no deep pickup read from it
        return pile[len(pile) - k:]

    def _taken_under_top(self, pile: list[str], snap: TableSnapshot, player: str) -> list[str]:
        """A deep pickup whose top card is back on the pile (Rummy 500: the player discarded one of the cards
        taken, and the camera saw the pile only after): cards under the top have left the pile for the current
        player's zone. The cards from the deepest of them up (deepest first), or none; only when every card
        above it is gone from the pile but one, on top again (or, when it was the first card seen on top this
        turn, under cards new to the pile: the next player discarded on it while this turn waited on a
        question)."""
        if self._options.get("discard_draw") != DiscardDraw.TOP_OR_DEEP or len(pile) < 2:
            return []
        on_pile = set(snap.discard)
        mine = snap.player_cards(player)
        moved = [i for i, c in enumerate(pile[:-1]) if c not in on_pile and c in mine and pile.count(c) == 1]
        if not moved:
            return []
        taken = pile[moved[0]:]
        back = [c for c in taken if c in on_pile]
        if len(back) > 1:
            return []
        # the card back on the pile lies on top, or, seen on top first this turn, under cards new to the pile
        # only (the next player's discard)
        if back and back[0] != snap.discard[-1]:
            above = snap.discard[len(snap.discard) - snap.discard[::-1].index(back[0]):]
            if self._turn_top != (self._hand, player, back[0]) or any(c in pile for c in above):
                return []
        return taken

    def _face_down_last(self, snap: TableSnapshot, cur: dict, player: str, plays: list[_Candidate]) -> bool:
        """A face-down card on the pile is the current player's last card (CGI-4) when, after the plays seen,
        exactly one card is left in that hand and the referee accepts it."""
        if not self._options.get("final_discard_face_down") or snap.backs.get(DISCARD, 0) <= 0:
            return False
        held = int((cur.get("hand_counts") or {}).get(player, 0)) + (1 if cur.get("phase") == Phase.DRAW else 0)
        held -= sum(len(c.cards) for c in plays)
        return held == 1 and (bool(plays) or self._legal({"type": "discard", "player": player, "face_down": True}))

    def _empty_stock_end(self, cur: dict, player: str) -> _Candidate | None:
        """On an empty stock that cannot be turned over, where the rules end the hand there (R500-10): ask the
        table, since the player may still take from the pile. Offline (`auto_confirm`) nobody can answer, so
        nothing is asked."""
        if self.auto_confirm or cur.get("stock_count") != 0:
            return None
        turn = (cur.get("number"), player, len(cur.get("discard") or []))
        if turn == self._declined_end:
            return None
        if self.referee.check({"type": "draw", "player": player, "from": "stock"}).ok:
            return None  # the pile is turned over into a new stock: play goes on
        ev = {"type": "end_hand", "reason": "stock_empty"}
        if not self.referee.check(ev).ok:
            return None
        return _Candidate(ev, 0.0, f"the stock is empty: does the hand end here, before {player} plays?", (), turn=turn)

    def _missed_discard(self, player: str, new_groups: list, cur: dict, known: Counter | None = None,
                        seen: frozenset = frozenset()) -> _Candidate | None:
        """Nothing to see for the current player (or only a discard, which is then the next player's), but the
        next one shows a new meld: the discard was picked up before the camera could see it. Proposes the
        discard of the meld's card that makes the sequence legal (discard, pickup, meld); always as an unsure
        event. A new group of two cards is taken as a meld whose third card the camera has not seen (any card
        not on the table that makes the sequence legal)."""
        players = list((cur.get("hand_counts") or {}).keys()) or []
        if player not in players:
            return None
        nxt = players[(players.index(player) + 1) % len(players)]
        drawn = [] if cur.get("phase") != Phase.DRAW else [{"type": "draw", "player": player, "from": "stock"}]
        guess = known is not None  # the players are there to answer a guess
        theirs = _loose(new_groups, nxt) if guess else [g for g in new_groups if g[0] == nxt and not g[2]]
        for _owner, new, _touched, box in theirs:
            if len(new) < 2 or any(map(_unknown, new)) or (len(new) < 3 and not guess):
                continue
            thirds = [()] if len(new) >= 3 else [
                (t,) for t in ALL_CARDS if known[t] == 0 and t not in seen and t not in new]
            for x in new:
                if (cur.get("number"), player, x) in self._declined_guesses:
                    continue
                seq = [*drawn, {"type": "discard", "player": player, "card": x},
                       {"type": "draw", "player": nxt, "from": "discard"}]
                if not any(self.referee.check({"type": "meld", "player": nxt, "cards": [*new, *t]}, after=seq).ok
                           for t in thirds):
                    continue
                # asked at once: more looks at the table do not show a card that is gone (and the table moves on)
                return _Candidate(seq[len(drawn)], 0.0, f"{player}'s discard was picked up before it was seen: {x}?",
                                  (x,), region=box, ask=guess, guess=(cur.get("number"), player, x))
        return None

    def _legal(self, ev: dict) -> bool:
        """Whether the referee would accept the event now, after the (hidden) draw if the turn has not seen one
        yet (the referee's dry run: nothing changes)."""
        cur = self.referee.public_state().get("current") or {}
        after = []
        if cur.get("phase") == Phase.DRAW and ev.get("type") in ("meld", "lay_off", "discard"):  # not a call
            pile = [_physical(c) for c in cur.get("discard") or []]
            used = {_physical(c) for c in ev.get("cards", [])}
            draw = {"type": "draw", "player": cur.get("current_player"), "from": "stock"}
            deep = [i for i, c in enumerate(pile) if c in used]
            if self._options.get("discard_draw") == DiscardDraw.TOP_OR_DEEP and deep and deep[0] < len(pile) - 1:
                draw.update({"from": "discard", "card": pile[deep[0]]})  # the deepest card used, and all above it
            elif pile and pile[-1] in used:
                draw["from"] = "discard"
            after.append(draw)
        return self.referee.check(ev, after=after).ok

    def _ambiguous_layoff(self, ev: dict, ids: list[int], new: list[str]) -> _Candidate:
        """A group touching several melds: keep the melds the referee accepts the cards on."""
        legal = [i for i in ids if self._legal(dict(ev, meld=i))]
        if len(legal) == 1:
            return _Candidate(dict(ev, meld=legal[0]), 1.0, "", tuple(new))
        pick = legal[0] if legal else ids[0]
        return _Candidate(dict(ev, meld=pick), 0.0,
                          f"{' '.join(new)} could go on melds {', '.join(map(str, ids))}: meld {pick}?", tuple(new),
                          ask=len(legal) > 1)
