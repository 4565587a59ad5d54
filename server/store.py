"""Persistence: the game log in SQLite, so that a restarted server resumes every room.

A room's state is a function of its settings, its seats and its current match's seed and
applied actions (the engine is deterministic), so that is what is kept:

- ``rooms``: id, name, preset, rules (JSON), number of seats, turn timer, the password's
  hash (never the password), the host's seat, the room's seed, the number of matches
  played, the current match's seed and the room's ``seq`` after its last event that is
  not an action's (chat, presence; the stored seq is the larger of that and the last
  action's), and when the current match ended (empty while it is under way: a match
  over when the server stopped is kept in the history at the restart, with the time it
  ended, not the restart's);
- ``seats``: kind, name and bot level of every seat, whether a program plays it (a client
  that said so in its hello: ``uno bot``), and the SHA-256 of its token (a player resumes
  with the same token after a restart; the token itself is never stored);
- ``spectators``: the SHA-256 of each spectator's token, and its name;
- ``actions``: the applied actions, in the action notation (``str(action)``, read back
  with :func:`unolan.engine.parse_action`), each with its room, match, number in the
  match and the room's ``seq`` after its events. It is a log: rows are only appended
  (a commit writes the log's last page, whichever rooms acted), and the rows of finished
  matches and closed rooms are swept away now and then (:data:`SWEEP_EVERY`: those
  below the oldest match still in the log, and at times every one), and when the file
  is opened;
- ``rooms_aside``, ``seats_aside``, ``spectators_aside``, ``actions_aside``: the rows of a
  room that could not be restored, moved there as they were (with the reason), never
  deleted, for whoever wants to look at them;
- ``tail``: the number of the last frame of the log's tail (:mod:`.tail`, a file beside
  this one) that is in ``actions``.

Finished matches, their fair deals and their race receipts go to the match history, a
file of its own beside this one (:mod:`.history`), written in the same transactions.

The file carries its schema version (``PRAGMA user_version``) and the server's identity
(``PRAGMA application_id``, a random number drawn when the file is first opened: the
``server_id`` of ``welcome``, so that a client keeps its seats by server whichever
address it typed, and across restarts); a file of an earlier version is migrated in
place when it is opened (the first: tokens in clear, no action seqs, no spectators; the
second: no seat's program flag, no time a match ended). The server holds the file's lock while it runs (``locking_mode=EXCLUSIVE``), so a
second server on the same file stops at once instead of writing over the first one.

Writes are write-ahead and group-committed. The room tasks never touch the disk: they
call the ``Store`` methods, which only queue an operation (a typed value, :data:`Op`).
When the event loop has run every task that was ready and is about to wait for I/O
(a Trio instrument's ``before_io_wait``), everything the round queued, for every room, is
written as one transaction, so the frames go out in the round that made them (a task
woken for the commit would run a round later, and cost a task switch). A round that only
played (actions, seqs: most rounds) is one frame appended to the log's tail, a
``pwrite`` of a few microseconds; anything else is a SQLite transaction, which first
moves the tail's rows into ``actions`` (with the number of its last frame, so that a
frame is never moved twice) and then empties the tail. The tail is moved in too when it
holds ``TAIL_ROWS`` rows, when the rooms are read and when the store closes; at the
next start, whatever a kill left in it goes in first. :attr:`Store.ticket` names the
transaction that will hold what is queued now, and the store's listener hears
:meth:`StoreListener.committed` once it is on disk, which is when the server lets the
frames that depend on it go out.

Where a transaction runs is chosen by how long it takes. A frame of the tail, and the
usual SQLite transaction (seats, a round's fair deal or a race's receipt for the
history, with the tail's few rows, ``ROWS_PER_INSERT`` at most to a statement) wait for
nothing: in WAL mode with ``synchronous=NORMAL`` a commit appends a few pages to the log
and syncs nothing, the store's file is locked for the server alone, and the history's
readers never block its writer. They run on the event loop; handed to a thread, the
same commit waited milliseconds for a CPU and for the GIL, twice, while the event loop
and the clients kept both cores busy, and every action's frames waited with it. On a
busy server a SQLite commit of one row cost some 45 µs (its code and pages pushed out
of the CPU's caches between commits), the tail's frame some 13. A lock that another
program holds anyway (someone writing to the history's file by hand) fails the
transaction at once instead of stalling the event loop: it is retried like any other
failure. What takes long goes to the store's own thread, where SQLite works without the
GIL beside the event loop, with the frames held until it is done: keeping a finished
match (a copy of its actions to the history), a sweep of the log, setting a room aside,
a move of more than ``TAIL_MOVED_ON_THE_LOOP`` rows of the tail, and every
``CHECKPOINT_EVERY``-th SQLite transaction, which then copies the log's pages into the
file (the ``fsync`` that WAL mode defers: the connection never checkpoints by itself).
Transactions are done one at a time, in order: while one is in the thread, what is
queued joins the next. The thread is a batch thread (``SCHED_BATCH`` where there is
one): woken, it waits for a free CPU instead of displacing the event loop's thread,
which holds the GIL it needs.

A transaction that fails (a SQLite error, or the tail's ``OSError``: a frame cut short
is written over by the next attempt) is rolled back and retried, with what was queued
meanwhile, until it succeeds; the listener hears :meth:`StoreListener.saving_failed`
and then :meth:`StoreListener.saving_works`. A committed transaction survives the server being
killed; a crash of the whole machine may lose the last moments, never the file's
consistency.
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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple, Protocol, TypeGuard, TypeVar, assert_never

import outcome
import platformdirs
import trio

from . import history
from .tail import Tail, tail_path
from .words import N_, Said

log = logging.getLogger("unolan.server.store")

_T = TypeVar("_T")

SCHEMA_VERSION = 4

_ROOM_COLUMNS = ("id TEXT PRIMARY KEY, name TEXT NOT NULL, preset TEXT NOT NULL, rules TEXT NOT NULL,"
                 " seats INTEGER NOT NULL, timer INTEGER NOT NULL, password TEXT, host INTEGER,"
                 " seed TEXT NOT NULL, matches INTEGER NOT NULL DEFAULT 0, match_seed TEXT,"
                 " seq INTEGER NOT NULL DEFAULT 0, ended TEXT")
_SEAT_COLUMNS = ("room TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT,"
                 " level TEXT, token_hash TEXT, ready INTEGER NOT NULL DEFAULT 0,"
                 " program INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat)")
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
CREATE TABLE tail (moved INTEGER NOT NULL);
"""

# The columns of every table, by schema version: a file that holds anything else is not ours.
_ROOMS = ("id", "name", "preset", "rules", "seats", "timer", "password", "host", "seed",
          "matches", "match_seed", "seq", "ended")
_SEATS = ("room", "seat", "kind", "name", "level", "token_hash", "ready", "program")
_SPECTATORS = ("room", "token_hash", "name")
_ACTIONS = ("room", "match", "n", "action", "seq")
_TABLES = {
    "rooms": _ROOMS, "seats": _SEATS, "spectators": _SPECTATORS, "actions": _ACTIONS,
    "rooms_aside": (*_ROOMS, "reason", "set_aside"), "seats_aside": _SEATS,
    "spectators_aside": _SPECTATORS, "actions_aside": _ACTIONS, "tail": ("moved",),
}
_V3_TABLES = {name: columns for name, columns in _TABLES.items() if name != "tail"}
_V2_ROOMS, _V2_SEATS = _ROOMS[:-1], _SEATS[:-1]  # without ``ended``, without ``program``
_V2_TABLES = {
    "rooms": _V2_ROOMS, "seats": _V2_SEATS, "spectators": _SPECTATORS, "actions": _ACTIONS,
    "rooms_aside": (*_V2_ROOMS, "reason", "set_aside"), "seats_aside": _V2_SEATS,
    "spectators_aside": _SPECTATORS, "actions_aside": _ACTIONS,
}
_V1_TABLES = {
    "rooms": _V2_ROOMS,
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
    program: bool = False  # a client that said a program plays (uno bot)


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
    ended: str | None = None  # when the current match ended (ISO 8601, UTC); None: under way


@dataclass
class Stored:
    """Everything :meth:`Store.load` found."""

    rooms: list[RoomRecord]
    unreadable: dict[str, str]  # room id -> why its rows cannot be read
    aside: dict[str, list[str]]  # id of a room set aside -> its token hashes


class StoreListener(Protocol):
    """What the store tells the server (on the event loop, never from the store's thread)."""

    def committed(self, ticket: int) -> None:
        """Every operation queued under ``ticket`` or before is on disk."""

    def saving_failed(self, error: str) -> None:
        """A transaction failed; it is being retried."""

    def saving_works(self) -> None:
        """A transaction succeeded after failures."""


RETRY_DELAYS = (0.25, 0.5, 1.0, 2.0, 4.0)  # between attempts at a failed transaction (then 4 s)
_NOTE_EVERY = 60.0  # while saving fails, the log repeats it this often (seconds)


# -- the operations: what the rooms queue, one typed value each ---------------------------


class SaveRoom(NamedTuple):
    """A room's settings, seats and spectators, as when it was created or reloaded."""

    record: RoomRecord


class SaveSeats(NamedTuple):
    room: str
    host: int | None
    seats: list[SeatRecord]


class SaveSpectator(NamedTuple):
    room: str
    token_hash: str
    name: str | None


class DropSpectator(NamedTuple):
    room: str
    token_hash: str


class StartMatch(NamedTuple):
    room: str
    matches: int
    seed: str  # JSON
    seq: int


class MatchEnded(NamedTuple):
    """The room's current match is over, at ``ended`` (ISO 8601)."""

    room: str
    ended: str


class ActionRow(NamedTuple):
    """One row of the action log, its fields in the table's order (the usual transaction
    is a few of these and nothing else, and goes as one statement)."""

    room: str
    match: int
    n: int
    action: str
    seq: int


class RoomSeq(NamedTuple):
    room: str
    seq: int


class RoundRecord(NamedTuple):
    room: str
    match: int
    round: int
    data: dict[str, Any]


class Receipt(NamedTuple):
    room: str
    match: int
    seq: int
    data: dict[str, Any]


class KeepMatch(NamedTuple):
    record: history.KeptMatch
    match: int


class DeleteRoom(NamedTuple):
    room: str


class SetAside(NamedTuple):
    room: str
    reason: str


class MoveTail(NamedTuple):
    """Move the tail into the database now (before reading it, before closing it)."""


class Sweep(NamedTuple):
    """Drop the actions of finished matches and of rooms that are gone: those below the
    first action of the oldest match still in the log (a range of rows, at once), or,
    ``whole``, every one (a scan of the whole log)."""

    whole: bool = False


TailOp = ActionRow | RoomSeq | RoundRecord | Receipt
"""What a round that only played queues (a round of UNO's fair deal and a race's receipt
come between actions): what goes to the tail."""

Op = (SaveRoom | SaveSeats | SaveSpectator | DropSpectator | StartMatch | MatchEnded | ActionRow
      | RoomSeq | RoundRecord | Receipt | KeepMatch | DeleteRoom | SetAside | MoveTail | Sweep)
"""What a transaction is made of."""


# What goes to the store's thread: a transaction, or a call whose outcome a task awaits.


@dataclass(slots=True)
class _Transaction:
    ops: list[Op]
    ticket: int
    checkpoint: bool = False  # then, once committed, the log's pages go into the file


@dataclass(slots=True)
class _Call:
    fn: Callable[[], Any]
    task: trio.lowlevel.Task


class _RoundEnd(trio.abc.Instrument):
    """Tells the store when a round of the event loop ends (before it waits for I/O)."""

    def __init__(self, store: Store, token: trio.lowlevel.TrioToken) -> None:
        self.store = store
        self.token = token

    def before_io_wait(self, timeout: float) -> None:
        if self.store.round_ended() and timeout > 0:
            # The loop chose to wait as nothing was ready; what the commit made ready (a
            # writer for a full socket, a paused room) must not wait for the timeout.
            self.token.run_sync_soon(_nothing)


def _nothing() -> None:
    """Run soon: wakes the event loop from its wait for I/O."""


class Store:
    """One SQLite file. Build, then ``await nursery.start(store.run)`` (which opens the
    file and raises :class:`StoreError` if it cannot be used); read the rooms with
    :meth:`load`; queue writes with the other methods (they never wait)."""

    def __init__(self, path: str | os.PathLike[str], listener: StoreListener | None = None,
                 *, lock_timeout: float = 1.0, keep: history.Keep | None = None) -> None:
        self.path = Path(path)
        self.listener = listener
        self.lock_timeout = lock_timeout  # how long to wait for another program's lock at open
        self.keep = keep or history.Keep()  # how much match history the host keeps
        self._db: sqlite3.Connection | None = None
        self._ops: list[Op] = []  # queued, not yet handed to the thread
        self._wake = trio.Event()  # for the store's task: a retry, or a bug to raise
        self._jobs: queue.SimpleQueue[_Transaction | _Call | None] = queue.SimpleQueue()
        self._busy = False  # a transaction is in the thread
        self._over = trio.Event()  # set (and renewed) whenever a transaction ends
        self._crashed: BaseException | None = None  # a transaction failed for a bug, not the disk
        self.queued = 0  # operations queued so far (a change tells a caller it wrote)
        self._appended = 0  # actions queued since the last sweep
        self._sweeps = 0  # sweeps queued (every WHOLE_SWEEP_EVERY-th is a whole one)
        self.ticket = 1  # the transaction that will hold what is queued now
        self.saved = 0  # the last transaction on disk
        self.failing = False
        self._attempts = 0  # failed attempts at the transaction in a row
        self._noted = -_NOTE_EVERY  # when the log last said that saving fails
        # room -> its current match in the log (the last one begun there) and the log's
        # row of that match's first action: every row below the lowest is a finished
        # match's or a closed room's. Changed as the transaction goes; ``_undo`` holds
        # what it was, put back if the transaction fails.
        self._first_rows: dict[str, tuple[int, int]] = {}
        self._undo: list[tuple[str, tuple[int, int] | None]] = []
        self._tail: Tail | None = None  # open with the file
        self._tail_rows: list[TailOp] = []  # in the tail, not in the database yet
        self._frame = 0  # the number of the tail's last frame (moved or not)
        self._transactions = 0  # in the database (every CHECKPOINT_EVERY-th checkpoints)
        self.server_id: str | None = None  # the file's identity, once opened

    # -- the store's task and thread --------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[Store] = trio.TASK_STATUS_IGNORED) -> None:
        token = trio.lowlevel.current_trio_token()
        thread = threading.Thread(target=self._serve_jobs, args=(token,),
                                  name=f"store {self.path.name}", daemon=True)
        thread.start()
        round_end = _RoundEnd(self, token)
        try:
            await self._in_thread(self._open)
            trio.lowlevel.add_instrument(round_end)
            task_status.started(self)
            while True:
                await self._wake.wait()  # a failure (then a retry), or a bug
                self._wake = trio.Event()
                if self._crashed is not None:
                    raise self._crashed
                if self._attempts:
                    await trio.sleep(RETRY_DELAYS[min(self._attempts, len(RETRY_DELAYS)) - 1])
                self._hand_over()
        finally:
            with contextlib.suppress(KeyError):  # never added: the file did not open
                trio.lowlevel.remove_instrument(round_end)
            with trio.CancelScope(shield=True):
                await self._settled()
                if self._ops and self._db is not None:
                    self._hand_over()
                    await self._settled()
                    if self._ops:
                        log.error("stopping with %d changes unsaved", len(self._ops))
                await self._in_thread(self._close)
                self._jobs.put(None)

    # The store's thread, for its life. A job goes to it through a queue and its outcome
    # comes back through the Trio token: one of each per job.

    def _serve_jobs(self, token: trio.lowlevel.TrioToken) -> None:
        _yield_to_the_event_loop()
        while (job := self._jobs.get()) is not None:
            match job:
                case _Transaction(ops, _, checkpoint):
                    result = outcome.capture(self._write, ops)
                    if checkpoint and isinstance(result, outcome.Value):
                        self._checkpoint()
                    deliver: Callable[..., object] = self._done
                    target: object = job
                case _Call(fn, task):
                    result = outcome.capture(fn)
                    deliver, target = trio.lowlevel.reschedule, task
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(deliver, target, result)

    async def _in_thread(self, fn: Callable[..., _T], *args: Any) -> _T:
        """``fn(*args)`` in the store's thread (after any transaction under way). Not
        cancellable: a transaction under way is waited out (it takes milliseconds)."""
        self._jobs.put(_Call(partial(fn, *args), trio.lowlevel.current_task()))
        result: _T = await trio.lowlevel.wait_task_rescheduled(lambda _: trio.lowlevel.Abort.FAILED)
        return result

    def round_ended(self) -> bool:
        """The event loop ran every task that was ready and is about to wait for I/O:
        what the round queued is committed now (the module's text says why), unless a
        transaction is in the thread or a failed one waits for its retry (the store's
        task retries it). Whether it was handed over."""
        if self._attempts or self._crashed is not None:
            return False
        try:
            return self._hand_over()
        except Exception as exc:  # a bug: raised here, it would only disable the instrument
            self._crashed = exc
            self._wake.set()
            return True

    def _hand_over(self) -> bool:
        """Everything queued as one transaction, here or in the thread (the module's text
        says which), unless one is under way in the thread: then it waits for that one
        (and what comes meanwhile joins it). Whether a transaction went."""
        if self._busy or not self._ops:
            return False
        ops, self._ops = self._ops, []
        job = _Transaction(ops, self.ticket)
        self.ticket += 1
        if self._to_tail(ops):
            long = False
        else:
            self._transactions += 1
            job.checkpoint = self._transactions % CHECKPOINT_EVERY == 0
            long = (job.checkpoint or len(self._tail_rows) > TAIL_MOVED_ON_THE_LOOP
                    or any(type(op) in _LONG for op in ops))
        if long:
            self._busy = True
            self._jobs.put(job)
        else:
            self._done(job, outcome.capture(self._write, ops))
        return True

    def _checkpoint(self) -> None:
        """The log's pages into the files (the store's thread, after a commit). A failure
        loses nothing (the pages stay in the log, and the next checkpoint takes them):
        the log says it, and the next transaction finds out whether the disk works."""
        if self._db is None:
            return
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as exc:
            log.warning("cannot checkpoint %s: %s (its log grows until a checkpoint works)",
                        self.path, _describe(exc))

    def _done(self, job: _Transaction, result: outcome.Outcome[None]) -> None:
        """``job`` is done (on the event loop). On disk: the listener hears it, then the
        next transaction (what was queued meanwhile) goes at once. Failed: its writes go
        first again, after a pause (the store's task)."""
        self._busy = False
        self._over.set()
        self._over = trio.Event()
        if isinstance(result, outcome.Error):
            error = result.error
            if not isinstance(error, (sqlite3.Error, OSError)) or isinstance(error, _BUGS):
                self._crashed = error  # a bug: the store's task raises it
                self._wake.set()
                return
            self._ops[:0] = job.ops  # rolled back: they go again, first
            now = trio.current_time()
            if not self.failing or now - self._noted >= _NOTE_EVERY:
                self._noted = now
                # SQLite does not say which file failed: a transaction that wrote to the
                # history names both (a lock there is another program's, never ours).
                if isinstance(error, OSError):
                    files = str(tail_path(self.path))
                elif any(type(op) in _HISTORY for op in job.ops):
                    files = f"{self.path} or its history {history.history_path(self.path)}"
                else:
                    files = str(self.path)
                log.error("cannot save to %s: %s; the rooms are paused and the server keeps "
                          "trying%s", files, _describe(error),
                          f" ({self._attempts} attempts so far)" if self._attempts else "")
            self._attempts += 1
            if not self.failing:
                self.failing = True
                if self.listener is not None:
                    self.listener.saving_failed(_describe(error))
            self._wake.set()
            return
        self.saved = job.ticket
        if self.failing:
            self.failing = False
            log.warning("saving to %s works again (after %d failed attempts); play resumes",
                        self.path, self._attempts)
            if self.listener is not None:
                self.listener.saving_works()
        self._attempts = 0
        if self.listener is not None:
            self.listener.committed(job.ticket)
        self._hand_over()  # after the listener: one done here must not be heard first

    async def _settled(self) -> None:
        """Wait until no transaction is under way."""
        while self._busy:
            await self._over.wait()

    async def flush(self) -> None:
        """Write everything queued so far (retrying until it is written)."""
        last = self.ticket if self._ops else self.ticket - 1  # the transaction of the last write
        if not self.failing:
            self._hand_over()
        # A transaction that fails puts its writes back first: the next one on disk holds them.
        while self.saved < last:
            await self._over.wait()

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
        opening = path
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
            db.execute("PRAGMA wal_autocheckpoint=0")  # the store's thread checkpoints
            # What a running server reads back is a few pages (the rooms, the end of the
            # log): a small page cache, not SQLite's default 2 MiB per file.
            db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            db.execute("BEGIN IMMEDIATE")
            _prepare_schema(db, path)
            self.server_id = _identity(db)
            db.execute(_SWEEP)
            db.execute("COMMIT")
            opening = history.history_path(path)  # (what a failure from here on is about)
            history.attach(db, opening, CACHE_KIB)  # not locked: the commands read it
            opening = tail_path(path)
            self._tail = Tail(opening)
            opening = path
            db.execute("BEGIN")  # what a kill left in the tail (it may write to the history)
            self._restore_tail(db, self._tail)
            db.execute("COMMIT")
            self._undo.clear()  # (nothing to put back: the file opened)
            self._empty_tail(self._tail)
            # What is left is each room's current match.
            self._first_rows = {room: (match, first) for room, match, first in db.execute(
                "SELECT room, match, min(rowid) FROM actions GROUP BY room, match")}
            # From now on a lock is a failed write, retried with the rooms paused, never
            # a wait: most transactions run on the event loop.
            db.execute("PRAGMA busy_timeout = 0")
        except sqlite3.Error as exc:
            self._close_tail()
            if db is not None:
                db.close()
            raise _open_error(opening, exc) from None
        except OSError as exc:  # the tail's file, or the history's
            self._close_tail()
            if db is not None:
                db.close()
            if opening == tail_path(path):
                raise StoreError(CANNOT_USE, path=opening, problem=exc.strerror or exc) from None
            raise StoreError(N_("cannot use the match history beside {path}: {problem}"),
                             path=path, problem=exc.strerror or exc) from None
        except StoreError:
            self._close_tail()
            if db is not None:
                db.close()
            raise
        self._db = db

    def _restore_tail(self, db: sqlite3.Connection, tail: Tail) -> None:
        """The tail's frames not yet in the database go in (in the transaction under way)."""
        moved = db.execute("SELECT moved FROM tail").fetchone()[0]
        self._frame = moved
        for number, rows in tail.read():
            if number > moved:
                try:
                    ops = [_tailed(row) for row in rows]
                except ValueError:
                    raise StoreError(CANNOT_USE, path=tail.path, problem=(
                        f"its frame {number} holds a row that is not a game's; move it aside")) from None
                self._apply_all(db, ops)
                self._frame = number
        db.execute("UPDATE tail SET moved = ?", (self._frame,))

    def _close(self) -> None:
        if self._db is not None:
            if self._tail_rows:  # the database alone holds everything, when it can
                with contextlib.suppress(sqlite3.Error, OSError):
                    self._write([MoveTail()])
            self._db.close()
            self._db = None
        self._close_tail()

    def _close_tail(self) -> None:
        if self._tail is not None:
            self._tail.close()
            self._tail = None

    def _write(self, ops: list[Op]) -> None:
        """One transaction; if it fails, what it changed of ``_first_rows`` is put back."""
        try:
            self._transaction(ops)
        except BaseException:
            for room, before in reversed(self._undo):
                self._set_first_row(room, before)
            raise
        finally:
            self._undo.clear()

    def _to_tail(self, ops: list[Op]) -> TypeGuard[list[TailOp]]:
        """Whether ``ops`` go to the tail: they only played, and the tail has room."""
        return (self._tail is not None and 0 < len(ops) <= TAIL_ROWS - len(self._tail_rows)
                and all(type(op) in _TAILED for op in ops))

    def _transaction(self, ops: list[Op]) -> None:
        """A round that only played is a frame of the tail. Anything else is a SQLite
        transaction, which moves the tail in first (what is written there may read the
        log) and empties it. Statements are what a SQLite transaction costs, far more
        than their rows: the actions one after another go in as few statements as they
        fill."""
        db, tail = self._db, self._tail
        if db is None or tail is None:
            raise sqlite3.OperationalError("the database is closed")
        if self._to_tail(ops):
            tail.append(self._frame + 1, [(_TAIL_KINDS[type(op)], *op) for op in ops])
            self._frame += 1
            self._tail_rows.extend(ops)  # (it may be a thread's list: ops are never reused)
            return
        moved = self._tail_rows
        try:
            db.execute("BEGIN")
            self._apply_all(db, moved)
            self._apply_all(db, ops)
            if moved:
                db.execute("UPDATE tail SET moved = ?", (self._frame,))
            db.execute("COMMIT")
        except sqlite3.Error:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise
        if moved:
            self._tail_rows = []
            self._empty_tail(tail)

    def _apply_all(self, db: sqlite3.Connection, ops: Sequence[Op]) -> None:
        """``ops`` in order, in the transaction under way (actions in a row in as few
        statements as they fill)."""
        actions: list[ActionRow] = []
        for op in ops:
            if type(op) is ActionRow:
                actions.append(op)
                continue
            if actions:
                self._insert(db, actions)
                actions = []
            self._apply(db, op)
        if actions:
            self._insert(db, actions)

    def _empty_tail(self, tail: Tail) -> None:
        """Everything in the tail is in the database: it starts again. If it cannot, it
        grows (the frames moved are skipped when it is read)."""
        try:
            tail.clear()
        except OSError as exc:
            log.warning("cannot empty %s: %s (it grows until it can)", tail.path, exc.strerror or exc)

    def _apply(self, db: sqlite3.Connection, op: Op) -> None:
        """One operation, in the transaction under way."""
        match op:
            case ActionRow():
                self._insert(db, [op])
            case RoomSeq(room, seq):
                db.execute("UPDATE rooms SET seq = ? WHERE id = ?", (seq, room))
            case SaveRoom(record):
                _save_room(db, record)
            case SaveSeats(room, host, seats):
                _save_seats(db, room, host, seats)
            case SaveSpectator(room, token, name):
                db.execute("INSERT OR REPLACE INTO spectators (room, token_hash, name) VALUES (?, ?, ?)",
                           (room, token, name))
            case DropSpectator(room, token):
                db.execute("DELETE FROM spectators WHERE room = ? AND token_hash = ?", (room, token))
            case StartMatch(room, matches, seed, seq):
                db.execute("UPDATE rooms SET matches = ?, match_seed = ?, seq = ?, ended = NULL"
                           " WHERE id = ?", (matches, seed, seq, room))
            case MatchEnded(room, ended):
                db.execute("UPDATE rooms SET ended = ? WHERE id = ?", (ended, room))
            case RoundRecord(room, match, round, data):
                history.write_round(db, room, match, round, data)
            case Receipt(room, match, seq, data):
                history.write_receipt(db, room, match, seq, data)
            case KeepMatch(record, match):
                current = self._first_rows.get(record.room)
                since = current[1] if current is not None and current[0] == match else 0
                history.write_match(db, record, match, self.keep, since)
            case MoveTail():
                pass  # the tail is moved in before any operation
            case Sweep(whole):
                if whole:
                    db.execute(_SWEEP)
                elif self._first_rows:
                    oldest = min(first for _, first in self._first_rows.values())
                    db.execute("DELETE FROM actions WHERE rowid < ?", (oldest,))
            case DeleteRoom(room):
                _delete_room(db, room)
                self._forget_first_rows(room)
            case SetAside(room, reason):
                _set_aside(db, room, reason)
                self._forget_first_rows(room)
            case _:
                assert_never(op)

    def _insert(self, db: sqlite3.Connection, rows: Sequence[ActionRow]) -> None:
        """``rows`` in order, ``ROWS_PER_INSERT`` to a statement."""
        for start in range(0, len(rows), ROWS_PER_INSERT):
            chunk = rows[start:start + ROWS_PER_INSERT]
            values = [field for row in chunk for field in row]
            self._note_first_rows(chunk, db.execute(_INSERT_ROWS[len(chunk)], values).lastrowid)

    def _note_first_rows(self, rows: Sequence[Op], last: int | None) -> None:
        """Where each match begun in ``rows`` (one INSERT: its rows are numbered in
        order, the last one ``last``) starts in the log: for the copy to the history at
        its end, and for the sweeps (its room's match before is over)."""
        if last is None:
            return
        first = last - len(rows) + 1
        for i, row in enumerate(rows):
            if isinstance(row, ActionRow) and row.n == 0:
                self._set_first_row(row.room, (row.match, first + i), undo=True)

    def _forget_first_rows(self, room: str) -> None:
        """The room is gone: its rows hold back no sweep."""
        if room in self._first_rows:
            self._set_first_row(room, None, undo=True)

    def _set_first_row(self, room: str, value: tuple[int, int] | None, undo: bool = False) -> None:
        if undo:
            self._undo.append((room, self._first_rows.get(room)))
        if value is None:
            del self._first_rows[room]
        else:
            self._first_rows[room] = value

    # -- queueing (called from room tasks; never waits) --------------------------------

    def _put(self, op: Op) -> None:
        ops = self._ops
        ops.append(op)
        self.queued += 1

    def save_room(self, record: RoomRecord) -> None:
        """A room's settings (and its seats), as when it was created or reloaded."""
        self._put(SaveRoom(record))

    def save_seats(self, room: str, host: int | None, seats: list[SeatRecord]) -> None:
        self._put(SaveSeats(room, host, seats))

    def save_spectator(self, room: str, token_hash: str, name: str | None) -> None:
        self._put(SaveSpectator(room, token_hash, name))

    def drop_spectator(self, room: str, token_hash: str) -> None:
        self._put(DropSpectator(room, token_hash))

    def start_match(self, room: str, matches: int, seed: int | str, seq: int) -> None:
        """A new match (the ``matches``-th): its seed; the previous match's actions are
        left to the sweep."""
        self._put(StartMatch(room, matches, json.dumps(seed), seq))

    def match_ended(self, room: str, ended: str) -> None:
        """The room's current match is over, at ``ended``: queued with its last action (one
        transaction), so that a restart keeps the match with the time it ended."""
        self._put(MatchEnded(room, ended))

    def action(self, room: str, match: int, n: int, action: str, seq: int) -> None:
        """The ``n``-th action applied in the room's ``match`` (from 0); ``seq``: the room's
        seq after its events (the room's stored seq is the larger of its own and its
        current match's last action's, so the action's row stands for a room's seq
        queued just before it)."""
        self._unseq(room)
        self._put(ActionRow(room, match, n, action, seq))
        self._appended += 1
        if self._appended >= SWEEP_EVERY:
            self._appended = 0
            self._sweeps += 1
            self._put(Sweep(whole=self._sweeps % WHOLE_SWEEP_EVERY == 0))

    def seq(self, room: str, seq: int) -> None:
        """The room's last seq, after an event that is not an action's (chat, presence)."""
        self._unseq(room)
        self._put(RoomSeq(room, seq))

    def _unseq(self, room: str) -> None:
        """A room's seq queued last goes: what the room queues now carries a later one."""
        ops = self._ops
        if ops and type(last := ops[-1]) is RoomSeq and last.room == room:
            ops.pop()

    def round_record(self, room: str, match: int, round: int, data: dict[str, Any]) -> None:
        """A round's fair deal for the history: its commitment (with the secret and salt),
        then its nonces and seed."""
        self._put(RoundRecord(room, match, round, data))

    def receipt(self, room: str, match: int, seq: int, data: dict[str, Any]) -> None:
        """A race's receipt, for the history."""
        self._put(Receipt(room, match, seq, data))

    def finished(self, record: history.KeptMatch, match: int) -> None:
        """A match ended: keep it (with the actions of the room's ``match``-th match)."""
        self._put(KeepMatch(record, match))

    def delete_room(self, room: str) -> None:
        self._put(DeleteRoom(room))

    def set_aside(self, room: str, reason: str) -> None:
        """Move a room's rows to the ``*_aside`` tables (it could not be restored)."""
        self._put(SetAside(room, reason))

    # -- reading (at start-up) ----------------------------------------------------------

    async def load(self) -> Stored:
        """Every stored room, with its seats, spectators and current match's actions."""
        self._put(MoveTail())
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
        for rid, seat, kind, name, level, token, ready, program in db.execute(
                f"SELECT {', '.join(_SEATS)} FROM seats ORDER BY room, seat"):
            if rid in rooms:
                rooms[rid].seat_records.append(
                    SeatRecord(seat, kind, name, level, token, bool(ready), bool(program)))
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


# Actions go in up to this many to an INSERT, one VALUES row each: each number of rows
# is a statement of its own, which the connection keeps prepared (those for 1 to 8 rows
# grew a process by 4 KiB in all, for 1 to 32 by 360 KiB), and the rows of a statement
# cost far less than a statement does.
ROWS_PER_INSERT = 8
_INSERT_ROWS = {count: "INSERT INTO actions (room, match, n, action, seq) VALUES "
                + ", ".join(["(?, ?, ?, ?, ?)"] * count) for count in range(1, ROWS_PER_INSERT + 1)}
# What takes long, so that a transaction holding it goes to the store's thread: keeping
# a match copies its actions into the history, a sweep deletes thousands of rows (or
# scans the whole log), setting a room aside copies its rows.
_LONG = frozenset({KeepMatch, Sweep, SetAside})
_HISTORY = frozenset({RoundRecord, Receipt, KeepMatch})  # what writes to the history's file
# Every this many SQLite transactions, one goes to the store's thread and then
# checkpoints: the log's pages (a few per transaction) go into the files, with the syncs
# that WAL mode defers, and the next transaction may start the log again from its
# beginning.
CHECKPOINT_EVERY = 100
# What goes to the tail, each row led by its kind (its place here); the tail holds this
# many rows at most before they go into the database (in the store's thread when more
# than TAIL_MOVED_ON_THE_LOOP go at once, on the event loop with what else comes).
_TAIL_KINDS: dict[type, int] = {ActionRow: 0, RoomSeq: 1, RoundRecord: 2, Receipt: 3}
_TAILED = frozenset(_TAIL_KINDS)
TAIL_ROWS = 512
TAIL_MOVED_ON_THE_LOOP = 64
# What SQLite raises for the caller's mistakes (a value it cannot bind, a wrong number of
# them): a bug, never the disk's failure, which is retried with the rooms paused.
_BUGS = (sqlite3.ProgrammingError, sqlite3.InterfaceError)
# Actions appended between two sweeps of the log. Most sweeps delete the rows below the
# oldest match still in the log: a range, no scan, whose size these actions bound (a
# sweep of 50,000 rows' scan held every room's frames for 96 ms and took SQLite 1.2 MiB
# in the store's thread, whose heap kept it). Every WHOLE_SWEEP_EVERY-th scans the whole
# log, for the finished matches above a match that lasts.
SWEEP_EVERY = 5_000
WHOLE_SWEEP_EVERY = 10
_SWEEP = ("DELETE FROM actions WHERE NOT EXISTS (SELECT 1 FROM rooms r"
          " WHERE r.id = actions.room AND r.matches = actions.match)")
_PAGE_SIZE = 1024
# The page cache of the store's file and of the history's, each: the server only writes
# (appends to the log, rewrites a few rows), whose pages are few; the commands that read
# the history open their own connections.
CACHE_KIB = 64


def _yield_to_the_event_loop() -> None:
    """The calling thread (the store's) does not preempt the event loop's when it wakes.

    Linux lets a thread that wakes run at once on the CPU of the thread that woke it, and
    a thread that sleeps as much as the store's always qualifies: each job handed over,
    each GIL release by the event loop would switch to the store's thread, which then
    finds the GIL held by the thread it displaced and sleeps again (two context switches
    a transaction for the event loop, three for the store's thread, measured). A batch
    thread (``SCHED_BATCH``) waits for a free CPU or the next tick instead; it has the
    same share of the CPU. Elsewhere (no such policy), nothing changes."""
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_BATCH"):
        with contextlib.suppress(OSError):
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))


# -- the operations' statements (the store's thread) ------------------------------------


def _save_room(db: sqlite3.Connection, r: RoomRecord) -> None:
    db.execute(
        "INSERT OR REPLACE INTO rooms (id, name, preset, rules, seats, timer, password, host,"
        " seed, matches, match_seed, seq, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (r.id, r.name, r.preset, json.dumps(r.rules), r.seats, r.timer, r.password, r.host,
         json.dumps(r.seed), r.matches,
         None if r.match_seed is None else json.dumps(r.match_seed), r.seq, r.ended))
    _save_seats(db, r.id, r.host, r.seat_records)
    db.execute("DELETE FROM spectators WHERE room = ?", (r.id,))
    db.executemany("INSERT INTO spectators (room, token_hash, name) VALUES (?, ?, ?)",
                   [(r.id, token, name) for token, name in r.spectators])


def _save_seats(db: sqlite3.Connection, room: str, host: int | None, seats: list[SeatRecord]) -> None:
    db.execute("UPDATE rooms SET host = ? WHERE id = ?", (host, room))
    db.execute("DELETE FROM seats WHERE room = ?", (room,))
    db.executemany(
        "INSERT INTO seats (room, seat, kind, name, level, token_hash, ready, program)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(room, s.seat, s.kind, s.name, s.level, s.token_hash, int(s.ready), int(s.program))
         for s in seats])


def _delete_room(db: sqlite3.Connection, room: str) -> None:
    """The room's rows (its actions are left to the sweep)."""
    for table, key in (("spectators", "room"), ("seats", "room"), ("rooms", "id")):
        db.execute(f"DELETE FROM {table} WHERE {key} = ?", (room,))


def _set_aside(db: sqlite3.Connection, room: str, reason: str) -> None:
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    rooms = ", ".join(_ROOMS)
    db.execute(f"INSERT OR REPLACE INTO rooms_aside ({rooms}, reason, set_aside)"
               f" SELECT {rooms}, ?, ? FROM rooms WHERE id = ?", (reason, now, room))
    for table, columns in (("seats", _SEATS), ("spectators", _SPECTATORS)):
        names = ", ".join(columns)
        db.execute(f"INSERT OR REPLACE INTO {table}_aside ({names}) SELECT {names} FROM {table}"
                   " WHERE room = ?", (room,))
    db.execute("INSERT INTO actions_aside SELECT a.* FROM actions a JOIN rooms r"
               " ON r.id = a.room AND r.matches = a.match WHERE a.room = ?", (room,))
    _delete_room(db, room)


def _room_record(row: tuple[Any, ...]) -> RoomRecord:
    rid, name, preset, rules, seats, timer, password, host, seed, matches, match_seed, seq, ended = row
    record = RoomRecord(
        rid, name, preset, json.loads(rules), seats, timer, password, host, json.loads(seed),
        matches, None if match_seed is None else json.loads(match_seed), seq, ended=ended)
    if not isinstance(record.rules, dict) or not all(
            type(v) is int for v in (record.seats, record.timer, record.matches, record.seq)):
        raise TypeError("a field of the wrong type")
    return record


def _columns(db: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {n: tuple(c[1] for c in db.execute(f"PRAGMA table_info({n})")) for n in names}


def _prepare_schema(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables in a new file, migrate a file of an earlier version, check any other."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    tables = _columns(db)
    if version == SCHEMA_VERSION and tables == _TABLES:
        return
    if version == 0 and not tables:
        _create(db, _TABLES)
    elif version == 3 and tables == _V3_TABLES:
        log.info("migrating %s to schema version %d (the action log's tail)", path, SCHEMA_VERSION)
        _create(db, {"tail"})
    elif version == 2 and tables == _V2_TABLES:
        log.info("migrating %s to schema version %d (seats played by programs, when a match"
                 " ended)", path, SCHEMA_VERSION)
        _add_v3_columns(db)
        _create(db, {"tail"})
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
        _add_v3_columns(db, aside=False)  # the tables of rooms set aside and the tail are new
    else:
        raise StoreError(
            N_("{path} is a SQLite file but not a unolan database of a version this server knows"
               " (schema version {version}); move it aside or choose another --db"),
            path=path, version=version)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _add_v3_columns(db: sqlite3.Connection, aside: bool = True) -> None:
    """Version 2 -> 3: a seat's program flag (none known: 0) and when a match ended (none
    known: empty), each the last column of its table as in a new file; with ``aside``,
    in the tables of rooms set aside too (their rooms copied into a new table, ``ended``
    before the reason)."""
    for table in ("seats", "seats_aside") if aside else ("seats",):
        db.execute(f"ALTER TABLE {table} ADD COLUMN program INTEGER NOT NULL DEFAULT 0")
    db.execute("ALTER TABLE rooms ADD COLUMN ended TEXT")
    if aside:
        db.execute("ALTER TABLE rooms_aside RENAME TO rooms_aside_v2")
        _create(db, {"rooms_aside"})
        columns = ", ".join((*_V2_ROOMS, "reason", "set_aside"))
        db.execute(f"INSERT INTO rooms_aside ({columns}) SELECT {columns} FROM rooms_aside_v2")
        db.execute("DROP TABLE rooms_aside_v2")


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
    if "tail" in tables:
        db.execute("INSERT INTO tail (moved) VALUES (0)")  # no frame of the tail moved yet


def _tailed(row: list[Any]) -> TailOp:
    """A row of the tail as the operation it was (raises ``ValueError``)."""
    match row:
        case [0, str() as room, int() as match, int() as n, str() as action, int() as seq]:
            return ActionRow(room, match, n, action, seq)
        case [1, str() as room, int() as seq]:
            return RoomSeq(room, seq)
        case [2, str() as room, int() as match, int() as number, dict() as data]:
            return RoundRecord(room, match, number, data)
        case [3, str() as room, int() as match, int() as seq, dict() as data]:
            return Receipt(room, match, seq, data)
    raise ValueError("not a row of the tail")


def _describe(exc: sqlite3.Error | OSError) -> str:
    if isinstance(exc, OSError):  # the tail's (SQLite says its own errors in words)
        return exc.strerror or str(exc) or type(exc).__name__
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
