"""A room: its seats, its game, its event log and its timers, owned by one task.

Every request that touches a room is a command on the room's channel; the room task
applies them one at a time, in arrival order. That order settles every race (two
jump-ins, an UNO call against a catch, two catches): no locks, no second writer.

Sequence numbers and "too late"
-------------------------------
Every room event gets the next ``seq`` and every member of the room sees every ``seq``.
An engine event with private fields (the cards of a ``drew`` or a ``hand``, the hand a
challenger is shown, the card a seat just drew) goes in full to the seat the engine's
table of event kinds names, and without those fields, under the same ``seq``, to every
other member (:meth:`~unolan.engine.Event.data_for`).

Every game action names the ``seq`` it was decided on. The events of one action (or of
one deal) form a batch that ends with an event that closes it (``turn``, ``round_over``
or ``match_over``). The room keeps ``moved``: the last seq of the last batch holding an
event that *moves the table* (:data:`TABLE_EVENTS`, from the engine's table: a card
played, cards drawn, a turn passed, a color named, a challenge, a catch, hands swapped or
rotated, a round dealt or ended). Those are the events that change what an action is
judged against: whose turn it is, the top card, the hands. An action whose seq is older
than ``moved`` was decided on a table that is gone; it is refused with ``too_late`` and
nothing changes. So of several jump-ins or catches sent on the same
seq, the first to arrive is applied and the others are too late, and a play sent by the
player whose turn a jump-in took is too late too. Chat, presence, ``turn`` and ``uno``
events do not move the table (an UNO call is answered by the engine: a catch of a
player who has called is refused with ``cannot_catch``).
"""

from __future__ import annotations

import logging
import secrets
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import trio
from unolan.protocol.framing import encode_frame

from unolan import engine as en
from unolan import protocol as pr

from .limits import Peer, TokenBucket
from .policy import choose
from .store import RoomRecord, SeatRecord, token_hash

if TYPE_CHECKING:
    from .app import Server, Session

log = logging.getLogger("unolan.server")

_NEVER = float("inf")

TABLE_EVENTS = frozenset(kind for kind, spec in en.EVENT_KINDS.items() if spec.moves)
"""Event kinds that move the table: an action decided before one of them is too late."""

LOBBY_REQUESTS = ("leave", "ready", "start", "add_bot", "remove_bot", "chat", "sync")

PAUSED = "the server cannot save the game; paused"
RESUMED = "the server can save the game again; play goes on"
# What a paused room refuses (``paused``): anything that would play or change the room.
# Leaving, resuming, syncing and disconnecting go on; their answers wait for the disk.
_REFUSED_WHILE_PAUSED = frozenset(pr.ACTIONS) | {"ready", "start", "add_bot", "remove_bot", "chat"}


@dataclass(eq=False)
class Seat:
    index: int
    kind: str = "empty"  # empty | human | bot
    name: str | None = None
    session: Session | None = None
    token_hash: str | None = None  # of the token that resumes the seat (the token is not kept)
    ready: bool = False
    autopilot: bool = False  # after repeated turn timeouts, until the player acts again
    abandoned: bool = False  # left the match, or the reconnect grace ran out
    timeouts: int = 0
    level: str | None = None  # a bot's strategy
    program: bool = False  # a client that said in its hello that a program plays
    grace_until: float | None = None
    held_until: float | None = None  # after a restore: the owner's turns wait this long for them
    bot_scope: trio.CancelScope | None = None
    chat: TokenBucket | None = None  # the seat's chat allowance, across reconnects

    @property
    def state(self) -> str:
        if self.kind == "empty":
            return "empty"
        if self.session is not None:
            return "autopilot" if self.autopilot else "connected"
        return "autopilot" if self.abandoned else "away"

    @property
    def piloted(self) -> bool:
        """Whether the server plays this seat's turns."""
        return self.kind != "empty" and (self.autopilot or self.session is None)


@dataclass(eq=False)
class Watcher:
    """A spectator, known by its token's hash; its connection comes and goes."""

    token_hash: str
    name: str | None
    session: Session | None = None
    grace_until: float | None = None  # disconnected: the token is forgotten after this
    chat: TokenBucket | None = None  # its chat allowance, across reconnects


def _frame(seq: int, kind: str, data: dict[str, Any]) -> bytes:
    """One ``event`` frame. The data comes from the engine or from the room itself, never
    from a client, so it is not checked again here (clients check every frame)."""
    return encode_frame({"type": "event", "seq": seq, "kind": kind, "data": data})


# One room event in the log: its frame when everyone sees the same one, else one frame
# per seat and then the spectators' (None: no frame). Every seq is logged, in order, so
# an entry's seq is its distance from the room's last one and is not kept.
LogEntry = "bytes | tuple[bytes | None, ...]"


def frame_for(entry: LogEntry, seat: int | None) -> bytes | None:
    if type(entry) is bytes:
        return entry
    return entry[-1 if seat is None else seat]  # type: ignore[index]


class Room:
    """One table. Only :meth:`run` (the room task) changes it; others :meth:`post`."""

    def __init__(self, server: Server, room_id: str, *, name: str, preset: str, rules: en.Rules,
                 seats: int, timer: int = 0, password: str | None = None,
                 seed: int | str | None = None) -> None:
        """``password``: the hash of the room's password (:func:`.store.hash_password`)."""
        self.server = server
        self.limits = server.limits
        self.store = server.store
        self.id = room_id
        self.name = name
        self.preset = preset
        self.rules = rules
        self.password = password
        self.timer = timer
        self.seed = seed
        self.matches = 0
        self.match_seed: int | str | None = None
        self.actions = 0  # actions applied in the current match (the store numbers them)
        self.seats = [Seat(i) for i in range(seats)]
        self.watchers: dict[str, Watcher] = {}  # token hash -> spectator
        self.spectators: dict[Session, Watcher] = {}  # the connected ones
        self.host: int | None = None
        self.creator: Peer | None = None  # the address that created the room (it counts it)
        self.paused = False  # saving fails: nothing is played until it works again
        self.game: en.Game | None = None
        self.started = False
        self.seq = 0
        self.moved = 0
        self.log: deque[LogEntry] = deque(maxlen=self.limits.room_log)
        self.closed = False
        self.inbox_send, self.inbox = trio.open_memory_channel[tuple[Any, ...]](512)
        self.gone: list[Session] = []
        # timers (absolute trio times, None = off)
        self.turn_key: tuple[int, str, int] | None = None
        self.turn_deadline: float | None = None
        self.pilot_deadline: float | None = None
        self.deal_deadline: float | None = None
        self.idle_deadline: float | None = trio.current_time() + self.limits.room_idle
        self._rules_map = self.rules.to_dict()

    # -- outside the room task ---------------------------------------------------------

    def post(self, command: tuple[Any, ...]) -> bool:
        """Queue a command without waiting; False if the room is closed or swamped."""
        try:
            self.inbox_send.send_nowait(command)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    def notify_gone(self, session: Session) -> None:
        """A member's connection ended (called from its handler, never blocks)."""
        if not self.post(("gone", session)):
            self.gone.append(session)

    def summary(self) -> dict[str, Any]:
        return {
            "room": self.id, "name": self.name, "preset": self.preset,
            "seats": len(self.seats),
            "players": sum(s.kind != "empty" for s in self.seats),
            "spectators": len(self.spectators), "started": self.started,
            "password": self.password is not None,
        }

    # -- the room task -----------------------------------------------------------------

    async def run(self) -> None:
        server = self.server
        inbox = self.inbox
        try:
            while not self.closed:
                deadline = self._next_deadline()
                command = None
                if deadline == _NEVER:  # no timer running: no cancel scope to set up
                    command = await inbox.receive()
                else:
                    with trio.move_on_at(deadline):
                        command = await inbox.receive()
                server.cork(self)  # each member's frames of this wake-up: one write
                try:
                    if self.store is not None and self.store.failing is not self.paused:
                        self._saving_changed()
                    if command is not None:
                        self._safely(self._handle, command)
                    while self.gone:
                        self._safely(self._handle, ("gone", self.gone.pop(0)))
                    self._safely(self._timers, trio.current_time())
                finally:
                    server.uncork(self)
        finally:
            self._close()

    def _safely(self, fn: Callable[..., None], *args: Any) -> None:
        """A bug in one command is logged and answered; it never kills the room. The log
        names the command's kind only (a request may name cards)."""
        try:
            fn(*args)
        except Exception as exc:
            command = args[0] if args else None
            what = command[0] if isinstance(command, tuple) else fn.__name__
            if isinstance(command, tuple) and len(command) > 2 and isinstance(command[2], pr.Message):
                what = f"{what} {command[2].TYPE}"
            if isinstance(exc, en.IllegalAction):  # its text holds the position: not logged
                log.error("room %s: the engine refused an action of the server's own (%s) while "
                          "handling %s", self.id, exc.code, what)
            else:
                log.exception("room %s: error handling %s", self.id, what)
            if args and isinstance(args[0], tuple) and len(args[0]) > 2:
                session, msg = args[0][1], args[0][2]
                if isinstance(msg, pr.Message):
                    session.error("internal", "the server failed on this request", msg)

    def _next_deadline(self) -> float:
        times = [t for t in (self.turn_deadline, self.pilot_deadline, self.deal_deadline,
                             self.idle_deadline) if t is not None]
        times += [s.grace_until for s in self.seats if s.grace_until is not None]
        times += [w.grace_until for w in self.watchers.values() if w.grace_until is not None]
        return min(times, default=_NEVER)

    def _close(self) -> None:
        if self.closed and self.id not in self.server.rooms:
            return
        self.closed = True
        self.inbox_send.close()
        for seat in self.seats:
            if seat.bot_scope is not None:
                seat.bot_scope.cancel()
            if seat.token_hash:
                self.server.tokens.pop(seat.token_hash, None)
            if seat.session is not None:
                seat.session.room = None
        for key in self.watchers:  # also those of spectators who disconnected
            self.server.tokens.pop(key, None)
        for session in self.spectators:
            session.room = None
        self.server.rooms.pop(self.id, None)
        log.info("room %s closed", self.id)

    # -- commands ----------------------------------------------------------------------

    def _handle(self, command: tuple[Any, ...]) -> None:
        what = command[0]
        if what == "gone":
            self._on_gone(command[1])
            return
        if what == "bots":
            self._relaunch_bots()
            return
        if what == "saving":  # the store's health changed: run() has seen to it
            return
        session, msg = command[1], command[2]
        if self.paused and (what == "join" or msg.TYPE in _REFUSED_WHILE_PAUSED):
            session.joining = None
            session.error("paused", PAUSED + "; try again when it resumes", msg, now=True)
            return
        if what == "join":
            self._on_join(session, msg, creator=command[3])
        elif what == "resume":
            self._on_resume(session, msg)
        elif session.room is not self:
            session.error("not_in_room", "you are not in this room", msg)
        elif msg.TYPE in pr.ACTIONS:
            self._on_action(session, msg)
        else:
            getattr(self, "_on_" + msg.TYPE)(session, msg)

    def _seat_of(self, session: Session) -> Seat | None:
        seat = session.seat
        if seat is not None and self.seats[seat].session is session:
            return self.seats[seat]
        return None

    def _on_join(self, session: Session, msg: pr.Join, creator: bool) -> None:
        """A join (the password, if any, was checked by the session, off the event loop)."""
        session.joining = None
        if session.room is not None:
            session.error("already_in_room", "leave your room first", msg)
            return
        token = secrets.token_urlsafe(18)
        key = token_hash(token)
        if msg.role == "spectator":
            if len(self.spectators) >= self.limits.max_spectators or \
                    len(self.watchers) >= 2 * self.limits.max_spectators:
                session.error("room_full", "no room for more spectators", msg)
                return
            watcher = self.watchers[key] = Watcher(key, session.name, session)
            self.spectators[session] = watcher
            if self.store is not None:
                self.store.save_spectator(self.id, key, session.name)
            seat_index = None
        else:
            if self.started:
                session.error("already_started", "the match has started; join as a spectator", msg)
                return
            free = next((s for s in self.seats if s.kind == "empty"), None)
            if free is None:
                session.error("room_full", "every seat is taken; join as a spectator", msg)
                return
            free.kind, free.name, free.session, free.token_hash = "human", session.name, session, key
            free.ready, free.program = False, session.bot
            seat_index = free.index
            if creator or self.host is None:
                self.host = seat_index
        self.server.tokens[key] = self
        session.room, session.seat, session.token = self, seat_index, token
        session.send(pr.Joined(room=self.id, seat=seat_index, token=token, seq=self.seq, id=msg.id))
        self._public("player_joined", {"seat": seat_index, "name": session.name, "bot": session.bot})
        self._send_seats()
        if self.game is not None:
            self._snapshot(session, seat_index)
        self._check_idle()

    def _on_resume(self, session: Session, msg: pr.Resume) -> None:
        session.joining = None
        token = msg.token
        key = token_hash(token)
        if session.room is not None:
            session.error("already_in_room", "this connection is already in a room", msg)
            return
        seat = next((s for s in self.seats if s.token_hash == key), None)
        watcher = self.watchers.get(key)
        if seat is None and watcher is None:
            session.error("bad_token", "unknown or expired token", msg)
            return
        if seat is not None:
            old = seat.session
            if old is not None and old is not session:
                old.room = None
                old.close("replaced", "this seat was resumed from another connection")
            seat.session, seat.grace_until = session, None
            seat.autopilot, seat.timeouts = False, 0
            if seat.kind != "bot":
                seat.name, seat.program = session.name, session.bot
            if seat.held_until is not None:  # back after a restore: the turn clock starts now
                seat.held_until = None
                self._restart_turn_clock()
            index: int | None = seat.index
        else:
            assert watcher is not None
            old = watcher.session
            if old is not None and old is not session:
                del self.spectators[old]
                old.room = None
                old.close("replaced", "resumed from another connection")
            watcher.session, watcher.grace_until = session, None
            self.spectators[session] = watcher
            index = None
        session.room, session.seat, session.token = self, index, token
        session.send(pr.Joined(room=self.id, seat=index, token=token, seq=self.seq, id=msg.id))
        self._send_seats()  # everyone: the seat is connected again
        first = self.seq - len(self.log) + 1  # the oldest logged seq
        if msg.seq == self.seq or first <= msg.seq + 1 <= self.seq:
            missed = list(self.log)[msg.seq + 1 - first:]
            for entry in missed:  # nothing missed, or all of it still in the log
                frame = frame_for(entry, index)
                if frame is not None:
                    session.push(frame)
        elif self.game is not None:  # too far behind, or ahead of the room (a restart): all of it
            self._snapshot(session, index)
        if index is not None:
            self._public("connection", {"seat": index, "state": "connected"})
        self._check_idle()

    def bot_token(self, key: str) -> bool:
        """Whether ``key`` (a token's hash) is one the server gave a bot of its own."""
        return any(s.kind == "bot" and s.token_hash == key for s in self.seats)

    def _on_gone(self, session: Session) -> None:
        watcher = self.spectators.pop(session, None)
        if watcher is not None:
            watcher.session = None  # its token resumes for a grace period, then it is forgotten
            watcher.grace_until = trio.current_time() + self.limits.grace
            self._send_seats()
        seat = self._seat_of(session)
        if seat is None:
            self._check_idle()
            return
        seat.session = None
        if not self.started:
            if seat.kind == "bot":
                seat.grace_until = trio.current_time() + self.limits.grace
            else:
                self._vacate(seat)
        else:
            seat.grace_until = trio.current_time() + self.limits.grace
            self._public("connection", {"seat": seat.index, "state": "away"})
        self._send_seats()
        self._check_idle()

    def _forget_watcher(self, watcher: Watcher) -> None:
        del self.watchers[watcher.token_hash]
        self.server.tokens.pop(watcher.token_hash, None)
        if self.store is not None:
            self.store.drop_spectator(self.id, watcher.token_hash)

    def _vacate(self, seat: Seat) -> None:
        name = seat.name or "?"
        if seat.token_hash:
            self.server.tokens.pop(seat.token_hash, None)
        if seat.bot_scope is not None:
            seat.bot_scope.cancel()
        if seat.session is not None:
            seat.session.room = seat.session.seat = None
            if seat.kind == "bot":
                seat.session.close("removed", "the host removed this bot")
        index = seat.index
        self.seats[index] = Seat(index)
        self._public("player_left", {"seat": index, "name": name})
        self._hand_over_host(index)

    def _hand_over_host(self, left: int) -> None:
        """Seat ``left`` is no longer played by its person: if it held the host, the first
        connected human becomes host (or nobody)."""
        if self.host == left:
            self.host = next((s.index for s in self.seats if s.kind == "human" and s.session), None)
            if self.host is not None:
                self._public("host", {"seat": self.host})

    def _on_leave(self, session: Session, msg: pr.Leave) -> None:
        seat = self._seat_of(session)
        if seat is None:
            watcher = self.spectators.pop(session, None)
            if watcher is not None:
                self._forget_watcher(watcher)
            session.room = None
            session.ok(msg)
            self._send_seats()
            self._check_idle()
            return
        if self.started:
            # The seat stays in the match, played by the server; the token no longer resumes.
            if seat.token_hash:
                self.server.tokens.pop(seat.token_hash, None)
            seat.token_hash, seat.session, seat.abandoned = None, None, True
            session.room = session.seat = None
            self._public("player_left", {"seat": seat.index, "name": seat.name or "?"})
            self._public("connection", {"seat": seat.index, "state": "autopilot"})
            self._hand_over_host(seat.index)
        else:
            self._vacate(seat)
        session.ok(msg)
        self._send_seats()
        self._check_idle()

    def _on_ready(self, session: Session, msg: pr.Ready) -> None:
        seat = self._seat_of(session)
        if seat is None:
            session.error("not_in_room", "spectators are not seated", msg)
            return
        seat.ready = msg.ready
        session.ok(msg)
        if self.started and msg.ready and seat.autopilot:
            self._take_back(seat)  # "I am here": during a match, the seat's own again
        else:
            self._send_seats()

    def _take_back(self, seat: Seat) -> None:
        """The player acts again: the autopilot that took over after their timeouts stops."""
        if seat.autopilot:
            seat.autopilot, seat.timeouts = False, 0
            self._public("connection", {"seat": seat.index, "state": "connected"})
            self._send_seats()

    def _require_host(self, session: Session, msg: pr.Message) -> bool:
        seat = self._seat_of(session)
        if seat is None or seat.index != self.host:
            session.error("not_host", "only the room's host may do this", msg)
            return False
        return True

    def _on_start(self, session: Session, msg: pr.Start) -> None:
        if not self._require_host(session, msg):
            return
        if self.started:
            session.error("already_started", "the match is on", msg)
            return
        empty = [s.index for s in self.seats if s.kind == "empty"]
        if empty:
            session.error("not_ready", f"seat {empty[0]} is empty: wait for a player or add a bot", msg)
            return
        waiting = [s.index for s in self.seats
                   if s.kind == "human" and not s.ready and s.index != self.host and not s.piloted]
        if waiting:
            session.error("not_ready", f"seat {waiting[0]} is not ready", msg)
            return
        self.matches += 1
        self.match_seed = self._match_seed()
        self.game = en.Game(self.rules, len(self.seats), seed=self.match_seed)
        self.started = True
        self.moved = self.seq
        self.actions = 0
        session.ok(msg)
        self._send_seats()
        self._emit(self.game.start_events)
        if self.store is not None:
            self.store.start_match(self.id, self.matches, self.match_seed, self.seq)
        self._after_action()

    def _match_seed(self) -> int | str:
        if self.seed is None:
            return secrets.randbits(64)
        return f"{self.seed}/{self.matches}"

    def _on_add_bot(self, session: Session, msg: pr.AddBot) -> None:
        if not self._require_host(session, msg):
            return
        if self.started:
            session.error("already_started", "bots are seated before the match", msg)
            return
        level = msg.level or "basic"
        if level not in self.server.bot_levels:
            known = ", ".join(self.server.bot_levels)
            session.error("unknown_level", f"no bot level {level[:40]!r} here; this server knows {known}", msg)
            return
        if msg.seat is not None:
            if msg.seat >= len(self.seats) or self.seats[msg.seat].kind != "empty":
                session.error("room_full", f"seat {msg.seat} is not free", msg)
                return
            seat = self.seats[msg.seat]
        else:
            seat = next((s for s in self.seats if s.kind == "empty"), None)  # type: ignore[assignment]
            if seat is None:
                session.error("room_full", "no free seat for a bot", msg)
                return
        seat.kind, seat.name, seat.ready, seat.level = "bot", f"bot-{seat.index}", True, level
        self._launch_bot(seat)
        session.ok(msg)
        self._public("player_joined", {"seat": seat.index, "name": seat.name, "bot": True})
        self._send_seats()

    def _on_remove_bot(self, session: Session, msg: pr.RemoveBot) -> None:
        if not self._require_host(session, msg):
            return
        if msg.seat >= len(self.seats) or self.seats[msg.seat].kind != "bot":
            session.error("bad_seat", f"seat {msg.seat} holds no bot", msg)
            return
        if self.started:
            session.error("already_started", "bots leave between matches", msg)
            return
        self._vacate(self.seats[msg.seat])
        session.ok(msg)
        self._send_seats()

    def _on_chat(self, session: Session, msg: pr.Chat) -> None:
        """Chat allowances belong to the seat or spectator token (a reconnect keeps what is
        left) and to the address (fresh tokens from one place share one)."""
        member = self._seat_of(session) or self.spectators.get(session)
        if member is None:
            session.error("not_in_room", "you are not in this room", msg)
            return
        if member.chat is None:
            member.chat = TokenBucket(self.limits.chat_rate, self.limits.chat_burst)
        if not member.chat.take() or not session.peer.chat.take():
            session.error("rate_limited", "too many chat lines; slow down", msg)
            return
        self._public("chat", {"seat": session.seat, "name": session.name, "text": msg.text})
        session.ok(msg)

    def _on_sync(self, session: Session, msg: pr.Sync) -> None:
        if self.game is None:
            session.error("not_started", "no game yet", msg)
            return
        self._snapshot(session, session.seat, msg.id)

    def _snapshot(self, session: Session, seat: int | None, id: int | None = None) -> None:
        assert self.game is not None
        session.send(pr.Snapshot(seq=self.seq, view=self.game.view(seat).to_dict(), id=id))

    # -- game actions ------------------------------------------------------------------

    def _on_action(self, session: Session, msg: Any) -> None:
        seat = self._seat_of(session)
        game = self.game
        if seat is None:
            session.error("not_in_room", "spectators do not play", msg)
            return
        if game is None:
            session.error("not_started", "the match has not started", msg)
            return
        if msg.seq > self.seq:
            session.error("illegal", f"seq {msg.seq} is ahead of the room ({self.seq})", msg)
            return
        if msg.seq < self.moved:  # before not_started: a match that just ended is a lost race
            session.error("too_late", f"the table moved on at seq {self.moved}", msg)
            return
        if not self.started:
            session.error("not_started", "the match has not started", msg)
            return
        self._take_back(seat)
        try:
            action = pr.to_action(msg, seat.index)
            events = game.apply(action)
        except en.IllegalAction as exc:
            session.error(exc.code, exc.reason, msg)  # never the position: it holds hidden cards
            return
        except ValueError as exc:
            session.error("illegal", str(exc)[:200], msg)
            return
        seat.timeouts = 0
        if msg.id is not None:
            session.ok(msg)
        self._applied(action, events)

    def _apply_for(self, action: en.Action) -> None:
        """An action the server takes itself: a deal, the autopilot's, a turn timeout's."""
        assert self.game is not None
        self._applied(action, self.game.apply(action))

    def _applied(self, action: en.Action, events: list[en.Event]) -> None:
        """An applied action: its events out, then into the game log (every applied action,
        in order; the store writes it later), then the timers for what comes next."""
        self._emit(events)
        if self.store is not None:
            self.store.action(self.id, self.matches, self.actions, str(action), self.seq)
        self.actions += 1
        self._after_action()

    # -- persistence -------------------------------------------------------------------

    def record(self) -> RoomRecord:
        """What the store keeps of this room (without the actions)."""
        return RoomRecord(
            id=self.id, name=self.name, preset=self.preset, rules=self._rules_map,
            seats=len(self.seats), timer=self.timer, password=self.password, host=self.host,
            seed=self.seed, matches=self.matches, match_seed=self.match_seed, seq=self.seq,
            seat_records=self._seat_records(),
            spectators=[(w.token_hash, w.name) for w in self.watchers.values()])

    def _seat_records(self) -> list[SeatRecord]:
        return [SeatRecord(s.index, s.kind, s.name, s.level, s.token_hash, s.ready)
                for s in self.seats]

    def restore(self, record: RoomRecord) -> None:
        """Rebuild a stored room: its seats and spectators (waiting for their tokens; the
        bots come back on a ``("bots",)`` command) and its match, by replaying the stored
        actions from the stored seed. Raises if the record cannot be played; nothing is
        registered with the server until :meth:`register_tokens`.

        The room's seq goes on ``limits.restart_gap`` above the stored one: the events a
        client saw are all on disk, but a pause notice may have gone out unsaved, and no
        seq may mean two things. A client resuming from any seq gets a snapshot."""
        now = trio.current_time()
        self.host, self.matches, self.match_seed = record.host, record.matches, record.match_seed
        self.seq = self.moved = record.seq + self.limits.restart_gap
        for r in record.seat_records:
            if r.kind not in ("empty", "human", "bot") or not 0 <= r.seat < len(self.seats):
                raise ValueError(f"seat {r.seat} of kind {r.kind!r} does not fit the room")
            if r.kind == "empty":
                continue
            seat = self.seats[r.seat]
            seat.kind, seat.name, seat.level, seat.token_hash = r.kind, r.name, r.level, r.token_hash
            seat.ready = r.ready
            if seat.token_hash:
                seat.grace_until = now + self.limits.grace
                if seat.kind == "human":  # give its owner time to reconnect first
                    seat.held_until = now + self.limits.restore_grace
            else:
                seat.abandoned = True
        for key, name in record.spectators:
            self.watchers[key] = Watcher(key, name, grace_until=now + self.limits.grace)
        if record.match_seed is not None:
            game = en.Game(self.rules, len(self.seats), seed=record.match_seed)
            for text in record.actions:
                game.apply(en.parse_action(text))
            self.game, self.actions = game, len(record.actions)
            self.started = game.phase is not en.Phase.MATCH_OVER
            if self.started:
                self._after_action()

    def register_tokens(self) -> None:
        """A restored room's tokens resume in it from now on."""
        for key in [s.token_hash for s in self.seats if s.token_hash] + list(self.watchers):
            self.server.tokens[key] = self

    def _launch_bot(self, seat: Seat) -> None:
        """Start the seat's bot with a fresh token (the server keeps only its hash)."""
        token = secrets.token_urlsafe(18)
        if seat.token_hash:
            self.server.tokens.pop(seat.token_hash, None)
        seat.token_hash = token_hash(token)
        seat.grace_until = trio.current_time() + self.limits.grace
        self.server.tokens[seat.token_hash] = self
        seat.bot_scope = self.server.launch_bot(self.id, seat.index, token,
                                                seat.name or f"bot-{seat.index}",
                                                seat.level or "basic")

    def _relaunch_bots(self) -> None:
        """After a restore, once the server listens: the bots take their seats back."""
        seats = [s for s in self.seats
                 if s.kind == "bot" and s.token_hash and s.session is None and s.bot_scope is None]
        for seat in seats:
            self._launch_bot(seat)
        if seats:
            self._send_seats()  # and the new tokens' hashes are saved

    def _saving_changed(self) -> None:
        """Saving began to fail, or works again. A pause is announced at once, past the
        frames that wait for the disk (the ``paused`` event's seq is above theirs: they
        follow when saving works). When it works again every member gets the room and
        the table afresh (``seats``, ``snapshot``), then the ``resumed`` event."""
        assert self.store is not None
        if not self.paused:
            self.paused = True
            if self.server.unsaved(self) + 1 < self.limits.restart_gap:
                self.seq += 1
                frame = _frame(self.seq, "paused", {"reason": PAUSED})
                self.log.append(frame)
                self.store.seq(self.id, self.seq)
                for session, _ in self._members():
                    session.push_now(frame)
            log.warning("room %s paused: the server cannot save its game", self.id)
            return
        self.paused = False
        for session, seat in self._members():
            self._send_seats(only=session)
            if self.game is not None:
                self._snapshot(session, seat)
        self._public("resumed", {"reason": RESUMED})
        if self.started:
            self.turn_key = None  # the turn clock starts again
            self._after_action()
        log.info("room %s resumed", self.id)

    def _after_action(self) -> None:
        game = self.game
        assert game is not None
        now = trio.current_time()
        if game.phase is en.Phase.MATCH_OVER:
            self.started = False
            self.turn_key = self.turn_deadline = self.pilot_deadline = self.deal_deadline = None
            for seat in self.seats:
                seat.ready = seat.kind == "bot"
            self._send_seats()
            return
        if game.phase is en.Phase.ROUND_OVER:
            self.turn_key = self.turn_deadline = self.pilot_deadline = None
            self.deal_deadline = now + self.limits.deal_pause
            return
        self.deal_deadline = None
        key = (game.turn, game.phase, self.moved)
        if key != self.turn_key:
            self.turn_key = key
            seat = self.seats[game.turn]
            self.turn_deadline = now + self.timer if self.timer and not seat.piloted else None
            self.pilot_deadline = self._pilot_at(seat, now) if seat.piloted else None

    def _pilot_at(self, seat: Seat, now: float) -> float:
        """When the server plays a piloted seat's turn: after the autopilot's think time,
        and not before a restored seat's owner had their time to come back."""
        return max(now + self.limits.autopilot_delay, seat.held_until or now)

    def _restart_turn_clock(self) -> None:
        """Time the current turn again from now (its seat's player has just come back)."""
        if self.started and self.game is not None and self.game.phase not in ("round_over", "match_over"):
            self.turn_key = None
            self._after_action()

    # -- timers ------------------------------------------------------------------------

    def _timers(self, now: float) -> None:
        if self.paused:
            return  # nothing moves until it can be saved
        for watcher in list(self.watchers.values()):
            if watcher.grace_until is not None and now >= watcher.grace_until:
                self._forget_watcher(watcher)
        for seat in self.seats:
            if seat.grace_until is not None and now >= seat.grace_until:
                seat.grace_until = None
                if seat.session is None:
                    self._expire(seat)
        game = self.game
        if self.deal_deadline is not None and now >= self.deal_deadline and game is not None:
            self.deal_deadline = None
            self._apply_for(en.Deal(game.turn))
        if game is not None and self.started and game.phase not in (en.Phase.ROUND_OVER, en.Phase.MATCH_OVER):
            seat = self.seats[game.turn]
            if seat.piloted and self.pilot_deadline is None:
                self.pilot_deadline = self._pilot_at(seat, now)
                self.turn_deadline = None
            if self.pilot_deadline is not None and now >= self.pilot_deadline:
                self.pilot_deadline = None
                if seat.piloted:
                    self._autopilot(seat.index)
                elif self.timer:
                    self.turn_deadline = now + self.timer
            elif self.turn_deadline is not None and now >= self.turn_deadline:
                self.turn_deadline = None
                if not seat.piloted:
                    self._timeout(seat)
        if self.idle_deadline is not None and now >= self.idle_deadline:
            log.info("room %s expired: nobody connected", self.id)
            if self.store is not None:
                self.store.delete_room(self.id)
            self._close()

    def _expire(self, seat: Seat) -> None:
        """The reconnect grace ran out: the token dies, the server plays the seat."""
        if seat.token_hash:
            self.server.tokens.pop(seat.token_hash, None)
        if not self.started:
            self._vacate(seat)
            self._send_seats()
            return
        seat.token_hash, seat.abandoned = None, True
        self._public("connection", {"seat": seat.index, "state": "autopilot"})
        self._send_seats()

    def _autopilot(self, seat: int) -> None:
        game = self.game
        assert game is not None
        action = choose(game.legal_actions(seat), game.hands[seat], turn=True)
        if action is not None:
            self._apply_for(action)

    def _timeout(self, seat: Seat) -> None:
        """The turn clock ran out: draw (taking any penalty), pass, or name a color."""
        game = self.game
        assert game is not None
        legal = game.legal_actions(seat.index)
        action: en.Action | None = None
        if game.phase is en.Phase.PLAY:
            action = next((a for a in legal if isinstance(a, en.Draw)), None)
        elif game.phase is en.Phase.DRAWN:
            action = next((a for a in legal if isinstance(a, en.Pass)), None)
        if action is None:
            action = choose(legal, game.hands[seat.index], turn=True)
        seat.timeouts += 1
        self._public("timeout", {"seat": seat.index})
        if seat.timeouts >= self.limits.timeouts_to_autopilot and not seat.autopilot:
            seat.autopilot = True
            self._public("connection", {"seat": seat.index, "state": "autopilot"})
            self._send_seats()
        if action is not None:
            self._apply_for(action)

    def _check_idle(self) -> None:
        humans = any(s.session is not None and s.kind == "human" for s in self.seats)
        if humans or self.spectators:
            self.idle_deadline = None
        elif self.idle_deadline is None:
            self.idle_deadline = trio.current_time() + self.limits.room_idle

    # -- sending -----------------------------------------------------------------------

    def _members(self) -> list[tuple[Session, int | None]]:
        out: list[tuple[Session, int | None]] = [
            (s.session, s.index) for s in self.seats if s.session is not None]
        out += [(session, None) for session in self.spectators]
        return out

    def _public(self, kind: str, data: dict[str, Any]) -> None:
        """A server event everyone in the room sees."""
        self.seq += 1
        frame = _frame(self.seq, kind, data)
        self.log.append(frame)
        if self.store is not None:
            self.store.seq(self.id, self.seq)
        for session, _ in self._members():
            session.push(frame)

    def _emit(self, events: list[en.Event]) -> None:
        """One action's engine events to the members, each with its own seq.

        An event with private fields goes in full to the seat allowed to see them and
        without them to everyone else (one frame each, so the log keeps one per seat and
        the spectators'). If any event of the batch moves the table, ``moved`` becomes the
        batch's *last* seq: an action decided on part of a batch (a ``passed`` whose
        ``turn`` has not arrived yet) is too late, never judged against a table its sender
        did not see whole.
        """
        members = self._members()
        seats = len(self.seats)
        log_append = self.log.append
        moves = False
        for event in events:
            self.seq += 1
            seq, kind = self.seq, event.kind
            moves = moves or kind in TABLE_EVENTS
            owner = event.private_to
            if owner is None:
                frame = _frame(seq, kind, event.data)
                log_append(frame)
                for session, _ in members:
                    session.push(frame)
                continue
            full, rest = _frame(seq, kind, event.data), _frame(seq, kind, event.public_data())
            frames = (*(full if s == owner else rest for s in range(seats)), rest)
            log_append(frames)
            for session, seat in members:
                session.push(full if seat == owner else rest)
        if moves:
            self.moved = self.seq

    def _send_seats(self, only: Session | None = None) -> None:
        if only is None and self.store is not None:
            self.store.save_seats(self.id, self.host, self._seat_records())
        msg = pr.Seats(
            seq=self.seq, room=self.id, name=self.name, host=self.host,
            seats=tuple({"seat": s.index, "name": s.name, "kind": s.kind, "ready": s.ready,
                         "state": s.state, "bot": s.kind == "bot" or s.program}
                        for s in self.seats),
            spectators=len(self.spectators), started=self.started, rules=self._rules_map,
            timer=self.timer,
        )
        frame = pr.encode_frame(msg.to_wire())
        for session, _ in ([(only, None)] if only else self._members()):
            session.push(frame)
