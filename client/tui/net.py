"""The UI's networking side: the client library, feeding a :class:`UIState`.

Runs as the asyncio loop's Trio guest. The connection, the handshake, requests and their
errors, the mirror of the table, the room seq on every action and resuming a dropped
seat with its token are all :func:`unolan.client.open_client`'s; this module only turns
the library's messages into screen state (calling ``invalidate`` after each) and the
keys' commands into library calls. Refusals become messages on the screen, never
exceptions. Losing the server shows "reconnecting"; if the library cannot resume the
seat, a new connection is opened and resumes it (forever, like a patient player). With
``saved`` (``uno join``) every seat's token is also kept on disk, so a restarted client
takes its seat back; while in the lobby the room list refreshes itself.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import trio
from unolan.client import session as lib
from unolan.client.i18n import _, error_text
from unolan.client.saved import SavedSeat, SavedSeats
from unolan.client.tables import Tables
from unolan.client.verify import MatchRecord, Verdict

from unolan import protocol as pr

from .lens import TableLens
from .other_table import OtherTable
from .state import Act, Ask, Back, Command, Connect, Request, Rescan, Say, UIState

log = logging.getLogger("unolan.client.tui")

CLIENT_NAME = "unolan-tui"
RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0, 3.0)
LOBBY_REFRESH = 2.0  # seconds between room lists while the lobby is on screen

# Whatever ends one connection (the loop then opens another).
LOST = (lib.ConnectionLost, OSError, trio.BrokenResourceError, trio.ClosedResourceError,
        trio.TooSlowError)


@dataclass
class AutoStart:
    """For ``uno play``: create a room, seat ``bots`` bots and start, all at once."""

    bots: int = 3
    preset: str = "house"
    options: dict[str, Any] | None = None
    room_name: str = "table"
    timer: int = 0


class Bridge:
    """One player's connection (a library :class:`~unolan.client.Client`, reopened when lost) feeding a
    :class:`UIState`."""

    def __init__(self, state: UIState, host: str, port: int, name: str,
                 invalidate: Callable[[], None], auto: AutoStart | None = None,
                 saved: SavedSeats | None = None, record: MatchRecord | None = None) -> None:
        self.state = state
        self.record = record  # what this player sees, kept for ``uno verify``
        self.host, self.port, self.name = host, port, name
        self.where = f"{host}:{port}"
        self.invalidate = invalidate
        self.auto = auto
        self.saved = saved  # seats kept on disk (None: nothing is kept)
        self.client: lib.Client | None = None
        self.token: str | None = None  # a seat the library could not resume: resume it anew
        self.previous: lib.Client | None = None  # the last client that ended (its deals' checks go on)
        self.resuming: SavedSeat | None = None  # a seat from disk being taken back
        self.welcome_back: tuple[int, str] | None = None  # said once the replay reaches seq
        self.seen: tuple[str | None, int] = (None, 0)  # (room, seq) of the last event shown
        self.connected = False  # once connected, a failure is "reconnecting", not "offline"
        self.lost = False  # the log said the connection was lost, and not yet that it is back
        self.room: dict[str, Any] | None = None  # the last ``seats``, in the room's seats

    # -- the loop: connect, run, reconnect ------------------------------------------------

    async def run(self, commands: trio.MemoryReceiveChannel[Command]) -> None:
        s, where = self.state, self.where
        attempt = 0
        while True:
            if self.connected:
                s.set_status("reconnecting", s.status_detail or where)
            else:
                s.connecting(where, attempt)
            self.invalidate()
            try:
                async with lib.open_client(self.host, self.port, self.name,
                                           client=CLIENT_NAME) as client:
                    self.client, self.connected = client, True
                    client.record = self.record
                    attempt = 0
                    await self._session(client, commands)
                    self.token = client.token
                self._lost("")
            except (*LOST, lib.ClientError) as exc:
                detail = str(exc) or type(exc).__name__
                if isinstance(exc, lib.ClientError):  # refused at the handshake
                    detail = _("the server refused: {reason}").format(reason=error_text(exc.code, exc.message))
                log.debug("connection lost: %s", detail)
                if self.connected:
                    self._lost(detail)
                else:
                    s.set_status("offline", detail)
            finally:
                self.previous = self.client or self.previous
                self.client = None
            self.invalidate()
            await trio.sleep(RETRY_DELAYS[min(attempt, len(RETRY_DELAYS) - 1)])
            attempt += 1
            self._drop_stale(commands)

    def _lost(self, error: str, said: str = "") -> None:
        """A connection that worked ended (``error``: what broke it; '': the server closed
        it; ``said``: what the server said as it closed it, e.g. that it is stopping): the
        header says so, and the log once, with what happens now."""
        s = self.state
        if self.lost:  # said already: a retry failed, the header has its reason
            if error:
                s.set_status("reconnecting", error)
            return
        why = (said or _("connection lost: {error}").format(error=error) if said or error
               else _("the server closed the connection"))
        s.set_status("reconnecting", why)
        s.add_log(_("{why}: trying to reconnect to {where} until it answers (Ctrl-C quits)").format(
            why=why, where=self.where), "error")
        self.lost = True

    def _back(self) -> None:
        if self.lost:
            self.lost = False
            self.state.add_log(_("connected to {where} again").format(where=self.where), "info")

    def _drop_stale(self, commands: trio.MemoryReceiveChannel[Command]) -> None:
        """Actions pressed while disconnected were decided on an old table: drop them."""
        while True:
            try:
                command = commands.receive_nowait()
            except (trio.WouldBlock, trio.EndOfChannel):
                return
            if isinstance(command, Act):
                self.state.notify(_("not sent: the connection was lost"))

    async def _session(self, client: lib.Client, commands: trio.MemoryReceiveChannel[Command]) -> None:
        self.state.set_status("connected", f"{self.host}:{self.port}")
        self._back()
        self.invalidate()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._begin, client)
            nursery.start_soon(self._commands, client, commands)
            nursery.start_soon(self._refresh_lobby, client)
            async for msg in client.messages():
                await self._on_message(client, msg)
                self.invalidate()
            nursery.cancel_scope.cancel()

    async def _begin(self, client: lib.Client) -> None:
        """Take back a seat from an earlier connection (or from disk: an earlier run), or
        start ``uno play``'s game, or show the lobby."""
        token, auto, previous = self.token, self.auto, self.previous
        self.token = self.auto = None
        saved = None
        if token is None and auto is None and self.saved is not None:
            saved = self.saved.latest(self.where, self.name, _server_id(client))
        if token is not None:
            # seq 0: the new mirror is rebuilt from the room's log or a snapshot (the
            # events already shown are not logged twice).
            await self._call(client, lambda: client.resume(token, 0, previous=previous))
        elif saved is not None:
            self.resuming = saved
            await self._call(client, lambda: self._resume_saved(client, saved))
            self.resuming = None
        elif auto is not None:
            async def play() -> None:
                await client.create_room(auto.room_name[:40], preset=auto.preset,
                                         options=auto.options or {}, seats=auto.bots + 1,
                                         timer=auto.timer)
                self._joined(client)
                for _ in range(auto.bots):
                    await client.add_bot()
                await client.start()
                started.append(True)

            # No room menu meanwhile: the start is not the player's. It stays so until the
            # room says its match started (its ``seats`` may come after start's answer).
            started: list[bool] = []
            self.state.starting = True
            try:
                await self._call(client, play)
            finally:
                self.state.starting = bool(started) and self.state.starting
        else:
            await self._call(client, lambda: self._request(client, Request(Ask.LIST_ROOMS)))
        self.invalidate()

    async def _resume_saved(self, client: lib.Client, saved: SavedSeat) -> None:
        joined = await client.resume(saved.token, 0, previous=self.previous)
        self._joined(client)
        seat = client.seat
        text = (_("You are back in your seat (seat {seat}) in room {room}.") if seat is not None
                else _("You are back in room {room}, watching.")).format(seat=seat, room=saved.room)
        self.welcome_back = (joined.seq, text)  # after the events replayed up to now
        self.state.catching_up = True
        self._caught_up(self.seen[1])  # the replay may be shown already

    def _caught_up(self, seq: int) -> None:
        """Say the seat is back once the room's events up to the resume are shown."""
        if self.welcome_back is not None and seq >= self.welcome_back[0]:
            text = self.welcome_back[1]
            self.welcome_back = None
            self.state.back(text)

    async def _refresh_lobby(self, client: lib.Client) -> None:
        """While the lobby is on screen, list the rooms every few seconds."""
        s = self.state
        while True:
            await trio.sleep(LOBBY_REFRESH)
            if s.room is None and s.view is None and s.room_id is None:
                await self._call(client, lambda: self._request(client, Request(Ask.LIST_ROOMS)))
                self.invalidate()

    # -- from the keys ---------------------------------------------------------------------

    async def _commands(self, client: lib.Client, commands: trio.MemoryReceiveChannel[Command]) -> None:
        async for command in commands:
            if self.state.status != "connected":
                if isinstance(command, Act):
                    self.state.notify(_("not sent: the connection was lost"))
            else:
                await self._call(client, partial(self._command, client, command))
            self.invalidate()

    async def _call(self, client: lib.Client, fn: Callable[[], Any]) -> None:
        """Run one library call; whatever it is refused becomes a message on the screen."""
        s = self.state
        try:
            await fn()
        except lib.ClientError as exc:
            await self._refused(client, exc.code, exc.message)
        except (ValueError, pr.ProtocolError) as exc:
            s.notify(_("not sent: {reason}").format(reason=exc))
        except LOST:
            s.notify(_("not sent: the connection was lost"))

    async def _command(self, client: lib.Client, command: Command) -> None:
        match command:
            case Act(action):
                if client.mirror is None or client.mirror.seq is None:
                    self.state.notify(_("no game yet"))
                else:
                    await client.act(action, wait=False)  # a refusal comes as an Error
            case Say(text):
                await client.chat(text)
            case Request():
                await self._request(client, command)
            case Connect() | Rescan() | Back():
                pass  # the start screen's: connected, they mean nothing

    async def _request(self, client: lib.Client, request: Request) -> None:
        s, params = self.state, request.params
        match request.kind:
            case Ask.LIST_ROOMS:
                s.rooms = await client.list_rooms()
                s.room_cursor = min(s.room_cursor, max(0, len(s.rooms) - 1))
            case Ask.CREATE_ROOM:
                await client.create_room(**params)
                self._joined(client)
            case Ask.JOIN:
                await client.join(**params)
                self._joined(client)
            case Ask.LEAVE:
                await client.leave()
                left = self.seen[0]
                self.state.forget_room()  # again: events may have drawn the table meanwhile
                if self.saved is not None and left is not None:
                    self.saved.forget(self.where, self.name, left, _server_id(client))
                await self._request(client, Request(Ask.LIST_ROOMS))
            case Ask.READY:
                await client.ready(**params)
            case Ask.START:
                await client.start()
            case Ask.ADD_BOT:
                await client.add_bot(**params)
            case Ask.REMOVE_BOT:
                await client.remove_bot(**params)
            case Ask.SYNC:
                await client.sync()
            case _:
                raise ValueError(f"unknown request {request.kind!r}")

    def _joined(self, client: lib.Client) -> None:
        s = self.state
        self._in_room(client.room)
        s.room_id, s.my_seat = client.room, client.seat
        if self.saved is not None and client.room is not None and client.token is not None:
            self.saved.save(self.where, self.name, client.room, client.token,
                            _server_id(client))

    def _in_room(self, room: str | None) -> None:
        """The messages are now about ``room``: if it is another one, nothing of the last
        one's log, chat or people carries over."""
        if self.seen[0] != room:
            self.seen = (room, 0)
            self.state.enter_room()
            self.state.room_id = room  # in it (its seats may come after its first event)

    async def _refused(self, client: lib.Client, code: str, message: str) -> None:
        if code == "bad_token":  # the seat is gone: back to the lobby
            gone = self.resuming.room if self.resuming is not None else self.seen[0]
            if self.saved is not None and gone is not None:
                self.saved.forget(self.where, self.name, gone, _server_id(client))
            self.state.forget_room()
            await self._call(client, lambda: self._request(client, Request(Ask.LIST_ROOMS)))
            if gone is not None:  # from disk, or after the connection was lost: the seat is given up
                self.state.notify(_("Your seat in room {room} is no longer held: choose a "
                                    "room.").format(room=gone), "info", 10, lasting=True)
                return
        self.state.on_error(code, message)

    # -- from the server -------------------------------------------------------------------

    async def _on_message(self, client: lib.Client, msg: Any) -> None:
        s = self.state
        lens = TableLens(client.mirror, self._names()) if isinstance(client.mirror, Tables) else None
        if isinstance(msg, pr.Event):
            self._in_room(client.room)
            if msg.seq > self.seen[1]:  # else shown already (a resume on a new connection
                self.seen = (client.room, msg.seq)  # replays the log)
                if msg.kind == "table_seated" and lens is not None and self.room is not None:
                    s.set_seats(lens.room(self.room))  # new tables: the own table's players
                data = dict(msg.data) if lens is None else lens.event(msg.kind, dict(msg.data))
                if data is not None:
                    s.on_event(msg.kind, data)
            self._show_table(client)
            self._caught_up(msg.seq)
        elif isinstance(msg, pr.Seats):
            if msg.room == client.room:
                self._in_room(client.room)
            self.room = {
                "seq": msg.seq, "room": msg.room, "name": msg.name, "host": msg.host,
                "seats": [dict(x) for x in msg.seats], "spectators": msg.spectators,
                "started": msg.started, "rules": dict(msg.rules), "timer": msg.timer,
            }
            if lens is None:
                s.set_seats(self.room)
            else:  # the room as the lobby shows it; the players as the own table names them
                s.set_seats(lens.room(self.room), table=lens.at_table(self.room))
        elif isinstance(msg, pr.Snapshot):
            if s.match_result is None:  # the match ended while we were away: who won
                if lens is not None and (end := lens.ended()) is not None:
                    s.on_event("rotation_over", end)
                elif lens is None and msg.match is not None:
                    s.on_event("match_over", dict(msg.match))
            self._show_table(client)
            self._caught_up(msg.seq)
        elif isinstance(msg, pr.Error):
            await self._refused(client, msg.code, msg.message)
        elif isinstance(msg, Verdict):
            s.on_verdict(msg)
        elif isinstance(msg, lib.Disconnected):
            self._lost(msg.error, msg.said)
        elif isinstance(msg, lib.Reconnected):
            s.set_status("connected", f"{self.host}:{self.port}")
            self._back()

    def _show_table(self, client: lib.Client) -> None:
        mirror = client.mirror
        if mirror is None or not mirror.rules:
            return
        view = client.view()  # None in the middle of an action's events
        if view is not None:
            self.state.set_view(view)
        if isinstance(mirror, Tables):
            self.state.other_table = OtherTable.of(mirror, self._names())
            self.state.my_seat = client.seat  # the room's seat (the view's is the table's)

    def _names(self) -> dict[int, str]:
        """The players' names by room seat (the room's last ``seats``)."""
        seats = self.room["seats"] if self.room is not None else ()
        return {e["seat"]: e["name"] for e in seats if e.get("name")}


def _server_id(client: lib.Client) -> str | None:
    """The server's own id (its welcome's; None from an older server): the seats on disk
    are kept by it, whichever address was typed."""
    return client.welcome.server_id if client.welcome is not None else None


async def network(
    state: UIState,
    commands: trio.MemoryReceiveChannel[Command],
    invalidate: Callable[[], None],
    *,
    host: str,
    port: int,
    name: str,
    auto: AutoStart | None = None,
    saved: SavedSeats | None = None,
    record: MatchRecord | None = None,
) -> None:
    """The guest's main: run one player's connection until the UI quits."""
    await Bridge(state, host, port, name, invalidate, auto, saved, record).run(commands)
