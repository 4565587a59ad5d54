"""The built-in bot: a protocol client over TCP, knowing only what its seat may know.

The server never imports the client package, so when no ``bot_launcher`` is given the
host's bots are these: each connects to the server like any client, takes its seat with
``resume`` and the seat's token, and plays from its own view. When its turn comes it asks
for a ``snapshot`` (``sync``), computes the legal actions from the view alone
(``View.from_dict(...).legal_actions()``) and picks one with :mod:`.policy`. Between
turns it catches a player who went down to one card without calling UNO, as the facts of
each ``turn`` event say (``catchable``).

Every action it sends names a seq at which the table was whole: a snapshot's (the room
takes them between batches) or, for a catch, the seq of the ``turn`` event that closes a
batch. It never acts on an event in the middle of a batch, so it is not refused
``too_late`` for deciding early; it is only when someone else moved the table first, and
then it looks again. It acts at most once per snapshot seq: when two of its syncs cross,
the second snapshot of the table it already acted on is not acted on again.

In a two-table room the snapshot's view is its own table, in that table's seats: the
action it picks there is sent in the room's seats, and it catches only at its own table
(the one whose ``table_seated`` named it).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any, Protocol

import trio
from unolan.engine.rotation import Seats, to_global

from unolan import engine as en
from unolan import protocol as pr

from .policy import choose

log = logging.getLogger("unolan.server.bot")

LEVELS = ("basic",)
"""The bot levels this built-in bot plays (one: :mod:`.policy`'s)."""


_QUIET = frozenset({"not_started", "not_ready", "rate_limited", "not_in_room", "already_started"})


class Observer(Protocol):
    """Hooks for tools that watch bots (the benchmark)."""

    def sent(self, bot: Bot, msg: pr.Message) -> None: ...

    def received(self, bot: Bot, msg: pr.Message) -> None: ...


class Bot:
    """One bot on one connection."""

    def __init__(self, stream: trio.abc.Stream, *, name: str, token: str | None = None,
                 think: float = 0.0, observer: Observer | None = None, catch: bool = True,
                 join: str | None = None, create: pr.CreateRoom | None = None,
                 spectate: bool = False) -> None:
        """Take a seat with ``token`` (resume), or ``join`` a room, or ``create`` one
        (then, as its host, start the match once every seat is filled and ready)."""
        self.stream = stream
        self.join = join
        self.create = create
        self.spectate = spectate
        self.starting = False
        self.conn = pr.Connection(pr.CLIENT)
        self.name = name
        self.token = token
        self.think = think
        self.observer = observer
        self.catch = catch
        self.room: str | None = None
        self.seat: int | None = None
        self.seq = 0
        self.dealt = False  # a round has been dealt: the table exists to act on
        self.table: int | None = None  # in a two-table room: the table it plays at
        self.retries = 0
        self.acted: int | None = None  # the seq of the last action sent
        self.actions = 0
        self.matches = 0
        self.stop_after_match = False
        self.done = False

    async def send(self, msg: pr.Message) -> None:
        if self.observer is not None:
            self.observer.sent(self, msg)
        await self.stream.send_all(self.conn.send(msg))

    async def run(self, stop_after_match: bool = False) -> None:
        """Play until the server closes the connection (or after one match)."""
        self.stop_after_match = stop_after_match
        await self.stream.send_all(self.conn.hello(self.name, client="unolan-bot"))
        try:
            while not self.done:
                try:
                    data = await self.stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    return
                self.conn.receive_data(data)
                while not self.done:
                    msg = self.conn.next_event()
                    if msg is pr.NEED_DATA:
                        break
                    if msg is pr.CONNECTION_CLOSED:
                        return
                    assert isinstance(msg, pr.Message)
                    await self.on_message(msg)
        except pr.ProtocolError as exc:
            log.warning("bot %s: %s", self.name, exc)
        finally:
            with trio.CancelScope(shield=True):
                await trio.aclose_forcefully(self.stream)

    async def on_message(self, msg: pr.Message) -> None:
        if self.observer is not None:
            self.observer.received(self, msg)
        match msg:
            case pr.Welcome():
                if self.token is not None:
                    await self.send(pr.Resume(token=self.token, seq=0))
                elif self.create is not None:
                    await self.send(self.create)
                elif self.join is not None:
                    role = "spectator" if self.spectate else "player"
                    await self.send(pr.Join(room=self.join, role=role))
            case pr.Ping():
                await self.send(pr.Pong(id=msg.id))
            case pr.Joined():
                self.room, self.seat, self.seq = msg.room, msg.seat, msg.seq
                if self.token is None and self.seat is not None:
                    await self.send(pr.Ready())
                self.token = msg.token
            case pr.Seats():
                await self.on_seats(msg)
            case pr.Snapshot():
                self.seq = msg.seq
                if msg.seq != self.acted:
                    await self.decide(en.View.from_dict(dict(msg.view)), msg.seq, own_seats(msg, self.seat))
                # else: a second snapshot of the table we already acted on (two syncs crossed):
                # the action is on its way, and deciding again would only be refused.
            case pr.Event():
                await self.on_event(msg)
            case pr.Error():
                await self.on_error(msg)
            case pr.Bye():
                self.done = True

    async def on_error(self, msg: pr.Error) -> None:
        code = msg.code
        if msg.fatal:
            self.done = True
        elif code == "not_ready":
            self.starting = False
        elif code == "rate_limited" and self.dealt:
            await trio.sleep(0.25)  # the server asked us to slow down: look again later
            await self.send(pr.Sync())
        elif self.dealt and code not in _QUIET and self.retries < 3:
            self.retries += 1
            self.acted = None  # the action was refused: decide again on the next snapshot
            await self.send(pr.Sync())  # the table moved under us: look again

    async def on_seats(self, msg: pr.Seats) -> None:
        if self.seat is not None and not msg.started and self.create is None:
            mine = msg.seats[self.seat]
            if mine["kind"] == "human" and not mine["ready"]:
                await self.send(pr.Ready())  # a new match: ready again
        if self.create is None or msg.host != self.seat or msg.started:
            self.starting = False
            return
        ready = all(s["kind"] != "empty" and (s["ready"] or s["seat"] == msg.host
                                              or s["kind"] == "bot") for s in msg.seats)
        if not ready:
            self.starting = False
        elif not self.starting:
            self.starting = True
            await self.send(pr.Start())

    async def on_event(self, msg: pr.Event) -> None:
        self.seq = msg.seq
        kind = msg.kind
        if kind == "round_started":
            self.dealt = True
        elif kind == "table_seated" and self.seat in msg.data["seats"]:
            self.table = msg.data["table"]
        elif kind == "commitment" and self.seat is not None:  # its share of the round's seed
            await self.send(pr.Nonce(round=msg.data["round"], nonce=secrets.token_urlsafe(16)))
        elif kind == "turn":
            await self.on_turn(msg)
        elif kind in ("match_over", "rotation_over"):
            self.matches += 1
            if self.stop_after_match:
                self.done = True

    async def on_turn(self, msg: pr.Event) -> None:
        data = msg.data
        if self.catch and data["seat"] != self.seat and data.get("table") == self.table:
            # The batch's facts name who may be caught now: catch the first of the others.
            target = next((s for s in data["catchable"] if s != self.seat), None)
            if target is not None:
                await self.send(pr.Catch(seq=msg.seq, target=target))
        if data["seat"] == self.seat and data["phase"] in (en.Phase.PLAY, en.Phase.DRAWN, en.Phase.COLOR):
            self.retries = 0
            if self.think:
                await trio.sleep(self.think)
            await self.send(pr.Sync())

    async def decide(self, view: en.View, seq: int, seats: Seats | None = None) -> None:
        """Act on a whole table (``seats``: the room's seats of a two-table room's table)."""
        if view.seat is None or view.phase in (en.Phase.ROUND_OVER, en.Phase.MATCH_OVER):
            return
        mine = view.turn == view.seat
        hand = [en.Card.parse(c) for c in view.hand]
        action = choose(view.legal_actions(), hand, turn=mine)
        if action is None:
            return
        if seats is not None:
            action = to_global(action, seats)
        self.actions += 1
        self.acted = seq
        await self.send(pr.to_message(action, seq))


def own_seats(snapshot: pr.Snapshot, seat: int | None) -> Seats | None:
    """The room's seats of ``seat``'s table in a two-table room's snapshot (else None)."""
    for table in snapshot.tables or ():
        if seat in table["seats"]:
            a, b, c, d = table["seats"]
            return (a, b, c, d)
    return None


async def run_bot(*, host: str, port: int, room: str, seat: int, token: str, name: str,
                  level: str = "basic", think: float = 0.0, **_: Any) -> None:
    """The default ``bot_launcher``: connect, take the seat, play until the room closes."""
    stream = await trio.open_tcp_stream(host, port)
    await Bot(stream, name=name, token=token, think=think).run()
