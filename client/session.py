"""The networked client: one Trio connection to a server, with a mirror of the table.

::

    async with open_client("127.0.0.1", 7117, name="ann") as client:
        joined = await client.create_room("table", preset="house", seats=2)
        await client.add_bot(level="greedy")
        await client.start()
        async for msg in client.messages():         # Event, Seats, Snapshot, Error, ...
            view = client.view()                    # the engine View, or None
            if view and view.turn == client.seat:
                await client.act(view.legal_actions()[0])

Requests raise :class:`ClientError` carrying the protocol's error ``code``. Room events
update ``client.mirror`` (a :class:`~unolan.client.mirror.Mirror`) *before* they are
handed out, and a gap in ``seq`` is repaired from a snapshot (``sync``) on its own. A
lost connection is resumed with the seat's token (``reconnect=True``, the default): for a
few seconds, or for as long as it takes with ``keep_trying=True`` (a bot left running).

Every deal is checked (:mod:`.verify`): the client answers each ``commitment`` with a
random ``nonce`` of its own, and after each ``reveal`` it hands out a
:class:`~unolan.client.verify.Verdict` (after the event) saying whether the round was
dealt as committed. ``client.record`` (a :class:`~unolan.client.verify.MatchRecord`)
keeps what the client saw, for ``uno verify``.
"""

from __future__ import annotations

import dataclasses
import errno
import itertools
import logging
import math
import secrets
import socket
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

import trio

from unolan import engine as en
from unolan import protocol as pr

from .i18n import _, error_text
from .mirror import Mirror, SeqGap
from .tables import Tables
from .verify import DealVerifier, MatchRecord, Verdict

log = logging.getLogger("unolan.client")

CLIENT_NAME = "unolan-client"
RETRY_DELAYS = (0.1, 0.3, 1.0, 2.0, 3.0, 5.0)  # then, keeping on trying, every 5 s
CONNECT_TIMEOUT = 10.0


class ClientError(Exception):
    """The server refused a request: ``code`` from the protocol's table, ``message`` for people."""

    def __init__(self, code: str, message: str, fatal: bool = False) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.fatal = fatal


class ConnectionLost(Exception):
    """The connection ended and could not be resumed."""


class CannotConnect(ConnectionLost):
    """No connection was made, or the other side did not answer as a server: the
    message says why, in words for the person who typed the address."""


def version_mismatch(server: str, theirs: tuple[int, ...]) -> str:
    """One line for a server with no protocol version in common with this client, naming
    both sides' versions (``theirs``: the server's, as its error or LAN record lists them)."""
    return _("{server} speaks protocol {theirs}; this uno speaks {ours}: update one of them").format(
        server=server, theirs="/".join(map(str, theirs)) or "?",
        ours="/".join(map(str, pr.CLIENT_VERSIONS)))


def _broken(exc: BaseException) -> str:
    """What broke a connection, short: the system's words (``Connection reset by peer``)
    where an OSError is behind it, else the exception's."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror
        cause = cause.__cause__
    return str(exc) or type(exc).__name__


def _refusal(host: str, port: int, exc: OSError) -> str:
    """Why a TCP connection to ``host``:``port`` failed, and what to check."""
    where = f"{host}:{port}"
    if isinstance(exc, socket.gaierror):
        return _("unknown host {host!r}: check the address").format(host=host)
    # trio raises one OSError for every address it tried; the real ones are its cause.
    causes = exc.__cause__.exceptions if isinstance(exc.__cause__, BaseExceptionGroup) else (exc,)
    codes = {getattr(c, "errno", None) for c in causes}
    if errno.ECONNREFUSED in codes:
        return _("nothing is listening on {where} (connection refused): is the server (uno "
                 "host) running there, on that port?").format(where=where)
    if codes & {errno.EHOSTUNREACH, errno.ENETUNREACH}:
        return _("cannot reach {host}: no route to it; check the address and the network").format(host=host)
    if errno.ETIMEDOUT in codes:
        return _("no answer from {host}: check the address and that the machine is on").format(host=host)
    reason = next((c.strerror for c in causes if isinstance(c, OSError) and c.strerror), None)
    return _("cannot connect to {where}: {reason}").format(where=where, reason=reason or exc)


@dataclass(frozen=True)
class Disconnected:
    """Handed out by :meth:`Client.messages` when the connection drops (then resumed).
    ``error``: what broke it ('': the server closed it); ``said``: what the server said
    as it closed it, in the player's language (its fatal error's words, e.g. that it is
    stopping; '': nothing)."""

    reason: str
    error: str = ""
    said: str = ""


@dataclass(frozen=True)
class Reconnected:
    """The seat was resumed on a new connection."""

    seq: int


class _Slot:
    __slots__ = ("done", "reply")

    def __init__(self) -> None:
        self.done = trio.Event()
        self.reply: pr.Message | BaseException | None = None


DISMISSALS = frozenset({"removed", "replaced"})
"""Fatal errors after which the seat is someone else's (or nobody's): no reconnect."""


class Client:
    """A connection to a server. Build with :func:`open_client` (it runs the reader)."""

    def __init__(self, host: str, port: int, name: str, *, reconnect: bool = True,
                 client: str = CLIENT_NAME, bot: bool = False, keep_trying: bool = False) -> None:
        self.host, self.port, self.name, self.client = host, port, name, client
        self.bot = bot  # a program plays: the room shows this seat as a bot
        self.reconnect = reconnect
        self.keep_trying = keep_trying  # reconnect however long the server is away
        self.stream: trio.abc.Stream | None = None
        self.conn: pr.Connection | None = None
        self.welcome: pr.Welcome | None = None
        self.room: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.seats: pr.Seats | None = None  # the last ``seats`` message
        self.mirror: Mirror | Tables | None = None  # a two-table room's: both tables
        self.verifier: DealVerifier | None = None  # checks the deals of the seat's rounds
        self.verified_to = 0  # the seq of the last event the verifier heard
        self.record: MatchRecord | None = None  # set it to keep what this client saw
        self.closed = False
        self.resyncs = 0  # snapshots taken to repair a gap
        self.dismissed: pr.Error | None = None  # why the seat is no longer ours (removed, replaced)
        self._ids = itertools.count(1)
        self._waiting: dict[int, _Slot] = {}
        self._out, self._in = trio.open_memory_channel[Any](math.inf)
        self._send_lock = trio.Lock()
        self._syncing = False
        self._sync_ids: set[int] = set()
        # nonces sent and not yet answered, by request id: the verifier learns one once the
        # server takes it (a refusal, say too late, is no news)
        self._nonces: dict[int, tuple[int, str]] = {}
        self._resume_seq: int | None = None  # the seq a pending resume asked to go on from
        self._previous: Client | None = None  # the client a pending resume takes the seat from
        self._farewell: pr.Error | None = None  # the fatal error the connection ended with

    # -- connecting ----------------------------------------------------------------

    async def _connect(self) -> None:
        """Connect and do the handshake; :class:`CannotConnect` says why not."""
        where = f"{self.host}:{self.port}"
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                stream = await trio.open_tcp_stream(self.host, self.port)
        except trio.TooSlowError:
            raise CannotConnect(_("no answer from {where} within {seconds} seconds: check the "
                                  "address and that the machine is on").format(
                                      where=where, seconds=f"{CONNECT_TIMEOUT:g}")) from None
        except OSError as exc:
            raise CannotConnect(_refusal(self.host, self.port, exc)) from exc
        try:
            with trio.fail_after(CONNECT_TIMEOUT):
                self.welcome, conn = await self._handshake(stream)
        except trio.TooSlowError:
            await trio.aclose_forcefully(stream)
            raise CannotConnect(
                _("{where} accepted the connection but did not answer within {seconds} seconds: "
                  "is it an unolan server (uno host)?").format(
                      where=where, seconds=f"{CONNECT_TIMEOUT:g}")) from None
        except (OSError, trio.BrokenResourceError, pr.ProtocolError) as exc:
            await trio.aclose_forcefully(stream)
            raise CannotConnect(_("{where} does not speak the unolan protocol ({problem})").format(
                where=where, problem=exc)) from exc
        except BaseException:
            await trio.aclose_forcefully(stream)
            raise
        self.stream, self.conn = stream, conn

    async def _handshake(self, stream: trio.SocketStream) -> tuple[pr.Welcome, pr.Connection]:
        conn = pr.Connection(pr.CLIENT)
        await stream.send_all(conn.hello(self.name, self.client, bot=self.bot))
        msg = await _receive(stream, conn)
        if msg is pr.CONNECTION_CLOSED:
            raise CannotConnect(_("{where} closed the connection during the handshake: is it an "
                                  "unolan server (uno host)?").format(where=f"{self.host}:{self.port}"))
        if isinstance(msg, pr.Error):
            if msg.code == "unsupported_version":
                raise CannotConnect(version_mismatch(f"{self.host}:{self.port}", msg.versions or ()))
            raise ClientError(msg.code, msg.message, True)
        assert isinstance(msg, pr.Welcome)
        return msg, conn

    async def send(self, msg: pr.Message) -> None:
        """Send one message as it is (no waiting for a reply)."""
        if self.conn is None or self.stream is None:
            raise ConnectionLost("not connected")
        if self.conn.state is pr.State.CLOSED:  # the server said goodbye (it is stopping, say)
            raise ConnectionLost("the server closed the connection")
        async with self._send_lock:
            await self.stream.send_all(self.conn.send(msg))

    async def request(self, msg: pr.Message) -> pr.Message:
        """Send a request with a fresh ``id`` and wait for its reply; errors raise."""
        id = next(self._ids)
        msg = dataclasses.replace(msg, **{"id": id})  # every request has an id field
        slot = self._waiting[id] = _Slot()
        try:
            await self.send(msg)
            await slot.done.wait()
        finally:
            self._waiting.pop(id, None)
        reply = slot.reply
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, pr.Error):
            raise ClientError(reply.code, reply.message, reply.fatal)
        assert reply is not None
        return reply

    # -- lobby -----------------------------------------------------------------------

    async def list_rooms(self) -> list[dict[str, Any]]:
        reply = await self.request(pr.ListRooms())
        assert isinstance(reply, pr.Rooms)
        return [dict(r) for r in reply.rooms]

    async def create_room(self, name: str, *, preset: str = "house",
                          options: Mapping[str, Any] | None = None, seats: int = 4,
                          password: str | None = None, timer: int = 0, teams: int = 0) -> pr.Joined:
        """Open a room and take its first seat as host.

        ``options`` are the rule options on top of ``preset``, as a rule set names them
        (``Rules.changes()``); ``teams`` among them goes in the message's own field."""
        options = dict(options or {})
        teams = options.pop("teams", teams)
        reply = await self.request(pr.CreateRoom(
            name=name, preset=preset, options=options, seats=seats,
            password=password, timer=timer, teams=teams))
        assert isinstance(reply, pr.Joined)
        return self._joined(reply)

    async def join(self, room: str, *, role: str = "player", password: str | None = None) -> pr.Joined:
        reply = await self.request(pr.Join(room=room, role=role, password=password))
        assert isinstance(reply, pr.Joined)
        return self._joined(reply)

    async def resume(self, token: str, seq: int = 0, *, previous: Client | None = None) -> pr.Joined:
        """Take a seat back (or a seat a host reserved for a bot) with its token.
        ``previous``: the client this program played the seat with until its connection
        gave up (a program that connects anew, as the terminal UI does): the checks of
        the seat's deals go on from what it saw (the commitments and deals of the round
        under way are not sent again, e.g. by a restarted server)."""
        self._resume_seq, self._previous = seq, previous
        try:
            reply = await self.request(pr.Resume(token=token, seq=seq))
        finally:
            self._previous = None
        assert isinstance(reply, pr.Joined)
        return self._joined(reply)

    async def leave(self) -> None:
        await self.request(pr.Leave())
        self.room = self.seat = self.token = None
        self.mirror = None

    async def ready(self, ready: bool = True) -> None:
        await self.request(pr.Ready(ready=ready))

    async def start(self) -> None:
        await self.request(pr.Start())

    async def add_bot(self, seat: int | None = None, level: str | None = None) -> None:
        await self.request(pr.AddBot(seat=seat, level=level))

    async def remove_bot(self, seat: int) -> None:
        await self.request(pr.RemoveBot(seat=seat))

    async def chat(self, text: str) -> None:
        await self.request(pr.Chat(text=text))

    async def sync(self) -> None:
        """Ask for a fresh snapshot (it updates the mirror when it arrives)."""
        self._syncing = True
        id = next(self._ids)
        self._sync_ids.add(id)
        await self.send(pr.Sync(id=id))

    def _joined(self, reply: pr.Joined) -> pr.Joined:
        same_seat = self.mirror is not None and self.room == reply.room and self.seat == reply.seat
        self.room, self.seat, self.token = reply.room, reply.seat, reply.token
        resumed, self._resume_seq = self._resume_seq, None
        if not same_seat:
            self.mirror = Mirror(reply.seat)
            self.verifier, self.verified_to = DealVerifier(reply.seat), 0
            previous = self._previous
            if (previous is not None and previous.verifier is not None
                    and (previous.room, previous.seat) == (reply.room, reply.seat)):
                self.verifier, self.verified_to = previous.verifier, previous.verified_to
            if self.record is not None:
                self.record.write({"seat": reply.seat})
            # After a join, events go on from the reply's seq; after a resume, from ours
            # (unless ours is ahead of the room's, as after a restart: then from the room's).
            self.mirror.seq = reply.seq if resumed is None or resumed > reply.seq else resumed
            if self.seats is not None and self.seats.room == reply.room:
                self._set_rules(self.seats.rules)
        return reply

    # -- the table -------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The room seq of the last event processed (actions are decided on it)."""
        mirror = self.mirror
        return mirror.seq if mirror is not None and mirror.seq is not None else 0

    def view(self) -> en.View | None:
        """The seat's view of the table; None before the first deal, in the middle of an
        action's events, or while resyncing."""
        mirror = self.mirror
        if mirror is None or not mirror.started or not mirror.settled or self._syncing:
            return None
        return mirror.view()

    async def act(self, action: en.Action, *, wait: bool = True) -> None:
        """Send a game action decided on the current table. ``wait``: until the server
        accepts it (raising :class:`ClientError`, e.g. ``too_late``, if it refuses);
        else a refusal arrives in :meth:`messages` as an ``Error``."""
        if isinstance(action, en.Deal):
            return  # the server deals the next round itself
        if isinstance(self.mirror, Tables):
            action = self.mirror.to_global(action)
        msg = pr.to_message(action, self.seq)
        if wait:
            await self.request(msg)
        else:
            await self.send(msg)

    # -- receiving -------------------------------------------------------------------

    async def messages(self) -> AsyncIterator[Any]:
        """Every message from the server that is not a reply to a request: ``Event``,
        ``Seats``, ``Snapshot``, ``Error`` (of actions sent without waiting), plus
        :class:`Disconnected` / :class:`Reconnected`, and a :class:`Verdict` after each
        ``reveal``. Ends when the connection is gone."""
        async for item in self._in:
            yield item

    def next_message_nowait(self) -> Any:
        """The next message if one is waiting (``trio.WouldBlock`` otherwise)."""
        return self._in.receive_nowait()

    async def next_message(self) -> Any:
        """The next message, once one comes (``trio.EndOfChannel`` once the connection
        is gone): :meth:`messages` one at a time, for a reader that also waits for a time."""
        return await self._in.receive()

    async def _reader(self) -> None:
        try:
            while True:
                try:
                    await self._read_connection()
                    reason, error = "the server closed the connection", ""
                except (OSError, trio.BrokenResourceError, trio.ClosedResourceError,
                        pr.ProtocolError, ConnectionLost) as exc:
                    error = _broken(exc)
                    reason = f"connection lost: {error}"
                farewell, self._farewell, said = self._farewell, None, ""
                if farewell is not None:  # the server said why, before the end
                    reason = said = error_text(farewell.code, farewell.message)
                if self.closed:
                    return
                self._fail_waiting(ConnectionLost(reason))
                if not (self.reconnect and self.token):
                    return
                await self._out.send(Disconnected(reason, error, said))
                if not await self._resume():
                    return
        finally:
            self._fail_waiting(ConnectionLost("the connection is closed"))
            self._out.close()

    def _fail_waiting(self, exc: BaseException) -> None:
        for slot in list(self._waiting.values()):
            slot.reply = exc
            slot.done.set()
        self._waiting.clear()

    async def _resume(self) -> bool:
        delays = itertools.chain(RETRY_DELAYS, itertools.repeat(RETRY_DELAYS[-1]) if self.keep_trying else ())
        for delay in delays:
            await trio.sleep(delay)
            try:
                await self._connect()
            except (OSError, trio.TooSlowError, ConnectionLost, ClientError) as exc:
                log.info("reconnect failed: %s", exc)
                continue
            assert self.token is not None
            seq = self._resume_seq = self.seq
            await self.send(pr.Resume(token=self.token, seq=seq, id=next(self._ids)))
            await self._out.send(Reconnected(seq))
            if self._syncing:
                await self.sync()
            return True
        return False

    async def _read_connection(self) -> None:
        assert self.stream is not None and self.conn is not None
        stream, conn = self.stream, self.conn
        while (msg := await _receive(stream, conn)) is not pr.CONNECTION_CLOSED:
            assert isinstance(msg, pr.Message)
            await self._dispatch(msg)

    async def _dispatch(self, msg: pr.Message) -> None:
        match msg:
            case pr.Ping():
                await self.send(pr.Pong(id=msg.id))
                return
            case pr.Bye():
                return
            case pr.Seats():
                self.seats = msg
                if self.mirror is not None and msg.room == self.room:
                    self._set_rules(msg.rules)
            case pr.Joined():  # before the events that follow it
                self._joined(msg)
            case pr.Snapshot():
                if isinstance(self.mirror, Tables):
                    self.mirror.load(msg)
                elif self.mirror is not None:
                    self.mirror.load(msg.view, msg.seq)
                if self.verifier is not None:
                    self.verifier.lost_track()
                self._syncing = False
            case pr.Event():
                verdict = await self._on_event(msg)
                await self._out.send(msg)
                if verdict is not None:  # a reveal: the round's deal checked
                    await self._out.send(verdict)
                return
        id = getattr(msg, "id", None)
        slot = self._waiting.get(id) if id is not None else None
        if slot is not None:
            slot.reply = msg
            slot.done.set()
        if isinstance(msg, pr.Error):
            if msg.code == "bad_token":
                self.token = None
            if msg.fatal and msg.code in DISMISSALS:  # resuming would only take it back
                self.token, self.dismissed = None, msg
            elif msg.fatal:  # the connection ends with it: the server stopping, say
                self._farewell = msg
            if id in self._sync_ids:  # no game to sync with (yet)
                self._syncing = False
        if id is not None and (sent := self._nonces.pop(id, None)) is not None:
            if isinstance(msg, pr.Error):  # the deal went ahead without it (a seat that
                # joined as it was sealed, say): the reveal says the server drew its part
                log.debug("nonce refused: %s", msg.message)
            else:
                self._nonce_taken(*sent)
            return
        if id in self._sync_ids and isinstance(msg, pr.Error | pr.Snapshot):
            self._sync_ids.discard(id)
        if isinstance(msg, pr.Ok | pr.Pong | pr.Rooms | pr.Joined) or (isinstance(msg, pr.Error) and slot is not None):
            return  # replies go to whoever asked
        await self._out.send(msg)

    def _set_rules(self, rules: Mapping[str, Any]) -> None:
        assert self.mirror is not None
        seats = len(self.seats.seats) if self.seats is not None else 0
        if isinstance(self.mirror, Mirror) and en.two_tables(en.Rules.from_dict(dict(rules)), seats):
            self.mirror = Tables(self.seat, rules, self.mirror.seq)  # the room has two tables
        self.mirror.set_rules(rules)
        if self.verifier is not None:
            self.verifier.set_rules(rules)
        if self.record is not None:
            self.record.write({"rules": dict(rules)})

    async def _on_event(self, msg: pr.Event) -> Verdict | None:
        """Fold a new event into the mirror and the deal's check; answer a commitment."""
        mirror = self.mirror
        if mirror is None or self._syncing:
            return None
        try:
            if not mirror.feed(msg.seq, msg.kind, msg.data):
                return None  # seen already
        except SeqGap as gap:
            log.info("%s", gap)
            self.resyncs += 1
            await self.sync()
            return None
        if self.record is not None:
            self.record.write({"seq": msg.seq, "kind": msg.kind, "data": msg.data})
        if msg.kind == "commitment" and self.seat is not None:
            await self._send_nonce(msg.data["round"])
        if self.verifier is None or msg.seq <= self.verified_to:  # heard by a previous client
            return None
        self.verified_to = msg.seq
        return self.verifier.feed(msg.kind, msg.data)

    async def _send_nonce(self, round: int) -> None:
        """This seat's share of the round's seed: 128 random bits nobody else knows."""
        assert self.conn is not None
        if (self.conn.version or 0) < pr.FAIR_DEAL_VERSION:
            return
        nonce = secrets.token_urlsafe(16)
        id = next(self._ids)
        self._nonces[id] = (round, nonce)
        await self.send(pr.Nonce(round=round, nonce=nonce, id=id))

    def _nonce_taken(self, round: int, nonce: str) -> None:
        """The server answered ``ok``: the reveal must list this nonce at our seat."""
        if self.verifier is not None:
            self.verifier.sent_nonce(round, nonce)
        if self.record is not None:
            self.record.write({"round": round, "nonce": nonce})

    async def aclose(self) -> None:
        """Say bye and close the connection."""
        if self.closed:
            return
        self.closed = True
        if self.stream is not None and self.conn is not None:
            try:
                with trio.move_on_after(1):
                    with suppress(pr.ProtocolError, OSError, trio.BrokenResourceError,
                                  trio.ClosedResourceError, ConnectionLost):
                        await self.send(pr.Bye())
            finally:  # cancelled too: the socket is closed, not left to the collector
                await trio.aclose_forcefully(self.stream)


async def _receive(stream: trio.abc.ReceiveStream, conn: pr.Connection) -> Any:
    """The connection's next message (or ``CONNECTION_CLOSED``), reading as needed."""
    while (msg := conn.next_event()) is pr.NEED_DATA:
        conn.receive_data(await stream.receive_some(65536))
    return msg


@asynccontextmanager
async def open_client(host: str, port: int, name: str, *, reconnect: bool = True,
                      client: str = CLIENT_NAME, bot: bool = False,
                      keep_trying: bool = False) -> AsyncIterator[Client]:
    """Connect, do the handshake and run the reader until the block ends.

    ``bot``: say in the handshake that a program plays (the room shows the seat as a
    bot). ``keep_trying``: a lost connection is resumed however long the server is away
    (by default the client gives up after some seconds: the messages end). An error raised in the block comes out as itself, not wrapped in the
    ``ExceptionGroup`` of the reader's nursery, so ``except ConnectionLost`` around the
    block works; errors of several tasks at once still come out as a group.
    """
    c = Client(host, port, name, reconnect=reconnect, client=client, bot=bot, keep_trying=keep_trying)
    await c._connect()
    single: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(c._reader)
            try:
                yield c
            finally:
                await c.aclose()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        single = only_error(group)
        if single is None:
            raise
    if single is not None:
        raise single  # outside the handler: no "during handling" group in its context


def first_error(error: BaseException) -> BaseException:
    """The first exception that is not a group, however deep (what a one-line message
    at a command-line edge tells about)."""
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


def only_error(group: BaseExceptionGroup) -> BaseException | None:
    """The one exception inside ``group`` (through nested groups of one), or None."""
    while len(group.exceptions) == 1:
        inner = group.exceptions[0]
        if not isinstance(inner, BaseExceptionGroup):
            return inner
        group = inner
    return None
