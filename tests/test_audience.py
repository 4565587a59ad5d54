"""A room's audience on its own: each member gets its own frame of each event, and the
store hears of every seq before any frame of it leaves."""

from __future__ import annotations

from typing import Any

import msgpack
from unolan.protocol.framing import encode_frame
from unolan.server.audience import Audience
from unolan.server.eventlog import EventLog
from unolan.server.match import OneTable
from unolan.server.roster import Roster
from unolan.server.seats import Seat, Watcher

from unolan import engine as en


class Listener:
    """A member as the audience sees one: it keeps what it is pushed."""

    def __init__(self, journal: list[tuple[str, int]]) -> None:
        self.frames: list[dict[str, Any]] = []
        self.journal = journal

    def push(self, frame: bytes) -> bool:
        event = msgpack.unpackb(frame[4:])
        self.frames.append(event)
        self.journal.append(("frame", event["seq"]))
        return True

    def push_now(self, frame: bytes) -> bool:
        return self.push(frame)


class Journal:
    """A store that notes each seq it is given, in one journal with the frames."""

    def __init__(self, journal: list[tuple[str, int]]) -> None:
        self.journal = journal

    def seq(self, room: str, seq: int) -> None:
        self.journal.append(("seq", seq))


def room_of(seats: int) -> tuple[Audience, list[Listener], Listener, list[tuple[str, int]]]:
    journal: list[tuple[str, int]] = []
    players = [Listener(journal) for _ in range(seats)]
    watcher = Listener(journal)
    roster = Roster(seats)
    roster.seats[:] = [Seat(i, kind="human", member=players[i]) for i in range(seats)]  # type: ignore[arg-type]
    roster.spectators[watcher] = Watcher("key", "eve")  # type: ignore[index]
    audience = Audience("r1", roster, EventLog(64), Journal(journal))  # type: ignore[arg-type]
    return audience, players, watcher, journal


def test_each_seat_sees_its_own_cards_and_nobody_sees_another_s() -> None:
    audience, players, watcher, _ = room_of(3)
    match = OneTable.dealt(en.Rules.preset("house"), 3, "seen")
    audience.emit(match.opening())
    game = match.game
    for seat, player in enumerate(players):
        hands = {f["data"]["seat"]: f["data"].get("cards") for f in player.frames if f["kind"] == "hand"}
        assert hands == {s: list(map(str, game.hands[s])) if s == seat else None for s in range(3)}
    assert [f["data"].get("cards") for f in watcher.frames if f["kind"] == "hand"] == [None] * 3
    seqs = [f["seq"] for f in watcher.frames]
    assert all(player.frames and [f["seq"] for f in player.frames] == seqs for player in players)


def test_a_public_event_is_the_same_frame_for_all_and_its_seq_is_saved_first() -> None:
    audience, players, watcher, journal = room_of(2)
    audience.public("chat", {"seat": 0, "name": "ann", "text": "hi"})
    assert journal[0] == ("seq", 1) and journal[1:] == [("frame", 1)] * 3
    assert players[0].frames == players[1].frames == watcher.frames


def test_a_frame_for_one_member_reaches_that_one_only() -> None:
    audience, players, watcher, _ = room_of(2)
    audience.push(encode_frame({"type": "seats", "seq": 4}), only=players[1])  # type: ignore[arg-type]
    assert len(players[1].frames) == 1 and not players[0].frames and not watcher.frames
