"""The server: listeners, one handler per connection, the lobby, and :func:`serve`.

Each connection is a :class:`~.session.Session`, whose reader is the handler task; each
room a :class:`~.room.Room`, run by a task of its own. The server holds what is theirs
in common: the rooms, the tokens that resume seats (by their hashes), the addresses'
allowances, and the :class:`~.fanout.Fanout` through which every frame goes out.

Write-ahead: the server is the store's listener. When a room's command queued anything
for the database, its frames (the ``ok``, the events) are held, in order, until the
store's transaction holding that write is on disk (:meth:`Server.committed`); the room
task goes on with later commands meanwhile, and their frames queue behind. Nobody ever
sees a state of the game that a crash could take back.
"""

from __future__ import annotations

import contextlib
import errno
import gc
import logging
import os
import secrets
import socket
import sys
from collections.abc import Awaitable, Sequence
from typing import Protocol

import trio
from unolan.engine.rotation import check_match

from unolan import engine as en
from unolan import protocol as pr

from .bot import LEVELS as BOT_LEVELS
from .commands import BotsBack, SavingChanged
from .fanout import Fanout
from .heap import system_trim, trim_now_and_then
from .history import Keep
from .limits import DEFAULT_PORT, Limits, Peer, connection_cap
from .room import Room
from .session import Session
from .store import Store

log = logging.getLogger("unolan.server")



class BotLauncher(Protocol):
    """Runs one bot until it is done; the server cancels it when the bot is removed.

    The bot connects to ``host``:``port`` like any client, says ``hello`` and sends
    ``resume`` with ``token`` (seq 0) to take ``seat`` in ``room``.
    """

    def __call__(self, *, host: str, port: int, room: str, seat: int, token: str,
                 name: str, level: str) -> Awaitable[None]: ...


class Server:
    """The lobby: rooms, sessions and the tokens that resume seats.

    It is also the store's listener: frames held for a write go out when the write is
    on disk (:meth:`committed`), and every room pauses while saving fails."""

    def __init__(self, *, seed: int | None = None, bot_launcher: BotLauncher | None = None,
                 bot_levels: Sequence[str] = BOT_LEVELS, limits: Limits | None = None,
                 db_path: str | os.PathLike[str] | None = None, keep: Keep | None = None) -> None:
        """``keep``: how much match history the store keeps (with a database)."""
        self.limits = limits or Limits()
        self.store: Store | None = (
            Store(db_path, self, keep=keep)
            if db_path else None)
        self.seed = seed
        # Who this server is (welcome's server_id): kept in the database, so that it
        # survives a restart as the seats do; drawn afresh without one.
        self.server_id = secrets.token_hex(8)
        self.bot_launcher = bot_launcher
        self.bot_levels = tuple(bot_levels)  # the levels add_bot accepts: the launcher's
        self.rooms: dict[str, Room] = {}
        self.tokens: dict[str, Room] = {}  # token hash -> the room it resumes in
        self.unrestored: dict[str, str] = {}  # token hash -> a room that could not be restored
        self.sessions: set[Session] = set()
        self.peers: dict[str, Peer] = {}  # client address -> what is kept for it
        self.max_connections = connection_cap(self.limits)
        self.bots = 0  # bots the server runs itself (each holds a descriptor of its own)
        self.hashing = trio.CapacityLimiter(2)  # threads for password hashes
        self.fanout = Fanout(self.store)
        self.host = "127.0.0.1"
        self.port = 0
        self.nursery: trio.Nursery | None = None
        self._counter = 0
        self._room_counter = 0
        self._accept_noted = -_QUIET_ACCEPT

    async def run(self, host: str = "127.0.0.1", port: int = DEFAULT_PORT, *,
                  task_status: trio.TaskStatus[Server] = trio.TASK_STATUS_IGNORED) -> None:
        """Take the address (``OSError`` if it cannot be had: before the database, so that
        a server that cannot listen leaves no file behind), open the database
        (:class:`~.store.StoreError` if it cannot be used), restore its rooms, then accept
        connections (those made meanwhile wait in the backlog): nothing is announced
        before all of that worked."""
        thresholds = gc.get_threshold()
        if self.limits.gc_threshold > thresholds[0]:
            gc.set_threshold(self.limits.gc_threshold, *thresholds[1:])
        interval = sys.getswitchinterval()
        if self.store is not None:
            sys.setswitchinterval(min(interval, self.limits.switch_interval))
        started = False
        listeners: list[trio.SocketListener] = []
        try:
            listeners = await trio.open_tcp_listeners(port, host=host or None)
            async with trio.open_nursery() as outer:
                if self.store is not None:
                    await outer.start(self.store.run)  # stops last: it writes what is queued
                    self.server_id = self.store.server_id or self.server_id
                async with trio.open_nursery() as nursery:
                    self.nursery = nursery
                    restored = [] if self.store is None else await self._restore(self.store)
                    self.port = listeners[0].socket.getsockname()[1]
                    self.host = "127.0.0.1" if host in ("", "0.0.0.0", None) else "::1" if host == "::" else host
                    log.info("listening on %s port %d (up to %d connections)", host or "*",
                             self.port, self.max_connections)
                    started = True
                    for listener in listeners:
                        nursery.start_soon(self._accept, listener, nursery)
                    nursery.start_soon(self._watch)
                    trim = system_trim() if self.limits.heap_trim > 0 else None
                    if trim is not None:
                        nursery.start_soon(trim_now_and_then, self.limits.heap_trim, trim)
                    for room in restored:
                        room.post(BotsBack())
                    task_status.started(self)
                outer.cancel_scope.cancel()
        finally:
            for listener in listeners:  # closed by its task once accepting; else here
                listener.socket.close()
            gc.set_threshold(*thresholds)
            sys.setswitchinterval(interval)
            if started:
                log.info("server stopped")

    async def _accept(self, listener: trio.SocketListener, nursery: trio.Nursery) -> None:
        """Accept connections for ever. Running out of descriptors (or of memory for a
        socket) is logged once in a while, briefly waited out, and never a traceback."""
        async with listener:
            while True:
                try:
                    stream = await listener.accept()
                except OSError as exc:
                    if exc.errno not in _ACCEPT_CAPACITY:
                        raise
                    now = trio.current_time()
                    if now - self._accept_noted >= _QUIET_ACCEPT:
                        self._accept_noted = now
                        log.warning("cannot accept connections: %s (%d open); waiting",
                                    exc.strerror or exc, len(self.sessions))
                    await trio.sleep(0.1)
                    continue
                nursery.start_soon(self._handle, stream)

    async def _restore(self, store: Store) -> list[Room]:
        """Reload every stored room; its players resume with their tokens. A room that
        cannot be rebuilt is moved aside (never deleted) and its tokens answer
        ``not_restored``; the others start as usual."""
        stored = await store.load()
        restored = []
        for room_id, tokens in stored.aside.items():
            self._note_room_id(room_id)
            for key in tokens:
                self.unrestored[key] = room_id
        failed = dict(stored.unreadable)
        for record in stored.rooms:
            self._note_room_id(record.id)
            try:
                rules = en.Rules.from_dict(record.rules)
                check_match(rules, record.seats)  # a room whose rules cannot start is no room
                room = Room(self, record.id, name=record.name, preset=record.preset, rules=rules,
                            seats=record.seats, timer=record.timer, password=record.password,
                            seed=record.seed)
                room.restore(record)
            except Exception as exc:
                failed[record.id] = _why(exc)
                for seat in record.seat_records:
                    if seat.token_hash:
                        self.unrestored[seat.token_hash] = record.id
                for key, _ in record.spectators:
                    self.unrestored[key] = record.id
                continue
            self.rooms[room.id] = room
            room.register_tokens()
            assert self.nursery is not None
            self.nursery.start_soon(self._run_room, room)
            log.info("room %s restored: %r, match %d, %d actions replayed", room.id, room.name,
                     record.matches, len(record.actions))
            restored.append(room)
        for room_id, reason in failed.items():
            self._note_room_id(room_id)
            store.set_aside(room_id, reason)
            log.error("room %s could not be restored: %s. Its rows are moved aside, not deleted; "
                      "to inspect them: sqlite3 %s \"SELECT * FROM rooms_aside WHERE id = '%s'\" "
                      "(and seats_aside, spectators_aside, actions_aside)",
                      room_id, reason, store.path, room_id)
        return restored

    async def _watch(self) -> None:
        """Every connection's heartbeat and frame deadline, checked every tick."""
        while True:
            await trio.sleep(self.limits.watch_tick)
            now = trio.current_time()
            for session in list(self.sessions):
                session.watch(now)

    def _note_room_id(self, room_id: str) -> None:
        """Room ids go on from the highest one ever stored."""
        number = room_id[1:]
        if room_id.startswith("r") and number.isdigit():
            self._room_counter = max(self._room_counter, int(number))

    # -- rooms -------------------------------------------------------------------------

    def may_create_room(self, peer: Peer) -> tuple[str, str] | None:
        """Why a room may not be created from ``peer`` now (code, message), or None."""
        if self.nursery is None or len(self.rooms) >= self.limits.max_rooms:
            return ("room_full", "the server holds no more rooms")
        if peer.rooms >= self.limits.rooms_per_address:
            return ("too_many_rooms", f"your address already has {peer.rooms} open rooms; a room "
                    f"closes {self.limits.room_idle:g} s after the last person in it goes: try again then")
        if self.store is not None and self.store.failing:
            return ("paused", "the server cannot save games right now; try again later")
        return None

    def create_room(self, msg: pr.CreateRoom, password: str | None, peer: Peer | None = None) -> Room:
        """A new room (check :meth:`may_create_room` first); ``password``: its hash."""
        assert self.nursery is not None
        self._room_counter += 1
        room_id = f"r{self._room_counter}"
        while room_id in self.rooms:
            self._room_counter += 1
            room_id = f"r{self._room_counter}"
        if self.seed is None:
            seed: int | str | None = None
        else:
            seed = f"{self.seed}/{room_id}"
        rules = msg.rules()
        room = Room(self, room_id, name=msg.name, preset=msg.preset, rules=rules,
                    seats=msg.seats, timer=msg.timer, password=password, seed=seed)
        if peer is not None:
            room.creator = peer
            peer.rooms += 1
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
        finally:
            self.fanout.forget(room)
            if room.creator is not None:
                room.creator.rooms -= 1
                room.creator = None

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
        self.bots += 1
        try:
            with scope:
                await launcher(host=self.host, port=self.port, room=room, seat=seat,
                               token=token, name=name, level=level)
        except Exception:
            log.exception("bot for room %s seat %d failed", room, seat)
        finally:
            self.bots -= 1

    # -- connections -------------------------------------------------------------------

    def _peer(self, address: str) -> Peer:
        peer = self.peers.get(address)
        if peer is None:
            if len(self.peers) >= _PRUNE_PEERS_AT:
                for key in [k for k, p in self.peers.items() if p.idle]:
                    del self.peers[key]
            peer = self.peers[address] = Peer(address, self.limits)
        return peer

    async def _handle(self, stream: trio.SocketStream) -> None:
        if self.limits.sndbuf:
            with contextlib.suppress(OSError):
                stream.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.limits.sndbuf)
        try:
            address = str(stream.socket.getpeername()[0])
        except OSError:  # gone already
            await trio.aclose_forcefully(stream)
            return
        await self.serve_connection(stream, address)

    async def serve_connection(self, stream: trio.abc.HalfCloseableStream, address: str) -> None:
        """Serve one client on ``stream`` until it goes; ``address`` is where it comes
        from (its allowances are kept per address). The listeners give TCP streams;
        tests may give any stream, e.g. ``trio.testing.memory_stream_pair()``'s."""
        self._counter += 1
        peer = self._peer(address)
        refusal = None
        if len(self.sessions) + self.bots >= self.max_connections:
            refusal = "the server is full; try again later"
        elif not peer.local and peer.connections >= self.limits.connections_per_address:
            refusal = f"too many connections from your address ({peer.connections})"
        if refusal is not None:
            frame = pr.encode_frame(pr.Error(code="server_full", message=refusal, fatal=True).to_wire())
            with trio.move_on_after(1):
                with contextlib.suppress(trio.BrokenResourceError, OSError):
                    await stream.send_all(frame)
                    await self._linger(stream)
            await trio.aclose_forcefully(stream)
            return
        session = Session(self, stream, self._counter, peer)
        self.sessions.add(session)
        peer.connections += 1
        log.debug("connection %d from %s", session.number, address)
        finished = False
        try:
            async with trio.open_nursery() as nursery:
                session.outbox.nursery, session.scope = nursery, nursery.cancel_scope
                with trio.CancelScope() as session.reading:
                    try:
                        await session.reader()
                    except Exception:
                        log.exception("%r: handler failed", session)
                session.outbox.shut = True
                with trio.move_on_after(2):
                    await session.outbox.flushed()  # let the writer flush a last error or bye
                if not session.dropped:
                    with trio.move_on_after(self.limits.linger):
                        await self._linger(stream)
                nursery.cancel_scope.cancel()
            finished = True
        except Exception:
            log.exception("%r: connection failed", session)
            finished = True
        finally:
            outbox = session.outbox
            outbox.shut = True  # nothing more goes to this socket: its number is freed
            outbox.fd = -1
            outbox.nursery = None
            if not finished and not session.dropped and not outbox.partial:
                await self._farewell(stream)  # cancelled from outside: the server is stopping
            outbox.backlog = None
            self.sessions.discard(session)
            peer.connections -= 1
            log.debug("%r from %s closed%s", session, address, " (dropped)" if session.dropped else "")
            room = session.room or session.joining
            if room is not None:
                room.notify_gone(session)
            await trio.aclose_forcefully(stream)

    @staticmethod
    async def _linger(stream: trio.abc.HalfCloseableStream) -> None:
        """End our side in good order: send FIN after what was written, then read what
        the client still sends until it closes (the caller bounds the wait). Closing with
        unread data would reset the connection, and a reset can take the last frames
        (a fatal error's reason) with it."""
        with contextlib.suppress(OSError, trio.BrokenResourceError, trio.ClosedResourceError):
            if isinstance(stream, trio.SocketStream):
                stream.socket.shutdown(socket.SHUT_WR)  # at once: written frames are already in
            else:
                await stream.send_eof()
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            while await stream.receive_some(65536):
                pass

    # -- what a room asks of the server (see .commands.Lobby) ----------------------------

    def register_token(self, key: str, room_id: str) -> None:
        self.tokens[key] = self.rooms[room_id]

    def forget_token(self, key: str) -> None:
        self.tokens.pop(key, None)

    def room_closed(self, room_id: str) -> None:
        self.rooms.pop(room_id, None)

    # -- the store's listener ----------------------------------------------------------

    def committed(self, ticket: int) -> None:
        """Writes up to ``ticket`` are on disk: the frames that waited for them go out."""
        self.fanout.committed(ticket)

    def saving_failed(self, error: str) -> None:
        """Every room pauses (each notices on its next wake-up: wake them all)."""
        for room in list(self.rooms.values()):
            room.post(SavingChanged())

    def saving_works(self) -> None:
        for room in list(self.rooms.values()):
            room.post(SavingChanged())

    async def _farewell(self, stream: trio.abc.Stream) -> None:
        """The server is stopping: tell the client, briefly, ignoring failures."""
        frame = pr.encode_frame(pr.Error(code="shutting_down", message="the server is stopping",
                                      fatal=True).to_wire())
        errors = (trio.BrokenResourceError, trio.ClosedResourceError, OSError)
        with trio.CancelScope(shield=True), trio.move_on_after(0.5), contextlib.suppress(*errors):
            await stream.send_all(frame)


def _why(exc: Exception) -> str:
    """What failed, for the log: never the exception's own text when it may hold a
    position (hidden hands) or a seed."""
    if isinstance(exc, en.IllegalAction):
        return f"a stored action is refused by the rules ({exc.code})"
    if isinstance(exc, en.NotationError):
        return "a stored action cannot be read"
    return f"{type(exc).__name__}: {str(exc)[:200]}"


_ACCEPT_CAPACITY = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS})
_QUIET_ACCEPT = 10.0  # seconds between two log lines about failing accepts
_PRUNE_PEERS_AT = 4096  # addresses kept before the idle ones are forgotten


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
    # TaskStatus.started is overloaded for a call with no value too, which a report of
    # the port has no use for; _PortStatus gives only the one with a value.
    await server.run(host, port, task_status=_PortStatus(task_status))  # type: ignore[arg-type]


class _PortStatus:
    """Reports the bound port to ``serve``'s caller when the server has started."""

    def __init__(self, outer: trio.TaskStatus[int]) -> None:
        self._outer = outer

    def started(self, value: Server) -> None:
        self._outer.started(value.port)
