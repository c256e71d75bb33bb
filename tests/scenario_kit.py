"""Helpers for tests/test_scenarios.py: write a game log (contracts/game-log.md) and replay it.

A `Game` is a small fluent log writer. Every helper appends one event (a dict; `raw()` appends any text)
and remembers what the test expects of it: accepted (default) or refused (`bad=` a code, a tuple of
acceptable codes, or True for "refused, any code"). `check()` replays the whole log through
`referee.replay_lines` (the contract's `replay --json` object) and asserts, line by line, that every event
was accepted or refused as expected; it returns the replay result.

To write the events the kit keeps its own picture of the table in full-information mode (the hands it
dealt, the stock = the rest of the deck, the discard pile, whose turn it is) so that tests can ask for
"a boring card from the stock" (`idle`, `cycle`) and fill the hands with filler cards that do not
interfere. Only events expected to be accepted update that picture. The kit never decides what the
referee must answer: expectations are written in the tests.
"""

from __future__ import annotations

import copy
import json
import os
import warnings
from collections import Counter

import referee

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
SUITS = ["S", "H", "D", "C"]
JOKER = "JK"

# Refused events whose code differs from the one the test names. Not a failure unless
# SCENARIO_STRICT_CODES=1: the lead may still rename a few codes (see tests/SCENARIO_NOTES.md).
CODE_MISMATCHES: list[tuple[str, int, object, object]] = []
STRICT_CODES = os.environ.get("SCENARIO_STRICT_CODES") == "1"


class CodeMismatchWarning(UserWarning):
    pass


class MAYBE:
    """Expectation marker: the verdict of this line is asserted by the test itself (either is acceptable)."""


def cards(spec) -> list[str]:
    """'AS 2S 3S' -> ['AS', '2S', '3S']; lists pass through."""
    if spec is None:
        return []
    if isinstance(spec, str):
        return spec.split()
    return list(spec)


_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


def canon(card: str) -> str:
    """The canonical spelling of a card written in any of the contract's input forms ('T♦', 'jd', 'JK=8S')."""
    c = card.strip()
    if c.upper().startswith("JK"):
        return c.upper()
    suit = _SUIT_SYMBOLS.get(c[-1], c[-1].upper())
    rank = c[:-1].upper()
    return ("10" if rank == "T" else rank) + suit


def natural(card: str) -> str:
    """'JK=8S' -> 'JK' (the physical card), other spellings -> canonical."""
    return JOKER if card.upper().startswith("JK") else canon(card)


def rank_num(card: str) -> int:
    return RANKS.index(card[:-1]) + 1


def basic_value(card: str, ace15: bool = False) -> int:
    r = card[:-1]
    if r == "A":
        return 15 if ace15 else 1
    if r in ("J", "Q", "K"):
        return 10
    return int(r)


def basic_points(spec, ace15: bool = False) -> int:
    return sum(basic_value(c, ace15) for c in cards(spec))


def r500_hand_value(card: str) -> int:
    """Value of a card left in hand in Rummy 500 (SPEC §5.2, default values)."""
    if natural(card) == JOKER:
        return 15
    r = card[:-1]
    if r == "A":
        return 15
    if r in ("J", "Q", "K"):
        return 10
    return int(r)


def r500_hand_points(spec) -> int:
    return sum(r500_hand_value(c) for c in cards(spec))


def hand_size(rules: str, n: int) -> int:
    if rules == "solitaired":
        return 7
    if rules == "basic":
        return 10 if n == 2 else 7
    if rules == "classic":
        return 10 if n == 2 else (7 if n <= 4 else 6)
    if rules == "rummy500":
        return 13 if n == 2 else 7
    raise ValueError(rules)


def full_deck(decks: int = 1, jokers: int = 0) -> Counter:
    deck = Counter()
    for s in SUITS:
        for r in RANKS:
            deck[r + s] += decks
    if jokers:
        deck[JOKER] += jokers
    return deck


# Filler order: ranks spread out, suits rotating, so that consecutive fillers rarely combine.
_RANK_ORDER = ["K", "9", "5", "Q", "8", "4", "J", "7", "3", "10", "6", "2", "A"]
FILL_ORDER = [r + SUITS[(i + j) % 4] for i, r in enumerate(_RANK_ORDER) for j in range(4)]


def _conflict(c: str, hand: list[str]) -> int:
    """How much a filler card could combine with a hand (same rank, or near in the same suit)."""
    cost = 0
    for h in hand:
        h = natural(h)
        if h == JOKER:
            continue
        if h[:-1] == c[:-1]:
            cost += 10
        elif h[-1] == c[-1]:
            d = abs(rank_num(h) - rank_num(c))
            if d <= 2 or d >= 11:  # ace high/low neighbourhood
                cost += 3
    return cost


class Game:
    """A game log under construction, with the kit's own picture of the table."""

    def __init__(self, rules: str, n: int = 4, options: dict | None = None, players: list[str] | None = None):
        self.rules = rules
        self.players = list(players) if players else [f"P{i}" for i in range(1, n + 1)]
        self.n = len(self.players)
        self.options = dict(options or {})
        setup: dict = {"type": "match", "rules": rules, "players": self.players}
        if options is not None:
            setup["options"] = dict(options)
        self.lines: list = [setup]
        self.expect: dict[int, object] = {}
        if rules == "rummy500":
            decks = self.options.get("decks", 2 if self.n >= 5 else 1)
            jokers = self.options.get("jokers_per_deck", 2)
        else:
            decks, jokers = 1, 0
        self.deck = full_deck(decks, decks * jokers)
        self.size = self.options.get("hand_size", hand_size(rules, self.n))
        self.hands: dict[str, list[str]] = {p: [] for p in self.players}
        self.stock: Counter = Counter()
        self.pile: list[str] = []
        self.table: list[list[str]] = []
        self.reserved: Counter = Counter()
        self.hidden = False
        self.turn: str | None = None
        self.dealer: str | None = None
        self.exhaustions = 0
        self.over = False
        self._res: dict | None = None

    # ----------------------------------------------------------------- basics
    def copy(self) -> Game:
        return copy.deepcopy(self)

    def left(self, p: str, k: int = 1) -> str:
        return self.players[(self.players.index(p) + k) % self.n]

    def add(self, event, bad=None) -> int:
        """Append an event (dict, or raw text for a JSON line); returns its line number (match = line 1)."""
        self.lines.append(event)
        self.expect[len(self.lines)] = bad
        self._res = None
        return len(self.lines)

    def raw(self, text: str, bad=None) -> int:
        return self.add(text, bad)

    def text_lines(self, upto: int | None = None) -> list[str]:
        out = []
        for ev in self.lines[:upto]:
            out.append(ev if isinstance(ev, str) else json.dumps(ev))
        return out

    def result(self, upto: int | None = None) -> dict:
        """The replay result of the log (or of its first `upto` lines)."""
        if upto is not None:
            return referee.replay_lines(self.text_lines(upto))
        if self._res is None:
            self._res = referee.replay_lines(self.text_lines())
        return self._res

    def entry(self, line: int) -> dict:
        res = self.result()
        e = res["events"][line - 2]
        assert e["line"] == line, f"events[] out of step: {e} for line {line}"
        return e

    def describe(self, line: int) -> str:
        return json.dumps(self.lines[line - 1]) if not isinstance(self.lines[line - 1], str) else self.lines[line - 1]

    def check(self) -> dict:
        """Replay and assert every event's verdict against the expectations; returns the replay result."""
        res = self.result()
        assert len(res["events"]) == len(self.lines) - 1, "one events[] entry per line after the first"
        for line in range(2, len(self.lines) + 1):
            e = self.entry(line)
            exp = self.expect[line]
            if exp is MAYBE:
                continue
            if exp is None:
                assert e["ok"] is True, (
                    f"line {line} {self.describe(line)} was refused: {e.get('code')}: {e.get('message')}")
            else:
                assert e["ok"] is False, f"line {line} {self.describe(line)} was accepted; expected refusal {exp}"
                assert e.get("code"), f"line {line}: a refusal needs a code"
                assert e.get("message"), f"line {line}: a refusal needs a message"
                if exp is not True:
                    want = exp if isinstance(exp, tuple) else (exp,)
                    if e["code"] not in want:
                        msg = f"line {line} {self.describe(line)}: code {e['code']!r}, test expected {want}"
                        CODE_MISMATCHES.append((self.rules, line, want, e["code"]))
                        if STRICT_CODES:
                            raise AssertionError(msg)
                        warnings.warn(msg, CodeMismatchWarning, stacklevel=2)
        return res

    def hands_out(self) -> list[dict]:
        return self.result()["hands"]

    def totals(self) -> dict:
        return self.result()["totals"]

    def public_state(self) -> dict:
        """The engine's own view (Python API, docs/REFEREE_API.md), for what the contract does not show."""
        m = referee.Match.from_log(self.text_lines())
        return m.public_state()

    # ------------------------------------------------------------ the deal
    def _avail(self) -> Counter:
        used = Counter()
        for h in self.hands.values():
            used.update(natural(c) for c in h)
        return self.deck - used

    def deal(self, dealer: str | None = None, hands: dict | None = None, upcard: str | None = None,
             reserve=(), hidden: bool = False, sizes: dict | None = None, fill: bool = True,
             bad=None) -> int:
        """A `deal`. `hands` gives some cards of some players; the rest is filled with filler cards that
        avoid `reserve` and every card named here. `sizes` overrides the hand size per player
        (to build a wrong-size deal). `hidden=True` writes a deal without `hands`."""
        dealer = dealer or self.players[-1]
        spec = {p: cards(v) for p, v in (hands or {}).items()}
        named = Counter()
        for h in spec.values():
            named.update(natural(c) for c in h)
        if upcard:
            named[natural(upcard)] += 1
        reserve = Counter(cards(reserve))
        avail = self.deck - named - reserve
        new_hands: dict[str, list[str]] = {}
        for p in self.players:
            h = list(spec.get(p, []))
            want = (sizes or {}).get(p, self.size)
            while fill and len(h) < want:
                c = self._pick(avail, h)
                h.append(c)
                avail[c] -= 1
            new_hands[p] = h
        if not upcard:
            upcard = self._pick(avail, [])
            avail[upcard] -= 1
        ev: dict = {"type": "deal", "dealer": dealer, "upcard": upcard}
        if not hidden:
            ev["hands"] = {p: list(h) for p, h in new_hands.items()}
        line = self.add(ev, bad)
        if bad is None:
            self.hands = new_hands
            used = Counter()
            for h in new_hands.values():
                used.update(natural(c) for c in h)
            used[natural(upcard)] += 1
            self.stock = self.deck - used
            self.pile = [upcard]
            self.table = []
            self.reserved = reserve
            self.hidden = hidden
            self.dealer = dealer
            self.turn = self.left(dealer)
            self.exhaustions = 0
            self.over = False
        return line

    def _pick(self, avail: Counter, hand: list[str]) -> str:
        best = None
        for c in FILL_ORDER:
            if avail[c] <= 0:
                continue
            cost = _conflict(c, hand)
            if best is None or cost < best[0]:
                best = (cost, c)
                if cost == 0:
                    break
        if best is None:
            for c, k in avail.items():
                if k > 0:
                    return c
            raise AssertionError("no card left to pick")
        return best[1]

    def stock_card(self, avoid=()) -> str:
        """A boring card still in the stock (not reserved): what `idle` draws."""
        avoid = set(cards(avoid))
        free = self.stock - self.reserved
        for c in FILL_ORDER:
            if free[c] > 0 and c not in avoid:
                return c
        for c in FILL_ORDER + [JOKER]:
            if self.stock[c] > 0 and c not in avoid:
                return c
        raise AssertionError("the kit's stock is empty")

    def stock_count(self) -> int:
        return sum(self.stock.values())

    # ------------------------------------------------------------ turn events
    def draw(self, p: str, card: str | None = None, bad=None, show: bool | None = None) -> int:
        """Draw from the stock. Full information: names the card (a boring one if not given)."""
        if card is None and bad is None:
            card = self.stock_card()
        ev: dict = {"type": "draw", "player": p, "from": "stock"}
        if card is not None and (show if show is not None else not self.hidden):
            ev["card"] = card
        line = self.add(ev, bad)
        if bad is None:
            self.stock[natural(card)] -= 1
            if self.stock[natural(card)] <= 0:
                del self.stock[natural(card)]
            self.hands[p].append(card)
            if self.stock_count() == 0:
                self.exhaustions += 1
        return line

    def take(self, p: str, card: str | None = None, bad=None) -> int:
        """Draw from the discard pile: the top card, or `card` (deepest) and all above it."""
        ev: dict = {"type": "draw", "player": p, "from": "discard"}
        if card is not None:
            ev["card"] = card
        line = self.add(ev, bad)
        if bad is None:
            idx = len(self.pile) - 1 if card is None else max(i for i, c in enumerate(self.pile) if c == card)
            taken = self.pile[idx:]
            del self.pile[idx:]
            self.hands[p].extend(taken)
        return line

    def _remove(self, p: str, played) -> None:
        for c in played:
            c = natural(c)
            self.hands[p].remove(c)

    def meld(self, p: str, spec, bad=None) -> int:
        cs = cards(spec)
        line = self.add({"type": "meld", "player": p, "cards": list(cs)}, bad)
        if bad is None:
            self._remove(p, cs)
            self.table.append(list(cs))
            self._check_out(p)
        return line

    def lay(self, p: str, spec, meld: int | None = None, bad=None) -> int:
        cs = cards(spec)
        ev: dict = {"type": "lay_off", "player": p, "cards": list(cs)}
        if meld is not None:
            ev["meld"] = meld
        line = self.add(ev, bad)
        if bad is None:
            self._remove(p, cs)
            if meld is not None:
                self.table[meld - 1].extend(cs)
            self._check_out(p)
        return line

    def _check_out(self, p: str) -> None:
        if not self.hands[p] and not self.options.get("floating"):
            self.over = True
            self.turn = None

    def discard(self, p: str, card: str, face_down: bool = False, hide: bool = False, bad=None) -> int:
        ev: dict = {"type": "discard", "player": p}
        if not hide:
            ev["card"] = card
        if face_down:
            ev["face_down"] = True
        line = self.add(ev, bad)
        if bad is None:
            self.hands[p].remove(natural(card))
            self.pile.append(card)
            if not self.hands[p]:
                self.over = True
                self.turn = None
            else:
                self.turn = self.left(p)
                self._after_turn()
        return line

    def _after_turn(self) -> None:
        """The kit's copy of stock recycling (SPEC §6) so that later named draws stay consistent."""
        if self.stock_count() > 0:
            return
        if self.rules == "rummy500":
            return
        if self.options.get("recycle_trigger") == "on_demand":
            return
        if self.rules in ("basic", "solitaired"):
            if self.exhaustions > 1:
                self.over = True
                self.turn = None
                return
            self.stock = Counter(self.pile)
            self.pile = []
        else:  # classic keeps the top card
            self.stock = Counter(self.pile[:-1])
            self.pile = self.pile[-1:]

    def idle(self, p: str | None = None, card: str | None = None) -> str:
        """A quiet turn: draw a (boring or given) card from the stock and discard it at once (C-6.3)."""
        p = p or self.turn
        assert p is not None, "nobody to move"
        card = card or self.stock_card()
        self.draw(p, card)
        self.discard(p, card)
        return card

    def idle_until(self, p: str) -> None:
        while self.turn != p:
            self.idle()

    def cycle(self, k: int) -> list[str]:
        """k quiet turns, each drawing from the stock, in turn order."""
        return [self.idle() for _ in range(k)]

    def reveal(self, p: str, spec, bad=None) -> int:
        return self.add({"type": "reveal", "player": p, "cards": cards(spec)}, bad)

    def end_hand(self, reason: str | None = None, bad=None) -> int:
        ev: dict = {"type": "end_hand"}
        if reason:
            ev["reason"] = reason
        line = self.add(ev, bad)
        if bad is None:
            self.over = True
            self.turn = None
        return line

    def call_rummy(self, p: str, card: str, bad=None) -> int:
        line = self.add({"type": "call_rummy", "player": p, "card": card}, bad)
        if bad is None:
            idx = max(i for i, c in enumerate(self.pile) if c == card)
            self.hands[p].extend(self.pile[idx:])
            del self.pile[idx:]
            self.turn = p
        return line

    def hand_result(self, dealer: str, winner: str | None, hands: dict | None = None, points: dict | None = None,
                    melded: dict | None = None, going_rummy: bool | None = None, bad=None) -> int:
        ev: dict = {"type": "hand_result", "dealer": dealer, "winner": winner}
        if hands is not None:
            ev["hands"] = {p: cards(v) for p, v in hands.items()}
        if points is not None:
            ev["points"] = dict(points)
        if melded is not None:
            ev["melded"] = dict(melded)
        if going_rummy is not None:
            ev["going_rummy"] = going_rummy
        line = self.add(ev, bad)
        if bad is None:
            self.dealer = dealer
        return line


def quick_win(g: Game, dealer: str, winner: str, rummy: bool = False) -> int:
    """Play a whole Basic hand in which `winner` goes out; the others keep filler hands.

    The winner is dealt runs of clubs only. Without `rummy` the winner melds one run on a first turn and the
    rest on a second turn (no going-rummy bonus); with `rummy` everything goes down in one turn.
    Returns the points the winner must get (sum of the others' hands, doubled for going rummy where the
    preset has the bonus)."""
    runs = {6: ["AC 2C 3C", "JC QC KC"], 7: ["AC 2C 3C", "4C 5C 6C 7C"],
            10: ["AC 2C 3C", "4C 5C 6C 7C", "8C 9C 10C"]}[g.size]
    clubs = [c for r in runs for c in cards(r)]
    others = [p for p in g.players if p != winner]
    g.deal(dealer, hands={winner: clubs}, reserve=[r + "C" for r in RANKS if r + "C" not in clubs])
    losers_points = 0
    first = True
    while not g.over:
        p = g.turn
        if p != winner:
            g.idle(p)
            continue
        if rummy or not first:
            x = g.stock_card()
            g.draw(p, x)
            for r in (runs if rummy else runs[1:]):
                g.meld(p, r)
            g.discard(p, x)
        else:
            x = g.stock_card()
            g.draw(p, x)
            g.meld(p, runs[0])
            g.discard(p, x)
            first = False
    for p in others:
        losers_points += basic_points(g.hands[p])
    bonus = rummy and g.rules in ("basic", "classic")
    return losers_points * (2 if bonus else 1)


HAND_KEYS = ("number", "dealer", "winner", "result", "going_rummy", "points")


def contract_view(res: dict) -> dict:
    """The parts of a replay result the contract fixes (extra keys, such as details, are the engine's own)."""
    return {"hands": [{k: h.get(k) for k in HAND_KEYS} for h in res["hands"]], "totals": res["totals"],
            "match_over": res["match_over"], "match_winner": res["match_winner"]}


def hidden_twin(g: Game) -> Game:
    """The same game as a real table would log it: deals without `hands`, stock draws without `card`,
    and, once the hand is over, a `reveal` from every player still holding cards (C-11.4)."""
    t = g.copy()
    lines = []
    for i, ev in enumerate(t.lines):
        if i and t.expect[i + 1] is not None:
            continue  # a refused event changes nothing: the twin leaves it out
        if isinstance(ev, dict):
            ev = dict(ev)
            if ev["type"] == "deal":
                ev.pop("hands", None)
            elif ev["type"] == "draw" and ev.get("from") == "stock":
                ev.pop("card", None)
        lines.append(ev)
    t.lines = lines
    t.expect = {k: None for k in range(2, len(lines) + 1)}
    t._res = None
    t.hidden = True
    if t.over:
        for p in t.players:
            if t.hands[p]:
                t.reveal(p, t.hands[p])
    return t


def assert_same_outcome(g: Game) -> None:
    """The hidden-hand twin of a full-information game scores exactly the same."""
    full = contract_view(g.result())
    res = contract_view(hidden_twin(g).check())
    for key in full:
        assert res[key] == full[key], f"hidden-hand replay differs in {key}: {res[key]} != {full[key]}"


def cli_replay(lines: list[str]) -> tuple[int, str]:
    """`rummy-referee replay LOG --json`, in process: (exit status, stdout)."""
    import contextlib
    import io
    import tempfile

    from rummy_referee.cli import main

    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
        path = fh.name
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(["replay", path, "--json"])
    finally:
        os.unlink(path)
    return rc, out.getvalue()


def hidden_copy(g: Game) -> Game:
    """The same log, refusals included, as a real table writes it (no `hands`, no stock `card`), plus the
    spread hands if the hand is over. Every verdict that does not need to know a hidden hand stays the same."""
    t = g.copy()
    lines = []
    for ev in t.lines:
        if isinstance(ev, dict):
            ev = dict(ev)
            if ev["type"] == "deal":
                ev.pop("hands", None)
            elif ev["type"] == "draw" and ev.get("from") == "stock":
                ev.pop("card", None)
        lines.append(ev)
    t.lines = lines
    t._res = None
    t.hidden = True
    done = g.result()["hands"]
    if t.over and not (done and done[-1]["result"] == "stalemate"):
        for p in t.players:
            if t.hands[p]:
                t.reveal(p, t.hands[p])
    return t


def assert_hidden_same(g: Game) -> None:
    full = contract_view(g.result())
    res = contract_view(hidden_copy(g).check())
    for key in full:
        assert res[key] == full[key], f"hidden-hand replay differs in {key}: {res[key]} != {full[key]}"
