"""The dashboard's storage: SQLite on disk, append-only, one row per thing that happened.

Tables
- ``matches``: one row per match (id, the normalised ``match`` line, created/opened times, the dashboard's
  ``extra`` data, and ``summary``: the list's cached summary of the state, see web_ui/summaries.py).
- ``events``: append-only. ``status`` is ``accepted`` (an event of the game log), ``refused`` (kept so
  every screen can show what was refused and why; not part of the log) or ``undo`` (takes back the
  last accepted event that is not already taken back). An ``accepted`` row with the code ``redo`` applies
  again the event undone last: the redo stack is derived from the rows (an undo pushes its event, a redo
  pops it, any other accepted event clears the stack), so it survives a restart.

The match state is never stored: it is what replaying the accepted events through the rules engine
gives (event sourcing). Writes use WAL with ``synchronous=FULL``: when ``append`` returns, the row is
on disk, so an event the API answered 200 survives a crash.

Live matches are kept in memory as engine ``Match`` objects. A change is applied in memory under the
match's lock, then committed (fsync) outside it, with a per-match write lock that keeps the rows in
order; the API answers only after the commit. (A screen may so show an event a few milliseconds before
it is on disk; an answer 200 never comes before.)
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from referee.strict_json import scrub

from . import engine, summaries

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    setup TEXT NOT NULL,
    created REAL NOT NULL,
    opened REAL NOT NULL,
    extra TEXT
);
CREATE TABLE IF NOT EXISTS events (
    match_id TEXT NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('accepted', 'refused', 'undo')),
    body TEXT NOT NULL,
    code TEXT,
    message TEXT,
    source TEXT,
    created REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_append_only_u BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_d BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
"""

ACTIVITY_KEEP = 30
REDO = "redo"  # the code of an accepted row that applies again an event taken back (Store.redo)
LIVE_CACHE = 8  # matches kept in memory that no screen and no camera watches (least recently used)


class NotFound(LookupError):
    pass


class StoreError(Exception):
    """The database cannot be used at all (not a database, a folder, read-only, held by another server)."""


class StoreUnavailable(Exception):
    """A change could not be written (the disk is full or became read-only): nothing was changed."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def _load_json(text: str | None, default: Any = None) -> Any:
    """Rows written before strict decoding may hold lone surrogates or NaN: shown scrubbed, never a crash."""
    if text is None:
        return default
    return scrub(json.loads(text))


@dataclass
class Activity:
    seq: int
    status: str
    event: Any
    code: str | None = None
    message: str | None = None
    source: str | None = None
    at: float = 0.0

    def as_json(self) -> dict:
        d = {"seq": self.seq, "status": self.status, "event": self.event, "at": self.at}
        if self.code:
            d["code"] = self.code
        if self.message:
            d["message"] = self.message
        if self.source:
            d["source"] = self.source
        return d


@dataclass
class LiveMatch:
    id: str
    match: Any  # referee.Match
    created: float
    opened: float
    extra: dict = field(default_factory=dict)  # dashboard-only settings: first dealer, camera, layout
    version: int = 0  # last seq written
    activity: list[Activity] = field(default_factory=list)
    lock: threading.RLock = field(default_factory=threading.RLock)  # the in-memory match (short holds)
    write_lock: threading.Lock = field(default_factory=threading.Lock)  # one writer at a time, through the commit
    broken: bool = False  # a commit failed: this object no longer matches the disk
    redo: list[dict] = field(default_factory=list)  # events undone and not yet redone, the next one last
    _state_cache: tuple[int, dict] | None = None

    def state(self) -> dict:
        """The match in the contract's ``replay --json`` shape, plus the dashboard's extra keys."""
        with self.lock:
            if self._state_cache and self._state_cache[0] == self.version:
                return self._state_cache[1]
            st = engine.public_state(self.match)
            st["events"] = [{"line": i + 2, "ok": True} for i in range(len(self.match.events))]
            st["id"] = self.id
            st["version"] = self.version
            st["created"] = self.created
            st["setup"] = self.match.setup
            st["extra"] = self.extra
            if (st.get("next_dealer") is None and self.match.hand is None and not self.match.hands_done
                    and self.extra.get("dealer") in self.match.players):
                st["next_dealer"] = self.extra["dealer"]  # the first dealer chosen, while still seated
            st["can_undo"] = bool(self.match.events)
            st["can_redo"] = bool(self.redo)
            st["redo_next"] = self.redo[-1] if self.redo else None
            st["activity"] = [a.as_json() for a in self.activity[-ACTIVITY_KEEP:]]
            st["hand_details"] = hand_details(self.match.events)
            self._state_cache = (self.version, st)
            return st

    def log_lines(self) -> list[str]:
        with self.lock:
            lines = [json.dumps(self.match.setup, separators=(", ", ": "), ensure_ascii=False)]
            lines += [json.dumps(e, separators=(", ", ": "), ensure_ascii=False) for e in self.match.events]
            return lines


def hand_details(events: list[dict]) -> list[dict]:
    """What the log says about each hand's end, for the end-of-hand screen: the cards each player
    showed (reveal / hand_result hands) or the points left they entered (hand_result points).
    Bookkeeping only: the scores themselves are the engine's."""
    out: list[dict] = []
    for ev in events:
        t = ev.get("type")
        if t == "deal":
            out.append({"number": len(out) + 1, "hands": {}})
        elif t == "reveal" and out:
            out[-1]["hands"][ev.get("player")] = list(ev.get("cards") or [])
        elif t == "hand_result":
            d = {"number": len(out) + 1, "hands": {}, "quick": True}
            if isinstance(ev.get("hands"), dict):
                d["hands"] = {p: list(c or []) for p, c in ev["hands"].items()}
            if isinstance(ev.get("points"), dict):
                d["points_left"] = dict(ev["points"])
            if isinstance(ev.get("melded"), dict):
                d["melded"] = dict(ev["melded"])
            out.append(d)
    return out


class Store:
    def __init__(self, path: str, lock: bool = False):
        """Open (or create) the database and check at once that it can be written.  `lock`: hold
        `<path>.lock` so that a second server on the same file refuses to start.  Raises StoreError."""
        self.path = path
        self._lock_fd: int | None = None
        if path != ":memory:":
            if os.path.isdir(path):
                raise StoreError(f"{path} is a folder, not a database file")
            d = os.path.dirname(os.path.abspath(path))
            try:
                os.makedirs(d, exist_ok=True)
            except OSError as e:
                raise StoreError(f"cannot make the folder {d}: {e.strerror or e}") from None
            if lock:
                self._take_lock(path)
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            # a small WAL that is checkpointed often is overwritten in place instead of growing: each
            # commit's fsync then has no file-size change to journal (≈4x faster commits on ext4)
            self._db.execute("PRAGMA wal_autocheckpoint=100")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            self._migrate()
            # a database that can be read but not written is found now, not at the first change
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('opened', ?)", (str(time.time()),))
        except sqlite3.DatabaseError as e:
            self._release_lock()
            msg = str(e)
            if "readonly" in msg or "read-only" in msg:
                raise StoreError(f"the database {path} is read-only: changes could not be saved") from None
            if "not a database" in msg or "malformed" in msg:
                raise StoreError(f"{path} is not a Rummy Referee database (not an SQLite file)") from None
            raise StoreError(f"cannot open the database {path}: {msg}") from None
        self._wlock = threading.Lock()  # one writer at a time on the shared connection
        self._extra_lock = threading.Lock()  # one change of a match's dashboard data at a time
        self._live: OrderedDict[str, LiveMatch] = OrderedDict()  # least recently used first
        self._live_lock = threading.Lock()
        self.is_watched: Callable[[str], bool] = lambda mid: False  # set by the app: screens, camera

    def _migrate(self) -> None:
        """Columns added since the first version, for a database made by an older one."""
        cols = {row[1] for row in self._db.execute("PRAGMA table_info(matches)")}
        if "summary" not in cols:  # the list's cached summary of each match (web_ui/summaries.py)
            self._db.execute("ALTER TABLE matches ADD COLUMN summary TEXT")

    def _take_lock(self, path: str) -> None:
        lock_path = path + ".lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot write next to the database ({lock_path}: {e.strerror or e}); "
                             "is the folder read-only?") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise StoreError(f"another Rummy Referee server is already using {path}; stop it first or "
                             "choose another file with --db") from None
        self._lock_fd = fd

    def _release_lock(self) -> None:
        if self._lock_fd is not None:
            try:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                os.close(self._lock_fd)
            finally:
                self._lock_fd = None

    def close(self) -> None:
        with self._wlock:
            self._db.close()
        self._release_lock()

    def _write(self, sql_rows: list[tuple[str, tuple]]) -> None:
        """Run these statements as one transaction (one fsync).  A disk that is full or read-only is a
        StoreUnavailable that says so; nothing is changed then."""
        with self._wlock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for sql, row in sql_rows:
                        self._db.execute(sql, row)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.OperationalError as e:
                msg = str(e)
                if "readonly" in msg or "read-only" in msg:
                    raise StoreUnavailable("The change could not be saved: the database has become read-only.") from None
                if "full" in msg:
                    raise StoreUnavailable("The change could not be saved: the disk is full.") from None
                raise StoreUnavailable(f"The change could not be saved ({msg}).") from None

    # -- meta ---------------------------------------------------------------------------------------
    def meta(self, key: str, default_factory=None) -> str | None:
        with self._wlock:
            row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row:
            return row[0]
        if default_factory is None:
            return None
        self._write([("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", (key, default_factory()))])
        with self._wlock:
            return self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()[0]

    # -- matches ------------------------------------------------------------------------------------
    def create_match(self, setup: dict, extra: dict | None = None) -> LiveMatch:
        """Validate ``setup`` with the engine (raises engine.SetupError) and store the new match."""
        m = engine.new_match(setup)
        mid = secrets.token_hex(6)
        now = time.time()
        self._write([("INSERT INTO matches (id, setup, created, opened, extra) VALUES (?, ?, ?, ?, ?)",
                      (mid, _dump(m.setup), now, now, _dump(extra or {}))),
                     ("UPDATE matches SET summary = ? WHERE id = ?",
                      (_dump(summaries.summarize(m, 0, summaries.setup_key(_dump(m.setup)))), mid))])
        live = LiveMatch(id=mid, match=m, created=now, opened=now, extra=dict(extra or {}))
        self._keep(live)
        return live

    def archive(self, mid: str) -> None:
        """Put a match away: kept on disk with all its events, left out of the list and of `/` (the
        dashboard's data gets `"archived": true`; nothing of the match itself changes)."""
        self.update_extra(mid, archived=True)

    def restore(self, mid: str) -> None:
        """Take an archived match back into the list (and into what `/` may open)."""
        self.update_extra(mid, archived=None)

    def is_archived(self, mid: str) -> bool:
        with self._wlock:
            row = self._db.execute("SELECT extra FROM matches WHERE id = ?", (mid,)).fetchone()
        return bool(row and _load_json(row[0], {}).get("archived"))

    def update_extra(self, mid: str, **changes) -> dict:
        """Change the dashboard's data of a match (its name, archived; a value None takes the key away):
        on disk, then in memory.  Returns the new data.  Raises NotFound, StoreUnavailable."""
        with self._extra_lock:  # read and write in turn: two changes at once both stay
            with self._wlock:
                row = self._db.execute("SELECT extra FROM matches WHERE id = ?", (mid,)).fetchone()
            if row is None:
                raise NotFound(mid)
            extra = dict(_load_json(row[0], {}))
            for k, v in changes.items():
                if v is None:
                    extra.pop(k, None)
                else:
                    extra[k] = v
            self._write([("UPDATE matches SET extra = ? WHERE id = ?", (_dump(extra), mid))])
            live = self._live.get(mid)
            if live is not None:
                with live.lock:  # a new dict: a state being sent keeps the one it has
                    live.extra = dict(extra)
                    live._state_cache = None
        return extra

    def match_rows(self) -> list[dict]:
        """Every match (newest change first) with its summary (web_ui/summaries.py), archived ones too.

        A summary is written with each event; one that is missing (a database of an older version, a
        match made before) or out of date is made again here (from the match in memory when it is there,
        else from the disk) and kept, so the next read finds it."""
        with self._wlock:
            rows = self._db.execute(
                "SELECT m.id, m.setup, m.created, m.opened, m.extra, m.summary, "
                "(SELECT COUNT(*) FROM events e WHERE e.match_id = m.id AND e.status = 'accepted'), "
                "(SELECT MAX(e.created) FROM events e WHERE e.match_id = m.id), "
                "(SELECT MAX(e.seq) FROM events e WHERE e.match_id = m.id) "
                "FROM matches m ORDER BY m.opened DESC, m.created DESC"
            ).fetchall()
        out, refreshed = [], []
        for mid, setup, created, opened, extra, summary, n_events, last, seq in rows:
            version, key = seq or 0, summaries.setup_key(setup)
            summ = _load_json(summary)
            if not summaries.is_current(summ, version, key):
                summ = self._summary(mid, version, key)
                if summ is None:
                    continue  # gone meanwhile
                if summ["v"] == version:
                    refreshed.append(("UPDATE matches SET summary = ? WHERE id = ?", (_dump(summ), mid)))
            out.append({"id": mid, "setup": _load_json(setup, {}), "created": created, "opened": opened,
                        "extra": _load_json(extra, {}), "summary": summ, "moves": n_events,
                        "last_change": last or created})
        if refreshed:
            try:
                self._write(refreshed)
            except StoreUnavailable:  # a read still answers; the summaries are made again next time
                pass
        return out

    def _summary(self, mid: str, version: int, key: int) -> dict | None:
        live = self._live.get(mid)
        if live is None or live.broken or live.version != version:
            try:
                live = self._load(mid)
            except NotFound:
                return None
        with live.lock:
            return summaries.summarize(live.match, live.version, key)

    def _live_summary(self, mid: str, version: int) -> dict | None:
        """The summary of the match in memory after row `version`, to write with that row (None: not in
        memory; a summary never stops a change from being written)."""
        live = self._live.get(mid)
        if live is None or live.version != version:
            return None
        try:
            with live.lock:
                return summaries.summarize(live.match, version, summaries.setup_key(_dump(live.match.setup)))
        except Exception:
            return None

    def list_matches(self, archived: bool | None = False) -> list[dict]:
        """The matches list: each match with its status (not started / in progress / over), the hand
        being played, totals and winner (from its summary).  `archived`: the archived ones instead (None:
        both, each with its `"archived"`)."""
        out = []
        for r in self.match_rows():
            s, ex, summ = r["setup"], r["extra"], r["summary"]
            if archived is not None and bool(ex.get("archived")) != archived:
                continue
            players = s.get("players") or []
            out.append({"id": r["id"], "rules": s.get("rules"), "players": players, "title": ex.get("title"),
                        "camera": ex.get("camera"), "created": r["created"], "opened": r["opened"],
                        "moves": r["moves"], "last_change": r["last_change"],
                        "status": summ["status"], "hand": summ["hand"], "hands_played": len(summ["hands"]),
                        "totals": summ["totals"], "winner": summ["winner"], "archived": bool(ex.get("archived")),
                        "colors": summaries.player_colors(players, ex.get("colors"))})
        return out

    def find_by_extra(self, key: str, value) -> str | None:
        """The id of the newest match whose dashboard data has `key` = `value`, or None."""
        with self._wlock:
            rows = self._db.execute("SELECT id, extra FROM matches ORDER BY created DESC").fetchall()
        for mid, extra in rows:
            if _load_json(extra, {}).get(key) == value:
                return mid
        return None

    def last_match_id(self) -> str | None:
        with self._wlock:
            rows = self._db.execute("SELECT id, extra FROM matches ORDER BY opened DESC, created DESC").fetchall()
        return next((mid for mid, extra in rows if not _load_json(extra, {}).get("archived")), None)

    def exists(self, mid: str) -> bool:
        with self._wlock:
            return self._db.execute("SELECT 1 FROM matches WHERE id = ?", (mid,)).fetchone() is not None

    def get(self, mid: str) -> LiveMatch:
        with self._live_lock:
            live = self._live.get(mid)
            if live is not None:
                self._live.move_to_end(mid)
                return live
        live = self._load(mid)
        with self._live_lock:
            kept = self._live.setdefault(mid, live)
        self._release_unwatched()
        return kept

    def _keep(self, live: LiveMatch) -> None:
        with self._live_lock:
            self._live[live.id] = live
        self._release_unwatched()

    def cached(self) -> list[str]:
        """The matches held in memory now (least recently used first)."""
        with self._live_lock:
            return list(self._live)

    def _release_unwatched(self) -> None:
        """Keep at most LIVE_CACHE matches that nobody watches in memory; the others are rebuilt from the
        disk when next asked for.  A match being written is left alone (its write lock is held)."""
        with self._live_lock:
            idle = [mid for mid in self._live if not self.is_watched(mid)]
            for mid in idle[:max(0, len(idle) - LIVE_CACHE)]:
                live = self._live[mid]
                if not live.write_lock.acquire(blocking=False):
                    continue
                try:
                    live.broken = True  # a writer holding it fetches the match again (see _writer)
                    del self._live[mid]
                finally:
                    live.write_lock.release()

    def _load(self, mid: str) -> LiveMatch:
        if not isinstance(mid, str) or not mid or len(mid) > 64:
            raise NotFound(mid)
        with self._wlock:
            row = self._db.execute(
                "SELECT setup, created, opened, extra FROM matches WHERE id = ?", (mid,)
            ).fetchone()
            if row is None:
                raise NotFound(mid)
            rows = self._db.execute(
                "SELECT seq, status, body, code, message, source, created FROM events "
                "WHERE match_id = ? ORDER BY seq", (mid,)
            ).fetchall()
        setup, created, opened, extra = row
        accepted: list[dict] = []
        activity: list[Activity] = []
        redo: list[dict] = []  # the redo stack, from the rows: an undo pushes, a redo pops, a new event clears
        version = 0
        for seq, status, body, code, message, source, at in rows:
            version = seq
            ev = _load_json(body)
            if status == "accepted":
                accepted.append(ev)
                if code == REDO:
                    if redo:
                        redo.pop()
                else:
                    redo.clear()
            elif status == "undo" and accepted:
                redo.append(accepted.pop())
            activity.append(Activity(seq, status, ev, code, message, source, at))
        m = engine.rebuild(_load_json(setup, {}), accepted)
        return LiveMatch(id=mid, match=m, created=created, opened=opened, extra=_load_json(extra, {}),
                         version=version, activity=activity[-ACTIVITY_KEEP:], redo=redo)

    # -- events -------------------------------------------------------------------------------------
    def _stage(self, live: LiveMatch, status: str, body: Any, code=None, message=None, source=None) -> Activity:
        """Number the next row and show it in memory (called with live.lock and live.write_lock)."""
        act = Activity(live.version + 1, status, body, code, message, source, time.time())
        live.version = act.seq
        live.activity.append(act)
        if len(live.activity) > 2 * ACTIVITY_KEEP:
            del live.activity[:-ACTIVITY_KEEP]
        return act

    def _commit(self, live: LiveMatch, act: Activity) -> None:
        """Write the row of a change made in memory; if the write fails, the match in memory no longer
        matches the disk: it is forgotten (read again from disk next time) and the error goes on."""
        try:
            self._insert(live.id, act)
        except BaseException:
            self._forget(live)
            raise

    def _insert(self, mid: str, act: Activity) -> None:
        """Write one row and commit: on disk when this returns (synchronous=FULL).  The match's
        `opened` time is its last change: `/` opens the match changed last."""
        self._write([
            ("INSERT INTO events (match_id, seq, status, body, code, message, source, created) "
             "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
             (mid, act.seq, act.status, _dump(act.event), act.code, act.message, act.source, act.at)),
            ("UPDATE matches SET opened = ? WHERE id = ?", (act.at, mid)),
        ] + self._summary_rows(mid, act.seq))

    def _summary_rows(self, mid: str, version: int) -> list[tuple[str, tuple]]:
        """The statement that keeps the list's summary with the row written (web_ui/summaries.py)."""
        summ = self._live_summary(mid, version)
        return [] if summ is None else [("UPDATE matches SET summary = ? WHERE id = ?", (_dump(summ), mid))]

    def _forget(self, live: LiveMatch) -> None:
        """The in-memory match is no longer what the disk says: the next request rebuilds it."""
        live.broken = True
        with self._live_lock:
            if self._live.get(live.id) is live:
                del self._live[live.id]

    def _writer(self, mid: str) -> LiveMatch:
        """The live match with its write lock held: rows of one match are written one at a time, in order.
        The caller releases ``live.write_lock``."""
        while True:
            live = self.get(mid)
            live.write_lock.acquire()
            if not live.broken:
                return live
            live.write_lock.release()

    def apply(self, mid: str, event: Any, source: str | None = None):
        """Apply one event. Returns (verdict, activity). When this returns, the row is on disk.

        The engine applies the event under the match's lock (short); the commit (an fsync) runs outside
        it, so screens can be brought up to date meanwhile, while the match's write lock keeps the rows
        in order. A failed commit forgets the in-memory match: it is rebuilt from the disk."""
        live = self._writer(mid)
        try:
            with live.lock:
                before = len(live.match.events)
                try:
                    verdict = live.match.apply(event)
                except BaseException:
                    self._forget(live)  # an engine bug: rebuild from disk next time
                    raise
                if verdict.ok:
                    stored = live.match.events[-1] if len(live.match.events) > before else event
                    act = self._stage(live, "accepted", stored, source=source)
                    live.redo.clear()  # a new event: what was undone can no longer be redone
                else:
                    act = self._stage(live, "refused", event, verdict.code, verdict.message, source)
            self._commit(live, act)
            return verdict, act
        finally:
            live.write_lock.release()

    def undo(self, mid: str, source: str | None = None) -> Activity | None:
        """Take back the last accepted event; None when there is nothing to take back."""
        live = self._writer(mid)
        try:
            with live.lock:
                if not live.match.events:
                    return None
                last = live.match.events[-1]
                rebuilt = engine.rebuild(live.match.setup, live.match.events[:-1])
                act = self._stage(live, "undo", last, source=source)
                live.match = rebuilt
                live.redo.append(last)
            self._commit(live, act)
            return act
        finally:
            live.write_lock.release()

    def redo(self, mid: str, source: str | None = None):
        """Apply again the event undone last (a stack: several undos, several redos, in order), written as a
        new accepted row marked with the code `redo`.  Returns (verdict, activity); None when there is nothing
        to redo; (refusal, None) when the engine refuses it now (nothing is written, the stack stays)."""
        live = self._writer(mid)
        try:
            with live.lock:
                if not live.redo:
                    return None
                event = live.redo[-1]
                try:
                    verdict = live.match.apply(event)
                except BaseException:
                    self._forget(live)
                    raise
                if not verdict.ok:
                    return verdict, None
                live.redo.pop()
                act = self._stage(live, "accepted", live.match.events[-1], code=REDO, source=source)
            self._commit(live, act)
            return verdict, act
        finally:
            live.write_lock.release()

    def import_log(self, setup: dict, extra: dict | None, events: list[tuple[int, Any]]):
        """A new match from a game log, in one transaction. Returns (live match, refused lines)."""
        m = engine.new_match(setup)
        mid = secrets.token_hex(6)
        now = time.time()
        rows = []
        refused = []
        for line, ev in events:
            before = len(m.events)
            v = m.apply(ev)
            if v.ok:
                stored = m.events[-1] if len(m.events) > before else ev
                rows.append(("accepted", stored, None, None))
            else:
                rows.append(("refused", ev, v.code, v.message))
                refused.append({"line": line, "code": v.code, "message": v.message})
        ins = ("INSERT INTO events (match_id, seq, status, body, code, message, source, created) "
               "VALUES (?, ?, ?, ?, ?, ?, 'import', ?)")
        self._write([("INSERT INTO matches (id, setup, created, opened, extra) VALUES (?, ?, ?, ?, ?)",
                      (mid, _dump(m.setup), now, now, _dump(extra or {})))]
                    + [(ins, (mid, i + 1, st, _dump(ev), c, msg, now)) for i, (st, ev, c, msg) in enumerate(rows)]
                    + [("UPDATE matches SET summary = ? WHERE id = ?",
                        (_dump(summaries.summarize(m, len(rows), summaries.setup_key(_dump(m.setup)))), mid))])
        live = LiveMatch(id=mid, match=m, created=now, opened=now, extra=dict(extra or {}), version=len(rows),
                         activity=[Activity(i + 1, st, ev, c, msg, "import", now)
                                   for i, (st, ev, c, msg) in enumerate(rows)][-ACTIVITY_KEEP:])
        self._keep(live)
        return live, refused
