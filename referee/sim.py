"""Random legal playouts (full information), for property tests and benchmarks.

`Simulator` holds the real shuffled deck, so it knows every card; it chooses plausible legal moves (draw,
melds, lay-offs, a discard), feeds them to a `Match` and checks that each one is accepted. It also knows
some moves that must be refused, for the "illegal moves change nothing" property.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from .cards import ALL_CARDS, JOKER, RANK_NUMBER, make_card
from .engine import Match
from .melds import MeldProblem, single_extensions
from .options import AceMode, DiscardDraw, Scoring


class SimulationError(AssertionError):
    pass


class Simulator:
    def __init__(self, rules: str, players: list[str], options: dict | None = None, seed: int = 0,
                 max_turns_per_hand: int = 400):
        self.rng = random.Random(seed)
        self.setup = {"type": "match", "rules": rules, "players": players}
        if options:
            self.setup["options"] = options
        self.match = Match(self.setup)
        self.log: list[dict] = []
        self.stock: list[str] = []
        self.max_turns = max_turns_per_hand
        self.hand_end_hands: list[dict[str, list[str]]] = []  # each hand: cards left per player (for reveals)
        self.hand_end_index: list[tuple[int, int]] = []  # (hand number, log length after its last event)

    # -------------------------------------------------------------- plumbing
    def apply(self, ev: dict, must: bool = True) -> bool:
        """Apply a move. A refused move must leave the state as it was, so trying a move is just applying it."""
        h = self.match.hand
        before_discard = list(h.discard) if h else []
        before_recycles = h.recycles if h else 0
        v = self.match.apply(ev)
        if not v.ok:
            if must:
                raise SimulationError(f"legal move refused: {ev} -> {v.code}: {v.message}")
            return False
        self.log.append(self.match.events[-1])
        h = self.match.hand
        if h is not None and h.phase == "over" and (not self.hand_end_index
                                                    or self.hand_end_index[-1][0] != h.number):
            self.hand_end_index.append((h.number, len(self.log)))
        if h is not None and h.recycles > before_recycles:
            # the engine recycled the pile into a new stock: the simulator shuffles those cards
            kept = h.discard
            moved = list(before_discard)
            if ev.get("type") == "discard":
                moved.append(ev.get("card"))
            for c in kept:
                moved.remove(c)
            self.rng.shuffle(moved)
            self.stock = moved + self.stock
            if len(self.stock) != h.stock:
                raise SimulationError("simulator stock out of step with the referee")
        return True

    def deck(self) -> list[str]:
        r = self.match.rules
        cards = list(ALL_CARDS) * r.decks + [JOKER] * r.jokers
        self.rng.shuffle(cards)
        return cards

    # -------------------------------------------------------------- playing
    def play_match(self, max_hands: int = 60) -> Match:
        m = self.match
        dealer = self.rng.randrange(len(m.players))
        hands = 0
        while not m.match_over and hands < max_hands:
            self.play_hand(m.players[dealer] if m.next_dealer is None else m.players[m.next_dealer])
            hands += 1
        return m

    def play_hand(self, dealer: str) -> None:
        m = self.match
        r = m.rules
        cards = self.deck()
        n = len(m.players)
        hands = {p: [] for p in m.players}
        d = m.players.index(dealer)
        order = [m.players[(d + 1 + i) % n] for i in range(n)]
        for _ in range(r.hand_size):
            for p in order:
                hands[p].append(cards.pop())
        up = cards.pop()
        self.stock = cards
        self.apply({"type": "deal", "dealer": dealer, "upcard": up, "hands": hands})
        turns = 0
        while m.hand is not None and m.hand.phase != "over":
            turns += 1
            if turns > self.max_turns:
                self.apply({"type": "end_hand", "reason": "agreed"})
                break
            self.play_turn()
        h = m.hand
        self.hand_end_hands.append({m.players[i]: sorted(h.known[i].elements()) for i in range(n)})

    def _hand(self, p: int) -> Counter:
        return self.match.hand.known[p]

    def play_turn(self) -> None:
        m = self.match
        h = m.hand
        r = m.rules
        p = h.current
        name = m.players[p]
        # --- draw
        if h.stock == 0 and not m.can_recycle_on_demand(h):
            if r.recycle_limit == 0 and (self.rng.random() < 0.5 or not h.discard):
                self.apply({"type": "end_hand", "reason": "stock_empty"})
                return
            if "end_hand" in h.offers and self.rng.random() < 0.5:
                self.apply({"type": "end_hand", "reason": "agreed"})
                return
            self.apply({"type": "draw", "player": name, "from": "discard"})
        else:
            took = False
            if r.discard_draw == DiscardDraw.TOP_OR_DEEP and len(h.discard) > 1 and self.rng.random() < 0.5:
                took = self._try_deep_pickup(p)
            if not took:
                top = h.discard[-1] if h.discard else None
                useful = top and top != JOKER and self._meld_with(top, self._hand(p))
                if h.counts[p] == 0 and not useful:
                    top = None
                if top and (useful or self.rng.random() < 0.15) and not r.top_discard_must_be_used:
                    self.apply({"type": "draw", "player": name, "from": "discard"})
                elif h.stock > 0 or m.can_recycle_on_demand(h):
                    if h.stock == 0:
                        # on-demand recycling happens inside the draw; mirror it
                        before = list(h.discard)
                        keep = before[-1:] if r.recycle_keeps_top else []
                        moved = before[:-1] if r.recycle_keeps_top else before
                        self.rng.shuffle(moved)
                        self.stock = moved + self.stock
                        card = self.stock.pop()
                        v = m.apply({"type": "draw", "player": name, "from": "stock", "card": card})
                        if not v.ok:
                            raise SimulationError(f"on-demand draw refused: {v.message}")
                        self.log.append(m.events[-1])
                        del keep
                    else:
                        self.apply({"type": "draw", "player": name, "from": "stock", "card": self.stock.pop()})
                else:
                    self.apply({"type": "draw", "player": name, "from": "discard"})
        # --- play
        self._play_melds(p)
        if h.phase == "over" or h.current != p:
            return
        # --- discard
        self._discard(p)

    def _meld_with(self, card: str, hand: Counter) -> list[str] | None:
        """Natural cards from `hand` that make a valid meld with `card` (a set or a 3-card run), or None."""
        if card == JOKER:
            return None
        m = self.match
        rank, suit = RANK_NUMBER[card[:-1]], card[-1]
        same = [c for c in hand if c != JOKER and c[:-1] == card[:-1] and c[-1] != suit and hand[c] > 0]
        suits = {}
        for c in same:
            suits.setdefault(c[-1], c)
        if len(suits) >= 2:
            return list(suits.values())[:2]
        top = 14 if m.rules.ace_mode == AceMode.HIGH_OR_LOW else 13
        ranks = [rank] + ([14] if rank == 1 and top == 14 else [])
        for cr in ranks:
            for start in (cr - 2, cr - 1, cr):
                if start < 1 or start + 2 > top:
                    continue
                need = [make_card(x, suit) for x in range(start, start + 3) if x != cr]
                if all(hand[c] > 0 for c in need) and len(set(need)) == 2:
                    return need
        return None

    def _try_deep_pickup(self, p: int) -> bool:
        h = self.match.hand
        hand = self._hand(p)
        for i in range(len(h.discard) - 2, -1, -1):
            c = h.discard[i]
            if c and c != JOKER and self._meld_with(c, hand):
                self.apply({"type": "draw", "player": self.match.players[p], "from": "discard", "card": c})
                need = self._meld_with(c, hand - Counter([c]) if hand[c] > 1 else hand)
                if h.turn.deep_card and not h.turn.deep_used and need:
                    cards = [c] + need
                    if self._can_leave(p, cards):
                        self.apply({"type": "meld", "player": self.match.players[p], "cards": cards})
                return True
        return False

    def _can_leave(self, p: int, cards: list[str]) -> bool:
        m = self.match
        h = m.hand
        r = m.rules
        left = h.counts[p] - len(cards)
        if left == 0:
            return r.go_out_without_discard or r.floating
        rest = h.known[p] - Counter(cards)
        if left == 1 and h.turn.single_taken is not None and rest[h.turn.single_taken] >= 1:
            return False
        if h.turn.deep_card is not None and not h.turn.deep_used and h.turn.deep_card not in cards and rest[h.turn.deep_card] < 1:
            return False
        return True

    def _find_melds(self, hand: Counter) -> list[list[str]]:
        out = []
        by_rank: dict[str, dict[str, str]] = {}
        for c in hand:
            if c != JOKER and hand[c] > 0:
                by_rank.setdefault(c[:-1], {})[c[-1]] = c
        for suits in by_rank.values():
            if len(suits) >= 3:
                out.append(list(suits.values())[:4])
        top = 14 if self.match.rules.ace_mode == AceMode.HIGH_OR_LOW else 13
        for s in "SHDC":
            run: list[str] = []
            for x in range(1, top + 1):
                c = make_card(x, s)
                if hand[c] > 0 and not (x == 14 and run and run[0] == c):
                    run.append(c)
                else:
                    if len(run) >= 3:
                        out.append(run)
                    run = []
            if len(run) >= 3:
                out.append(run)
        if hand[JOKER] > 0:
            for c in list(hand):
                if c == JOKER:
                    continue
                for d in list(hand):
                    if d != JOKER and d != c and d[-1] == c[-1] and abs(RANK_NUMBER[d[:-1]] - RANK_NUMBER[c[:-1]]) == 1:
                        lo = min(RANK_NUMBER[d[:-1]], RANK_NUMBER[c[:-1]])
                        hi = lo + 1
                        if hi + 1 <= 13:
                            out.append([make_card(lo, c[-1]), make_card(hi, c[-1]), "JK=" + make_card(hi + 1, c[-1])])
                            break
        return out

    def _play_melds(self, p: int) -> None:
        m = self.match
        h = m.hand
        r = m.rules
        name = m.players[p]
        made = 0
        for _ in range(6):
            if h.phase == "over" or h.current != p or h.counts[p] == 0:
                return
            if r.max_melds_per_turn is not None and made >= r.max_melds_per_turn:
                break
            cands = self._find_melds(h.known[p])
            self.rng.shuffle(cands)
            done = False
            for cards in cands:
                phys = [c.split("=")[0] if c.startswith("JK") else c for c in cards]
                if not self._can_leave(p, phys):
                    continue
                if self.apply({"type": "meld", "player": name, "cards": cards}, must=False):
                    made += 1
                    done = True
                    break
            if not done:
                break
        # lay-offs, one card at a time, onto a named meld
        for _ in range(8):
            if h.phase == "over" or h.current != p or h.counts[p] == 0:
                return
            if r.layoff_requires_own_meld and not h.has_melded[p]:
                return
            options = []
            for meld in h.melds:
                ext = single_extensions(meld.shape, r.ace_mode)
                for c in h.known[p]:
                    if h.known[p][c] <= 0:
                        continue
                    if c in ext:
                        options.append((meld.id, c))
                    elif c == JOKER and ext:
                        options.append((meld.id, "JK=" + sorted(ext)[0]))
            self.rng.shuffle(options)
            played = False
            for mid, c in options:
                phys = "JK" if c.startswith("JK") else c
                if not self._can_leave(p, [phys]):
                    continue
                ev = {"type": "lay_off", "player": name, "cards": [c], "meld": mid}
                if self.apply(ev, must=False):
                    played = True
                    break
            if not played:
                return

    def _discard(self, p: int) -> None:
        m = self.match
        h = m.hand
        r = m.rules
        name = m.players[p]
        if h.turn.deep_card is not None and not h.turn.deep_used:
            # could not use the deep card (should not happen): end by agreement where allowed
            raise SimulationError("deep card left unused")
        choices = [c for c in h.known[p].elements()]
        self.rng.shuffle(choices)
        for c in choices:
            ev = {"type": "discard", "player": name, "card": c}
            if h.counts[p] == 1 and r.final_discard_face_down and self.rng.random() < 0.5:
                ev["face_down"] = True
            if self.apply(ev, must=False):
                return
        raise SimulationError(f"no legal discard for {name}: {choices}")

    # -------------------------------------------------------------- illegal moves
    def illegal_moves(self) -> list[dict]:
        """Moves that must be refused in the current state."""
        m = self.match
        h = m.hand
        out: list[dict] = []
        n = len(m.players)
        if h is None or h.phase == "over":
            out.append({"type": "draw", "player": m.players[0], "from": "stock"})
            out.append({"type": "meld", "player": m.players[0], "cards": ["AS", "2S", "3S"]})
            return out
        cur = m.players[h.current]
        other = m.players[(h.current + 1) % n]
        out.append({"type": "deal", "dealer": cur, "upcard": "AS"})
        out.append({"type": "meld", "player": other, "cards": ["AS", "2S", "3S"]})
        out.append({"type": "discard", "player": other, "card": "KD"})
        out.append({"type": "draw", "player": cur, "from": "elsewhere"})
        out.append({"type": "discard", "player": cur, "card": "XX"})
        out.append({"type": "meld", "player": cur, "cards": "AS 2S 3S"})
        out.append({"type": "bogus"})
        out.append({"type": "lay_off", "player": cur, "cards": ["AS"], "meld": 99})
        if h.phase == "draw":
            out.append({"type": "meld", "player": cur, "cards": ["AS", "2S", "3S"]})
            out.append({"type": "discard", "player": cur, "card": "AS"})
        else:
            out.append({"type": "draw", "player": cur, "from": "stock"})
            hand = list(h.known[h.current].elements())
            elsewhere = [c for c in ALL_CARDS if h.known[(h.current + 1) % n][c] > 0 and h.known[h.current][c] == 0]
            if elsewhere:
                out.append({"type": "discard", "player": cur, "card": elsewhere[0]})
            if len(hand) >= 2:
                out.append({"type": "meld", "player": cur, "cards": hand[:2]})
            for a, b, c in list(combinations(sorted(set(hand) - {JOKER}), 3))[:3]:
                ev = {"type": "meld", "player": cur, "cards": [a, b, c]}
                try:
                    m._classify([__import__("referee.cards", fromlist=["parse_played"]).parse_played(x)
                                 for x in (a, b, c)])
                except MeldProblem:
                    out.append(ev)
        return out


def hidden_event(ev: dict) -> dict:
    """A full-information event as a real table's referee gets it (hidden hands): a `deal` without the
    dealt hands, a stock draw without its card."""
    ev = dict(ev)
    if ev.get("type") == "deal":
        ev.pop("hands", None)
    elif ev.get("type") == "draw" and ev.get("from") == "stock":
        ev.pop("card", None)
    return ev


def hidden_log(sim: Simulator) -> list[dict]:
    """The same game as a real table sees it: no dealt hands, no stock cards, reveals after each hand."""
    ends = {idx: num for num, idx in sim.hand_end_index}
    scoring = sim.match.rules.scoring
    out: list[dict] = [dict(sim.setup)]
    for i, ev in enumerate(sim.log, start=1):
        out.append(hidden_event(ev))
        if i in ends:
            num = ends[i]
            record = sim.match.hands_done[num - 1] if num - 1 < len(sim.match.hands_done) else None
            if record is None or (record["result"] == "stalemate" and scoring == Scoring.WINNER_TAKES_HANDS):
                continue
            for name, cards in sim.hand_end_hands[num - 1].items():
                if cards:
                    out.append({"type": "reveal", "player": name, "cards": cards})
    return out
