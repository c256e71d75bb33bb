"""Scripted games for recordings and tests: a legal hand of `basic` Rummy, played greedily, and the
table it leaves after every step.

    script = script_hand(rng, ["Ana", "Ben", "Cleo"], dealer="Ana")
    script.events          # full-information events (the deal with hands, stock draws with their card)
    script.expected_log()  # what a camera can know: the contract's hidden-hand log (match line first)
    for step in script.steps: step.table, step.action   # table after each event; what changed and where

Pure Python and the referee; no images (vision/synth/recording.py draws the steps).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from referee.cards import ALL_CARDS as DECK
from referee.cards import RANKS, SUITS, rank_of
from referee.options import DiscardDraw, Scoring
from referee.sim import hidden_event

HAND_SIZE = {2: 10, 3: 7, 4: 7}


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
        return [hidden_event(e) for e in self.events]

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
                rules: str = "basic", options: dict | None = None, call_prob: float = 0.35) -> Script | None:
    """One hand, played greedily by every player, checked by the referee. None if the stock ran out (or the
    hand stalled). Every rule system: the hand size, lay-offs only after one's own meld (`solitaired`), and in
    `rummy500` deep pickups (down to a pile card that makes a meld), lay-offs put in the layer's own zone, and
    "Rummy!" calls: with probability `call_prob` a player keeps back a card that fits a meld and discards it,
    and the nearest other player who can lay it off calls and does. The greedy player does not use jokers:
    Rummy 500 hands are scripted with `jokers_per_deck: 0` unless `options` say otherwise (then the jokers
    stay in the stock and the hand may still be played). Two decks are not scripted."""
    from referee import Match

    n = len(players)
    match = {"type": "match", "rules": rules, "players": list(players)}
    opts = dict(options or {})
    if rules == "rummy500":
        opts.setdefault("jokers_per_deck", 0)
    if opts:
        match["options"] = opts
    ref = Match(match)
    R = ref.rules
    if R.decks != 1:
        raise ValueError("scripted hands are one-deck hands")
    own_zone = R.scoring == Scoring.MELD_MINUS_HAND  # Rummy 500: a lay-off lies before the layer (R500-7)
    deep_ok = R.discard_draw == DiscardDraw.TOP_OR_DEEP
    calls = bool(R.rummy_call) and call_prob > 0
    deck = list(DECK) + ["JK"] * ref.deck.get("JK", 0)
    rng.shuffle(deck)
    d = players.index(dealer)
    order = [players[(d + 1 + i) % n] for i in range(n)]
    hands: dict[str, list[str]] = {p: [] for p in players}
    for _ in range(R.hand_size):
        for p in order:
            hands[p].append(deck.pop())
    up = deck.pop()
    stock = deck
    table = Table(pile=[up])
    events: list[dict] = []
    steps: list[Step] = []
    melded = {p: False for p in players}
    layoffs = 0

    def do(ev, actor, where):
        v = ref.apply(hidden_event(ev))  # the referee sees what the camera can: hidden hands
        if not v.ok:
            raise AssertionError(f"scripted event refused: {ev}: {v.code} {v.message}")
        events.append(ev)
        steps.append(Step(ev, table.copy(), actor, where))
        cur = ref.public_state().get("current")
        return cur["phase"] if cur else "over"

    def lay_off(p, c, m):
        nonlocal layoffs
        how = _extends(m["cards"], c)
        hands[p].remove(c)
        if own_zone:  # in front of the layer, apart from the meld; the meld's own cards stay as they are
            layoffs += 1
            m.setdefault("laid", []).append(c)
            table.melds.append({"id": f"L{layoffs}", "zone": p, "cards": [c], "base": 0, "of": m["id"]})
        elif how == "low":
            m["cards"].insert(0, c)
            m["base"] -= 1
        else:
            m["cards"].append(c)
        do({"type": "lay_off", "player": p, "cards": [c], "meld": m["id"]}, p,
           f"zone:{p if own_zone else m['zone']}")

    def fits(c):
        """The table meld a card can be laid off on (the meld with what was laid off on it), else None."""
        for m in table.melds:
            if isinstance(m["id"], int) and _extends(sorted(m["cards"] + m.get("laid", []), key=rank_of)
                                                     if not _is_set(m["cards"]) else m["cards"] + m.get("laid", []),
                                                     c) is not None:
                return m
        return None

    def meld_all(p, must=None):
        for meld in _meld_options([c for c in hands[p] if c != "JK"]):
            for c in meld:
                hands[p].remove(c)
            table.melds.append({"id": len([m for m in table.melds if isinstance(m["id"], int)]) + 1, "zone": p,
                                "cards": list(meld), "base": 0})
            melded[p] = True
            do({"type": "meld", "player": p, "cards": list(meld)}, p, f"zone:{p}")
            if not hands[p]:
                return

    def lay_offs(p, taken, keep=None):
        changed = True
        while changed and hands[p]:
            changed = False
            if R.layoff_requires_own_meld and not melded[p]:
                return
            for c in sorted(hands[p], key=rank_of):
                if c == "JK" or c == keep:
                    continue
                m = fits(c)
                if m is None:
                    continue
                if len(hands[p]) == 1 and c == taken:
                    continue
                lay_off(p, c, m)
                changed = True
                break

    do({"type": "deal", "dealer": dealer, "upcard": up, "hands": {p: list(h) for p, h in hands.items()}},
       None, "discard")
    turn = 0
    seat = 0  # whose turn: order[seat % n]
    out_player = None
    caller = None  # a player who called "Rummy!" goes on with the turn; play continues from their left
    while out_player is None:
        if turn >= max_turns or not stock:
            return None
        turn += 1
        if caller is not None:
            p, caller = caller, None
            seat = order.index(p) + 1
            taken = None
        else:
            p = order[seat % n]
            seat += 1
            hand = hands[p]
            top = table.pile[-1] if table.pile else None
            taken = None
            deep = None
            if deep_ok and len(table.pile) > 1:
                for i in range(len(table.pile) - 2, -1, -1):
                    x = table.pile[i]
                    if x != "JK" and any(x in m for m in _meld_options([c for c in hand if c != "JK"] + table.pile[i:])):
                        deep = i
                        break
            if top is not None and top != "JK" and any(top in m for m in _meld_options(hand + [top])):
                taken = table.pile.pop()
                hand.append(taken)
                do({"type": "draw", "player": p, "from": "discard"}, p, "discard")
            elif deep is not None:
                x = table.pile[deep]
                got, table.pile[deep:] = table.pile[deep:], []
                hand.extend(got)
                do({"type": "draw", "player": p, "from": "discard", "card": x}, p, "discard")
            else:
                c = stock.pop()
                hand.append(c)
                do({"type": "draw", "player": p, "from": "stock", "card": c}, p, "stock")
        hand = hands[p]
        meld_all(p)
        keep = None
        if calls and hand and rng.random() < call_prob:
            fit = [c for c in hand if c != "JK" and fits(c) is not None]
            if fit and len(hand) > 1:
                keep = fit[0]  # held back, to be discarded: it could have been played
        lay_offs(p, taken, keep)
        if not hand:
            out_player = p
            break
        choices = [c for c in hand if c != taken] or hand
        x = keep if keep in hand and keep != taken else max(choices, key=lambda c: (value_of(c), rank_of(c), c))
        hand.remove(x)
        table.pile.append(x)
        phase = do({"type": "discard", "player": p, "card": x}, p, "discard")
        if not hand:
            out_player = p
        elif phase not in ("draw", "play"):
            return None  # a stalemate (everyone holds one card): not a useful recording
        elif x == keep and ref.public_state()["current"].get("rummy_call_open"):
            # the nearest other player (clockwise) calls "Rummy!" and lays the card off (R500-9); the next
            # player would simply take it as their draw, so the callers are the ones after that
            i = order.index(p)
            for k in range(2, n):
                q = order[(i + k) % n]
                m = fits(x)
                if m is None or (R.layoff_requires_own_meld and not melded[q]):
                    break
                table.pile.pop()
                hands[q].append(x)
                do({"type": "call_rummy", "player": q, "card": x}, q, "discard")
                lay_off(q, x, m)
                caller = q
                break
    cur = ref.public_state()["current"] or {}
    for p in list(cur.get("awaiting_reveal") or []):
        table.reveals[p] = list(hands[p])
        do({"type": "reveal", "player": p, "cards": list(hands[p])}, p, f"zone:{p}")
    cur = ref.public_state().get("current")
    if cur is not None and cur.get("phase") != "over":
        return None
    return Script(match, dealer, events, steps)


def _is_set(cards: list[str]) -> bool:
    return all(c[:-1] == cards[0][:-1] for c in cards)


PLAYER_COUNTS = {"basic": (2, 3), "classic": (2, 3, 4), "solitaired": (4,), "rummy500": (2, 3, 4)}
NAMES = ["Ana", "Ben", "Cleo", "Dan", "Eva", "Finn"]


def scripted_hands(n_hands: int, seed: int = 0, rules: str = "basic"):
    """(i, players, dealer, script) for `n_hands` playable scripted hands of a rule system, the player counts
    of `PLAYER_COUNTS` in turn, the deal passing round; the same seed gives the same hands (used by `evaluate`
    and the benchmarks; `basic` gives the hands it always gave: 2 and 3 players in turn)."""
    counts = PLAYER_COUNTS[rules]
    k = 0
    for i in range(n_hands):
        players = NAMES[: counts[i % len(counts)]]
        dealer = players[i % len(players)]
        script = None
        while script is None:
            script = script_hand(np.random.default_rng(seed * 100003 + k), players, dealer, rules=rules)
            k += 1
        yield i, players, dealer, script
