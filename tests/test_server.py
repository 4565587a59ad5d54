"""The game server over real TCP on 127.0.0.1: lobby, games, races, timers, resume, abuse."""

from __future__ import annotations

import dataclasses
import inspect
import re
import socket
import sqlite3
import struct
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from unolan.protocol import to_message
from unolan.server import DEFAULT_PORT, Bot, Limits, Room, Server, serve
from unolan.server.match import OneTable
from unolan.server.policy import choose
from unolan.server.store import Store, token_hash

from unolan import engine as en
from unolan import protocol as pr

FAST = Limits(deal_pause=0.0, autopilot_delay=0.0, request_rate=1e6, request_burst=1e6)


@asynccontextmanager
async def running(limits: Limits = FAST, seed: int | None = 1, **kw: Any):
    async with trio.open_nursery() as nursery:
        server = await nursery.start(partial(Server(seed=seed, limits=limits, **kw).run,
                                             "127.0.0.1", 0))
        yield server
        nursery.cancel_scope.cancel()


class Raw:
    """A hand-driven client: every message it receives is kept in ``seen``."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.conn = pr.Connection(pr.CLIENT)
        self.seen: list[pr.Message] = []
        self.frames: list[Any] = []  # every frame body, decoded by plain msgpack
        self._queue: list[pr.Message] = []
        self._raw = b""
        self.token: str | None = None
        self.seat: int | None = None
        self.seq = 0

    @classmethod
    async def connect(cls, port: int, name: str = "t", hello: bool = True, rcvbuf: int = 0,
                      bot: bool = False) -> Raw:
        if rcvbuf:
            sock = trio.socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            await sock.connect(("127.0.0.1", port))
            client = cls(trio.SocketStream(sock))
        else:
            client = cls(await trio.open_tcp_stream("127.0.0.1", port))
        if hello:
            await client.stream.send_all(client.conn.hello(name, bot=bot))
            await client.expect("welcome")
        return client

    async def send(self, msg: pr.Message) -> None:
        await self.stream.send_all(self.conn.send(msg))

    async def send_bytes(self, data: bytes) -> None:
        await self.stream.send_all(data)

    def _keep(self, data: bytes) -> None:
        self._raw += data
        while len(self._raw) >= 4:
            (n,) = struct.unpack(">I", self._raw[:4])
            if len(self._raw) < 4 + n:
                break
            self.frames.append(msgpack.unpackb(self._raw[4:4 + n], raw=False))
            self._raw = self._raw[4 + n:]

    async def recv(self, timeout: float = 5) -> pr.Message | None:
        """The next message; None when the server closed the connection."""
        if self._queue:
            return self._queue.pop(0)
        with trio.fail_after(timeout):
            while True:
                msg = self.conn.next_event()
                if msg is pr.CONNECTION_CLOSED:
                    return None
                if msg is not pr.NEED_DATA:
                    break
                try:
                    data = await self.stream.receive_some(65536)
                except trio.BrokenResourceError:
                    data = b""
                self._keep(data)
                self.conn.receive_data(data)
        assert isinstance(msg, pr.Message)
        self.seen.append(msg)
        if msg.TYPE == "joined":
            self.token, self.seat = msg.token, msg.seat
        if msg.TYPE in ("event", "snapshot", "joined"):
            self.seq = max(self.seq, msg.seq)
        if msg.TYPE == "ping":
            await self.send(pr.Pong(id=msg.id))
        return msg

    async def expect(self, type_: str, timeout: float = 5, **match: Any) -> pr.Message:
        """Skip messages until one of ``type_`` (and event ``kind``/fields) arrives."""
        while True:
            msg = await self.recv(timeout)
            assert msg is not None, f"connection closed while waiting for {type_}"
            if type_ != msg.TYPE:
                continue
            if all((getattr(msg, k, None) if k != "data" else None) == v for k, v in match.items()
                   if k != "data") and all(msg.data.get(k) == v for k, v in match.get("data", {}).items()):
                return msg

    async def reply(self, msg: pr.Message, timeout: float = 5) -> pr.Message:
        """Send a request with an id and wait for the answer carrying it."""
        await self.send(msg)
        while True:
            got = await self.recv(timeout)
            assert got is not None, "connection closed"
            if getattr(got, "id", None) == msg.id and got.TYPE != "ping":  # type: ignore[attr-defined]
                return got

    async def drain(self) -> None:
        """Read whatever is already here."""
        with trio.move_on_after(0.05):
            while True:
                if await self.recv() is None:
                    return

    async def closed(self, timeout: float = 5) -> bool:
        with trio.fail_after(timeout):
            while True:
                if await self.recv(timeout) is None:
                    return True

    async def aclose(self) -> None:
        await self.stream.aclose()


async def table(server: Server, players: int, preset: str = "house", timer: int = 0,
                programs: tuple[int, ...] = (), **options: Any) -> tuple[list[Raw], str]:
    """``players`` hand-driven clients seated in a new room, the match started (the seats
    ``programs`` joined by clients that said a program plays)."""
    host = await Raw.connect(server.port, "host")
    joined = await host.reply(pr.CreateRoom(name="t", seats=players, preset=preset, timer=timer,
                                            options=options, id=1))
    room = joined.room  # type: ignore[attr-defined]
    clients = [host]
    for i in range(1, players):
        c = await Raw.connect(server.port, f"p{i}", bot=i in programs)
        await c.reply(pr.Join(room=room, id=1))
        assert (await c.reply(pr.Ready(id=2))).TYPE == "ok"
        clients.append(c)
    assert (await host.reply(pr.Start(id=9))).TYPE == "ok"
    for c in clients:
        await c.expect("event", kind="turn")
    return clients, room


async def settle(*clients: Raw) -> None:
    for c in clients:
        await c.drain()


async def staged(server: Server, players: int, position: str, preset: str = "house",
                 **options: Any) -> tuple[list[Raw], Room]:
    """A :func:`table` whose game is then replaced by ``position`` (the engine's position
    notation), every client having read what the start sent: the clients and the room."""
    clients, room_id = await table(server, players, preset, **options)
    room = server.rooms[room_id]
    room.match = OneTable(en.parse_position(position))
    await settle(*clients)
    return clients, room


def wire(value: Any) -> Any:
    """Protocol values (tuples, FrozenDicts) as plain lists and dicts."""
    if isinstance(value, dict):
        return {k: wire(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [wire(v) for v in value]
    return value


# -- serve, shutdown, lobby --------------------------------------------------------------


async def test_serve_reports_port_and_says_goodbye_on_shutdown() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=3))
        assert isinstance(port, int) and port > 0
        client = await Raw.connect(port)
        rooms = await client.reply(pr.ListRooms(id=5))
        assert rooms.TYPE == "rooms" and rooms.rooms == ()  # type: ignore[attr-defined]
        nursery.cancel_scope.cancel()
    msg = await client.recv()
    assert msg is not None and msg.TYPE == "error" and msg.code == "shutting_down" and msg.fatal  # type: ignore[attr-defined]


async def test_lobby_rooms_passwords_hosts_and_bots() -> None:
    async with running() as server:
        host = await Raw.connect(server.port, "ann")
        joined = await host.reply(pr.CreateRoom(name="den", seats=3, password="pw", id=1))
        assert joined.TYPE == "joined" and joined.seat == 0  # type: ignore[attr-defined]
        other = await Raw.connect(server.port, "bob")
        listing = await other.reply(pr.ListRooms(id=2))
        (room,) = listing.rooms  # type: ignore[attr-defined]
        assert room["password"] and room["players"] == 1 and room["seats"] == 3 and room["tables"] == 1
        bad = await other.reply(pr.Join(room=room["room"], password="no", id=3))
        assert bad.TYPE == "error" and bad.code == "bad_password"  # type: ignore[attr-defined]
        missing = await other.reply(pr.Join(room="nope", id=4))
        assert missing.code == "no_such_room"  # type: ignore[attr-defined]
        ok = await other.reply(pr.Join(room=room["room"], password="pw", id=5))
        assert ok.TYPE == "joined" and ok.seat == 1  # type: ignore[attr-defined]
        assert (await other.reply(pr.Start(id=6))).code == "not_host"  # type: ignore[attr-defined]
        assert (await other.reply(pr.AddBot(id=7))).code == "not_host"  # type: ignore[attr-defined]
        assert (await host.reply(pr.Start(id=8))).code == "not_ready"  # type: ignore[attr-defined]
        assert (await host.reply(pr.AddBot(id=9))).TYPE == "ok"
        assert (await host.reply(pr.Start(id=10))).code == "not_ready"  # type: ignore[attr-defined]
        assert (await host.reply(pr.RemoveBot(seat=2, id=11))).TYPE == "ok"
        assert (await host.reply(pr.AddBot(seat=2, id=12))).TYPE == "ok"
        # the host leaves: bob becomes host
        assert (await host.reply(pr.Leave(id=13))).TYPE == "ok"
        await other.expect("event", kind="host", data={"seat": 1})
        assert (await other.reply(pr.Start(id=15))).code == "not_ready"  # type: ignore[attr-defined]
        assert (await other.reply(pr.AddBot(id=16))).TYPE == "ok"
        assert (await other.reply(pr.Start(id=17))).TYPE == "ok"
        seats = await other.expect("seats", started=True)
        assert [s["kind"] for s in seats.seats] == ["bot", "human", "bot"]  # type: ignore[attr-defined]
        # a late player may only watch
        late = await Raw.connect(server.port, "cy")
        assert (await late.reply(pr.Join(room=room["room"], password="pw", id=1))).code == "already_started"  # type: ignore[attr-defined]


# -- whole matches -----------------------------------------------------------------------


async def seat_bots(server: Server, create: pr.CreateRoom, observer: Any = None,
                    spectate: bool = False, tokens: list[str] | None = None,
                    bots: list[Bot] | None = None) -> list[Bot]:
    """Bots playing one room to its match's end: the first creates it with ``create`` and
    the others join its seats (a spectator too with ``spectate``), or, with ``tokens``,
    each resumes its seat."""
    bots = [] if bots is None else bots

    async def one(i: int, **kw: Any) -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", server.port)
        bot = Bot(stream, name=f"p{i}", observer=observer, **kw)
        bots.append(bot)
        await bot.run(stop_after_match=True)

    room = f"r{server._room_counter + 1}"
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            if tokens is not None:
                for i, token in enumerate(tokens):
                    nursery.start_soon(partial(one, i, token=token))
                return bots
            nursery.start_soon(partial(one, 0, create=create))
            while room not in server.rooms:
                await trio.sleep(0.001)
            for i in range(1, create.seats):
                nursery.start_soon(partial(one, i, join=room))
            if spectate:
                nursery.start_soon(partial(one, create.seats, join=room, spectate=True))
    return bots


async def _match(server: Server, players: int, preset: str, observer: Any = None,
                 spectate: bool = False, **options: Any) -> list[Bot]:
    room = f"r{server._room_counter + 1}"
    create = pr.CreateRoom(name="t", seats=players, preset=preset, options=options)
    bots = await seat_bots(server, create, observer, spectate)
    game = server.rooms[room].match.game
    assert game is not None and game.phase == "match_over"
    return bots


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["official", "house", "party", "all-wild"])
@pytest.mark.parametrize("players", [2, 4, 10])
async def test_full_match(players: int, preset: str) -> None:
    async with running(seed=players) as server:
        bots = await _match(server, players, preset, target_score=1 if players > 2 else 100)
        assert all(b.matches == 1 for b in bots)
        assert sum(b.actions for b in bots) > players


class Refusals:
    """The errors each bot is sent."""

    def __init__(self) -> None:
        self.codes: list[str] = []

    def sent(self, bot: Bot, msg: pr.Message) -> None:
        pass

    def received(self, bot: Bot, msg: pr.Message) -> None:
        if msg.TYPE == "error":
            self.codes.append(msg.code)  # type: ignore[attr-defined]


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["official", "house", "party"])
async def test_builtin_bots_are_never_refused_in_a_match_of_their_own(preset: str) -> None:
    """The built-in bot acts only on whole tables (a snapshot, a batch's closing ``turn``):
    among themselves its actions are never too late, nor refused for anything else."""
    refusals = Refusals()
    async with running(seed=5) as server:
        await _match(server, 4, preset, observer=refusals, target_score=100)
    assert refusals.codes == []


class _Wire:
    """A stream that keeps what is sent to it."""

    def __init__(self) -> None:
        self.conn = pr.Connection(pr.SERVER)
        self.conn.receive_data(pr.Connection(pr.CLIENT).hello("x"))
        assert isinstance(self.conn.next_event(), pr.Hello)
        self.conn.welcome("test")
        self.sent: list[pr.Message] = []

    async def send_all(self, data: bytes) -> None:
        self.conn.receive_data(data)
        while isinstance(msg := self.conn.next_event(), pr.Message):
            self.sent.append(msg)


async def test_builtin_bot_acts_once_on_two_snapshots_of_one_table() -> None:
    """Two syncs crossed: the second snapshot of the table the bot acted on is not acted
    on again (that action would only be refused); a refusal lets it decide again."""
    game = en.Game(en.Rules.preset("house"), 4, seed=3)
    seat = game.turn
    wire = _Wire()
    bot = Bot(wire, name="b")  # type: ignore[arg-type]
    bot.conn.hello("b")
    bot.conn.state = pr.State.READY  # as after a welcome
    snapshot = pr.Snapshot(seq=9, view=game.view(seat).to_dict())
    await bot.on_message(snapshot)
    await bot.on_message(snapshot)
    actions = [m for m in wire.sent if m.TYPE in pr.ACTIONS]
    assert len(actions) == 1 and actions[0].seq == 9  # type: ignore[attr-defined]
    bot.dealt = True
    await bot.on_message(pr.Error(code="too_late", message="moved"))
    assert wire.sent[-1].TYPE == "sync"
    await bot.on_message(snapshot)
    assert len([m for m in wire.sent if m.TYPE in pr.ACTIONS]) == 2


async def test_builtin_bot_catches_whom_the_turn_facts_name() -> None:
    """No counting of cards: the closing event says who may be caught."""
    game = en.parse_position("rules: house; hand 0: R1 R2; hand 1: Y1 Y2; hand 2: Y3 Y4; discard: R5")
    (*_, turn) = game.apply(en.parse_action("0 play R1"))  # seat 0 left on one card, uncalled
    wire = _Wire()
    bot = Bot(wire, name="b")  # type: ignore[arg-type]
    bot.conn.hello("b")
    bot.conn.state = pr.State.READY
    bot.seat = 2
    await bot.on_message(pr.Event(seq=30, kind="turn", data=turn.data_for(2)))
    assert [(m.TYPE, m.seq, m.target) for m in wire.sent] == [("catch", 30, 0)]  # type: ignore[attr-defined]
    bot.seat = 0  # the seat on one card does not catch itself
    await bot.on_message(pr.Event(seq=31, kind="turn", data=turn.data_for(0)))
    assert len(wire.sent) == 1


class Audit:
    """Every frame each bot receives, for the frame audit."""

    def __init__(self) -> None:
        self.frames: dict[int, list[pr.Message]] = {}

    def sent(self, bot: Bot, msg: pr.Message) -> None:
        pass

    def received(self, bot: Bot, msg: pr.Message) -> None:
        self.frames.setdefault(id(bot), []).append(msg)


def _cards_in(value: Any) -> list[str]:
    out = []
    if isinstance(value, str):
        try:
            if en.Card.parse(value).text == value and len(value) <= 3 and value[0] in "RYGBW":
                out.append(value)
        except ValueError:
            pass
    elif isinstance(value, dict):
        for v in value.values():
            out += _cards_in(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            out += _cards_in(v)
    return out


def audit_frames(seat: int | None, frames: list[pr.Message]) -> int:
    """Fail if a frame shows a card the rules do not show this seat, or if a seq is
    skipped (every member sees every seq); count cards checked."""
    checked = 0
    challenged = False
    seq: int | None = None
    for msg in frames:
        if msg.TYPE in ("joined", "snapshot"):
            seq = msg.seq  # type: ignore[attr-defined]
        if msg.TYPE == "snapshot":
            view = msg.view  # type: ignore[attr-defined]
            assert view["seat"] == seat
            if seat is None:
                assert view["hand"] == ()
            checked += len(view["hand"])
            continue
        if msg.TYPE != "event":
            assert not _cards_in(msg.to_wire()) or msg.TYPE == "seats", msg
            continue
        kind, data = msg.kind, msg.data  # type: ignore[attr-defined]
        if seq is not None:
            assert msg.seq == seq + 1, f"seat {seat} saw seq {msg.seq} after {seq} ({kind})"  # type: ignore[attr-defined]
        seq = msg.seq  # type: ignore[attr-defined]
        cards = _cards_in(dict(data))
        checked += len(cards)
        if kind in ("played", "first_card", "dealer_draw", "round_over"):
            continue  # public by the rules (round_over shows every hand)
        if kind in ("hand", "drew", "turn") and cards:  # a turn's: the card just drawn
            assert data["seat"] == seat, f"{kind} of seat {data['seat']} shown to {seat}"
        elif kind == "challenged":
            challenged = data["seat"] == seat
        elif kind == "revealed":
            assert challenged or not cards, "a challenge reveal shown to someone who did not challenge"
        else:
            assert not cards, f"{kind} carries cards: {data}"
    return checked


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["house", "party"])
async def test_frame_audit_no_hidden_card_leaves_the_server_and_no_seq_is_skipped(
        preset: str) -> None:
    audit = Audit()
    async with running(seed=11) as server:
        # deals, swaps and rotations (seven-zero) send every seat's hand to that seat only
        bots = await _match(server, 4, preset, observer=audit, target_score=300, spectate=True)
        seats = sorted((b.seat is None, b.seat) for b in bots)
        assert seats[-1] == (True, None)  # the spectator
        for bot in bots:
            assert audit_frames(bot.seat, audit.frames[id(bot)]) > 50
        spectator = next(b for b in bots if b.seat is None)
        hands = [m for m in audit.frames[id(spectator)] if m.TYPE == "event" and m.kind == "hand"]  # type: ignore[attr-defined]
        assert hands and all("cards" not in m.data for m in hands)  # type: ignore[attr-defined]


async def test_spectator_and_challenge_reveal() -> None:
    async with running(seed=5) as server:
        clients, room_id = await table(server, 2, "official")
        watcher = await Raw.connect(server.port, "eve")
        joined = await watcher.reply(pr.Join(room=room_id, role="spectator", id=1))
        assert joined.seat is None  # type: ignore[attr-defined]
        snap = await watcher.expect("snapshot")
        assert snap.view["seat"] is None and snap.view["hand"] == ()  # type: ignore[attr-defined]
        # a spectator is in the room but has no seat: not_seated, not not_in_room
        assert (await watcher.reply(pr.Draw(seq=watcher.seq, id=2))).code == "not_seated"  # type: ignore[attr-defined]
        assert (await watcher.reply(pr.Ready(ready=True, id=2))).code == "not_seated"  # type: ignore[attr-defined]
        # a Wild Draw Four bluff: seat 0 plays it holding red; seat 1 challenges
        room = server.rooms[room_id]
        room.match = OneTable(en.parse_position(
            "rules: official; hand 0: W4 R1 R2; hand 1: G1 G2 G3; draw: B1 B2 B3 B4 B5 B6 B7 B8;"
            " discard: R5; turn: 0"))
        await settle(*clients, watcher)
        a, b = clients
        assert (await a.reply(pr.Play(seq=room.seq, cards=("W4",), color="G", id=3))).TYPE == "ok"
        await settle(a, b, watcher)
        assert (await b.reply(pr.Challenge(seq=b.seq, id=4))).TYPE == "ok"
        await settle(a, b, watcher)
        revealed = [m for m in b.seen if m.TYPE == "event" and m.kind == "revealed"]  # type: ignore[attr-defined]
        assert revealed and revealed[0].data["cards"] == ("R1", "R2")  # type: ignore[attr-defined]
        for other in (a, watcher):  # the same seq, without the cards
            (copy,) = [m for m in other.seen if m.TYPE == "event" and m.kind == "revealed"]  # type: ignore[attr-defined]
            assert copy.seq == revealed[0].seq and wire(copy.data) == {"seat": 0, "challenger": 1}  # type: ignore[attr-defined]
        assert audit_frames(None, watcher.seen) >= 1
        assert audit_frames(0, a.seen) >= 1
        assert audit_frames(1, b.seen) >= 1
        # spectators chat with seat null
        await watcher.send(pr.Chat(text="nice"))
        chat = await a.expect("event", kind="chat")
        assert chat.data["seat"] is None and chat.data["name"] == "eve"  # type: ignore[attr-defined]


# -- races -------------------------------------------------------------------------------


async def test_catch_race_exactly_one_wins() -> None:
    async with running() as server:
        clients, room = await staged(
            server, 4,
            "rules: house; hand 0: R5 G7; hand 1: R1 Y1 Y2; hand 2: B1 B2 B3; hand 3: G1 G2 G3;"
            " draw: B5 B6 B7 B8 B9 Y5 Y6; discard: R3; turn: 0")
        assert (await clients[0].reply(pr.Play(seq=room.seq, cards=("R5",), id=1))).TYPE == "ok"
        await settle(*clients)
        seq = clients[1].seq
        replies: dict[int, pr.Message] = {}

        async def catch(i: int) -> None:
            replies[i] = await clients[i].reply(pr.Catch(seq=seq, target=0, id=10 + i))

        async with trio.open_nursery() as nursery:
            for i in (1, 2, 3):
                nursery.start_soon(catch, i)
        await settle(*clients)
        wins = [i for i, r in replies.items() if r.TYPE == "ok"]
        assert len(wins) == 1
        for i, r in replies.items():
            if i not in wins:
                assert r.code in ("too_late", "cannot_catch")  # type: ignore[attr-defined]
        assert len(room.match.game.hands[0]) == 3  # caught once: 1 + 2
        caught = [m for m in clients[0].seen if m.TYPE == "event" and m.kind == "caught"]  # type: ignore[attr-defined]
        assert len(caught) == 1 and caught[0].data["seat"] == wins[0]  # type: ignore[attr-defined]


async def test_uno_call_beats_a_later_catch() -> None:
    async with running() as server:
        clients, room = await staged(
            server, 3,
            "rules: house; hand 0: R5 G7; hand 1: R1 Y1 Y2; hand 2: B1 B2 B3;"
            " draw: B5 B6 B7 B8 B9 Y5 Y6; discard: R3; turn: 0")
        await clients[0].reply(pr.Play(seq=room.seq, cards=("R5",), id=1))
        await settle(*clients)
        seq = clients[0].seq
        assert (await clients[0].reply(pr.CallUno(seq=seq, id=2))).TYPE == "ok"
        late = await clients[2].reply(pr.Catch(seq=seq, target=0, id=3))
        assert late.code == "cannot_catch"  # type: ignore[attr-defined]
        assert len(room.match.game.hands[0]) == 1


async def test_jump_in_race_and_the_turn_it_took() -> None:
    async with running() as server:
        clients, room = await staged(
            server, 4,
            "rules: house; hand 0: R1 Y1 Y2; hand 1: R5 B2 B3; hand 2: G4 G7 G8; hand 3: G1 G2 G3;"
            " draw: B5 B6 B7 B8 B9 Y5 Y6; discard: G3 G4; turn: 0")
        seq = room.seq
        # seat 2 holds the other G4: a jump-in; seat 3 holds G1 with nothing to jump; seat 0
        # (in turn) plays at the same seq. First arrival wins, the other is too late.
        jump = await clients[2].reply(pr.Play(seq=seq, cards=("G4",), id=1))
        assert jump.TYPE == "ok"
        took = await clients[0].reply(pr.Play(seq=seq, cards=("Y1",), id=2))
        assert took.code == "too_late"  # type: ignore[attr-defined]
        await settle(*clients)
        assert room.match.game.turn == 3 and len(room.match.game.hands[0]) == 3
        # many identical requests at once: one applies, the rest are too late
        seq = room.seq
        for i in range(4):  # pipelined: all four on the wire before any answer
            await clients[3].send(pr.Draw(seq=seq, id=100 + i))
        replies = []
        while len(replies) < 4:
            msg = await clients[3].recv()
            if getattr(msg, "id", None) in (100, 101, 102, 103):
                replies.append(msg)
        assert sorted(r.TYPE for r in replies) == ["error", "error", "error", "ok"]
        assert {r.code for r in replies if r.TYPE == "error"} <= {"too_late", "wrong_phase", "not_your_turn"}  # type: ignore[attr-defined]


async def test_an_action_decided_mid_batch_is_too_late() -> None:
    """One action's events form a batch ending with ``turn``; an action naming a seq inside
    a batch that moved the table is too late, not judged on a table its sender never saw
    whole (a jump-in at ``played`` before its ``turn`` arrived, a pass at ``passed``)."""
    async with running() as server:
        clients, room = await staged(
            server, 3,
            "rules: house; hand 0: G4 Y1 Y2; hand 1: R5 B2 B3; hand 2: G4 G7 G8;"
            " draw: B5 B6 B7 B8 B9 Y5 Y6; discard: G3; turn: 0")
        assert (await clients[0].reply(pr.Play(seq=room.seq, cards=("G4",), id=1))).TYPE == "ok"
        await settle(*clients)
        events = [m for m in clients[2].seen if m.TYPE == "event"][-2:]
        assert [m.kind for m in events] == ["played", "turn"]  # type: ignore[attr-defined]
        early = await clients[2].reply(pr.Play(seq=events[0].seq, cards=("G4",), id=2))  # type: ignore[attr-defined]
        assert early.code == "too_late"  # type: ignore[attr-defined]
        whole = await clients[2].reply(pr.Play(seq=events[1].seq, cards=("G4",), id=3))  # type: ignore[attr-defined]
        assert whole.TYPE == "ok"


async def test_an_action_that_loses_the_race_with_the_match_end_is_too_late() -> None:
    async with running() as server:
        clients, room = await staged(
            server, 2,
            "rules: house target_score=1; hand 0: G4; hand 1: G4 B2 B3;"
            " draw: B5 B6 B7 B8 B9 Y5 Y6; discard: G3; turn: 0", target_score=1)
        seq = room.seq
        assert (await clients[0].reply(pr.Play(seq=seq, cards=("G4",), id=1))).TYPE == "ok"
        assert not room.started  # the match is over
        late = await clients[1].reply(pr.Play(seq=seq, cards=("G4",), id=2))
        assert late.code == "too_late"  # type: ignore[attr-defined]


# -- timers ------------------------------------------------------------------------------


async def test_turn_timer_then_autopilot_until_the_player_acts(autojump_clock: trio.abc.Clock) -> None:
    limits = Limits(deal_pause=1.0, autopilot_delay=0.2, heartbeat=3600)
    async with running(limits) as server:
        clients, room_id = await table(server, 2, "official", timer=10, target_score=50)
        room = server.rooms[room_id]
        first = room.match.game.turn
        before = len(room.match.game.hands[first])
        await trio.sleep(10.5)
        assert len(room.match.game.hands[first]) >= before  # the server drew for the player
        await trio.sleep(40)
        states = [m.data for c in clients for m in c.seen
                  if m.TYPE == "event" and m.kind == "connection"]  # type: ignore[attr-defined]
        await settle(*clients)
        states = [m.data for m in clients[0].seen if m.TYPE == "event" and m.kind == "connection"]  # type: ignore[attr-defined]
        assert {"seat": 0, "state": "autopilot"} in states
        assert {"seat": 1, "state": "autopilot"} in states
        # both seats on autopilot: the match plays itself out
        with trio.fail_after(3000):
            while room.started:
                await trio.sleep(1)
                await settle(*clients)
        assert room.match.game.phase == "match_over"
        await settle(*clients)
        assert any(m.TYPE == "event" and m.kind == "match_over" for m in clients[1].seen)  # type: ignore[attr-defined]
        # After the match the room is a lobby again: nobody is on autopilot there.
        seats = [m for m in clients[1].seen if m.TYPE == "seats"][-1]
        assert not seats.started  # type: ignore[attr-defined]
        assert [s["state"] for s in seats.seats] == ["connected", "connected"]  # type: ignore[attr-defined]


async def test_acting_again_ends_autopilot(autojump_clock: trio.abc.Clock) -> None:
    limits = Limits(autopilot_delay=5.0, heartbeat=3600)
    async with running(limits) as server:
        clients, room_id = await table(server, 2, "official", timer=10)
        room = server.rooms[room_id]
        seat = room.roster.seats[0]
        seat.autopilot = True
        await clients[0].send(pr.Sync(id=1))
        snap = await clients[0].expect("snapshot")
        await clients[0].send(pr.CallUno(seq=snap.seq))  # any action, legal or not  # type: ignore[attr-defined]
        await clients[1].expect("event", kind="connection", data={"seat": 0, "state": "connected"})
        assert not seat.autopilot


async def test_heartbeat_drops_a_silent_peer(autojump_clock: trio.abc.Clock) -> None:
    async with running(Limits(heartbeat=5)) as server:
        client = await Raw.connect(server.port)
        ping = await client.stream.receive_some(1024)  # read raw: never answer the ping
        assert b"ping" in ping
        await trio.sleep(11)
        rest = await client.stream.receive_some(1024)
        assert b"timeout" in rest
        assert await client.stream.receive_some(1024) == b""


# -- reconnect, slow clients -------------------------------------------------------------


async def test_resume_restores_the_exact_view(autojump_clock: trio.abc.Clock) -> None:
    limits = Limits(grace=30, autopilot_delay=1.0, heartbeat=3600)
    async with running(limits) as server:
        clients, room_id = await table(server, 2, "official")
        room = server.rooms[room_id]
        a, b = clients
        await settle(a, b)
        last = a.seq
        token, seat = a.token, a.seat
        await a.aclose()
        await b.expect("event", kind="connection", data={"seat": 0, "state": "away"})
        await trio.sleep(5)  # autopilot plays seat 0 meanwhile if it is its turn
        again = await Raw.connect(server.port, "ann")
        joined = await again.reply(pr.Resume(token=token, seq=last, id=1))
        assert joined.TYPE == "joined" and joined.seat == seat  # type: ignore[attr-defined]
        await again.drain()
        missed = [m.seq for m in again.seen if m.TYPE == "event"]  # type: ignore[attr-defined]
        assert all(s > last for s in missed) and missed == sorted(missed)
        snap = await again.reply(pr.Sync(id=2))
        assert wire(snap.view) == room.match.game.view(seat).to_dict()  # type: ignore[attr-defined]
        assert (await Raw.connect(server.port)).conn is not None
        bad = await (await Raw.connect(server.port)).reply(pr.Resume(token="x" * 24, seq=0, id=3))
        assert bad.code == "bad_token"  # type: ignore[attr-defined]
        # grace runs out for b: its token dies, the server plays its seat
        token_b = b.token
        await b.aclose()
        await trio.sleep(31)
        late = await (await Raw.connect(server.port)).reply(pr.Resume(token=token_b, seq=0, id=4))
        assert late.code == "bad_token"  # type: ignore[attr-defined]
        assert room.roster.seats[1].state == "autopilot"


async def test_a_seat_in_the_lobby_is_held_for_its_grace_then_freed(autojump_clock: trio.abc.Clock) -> None:
    """Between matches too (after a match the room is back in its lobby), a player whose
    connection dropped keeps the seat for the grace: back with the token, the same seat;
    away, the room's start waits for nobody (the host goes to who is there); then freed."""
    limits = Limits(grace=30, heartbeat=3600)
    async with running(limits) as server:
        ann = await Raw.connect(server.port, "ann")
        room = (await ann.reply(pr.CreateRoom(name="t", seats=4, id=1))).room  # type: ignore[attr-defined]
        bob = await Raw.connect(server.port, "bob")
        await bob.reply(pr.Join(room=room, id=2))
        token, seat = bob.token, bob.seat
        await bob.aclose()
        await ann.expect("event", kind="connection", data={"seat": seat, "state": "away"})
        again = await Raw.connect(server.port, "bob")
        joined = await again.reply(pr.Resume(token=token, seq=0, id=3))
        assert joined.TYPE == "joined" and joined.seat == seat  # type: ignore[attr-defined]
        assert server.rooms[room].roster.seats[seat].name == "bob"
        ann_token = ann.token
        await ann.aclose()  # the host drops: the host is whoever is still there
        await trio.sleep(1)
        assert server.rooms[room].roster.host == seat
        await trio.sleep(31)  # past the grace: ann's seat is free again
        assert server.rooms[room].roster.seats[0].kind == "empty"
        late = await (await Raw.connect(server.port)).reply(pr.Resume(token=ann_token, seq=0, id=4))
        assert late.code == "bad_token"  # type: ignore[attr-defined]


async def test_a_host_alone_with_bots_who_drops_is_host_again_on_resume(
        autojump_clock: trio.abc.Clock) -> None:
    """With nobody else there to take it, a host who drops leaves the room without a host;
    back with the token, the seat is the host again (else nobody could start)."""
    async with running(Limits(grace=30, heartbeat=3600)) as server:
        ann = await Raw.connect(server.port, "ann")
        room = (await ann.reply(pr.CreateRoom(name="t", seats=2, id=1))).room  # type: ignore[attr-defined]
        assert (await ann.reply(pr.AddBot(id=2))).TYPE == "ok"
        token, seat = ann.token, ann.seat
        await ann.aclose()
        await trio.sleep(1)
        assert server.rooms[room].roster.host is None
        again = await Raw.connect(server.port, "ann")
        joined = await again.reply(pr.Resume(token=token, seq=0, id=3))
        assert joined.TYPE == "joined" and joined.seat == seat  # type: ignore[attr-defined]
        await again.expect("event", kind="host", data={"seat": seat})
        assert server.rooms[room].roster.host == seat
        assert (await again.reply(pr.Start(id=4))).TYPE == "ok"


async def test_a_player_who_joins_a_room_nobody_hosts_hosts_it_and_everyone_hears_so(
        autojump_clock: trio.abc.Clock) -> None:
    async with running(Limits(grace=30, heartbeat=3600)) as server:
        ann = await Raw.connect(server.port, "ann")
        room = (await ann.reply(pr.CreateRoom(name="t", seats=3, id=1))).room  # type: ignore[attr-defined]
        eve = await Raw.connect(server.port, "eve")
        await eve.reply(pr.Join(room=room, role="spectator", id=2))
        await ann.aclose()
        await eve.expect("event", kind="connection", data={"seat": 0, "state": "away"})
        assert server.rooms[room].roster.host is None
        bob = await Raw.connect(server.port, "bob")
        joined = await bob.reply(pr.Join(room=room, id=3))
        assert joined.seat == 1  # type: ignore[attr-defined]
        await eve.expect("event", kind="player_joined", data={"seat": 1, "name": "bob", "bot": False})
        await eve.expect("event", kind="host", data={"seat": 1})
        seats = await eve.expect("seats")
        assert seats.host == 1  # type: ignore[attr-defined]
        carl = await Raw.connect(server.port, "carl")
        await carl.reply(pr.Join(room=room, id=4))
        heard = []
        while not heard or heard[-1].TYPE != "seats" or len(heard[-1].seats[2]["name"] or "") == 0:  # type: ignore[attr-defined]
            msg = await eve.recv(5)
            assert msg is not None
            heard.append(msg)
        assert heard[-1].host == 1  # type: ignore[attr-defined]
        assert [m.kind for m in heard if m.TYPE == "event"] == ["player_joined"]  # type: ignore[attr-defined]


async def test_a_client_that_stops_reading_is_dropped_and_the_room_plays_on() -> None:
    limits = Limits(deal_pause=0.0, autopilot_delay=0.0, outbox=16, sndbuf=4096, heartbeat=3600,
                    request_rate=1e6, request_burst=1e6)
    async with running(limits, seed=21) as server:
        slow = await Raw.connect(server.port, "slow", rcvbuf=2048)
        joined = await slow.reply(pr.CreateRoom(name="t", seats=4, timer=1,
                                                options={"target_score": 400}, id=1))
        room_id = joined.room  # type: ignore[attr-defined]
        bots: list[Bot] = []

        async def one(i: int) -> None:
            stream = await trio.open_tcp_stream("127.0.0.1", server.port)
            bot = Bot(stream, name=f"b{i}", join=room_id)
            bots.append(bot)
            await bot.run(stop_after_match=True)

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for i in range(3):
                    nursery.start_soon(one, i)
                while not all(s.ready for s in server.rooms[room_id].roster.seats[1:]) or len(bots) < 3:
                    await trio.sleep(0.01)
                await slow.send(pr.Start(id=2))  # ...and never read again
        room = server.rooms[room_id]
        assert room.match.game.phase == "match_over" and all(b.matches == 1 for b in bots)
        assert room.roster.seats[0].member is None  # dropped, its seat kept for resume
        again = await Raw.connect(server.port, "slow")
        back = await again.reply(pr.Resume(token=slow.token or joined.token, seq=0, id=3))  # type: ignore[attr-defined]
        assert back.TYPE == "joined" and back.seat == 0  # type: ignore[attr-defined]


async def test_a_client_that_reads_late_gets_every_frame_whole_and_in_order() -> None:
    """Frames the socket cannot take wait in the session's backlog (some cut in the middle
    by a partial write) and go out, in order and whole, once the client reads again."""
    limits = dataclasses.replace(FAST, outbox=64, sndbuf=4096, heartbeat=3600)
    async with running(limits) as server:
        host = await Raw.connect(server.port, "host")
        joined = await host.reply(pr.CreateRoom(name="t", seats=3, id=1))
        late = await Raw.connect(server.port, "late", rcvbuf=2048)
        await late.send(pr.Join(room=joined.room))  # type: ignore[attr-defined]
        await late.expect("seats")
        for i in range(50):  # ~600 bytes of seats each to both members; "late" is not reading
            await host.send(pr.Ready(ready=i % 2 == 0, id=10 + i))
            await host.expect("ok")
        session = next(s for s in server.sessions if s.name == "late")
        assert session.outbox.backlog and not session.dropped  # the socket is full, the rest waits
        readies = []
        while len(readies) < 50:
            seats = await late.expect("seats")
            readies.append(seats.seats[0]["ready"])  # type: ignore[attr-defined]
        assert readies == [i % 2 == 0 for i in range(50)]
        assert not session.outbox.backlog and not session.outbox.partial  # all of it went out


# -- hostile and broken clients ----------------------------------------------------------


def frame(obj: Any) -> bytes:
    body = msgpack.packb(obj)
    return struct.pack(">I", len(body)) + body


@pytest.mark.parametrize(
    "data, code",
    [
        (struct.pack(">I", 5) + b"\xc1\xc1\xc1\xc1\xc1", "bad_frame"),  # garbage
        (struct.pack(">I", 50_000_000), "frame_too_large"),  # oversize length
        (frame([1, 2, 3]), "bad_frame"),  # not a map
        (frame({"type": "draw", "seq": 0}), "bad_state"),  # an action before the handshake
        (frame({"type": "hello", "versions": [99], "name": "x"}), "unsupported_version"),
    ],
)
async def test_bad_frames_get_an_error_and_a_close(data: bytes, code: str) -> None:
    async with running() as server:
        bad = await Raw.connect(server.port, hello=False)
        await bad.send_bytes(data)
        body = b""
        with trio.fail_after(5):
            while True:
                chunk = await bad.stream.receive_some(4096)
                if not chunk:
                    break
                body += chunk
        reply = msgpack.unpackb(body[4:], raw=False)
        assert reply["type"] == "error" and reply["code"] == code and reply["fatal"]
        # the server carries on
        good = await Raw.connect(server.port)
        assert (await good.reply(pr.ListRooms(id=1))).TYPE == "rooms"


async def test_bad_requests_after_the_handshake() -> None:
    async with running() as server:
        clients, room = await staged(
            server, 2,
            "rules: official; hand 0: R1 Y1 Y2; hand 1: R5 B2 B3; draw: B5 B6 B7 B8; discard: G3;"
            " turn: 0", preset="official")
        a, b = clients
        await a.send_bytes(frame({"type": "frobnicate", "id": 7}))
        assert (await a.expect("error")).code == "unknown_type"  # type: ignore[attr-defined]
        await a.send_bytes(frame({"type": "play", "seq": "x", "cards": ["R1"], "id": 8}))
        assert (await a.expect("error")).code == "bad_message"  # type: ignore[attr-defined]
        out_of_turn = await b.reply(pr.Draw(seq=room.seq, id=9))
        assert out_of_turn.code == "not_your_turn"  # type: ignore[attr-defined]
        not_held = await a.reply(pr.Play(seq=room.seq, cards=("G9",), id=10))
        assert not_held.code == "bad_play" and "G9" in not_held.message  # type: ignore[attr-defined]
        illegal = await a.reply(pr.Play(seq=room.seq, cards=("R1",), id=11))
        assert illegal.TYPE == "error" and "position" not in illegal.message  # type: ignore[attr-defined]
        assert "B2" not in illegal.message  # type: ignore[attr-defined]
        ahead = await a.reply(pr.Draw(seq=room.seq + 50, id=12))
        assert ahead.code == "illegal"  # type: ignore[attr-defined]
        assert (await a.reply(pr.Draw(seq=room.seq, id=13))).TYPE == "ok"


async def test_rate_chat_and_connection_limits() -> None:
    limits = Limits(request_rate=1, request_burst=5, max_connections=3, max_strikes=100)
    async with running(limits) as server:
        a = await Raw.connect(server.port)
        await a.reply(pr.CreateRoom(name="t", seats=2, id=1))
        for i in range(4):
            assert (await a.reply(pr.Chat(text=f"hi {i}", id=10 + i))).TYPE == "ok"
        await a.send(pr.ListRooms(id=20))
        assert (await a.expect("error", id=20)).code == "rate_limited"  # type: ignore[attr-defined]
        with pytest.raises(pr.LocalProtocolError):
            pr.Chat(text="x" * 301)
        await a.send_bytes(frame({"type": "chat", "text": "x" * 301}))
        assert (await a.expect("error")).code in ("bad_message", "rate_limited")  # type: ignore[attr-defined]
        b = await Raw.connect(server.port)
        c = await Raw.connect(server.port)
        full = await Raw.connect(server.port, hello=False)
        assert await full.closed()
        assert any(getattr(m, "code", "") == "server_full" for m in full.seen)
        del b, c


async def test_an_unknown_request_type_is_no_protocol_error_but_spends_the_request_budget() -> None:
    """A client may try a request of a newer protocol and fall back: ``unknown_type`` does
    not count toward the protocol error budget (a bad message does), but it is a request."""
    async with running(Limits(max_strikes=3, request_rate=1e6, request_burst=1e6)) as server:
        a = await Raw.connect(server.port)
        for i in range(10):
            await a.send_bytes(frame({"type": "rematch", "id": i}))
            assert (await a.expect("error", id=i)).code == "unknown_type"  # type: ignore[attr-defined]
        assert (await a.reply(pr.ListRooms(id=20))).TYPE == "rooms"  # still connected
        for i in range(3):
            await a.send_bytes(frame({"type": "chat", "text": 5, "id": 30 + i}))
        assert await a.closed()  # three bad messages: the budget is spent
        assert [m.code for m in a.seen if m.TYPE == "error"][-4:] == [  # type: ignore[attr-defined]
            "bad_message", "bad_message", "bad_message", "bad_message"]
    async with running(Limits(request_rate=0.001, request_burst=2, max_strikes=100)) as server:
        b = await Raw.connect(server.port)
        codes = []
        for i in range(3):
            await b.send_bytes(frame({"type": "rematch", "id": i}))
            codes.append((await b.expect("error", id=i)).code)  # type: ignore[attr-defined]
        assert codes == ["unknown_type", "unknown_type", "rate_limited"]


async def test_add_bot_refuses_a_level_the_server_does_not_run() -> None:
    async with running(bot_levels=("basic", "greedy")) as server:
        host = await Raw.connect(server.port, "ann")
        room = server.rooms[(await host.reply(pr.CreateRoom(name="den", seats=3, id=1))).room]  # type: ignore[attr-defined]
        refused = await host.reply(pr.AddBot(level="grandmaster", id=2))
        assert refused.code == "unknown_level"  # type: ignore[attr-defined]
        assert "basic, greedy" in refused.message  # type: ignore[attr-defined]
        assert room.roster.seats[1].kind == "empty"  # nothing changed
        assert (await host.reply(pr.AddBot(level="greedy", id=3))).TYPE == "ok"
        assert (await host.reply(pr.AddBot(id=4))).TYPE == "ok"  # no level: basic
        assert [s.level for s in room.roster.seats] == [None, "greedy", "basic"]
    async with running() as server:  # the built-in bot plays basic only
        host = await Raw.connect(server.port, "bob")
        await host.reply(pr.CreateRoom(name="den", seats=2, id=1))
        assert (await host.reply(pr.AddBot(level="greedy", id=2))).code == "unknown_level"  # type: ignore[attr-defined]


async def test_chat_line_rate() -> None:
    async with running(Limits(chat_rate=0.1, chat_burst=2)) as server:
        a = await Raw.connect(server.port)
        await a.reply(pr.CreateRoom(name="t", seats=2, id=1))
        codes = [(await a.reply(pr.Chat(text="hey", id=2 + i))).TYPE for i in range(3)]
        assert codes == ["ok", "ok", "error"]
        assert a.seen[-1].code == "rate_limited"  # type: ignore[attr-defined]


async def test_empty_rooms_expire(autojump_clock: trio.abc.Clock) -> None:
    async with running(Limits(room_idle=30, heartbeat=3600)) as server:
        a = await Raw.connect(server.port)
        await a.reply(pr.CreateRoom(name="t", seats=2, id=1))
        await a.reply(pr.AddBot(id=2))
        assert len(server.rooms) == 1
        await a.reply(pr.Leave(id=3))
        await trio.sleep(31)
        assert server.rooms == {}


# -- the contract's tables ----------------------------------------------------------------


def test_every_engine_refusal_code_is_in_the_protocol_table() -> None:
    """The server forwards the engine's codes unchanged: each must be documented."""
    from unolan.engine import game, legal

    source = inspect.getsource(game) + inspect.getsource(legal)
    codes = set(re.findall(r'_illegal\([^)]*?"([a-z_]+)"\)', source, re.S))
    codes |= set(re.findall(r'return f?"[^"\n]*", "([a-z_]+)"$', source, re.M))  # a judge's (reason, code)
    faults = re.search(r"\bFAULT_CODES = \{(.*?)\}", source, re.S)
    assert faults
    codes |= set(re.findall(r':\s*"([a-z_]+)"', faults.group(1))) | {"bad_play", "illegal"}
    assert {"misplay", "not_your_turn", "cannot_catch"} <= codes
    assert codes <= set(pr.SERVER_CODES), codes - set(pr.SERVER_CODES)


def test_the_documented_default_port_is_the_servers() -> None:
    doc = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()
    ports = set(re.findall(r"default port (\d+)", doc))
    assert ports == {str(DEFAULT_PORT)}


# -- persistence --------------------------------------------------------------------------


async def _act_legally(room: Any, clients: list[Raw], steps: int) -> int:
    """Play ``steps`` actions from the seat in turn (chosen from the server's own game)."""
    done = 0
    while done < steps:
        game = room.match.game
        if game.phase == "match_over":
            break
        if game.phase == "round_over":
            await trio.sleep(0.01)  # the server deals after its pause
            continue
        seat = game.turn
        action = choose(game.legal_actions(seat), game.hands[seat], turn=True)
        assert action is not None
        msg = _to_message(action, room.seq)
        reply = await clients[seat].reply(msg)
        assert reply.TYPE == "ok", reply
        done += 1
    return done


def _to_message(action: en.Action, seq: int) -> pr.Message:
    return dataclasses.replace(to_message(action, seq), id=77)  # type: ignore[type-var]


# Limits for the restart tests: play goes as fast as the test drives it, nothing times out.
RESTART_LIMITS = Limits(deal_pause=0.0, autopilot_delay=600, grace=600, heartbeat=3600,
                        request_rate=1e6, request_burst=1e6)


async def test_a_restarted_server_resumes_its_rooms_from_the_database(tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    limits = RESTART_LIMITS
    async with running(limits, seed=4, db_path=db) as server:
        clients, room_id = await table(server, 3, "party", target_score=60)
        room = server.rooms[room_id]
        await _act_legally(room, clients, 25)
        await settle(*clients)
        views = [room.match.game.view(s).to_dict() for s in range(3)]
        tokens = [c.token for c in clients]
        seq, actions = room.seq, room.actions
    assert actions >= 25
    # A new server on the same file: the room is back, its match replayed to the same point;
    # its seq goes on above every seq given out before (none can mean two things).
    async with running(limits, seed=4, db_path=db) as server:
        room = server.rooms[room_id]
        assert room.started and room.actions == actions and room.seq == seq + limits.restart_gap
        assert [room.match.game.view(s).to_dict() for s in range(3)] == views
        assert [s.state for s in room.roster.seats] == ["away"] * 3
        clients = []
        for i, token in enumerate(tokens):
            c = await Raw.connect(server.port, f"p{i}")
            joined = await c.reply(pr.Resume(token=token, seq=seq, id=1))
            assert joined.TYPE == "joined" and joined.seat == i  # type: ignore[attr-defined]
            await c.drain()  # a snapshot (the room restarted), then the seats coming back
            (snap,) = [m for m in c.seen if m.TYPE == "snapshot"]
            assert wire(snap.view) == views[i] and snap.seq == joined.seq  # type: ignore[attr-defined]
            assert [m.seq for m in c.seen if m.TYPE == "event"] == [snap.seq + 1]  # type: ignore[attr-defined]
            clients.append(c)
        # a stale seq from before the restart is too late; the match goes on to its end
        stale = await clients[room.match.game.turn].reply(pr.Draw(seq=seq - 1, id=5))
        assert stale.code == "too_late"  # type: ignore[attr-defined]
        with trio.fail_after(30):
            await _act_legally(room, clients, 10_000)
        assert room.match.game.phase == "match_over" and not room.started
        # a new room does not take the restored room's id
        other = await Raw.connect(server.port, "q")
        assert (await other.reply(pr.CreateRoom(name="u", seats=2, id=1))).room != room_id  # type: ignore[attr-defined]


async def test_a_match_over_when_the_server_stopped_is_kept_in_the_history_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match is kept once its last races settle; a server stopped before that keeps it
    when it restarts (and a match kept already is not kept twice), as it ended: the seat a
    program played is a bot's, and it ended when it did, not at the restart."""
    import datetime

    from unolan.server import history

    db = tmp_path / "server.db"
    limits = RESTART_LIMITS
    async with running(limits, seed=4, db_path=db) as server:
        clients, room_id = await table(server, 2, "official", programs=(1,), target_score=30)
        room = server.rooms[room_id]
        with trio.fail_after(30):
            await _act_legally(room, clients, 10_000)
        assert room.match.game.phase == "match_over"
        scores = list(room.match.game.scores)
        with trio.fail_after(5):  # kept once its last races are over
            while not history.list_matches(reader := history.open_history(db)):
                await trio.sleep(0.05)
    (kept,) = history.list_matches(reader)
    assert kept.room == room_id and kept.scores == scores
    assert [s.bot for s in kept.seats] == [False, True]
    later = datetime.datetime.fromisoformat(kept.ended) + datetime.timedelta(hours=1)
    monkeypatch.setattr(history, "now", lambda: later)  # the restarts come an hour later
    # As if the server had stopped before keeping it: the history has no such match.
    with sqlite3.connect(history.history_path(db)) as writer:
        for name in ("matches", "actions"):
            writer.execute(f"DELETE FROM {name}")
    for _restart in range(2):
        async with running(limits, seed=4, db_path=db) as server:
            assert not server.rooms[room_id].started
        with history.open_history(db) as reader:
            (again,) = history.list_matches(reader)
            assert again.id == kept.id and again.scores == scores
            assert again.ended == kept.ended and [s.bot for s in again.seats] == [False, True]
            assert len(history.load_match(reader, kept.id).actions) == room.actions


async def test_the_store_keeps_settings_tokens_and_hashed_passwords(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with running(db_path=db, bot_levels=("basic", "greedy")) as server:
        host = await Raw.connect(server.port, "ann")
        joined = await host.reply(pr.CreateRoom(name="den", seats=3, password="sesame", timer=20,
                                                preset="official", id=1))
        assert (await host.reply(pr.AddBot(level="greedy", id=2))).TYPE == "ok"
        await settle(host)
    store = Store(db)
    async with trio.open_nursery() as nursery:
        await nursery.start(store.run)
        (record,) = (await store.load()).rooms
        nursery.cancel_scope.cancel()
    assert record.id == joined.room and record.name == "den" and record.timer == 20  # type: ignore[attr-defined]
    assert record.rules == en.Rules.preset("official").to_dict() and record.match_seed is None
    assert record.password and "sesame" not in record.password
    assert "sesame" not in db.read_bytes().decode("latin-1")
    kinds = [(r.kind, r.token_hash is not None, r.level) for r in record.seat_records]
    assert kinds == [("human", True, None), ("bot", True, "greedy"), ("empty", False, None)]
    # tokens at rest: only their hashes, never the tokens themselves
    assert record.seat_records[0].token_hash == token_hash(joined.token)  # type: ignore[attr-defined]
    assert joined.token not in db.read_bytes().decode("latin-1")  # type: ignore[attr-defined]
    # after a restart the password still works, and only the right one
    async with running(db_path=db) as server:
        guest = await Raw.connect(server.port, "bob")
        assert (await guest.reply(pr.Join(room=record.id, password="nope", id=1))).code == "bad_password"  # type: ignore[attr-defined]
        assert (await guest.reply(pr.Join(room=record.id, password="sesame", id=2))).TYPE == "joined"


def test_uno_host_database_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse

    from unolan.server.cli import add_parser, db_for

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    assert db_for(parser.parse_args(["host"])) == str(tmp_path / "unolan" / "server.db")
    assert db_for(parser.parse_args(["host", "--db", "x.db"])) == "x.db"
    assert db_for(parser.parse_args(["host", "--db", ""])) is None
    assert db_for(parser.parse_args(["host", "--no-db"])) is None


def recording_launcher() -> tuple[list[dict[str, Any]], Callable[..., Awaitable[None]]]:
    """A bot launcher that starts no bot: what it was asked to launch, and the launcher
    (a test connects as the bot with the token)."""
    launched: list[dict[str, Any]] = []

    async def launcher(**kw: Any) -> None:
        launched.append(kw)
        await trio.sleep_forever()

    return launched, launcher


async def test_a_bot_resuming_before_the_match_gets_the_events_it_missed() -> None:
    launched, launcher = recording_launcher()
    async with running(bot_launcher=launcher) as server:
        host = await Raw.connect(server.port, "ann")
        await host.reply(pr.CreateRoom(name="t", seats=3, id=1))
        assert (await host.reply(pr.AddBot(id=2))).TYPE == "ok"
        await host.reply(pr.Chat(text="hi", id=3))
        await settle(host)
        bot = await Raw.connect(server.port, "bot")
        joined = await bot.reply(pr.Resume(token=launched[0]["token"], seq=0, id=1))
        await bot.drain()
        seqs = [m.seq for m in bot.seen if m.TYPE == "event"]  # type: ignore[attr-defined]
        assert seqs == list(range(1, joined.seq + 1))  # type: ignore[attr-defined]


async def test_a_server_bot_shows_connected_from_the_start_and_its_connection_changes_nothing() -> None:
    """A bot the server runs never looks like a player who went away: its seat is
    connected as soon as it is added, and its own connection arriving sends no seats
    and no connection event to the others."""
    launched, launcher = recording_launcher()
    async with running(bot_launcher=launcher) as server:
        host = await Raw.connect(server.port, "ann")
        await host.reply(pr.CreateRoom(name="t", seats=2, id=1))
        assert (await host.reply(pr.AddBot(id=2))).TYPE == "ok"
        seats = await host.expect("seats")
        assert seats.seats[1]["kind"] == "bot" and seats.seats[1]["state"] == "connected"  # type: ignore[attr-defined]
        await settle(host)
        before = len(host.seen)
        bot = await Raw.connect(server.port, "bot")
        await bot.reply(pr.Resume(token=launched[0]["token"], seq=0, id=1))
        await bot.drain()
        assert (await host.reply(pr.Ping(id=3))).TYPE == "pong"  # the room has handled the resume
        assert [m.TYPE for m in host.seen[before:]] == ["pong"]
        assert [m.seats[1]["state"] for m in bot.seen if m.TYPE == "seats"] == ["connected"]  # type: ignore[attr-defined]


# -- the edges a player meets ------------------------------------------------------------


async def test_rules_the_seats_cannot_play_are_refused_before_a_room_exists() -> None:
    async with running() as server:
        host = await Raw.connect(server.port, "ann")
        await host.send_bytes(frame({"type": "create_room", "name": "t", "seats": 3,
                                     "options": {"partner_rotation": True}, "id": 1}))
        refused = await host.expect("error")
        assert refused.code == "bad_message"  # type: ignore[attr-defined]
        assert "partner rotation is played by 4 players at one table or 8 at two, not 3" in refused.message  # type: ignore[attr-defined]
        await host.send_bytes(frame({"type": "create_room", "name": "t", "seats": 4, "teams": 3,
                                     "id": 2}))
        refused = await host.expect("error")
        assert "4 players cannot sit as 3 teams" in refused.message  # type: ignore[attr-defined]
        assert server.rooms == {}  # no ghost room
        listing = await host.reply(pr.ListRooms(id=3))
        assert listing.rooms == ()  # type: ignore[attr-defined]


async def test_a_client_that_says_it_is_a_bot_shows_as_one() -> None:
    async with running() as server:
        host = await Raw.connect(server.port, "ann")
        joined = await host.reply(pr.CreateRoom(name="t", seats=2, id=1))
        program = await Raw.connect(server.port, hello=False)
        await program.stream.send_all(program.conn.hello("greedy", bot=True))
        await program.expect("welcome")
        await program.reply(pr.Join(room=joined.room, id=1))  # type: ignore[attr-defined]
        event = await host.expect("event", kind="player_joined", data={"seat": 1})
        assert event.data["bot"] is True  # type: ignore[attr-defined]
        seats = await host.expect("seats")
        assert [(s["kind"], s["bot"]) for s in seats.seats] == [("human", False), ("human", True)]  # type: ignore[attr-defined]


async def test_a_ready_that_changes_nothing_is_answered_and_sends_nobody_anything(
        autojump_clock: trio.abc.Clock) -> None:
    """Only a change of a seat's readiness goes to the room (and to the disk): a client
    repeating ``ready`` gets its ``ok``, and the others no new ``seats``."""
    async with running() as server:
        host = await Raw.connect(server.port, "host")
        room = (await host.reply(pr.CreateRoom(name="t", seats=3, id=1))).room  # type: ignore[attr-defined]
        guest = await Raw.connect(server.port, "guest")
        await guest.reply(pr.Join(room=room, id=1))
        assert (await guest.reply(pr.Ready(id=2))).TYPE == "ok"
        await settle(host, guest)
        seen = len(host.seen)
        queued = server.store.queued if server.store is not None else 0
        for n in range(3, 6):
            assert (await guest.reply(pr.Ready(id=n))).TYPE == "ok"
        await settle(host, guest)
        assert [m.TYPE for m in host.seen[seen:] if m.TYPE != "ping"] == []
        assert (server.store.queued if server.store is not None else 0) == queued
        assert (await guest.reply(pr.Ready(ready=False, id=6))).TYPE == "ok"  # a change: said
        seats = await host.expect("seats")
        assert [s["ready"] for s in seats.seats] == [False, False, False]  # type: ignore[attr-defined]


async def test_ready_takes_a_seat_back_from_the_autopilot(autojump_clock: trio.abc.Clock) -> None:
    """Two turns run out: each is announced, then the server plays the seat; the player
    says ``ready`` and the seat is theirs again (no play needed within the autopilot's
    think time)."""
    limits = Limits(deal_pause=1.0, autopilot_delay=0.5, heartbeat=3600)
    async with running(limits) as server:
        clients, room_id = await table(server, 2, "official", timer=10)
        room = server.rooms[room_id]
        first = room.match.game.turn
        player = clients[first]
        while not room.roster.seats[first].autopilot:
            await trio.sleep(1)
        await settle(*clients)
        timeouts = [m.data["seat"] for m in player.seen if m.TYPE == "event" and m.kind == "timeout"]  # type: ignore[attr-defined]
        assert timeouts.count(first) == 2
        assert (await player.reply(pr.Ready(id=40))).TYPE == "ok"
        await clients[1 - first].expect("event", kind="connection", data={"seat": first, "state": "connected"})
        assert not room.roster.seats[first].autopilot and room.roster.seats[first].state == "connected"


async def test_after_a_restart_a_players_turn_waits_for_them(tmp_path: Path, thread_clock: trio.abc.Clock) -> None:
    """The restored room does not play a human's turn at once: the owner has the restore
    grace to come back (then plays it), and only a seat whose owner stays away is played."""
    db = tmp_path / "server.db"
    limits = Limits(deal_pause=0.0, autopilot_delay=0.5, restore_grace=15, grace=600,
                    heartbeat=3600)
    async with running(limits, seed=4, db_path=db) as server:
        clients, room_id = await table(server, 3, "official")
        room = server.rooms[room_id]
        turn, actions = room.match.game.turn, room.actions
        token = clients[turn].token
        await settle(*clients)
    async with running(limits, seed=4, db_path=db) as server:
        room = server.rooms[room_id]
        await trio.sleep(10)
        assert room.actions == actions and room.match.game.turn == turn  # nobody played for them
        back = await Raw.connect(server.port, "again")
        assert (await back.reply(pr.Resume(token=token, seq=room.seq, id=1))).TYPE == "joined"
        await trio.sleep(30)  # past the grace: still their turn, and theirs to play
        assert room.actions == actions and room.match.game.turn == turn
        action = choose(room.match.game.legal_actions(turn), room.match.game.hands[turn], turn=True)
        assert (await back.reply(_to_message(action, room.seq))).TYPE == "ok"
        # the next seat's owner did not come back within the grace: the server plays it
        await trio.sleep(1)
        assert room.actions > actions + 1


async def test_two_people_of_one_name_are_told_apart() -> None:
    """A second "ann" at the table is "ann (2)" in the seats and in every line about her;
    a spectator of that name too."""
    async with running() as server:
        first = await Raw.connect(server.port, "ann")
        room = (await first.reply(pr.CreateRoom(name="t", seats=3, id=1))).room  # type: ignore[attr-defined]
        second = await Raw.connect(server.port, "ann")
        await second.reply(pr.Join(room=room, id=1))
        while (joined := await first.expect("event", kind="player_joined")).data["seat"] != 1:  # type: ignore[attr-defined]
            pass  # her own, first
        assert joined.data["name"] == "ann (2)"  # type: ignore[attr-defined]
        seats = await first.expect("seats")
        assert [s["name"] for s in seats.seats][:2] == ["ann", "ann (2)"]  # type: ignore[attr-defined]
        third = await Raw.connect(server.port, "ann")
        await third.reply(pr.Join(room=room, role="spectator", id=1))
        assert (await first.expect("event", kind="player_joined")).data["name"] == "ann (3)"  # type: ignore[attr-defined]
        await second.reply(pr.Chat(text="hi", id=2))
        assert (await first.expect("event", kind="chat")).data["name"] == "ann (2)"  # type: ignore[attr-defined]
