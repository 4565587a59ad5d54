"""One client connection, seen from the server: its reader, its requests, its outbox.

The reader is the connection's handler task: it decodes frames with the sans-IO
:class:`~unolan.protocol.Connection`, answers what the lobby answers (``ping``,
``list_rooms``) and forwards the rest to a room as a typed command (:mod:`.commands`).
Everything sent to the client goes through its :class:`~.fanout.Outbox` and never waits.

A room sees a session only through what :class:`~.commands.Member` declares: it sends
to it, and tells it when it entered or left (:meth:`Session.entered`, :meth:`Session.left`).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

import trio
from unolan.protocol.framing import pack

from unolan import __version__
from unolan import engine as en
from unolan import protocol as pr

from .commands import ROOM_REQUESTS, Enter, Request
from .fanout import Outbox
from .limits import Peer, TokenBucket
from .match import NEEDS_VERSION
from .store import check_password, hash_password, token_hash

if TYPE_CHECKING:
    from .fanout import Fanout
    from .limits import Limits
    from .room import Room

log = logging.getLogger("unolan.server")

SERVER_NAME = f"unolan {__version__}"

# Every read goes into this one buffer first (the event loop reads one socket at a time),
# then what was read is copied out at its size: a read of its own would allocate the whole
# 64 KiB and shrink it, which left the heap's free space in pieces it could not give back.
_READ_SIZE = 65536  # at most, per read
_READ_BUFFER = bytearray(_READ_SIZE)
_READ_INTO = [_READ_BUFFER]
_READ_VIEW = memoryview(_READ_BUFFER)

LISTED_ROOMS = 256  # at most, in a ``rooms`` reply (the protocol's array limit for it)
_LISTING_BUDGET = pr.MAX_FRAME_SIZE - 1024  # its rooms' bytes: the reply's envelope fits beside


def rooms_listing(summaries: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rooms a ``rooms`` reply lists: the first :data:`LISTED_ROOMS` of them, or as
    many as fit in one frame (a reply over the frame limit could not be sent at all, and
    the request would wait for ever)."""
    out: list[dict[str, Any]] = []
    size = 0
    for summary in summaries:
        size += len(pack(summary))
        if len(out) == LISTED_ROOMS or size > _LISTING_BUDGET:
            break
        out.append(summary)
    return out


class Reception(Protocol):
    """What a session asks of the server: its rooms, the tokens that resume in them, and
    the lobby's answers (:class:`~.app.Server` is the one)."""

    limits: Limits
    server_id: str  # welcome's: who this server is, whatever address it was dialled at
    fanout: Fanout
    rooms: dict[str, Room]
    tokens: dict[str, Room]  # token hash -> the room it resumes in
    unrestored: dict[str, str]  # token hash -> the id of a room that could not be restored
    hashing: trio.CapacityLimiter  # the threads that hash passwords

    def may_create_room(self, peer: Peer) -> tuple[str, str] | None:
        """Why ``peer`` may not create a room now (code, message), or None."""

    def create_room(self, msg: pr.CreateRoom, password: str | None, peer: Peer | None = None) -> Room: ...


class Session:
    """One client connection, seen from the server."""

    __slots__ = ("bot", "bucket", "conn", "dropped", "frame_due", "heard", "joining", "name",
                 "number", "outbox", "peer", "reading", "reads", "received", "room", "scope",
                 "seat", "seen", "server", "silent", "strikes", "token")

    def __init__(self, server: Reception, stream: trio.abc.Stream, number: int, peer: Peer) -> None:
        self.server = server
        self.number = number
        self.peer = peer  # the client's address, and the limits kept for it
        limits = server.limits
        self.outbox = Outbox(stream, limits.outbox, self._lost)
        self.conn = pr.Connection(pr.SERVER, max_frame_size=limits.max_frame)
        self.bucket = TokenBucket(limits.request_rate, limits.request_burst)
        self.name = f"guest{number}"
        self.bot = False  # the client said in its hello that a program plays
        self.room: Room | None = None
        self.joining: Room | None = None  # asked to enter this room; no answer yet
        self.seat: int | None = None
        self.token: str | None = None
        self.strikes = 0
        self.received = 0  # frames read after the handshake
        self.reads = 0  # reads from the client after the handshake
        self.seen = 0  # ``reads`` when the server's watch last looked (see watch)
        self.heard = 0.0  # when the watch saw a read last, or sent a ping
        self.silent = 0  # pings sent since the client was last heard
        self.frame_due: float | None = None  # when the frame that has begun must be whole
        self.dropped = False  # we ended it (slow, dead, replaced): no farewell frame
        self.scope: trio.CancelScope | None = None  # the connection's nursery's
        self.reading: trio.CancelScope | None = None  # the reader's own scope: close() ends it

    def __repr__(self) -> str:
        return f"<Session {self.number} {self.name!r}>"

    # -- what a room does with its members ---------------------------------------------

    def entered(self, seat: int | None, token: str) -> None:
        """The join or resume is accepted: in the room asked for, at ``seat``."""
        self.room, self.joining = self.joining, None
        self.seat, self.token = seat, token

    def turned_away(self) -> None:
        self.joining = None

    def left(self) -> None:
        """No longer in a room (left, removed, replaced, or the room closed)."""
        self.room = self.seat = None

    @property
    def version(self) -> int | None:
        """The protocol version agreed in the handshake (None before it)."""
        return self.conn.version

    @property
    def shut(self) -> bool:
        """No more frames are taken (closing, dropped or gone)."""
        return self.outbox.shut

    def push(self, frame: bytes) -> bool:
        return self.server.fanout.push(self.outbox, frame)

    def push_now(self, frame: bytes) -> bool:
        """Like :meth:`push`, but past any frames held for the room's writes: for what
        tells of no state of the game (a pause, a refusal while paused, a close)."""
        return self.outbox.write([frame])

    def send(self, msg: pr.Message, now: bool = False) -> None:
        """Frame ``msg`` and push it (``now``: with :meth:`push_now`)."""
        try:
            frame = self.conn.send(msg)
        except pr.LocalProtocolError as exc:
            if exc.code == "frame_too_large":  # a bug of ours: said, never silent
                log.error("a %s message is over the frame limit and is not sent", msg.TYPE)
            return  # closed, or a message this state does not allow: nothing to send
        if now:
            self.push_now(frame)
        else:
            self.push(frame)

    def ok(self, request: pr.Message) -> None:
        request_id = getattr(request, "id", None)
        if request_id is not None:
            self.send(pr.Ok(id=request_id))

    def error(self, code: str, message: str, request: Any = None, fatal: bool = False,
              now: bool = False) -> None:
        self.send(pr.Error(code=code, message=message[:500], fatal=fatal,
                           id=getattr(request, "id", None)), now)

    def close(self, code: str, message: str) -> None:
        """Say why and end the connection at once: the reader stops, the frame (and what
        was queued before it) goes out, then the socket is shut down in good order."""
        self.error(code, message, fatal=True, now=True)
        self.outbox.shut = True
        if self.reading is not None:
            self.reading.cancel()

    def drop(self) -> None:
        """End the connection now, without a goodbye."""
        self.outbox.close()
        self._lost(False)

    def _lost(self, not_reading: bool) -> None:
        if not_reading:
            log.info("%r is not reading: dropped", self)
        self.dropped = True
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
        self.heard = trio.current_time()
        frames = -1
        while True:
            if not await self._process():
                return
            if conn.buffered:  # part of a frame is in: it gets frame_timeout to arrive
                if frames != self.received:  # a frame ended since: this is a new one
                    frames = self.received
                    self.frame_due = trio.current_time() + limits.frame_timeout
            else:
                self.frame_due = None
            if not await self._receive_into(conn):
                return
            self.reads += 1

    def watch(self, now: float) -> None:
        """The server's watch, every ``limits.watch_tick``: a client silent for a
        heartbeat is pinged, and dropped after a second one; a frame that has begun and
        is not whole by its deadline ends the connection. (A timeout around every read
        would cost more than the read.)"""
        if self.conn.state is not pr.State.READY or self.outbox.shut:
            return  # the handshake has its own timeout; a closing connection needs none
        limits = self.server.limits
        if self.frame_due is not None and now >= self.frame_due:
            self.close("timeout", f"a frame took more than {limits.frame_timeout:g} s to arrive")
            return
        if self.reads != self.seen:
            self.seen, self.heard, self.silent = self.reads, now, 0
        elif now - self.heard >= limits.heartbeat:
            self.silent += 1
            if self.silent >= 2:
                self.close("timeout", "no answer to ping")
                return
            self.send(pr.Ping(id=self.silent))
            self.heard = now

    async def _receive_into(self, conn: pr.Connection) -> bool:
        """Wait for data, then read what is there: over a socket straight from the
        descriptor (the stream's own ``receive_some`` tries a read first, which here
        nearly always finds nothing, and costs more than the read)."""
        fd = self.outbox.fd
        data: bytes | bytearray
        try:
            if fd >= 0:
                await trio.lowlevel.wait_readable(fd)
                size = os.readv(fd, _READ_INTO)
                data = _READ_VIEW[:size].tobytes()
            else:
                data = await self.outbox.stream.receive_some(_READ_SIZE)
        except BlockingIOError:
            return True  # woken with nothing to read after all: wait again
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            return False
        try:
            conn.receive_data(data)
        except pr.LocalProtocolError:
            return False  # we already closed it (a fatal error went out): nothing more to read
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
        self.push(self.conn.welcome(SERVER_NAME, heartbeat=self.server.limits.heartbeat,
                                    server_id=self.server.server_id))
        return True

    def _fatal(self, exc: pr.RemoteProtocolError) -> None:
        with contextlib.suppress(pr.LocalProtocolError):
            self.push(self.conn.send_error(exc))
        self.outbox.shut = True

    async def _process(self) -> bool:
        """Handle every complete message received; False when the connection is over."""
        while True:
            try:
                msg = self.conn.next_event()
            except pr.RemoteProtocolError as exc:
                if exc.fatal:
                    self._fatal(exc)
                    return False
                self.received += 1
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
            self.received += 1
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
        """One request; False when the connection is over."""
        match msg:
            case pr.Pong():
                return True
            case pr.Bye():
                self.outbox.shut = True
                return False
            case pr.Error():
                return not msg.fatal
        if not self.bucket.take():
            return self._over_budget(msg)
        match msg:
            case pr.Ping():
                self.send(pr.Pong(id=msg.id))
            case pr.ListRooms():
                rooms = rooms_listing(room.summary() for room in list(self.server.rooms.values()))
                self.send(pr.Rooms(rooms=tuple(rooms), id=msg.id))
            case pr.CreateRoom() | pr.Join() | pr.Resume():
                await self._enter(msg)
            case _ if isinstance(msg, ROOM_REQUESTS):
                if isinstance(msg, pr.Leave) and not self._lobby_allowance(msg):
                    return True  # refused: the address has left too often
                room = self.room
                if room is None or not await self._to_room(room, Request(self, msg)):
                    self.error("not_in_room", "join a room first", msg)
            case _:
                self.error("bad_state", f"{msg.TYPE} is not a request", msg)
        return True

    async def _enter(self, msg: pr.CreateRoom | pr.Join | pr.Resume) -> None:
        if self.room is not None or self.joining is not None:
            self.error("already_in_room", "leave your room first", msg)
            return
        command = await self._entry(msg)
        if command is None:
            return
        room, enter = command
        self.joining = room
        if not await self._to_room(room, enter):
            self.joining = None
            self.error("no_such_room", "that room has closed", msg)

    def _lobby_allowance(self, msg: pr.Message) -> bool:
        """Take one of the address's joins, leaves, resumes and room creations."""
        if self.peer.lobby.take():
            return True
        self.error("rate_limited", "too many joins, leaves and resumes from your address; "
                   "slow down", msg)
        return False

    async def _entry(self, msg: pr.CreateRoom | pr.Join | pr.Resume) -> tuple[Room, Enter] | None:
        """The room to enter and the command that enters it (None: refused, and the
        refusal sent). Passwords are hashed and checked off the event loop."""
        server = self.server
        match msg:
            case pr.Resume():
                key = token_hash(msg.token)
                room = server.tokens.get(key)
                if room is None:
                    lost = server.unrestored.get(key)
                    if lost is not None:
                        self.error("not_restored", f"room {lost} could not be restored after the "
                                   "server restarted; its game is kept aside, but it cannot be played", msg)
                    else:
                        self.error("bad_token", "unknown or expired token", msg)
                    return None
                if not room.roster.bot_token(key) and not self._lobby_allowance(msg):
                    return None  # the server's own bots come back all at once after a restart
                return room, Enter(self, msg)
            case pr.CreateRoom():
                if not self._lobby_allowance(msg):
                    return None
                if en.two_tables(msg.rules(), msg.seats) and (self.version or 0) < pr.TWO_TABLE_VERSION:
                    self.error("needs_version", NEEDS_VERSION, msg)
                    return None
                refusal = server.may_create_room(self.peer)
                if refusal is not None:
                    self.error(*refusal, msg)
                    return None
                password = None
                if msg.password is not None:
                    password = await trio.to_thread.run_sync(hash_password, msg.password,
                                                             limiter=server.hashing)
                room = server.create_room(msg, password, self.peer)
                return room, Enter(self, pr.Join(room=room.id, id=msg.id), creator=True)
        if not self._lobby_allowance(msg):
            return None
        room = server.rooms.get(msg.room)
        if room is None:
            self.error("no_such_room", "no room with that id", msg)
            return None
        if room.password is not None:
            wait = self.peer.locked_out()
            if wait:
                self.error("rate_limited", "too many wrong passwords from your address; try again "
                           f"in {wait:.0f} s", msg)
                return None
            right = msg.password is not None and await trio.to_thread.run_sync(
                check_password, room.password, msg.password, limiter=server.hashing)
            if not right:
                self.peer.wrong_password(server.limits)
                self.error("bad_password", "wrong password for this room", msg)
                return None
            self.peer.failures = 0
        return room, Enter(self, msg)

    async def _to_room(self, room: Room, command: Request | Enter) -> bool:
        """Into the room's inbox; False if the room has closed. Only a full inbox is
        waited for: ``send`` would also let every other task run first, a task switch
        per request that the reader's next wait for its socket makes anyway."""
        inbox = room.inbox_send
        try:
            try:
                inbox.send_nowait(command)
            except trio.WouldBlock:
                await inbox.send(command)
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True
