"""The host's evening (extension events, issue 13): correcting or deleting a finished hand, changing the target
and changing who plays, between hands. Part of `referee.engine.Match`, like `referee.hand_end`.

The log stays append-only: a correction is an event of its own, and replaying the log shows it.

    {"type": "correct_hand", "hand": 2, "points": {"Ana": 0, "Ben": 41}, "winner": "Ben"}
    {"type": "correct_hand", "hand": 2, "void": true}       # delete: the hand counts as zero, stays listed
    {"type": "correct_hand", "hand": 2, "restore": true}    # back to the figures as played
    {"type": "set_target", "target": 250}
    {"type": "seat_players", "players": ["Ana", "Ben", "Cleo", "Dan"]}

Choices where SPEC is silent (also in the README):
- `correct_hand` names the hand by its number (`hands[].number`). `points` gives the hand's new points; a player
  left out keeps their present figure. `winner` (optional) changes who went out; without it the winner stays, except
  in the rule systems where only going out scores (C-8.1), where the one player given points is the winner and
  points for two players are refused. Points are whole numbers, never negative there; Rummy 500 points may be.
- A corrected hand shows its new figures in `hands[]` with `"corrected": true` and `"original"` (the figures as
  played); a deleted hand stays listed with zero points, `"void": true` and `"original"`. A deleted hand does not
  count towards `match_hands` (it is as if it had not been played); hand numbers never change.
- A correction is accepted at any time, during a hand too: the totals change at once. Between hands the end of the
  match is checked again: a correction can end the match (someone now at or over the target) or reopen it (nobody
  is any more: the match goes on, the next dealer as before). During a hand the end of the match is checked when
  the hand ends, as always. A correction never changes who deals next.
- `set_target` and `seat_players` are accepted between hands only (`hand_in_progress` otherwise).
- `set_target` refuses a target that a seated player has already reached (`target_reached`): a new target never
  ends the match by itself. After the end of the match a higher target reopens it ("we play on to 300"). A match
  played over a number of hands without a target refuses it (`bad_target`).
- `seat_players` gives the whole new seating, clockwise: players may join, leave or change seats, within the
  preset's player counts (SPEC §1 row 1; `bad_player_count`). It is refused once the match is over (start a
  rematch). A new player starts at 0; a leaving player's hands stay in the history and their total is shown apart
  (`left_players`, `left_totals`); a player who comes back has their total again (the sum of their hands).
  Options that depend on the player count follow the new count (hand size, decks, and the target unless it was set
  in the match line or by `set_target`); a seating that would end the match by itself is refused
  (`target_reached`). The next dealer stays the same player if still seated; else the first one after them
  (clockwise, in the old seating) who still is; a finished hand's table is cleared.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .cards import ALL_CARDS, JOKER
from .errors import Refusal, SetupError
from .events import Plan, need
from .hand_end import MAX_HAND_POINTS
from .options import Scoring
from .presets import MAX_TARGET, PRESET_TITLES, Rules, make_rules, preset_player_counts
from .scoring import match_winners
from .state import Hand, Phase, Result
from .strict_json import StrictJSONError, check_name

EVENING_REFUSALS = ("no_such_hand", "bad_correction", "bad_target", "target_reached", "bad_seating",
                    "bad_player_count")


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


class EveningEvents:
    """The handlers of corrections, target and seating changes (mixed into `Match`)."""

    rules: Rules
    players: list[str]
    setup: dict
    hand: Hand | None
    hands_done: list[dict]
    totals: list[int]
    next_dealer: int | None
    match_over: bool
    match_winner: str | list[str] | None
    _index: dict[str, int]
    _overrides: dict[str, Any]
    deck: Counter

    # ------------------------------------------------------------------ helpers
    def between_hands(self) -> bool:
        """No hand is being played and no finished hand waits for cards to be shown."""
        h = self.hand
        return h is None or (h.phase == Phase.OVER and not h.awaiting and not h.facedown_pending)

    def _name_totals(self) -> Counter:
        run: Counter = Counter()
        for rec in self.hands_done:
            for p, v in rec["points"].items():
                run[p] += v
        return run

    def _recount(self) -> None:
        """Totals and each hand's `totals_after` from the hands' present figures."""
        run: Counter = Counter()
        for rec in self.hands_done:
            for p, v in rec["points"].items():
                run[p] += v
            rec["totals_after"] = {p: run[p] for p in rec["points"]}
        self.totals = [run[p] for p in self.players]

    def _check_match_end(self) -> None:
        """Whether the match is over now, between hands (C-9), from the totals and the last hand."""
        if not self.hands_done:
            self.match_over, self.match_winner = False, None
            return
        last = self.hands_done[-1]
        void = bool(last.get("void"))
        w = last.get("winner")
        winner = None if void or w is None else self._index.get(w)
        played = sum(1 for rec in self.hands_done if not rec.get("void"))
        won = match_winners(self.rules, self.totals, played, None if void else last["result"], winner)
        P = self.players
        self.match_over = won is not None
        self.match_winner = None if not won else P[won[0]] if len(won) == 1 else [P[i] for i in won]

    def current_options(self) -> dict:
        """The match line's options with the changes made since (`set_target`)."""
        opts = dict(self.setup.get("options") or {})
        opts.update(self._overrides)
        return opts

    def rematch_setup(self) -> dict:
        """The match line of a rematch: the same rules, the players seated now, the options as they are now."""
        out: dict[str, Any] = {"type": "match", "rules": self.rules.name, "players": list(self.players)}
        opts = self.current_options()
        if opts:
            out["options"] = opts
        return out

    def first_dealer(self) -> str | None:
        """Who dealt the first hand (its `deal` or `hand_result`), or None before any."""
        for ev in getattr(self, "events", ()):
            if ev.get("type") in ("deal", "hand_result") and ev.get("dealer"):
                return ev["dealer"]
        return None

    def left_players(self) -> dict[str, int]:
        """Players who played a hand and are not seated now, with their totals (in the order they first played)."""
        run = self._name_totals()
        out: dict[str, int] = {}
        for rec in self.hands_done:
            for p in rec["points"]:
                if p not in self._index and p not in out:
                    out[p] = run[p]
        return out

    # ------------------------------------------------------------------ correct_hand
    def _ev_correct_hand(self, ev: dict) -> Plan:
        n = need(ev, "hand")
        if isinstance(n, str) and n.strip().isdigit():
            n = int(n)
        if not _whole(n):
            raise Refusal("bad_correction", "'hand' must be the hand's number (1, 2, 3 ...)")
        done = len(self.hands_done)
        if not 1 <= n <= done:
            h = self.hand
            if h is not None and h.number == n and not self.between_hands():
                raise Refusal("no_such_hand", f"hand {n} is still being played: correct it once it is over")
            raise Refusal("no_such_hand", f"there is no finished hand {n}: "
                          + (f"hands 1 to {done} have ended" if done > 1 else
                             "only hand 1 has ended" if done == 1 else "no hand has ended yet"))
        rec = self.hands_done[n - 1]
        given = [k for k in ("points", "void", "restore") if ev.get(k) is not None and ev.get(k) is not False]
        if len(given) != 1:
            raise Refusal("bad_correction", "a correction gives the hand's new 'points', or 'void': true to "
                          "delete the hand, or 'restore': true to go back to the figures as played")
        kind = given[0]
        out: dict[str, Any] = {"type": "correct_hand", "hand": n}
        if kind == "void":
            if ev["void"] is not True:
                raise Refusal("bad_correction", "'void' must be true (delete the hand)")
            if rec.get("void"):
                raise Refusal("bad_correction", f"hand {n} is already deleted")
            out["void"] = True
            return Plan(out, lambda: self._commit_correction(rec, {p: 0 for p in rec["points"]},
                                                             rec["winner"], rec["result"], rec["going_rummy"], True))
        if kind == "restore":
            if ev["restore"] is not True:
                raise Refusal("bad_correction", "'restore' must be true (back to the figures as played)")
            orig = rec.get("original")
            if orig is None:
                raise Refusal("bad_correction", f"hand {n} has not been corrected: there is nothing to restore")
            out["restore"] = True
            return Plan(out, lambda: self._commit_correction(rec, dict(orig["points"]), orig["winner"],
                                                             orig["result"], orig["going_rummy"], False))
        points, winner = self._corrected_points(rec, n, ev)
        if winner == rec["winner"]:
            result, rummy = rec["result"], rec["going_rummy"]
        else:
            rummy = False
            if winner is not None:
                result = Result.OUT
            elif rec["result"] != Result.OUT:
                result = rec["result"]
            else:
                result = Result.STALEMATE if self.rules.scoring == Scoring.WINNER_TAKES_HANDS else Result.STOCK_EMPTY
        if points == rec["points"] and winner == rec["winner"] and not rec.get("void"):
            raise Refusal("bad_correction", f"hand {n} already has these points: nothing to change")
        out.update(points=points, winner=winner)
        return Plan(out, lambda: self._commit_correction(rec, points, winner, result, rummy, False))

    def _corrected_points(self, rec: dict, n: int, ev: dict) -> tuple[dict[str, int], str | None]:
        """The hand's new points (every player of the hand) and its winner, checked against the rules."""
        raw = ev["points"]
        who = list(rec["points"])
        if not isinstance(raw, dict) or not raw:
            raise Refusal("bad_correction", "'points' must map players to their points for the hand, "
                          'like {"Ana": 0, "Ben": 34}')
        winner_takes = self.rules.scoring == Scoring.WINNER_TAKES_HANDS
        lo = 0 if winner_takes else -MAX_HAND_POINTS
        base = {p: 0 for p in who} if rec.get("void") else dict(rec["points"])
        for name, v in raw.items():
            if name not in base:
                raise Refusal("unknown_player", f"{name!r} did not play hand {n} ({', '.join(who)})")
            if not _whole(v) or not lo <= v <= MAX_HAND_POINTS:
                rng = f"from 0 to {MAX_HAND_POINTS}" if winner_takes else f"from -{MAX_HAND_POINTS} to {MAX_HAND_POINTS}"
                raise Refusal("bad_correction", f"the points of {name} must be a whole number {rng}, not {v!r}")
            base[name] = v
        if "winner" in ev:
            w = ev["winner"]
            if w is not None and (not isinstance(w, str) or w not in base):
                raise Refusal("unknown_player", f"{w!r} did not play hand {n} ({', '.join(who)})")
        else:
            w = rec["winner"]
        if winner_takes:
            scorers = [p for p, v in base.items() if v]
            if len(scorers) > 1:
                raise Refusal("bad_correction", "only the player who went out scores in these rules: give points "
                              f"to one player only, not to {' and '.join(scorers)}", "C-8.1")
            if scorers and "winner" in ev and w != scorers[0]:
                raise Refusal("bad_correction", f"{scorers[0]} scores, so {scorers[0]} went out: only the player "
                              "who went out scores in these rules" if w is None else
                              f"{w} went out, so only {w} scores in these rules, not {scorers[0]}", "C-8.1")
            if scorers:
                w = scorers[0]
        return base, w

    def _commit_correction(self, rec: dict, points: dict[str, int], winner: str | None, result: str,
                           rummy: bool, void: bool) -> None:
        if "original" not in rec:
            rec["original"] = {"points": dict(rec["points"]), "winner": rec["winner"], "result": rec["result"],
                               "going_rummy": rec["going_rummy"]}
        rec.update(points=points, winner=winner, result=result, going_rummy=rummy)
        rec.pop("void", None)
        rec.pop("corrected", None)
        orig = rec["original"]
        if void:
            rec["void"] = True
        elif (points, winner, result) != (orig["points"], orig["winner"], orig["result"]):
            rec["corrected"] = True
        else:
            del rec["original"]  # back to the figures as played
        self._recount()
        if self.between_hands():
            self._check_match_end()

    # ------------------------------------------------------------------ set_target
    def _not_between(self, what: str) -> None:
        if not self.between_hands():
            h = self.hand
            raise Refusal("hand_in_progress", f"{what} between hands only: finish hand {h.number if h else '?'} first",
                          "C-7")

    def _ev_set_target(self, ev: dict) -> Plan:
        t = need(ev, "target")
        self._not_between("the target can be changed")
        if self.rules.target is None:
            raise Refusal("bad_target", f"this match is played over {self.rules.match_hands} hands, without a "
                          "target score")
        if not _whole(t) or not 1 <= t <= MAX_TARGET:
            raise Refusal("bad_target", f"the target must be a whole number from 1 to {MAX_TARGET}, not {t!r}")
        if t == self.rules.target:
            raise Refusal("bad_target", f"the target is already {t}")
        if self.totals:
            best = max(self.totals)
            if best >= t:
                leaders = [p for p, v in zip(self.players, self.totals, strict=True) if v == best]
                raise Refusal("target_reached", f"{' and '.join(leaders)} already {'has' if len(leaders) == 1 else 'have'}"
                              f" {best}: choose a target above {best}", "C-9.1")
        rules = self._rules_for(len(self.players), {**self._overrides, "target": t})

        def commit() -> None:
            self._overrides["target"] = t
            self.rules = rules
            self._check_match_end()
        return Plan({"type": "set_target", "target": t}, commit)

    def _rules_for(self, n: int, overrides: dict) -> Rules:
        opts = dict(self.setup.get("options") or {})
        opts.update(overrides)
        try:
            return make_rules(self.rules.name, n, opts)
        except SetupError as exc:
            if exc.code == "bad_player_count":
                counts = preset_player_counts(self.rules.name)
                words = ", ".join(str(c) for c in counts[:-1]) + f" or {counts[-1]}" if len(counts) > 1 else str(counts[0])
                raise Refusal("bad_player_count", f"{PRESET_TITLES.get(self.rules.name, self.rules.name)} is played "
                              f"by {words} players, not {n}", "SPEC §1") from None
            raise Refusal("bad_seating", f"these rules cannot be played so: {exc.message}") from None

    # ------------------------------------------------------------------ seat_players
    def _ev_seat_players(self, ev: dict) -> Plan:
        raw = need(ev, "players")
        if self.match_over:
            raise Refusal("match_over", "the match is over: start a rematch to play on with other players", "C-9")
        self._not_between("players can join or leave")
        if not isinstance(raw, list) or not raw:
            raise Refusal("bad_seating", "give the players' names in seating order (clockwise; field 'players')")
        names = []
        for i, p in enumerate(raw, start=1):
            try:
                check_name(p, f"player {i}'s name")
            except StrictJSONError as exc:
                raise Refusal("bad_seating", exc.message) from None
            names.append(p.strip())
        twice = sorted({p for p in names if names.count(p) > 1})
        if twice:
            raise Refusal("bad_seating", f"{', '.join(twice)} is named twice: player names must be different")
        if names == self.players:
            raise Refusal("bad_seating", "the players are already seated so: nothing to change")
        rules = self._rules_for(len(names), self._overrides)
        run = self._name_totals()
        totals = [run[p] for p in names]
        if self.hands_done:
            last = self.hands_done[-1]
            w = last.get("winner")
            winner = names.index(w) if w in names and not last.get("void") else None
            played = sum(1 for rec in self.hands_done if not rec.get("void"))
            won = match_winners(rules, totals, played, None if last.get("void") else last["result"], winner)
            if won is not None:
                if rules.target is not None and won:
                    best = totals[won[0]]
                    raise Refusal("target_reached", f"with {len(names)} players the target is {rules.target} and "
                                  f"{names[won[0]]} already has {best}: this seating would end the match. Set a "
                                  "higher target first", "C-9.1")
                raise Refusal("target_reached", "this seating would end the match: set a higher target first", "C-9.1")
        nxt = None
        if self.next_dealer is not None:
            old = self.players
            order = old[self.next_dealer:] + old[:self.next_dealer]
            nxt = next((names.index(p) for p in order if p in names), 0)

        def commit() -> None:
            self.players = names
            self._index = {p: i for i, p in enumerate(names)}
            self.rules = rules
            self.deck = Counter({c: rules.multiplicity for c in ALL_CARDS})
            if rules.jokers:
                self.deck[JOKER] = rules.jokers
            self.totals = totals
            self.hand = None
            self.next_dealer = nxt
        return Plan({"type": "seat_players", "players": names}, commit)
