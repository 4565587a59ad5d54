"""The UI's networking side (Trio, running as the asyncio loop's guest).

It owns one TCP connection at a time, speaks the protocol through the sans-IO
:class:`unolan.protocol.Connection`, keeps the table in a client :class:`Mirror`, and
writes everything the screen needs into the :class:`UIState`. Commands from the keys
arrive on a channel and become protocol messages; every game action carries the room
seq of the last event this seat saw (the table it was decided on). Losing the server
shows "reconnecting" and resumes the seat with its token.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio
from unolan.client.mirror import Mirror, SeqGap

from unolan import engine as en
from unolan import protocol as pr

from .state import Act, Command, Request, Say, UIState

log = logging.getLogger("unolan.client.tui")

RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0, 3.0)
CONNECT_TIMEOUT = 5.0


@dataclass
class AutoStart:
    """For ``uno play``: create a room, seat ``bots`` bots and start, all at once."""

    bots: int = 3
    preset: str = "house"
    options: dict[str, Any] | None = None
    room_name: str = "table"
    timer: int = 0


class Lost(Exception):
    """The connection is gone (closed, reset, or refused by a fatal error)."""


# Whatever ends one connection (the loop then reconnects).
LOST = (Lost, OSError, trio.BrokenResourceError, trio.ClosedResourceError, trio.TooSlowError,
        pr.ProtocolError)


def to_message(action: en.Action, seq: int, id: int | None = None) -> pr.Message | None:
    """The protocol message for an engine action decided at ``seq``."""
    if isinstance(action, en.Play):
        return pr.Play(seq=seq, cards=tuple(c.text for c in action.cards),
                       color=action.color.value if action.color else None,
                       target=action.target, uno=action.uno, id=id)
    simple = {en.Draw: pr.Draw, en.Pass: pr.Pass, en.CallUno: pr.CallUno,
              en.Challenge: pr.Challenge}
    if type(action) in simple:
        return simple[type(action)](seq=seq, id=id)
    if isinstance(action, en.Catch):
        return pr.Catch(seq=seq, target=action.target, id=id)
    if isinstance(action, en.ChooseColor):
        return pr.ChooseColor(seq=seq, color=action.color.value, id=id)
    return None  # Deal: the server deals the next round itself


def to_request(request: Request, id: int) -> pr.Message:
    p = dict(request.params)
    kinds: dict[str, Callable[..., pr.Message]] = {
        "list_rooms": pr.ListRooms, "create_room": pr.CreateRoom, "join": pr.Join,
        "leave": pr.Leave, "ready": pr.Ready, "start": pr.Start, "add_bot": pr.AddBot,
        "remove_bot": pr.RemoveBot, "sync": pr.Sync,
    }
    return kinds[request.kind](**p, id=id)


class NetClient:
    """One player's connection to a server, feeding a :class:`UIState`."""

    def __init__(self, state: UIState, host: str, port: int, name: str,
                 invalidate: Callable[[], None], auto: AutoStart | None = None) -> None:
        self.state = state
        self.host, self.port, self.name = host, port, name
        self.invalidate = invalidate
        self.auto = auto
        self.ids = itertools.count(1)
        self.token: str | None = None
        self.mirror: Mirror | None = None
        self.joined_seq = 0
        self.conn: pr.Connection | None = None
        self.stream: trio.abc.Stream | None = None
        self.send_lock = trio.Lock()
        self.first_table = trio.Event()  # set when the first table is drawn (for timing)
        self._pending: list[pr.Message] = []

    # -- the loop: connect, run, reconnect ------------------------------------------------

    async def run(self, commands: trio.MemoryReceiveChannel[Command]) -> None:
        attempt = 0
        while True:
            self.state.set_status("connecting" if attempt == 0 and self.token is None
                                  else "reconnecting", f"{self.host}:{self.port}")
            self.invalidate()
            try:
                await self._session(commands)
                return  # an orderly end (bye)
            except LOST as exc:
                detail = str(exc) or type(exc).__name__
                log.debug("connection lost: %s", detail)
                if attempt == 0 and self.token is None and self.mirror is None and not isinstance(exc, Lost):
                    self.state.set_status("offline", f"cannot reach {self.host}:{self.port}: {detail}")
                else:
                    self.state.set_status("reconnecting", detail)
            finally:
                if self.stream is not None:
                    await trio.aclose_forcefully(self.stream)
                    self.stream = None
            self.invalidate()
            await trio.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
            attempt += 1
            self._drop_stale(commands)

    def _drop_stale(self, commands: trio.MemoryReceiveChannel[Command]) -> None:
        """Actions pressed while disconnected were decided on an old table: drop them."""
        while True:
            try:
                command = commands.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                return
            if isinstance(command, Act):
                self.state.notify("not sent: the connection was lost")

    async def _session(self, commands: trio.MemoryReceiveChannel[Command]) -> None:
        with trio.fail_after(CONNECT_TIMEOUT):
            self.stream = await trio.open_tcp_stream(self.host, self.port)
            self.conn = pr.Connection(pr.CLIENT)
            await self._write(self.conn.hello(self.name, client="unolan-tui"))
            msg = await self._next()
        if isinstance(msg, pr.Error):
            raise Lost(f"refused: {msg.message}")
        if not isinstance(msg, pr.Welcome):
            raise Lost(f"expected welcome, got {msg.TYPE}")
        self.state.set_status("connected", f"{self.host}:{self.port}")
        if self.token is not None:
            seq = self.mirror.seq if self.mirror is not None and self.mirror.seq is not None \
                else self.joined_seq
            await self.send(pr.Resume(token=self.token, seq=seq, id=next(self.ids)))
        elif self.auto is not None:
            a = self.auto
            await self.send(pr.CreateRoom(name=a.room_name[:40], preset=a.preset,
                                          options=a.options or {}, seats=a.bots + 1,
                                          timer=a.timer, id=next(self.ids)))
        else:
            await self.send(pr.ListRooms(id=next(self.ids)))
        self.invalidate()
        failure: BaseException | None = None

        async with trio.open_nursery() as nursery:

            async def guard(fn: Callable[..., Awaitable[None]], *args: Any) -> None:
                nonlocal failure
                try:
                    await fn(*args)
                except LOST as exc:
                    failure = failure or exc
                finally:
                    nursery.cancel_scope.cancel()

            nursery.start_soon(guard, self._writer, commands)
            nursery.start_soon(guard, self._reader)
        if failure is not None:
            raise failure

    # -- bytes ----------------------------------------------------------------------------

    async def _write(self, data: bytes) -> None:
        assert self.stream is not None
        async with self.send_lock:
            await self.stream.send_all(data)

    async def send(self, msg: pr.Message) -> None:
        assert self.conn is not None
        await self._write(self.conn.send(msg))

    async def _next(self) -> pr.Message:
        conn, stream = self.conn, self.stream
        assert conn is not None and stream is not None
        while True:
            event = conn.next_event()
            if event is pr.NEED_DATA:
                data = await stream.receive_some(65536)
                conn.receive_data(data)
                continue
            if event is pr.CONNECTION_CLOSED:
                raise Lost("the server closed the connection")
            return event  # type: ignore[return-value]

    # -- from the keys ---------------------------------------------------------------------

    async def _writer(self, commands: trio.MemoryReceiveChannel[Command]) -> None:
        async for command in commands:
            try:
                msg = self._message(command)
            except (ValueError, pr.ProtocolError) as exc:
                self.state.notify(f"not sent: {exc}")
                self.invalidate()
                continue
            if msg is not None:
                await self.send(msg)

    def _message(self, command: Command) -> pr.Message | None:
        s = self.state
        if isinstance(command, Act):
            if self.mirror is None or self.mirror.seq is None:
                s.notify("no game yet")
                return None
            msg = to_message(command.action, self.mirror.seq, next(self.ids))
            if msg is None:
                s.notify("the server deals the next round in a moment", "info")
            return msg
        if isinstance(command, Say):
            return pr.Chat(text=command.text, id=next(self.ids))
        if command.kind == "leave":
            self.token, self.mirror = None, None
        return to_request(command, next(self.ids))

    # -- from the server -------------------------------------------------------------------

    async def _reader(self) -> None:
        while True:
            msg = await self._next()
            bye = await self._dispatch(msg)
            await self.flush()
            self.invalidate()
            if bye:
                return

    async def _dispatch(self, msg: pr.Message) -> bool:
        s = self.state
        if isinstance(msg, pr.Event):
            self._on_event(msg)
        elif isinstance(msg, pr.Seats):
            self._on_seats(msg)
        elif isinstance(msg, pr.Snapshot):
            if self.mirror is None:
                self.mirror = Mirror.from_view(dict(msg.view), msg.seq)
            else:
                self.mirror.load(dict(msg.view), msg.seq)
            self._show_table()
        elif isinstance(msg, pr.Joined):
            self.token = msg.token
            self.joined_seq = msg.seq
            s.room_id, s.my_seat = msg.room, msg.seat
            if self.mirror is None or self.mirror.seat != msg.seat:
                self.mirror = Mirror(msg.seat)
            if self.mirror.seq is None:
                self.mirror.seq = msg.seq
        elif isinstance(msg, pr.Rooms):
            s.rooms = [dict(r) for r in msg.rooms]
            s.room_cursor = min(s.room_cursor, max(0, len(s.rooms) - 1))
        elif isinstance(msg, pr.Error):
            if msg.code == "bad_token":
                self.token, self.mirror = None, None
                s.view, s.room, s.room_id = None, None, None
                await self.send(pr.ListRooms(id=next(self.ids)))
            s.on_error(msg.code, msg.message)
            if msg.fatal:
                raise Lost(msg.message)
        elif isinstance(msg, pr.Ping):
            await self.send(pr.Pong(id=msg.id))
        elif isinstance(msg, pr.Bye):
            s.set_status("offline", msg.reason or "the server said goodbye")
            return True
        return False

    def _on_seats(self, msg: pr.Seats) -> None:
        s = self.state
        data = {
            "seq": msg.seq, "room": msg.room, "name": msg.name, "host": msg.host,
            "seats": [dict(x) for x in msg.seats], "spectators": msg.spectators,
            "started": msg.started, "rules": dict(msg.rules), "timer": msg.timer,
        }
        s.set_seats(data)
        if self.mirror is not None and not self.mirror.rules:
            self.mirror.set_rules(dict(msg.rules))
        auto = self.auto
        if auto is not None and not msg.started and msg.host == s.my_seat and s.view is None:
            # uno play: fill the empty seats with bots, then start (once).
            self.auto = None
            empty = [x for x in msg.seats if x["kind"] == "empty"]
            for _ in empty:
                self._queue(pr.AddBot(id=next(self.ids)))
            self._queue(pr.Start(id=next(self.ids)))

    def _queue(self, msg: pr.Message) -> None:
        """Send after the current message is handled (the reader flushes)."""
        self._pending.append(msg)

    def _on_event(self, msg: pr.Event) -> None:
        s, m = self.state, self.mirror
        data = dict(msg.data)
        if m is not None:
            try:
                if not m.feed(msg.seq, msg.kind, msg.data):
                    return  # already seen (a resume replays from our last seq)
            except SeqGap:
                self._queue(pr.Sync(id=next(self.ids)))
                m.seq = msg.seq
        s.on_event(msg.kind, data)
        self._show_table()

    def _show_table(self) -> None:
        m = self.mirror
        if m is not None and m.started and m.top is not None and m.rules:
            self.state.set_view(m.view())
            self.first_table.set()

    async def flush(self) -> None:
        while self._pending:
            await self.send(self._pending.pop(0))


async def network(
    state: UIState,
    commands: trio.MemoryReceiveChannel[Command],
    invalidate: Callable[[], None],
    *,
    host: str,
    port: int,
    name: str,
    auto: AutoStart | None = None,
    on_client: Callable[[NetClient], None] | None = None,
) -> None:
    """The guest's main: run one player's connection until the UI quits."""
    client = NetClient(state, host, port, name, invalidate, auto)
    if on_client is not None:
        on_client(client)
    await client.run(commands)
