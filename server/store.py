"""Persistence: the game log in SQLite, so that a restarted server resumes every room.

A room's state is a function of its settings, its seats and its current match's seed and
applied actions (the engine is deterministic), so that is what is kept:

- ``rooms``: id, name, preset, rules (JSON), number of seats, turn timer, the password's
  hash (never the password), the host's seat, the room's seed, the number of matches
  played, the current match's seed and the room's last ``seq``;
- ``seats``: kind, name, bot level and token of every seat (a player resumes with the
  same token after a restart);
- ``actions``: the current match's applied actions in order, in the action notation
  (``str(action)``, read back with :func:`unolan.engine.parse_action`).

The room task never touches the disk: it calls the ``Store`` methods, which only queue
an operation and wake the writer task. The writer runs each batch of queued operations in
one transaction on a worker thread (``trio.to_thread.run_sync``); on shutdown it writes
whatever is still queued. The database is in WAL mode, so a crash loses at most the last
batch, never the file's consistency.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import platformdirs
import trio

log = logging.getLogger("unolan.server.store")

SCHEMA = """
CREATE TABLE IF NOT EXISTS rooms (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    preset TEXT NOT NULL,
    rules TEXT NOT NULL,
    seats INTEGER NOT NULL,
    timer INTEGER NOT NULL,
    password TEXT,
    host INTEGER,
    seed TEXT NOT NULL,
    matches INTEGER NOT NULL DEFAULT 0,
    match_seed TEXT,
    seq INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS seats (
    room TEXT NOT NULL,
    seat INTEGER NOT NULL,
    kind TEXT NOT NULL,
    name TEXT,
    level TEXT,
    token TEXT,
    ready INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (room, seat)
);
CREATE TABLE IF NOT EXISTS actions (
    room TEXT NOT NULL,
    n INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (room, n)
);
"""


def default_path() -> Path:
    """``server.db`` in the user's data directory (platformdirs; on Linux
    ``$XDG_DATA_HOME/unolan``, by default ``~/.local/share/unolan``)."""
    return platformdirs.user_data_path("unolan", appauthor=False) / "server.db"


# -- passwords ---------------------------------------------------------------------------

_ITERATIONS = 20_000  # a LAN game's password: enough not to keep it readable on disk


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, _ITERATIONS)
    return f"pbkdf2_sha256${_ITERATIONS}${salt.hex()}${digest.hex()}"


def check_password(stored: str, password: str | None) -> bool:
    if password is None:
        return False
    try:
        _, iterations, salt, digest = stored.split("$")
        got = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


# -- what is stored ----------------------------------------------------------------------


@dataclass
class SeatRecord:
    seat: int
    kind: str
    name: str | None
    level: str | None
    token: str | None
    ready: bool


@dataclass
class RoomRecord:
    id: str
    name: str
    preset: str
    rules: dict[str, Any]
    seats: int
    timer: int
    password: str | None  # the hash
    host: int | None
    seed: int | str | None
    matches: int
    match_seed: int | str | None
    seq: int
    seat_records: list[SeatRecord] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)


class Store:
    """One SQLite file. Build, then ``await nursery.start(store.run)``; read the rooms with
    :meth:`load`; queue writes with the other methods (they never wait)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._db: sqlite3.Connection | None = None
        self._ops: list[tuple[str, tuple[Any, ...]]] = []
        self._wake = trio.Event()

    # -- the writer task -------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[Store] = trio.TASK_STATUS_IGNORED) -> None:
        await trio.to_thread.run_sync(self._open)
        try:
            task_status.started(self)
            while True:
                await self._wake.wait()
                self._wake = trio.Event()
                await self.flush()
        finally:
            with trio.CancelScope(shield=True):
                await self.flush()
                await trio.to_thread.run_sync(self._close)

    async def flush(self) -> None:
        """Write everything queued so far (in a worker thread)."""
        while self._ops:
            ops, self._ops = self._ops, []
            try:
                await trio.to_thread.run_sync(self._write, ops)
            except BaseException:
                # Cancelled before the thread started (a server stopping): nothing was
                # written, so the shutdown's last flush must still write these.
                self._ops[:0] = ops
                raise

    def _open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(SCHEMA)
        self._db = db

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _write(self, ops: list[tuple[str, tuple[Any, ...]]]) -> None:
        db = self._db
        if db is None:
            return
        try:
            db.execute("BEGIN")
            for op, args in ops:
                getattr(self, "_do_" + op)(db, *args)
            db.execute("COMMIT")
        except sqlite3.Error:
            log.exception("could not save %d changes to %s", len(ops), self.path)
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")

    # -- queueing (called from room tasks; never waits) --------------------------------

    def _put(self, op: str, *args: Any) -> None:
        self._ops.append((op, args))
        self._wake.set()

    def save_room(self, record: RoomRecord) -> None:
        """A room's settings (and its seats), as when it was created or reloaded."""
        self._put("room", record)

    def save_seats(self, room: str, host: int | None, seats: list[SeatRecord]) -> None:
        self._put("seats", room, host, seats)

    def start_match(self, room: str, matches: int, seed: int | str, seq: int) -> None:
        """A new match: its seed; the previous match's actions are dropped."""
        self._put("match", room, matches, json.dumps(seed), seq)

    def action(self, room: str, n: int, action: str, seq: int) -> None:
        """The ``n``-th action applied in the room's current match (from 0)."""
        self._put("action", room, n, action, seq)

    def seq(self, room: str, seq: int) -> None:
        """The room's last seq, after an event that is not an action's (chat, presence)."""
        self._put("seq", room, seq)

    def delete_room(self, room: str) -> None:
        self._put("delete", room)

    # -- the operations (worker thread) -----------------------------------------------

    @staticmethod
    def _do_room(db: sqlite3.Connection, r: RoomRecord) -> None:
        db.execute(
            "INSERT OR REPLACE INTO rooms (id, name, preset, rules, seats, timer, password, host,"
            " seed, matches, match_seed, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (r.id, r.name, r.preset, json.dumps(r.rules), r.seats, r.timer, r.password, r.host,
             json.dumps(r.seed), r.matches,
             None if r.match_seed is None else json.dumps(r.match_seed), r.seq))
        Store._do_seats(db, r.id, r.host, r.seat_records)

    @staticmethod
    def _do_seats(db: sqlite3.Connection, room: str, host: int | None,
                  seats: list[SeatRecord]) -> None:
        db.execute("UPDATE rooms SET host = ? WHERE id = ?", (host, room))
        db.execute("DELETE FROM seats WHERE room = ?", (room,))
        db.executemany(
            "INSERT INTO seats (room, seat, kind, name, level, token, ready)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(room, s.seat, s.kind, s.name, s.level, s.token, int(s.ready)) for s in seats])

    @staticmethod
    def _do_match(db: sqlite3.Connection, room: str, matches: int, seed: str, seq: int) -> None:
        db.execute("DELETE FROM actions WHERE room = ?", (room,))
        db.execute("UPDATE rooms SET matches = ?, match_seed = ?, seq = ? WHERE id = ?",
                   (matches, seed, seq, room))

    @staticmethod
    def _do_action(db: sqlite3.Connection, room: str, n: int, action: str, seq: int) -> None:
        db.execute("INSERT OR REPLACE INTO actions (room, n, action) VALUES (?, ?, ?)",
                   (room, n, action))
        db.execute("UPDATE rooms SET seq = ? WHERE id = ?", (seq, room))

    @staticmethod
    def _do_seq(db: sqlite3.Connection, room: str, seq: int) -> None:
        db.execute("UPDATE rooms SET seq = ? WHERE id = ?", (seq, room))

    @staticmethod
    def _do_delete(db: sqlite3.Connection, room: str) -> None:
        for table, key in (("actions", "room"), ("seats", "room"), ("rooms", "id")):
            db.execute(f"DELETE FROM {table} WHERE {key} = ?", (room,))

    # -- reading (at start-up) ----------------------------------------------------------

    async def load(self) -> list[RoomRecord]:
        """Every stored room, with its seats and its current match's actions."""
        await self.flush()
        return await trio.to_thread.run_sync(self._load)

    def _load(self) -> list[RoomRecord]:
        db = self._db
        assert db is not None, "the store is not open"
        rooms: dict[str, RoomRecord] = {}
        for row in db.execute(
                "SELECT id, name, preset, rules, seats, timer, password, host, seed, matches,"
                " match_seed, seq FROM rooms"):
            rid, name, preset, rules, seats, timer, password, host, seed, matches, match_seed, seq = row
            rooms[rid] = RoomRecord(
                rid, name, preset, json.loads(rules), seats, timer, password, host,
                json.loads(seed), matches, None if match_seed is None else json.loads(match_seed),
                seq)
        for rid, seat, kind, name, level, token, ready in db.execute(
                "SELECT room, seat, kind, name, level, token, ready FROM seats ORDER BY room, seat"):
            if rid in rooms:
                rooms[rid].seat_records.append(SeatRecord(seat, kind, name, level, token, bool(ready)))
        for rid, action in db.execute("SELECT room, action FROM actions ORDER BY room, n"):
            if rid in rooms:
                rooms[rid].actions.append(action)
        return list(rooms.values())
