"""Match history: finished matches kept for ``uno history``, ``stats``, ``replay`` and ``audit``.

The history lives in a SQLite file of its own beside the server's database (``server.db``
keeps it in ``server.history.db``), attached to the store's connection so that a match is
written in the same transaction as the actions it copies. The server's own file is locked
while it runs; this one is not, so the commands read it while the server plays on.

- ``matches``: one row per finished match: its id (:func:`match_id`), room, room name,
  rules, seats (name, whether a program played), the seed it started from, when it ended,
  the winner and the final scores;
- ``rounds``: each round's fair deal: its commitment, and after the round the secret, the
  salt, every nonce, the seats whose nonce the server drew and the seed;
- ``actions``: every action of the match, in the action notation, with the seq after it;
- ``receipts``: every race's receipt (the event's data, as JSON, with the seats' names
  then under ``names``), with its seq.

A match is a function of its rules, seat count, seed and actions (a fair deal's seeds ride
on its ``deal`` actions), so a replay is the engine running them again. Rounds and receipts
are written as they happen, under the room and its match's number (their ``id`` empty),
and take the match's id when it ends; a match that never ends leaves them behind until its
room is gone. The host sets how many matches are kept and for how long (:class:`Keep`);
older ones go when a match is added.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .words import N_, Said

SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE IF NOT EXISTS history.matches (id TEXT PRIMARY KEY, room TEXT NOT NULL,
  name TEXT NOT NULL, rules TEXT NOT NULL, seats TEXT NOT NULL, seed TEXT NOT NULL,
  ended TEXT NOT NULL, winner INTEGER, scores TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS history.rounds (id TEXT, room TEXT NOT NULL, match INTEGER NOT NULL,
  round INTEGER NOT NULL, commitment TEXT NOT NULL, secret TEXT, salt TEXT, nonces TEXT,
  drawn TEXT, seed TEXT);
CREATE TABLE IF NOT EXISTS history.actions (id TEXT NOT NULL, n INTEGER NOT NULL,
  action TEXT NOT NULL, seq INTEGER, PRIMARY KEY (id, n));
CREATE TABLE IF NOT EXISTS history.receipts (id TEXT, room TEXT NOT NULL, match INTEGER NOT NULL,
  seq INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS history.rounds_open ON rounds (room, match, round) WHERE id IS NULL;
CREATE INDEX IF NOT EXISTS history.rounds_kept ON rounds (id);
CREATE INDEX IF NOT EXISTS history.receipts_open ON receipts (room, match) WHERE id IS NULL;
CREATE INDEX IF NOT EXISTS history.receipts_kept ON receipts (id);
"""


def history_path(db_path: Path) -> Path:
    """``server.db`` -> ``server.history.db``, beside it."""
    return db_path.with_name(db_path.stem + ".history" + (db_path.suffix or ".db"))


def match_id(room: str, seed: int | str) -> str:
    """A kept match's id: short, made of its room and its first seed."""
    return hashlib.sha256(f"{room}/{seed}".encode()).hexdigest()[:10]


@dataclass(frozen=True)
class Keep:
    """How much history the host keeps: at most ``matches`` matches (0: none at all), and
    none older than ``days`` days (0: no age limit)."""

    matches: int = 1000
    days: int = 0


@dataclass
class SeatInfo:
    name: str | None
    bot: bool


@dataclass
class KeptMatch:
    """A finished match, as kept."""

    id: str
    room: str
    name: str
    rules: dict[str, Any]
    seats: list[SeatInfo]
    seed: int | str
    ended: str
    winner: int | None
    scores: list[int]
    actions: list[str] = field(default_factory=list)
    seqs: list[int | None] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    receipts: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


def kept_match(room: str, name: str, rules: dict[str, Any], seats: list[tuple[str | None, bool]],
               seed: int | str, winner: int | None, scores: list[int],
               ended: str | None = None) -> KeptMatch:
    """What the history keeps of a match over (its actions come from the store's log):
    ``winner`` a seat or team (a two-table match's champion, a seat), ``scores`` by seat or
    team (a two-table match's: every seat's rotation total), ``ended`` when it ended (by
    default: now, for a match just over)."""
    return KeptMatch(match_id(room, seed), room, name, rules,
                     [SeatInfo(seat_name, bot) for seat_name, bot in seats], seed,
                     ended or now().isoformat(timespec="seconds"), winner, scores)


# -- writing (inside the store's transaction) ------------------------------------------


def attach(db: sqlite3.Connection, path: Path, cache_kib: int = 2000) -> None:
    """Attach the history file (created if new, readable by its owner only: it holds
    seeds) and its tables, with a page cache of ``cache_kib`` KiB."""
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    os.chmod(path, 0o600)
    db.execute("ATTACH DATABASE ? AS history", (str(path),))
    db.execute("PRAGMA history.journal_mode=WAL")
    # As the store's own file (a PRAGMA names one schema): a commit survives the server
    # being killed without an fsync of its own. At the default (FULL) every transaction
    # holding a round's deal, a receipt or a match waited for the disk, in the store's
    # thread, with the frames held behind it.
    db.execute("PRAGMA history.synchronous=NORMAL")
    db.execute(f"PRAGMA history.cache_size = -{cache_kib}")
    version = db.execute("PRAGMA history.user_version").fetchone()[0]
    if version not in (0, SCHEMA_VERSION):
        raise sqlite3.DatabaseError(f"{path}: a history of an unknown schema version ({version})")
    for statement in SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)
    db.execute(f"PRAGMA history.user_version = {SCHEMA_VERSION}")


def write_round(db: sqlite3.Connection, room: str, match: int, round: int, data: dict[str, Any]) -> None:
    """A round of a room's ``match``-th match: its commitment with the secret and salt
    (before the deal: so that a restarted server can still reveal them), then its nonces
    and seed (after the deal)."""
    values = (data["commitment"], data.get("secret"), data.get("salt"), _json(data.get("nonces")),
              _json(data.get("drawn")), data.get("seed"), room, match, round)
    changed = db.execute(
        "UPDATE history.rounds SET commitment = ?, secret = ?, salt = ?, nonces = ?, drawn = ?,"
        " seed = ? WHERE room = ? AND match = ? AND round = ? AND id IS NULL", values).rowcount
    if not changed:
        db.execute("INSERT INTO history.rounds (commitment, secret, salt, nonces, drawn, seed, room,"
                   " match, round) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", values)


def current_rounds(db: sqlite3.Connection) -> list[tuple[str, int, int, dict[str, Any]]]:
    """The fair deals of the matches under way: (room, match, round, record), by round."""
    return [(room, match, rnd, {"commitment": c, "secret": secret, "salt": salt,
                                "nonces": _load(nonces), "drawn": _load(drawn), "seed": seed})
            for room, match, rnd, c, secret, salt, nonces, drawn, seed in db.execute(
                "SELECT room, match, round, commitment, secret, salt, nonces, drawn, seed"
                " FROM history.rounds WHERE id IS NULL ORDER BY room, match, round")]


def write_receipt(db: sqlite3.Connection, room: str, match: int, seq: int, data: dict[str, Any]) -> None:
    db.execute("INSERT INTO history.receipts (room, match, seq, data) VALUES (?, ?, ?, ?)",
               (room, match, seq, json.dumps(data)))


def write_match(db: sqlite3.Connection, record: KeptMatch, match: int, keep: Keep,
                since: int = 0) -> None:
    """A finished match: its row, and its actions copied from the store's log of the
    room's ``match``-th match (from the log's row ``since`` on: where the match's first
    action is, when the store knows it, so that the copy does not read the whole log);
    then what ``keep`` no longer keeps goes. A match kept already is left as it is (a
    restored room keeps its finished match again, not knowing whether the server stopped
    before or after keeping it)."""
    if db.execute("SELECT 1 FROM history.matches WHERE id = ?", (record.id,)).fetchone():
        return
    if keep.matches <= 0:
        for table in ("rounds", "receipts"):
            db.execute(f"DELETE FROM history.{table} WHERE room = ? AND match = ? AND id IS NULL",
                       (record.room, match))
        return
    db.execute(
        "INSERT INTO history.matches (id, room, name, rules, seats, seed, ended, winner,"
        " scores) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (record.id, record.room, record.name, json.dumps(record.rules),
         json.dumps([[s.name, s.bot] for s in record.seats]), json.dumps(record.seed),
         record.ended, record.winner, json.dumps(record.scores)))
    db.execute("INSERT INTO history.actions (id, n, action, seq) SELECT ?, n, action, seq"
               " FROM main.actions WHERE rowid >= ? AND room = ? AND match = ?",
               (record.id, since, record.room, match))
    for table in ("rounds", "receipts"):
        db.execute(f"UPDATE history.{table} SET id = ? WHERE room = ? AND match = ? AND id IS NULL",
                   (record.id, record.room, match))
    prune(db, keep)


def prune(db: sqlite3.Connection, keep: Keep) -> None:
    """Forget the matches past the cap or the age limit, and the records of matches that
    will never end (their room is gone)."""
    old = [mid for (mid,) in db.execute(
        "SELECT id FROM history.matches ORDER BY ended DESC, id LIMIT -1 OFFSET ?", (keep.matches,))]
    if keep.days:
        limit = (now() - datetime.timedelta(days=keep.days)).isoformat(timespec="seconds")
        old += [mid for (mid,) in db.execute("SELECT id FROM history.matches WHERE ended < ?", (limit,))]
    _forget(db, old)
    for table in ("rounds", "receipts"):
        db.execute(f"DELETE FROM history.{table} WHERE id IS NULL"
                   " AND room NOT IN (SELECT id FROM main.rooms)")


def _forget(db: sqlite3.Connection, ids: list[str]) -> None:
    for mid in ids:
        for table in ("matches", "rounds", "actions", "receipts"):
            db.execute(f"DELETE FROM history.{table} WHERE id = ?", (mid,))


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)


# -- reading (the commands: another process, while the server may be running) ----------


class HistoryError(Said):
    """The history cannot be read; the message says why and what to do (in the chosen
    language where a command prints it: :meth:`~.words.Said.translated`)."""


def open_history(db_path: Path) -> sqlite3.Connection:
    """The history beside ``db_path``, read-only. Opened for writing where the file may be
    written, with writes switched off: then the last reader to close (when no server has
    the file open) clears away the write-ahead log's files, which a connection opened
    read-only creates and cannot remove."""
    path = history_path(db_path)
    if not path.exists():
        raise HistoryError(N_("no match history at {path}: a server keeps one beside its database "
                              "(uno host --db PATH) once a match has ended there"), path=path)
    try:
        writable = os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)
        db = sqlite3.connect(f"file:{path}?mode={'rw' if writable else 'ro'}", uri=True, timeout=2.0)
        db.execute("PRAGMA query_only = ON")
        db.execute("SELECT 1 FROM matches LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        raise HistoryError(N_("cannot read the match history {path}: {problem}"),
                           path=path, problem=exc) from None
    return db


def list_matches(db: sqlite3.Connection) -> list[KeptMatch]:
    """Every kept match, newest first (without their actions)."""
    return [_match(row) for row in db.execute(
        "SELECT id, room, name, rules, seats, seed, ended, winner, scores FROM matches"
        " ORDER BY ended DESC, id")]


def load_match(db: sqlite3.Connection, wanted: str) -> KeptMatch:
    """One match, all of it, by its id or the start of it; :class:`HistoryError` if none
    (or several) match."""
    rows = db.execute("SELECT id, room, name, rules, seats, seed, ended, winner, scores FROM matches"
                      " WHERE id LIKE ? ESCAPE '\\'", (_prefix(wanted),)).fetchall()
    if len(rows) != 1:
        if not rows:
            raise HistoryError(N_("no kept match has the id {wanted!r} (uno history lists them)"),
                               wanted=wanted)
        raise HistoryError(N_("{count} matches have ids starting {wanted!r}: give more of it"),
                           count=len(rows), wanted=wanted)
    record = _match(rows[0])
    for action, seq in db.execute("SELECT action, seq FROM actions WHERE id = ? ORDER BY n", (record.id,)):
        record.actions.append(action)
        record.seqs.append(seq)
    for rnd, commitment, secret, salt, nonces, drawn, seed in db.execute(
            "SELECT round, commitment, secret, salt, nonces, drawn, seed FROM rounds WHERE id = ?"
            " ORDER BY round", (record.id,)):
        record.rounds.append({"round": rnd, "commitment": commitment, "secret": secret, "salt": salt,
                              "nonces": _load(nonces), "drawn": _load(drawn), "seed": seed})
    record.receipts = [(seq, json.loads(data)) for seq, data in db.execute(
        "SELECT seq, data FROM receipts WHERE id = ? ORDER BY seq", (record.id,))]
    return record


def room_receipts(db: sqlite3.Connection, room: str) -> list[tuple[str | None, int, dict[str, Any]]]:
    """Every receipt of a room's matches, kept or under way: (match id or None, seq, data).
    ``data["names"]`` is the seats' names then; a seat without one (its player had left
    when the race's receipt went out, after the match's last card) takes its kept match's
    name, as does a receipt kept without names."""
    out = []
    for mid, seq, data, seats in db.execute(
            "SELECT receipts.id, seq, data, matches.seats FROM receipts"
            " LEFT JOIN matches ON matches.id = receipts.id WHERE receipts.room = ?"
            " ORDER BY receipts.rowid", (room,)):
        record = json.loads(data)
        if seats is not None:
            kept = [name for name, _bot in json.loads(seats)]
            then = record.get("names") or [None] * len(kept)
            record["names"] = [name if name is not None else kept_name
                               for name, kept_name in zip(then, kept, strict=False)]
        out.append((mid, seq, record))
    return out


def room_known(db: sqlite3.Connection, room: str) -> bool:
    """Whether the history holds anything of ``room``: a kept match, or a fair deal or a
    receipt of a match under way."""
    (known,) = db.execute("SELECT EXISTS (SELECT 1 FROM matches WHERE room = ?)"
                          " OR EXISTS (SELECT 1 FROM rounds WHERE room = ?)"
                          " OR EXISTS (SELECT 1 FROM receipts WHERE room = ?)",
                          (room, room, room)).fetchone()
    return bool(known)


def _prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _load(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _match(row: tuple[Any, ...]) -> KeptMatch:
    mid, room, name, rules, seats, seed, ended, winner, scores = row
    return KeptMatch(mid, room, name, json.loads(rules), [SeatInfo(n, bool(b)) for n, b in json.loads(seats)],
                       json.loads(seed), ended, winner, json.loads(scores))
