"""Persistence at its edges: write-ahead, a failing disk, rooms that cannot be restored,
old and foreign database files, secrets at rest, and `uno host` failing in one line."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from test_server import FAST, Raw, _act_legally, running, settle, table, wire
from unolan.server import Limits
from unolan.server.store import SCHEMA_VERSION, ActionRow, Op, Store, Sweep, token_hash

from unolan import engine as en
from unolan import protocol as pr

QUIET = Limits(deal_pause=0.0, autopilot_delay=600, grace=600, heartbeat=3600,
               request_rate=1e6, request_burst=1e6)


def failing_writes(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Make the store's transactions fail while the returned flag's first item is true."""
    flag = [False]
    write = Store._write

    def maybe_failing(self: Store, *args: Any) -> None:
        if flag[0]:
            raise sqlite3.OperationalError("disk I/O error")
        write(self, *args)

    monkeypatch.setattr(Store, "_write", maybe_failing)
    return flag


def events(client: Raw, kind: str | None = None) -> list[pr.Message]:
    return [m for m in client.seen if m.TYPE == "event" and (kind is None or m.kind == kind)]  # type: ignore[attr-defined]


async def load(db: Path) -> Any:
    store = Store(db)
    async with trio.open_nursery() as nursery:
        await nursery.start(store.run)
        stored = await store.load()
        nursery.cancel_scope.cancel()
    return stored


# -- write-ahead, and a disk that fails ---------------------------------------------------


async def test_a_failing_write_pauses_the_room_and_nothing_unsaved_is_played(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thread_clock: trio.abc.Clock) -> None:
    failing = failing_writes(monkeypatch)
    db = tmp_path / "s.db"
    async with running(QUIET, db_path=db) as server:
        clients, room_id = await table(server, 2, "official")
        room = server.rooms[room_id]
        await settle(*clients)
        game = room.match.game
        seat = game.turn
        mover, other = clients[seat], clients[1 - seat]
        action = en.Draw(seat)
        failing[0] = True
        await mover.send(pr.Draw(seq=room.seq, id=5))
        paused = await mover.expect("event", kind="paused")
        assert paused.data["reason"] == "the server cannot save the game; paused"  # type: ignore[attr-defined]
        await other.expect("event", kind="paused")
        # The draw was applied in memory, but nobody was told: no ok, no event of it.
        assert len(game.hands[seat]) == 8 and room.paused
        assert not [m for m in mover.seen if getattr(m, "id", None) == 5]
        assert not events(mover, "drew") and not events(other, "drew")
        # While paused, nothing is played and the room says why.
        for client, msg in ((other, pr.Chat(text="hello?", id=6)),
                            (mover, pr.Pass(seq=mover.seq, id=7)), (other, pr.Ready(id=8))):
            refused = await client.reply(msg)
            assert refused.TYPE == "error" and refused.code == "paused"  # type: ignore[attr-defined]
        assert len(game.hands[seat]) == 8 and game.turn == seat
        # Saving works again: the held frames go out (the ok, the events before the pause's
        # seq), then the room afresh and `resumed`.
        failing[0] = False
        await mover.expect("ok", id=5)
        resumed = await mover.expect("event", kind="resumed")
        after = mover.seen[mover.seen.index(paused):]
        (snap,) = [m for m in after if m.TYPE == "snapshot"]
        assert wire(snap.view) == game.view(seat).to_dict() and snap.seq == paused.seq  # type: ignore[attr-defined]
        assert resumed.seq == paused.seq + 1  # type: ignore[attr-defined]
        drew = events(mover, "drew")
        assert len(drew) == 1 and drew[0].seq < paused.seq  # type: ignore[attr-defined]
        await other.expect("event", kind="resumed")
        assert not room.paused
        # ...and play goes on.
        assert (await mover.reply(pr.Pass(seq=resumed.seq, id=9))).TYPE in ("ok", "error")  # type: ignore[attr-defined]
        await settle(*clients)
    stored = await load(db)
    (record,) = stored.rooms
    assert record.actions[0] == str(action)


async def test_writes_are_group_committed_and_frames_wait_for_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thread_clock: trio.abc.Clock) -> None:
    """While a transaction is on its way in the store's thread, two rooms' actions queue
    up and go in the next one together; neither ok (nor event) arrives before its write
    is on disk."""
    batches: list[list[str]] = []
    gate, entered = threading.Event(), threading.Event()
    gate.set()
    write = Store._write

    def gated(self: Store, ops: list[Op]) -> None:
        if threading.current_thread() is not threading.main_thread():
            entered.set()
            gate.wait()
        write(self, ops)
        batches.append([type(op).__name__ for op in ops])

    monkeypatch.setattr(Store, "_write", gated)
    db = tmp_path / "g.db"
    async with running(QUIET, db_path=db) as server:
        tables = [await table(server, 2, "official") for _ in range(2)]
        for clients, _ in tables:
            await settle(*clients)
        gate.clear()
        entered.clear()
        assert server.store is not None
        server.store._put(Sweep())  # a transaction for the thread, to wait behind
        await trio.to_thread.run_sync(entered.wait)  # that transaction is on its way
        movers = []
        for clients, room_id in tables:
            room = server.rooms[room_id]
            mover = clients[room.match.game.turn]
            await mover.send(pr.Draw(seq=room.seq, id=3))
            movers.append(mover)
        assert server.store is not None
        while [type(op) for op in server.store._ops].count(ActionRow) < 2:
            await trio.sleep(0.01)
        await settle(*movers)
        assert not [m for c in movers for m in c.seen if getattr(m, "id", None) == 3]
        assert not [e for c in movers for e in events(c, "drew")]
        gate.set()
        for mover in movers:
            await mover.expect("ok", id=3)
    assert ["ActionRow", "ActionRow"] in batches, batches


async def test_what_takes_long_goes_to_the_stores_thread_and_the_rest_is_done_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Actions, seqs and a round's deal for the history are written on the event loop; a
    sweep and every CHECKPOINT_EVERY-th SQLite transaction in the store's thread, and that
    one then copies the log into the file (the connection never checkpoints by itself)."""
    from unolan.server.store import CHECKPOINT_EVERY, RoomRecord

    where: list[tuple[list[str], bool]] = []  # (the ops' kinds, on the event loop's thread)
    checkpoints: list[tuple[bool, int, int]] = []  # (in the event loop's thread, log, copied)
    write, checkpoint = Store._write, Store._checkpoint

    def noted_write(self: Store, ops: list[Op]) -> None:
        write(self, ops)
        where.append(([type(op).__name__ for op in ops],
                      threading.current_thread() is threading.main_thread()))

    def noted_checkpoint(self: Store) -> None:
        checkpoint(self)
        assert self._db is not None
        (_, log_pages, copied), = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        checkpoints.append((threading.current_thread() is threading.main_thread(),
                            log_pages, copied))

    monkeypatch.setattr(Store, "_write", noted_write)
    monkeypatch.setattr(Store, "_checkpoint", noted_checkpoint)
    record = RoomRecord("r1", "r1", "official", en.Rules.preset("official").to_dict(), 2, 0,
                        None, None, "s", 0, None, 0)
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(tmp_path / "w.db").run)
        assert store._db is not None
        assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
        store.save_room(record)
        store.start_match("r1", 1, 5, 10)
        await store.flush()
        store.action("r1", 1, 0, "0 draw", 11)
        await store.flush()
        store.seq("r1", 12)
        await store.flush()
        store.round_record("r1", 1, 1, {"commitment": "c0ffee"})
        await store.flush()
        store._put(Sweep())
        await store.flush()
        assert where == [(["SaveRoom", "StartMatch"], True), (["ActionRow"], True),
                         (["RoomSeq"], True), (["RoundRecord"], True), (["Sweep"], False)]
        assert checkpoints == []
        store._transactions = CHECKPOINT_EVERY - 1  # the next SQLite one is the CHECKPOINT_EVERY-th
        store.action("r1", 1, 1, "1 draw", 13)
        await store.flush()
        assert where[-1] == (["ActionRow"], True) and checkpoints == []  # a frame of the tail
        store.save_spectator("r1", "h", "sam")
        await store.flush()
        assert where[-1] == (["SaveSpectator"], False)
        ((on_loop, log_pages, copied),) = checkpoints
        assert not on_loop and log_pages == copied > 0  # every page of the log is in the file
        store.drop_spectator("r1", "h")  # and the count starts again
        await store.flush()
        assert where[-1] == (["DropSpectator"], True) and len(checkpoints) == 1
        store.action("r1", 1, 2, "0 draw", 14)
        (r1,) = (await store.load()).rooms
        assert r1.actions == ["0 draw", "1 draw", "0 draw"]
        nursery.cancel_scope.cancel()


# -- rooms that cannot be restored --------------------------------------------------------


async def test_a_room_that_cannot_be_restored_is_set_aside_and_its_players_told(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "r.db"
    async with running(QUIET, seed=3, db_path=db) as server:
        broken, broken_id = await table(server, 2, "official")
        fine, fine_id = await table(server, 2, "official")
        for clients, room_id in ((broken, broken_id), (fine, fine_id)):
            await _act_legally(server.rooms[room_id], clients, 3)
            await settle(*clients)
        seed = server.rooms[broken_id].ledger.match_seed
        hand = server.rooms[broken_id].match.game.hands[0]
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:  # a stored action that the game refuses
        conn.execute("UPDATE actions SET action = '0 play W4 R' WHERE room = ? AND n = 1",
                     (broken_id,))
    async with running(QUIET, seed=3, db_path=db) as server:
        assert broken_id not in server.rooms and fine_id in server.rooms
        assert server.rooms[fine_id].started
        lost = await Raw.connect(server.port, "p0")
        reply = await lost.reply(pr.Resume(token=broken[0].token, seq=broken[0].seq, id=1))
        assert reply.TYPE == "error" and reply.code == "not_restored"  # type: ignore[attr-defined]
        assert broken_id in reply.message  # type: ignore[attr-defined]
        back = await Raw.connect(server.port, "q0")
        assert (await back.reply(pr.Resume(token=fine[0].token, seq=0, id=1))).TYPE == "joined"
        # a new room does not take the set-aside room's id
        other = await Raw.connect(server.port, "n")
        made = await other.reply(pr.CreateRoom(name="n", seats=2, id=1))
        assert made.room not in (broken_id, fine_id)  # type: ignore[attr-defined]
    (line,) = [r.getMessage() for r in caplog.records if "could not be restored" in r.getMessage()]
    assert broken_id in line and "rooms_aside" in line and str(db) in line
    assert str(seed) not in caplog.text and " ".join(c.text for c in hand) not in caplog.text
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:  # moved aside, never deleted
        assert conn.execute("SELECT COUNT(*) FROM rooms WHERE id = ?", (broken_id,)).fetchone() == (0,)
        assert conn.execute("SELECT reason FROM rooms_aside WHERE id = ?", (broken_id,)).fetchone()
        assert conn.execute("SELECT COUNT(*) FROM actions_aside WHERE room = ?",
                            (broken_id,)).fetchone()[0] == 3
        assert conn.execute("SELECT COUNT(*) FROM seats_aside WHERE room = ?",
                            (broken_id,)).fetchone()[0] == 2


async def test_spectator_tokens_survive_a_restart_and_dropped_ones_are_forgotten(
        tmp_path: Path, thread_clock: trio.abc.Clock) -> None:
    db = tmp_path / "w.db"
    limits = Limits(deal_pause=0.0, autopilot_delay=600, grace=30, heartbeat=3600)
    async with running(limits, db_path=db) as server:
        clients, room_id = await table(server, 2, "official")
        kept = await Raw.connect(server.port, "eve")
        await kept.reply(pr.Join(room=room_id, role="spectator", id=1))
        dropped = await Raw.connect(server.port, "mal")
        await dropped.reply(pr.Join(room=room_id, role="spectator", id=1))
        await dropped.aclose()
        await settle(*clients, kept)
        await trio.sleep(31)  # the dropped spectator's token is forgotten after the grace
        assert token_hash(dropped.token) not in server.tokens
        assert token_hash(kept.token) in server.tokens
    async with running(limits, db_path=db) as server:
        again = await Raw.connect(server.port, "eve")
        joined = await again.reply(pr.Resume(token=kept.token, seq=kept.seq, id=1))
        assert joined.TYPE == "joined" and joined.seat is None  # type: ignore[attr-defined]
        snap = await again.expect("snapshot")
        assert wire(snap.view) == server.rooms[room_id].match.game.view(None).to_dict()  # type: ignore[attr-defined]
        gone = await Raw.connect(server.port, "mal")
        assert (await gone.reply(pr.Resume(token=dropped.token, seq=0, id=2))).code == "bad_token"  # type: ignore[attr-defined]


# -- database files ---------------------------------------------------------------------

V1_SCHEMA = """
CREATE TABLE rooms (id TEXT PRIMARY KEY, name TEXT NOT NULL, preset TEXT NOT NULL,
    rules TEXT NOT NULL, seats INTEGER NOT NULL, timer INTEGER NOT NULL, password TEXT,
    host INTEGER, seed TEXT NOT NULL, matches INTEGER NOT NULL DEFAULT 0, match_seed TEXT,
    seq INTEGER NOT NULL DEFAULT 0);
CREATE TABLE seats (room TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT,
    level TEXT, token TEXT, ready INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat));
CREATE TABLE actions (room TEXT NOT NULL, n INTEGER NOT NULL, action TEXT NOT NULL,
    PRIMARY KEY (room, n));
"""


async def test_a_first_version_database_is_migrated_and_its_tokens_hashed(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    rules = en.Rules.preset("official")
    game = en.Game(rules, 2, seed=9)
    actions = []
    for _ in range(4):
        action = game.legal_actions(game.turn)[0]
        game.apply(action)
        actions.append(str(action))
    tokens = ["A" * 24, "B" * 24]
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        conn.executescript(V1_SCHEMA)
        conn.execute("INSERT INTO rooms VALUES ('r4', 'old', 'official', ?, 2, 0, NULL, 0, "
                     "'\"s\"', 1, '9', 40)", (json.dumps(rules.to_dict()),))
        conn.executemany("INSERT INTO seats VALUES ('r4', ?, 'human', ?, NULL, ?, 1)",
                         [(i, f"p{i}", t) for i, t in enumerate(tokens)])
        conn.executemany("INSERT INTO actions VALUES ('r4', ?, ?)", list(enumerate(actions)))
    async with running(QUIET, db_path=db) as server:
        room = server.rooms["r4"]
        assert room.match.game.view(0).to_dict() == game.view(0).to_dict()
        c = await Raw.connect(server.port, "p1")
        joined = await c.reply(pr.Resume(token=tokens[1], seq=40, id=1))
        assert joined.TYPE == "joined" and joined.seat == 1  # type: ignore[attr-defined]
    with contextlib.closing(sqlite3.connect(db)) as conn, conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)
        hashes = [h for (h,) in conn.execute("SELECT token_hash FROM seats ORDER BY seat")]
    assert hashes[0] == token_hash(tokens[0])
    assert tokens[0] not in db.read_bytes().decode("latin-1")


_V2_ROOM = """(id TEXT PRIMARY KEY, name TEXT NOT NULL, preset TEXT NOT NULL, rules TEXT NOT NULL,
    seats INTEGER NOT NULL, timer INTEGER NOT NULL, password TEXT, host INTEGER,
    seed TEXT NOT NULL, matches INTEGER NOT NULL DEFAULT 0, match_seed TEXT,
    seq INTEGER NOT NULL DEFAULT 0"""
_V2_SEAT = """(room TEXT NOT NULL, seat INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT, level TEXT,
    token_hash TEXT, ready INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (room, seat))"""
_V2_REST = """(room TEXT NOT NULL, token_hash TEXT NOT NULL, name TEXT, PRIMARY KEY (room, token_hash));
CREATE TABLE actions (room TEXT NOT NULL, match INTEGER NOT NULL, n INTEGER NOT NULL,
    action TEXT NOT NULL, seq INTEGER)"""
V2_SCHEMA = f"""
CREATE TABLE rooms {_V2_ROOM});
CREATE TABLE seats {_V2_SEAT};
CREATE TABLE spectators {_V2_REST};
CREATE TABLE rooms_aside {_V2_ROOM}, reason TEXT NOT NULL, set_aside TEXT NOT NULL);
CREATE TABLE seats_aside {_V2_SEAT};
CREATE TABLE spectators_aside {_V2_REST.replace("actions", "actions_aside")};
PRAGMA user_version = 2;
"""


async def test_a_second_version_database_gains_program_seats_and_match_ends(tmp_path: Path) -> None:
    """A file of schema version 2 (no seat's program flag, no time a match ended) is
    migrated in place: its rooms and the rooms set aside keep what they had, and its
    tables are a new file's."""
    rules = json.dumps(en.Rules.preset("official").to_dict())
    old = tmp_path / "v2.db"
    with contextlib.closing(sqlite3.connect(old)) as conn, conn:
        conn.executescript(V2_SCHEMA)
        for table, rid, extra in (("rooms", "r5", ""), ("rooms_aside", "r6", ", 'broken', '2026-01-01'")):
            conn.execute(f"INSERT INTO {table} VALUES (?, 'old', 'official', ?, 2, 0, NULL, 0, "
                         f"'\"s\"', 0, NULL, 7{extra})", (rid, rules))
        conn.execute("INSERT INTO seats VALUES ('r5', 0, 'human', 'ann', NULL, 'h', 1)")
    stored = await load(old)
    (room,) = stored.rooms
    assert (room.id, room.ended, room.seq) == ("r5", None, 7)
    assert [(s.name, s.ready, s.program) for s in room.seat_records] == [("ann", True, False)]
    fresh = tmp_path / "new.db"
    await load(fresh)

    def tables(path: Path) -> dict[str, list[str]]:
        with contextlib.closing(sqlite3.connect(path)) as conn:
            return {name: [c[1] for c in conn.execute(f"PRAGMA table_info({name})")]
                    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    assert tables(old) == tables(fresh)
    with contextlib.closing(sqlite3.connect(old)) as conn:
        assert conn.execute("SELECT id, seq, ended, reason FROM rooms_aside").fetchall() == [
            ("r6", 7, None, "broken")]
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


async def test_a_third_version_database_gains_the_logs_tail(tmp_path: Path) -> None:
    """A file of schema version 3 (no tail) is migrated in place: its rooms keep what they
    had, its tables are a new file's, and no frame of the tail is moved yet."""
    fresh, old = tmp_path / "new.db", tmp_path / "v3.db"
    await load(fresh)
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(old).run)
        store.save_room(_log_room("r7"))
        store.start_match("r7", 1, 5, 10)
        nursery.cancel_scope.cancel()
    with contextlib.closing(sqlite3.connect(old)) as conn, conn:
        conn.execute("DROP TABLE tail")
        conn.execute("PRAGMA user_version = 3")
    (room,) = (await load(old)).rooms
    assert (room.id, room.matches, room.seq) == ("r7", 1, 10)
    with contextlib.closing(sqlite3.connect(old)) as conn, contextlib.closing(sqlite3.connect(fresh)) as new:
        def tables(c: sqlite3.Connection) -> list[Any]:
            return c.execute("SELECT name, sql FROM sqlite_master ORDER BY name").fetchall()
        assert tables(conn) == tables(new)
        assert conn.execute("SELECT moved FROM tail").fetchall() == [(0,)]
        assert conn.execute("PRAGMA user_version").fetchone() == (SCHEMA_VERSION,)


async def test_the_database_and_its_directory_are_their_owners_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from unolan.server.store import default_path

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    db = default_path()
    async with running(QUIET, db_path=db) as server:
        c = await Raw.connect(server.port)
        await c.reply(pr.CreateRoom(name="t", seats=2, id=1))
        await settle(c)
        for path in (db, Path(f"{db}-wal"), Path(f"{db}-tail")):
            if path.exists():
                assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700


# -- `uno host` failing: one line, exit status 1 ---------------------------------------------


def host(*args: str, timeout: float = 30, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "unolan.cli", "host", "--port", "0", *args],
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env=env)


def one_line_failure(result: subprocess.CompletedProcess[str], *words: str) -> str:
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    (line,) = lines
    assert line.startswith("uno host: ") and "Traceback" not in line and "listening" not in line
    for word in words:
        assert word in line, line
    return line


def test_uno_host_fails_in_one_line_on_a_database_it_cannot_use(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.db"
    corrupt.write_bytes(b"not a database at all " * 200)
    one_line_failure(host("--db", str(corrupt)), str(corrupt), "not a usable SQLite database")
    foreign = tmp_path / "foreign.db"
    with contextlib.closing(sqlite3.connect(foreign)) as conn, conn:
        conn.execute("CREATE TABLE invoices (id INTEGER, total REAL)")
    one_line_failure(host("--db", str(foreign)), "not a unolan database")
    newer = tmp_path / "newer.db"
    with contextlib.closing(sqlite3.connect(newer)) as conn, conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        conn.execute("CREATE TABLE rooms (id TEXT)")
    one_line_failure(host("--db", str(newer)), f"schema version {SCHEMA_VERSION + 1}")
    one_line_failure(host("--db", str(tmp_path)), "is a directory")
    locked = tmp_path / "locked.db"
    holder = sqlite3.connect(locked, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        one_line_failure(host("--db", str(locked)), "locked by another program")
    finally:
        holder.close()
    # Only the history's file locked: the line names that file, not the database.
    from unolan.server.history import history_path

    ready = tmp_path / "ready.db"
    holder = sqlite3.connect(history_path(ready), isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        line = one_line_failure(host("--db", str(ready)), "locked by another program",
                                str(history_path(ready)))
        assert f"{ready} " not in line
    finally:
        holder.close()
    assert corrupt.read_bytes().startswith(b"not a database")  # never overwritten


def test_uno_host_fails_in_one_line_on_a_port_in_use(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "unolan.cli", "host", "--port", str(port), "--db",
             str(tmp_path / "p.db")], capture_output=True, text=True, timeout=30,
            stdin=subprocess.DEVNULL)
    one_line_failure(result, f"cannot listen on 127.0.0.1:{port}", "in use")
    assert list(tmp_path.iterdir()) == []  # no database made for a server that never ran


def test_uno_host_fails_in_one_line_in_the_chosen_language(tmp_path: Path) -> None:
    """--lang, or the locale; the log would stay English, but none is written before."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = host("--port", str(port), "--no-db", "--lang", "zh-Hans")
    assert one_line_failure(result) == (f"uno host: 无法在 127.0.0.1:{port} 监听：端口 {port} 已被占用"
                                        "（另一个 uno host？）；请用 --port 换一个")
    result = host("--db", str(tmp_path), env={**os.environ, "LANG": "zh_TW.UTF-8", "LC_ALL": ""})
    assert one_line_failure(result) == f"uno host: 資料庫路徑 {tmp_path} 是一個目錄；請給一個檔案（--db PATH）"


def test_uno_host_database_path_is_checked_before_anything_is_announced(tmp_path: Path) -> None:
    """No 'listening on' line before the failure: the database is opened first."""
    file = tmp_path / "f"
    file.write_text("x")
    result = host("--db", str(file / "sub" / "s.db"))  # a file where a directory must be
    one_line_failure(result, "cannot use the database")
    assert not os.path.exists(file / "sub")


def test_uno_host_makes_no_directories_for_a_mistyped_db_path(tmp_path: Path) -> None:
    result = host("--db", str(tmp_path / "no" / "such" / "dir" / "x.db"))
    one_line_failure(result, "there is no directory", "create it first")
    assert not (tmp_path / "no").exists()


def test_uno_host_refuses_a_port_out_of_range_at_the_argument(tmp_path: Path) -> None:
    for port in ("70000", "-1", "seven"):
        result = subprocess.run([sys.executable, "-m", "unolan.cli", "host", "--port", port, "--no-db"],
                                capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        assert result.returncode == 2 and "Traceback" not in result.stderr
        assert f"argument --port: expected a port from 0 to 65535, got '{port}'" in result.stderr


def _log_room(rid: str) -> Any:
    from unolan.server.store import RoomRecord
    return RoomRecord(rid, rid, "official", en.Rules.preset("official").to_dict(), 2, 0,
                      None, None, "s", 0, None, 0)


async def _log_rows(store: Store) -> list[tuple[Any, ...]]:
    def read() -> list[tuple[Any, ...]]:
        assert store._db is not None
        return list(store._db.execute("SELECT room, match, n FROM actions ORDER BY rowid"))
    return await store._in_thread(read)


async def test_the_action_log_keeps_each_rooms_current_match_and_sweeps_the_rest(tmp_path: Path) -> None:
    """Actions are only appended; a finished match's and a closed room's are swept away
    when the file is opened, and every SWEEP_EVERY actions."""
    from unolan.server.store import SWEEP_EVERY

    db = tmp_path / "log.db"

    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        for rid in ("r1", "r2"):
            store.save_room(_log_room(rid))
            store.start_match(rid, 1, 5, 10)
        for n in range(3):
            store.action("r1", 1, n, f"0 draw #{n}", 11 + n)
            store.action("r2", 1, n, f"1 draw #{n}", 11 + n)
        store.start_match("r1", 2, 6, 20)  # a new match in r1
        store.action("r1", 2, 0, "0 draw", 21)
        store.delete_room("r2")  # r2 closes
        (r1,) = (await store.load()).rooms
        assert r1.actions == ["0 draw"] and r1.seq == 21  # the current match only
        assert len(await _log_rows(store)) == 7  # nothing deleted: the log is only appended to
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        assert await _log_rows(store) == [("r1", 2, 0)]  # swept when opened
        store.start_match("r1", 3, 7, 30)
        store._appended = SWEEP_EVERY - 1
        store.action("r1", 3, 0, "0 pass", 31)  # the SWEEP_EVERY-th action: a sweep follows
        await store.flush()
        assert await _log_rows(store) == [("r1", 3, 0)]
        nursery.cancel_scope.cancel()




async def test_most_sweeps_drop_the_rows_below_the_oldest_match_and_some_scan_the_whole_log(
        tmp_path: Path) -> None:
    """A sweep deletes the log's rows below the first action of the oldest match still in
    it (no scan); a finished match above that one waits for the whole sweep, every
    WHOLE_SWEEP_EVERY-th, which scans the log."""
    from unolan.server.store import SWEEP_EVERY, WHOLE_SWEEP_EVERY

    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(tmp_path / "s.db").run)
        for rid in ("r1", "r2"):
            store.save_room(_log_room(rid))
            store.start_match(rid, 1, 5, 10)
        store.action("r1", 1, 0, "0 draw", 11)  # r1's match goes on all along
        store.action("r2", 1, 0, "1 draw", 11)
        store.start_match("r2", 2, 6, 20)
        store.action("r2", 2, 0, "1 draw", 21)  # r2's first match is over
        store._put(Sweep())
        await store.flush()
        assert await _log_rows(store) == [("r1", 1, 0), ("r2", 1, 0), ("r2", 2, 0)]
        store._sweeps, store._appended = WHOLE_SWEEP_EVERY - 1, SWEEP_EVERY - 1
        store.action("r1", 1, 1, "0 pass", 12)  # the sweep after it is a whole one
        await store.flush()
        assert await _log_rows(store) == [("r1", 1, 0), ("r2", 2, 0), ("r1", 1, 1)]
        store.start_match("r1", 2, 7, 30)
        store.action("r1", 2, 0, "0 draw", 31)
        store._put(Sweep())  # now r2's match is the oldest: what is below it goes
        await store.flush()
        assert await _log_rows(store) == [("r2", 2, 0), ("r1", 1, 1), ("r1", 2, 0)]
        nursery.cancel_scope.cancel()


async def test_a_failed_transaction_leaves_no_match_begun_for_the_sweeps(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transaction that began a match and then failed is rolled back, and so is the
    store's note of where that match begins: a sweep before the retry must not take the
    match before it for a finished one (its rows are not copied to the history yet)."""
    from unolan.server.store import MoveTail, RoomSeq

    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(tmp_path / "f.db").run)
        store.save_room(_log_room("r1"))
        store.start_match("r1", 1, 5, 10)
        for n in range(3):
            store.action("r1", 1, n, f"0 draw #{n}", 11 + n)
        await store.flush()
        before = dict(store._first_rows)
        assert before["r1"][0] == 1
        apply = Store._apply

        def failing_on_seq(self: Store, db: sqlite3.Connection, op: Op) -> None:
            if isinstance(op, RoomSeq):
                raise sqlite3.OperationalError("disk I/O error")
            apply(self, db, op)

        monkeypatch.setattr(Store, "_apply", failing_on_seq)
        with pytest.raises(sqlite3.OperationalError):
            await store._in_thread(store._write, [ActionRow("r1", 2, 0, "0 draw", 21), RoomSeq("r1", 22),
                                                  MoveTail()])  # (a database transaction)
        monkeypatch.setattr(Store, "_apply", apply)
        assert store._first_rows == before
        store._put(Sweep())
        await store.flush()
        assert await _log_rows(store) == [("r1", 1, 0), ("r1", 1, 1), ("r1", 1, 2)]
        nursery.cancel_scope.cancel()

async def test_a_transactions_actions_go_in_order_whatever_their_number(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Actions-only transactions of any size (here 1, then 600 at once, then 7) keep their
    order and fields, ``ROWS_PER_INSERT`` rows to a statement: the connection keeps each
    statement it ran prepared, so there are never more than that many kinds of them."""
    from unolan.server.store import ROWS_PER_INSERT, RoomRecord

    statements: list[str] = []
    execute = sqlite3.Connection.execute

    class Counting(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:  # type: ignore[override]
            statements.append(sql)  # (the signature is the connection's own, narrowed)
            return execute(self, sql, *args)

    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: connect(*a, factory=Counting, **k))
    record = RoomRecord("r1", "r1", "official", en.Rules.preset("official").to_dict(), 2, 0,
                        None, None, "s", 0, None, 0)
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(tmp_path / "n.db").run)
        store.save_room(record)
        store.start_match("r1", 1, 5, 10)
        await store.flush()
        first = 0
        for size in (1, 600, 7):
            for n in range(first, first + size):
                store.action("r1", 1, n, f"0 draw #{n}", 11 + n)
            first += size
            await store.flush()
        assert len(store._tail_rows) == 7  # the 1 went in with the 600, the 7 wait in the tail
        (r1,) = (await store.load()).rooms
        assert r1.actions == [f"0 draw #{n}" for n in range(608)]
        assert r1.action_seqs == [11 + n for n in range(608)]
        nursery.cancel_scope.cancel()
    rows = {sql.count("(?, ") for sql in statements if sql.startswith("INSERT INTO actions ")}
    assert rows == {1, ROWS_PER_INSERT, 7}  # 600 went as 75 statements of 8
    # in one transaction, after the 1 moved from the tail; the 7 moved in when the rooms
    # were read (the other BEGINs: the tail's when the file opened, the room and its
    # match, saved first)
    assert statements.count("BEGIN") == 4


async def test_a_pause_seen_but_never_saved_is_not_given_out_again_after_a_restart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thread_clock: trio.abc.Clock) -> None:
    """The server stops while saving fails: its clients saw the `paused` event's seq,
    which never reached the disk. The restarted room's seqs start above it, and a resume
    from a seq ahead of the room's gets a snapshot, not a catch-up."""
    failing = failing_writes(monkeypatch)
    db = tmp_path / "p.db"
    async with running(QUIET, db_path=db) as server:
        clients, room_id = await table(server, 2, "official")
        await settle(*clients)
        failing[0] = True
        await clients[0].send(pr.Chat(text="unsaved", id=1))
        paused = await clients[0].expect("event", kind="paused")
    failing[0] = False
    async with running(QUIET, db_path=db) as server:
        room = server.rooms[room_id]
        assert room.seq > paused.seq  # type: ignore[attr-defined]
        back = await Raw.connect(server.port, "p0")
        before = room.seq
        joined = await back.reply(pr.Resume(token=clients[0].token, seq=before + 7, id=1))
        assert joined.TYPE == "joined" and joined.seq == before  # type: ignore[attr-defined]
        snap = await back.expect("snapshot")
        assert snap.seq == before and wire(snap.view) == room.match.game.view(0).to_dict()  # type: ignore[attr-defined]
        assert not [m for m in back.seen if m.TYPE == "event" and m.seq <= before]  # type: ignore[attr-defined]


def test_uno_host_verbose_logs_every_connection() -> None:
    """-v: a line when a client connects and one when it goes, with its name."""
    server = subprocess.Popen([sys.executable, "-m", "unolan.cli", "host", "-v", "--port", "0",
                               "--no-db", "--no-announce"], stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL)
    try:
        assert server.stderr is not None
        while "uno server on" not in (line := server.stderr.readline()):
            assert line, "the server stopped"
        port = int(line.rsplit(":", 1)[1].split()[0])
        with socket.create_connection(("127.0.0.1", port)) as sock:
            body = msgpack.packb({"type": "hello", "versions": [2], "name": "ann"})
            sock.sendall(len(body).to_bytes(4, "big") + body)
            sock.recv(65536)  # welcome
        lines = []
        while not any("closed" in seen for seen in lines):
            lines.append(server.stderr.readline())
        assert any("connection 1 from 127.0.0.1" in seen for seen in lines), lines
        assert any("'ann'" in seen and "closed" in seen for seen in lines), lines
    finally:
        server.kill()
        server.wait(10)


async def test_the_server_id_in_welcome_is_kept_in_the_database_across_restarts(tmp_path: Path) -> None:
    """Seats are kept by it on the client: it must not change when the server restarts
    with its database (it does without one: its rooms are gone too)."""
    ids = []
    for db in (tmp_path / "s.db", tmp_path / "s.db", None):
        async with running(FAST, db_path=db) as server:
            client = await Raw.connect(server.port)
            (welcome,) = [m for m in client.seen if m.TYPE == "welcome"]
            ids.append(welcome.server_id)  # type: ignore[attr-defined]
            await client.aclose()
    assert ids[0] and ids[0] == ids[1] and ids[2] not in (None, ids[0])


async def test_a_lock_held_on_the_history_fails_the_write_at_once_and_it_is_retried(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Transactions run on the event loop, so a lock another program holds on the
    history's file must not make one wait (the connection waited up to a second for a
    lock): the write fails at once, the store says saving fails and retries, and once the
    lock is let go the write is on disk."""
    from unolan.server import history

    db = tmp_path / "h.db"
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        other = sqlite3.connect(history.history_path(db), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program writing to the history
        started = time.monotonic()
        store.round_record("r1", 1, 1, {"commitment": "c0ffee"})
        store.save_spectator("r1", "h", "sam")  # with it, a database transaction (not the tail)
        while not store.failing:
            await trio.sleep(0.01)
        assert time.monotonic() - started < 0.5  # the lock's timeout at open is 1 s
        (said,) = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
        assert f"or its history {history.history_path(db)}: database is locked" in said, said
        other.execute("ROLLBACK")
        other.close()
        with trio.fail_after(10):
            await store.flush()
        assert not store.failing
        rounds = await store._in_thread(lambda: history.current_rounds(store._db))
        assert [(room, match, rnd) for room, match, rnd, _ in rounds] == [("r1", 1, 1)]
        nursery.cancel_scope.cancel()


async def test_a_transaction_that_fails_for_a_bug_ends_the_store_instead_of_pausing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A disk that fails pauses the rooms while the store retries; a bug (here a value
    SQLite cannot bind) would fail every retry for ever: it ends the store's task, and
    the server with it, as any bug does."""
    def broken(self: Store, ops: list[Op]) -> None:
        raise sqlite3.ProgrammingError("Error binding parameter 3: type 'object' is not supported")

    monkeypatch.setattr(Store, "_write", broken)
    store: Store | None = None
    with pytest.raises(ExceptionGroup) as raised:
        async with trio.open_nursery() as nursery:
            store = await nursery.start(Store(tmp_path / "b.db").run)
            store.action("r1", 1, 0, "0 draw", 1)
            with trio.fail_after(5):
                await store.flush()
    assert raised.group_contains(sqlite3.ProgrammingError, depth=None)
    assert store is not None and not store.failing  # never taken for the disk's failure


async def test_a_server_that_stops_says_its_rooms_are_kept_not_closed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A clean stop keeps every room of the database: the log must not say it closed."""
    caplog.set_level("INFO", logger="unolan.server")
    async with running(QUIET, db_path=tmp_path / "k.db") as server:
        _clients, room_id = await table(server, 2, "official")
    said = [r.getMessage() for r in caplog.records if room_id in r.getMessage()]
    assert f"room {room_id} stopped: it is kept, and restored at the next start" in said, said
    assert f"room {room_id} closed" not in said
    (record,) = (await load(tmp_path / "k.db")).rooms
    assert record.id == room_id


class _Heard:
    """A store listener that records each commit it hears."""

    def __init__(self) -> None:
        self.tickets: list[int] = []
        self.event = trio.Event()

    def committed(self, ticket: int) -> None:
        self.tickets.append(ticket)
        self.event.set()

    def saving_failed(self, error: str) -> None:
        raise AssertionError(f"saving failed: {error}")

    def saving_works(self) -> None:
        raise AssertionError("saving was never failing")


async def test_what_a_round_queued_is_on_disk_before_the_next_round_runs(tmp_path: Path) -> None:
    """The writes queued in a round of the event loop are committed, and the listener has
    heard it, before any task runs again: an action's frames go out in the round that
    made them (a task of the store's woken for them ran in the next round, before or
    after the room's, as the scheduler chose)."""
    heard = _Heard()
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(tmp_path / "r.db", heard).run)
        for n in range(20):
            store.action("r1", 1, n, "0 draw", n + 1)
            ticket = store.ticket
            assert ticket not in heard.tickets
            await trio.lowlevel.cancel_shielded_checkpoint()
            assert heard.tickets[-1] == ticket
        nursery.cancel_scope.cancel()
    with contextlib.closing(sqlite3.connect(tmp_path / "r.db")) as db:
        assert db.execute("SELECT count(*) FROM actions WHERE room = 'r1'").fetchone() == (20,)


async def test_a_commit_while_the_loop_would_sleep_wakes_what_it_made_ready(tmp_path: Path) -> None:
    """Nothing is ready and the next deadline is 30 s away, so the event loop is about to
    sleep for 30 s when it commits the write: the task the commit wakes runs at once, not
    when the loop would next have woken (at that deadline)."""
    heard = _Heard()
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(tmp_path / "w.db", heard).run)
        store.action("r1", 1, 0, "0 draw", 1)
        start = trio.current_time()
        with trio.move_on_after(30):
            await heard.event.wait()
        assert trio.current_time() - start < 10
        nursery.cancel_scope.cancel()
    assert heard.tickets == [1]
