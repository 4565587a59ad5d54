"""The server: listeners, one handler per connection, the lobby, and :func:`serve`.

Each connection is a :class:`Session`: a reader (the handler task itself) that decodes
frames with the sans-IO :class:`~unolan.protocol.Connection` and forwards requests.
Everything sent to a client goes through :meth:`Session.push`, which never waits: the
frame goes into the non-blocking socket at once, and what the socket cannot take waits
in a small bounded backlog that a writer task, started only while there is one, sends as
the socket drains. A client whose backlog is full has stopped reading and is dropped
(its seat waits for a ``resume``), so it never slows its room. While a room handles a
command, each member's frames are gathered and written in one system call at its end.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import socket
from collections import deque
from collections.abc import Awaitable, Sequence
from functools import partial
from typing import Any, Protocol

import trio

from unolan import __version__
from unolan import engine as en
from unolan import protocol as pr

from .bot import LEVELS as BOT_LEVELS
from .limits import DEFAULT_PORT, Limits, TokenBucket
from .room import LOBBY_REQUESTS, Room
from .store import Store, hash_password

log = logging.getLogger("unolan.server")

SERVER_NAME = f"unolan {__version__}"


class BotLauncher(Protocol):
    """Runs one bot until it is done; the server cancels it when the bot is removed.

    The bot connects to ``host``:``port`` like any client, says ``hello`` and sends
    ``resume`` with ``token`` (seq 0) to take ``seat`` in ``room``.
    """

    def __call__(self, *, host: str, port: int, room: str, seat: int, token: str,
                 name: str, level: str) -> Awaitable[None]: ...


class Session:
    """One client connection, seen from the server."""

    __slots__ = (
        "backlog",
        "bot",
        "bucket",
        "chat_bucket",
        "conn",
        "corked",
        "drained",
        "dropped",
        "fd",
        "joining",
        "name",
        "number",
        "nursery",
        "partial",
        "room",
        "scope",
        "seat",
        "server",
        "shut",
        "stream",
        "strikes",
        "token",
        "writing",
    )

    def __init__(self, server: Server, stream: trio.SocketStream, number: int) -> None:
        self.server = server
        self.stream = stream
        self.fd = stream.socket.fileno()
        self.number = number
        limits = server.limits
        self.conn = pr.Connection(pr.SERVER, max_frame_size=limits.max_frame)
        self.bucket = TokenBucket(limits.request_rate, limits.request_burst)
        self.chat_bucket = TokenBucket(limits.chat_rate, limits.chat_burst)
        self.name = f"guest{number}"
        self.bot = False  # the client said in its hello that a program plays
        self.room: Room | None = None
        self.joining: Room | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.strikes = 0
        self.dropped = False  # we ended it (slow, dead, replaced): no farewell frame
        self.shut = False  # no more frames are taken (closing, dropped or gone)
        # Frames the socket did not take yet, in order; the writer task (started only
        # while there are some) sends them as the socket drains.
        self.backlog: deque[bytes | memoryview] | None = None
        self.partial = False  # half a frame is out: anything sent outside the backlog would garble it
        self.writing = False  # the writer task is running
        self.drained: trio.Event | None = None  # set when the backlog is empty
        self.corked: list[bytes] | None = None  # frames held until the room's command ends
        self.nursery: trio.Nursery | None = None
        self.scope: trio.CancelScope | None = None

    def __repr__(self) -> str:
        return f"<Session {self.number} {self.name!r}>"

    # -- sending (never waits) ---------------------------------------------------------
    #
    # A frame goes straight into the socket (non-blocking) when nothing is waiting before
    # it. What the socket does not take waits in the backlog, drained by a writer task;
    # a client whose backlog reaches ``limits.outbox`` frames has stopped reading and is
    # dropped (its seat waits for a ``resume``), so it never slows its room. While a room
    # handles a command the server is *corked*: each member's frames of that command are
    # gathered and written at its end in one system call.

    def push(self, frame: bytes) -> bool:
        if self.shut:
            return False
        server = self.server
        if server.corking:
            corked = self.corked
            if corked is None:
                self.corked = [frame]
                server.dirty.append(self)
            else:
                corked.append(frame)
            return True
        return self._write([frame])

    def _write(self, frames: list[bytes]) -> bool:
        """Into the socket now, or else the backlog; False if the session is gone."""
        backlog = self.backlog
        if backlog:
            backlog.extend(frames)
            if len(backlog) > self.server.limits.outbox:
                log.info("%r is not reading: dropped", self)
                self.drop()
                return False
            return True
        try:
            if len(frames) == 1:
                sent = os.write(self.fd, frames[0])
            else:
                sent = os.writev(self.fd, frames if len(frames) <= 64 else [b"".join(frames)])
        except BlockingIOError:
            sent = 0
        except OSError:
            self.drop()
            return False
        rest: deque[bytes | memoryview] = deque()
        for frame in frames:
            size = len(frame)
            if sent >= size:
                sent -= size
            elif sent:
                rest.append(memoryview(frame)[sent:])
                self.partial = True
                sent = 0
            else:
                rest.append(frame)
        if not rest:
            return True
        if len(rest) > self.server.limits.outbox or self.nursery is None:
            log.info("%r is not reading: dropped", self)
            self.drop()
            return False
        self.backlog = rest
        if not self.writing:
            self.writing = True
            self.nursery.start_soon(self._writer)
        return True

    async def _writer(self) -> None:
        """Send the backlog as the socket drains, then end."""
        try:
            while self.backlog:
                await trio.lowlevel.wait_writable(self.fd)
                backlog = self.backlog
                frames = list(backlog) if len(backlog) <= 64 else [b"".join(backlog)]
                try:
                    sent = os.writev(self.fd, frames)
                except BlockingIOError:
                    continue
                while sent and backlog:
                    size = len(backlog[0])
                    if sent >= size:
                        backlog.popleft()
                        sent -= size
                        self.partial = False
                    else:
                        backlog[0] = memoryview(backlog[0])[sent:]
                        self.partial = True
                        sent = 0
        except (OSError, trio.ClosedResourceError, trio.BrokenResourceError):
            self.drop()
        finally:
            self.writing = False
            if not self.backlog:
                self.backlog = None
                if self.drained is not None:
                    self.drained.set()

    async def flushed(self) -> None:
        """Wait until every frame taken so far is in the socket."""
        while self.backlog and self.writing:
            self.drained = trio.Event()
            await self.drained.wait()

    def send(self, msg: pr.Message) -> None:
        try:
            frame = self.conn.send(msg)
        except pr.LocalProtocolError:
            return  # closed, or a message this state does not allow: nothing to send
        self.push(frame)

    def ok(self, request: pr.Message) -> None:
        request_id = getattr(request, "id", None)
        if request_id is not None:
            self.send(pr.Ok(id=request_id))

    def error(self, code: str, message: str, request: Any = None, fatal: bool = False) -> None:
        self.send(pr.Error(code=code, message=message[:500], fatal=fatal,
                           id=getattr(request, "id", None)))

    def close(self, code: str, message: str) -> None:
        """Say why, let the backlog flush, then end the connection."""
        self.error(code, message, fatal=True)
        self.shut = True

    def drop(self) -> None:
        """End the connection now, without a goodbye."""
        self.dropped = True
        self.shut = True
        self.backlog = None
        if self.corked is not None:
            self.corked = []
        if self.scope is not None:
            self.scope.cancel()

    # -- the reader (the handler task) -------------------------------------------------

    async def reader(self) -> None:
        limits = self.server.limits
        conn = self.conn
        with trio.move_on_after(limits.handshake_timeout) as handshake:
            while conn.state is pr.State.AWAIT_HELLO:
                if not await self._receive_into(conn):
                    return
                if not self._pump_handshake():
                    return
        if handshake.cancelled_caught:
            self.close("timeout", "no hello within the handshake time")
            return
        if conn.state is not pr.State.READY:
            return
        silent = 0
        while True:
            if not await self._process():
                return
            with trio.move_on_after(limits.heartbeat) as idle:
                if not await self._receive_into(conn):
                    return
            if idle.cancelled_caught:
                silent += 1
                if silent >= 2:
                    self.close("timeout", "no answer to ping")
                    return
                self.send(pr.Ping(id=silent))
            else:
                silent = 0

    async def _receive_into(self, conn: pr.Connection) -> bool:
        """Wait for the socket, then read what it holds (straight from the descriptor:
        the stream's own ``receive_some`` tries a read first, which here nearly always
        finds nothing, and costs more than the read)."""
        try:
            await trio.lowlevel.wait_readable(self.fd)
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return True  # woken with nothing to read after all: wait again
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return False
        conn.receive_data(data)
        return True

    def _pump_handshake(self) -> bool:
        try:
            msg = self.conn.next_event()
        except pr.RemoteProtocolError as exc:
            self._fatal(exc)
            return False
        if msg is pr.NEED_DATA:
            return True
        if not isinstance(msg, pr.Hello):
            return False  # closed, bye or error: nothing more to say
        self.name = msg.name
        self.bot = bool(msg.bot)
        self.push(self.conn.welcome(SERVER_NAME, heartbeat=self.server.limits.heartbeat))
        return True

    def _fatal(self, exc: pr.RemoteProtocolError) -> None:
        with contextlib.suppress(pr.LocalProtocolError):
            self.push(self.conn.send_error(exc))
        self.shut = True

    async def _process(self) -> bool:
        """Handle every complete message received; False when the connection is over."""
        while True:
            try:
                msg = self.conn.next_event()
            except pr.RemoteProtocolError as exc:
                if exc.fatal:
                    self._fatal(exc)
                    return False
                if exc.code == "unknown_type":
                    # A request from a newer protocol is no fault (a client may try one
                    # and fall back); it spends the request budget like any request.
                    if self.bucket.take():
                        self.push(self.conn.send_error(exc))
                    elif not self._over_budget(exc):
                        return False
                    continue
                self.strikes += 1
                self.push(self.conn.send_error(exc))
                if self.strikes >= self.server.limits.max_strikes:
                    self.close("bad_message", "too many protocol errors")
                    return False
                continue
            if msg is pr.NEED_DATA:
                return True
            if msg is pr.CONNECTION_CLOSED:
                return False
            assert isinstance(msg, pr.Message)
            if not await self._dispatch(msg):
                return False

    def _over_budget(self, request: Any) -> bool:
        """A request over the rate budget is refused, and counts as a protocol error;
        False when that ends the connection."""
        self.strikes += 1
        self.error("rate_limited", "too many requests; slow down", request)
        if self.strikes >= self.server.limits.max_strikes:
            self.close("rate_limited", "too many requests")
            return False
        return True

    async def _dispatch(self, msg: pr.Message) -> bool:
        kind = msg.TYPE
        if kind == "pong":
            return True
        if kind == "bye":
            self.shut = True
            return False
        if kind == "error":
            return not msg.fatal  # type: ignore[attr-defined]
        if not self.bucket.take():
            return self._over_budget(msg)
        if kind == "ping":
            self.send(pr.Pong(id=msg.id))  # type: ignore[attr-defined]
            return True
        if kind == "list_rooms":
            rooms = [room.summary() for room in list(self.server.rooms.values())[:256]]
            self.send(pr.Rooms(rooms=tuple(rooms), id=msg.id))  # type: ignore[attr-defined]
            return True
        if kind in ("create_room", "join", "resume"):
            if self.room is not None or self.joining is not None:
                self.error("already_in_room", "leave your room first", msg)
                return True
            room: Room | None
            if kind == "create_room":
                room = self.server.create_room(msg)  # type: ignore[arg-type]
                if room is None:
                    self.error("room_full", "the server holds no more rooms", msg)
                    return True
                command: tuple[Any, ...] = (
                    "join", self, pr.Join(room=room.id, id=msg.id), True)  # type: ignore[attr-defined]
            elif kind == "join":
                room = self.server.rooms.get(msg.room)  # type: ignore[attr-defined]
                if room is None:
                    self.error("no_such_room", "no room with that id", msg)
                    return True
                command = ("join", self, msg, False)
            else:
                room = self.server.tokens.get(msg.token)  # type: ignore[attr-defined]
                if room is None:
                    self.error("bad_token", "unknown or expired token", msg)
                    return True
                command = ("resume", self, msg)
            self.joining = room
            if not await self._to_room(room, command):
                self.joining = None
                self.error("no_such_room", "that room has closed", msg)
            return True
        if kind in LOBBY_REQUESTS or kind in pr.ACTIONS:
            room = self.room
            if room is None or not await self._to_room(room, ("msg", self, msg)):
                self.error("not_in_room", "join a room first", msg)
            return True
        self.error("bad_state", f"{kind} is not a request", msg)
        return True

    async def _to_room(self, room: Room, command: tuple[Any, ...]) -> bool:
        try:
            await room.inbox_send.send(command)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True


class Server:
    """The lobby: rooms, sessions and the tokens that resume seats."""

    def __init__(self, *, seed: int | None = None, bot_launcher: BotLauncher | None = None,
                 bot_levels: Sequence[str] = BOT_LEVELS, limits: Limits | None = None,
                 db_path: str | os.PathLike[str] | None = None) -> None:
        self.limits = limits or Limits()
        self.store: Store | None = Store(db_path) if db_path else None
        self.seed = seed
        self.bot_launcher = bot_launcher
        self.bot_levels = tuple(bot_levels)  # the levels add_bot accepts: the launcher's
        self.rooms: dict[str, Room] = {}
        self.tokens: dict[str, Room] = {}
        self.sessions: set[Session] = set()
        self.corking = False  # a room is handling a command (see Session.push)
        self.dirty: list[Session] = []  # sessions holding corked frames
        self.host = "127.0.0.1"
        self.port = 0
        self.nursery: trio.Nursery | None = None
        self._counter = 0
        self._room_counter = 0

    async def run(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                  task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED) -> None:
        listeners = await trio.open_tcp_listeners(port, host=host or None)
        self.port = listeners[0].socket.getsockname()[1]
        self.host = "127.0.0.1" if host in ("", "0.0.0.0", None) else "::1" if host == "::" else host
        log.info("listening on %s port %d", host or "*", self.port)
        thresholds = gc.get_threshold()
        if self.limits.gc_threshold > thresholds[0]:
            gc.set_threshold(self.limits.gc_threshold, *thresholds[1:])
        try:
            async with trio.open_nursery() as outer:
                if self.store is not None:
                    await outer.start(self.store.run)  # stops last: it writes what is queued
                async with trio.open_nursery() as nursery:
                    self.nursery = nursery
                    restored = [] if self.store is None else await self._restore(self.store)
                    await nursery.start(partial(trio.serve_listeners, self._handle, listeners,
                                                handler_nursery=nursery))
                    for room in restored:
                        room.post(("bots",))
                    task_status.started(self)
                outer.cancel_scope.cancel()
        finally:
            gc.set_threshold(*thresholds)
            log.info("server stopped")

    async def _restore(self, store: Store) -> list[Room]:
        """Reload every stored room; its players resume with their tokens."""
        restored = []
        for record in await store.load():
            try:
                rules = en.Rules.from_dict(record.rules)
                room = Room(self, record.id, name=record.name, preset=record.preset, rules=rules,
                            seats=record.seats, timer=record.timer, password=record.password,
                            seed=record.seed)
                room.restore(record)
            except Exception:
                log.exception("room %s could not be restored; it is dropped", record.id)
                store.delete_room(record.id)
                continue
            self.rooms[room.id] = room
            number = record.id[1:]
            if record.id.startswith("r") and number.isdigit():
                self._room_counter = max(self._room_counter, int(number))
            assert self.nursery is not None
            self.nursery.start_soon(self._run_room, room)
            log.info("room %s restored: %r, match %d, %d actions replayed", room.id, room.name,
                     record.matches, len(record.actions))
            restored.append(room)
        return restored

    # -- rooms -------------------------------------------------------------------------

    def create_room(self, msg: pr.CreateRoom) -> Room | None:
        if len(self.rooms) >= self.limits.max_rooms or self.nursery is None:
            return None
        self._room_counter += 1
        room_id = f"r{self._room_counter}"
        while room_id in self.rooms:
            self._room_counter += 1
            room_id = f"r{self._room_counter}"
        if self.seed is None:
            seed: int | str | None = None
        else:
            seed = f"{self.seed}/{room_id}"
        password = hash_password(msg.password) if msg.password is not None else None
        room = Room(self, room_id, name=msg.name, preset=msg.preset, rules=msg.rules(),
                    seats=msg.seats, timer=msg.timer, password=password, seed=seed)
        self.rooms[room_id] = room
        if self.store is not None:
            self.store.save_room(room.record())
        self.nursery.start_soon(self._run_room, room)
        log.info("room %s created: %r, %s, %d seats", room_id, msg.name, msg.preset, msg.seats)
        return room

    async def _run_room(self, room: Room) -> None:
        try:
            await room.run()
        except Exception:
            log.exception("room %s crashed", room.id)

    def launch_bot(self, room: str, seat: int, token: str, name: str, level: str) -> trio.CancelScope:
        scope = trio.CancelScope()
        assert self.nursery is not None
        self.nursery.start_soon(self._run_bot, scope, room, seat, token, name, level)
        return scope

    async def _run_bot(self, scope: trio.CancelScope, room: str, seat: int, token: str,
                       name: str, level: str) -> None:
        launcher = self.bot_launcher
        if launcher is None:
            from .bot import run_bot

            launcher = run_bot
        with scope:
            try:
                await launcher(host=self.host, port=self.port, room=room, seat=seat,
                               token=token, name=name, level=level)
            except Exception:
                log.exception("bot for room %s seat %d failed", room, seat)

    # -- connections -------------------------------------------------------------------

    async def _handle(self, stream: trio.SocketStream) -> None:
        self._counter += 1
        if self.limits.sndbuf:
            with contextlib.suppress(OSError):
                stream.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.sndbuf)
        if len(self.sessions) >= self.limits.max_connections:
            frame = pr.encode_frame(pr.Error(code="server_full", message="the server is full",
                                          fatal=True).to_wire())
            with trio.move_on_after(1):
                with contextlib.suppress(trio.BrokenResourceError, OSError):
                    await stream.send_all(frame)
            await trio.aclose_forcefully(stream)
            return
        session = Session(self, stream, self._counter)
        self.sessions.add(session)
        finished = False
        try:
            async with trio.open_nursery() as nursery:
                session.nursery, session.scope = nursery, nursery.cancel_scope
                try:
                    await session.reader()
                except Exception:
                    log.exception("%r: handler failed", session)
                session.shut = True
                with trio.move_on_after(2):
                    await session.flushed()  # let the writer flush a last error or bye
                nursery.cancel_scope.cancel()
            finished = True
        except Exception:
            log.exception("%r: connection failed", session)
            finished = True
        finally:
            session.shut = True  # nothing more goes to this socket: its number is freed
            session.fd = -1
            session.nursery = None
            if not finished and not session.dropped and not session.partial:
                await self._farewell(stream)  # cancelled from outside: the server is stopping
            session.backlog = None
            self.sessions.discard(session)
            room = session.room or session.joining
            if room is not None:
                room.notify_gone(session)
            await trio.aclose_forcefully(stream)

    # -- corking: a room command's frames, one write per member ------------------------

    def cork(self) -> None:
        self.corking = True

    def uncork(self) -> None:
        self.corking = False
        dirty, self.dirty = self.dirty, []
        for session in dirty:
            frames, session.corked = session.corked, None
            if frames:
                session._write(frames)

    async def _farewell(self, stream: trio.abc.Stream) -> None:
        """The server is stopping: tell the client, briefly, ignoring failures."""
        frame = pr.encode_frame(pr.Error(code="shutting_down", message="the server is stopping",
                                      fatal=True).to_wire())
        errors = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)
        with trio.CancelScope(shield=True), trio.move_on_after(0.5), contextlib.suppress(*errors):
            await stream.send_all(frame)


async def serve(
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    *,
    seed: int | None = None,
    bot_launcher: BotLauncher | None = None,
    bot_levels: Sequence[str] = BOT_LEVELS,
    limits: Limits | None = None,
    db_path: str | os.PathLike[str] | None = None,
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve UNO on ``host``:``port`` until cancelled; ``nursery.start`` returns the port.

    ``seed`` makes shuffles reproducible (demos, tests): each room's seed derives from it;
    without it every match is shuffled from ``secrets``. ``bot_launcher`` runs the bots a
    host adds (see :class:`BotLauncher`); without it the built-in bot plays them.
    ``bot_levels`` are the levels ``add_bot`` may name (the launcher's; the built-in bot
    knows only ``basic``): any other is refused with ``unknown_level``. When
    cancelled, every connected client gets a ``shutting_down`` error before the close.

    ``db_path`` keeps every room's game log in that SQLite file (see :mod:`.store`): a
    server started on the same file reloads every room it holds, replays each match to
    where it was, and its players take their seats back with their tokens (``resume``).
    Without it everything lives in memory only.
    """
    server = Server(seed=seed, bot_launcher=bot_launcher, bot_levels=bot_levels, limits=limits,
                    db_path=db_path)
    await server.run(host, port, task_status=_PortStatus(task_status))  # type: ignore[arg-type]


class _PortStatus:
    """Reports the bound port to ``serve``'s caller when the server has started."""

    def __init__(self, outer: trio.TaskStatus[int]) -> None:
        self._outer = outer

    def started(self, value: Server) -> None:
        self._outer.started(value.port)
