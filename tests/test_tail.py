"""The action log's tail: the rounds that only played are frames of a file of their own,
which survive a kill, are moved into the database once, and whose failures pause play
like the database's."""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio
from test_storage import _log_room, _log_rows, host, load, one_line_failure
from unolan.server import history
from unolan.server.store import Store
from unolan.server.tail import Tail, tail_path


def killed_copy(db: Path, to: Path) -> Path:
    """The files as a server killed now would leave them (every write it made is in the
    operating system's hands: a copy of them is what the next start finds)."""
    to.mkdir()
    kept = history.history_path(db)
    for path in (db, Path(f"{db}-wal"), tail_path(db), kept, Path(f"{kept}-wal")):
        if path.exists():
            shutil.copy(path, to / path.name)
    return to / db.name


async def playing(store: Store, actions: int, start: int = 0) -> None:
    """``actions`` rounds that only played, one action each, in room r1's match 1."""
    for n in range(start, start + actions):
        store.action("r1", 1, n, f"0 draw #{n}", 11 + n)
        await store.flush()


async def a_room_with_a_match(store: Store) -> None:
    store.save_room(_log_room("r1"))
    store.start_match("r1", 1, 5, 10)
    await store.flush()


async def test_a_round_that_only_played_is_a_frame_of_the_tail_and_survives_a_kill(
        tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        await a_room_with_a_match(store)
        await playing(store, 3)
        store.seq("r1", 20)  # a chat line's seq
        await store.flush()
        store.round_record("r1", 1, 1, {"commitment": "c0ffee"})  # a round of the fair deal
        store.receipt("r1", 1, 21, {"race": "uno"})  # and a race's receipt, in one round
        await store.flush()
        assert await _log_rows(store) == []  # nothing of it in the database yet
        reader = Tail(tail_path(db))
        assert [(number, len(rows)) for number, rows in reader.read()] == [
            (1, 1), (2, 1), (3, 1), (4, 1), (5, 2)]
        reader.close()
        copy = killed_copy(db, tmp_path / "killed")
        nursery.cancel_scope.cancel()
    (r1,) = (await load(copy)).rooms
    assert r1.actions == ["0 draw #0", "0 draw #1", "0 draw #2"] and r1.action_seqs == [11, 12, 13]
    assert r1.seq == 20 and [r["commitment"] for r in r1.rounds] == ["c0ffee"]
    assert tail_path(copy).stat().st_size == 0  # moved in when opened
    conn = sqlite3.connect(history.history_path(copy))
    try:
        assert conn.execute("SELECT room, seq, data FROM receipts").fetchall() == [("r1", 21, '{"race": "uno"}')]
    finally:
        conn.close()


async def test_frames_already_moved_are_not_moved_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A kill between the move's commit and the tail's emptying leaves frames that are in
    the database: the number of the last one moved, kept with them, says so."""
    def cannot_truncate(self: Tail) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Tail, "clear", cannot_truncate)
    db = tmp_path / "m.db"
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        await a_room_with_a_match(store)
        await playing(store, 2)
        store.save_spectator("r1", "h", "sam")  # a database transaction: moves them
        await store.flush()
        assert [row[2] for row in await _log_rows(store)] == [0, 1]
        await playing(store, 1, start=2)  # after the frames that stayed
        copy = killed_copy(db, tmp_path / "killed")
        nursery.cancel_scope.cancel()
    assert "cannot empty" in caplog.text
    monkeypatch.undo()
    (r1,) = (await load(copy)).rooms
    assert r1.actions == ["0 draw #0", "0 draw #1", "0 draw #2"]


@pytest.mark.parametrize("damage", ["cut short", "garbage after"])
async def test_a_frame_that_cannot_be_trusted_ends_the_tail(tmp_path: Path, damage: str) -> None:
    """Only a crash of the machine leaves one, at the end (its write never returned, so
    its frames never went out): the frames before it count, it and what follows do not."""
    db = tmp_path / "d.db"
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        await a_room_with_a_match(store)
        await playing(store, 3)
        copy = killed_copy(db, tmp_path / "killed")
        nursery.cancel_scope.cancel()
    tail = tail_path(copy)
    data = tail.read_bytes()
    tail.write_bytes(data[:-3] if damage == "cut short" else data + b"\x00\x00\x00\x09garbage!!")
    (r1,) = (await load(copy)).rooms
    assert r1.actions == (["0 draw #0", "0 draw #1"] if damage == "cut short"
                          else ["0 draw #0", "0 draw #1", "0 draw #2"])


class _Heard:
    def __init__(self) -> None:
        self.said: list[str] = []

    def committed(self, ticket: int) -> None:
        pass

    def saving_failed(self, error: str) -> None:
        self.said.append(f"failed: {error}")

    def saving_works(self) -> None:
        self.said.append("works")


async def test_a_tail_that_cannot_be_written_pauses_saving_until_it_can(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thread_clock: trio.abc.Clock,
        caplog: pytest.LogCaptureFixture) -> None:
    """A full disk: the frame is tried again (over whatever part of it was written) until
    it goes, and the listener hears that saving failed and then works."""
    append = Tail.append
    failures = [2]

    def full_disk(self: Tail, number: int, rows: list[Any]) -> None:
        if failures[0]:
            failures[0] -= 1
            raise OSError(errno.ENOSPC, "No space left on device")
        append(self, number, rows)

    monkeypatch.setattr(Tail, "append", full_disk)
    heard = _Heard()
    db = tmp_path / "f.db"
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db, heard).run)
        await a_room_with_a_match(store)
        await playing(store, 2)
        assert heard.said == ["failed: No space left on device", "works"]
        assert not store.failing
        copy = killed_copy(db, tmp_path / "killed")
        nursery.cancel_scope.cancel()
    assert f"cannot save to {tail_path(db)}: No space left on device" in caplog.text
    (r1,) = (await load(copy)).rooms
    assert r1.actions == ["0 draw #0", "0 draw #1"]


async def test_a_clean_stop_leaves_everything_in_the_database(tmp_path: Path) -> None:
    db = tmp_path / "c.db"
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        await a_room_with_a_match(store)
        await playing(store, 3)
        nursery.cancel_scope.cancel()
    assert tail_path(db).stat().st_size == 0
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT n FROM actions ORDER BY rowid").fetchall() == [(0,), (1,), (2,)]
        assert conn.execute("SELECT moved FROM tail").fetchall() == [(3,)]
    finally:
        conn.close()


async def test_a_frame_of_what_is_not_an_action_stops_the_start_in_one_line(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    await load(db)  # a new file
    tail = Tail(tail_path(db))
    tail.append(1, [["r1", "one", 2]])
    tail.close()
    line = one_line_failure(host("--db", str(db), "--no-announce"), str(tail_path(db)),
                            "its frame 1 holds a row that is not a game's")
    assert "move it aside" in line
