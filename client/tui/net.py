"""The UI's networking side: the client library, feeding a :class:`UIState`.

Runs as the asyncio loop's Trio guest. The connection, the handshake, requests and their
errors, the mirror of the table, the room seq on every action and resuming a dropped
seat with its token are all :func:`unolan.client.open_client`'s; this module only turns
the library's messages into screen state (calling ``invalidate`` after each) and the
keys' commands into library calls. Refusals become messages on the screen, never
exceptions. Losing the server shows "reconnecting"; if the library cannot resume the
seat, a new connection is opened and resumes it (forever, like a patient player).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import trio
from unolan.client import session as lib

from unolan import protocol as pr

from .state import Act, Command, Request, Say, UIState

log = logging.getLogger("unolan.client.tui")

CLIENT_NAME = "unolan-tui"
RETRY_DELAYS = (0.2, 0.5, 1.0, 2.0, 3.0)

# Whatever ends one connection (the loop then opens another).
LOST = (lib.ConnectionLost, OSError, trio.BrokenResourceError, trio.ClosedResourceError,
        trio.TooSlowError)
# The lobby requests a key may make: the library's methods of the same names.
REQUESTS = frozenset({"list_rooms", "create_room", "join", "leave", "ready", "start",
                      "add_bot", "remove_bot", "sync"})


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
                 invalidate: Callable[[], None], auto: AutoStart | None = None) -> None:
        self.state = state
        self.host, self.port, self.name = host, port, name
        self.invalidate = invalidate
        self.auto = auto
        self.client: lib.Client | None = None
        self.token: str | None = None  # a seat the library could not resume: resume it anew
        self.seen: tuple[str | None, int] = (None, 0)  # (room, seq) of the last event shown
        self.connected = False  # once connected, a failure is "reconnecting", not "offline"

    # -- the loop: connect, run, reconnect ------------------------------------------------

    async def run(self, commands: trio.MemoryReceiveChannel[Command]) -> None:
        s, where = self.state, f"{self.host}:{self.port}"
        attempt = 0
        while True:
            s.set_status("reconnecting" if self.connected else "connecting", where)
            self.invalidate()
            try:
                async with lib.open_client(self.host, self.port, self.name,
                                           client=CLIENT_NAME) as client:
                    self.client, self.connected = client, True
                    attempt = 0
                    await self._session(client, commands)
                    self.token = client.token
                s.set_status("reconnecting", "the connection was lost")
            except (*LOST, lib.ClientError) as exc:
                detail = str(exc) or type(exc).__name__
                if isinstance(exc, lib.ClientError):  # refused at the handshake
                    detail = f"refused: {exc.message}"
                log.debug("connection lost: %s", detail)
                if not self.connected and not isinstance(exc, lib.ClientError):
                    s.set_status("offline", f"cannot reach {where}: {detail}")
                else:
                    s.set_status("reconnecting", detail)
            finally:
                self.client = None
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

    async def _session(self, client: lib.Client, commands: trio.MemoryReceiveChannel[Command]) -> None:
        self.state.set_status("connected", f"{self.host}:{self.port}")
        self.invalidate()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._begin, client)
            nursery.start_soon(self._commands, client, commands)
            async for msg in client.messages():
                await self._on_message(client, msg)
                self.invalidate()
            nursery.cancel_scope.cancel()

    async def _begin(self, client: lib.Client) -> None:
        """Take back a seat from an earlier connection, or start ``uno play``'s game, or
        show the lobby."""
        token, auto = self.token, self.auto
        self.token = self.auto = None
        if token is not None:
            # seq 0: the new mirror is rebuilt from the room's log or a snapshot (the
            # events already shown are not logged twice).
            await self._call(client, lambda: client.resume(token, 0))
        elif auto is not None:
            async def play() -> None:
                await client.create_room(auto.room_name[:40], preset=auto.preset,
                                         options=auto.options or {}, seats=auto.bots + 1,
                                         timer=auto.timer)
                self._joined(client)
                for _ in range(auto.bots):
                    await client.add_bot()
                await client.start()

            await self._call(client, play)
        else:
            await self._call(client, lambda: self._request(client, Request("list_rooms")))
        self.invalidate()

    # -- from the keys ---------------------------------------------------------------------

    async def _commands(self, client: lib.Client, commands: trio.MemoryReceiveChannel[Command]) -> None:
        async for command in commands:
            if self.state.status != "connected":
                if isinstance(command, Act):
                    self.state.notify("not sent: the connection was lost")
            else:
                await self._call(client, lambda c=command: self._command(client, c))
            self.invalidate()

    async def _call(self, client: lib.Client, fn: Callable[[], Any]) -> None:
        """Run one library call; whatever it is refused becomes a message on the screen."""
        s = self.state
        try:
            await fn()
        except lib.ClientError as exc:
            await self._refused(client, exc.code, exc.message)
        except (ValueError, pr.ProtocolError) as exc:
            s.notify(f"not sent: {exc}")
        except LOST:
            s.notify("not sent: the connection was lost")

    async def _command(self, client: lib.Client, command: Command) -> None:
        s = self.state
        if isinstance(command, Act):
            if client.mirror is None or client.mirror.seq is None:
                s.notify("no game yet")
            else:
                await client.act(command.action, wait=False)  # a refusal comes as an Error
        elif isinstance(command, Say):
            await client.chat(command.text)
        else:
            await self._request(client, command)

    async def _request(self, client: lib.Client, request: Request) -> None:
        if request.kind not in REQUESTS:
            raise ValueError(f"unknown request {request.kind!r}")
        reply = await getattr(client, request.kind)(**request.params)
        s = self.state
        if request.kind == "list_rooms":
            s.rooms = reply
            s.room_cursor = min(s.room_cursor, max(0, len(s.rooms) - 1))
        elif request.kind in ("create_room", "join"):
            self._joined(client)
        elif request.kind == "leave":
            self.state.forget_room()  # again: events may have drawn the table meanwhile

    def _joined(self, client: lib.Client) -> None:
        s = self.state
        s.room_id, s.my_seat = client.room, client.seat
        if self.seen[0] != client.room:
            self.seen = (client.room, 0)

    async def _refused(self, client: lib.Client, code: str, message: str) -> None:
        if code == "bad_token":  # the seat is gone: back to the lobby
            self.state.forget_room()
            await self._call(client, lambda: self._request(client, Request("list_rooms")))
        self.state.on_error(code, message)

    # -- from the server -------------------------------------------------------------------

    async def _on_message(self, client: lib.Client, msg: Any) -> None:
        s = self.state
        if isinstance(msg, pr.Event):
            room, seq = self.seen
            if client.room != room or msg.seq > seq:  # else shown already (a resume on a
                self.seen = (client.room, msg.seq)    # new connection replays the log)
                s.on_event(msg.kind, dict(msg.data))
            self._show_table(client)
        elif isinstance(msg, pr.Seats):
            s.set_seats({
                "seq": msg.seq, "room": msg.room, "name": msg.name, "host": msg.host,
                "seats": [dict(x) for x in msg.seats], "spectators": msg.spectators,
                "started": msg.started, "rules": dict(msg.rules), "timer": msg.timer,
            })
        elif isinstance(msg, pr.Snapshot):
            self._show_table(client)
        elif isinstance(msg, pr.Error):
            await self._refused(client, msg.code, msg.message)
        elif isinstance(msg, lib.Disconnected):
            s.set_status("reconnecting", msg.reason)
        elif isinstance(msg, lib.Reconnected):
            s.set_status("connected", f"{self.host}:{self.port}")

    def _show_table(self, client: lib.Client) -> None:
        mirror = client.mirror
        if mirror is None or not mirror.rules:
            return
        view = client.view()  # None in the middle of an action's events
        if view is not None:
            self.state.set_view(view)


async def network(
    state: UIState,
    commands: trio.MemoryReceiveChannel[Command],
    invalidate: Callable[[], None],
    *,
    host: str,
    port: int,
    name: str,
    auto: AutoStart | None = None,
) -> None:
    """The guest's main: run one player's connection until the UI quits."""
    await Bridge(state, host, port, name, invalidate, auto).run(commands)
