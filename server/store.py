"""Persistence: the game log in SQLite, so that a restarted server resumes every room.

A room's state is a function of its settings, its seats and its current match's seed and
applied actions (the engine is deterministic), so that is what is kept:

- ``rooms``: id, name, preset, rules (JSON), number of seats, turn timer, the password's
  hash (never the password), the host's seat, the room's seed, the number of matches
  played, the current match's seed and the room's ``seq`` after its last event that is
  not an action's (chat, presence; the stored seq is the larger of that and the last
  action's);
- ``seats``: kind, name and bot level of every seat, and the SHA-256 of its token (a
  player resumes with the same token after a restart; the token itself is never stored);
- ``spectators``: the SHA-256 of each spectator's token, and its name;
- ``actions``: the applied actions, in the action notation (``str(action)``, read back
  with :func:`unolan.engine.parse_action`), each with its room, match, number in the
  match and the room's ``seq`` after its events. It is a log: rows are only appended
  (a commit writes the log's last page, whichever rooms acted), and the rows of finished
  matches and closed rooms are swept away now and then (:data:`SWEEP_EVERY`), and when
  the file is opened;
- ``rooms_aside``, ``seats_aside``, ``spectators_aside``, ``actions_aside``: the rows of a
  room that could not be restored, moved there as they were (with the reason), never
  deleted, for whoever wants to look at them.

Finished matches, their fair deals and their race receipts go to the match history, a
file of its own beside this one (:mod:`.history`), written in the same transactions.

The file carries its schema version (``PRAGMA user_version``) and the server's identity
(``PRAGMA application_id``, a random number drawn when the file is first opened: the
``server_id`` of ``welcome``, so that a client keeps its seats by server whichever
address it typed, and across restarts); a file of the first
version (tokens in clear, no action seqs, no spectators) is migrated in place when it is
opened. The server holds the file's lock while it runs (``locking_mode=EXCLUSIVE``), so a
second server on the same file stops at once instead of writing over the first one.

Writes are write-ahead and group-committed. The room task never touches the disk: it
calls the ``Store`` methods, which only queue an operation and wake the writer task. The
writer gathers writes for a moment (``window``), then runs everything queued since its
last wake-up, for every room, in one transaction on the store's own thread; :attr:`Store.ticket` names that transaction before it starts, and the
store's listener hears :meth:`StoreListener.committed` once it is on disk, which is when
the server lets the frames that depend on it go out. A transaction that fails is rolled
back and retried, with what was queued meanwhile, until it succeeds; the listener hears
:meth:`StoreListener.saving_failed` and then :meth:`StoreListener.saving_works`. The
database is in WAL mode with ``synchronous=NORMAL``: a committed transaction survives the
server being killed; a crash of the whole machine may lose the last moments, never the
file's consistency.
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import hmac
import json
import logging
import os
import queue
import secrets
import sqlite3
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

import outcome
import platformdirs
import trio

from . import history
from .words import N_, Said

log = logging.getLogger("unolan.server.store")

_T = TypeVar("_T")

SCHEMA_VERSION = 2

_ROOM_COLUMNS = ("id TEXT PRIMARY KEY, name TEXT NOT NULL, preset TEXT NOT NULL, rules TEXT NOT NULL,"
                 " seats INTEGER NOT NULL, timer INTEGER NOT NULL, password TEXT, host INTEGER,"
                 " seed TEXT NOT NULL, matches INTEGER NOT NULL DEFAULT 0, match_seed TEXT,"
                 " seq INTEGER NOT NULL DEFAULT 0")
_SEAT_COLUMNS = ("room TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT,"
                 " level TEXT, token_hash TEXT, ready INTEGER NOT NULL DEFAULT 0,"
                 " PRIMARY KEY (room, seat)")
_SPECTATOR_COLUMNS = "room TEXT NOT NULL, token_hash TEXT NOT NULL, name TEXT, PRIMARY KEY (room, token_hash)"
_ACTION_COLUMNS = "room TEXT NOT NULL, match INTEGER NOT NULL, n INTEGER NOT NULL, action TEXT NOT NULL, seq INTEGER"

SCHEMA = f"""
CREATE TABLE rooms ({_ROOM_COLUMNS});
CREATE TABLE seats ({_SEAT_COLUMNS});
CREATE TABLE spectators ({_SPECTATOR_COLUMNS});
CREATE TABLE actions ({_ACTION_COLUMNS});
CREATE TABLE rooms_aside ({_ROOM_COLUMNS}, reason TEXT NOT NULL, set_aside TEXT NOT NULL);
CREATE TABLE seats_aside ({_SEAT_COLUMNS});
CREATE TABLE spectators_aside ({_SPECTATOR_COLUMNS});
CREATE TABLE actions_aside ({_ACTION_COLUMNS});
"""

# The columns of every table, by schema version: a file that holds anything else is not ours.
_ROOMS = ("id", "name", "preset", "rules", "seats", "timer", "password", "host", "seed",
          "matches", "match_seed", "seq")
_SEATS = ("room", "seat", "kind", "name", "level", "token_hash", "ready")
_SPECTATORS = ("room", "token_hash", "name")
_ACTIONS = ("room", "match", "n", "action", "seq")
_TABLES = {
    "rooms": _ROOMS, "seats": _SEATS, "spectators": _SPECTATORS, "actions": _ACTIONS,
    "rooms_aside": (*_ROOMS, "reason", "set_aside"), "seats_aside": _SEATS,
    "spectators_aside": _SPECTATORS, "actions_aside": _ACTIONS,
}
_V1_TABLES = {
    "rooms": _ROOMS,
    "seats": ("room", "seat", "kind", "name", "level", "token", "ready"),
    "actions": ("room", "n", "action"),
}


def default_path() -> Path:
    """``server.db`` in the user's data directory (platformdirs; on Linux
    ``$XDG_DATA_HOME/unolan``, by default ``~/.local/share/unolan``)."""
    return platformdirs.user_data_path("unolan", appauthor=False) / "server.db"


CANNOT_USE = N_("cannot use the database {path}: {problem}")


class StoreError(Said):
    """The database cannot be used; the message says why and what to do about it (in the
    chosen language where ``uno host`` prints it: :meth:`~.words.Said.translated`)."""


# -- secrets -----------------------------------------------------------------------------

_ITERATIONS = 20_000  # a LAN game's password: enough not to keep it readable on disk


def hash_password(password: str) -> str:
    """A salted PBKDF2 hash (slow on purpose: call it off the event loop)."""
    salt = secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, _ITERATIONS)
    return f"pbkdf2_sha256${_ITERATIONS}${salt.hex()}${digest.hex()}"


def check_password(stored: str, password: str | None) -> bool:
    """Whether ``password`` matches the hash (slow on purpose: call it off the event loop)."""
    if password is None:
        return False
    try:
        _, iterations, salt, digest = stored.split("$")
        got = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt), int(iterations))
    except ValueError:
        return False
    return hmac.compare_digest(got.hex(), digest)


def token_hash(token: str) -> str:
    """What the server keeps of a token. Tokens are 144 random bits: a plain SHA-256
    cannot be turned back into one, so a copy of the database resumes nobody's seat."""
    return hashlib.sha256(token.encode()).hexdigest()


# -- what is stored ----------------------------------------------------------------------


@dataclass
class SeatRecord:
    seat: int
    kind: str
    name: str | None
    level: str | None
    token_hash: str | None
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
    spectators: list[tuple[str, str | None]] = field(default_factory=list)  # token hash, name
    actions: list[str] = field(default_factory=list)
    action_seqs: list[int | None] = field(default_factory=list)  # the room's seq after each
    rounds: list[dict[str, Any]] = field(default_factory=list)  # the current match's fair deals


@dataclass
class Stored:
    """Everything :meth:`Store.load` found."""

    rooms: list[RoomRecord]
    unreadable: dict[str, str]  # room id -> why its rows cannot be read
    aside: dict[str, list[str]]  # id of a room set aside -> its token hashes


class StoreListener(Protocol):
    """What the store tells the server (from the store's task, never from a thread)."""

    def committed(self, ticket: int) -> None:
        """Every operation queued under ``ticket`` or before is on disk."""

    def saving_failed(self, error: str) -> None:
        """A transaction failed; it is being retried."""

    def saving_works(self) -> None:
        """A transaction succeeded after failures."""


RETRY_DELAYS = (0.25, 0.5, 1.0, 2.0, 4.0)  # between attempts at a failed transaction (then 4 s)
_NOTE_EVERY = 60.0  # while saving fails, the log repeats it this often (seconds)


class Store:
    """One SQLite file. Build, then ``await nursery.start(store.run)`` (which opens the
    file and raises :class:`StoreError` if it cannot be used); read the rooms with
    :meth:`load`; queue writes with the other methods (they never wait)."""

    def __init__(self, path: str | os.PathLike[str], listener: StoreListener | None = None,
                 *, window: float = 0.0, batch: int = 16, lock_timeout: float = 1.0,
                 keep: history.Keep | None = None) -> None:
        """``window``: how long the writer may gather writes after the first one, until
        ``batch`` are queued, before its transaction (a transaction costs far more than a
        row in it)."""
        self.path = Path(path)
        self.listener = listener
        self.window = window
        self.batch = batch
        self.lock_timeout = lock_timeout  # how long to wait for another program's lock at open
        self.keep = keep or history.Keep()  # how much match history the host keeps
        self._db: sqlite3.Connection | None = None
        self._ops: list[tuple[str, tuple[Any, ...]]] = []
        self._wake = trio.Event()
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()  # for the writer thread
        self.queued = 0  # operations queued so far (a change tells a caller it wrote)
        self._appended = 0  # actions queued since the last sweep
        self.ticket = 1  # the transaction that will hold what is queued now
        self.failing = False
        self.server_id: str | None = None  # the file's identity, once opened

    # -- the writer task -------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[Store] = trio.TASK_STATUS_IGNORED) -> None:
        thread = threading.Thread(target=self._serve_jobs, args=(trio.lowlevel.current_trio_token(),),
                                  name=f"store {self.path.name}", daemon=True)
        thread.start()
        try:
            await self._in_thread(self._open)
            task_status.started(self)
            while True:
                if not self._ops:
                    await self._wake.wait()  # set by the first write
                self._wake = trio.Event()
                if self.window and len(self._ops) < self.batch:
                    # Let more rooms' writes join this transaction, for a moment at most
                    # (the batch-th write ends it early).
                    with trio.move_on_after(self.window):
                        await self._wake.wait()
                    self._wake = trio.Event()
                await self._commit(retry=True)
        finally:
            with trio.CancelScope(shield=True):
                if self._ops and self._db is not None:
                    await self._commit(retry=False)
                await self._in_thread(self._close)
                self._jobs.put(None)

    # The database lives in one thread of its own for the store's life: a job goes to it
    # and its outcome comes back through the Trio token (cheaper than a worker thread per
    # transaction, and the connection never changes threads).

    def _serve_jobs(self, token: trio.lowlevel.TrioToken) -> None:
        while (job := self._jobs.get()) is not None:
            fn, args, deliver = job
            result = outcome.capture(fn, *args)
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(deliver, result)

    async def _in_thread(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` in the store's thread. Not cancellable: a transaction under way
        is waited out (it takes milliseconds)."""
        task = trio.lowlevel.current_task()
        self._jobs.put((fn, args, partial(trio.lowlevel.reschedule, task)))
        result: _T = await trio.lowlevel.wait_task_rescheduled(lambda _: trio.lowlevel.Abort.FAILED)
        return result

    async def flush(self) -> None:
        """Write everything queued so far (retrying until it is written)."""
        if self._ops:
            await self._commit(retry=True)

    async def _commit(self, retry: bool) -> None:
        """One transaction with everything queued; on failure, roll back and try again
        (with what was queued meanwhile) until it succeeds, or once if not ``retry``."""
        attempt = 0
        noted = trio.current_time()
        while True:
            if not self._ops:
                return  # a flush wrote them meanwhile: nothing is waiting for an empty one
            ops, self._ops = self._ops, []
            ticket = self.ticket
            self.ticket += 1
            prepared = None
            if len(ops) <= _ACTIONS_PER_INSERT and all(op == "action" for op, _ in ops):
                prepared = _actions_statement([args for _, args in ops])
            try:
                await self._in_thread(self._write, ops, prepared)
            except sqlite3.Error as exc:
                self._ops[:0] = ops  # rolled back: they go again, first
                if not self.failing or trio.current_time() - noted >= _NOTE_EVERY:
                    noted = trio.current_time()
                    log.error("cannot save to %s: %s; the rooms are paused and the server keeps "
                              "trying%s", self.path, _describe(exc),
                              f" ({attempt} attempts so far)" if attempt else "")
                if not self.failing:
                    self.failing = True
                    if self.listener is not None:
                        self.listener.saving_failed(_describe(exc))
                if not retry:
                    log.error("stopping with %d changes unsaved", len(self._ops))
                    return
                await trio.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
                attempt += 1
                continue
            if self.failing:
                self.failing = False
                log.warning("saving to %s works again (after %d failed attempts); play resumes",
                            self.path, attempt)
                if self.listener is not None:
                    self.listener.saving_works()
            if self.listener is not None:
                self.listener.committed(ticket)
            return

    def _open(self) -> None:
        path = self.path
        if path.is_dir():
            raise StoreError(N_("the database path {path} is a directory; give a file (--db PATH)"),
                             path=path)
        try:
            if path.parent == default_path().parent:  # the data directory: its owner's only
                path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                os.chmod(path.parent, 0o700)
            elif not path.parent.is_dir():  # a typo is not a reason to make directories
                raise StoreError(N_("cannot use the database {path}: there is no directory "
                                    "{folder}; create it first or choose another --db"),
                                 path=path, folder=path.parent)
            if not path.exists():
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
            for name in (path, Path(f"{path}-wal")):
                if name.exists():
                    os.chmod(name, 0o600)  # the log holds seeds: readable by its owner only
        except OSError as exc:
            raise StoreError(CANNOT_USE, path=path, problem=exc.strerror or exc) from None
        db = None
        try:
            db = sqlite3.connect(path, check_same_thread=False, isolation_level=None,
                                 timeout=self.lock_timeout)
            # Exclusive: the lock is kept from the first write on, so a second server on
            # the same file fails here, and WAL needs no shared-memory file.
            db.execute("PRAGMA main.locking_mode=EXCLUSIVE")
            # Small pages for a new file: each room's actions fill their own pages, and a
            # commit writes every page it touched, whole, to the log.
            db.execute(f"PRAGMA page_size = {_PAGE_SIZE}")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            # What a running server reads back is a few pages (the rooms, the end of the
            # log): a small page cache, not SQLite's default 2 MiB per file.
            db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            db.execute("BEGIN IMMEDIATE")
            _prepare_schema(db, path)
            self.server_id = _identity(db)
            db.execute(_SWEEP)
            db.execute("COMMIT")
            history.attach(db, history.history_path(path), CACHE_KIB)  # not locked: the commands read it
        except sqlite3.Error as exc:
            if db is not None:
                db.close()
            raise _open_error(path, exc) from None
        except OSError as exc:  # the history's file
            if db is not None:
                db.close()
            raise StoreError(N_("cannot use the match history beside {path}: {problem}"),
                             path=path, problem=exc.strerror or exc) from None
        except StoreError:
            if db is not None:
                db.close()
            raise
        self._db = db

    def _close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def _write(self, ops: list[tuple[str, tuple[Any, ...]]],
               prepared: tuple[str, list[Any]] | None = None) -> None:
        """One transaction. This thread takes the GIL back after every statement, and each
        time it may wait for the event loop to let go of it, so statements are what a
        transaction costs: the actions queued one after another go in one statement, and
        the usual transaction, actions only, comes ``prepared`` (made on the event loop)
        as a single statement, its own transaction."""
        db = self._db
        if db is None:
            raise sqlite3.OperationalError("the database is closed")
        if prepared is not None:
            db.execute(*prepared)
            return
        try:
            db.execute("BEGIN")
            actions: list[tuple[Any, ...]] = []
            for op, args in ops:
                if op == "action":
                    actions.append(args)
                    continue
                if actions:
                    _insert_actions(db, actions)
                    actions = []
                getattr(self, "_do_" + op)(db, *args)
            if actions:
                _insert_actions(db, actions)
            db.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise

    # -- queueing (called from room tasks; never waits) --------------------------------

    def _put(self, op: str, *args: Any) -> None:
        ops = self._ops
        ops.append((op, args))
        self.queued += 1
        if len(ops) == 1 or len(ops) == self.batch:  # the writer waits for these two
            self._wake.set()

    def save_room(self, record: RoomRecord) -> None:
        """A room's settings (and its seats), as when it was created or reloaded."""
        self._put("room", record)

    def save_seats(self, room: str, host: int | None, seats: list[SeatRecord]) -> None:
        self._put("seats", room, host, seats)

    def save_spectator(self, room: str, token_hash: str, name: str | None) -> None:
        self._put("spectator", room, token_hash, name)

    def drop_spectator(self, room: str, token_hash: str) -> None:
        self._put("drop_spectator", room, token_hash)

    def start_match(self, room: str, matches: int, seed: int | str, seq: int) -> None:
        """A new match (the ``matches``-th): its seed; the previous match's actions are
        left to the sweep."""
        self._put("match", room, matches, json.dumps(seed), seq)

    def action(self, room: str, match: int, n: int, action: str, seq: int) -> None:
        """The ``n``-th action applied in the room's ``match`` (from 0); ``seq``: the room's
        seq after its events (the room's stored seq is the larger of its own and its
        current match's last action's)."""
        self._put("action", room, match, n, action, seq)
        self._appended += 1
        if self._appended >= SWEEP_EVERY:
            self._appended = 0
            self._put("sweep")

    def seq(self, room: str, seq: int) -> None:
        """The room's last seq, after an event that is not an action's (chat, presence)."""
        self._put("seq", room, seq)

    def round_record(self, room: str, match: int, round: int, data: dict[str, Any]) -> None:
        """A round's fair deal for the history: its commitment (with the secret and salt),
        then its nonces and seed."""
        self._put("history_round", room, match, round, data)

    def receipt(self, room: str, match: int, seq: int, data: dict[str, Any]) -> None:
        """A race's receipt, for the history."""
        self._put("history_receipt", room, match, seq, data)

    def finished(self, record: history.KeptMatch, match: int) -> None:
        """A match ended: keep it (with the actions of the room's ``match``-th match)."""
        self._put("history_match", record, match)

    def delete_room(self, room: str) -> None:
        self._put("delete", room)

    def set_aside(self, room: str, reason: str) -> None:
        """Move a room's rows to the ``*_aside`` tables (it could not be restored)."""
        self._put("aside", room, reason)

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
        db.execute("DELETE FROM spectators WHERE room = ?", (r.id,))
        db.executemany("INSERT INTO spectators (room, token_hash, name) VALUES (?, ?, ?)",
                       [(r.id, token, name) for token, name in r.spectators])

    @staticmethod
    def _do_seats(db: sqlite3.Connection, room: str, host: int | None,
                  seats: list[SeatRecord]) -> None:
        db.execute("UPDATE rooms SET host = ? WHERE id = ?", (host, room))
        db.execute("DELETE FROM seats WHERE room = ?", (room,))
        db.executemany(
            "INSERT INTO seats (room, seat, kind, name, level, token_hash, ready)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(room, s.seat, s.kind, s.name, s.level, s.token_hash, int(s.ready)) for s in seats])

    @staticmethod
    def _do_spectator(db: sqlite3.Connection, room: str, token: str, name: str | None) -> None:
        db.execute("INSERT OR REPLACE INTO spectators (room, token_hash, name) VALUES (?, ?, ?)",
                   (room, token, name))

    @staticmethod
    def _do_drop_spectator(db: sqlite3.Connection, room: str, token: str) -> None:
        db.execute("DELETE FROM spectators WHERE room = ? AND token_hash = ?", (room, token))

    @staticmethod
    def _do_match(db: sqlite3.Connection, room: str, matches: int, seed: str, seq: int) -> None:
        db.execute("UPDATE rooms SET matches = ?, match_seed = ?, seq = ? WHERE id = ?",
                   (matches, seed, seq, room))

    @staticmethod
    def _do_history_round(db: sqlite3.Connection, room: str, match: int, round: int,
                          data: dict[str, Any]) -> None:
        history.write_round(db, room, match, round, data)

    @staticmethod
    def _do_history_receipt(db: sqlite3.Connection, room: str, match: int, seq: int,
                            data: dict[str, Any]) -> None:
        history.write_receipt(db, room, match, seq, data)

    def _do_history_match(self, db: sqlite3.Connection, record: history.KeptMatch, match: int) -> None:
        history.write_match(db, record, match, self.keep)

    @staticmethod
    def _do_sweep(db: sqlite3.Connection) -> None:
        """Drop the actions of finished matches and of rooms that are gone."""
        db.execute(_SWEEP)

    @staticmethod
    def _do_seq(db: sqlite3.Connection, room: str, seq: int) -> None:
        db.execute("UPDATE rooms SET seq = ? WHERE id = ?", (seq, room))

    @staticmethod
    def _do_delete(db: sqlite3.Connection, room: str) -> None:
        """The room's rows (its actions are left to the sweep)."""
        for table, key in (("spectators", "room"), ("seats", "room"), ("rooms", "id")):
            db.execute(f"DELETE FROM {table} WHERE {key} = ?", (room,))

    @staticmethod
    def _do_aside(db: sqlite3.Connection, room: str, reason: str) -> None:
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        db.execute("INSERT OR REPLACE INTO rooms_aside SELECT *, ?, ? FROM rooms WHERE id = ?",
                   (reason, now, room))
        for table in ("seats", "spectators"):
            db.execute(f"INSERT OR REPLACE INTO {table}_aside SELECT * FROM {table} WHERE room = ?",
                       (room,))
        db.execute("INSERT INTO actions_aside SELECT a.* FROM actions a JOIN rooms r"
                   " ON r.id = a.room AND r.matches = a.match WHERE a.room = ?", (room,))
        Store._do_delete(db, room)

    # -- reading (at start-up) ----------------------------------------------------------

    async def load(self) -> Stored:
        """Every stored room, with its seats, spectators and current match's actions."""
        await self.flush()
        return await self._in_thread(self._load)

    def _load(self) -> Stored:
        db = self._db
        assert db is not None, "the store is not open"
        rooms: dict[str, RoomRecord] = {}
        unreadable: dict[str, str] = {}
        for row in db.execute(f"SELECT {', '.join(_ROOMS)} FROM rooms"):
            try:
                rooms[row[0]] = _room_record(row)
            except (ValueError, TypeError) as exc:  # bad JSON, a value of the wrong type
                unreadable[row[0]] = f"its settings cannot be read ({type(exc).__name__})"
        for rid, seat, kind, name, level, token, ready in db.execute(
                f"SELECT {', '.join(_SEATS)} FROM seats ORDER BY room, seat"):
            if rid in rooms:
                rooms[rid].seat_records.append(SeatRecord(seat, kind, name, level, token, bool(ready)))
        for rid, token, name in db.execute("SELECT room, token_hash, name FROM spectators"):
            if rid in rooms:
                rooms[rid].spectators.append((token, name))
        for rid, action, seq in db.execute(
                "SELECT a.room, a.action, a.seq FROM actions a JOIN rooms r"
                " ON r.id = a.room AND r.matches = a.match ORDER BY a.room, a.n"):
            if rid in rooms:
                record = rooms[rid]
                record.actions.append(action)
                record.action_seqs.append(seq)
                if seq is not None and seq > record.seq:
                    record.seq = seq
        for rid, match, rnd, data in history.current_rounds(db):
            if rid in rooms and rooms[rid].matches == match:
                rooms[rid].rounds.append({"round": rnd, **data})
        aside: dict[str, list[str]] = {rid: [] for (rid,) in db.execute("SELECT id FROM rooms_aside")}
        for rid, token in db.execute(
                "SELECT room, token_hash FROM seats_aside WHERE token_hash IS NOT NULL UNION ALL"
                " SELECT room, token_hash FROM spectators_aside"):
            aside.setdefault(rid, []).append(token)
        return Stored(list(rooms.values()), unreadable, aside)


_ACTIONS_PER_INSERT = 250
_INSERT_ACTIONS = "INSERT INTO actions (room, match, n, action, seq) VALUES "
_ACTION_VALUES = "(?, ?, ?, ?, ?)"
SWEEP_EVERY = 50_000  # actions appended between two sweeps of the log
_SWEEP = ("DELETE FROM actions WHERE NOT EXISTS (SELECT 1 FROM rooms r"
          " WHERE r.id = actions.room AND r.matches = actions.match)")
_PAGE_SIZE = 1024
CACHE_KIB = 256  # the page cache of the store's file and of the history's, each


def _actions_statement(rows: list[tuple[Any, ...]]) -> tuple[str, list[Any]]:
    """One INSERT of these actions (at most _ACTIONS_PER_INSERT)."""
    return (_INSERT_ACTIONS + ", ".join([_ACTION_VALUES] * len(rows)),
            [value for row in rows for value in row])


def _insert_actions(db: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> None:
    for start in range(0, len(rows), _ACTIONS_PER_INSERT):
        db.execute(*_actions_statement(rows[start:start + _ACTIONS_PER_INSERT]))


def _room_record(row: tuple[Any, ...]) -> RoomRecord:
    rid, name, preset, rules, seats, timer, password, host, seed, matches, match_seed, seq = row
    record = RoomRecord(
        rid, name, preset, json.loads(rules), seats, timer, password, host, json.loads(seed),
        matches, None if match_seed is None else json.loads(match_seed), seq)
    if not isinstance(record.rules, dict) or not all(
            type(v) is int for v in (record.seats, record.timer, record.matches, record.seq)):
        raise TypeError("a field of the wrong type")
    return record


def _columns(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {n: tuple(c[1] for c in db.execute(f"PRAGMA table_info({n})")) for n in names}


def _prepare_schema(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables in a new file, migrate a first-version file, check any other."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = _columns(db)
    if version == SCHEMA_VERSION and tables == _TABLES:
        return
    if version == 0 and not tables:
        _create(db, _TABLES)
    elif version == 0 and tables == _V1_TABLES:
        log.info("migrating %s to schema version %d (tokens stored hashed)", path, SCHEMA_VERSION)
        db.create_function("token_hash", 1, token_hash, deterministic=True)
        db.execute("ALTER TABLE seats RENAME COLUMN token TO token_hash")
        db.execute("UPDATE seats SET token_hash = token_hash(token_hash) WHERE token_hash IS NOT NULL")
        db.execute("ALTER TABLE actions RENAME TO actions_v1")
        _create(db, set(_TABLES) - {"rooms", "seats"})
        db.execute("INSERT INTO actions SELECT a.room, r.matches, a.n, a.action, NULL"
                   " FROM actions_v1 a JOIN rooms r ON r.id = a.room ORDER BY a.room, a.n")
        db.execute("DROP TABLE actions_v1")
    else:
        raise StoreError(
            N_("{path} is a SQLite file but not a unolan database of a version this server knows"
               " (schema version {version}); move it aside or choose another --db"),
            path=path, version=version)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _identity(db: sqlite3.Connection) -> str:
    """The server's id kept in the file (drawn the first time: a file of an older server
    has none yet), as 8 hex digits."""
    number = db.execute("PRAGMA application_id").fetchone()[0]
    while number == 0:
        number = secrets.randbits(31)
        db.execute(f"PRAGMA application_id = {number}")
    return f"{number:08x}"


def _create(db: sqlite3.Connection, tables: Iterable[str]) -> None:
    """Create these tables of :data:`SCHEMA` (statement by statement: ``executescript``
    would commit the transaction that holds the lock)."""
    for statement in SCHEMA.split(";"):
        words = statement.split()
        if words and words[2] in tables:
            db.execute(statement)


def _describe(exc: sqlite3.Error) -> str:
    return str(exc) or type(exc).__name__


def _open_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """Why SQLite would not open ``path``, in words a host can act on (SQLite's own
    message, English, is kept as the problem)."""
    text = _describe(exc)
    if "locked" in text or "busy" in text:
        return StoreError(N_("the database {path} is locked by another program (another `uno host`"
                             " on the same file?); stop it or choose another --db"), path=path)
    if "not a database" in text or "malformed" in text:
        return StoreError(N_("{path} is not a usable SQLite database ({problem}); move it aside (it"
                             " may be damaged) or choose another --db"), path=path, problem=text)
    if "readonly" in text:
        return StoreError(N_("the database {path} is read-only; make it writable or choose another"
                             " --db"), path=path)
    return StoreError(CANNOT_USE, path=path, problem=text)
