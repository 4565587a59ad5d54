"""A room: its seats, its match and who plays it, owned by one task.

Every request that touches a room is a command on the room's channel (:mod:`.commands`);
the room task applies them one at a time, in arrival order. That order settles every race
(two jump-ins, an UNO call against a catch, two catches): no locks, no second writer.
The room is the part that decides; the others each keep one thing. Its seats, spectators
and host are its :class:`~.roster.Roster`; what it plays, at one table or two, is its
:mod:`.match`. Its events are numbered and kept by its :class:`~.eventlog.EventLog`, which
also says when an action is too late; its :class:`~.audience.Audience` gives each member
its frame of each, through the server's :class:`~.fanout.Fanout`. Its deadlines are its
:class:`~.clock.Clocks` and each table's :class:`~.clock.TurnClock`. Its
:class:`~.ledger.Ledger` keeps how each match was played beyond the play: the fair deal of
each round (:mod:`.fairness`), the receipt of each race (:mod:`.receipts`), the finished
match for the history (:mod:`.history`). What the store keeps of the room is its
:meth:`Room.record`, and :meth:`Room.restore` rebuilds it.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import trio
from unolan.protocol.actions import ActionMessage

from unolan import engine as en
from unolan import protocol as pr

from .audience import Audience
from .clock import NEVER, Clocks, Due, TurnClock
from .commands import (
    REFUSED_WHILE_PAUSED,
    BotsBack,
    Command,
    Enter,
    Gone,
    Lobby,
    Member,
    Request,
    SavingChanged,
)
from .eventlog import EventLog
from .ledger import Ledger
from .limits import Peer, TokenBucket
from .match import NEEDS_VERSION, Batch, Match, match_kind
from .policy import choose, on_timeout
from .roster import Roster
from .seats import Seat, Watcher
from .store import RoomRecord, token_hash

log = logging.getLogger("unolan.server")

PAUSED = "the server cannot save the game; paused"
RESUMED = "the server can save the game again; play goes on"


class Room:
    """One room. Only :meth:`run` (the room task) changes it; others :meth:`post`."""

    def __init__(self, lobby: Lobby, room_id: str, *, name: str, preset: str, rules: en.Rules,
                 seats: int, timer: int = 0, password: str | None = None,
                 seed: int | str | None = None) -> None:
        """``password``: the hash of the room's password (:func:`.store.hash_password`)."""
        self.lobby = lobby
        self.limits = lobby.limits
        self.store = lobby.store
        self.fanout = lobby.fanout
        self.id = room_id
        self.name = name
        self.preset = preset
        self.rules = rules
        self.password = password
        self.timer = timer
        self.seed = seed
        self.actions = 0  # actions applied in the current match (the store numbers them)
        self.roster = Roster(seats)
        self.creator: Peer | None = None  # the address that created the room (it counts it)
        self.paused = False  # saving fails: nothing is played until it works again
        self.kind = match_kind(rules, seats)  # what its matches are: one table or two
        self.match: Match | None = None  # None: no match dealt (yet, or since the last)
        self.started = False
        self.events = EventLog(self.limits.room_log)
        self.audience = Audience(room_id, self.roster, self.events, self.store)
        self.closed = False
        self.inbox_send, self.inbox = trio.open_memory_channel[Command](512)
        self.gone: list[Member] = []
        self.clocks = Clocks(idle=trio.current_time() + self.limits.room_idle)
        self.turns = {table: TurnClock(timer, self.limits.autopilot_delay) for table in self.kind.tables}
        self._rules_map = self.rules.to_dict()
        self.ledger = Ledger(room_id, name, self._rules_map, self.roster, self.audience, self.store,
                             self.limits.race_window)

    @property
    def seq(self) -> int:
        """The last seq the room gave out."""
        return self.events.seq

    # -- outside the room task ---------------------------------------------------------

    def post(self, command: Command) -> bool:
        """Queue a command without waiting; False if the room is closed or swamped."""
        try:
            self.inbox_send.send_nowait(command)
        except (trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

    def notify_gone(self, member: Member) -> None:
        """A member's connection ended (called from its handler, never blocks)."""
        if not self.post(Gone(member)):
            self.gone.append(member)

    def summary(self) -> dict[str, Any]:
        return {
            "room": self.id, "name": self.name, "preset": self.preset,
            "seats": len(self.roster.seats), "players": self.roster.players(),
            "spectators": len(self.roster.spectators), "started": self.started,
            "password": self.password is not None, "tables": len(self.kind.tables),
            "options": self.rules.changes(),  # what differs from the preset, to list the room by
        }

    # -- the room task -----------------------------------------------------------------

    async def run(self) -> None:
        inbox = self.inbox
        fanout = self.fanout
        try:
            while not self.closed:
                deadline = self._next_deadline()
                command = None
                if deadline == NEVER:  # no timer running: no cancel scope to set up
                    command = await inbox.receive()
                else:
                    with trio.move_on_at(deadline):
                        command = await inbox.receive()
                fanout.cork(self.events.seq)  # each member's frames of this wake-up: one write
                try:
                    if self.store is not None and self.store.failing is not self.paused:
                        self._safely(self._saving_changed)
                    if command is not None:
                        self._safely(self._handle, command)
                    while self.gone:
                        self._safely(self._handle, Gone(self.gone.pop(0)))
                    self._safely(self._timers, trio.current_time())
                finally:
                    fanout.uncork(self)
        finally:
            self._close(stopped=True)

    def _safely(self, fn: Callable[..., None], *args: Any) -> None:
        """A bug in one command is logged and answered; it never kills the room. The log
        names the command's kind only (a request may name cards)."""
        try:
            fn(*args)
        except Exception as exc:
            command = args[0] if args else None
            what = type(command).__name__ if command is not None else fn.__name__
            if isinstance(command, Enter | Request):
                what = f"{what} {command.msg.TYPE}"
            if isinstance(exc, en.IllegalAction):  # its text holds the position: not logged
                log.error("room %s: the engine refused an action of the server's own (%s) while "
                          "handling %s", self.id, exc.code, what)
            else:
                log.exception("room %s: error handling %s", self.id, what)
            if isinstance(command, Enter | Request):
                command.member.error("internal", "the server failed on this request", command.msg)

    def _next_deadline(self) -> float:
        times = self.roster.deadlines()
        times += [t for clock in self.turns.values() for t in (clock.turn, clock.pilot)]
        if not self.paused:  # the fair deal's wait, the races' receipts, a match to keep
            times += self.ledger.deadlines(collecting=self.match is None and self.started)
        return self.clocks.next(times)

    def _close(self, stopped: bool = False) -> None:
        """The room ends: it closed (expired), or the server is ``stopped`` (a room kept
        in the database comes back at the next start)."""
        if self.closed:
            return
        self.ledger.receipts(NEVER)
        self.closed = True
        self.inbox_send.close()
        for seat in self.roster.seats:
            if seat.bot_scope is not None:
                seat.bot_scope.cancel()
            if seat.member is not None:
                seat.member.left()
        for key in self.roster.tokens():  # also those of spectators who disconnected
            self.lobby.forget_token(key)
        for member in self.roster.spectators:
            member.left()
        self.lobby.room_closed(self.id)
        if not stopped:
            log.info("room %s closed", self.id)
        elif self.store is not None:
            log.info("room %s stopped: it is kept, and restored at the next start", self.id)
        else:
            log.info("room %s stopped: without a database it is gone", self.id)

    # -- commands ----------------------------------------------------------------------

    def _handle(self, command: Command) -> None:
        match command:
            case Gone(member):
                self._on_gone(member)
            case BotsBack():
                self._relaunch_bots()
            case SavingChanged():
                pass  # run() has seen to it
            case Enter(member, msg) if self.paused:
                member.turned_away()
                member.error("paused", PAUSED + "; try again when it resumes", msg, now=True)
            case Enter(member, msg) if (member.version or 0) < self.kind.needs_version:
                member.turned_away()
                member.error("needs_version", NEEDS_VERSION, msg)
            case Enter(member, pr.Join() as msg, creator):
                self._on_join(member, msg, creator)
                if member.room is not self:
                    member.turned_away()
            case Enter(member, pr.Resume() as msg):
                self._on_resume(member, msg)
                if member.room is not self:
                    member.turned_away()
            case Request(member, msg) if member.room is not self:
                member.error("not_in_room", "you are not in this room", msg)
            case Request(member, msg) if self.paused and isinstance(msg, REFUSED_WHILE_PAUSED):
                member.error("paused", PAUSED + "; try again when it resumes", msg, now=True)
            case Request(member, pr.Leave() as msg):
                self._on_leave(member, msg)
            case Request(member, pr.Ready() as msg):
                self._on_ready(member, msg)
            case Request(member, pr.Start() as msg):
                self._on_start(member, msg)
            case Request(member, pr.AddBot() as msg):
                self._on_add_bot(member, msg)
            case Request(member, pr.RemoveBot() as msg):
                self._on_remove_bot(member, msg)
            case Request(member, pr.Chat() as msg):
                self._on_chat(member, msg)
            case Request(member, pr.Sync() as msg):
                self._on_sync(member, msg)
            case Request(member, pr.Nonce() as msg):
                self._on_nonce(member, msg)
            case Request(member, msg) if isinstance(msg, ActionMessage):
                self._on_action(member, msg)

    def _on_join(self, member: Member, msg: pr.Join, creator: bool) -> None:
        """A join (the password, if any, was checked by the session, off the event loop)."""
        if member.room is not None:
            member.error("already_in_room", "leave your room first", msg)
            return
        roster = self.roster
        token = secrets.token_urlsafe(18)
        key = token_hash(token)
        name = roster.name_for(member.name)
        if msg.role == "spectator":
            if len(roster.spectators) >= self.limits.max_spectators or \
                    len(roster.watchers) >= 2 * self.limits.max_spectators:
                member.error("room_full", "no room for more spectators", msg)
                return
            roster.watch(member, key, name)
            if self.store is not None:
                self.store.save_spectator(self.id, key, name)
            seat_index, hosts = None, False
        else:
            if self.started:
                member.error("already_started", "the match has started; join as a spectator", msg)
                return
            free = roster.free_seat()
            if free is None:
                member.error("room_full", "every seat is taken; join as a spectator", msg)
                return
            # A room nobody hosts (its host went away) is the newcomer's: said as a resume
            # into it says it (the creator's own room needs no word of it).
            hosts = roster.sit(free, member, name, key, creator=creator) and not creator
            seat_index = free.index
        self.lobby.register_token(key, self.id)
        member.entered(seat_index, token)
        member.send(pr.Joined(room=self.id, seat=seat_index, token=token, seq=self.seq, id=msg.id))
        self.audience.public("player_joined", {"seat": seat_index, "name": name, "bot": member.bot})
        if seat_index is not None and hosts:
            self.audience.public("host", {"seat": seat_index})
        self._send_seats()
        if self.match is not None:
            self._snapshot(member, seat_index)
        self._check_idle()

    def _on_resume(self, member: Member, msg: pr.Resume) -> None:
        if member.room is not None:
            member.error("already_in_room", "this connection is already in a room", msg)
            return
        place = self.roster.resumable(token_hash(msg.token))
        shown = place.public() if isinstance(place, Seat) else None
        match place:
            case None:
                member.error("bad_token", "unknown or expired token", msg)
                return
            case Seat() as seat:
                old = self.roster.reseat(seat, member)
                if old is not None:
                    old.left()
                    old.close("replaced", "this seat was resumed from another connection")
                if self.roster.claim_host(seat):  # the host's seat went away with nobody to take it
                    self.audience.public("host", {"seat": seat.index})
                if seat.held_until is not None:  # back after a restore: the turn clock starts now
                    seat.held_until = None
                    self._restart_turn_clock(seat.index)
                index: int | None = seat.index
            case Watcher() as watcher:
                old = self.roster.rewatch(watcher, member)
                if old is not None:
                    old.left()
                    old.close("replaced", "resumed from another connection")
                index = None
        member.entered(index, msg.token)
        member.send(pr.Joined(room=self.id, seat=index, token=msg.token, seq=self.seq, id=msg.id))
        changed = not isinstance(place, Seat) or place.public() != shown
        # Everyone: the seat is connected again (or a spectator more). A server bot taking
        # the seat it was started for changes nothing anyone sees: the newcomer alone.
        self._send_seats(None if changed else member)
        missed = self.events.since(msg.seq, index)
        if missed is not None:  # nothing missed, or all of it still in the log
            for frame in missed:
                member.push(frame)
        elif self.match is not None:  # too far behind, or ahead of the room (a restart): all of it
            self._snapshot(member, index)
        if shown is not None and shown["state"] != "connected":
            self.audience.public("connection", {"seat": index, "state": "connected"})
        self._check_idle()

    def _on_gone(self, member: Member) -> None:
        place = self.roster.away(member, trio.current_time() + self.limits.grace)
        # A spectator's token resumes for a grace period, then it is forgotten; a person's
        # seat is held for its token's grace, in the lobby too (then freed).
        if isinstance(place, Seat) and place.kind != "bot":
            self.audience.public("connection", {"seat": place.index, "state": "away"})
            if not self.started:  # the room's start waits for nobody who is away
                self._hand_over_host(place.index)
        if place is not None:
            self._send_seats()
        self._check_idle()

    def _forget(self, watcher: Watcher) -> None:
        """A spectator's place is gone, and its token with it."""
        self.lobby.forget_token(watcher.token_hash)
        if self.store is not None:
            self.store.drop_spectator(self.id, watcher.token_hash)

    def _vacate(self, seat: Seat, removed: bool = False) -> None:
        """Free ``seat``; ``removed``: the host removed its bot, whose connection is closed."""
        if seat.token_hash:
            self.lobby.forget_token(seat.token_hash)
        if seat.bot_scope is not None:
            seat.bot_scope.cancel()
        if seat.member is not None:
            seat.member.left()
            if removed:
                seat.member.close("removed", "the host removed this bot")
        self.roster.clear(seat)
        self.audience.public("player_left", {"seat": seat.index, "name": seat.name or "?"})
        self._hand_over_host(seat.index)

    def _hand_over_host(self, left: int) -> None:
        if self.roster.hand_over_host(left):
            self.audience.public("host", {"seat": self.roster.host})

    def _on_leave(self, member: Member, msg: pr.Leave) -> None:
        seat = self.roster.seat_of(member)
        if seat is None:
            watcher = self.roster.unwatch(member)
            if watcher is not None:
                self._forget(watcher)
            member.left()
            member.ok(msg)
            self._send_seats()
            self._check_idle()
            return
        if self.started:
            # The seat stays in the match, played by the server; the token no longer resumes.
            if seat.token_hash:
                self.lobby.forget_token(seat.token_hash)
            seat.token_hash, seat.member, seat.abandoned = None, None, True
            member.left()
            self.audience.public("player_left", {"seat": seat.index, "name": seat.name or "?"})
            self.audience.public("connection", {"seat": seat.index, "state": "autopilot"})
            self._hand_over_host(seat.index)
        else:
            self._vacate(seat)
        member.ok(msg)
        self._send_seats()
        self._check_idle()

    def _on_ready(self, member: Member, msg: pr.Ready) -> None:
        seat = self.roster.seat_of(member)
        if seat is None:
            member.error("not_seated", "spectators are not seated", msg)
            return
        changed, seat.ready = seat.ready != msg.ready, msg.ready
        member.ok(msg)
        if self.started and msg.ready and seat.autopilot:
            self._take_back(seat)  # "I am here": during a match, the seat's own again
        elif changed:  # said once: a client repeating itself sends the room nothing
            self._send_seats()

    def _take_back(self, seat: Seat) -> None:
        """The player acts again: the autopilot that took over after their timeouts stops."""
        if seat.autopilot:
            seat.autopilot, seat.timeouts = False, 0
            self.audience.public("connection", {"seat": seat.index, "state": "connected"})
            self._send_seats()

    def _require_host(self, member: Member, msg: pr.Message) -> bool:
        seat = self.roster.seat_of(member)
        if seat is None or seat.index != self.roster.host:
            member.error("not_host", "only the room's host may do this", msg)
            return False
        return True

    def _on_start(self, member: Member, msg: pr.Start) -> None:
        if not self._require_host(member, msg):
            return
        if self.started:
            member.error("already_started", "the match is on", msg)
            return
        refused = self.roster.not_ready()
        if refused is not None:
            member.error("not_ready", refused, msg)
            return
        matches = self.ledger.begin()
        self.started = True
        self.actions = 0
        member.ok(msg)
        self._send_seats()
        if self.seed is not None:  # the host's seed (demos, tests): known, so no fair deal
            self._deal_first(f"{self.seed}/{matches}")
            return
        self.match = None  # until the nonces are in (the room's timers deal it)
        self.events.table_moved()
        self.ledger.collect(1, trio.current_time() + self.limits.nonce_wait)

    def _deal_first(self, seed: int | str) -> None:
        """The match's first round, from ``seed``."""
        self.match = self.kind.dealt(self.rules, len(self.roster.seats), seed)
        self.events.table_moved()
        self.audience.emit(self.match.opening())
        self.ledger.dealt(seed)
        self._after_action()

    # -- a fair deal (the ledger keeps it) ---------------------------------------------

    def _on_nonce(self, member: Member, msg: pr.Nonce) -> None:
        seat = self.roster.seat_of(member)
        refused = self.ledger.fair.offer(seat.index if seat else None, msg.round, msg.nonce)
        if refused:
            member.error("bad_state", refused, msg)
            return
        member.ok(msg)  # the last nonce of the first round: the timers deal it at once

    def _fair_seed(self, round: int) -> str | None:
        """The seed of ``round``, about to be dealt (None: the host's seed goes on)."""
        return None if self.seed is not None else self.ledger.seed_for(round, trio.current_time())

    # -- bots, chat, a snapshot ---------------------------------------------------------

    def _on_add_bot(self, member: Member, msg: pr.AddBot) -> None:
        if not self._require_host(member, msg):
            return
        if self.started:
            member.error("already_started", "bots are seated before the match", msg)
            return
        level = msg.level or "basic"
        if level not in self.lobby.bot_levels:
            known = ", ".join(self.lobby.bot_levels)
            member.error("unknown_level", f"no bot level {level[:40]!r} here; this server knows {known}", msg)
            return
        seat = self.roster.free_seat(msg.seat)
        if seat is None:
            member.error("room_full", "no free seat for a bot" if msg.seat is None else f"seat {msg.seat} is not free", msg)
            return
        self.roster.seat_bot(seat, level)
        self._launch_bot(seat)
        member.ok(msg)
        self.audience.public("player_joined", {"seat": seat.index, "name": seat.name, "bot": True})
        self._send_seats()

    def _on_remove_bot(self, member: Member, msg: pr.RemoveBot) -> None:
        if not self._require_host(member, msg):
            return
        # A bot is one the server runs or a client that said it is a program (uno bot):
        # the host frees either seat, as the seats message shows both as bots.
        target = self.roster.seats[msg.seat] if msg.seat < len(self.roster.seats) else None
        if target is None or not (target.kind == "bot" or target.program):
            member.error("bad_seat", f"seat {msg.seat} holds no bot", msg)
            return
        if self.started:
            member.error("already_started", "bots leave between matches", msg)
            return
        self._vacate(target, removed=True)
        member.ok(msg)
        self._send_seats()

    def _launch_bot(self, seat: Seat) -> None:
        """Start the seat's bot with a fresh token (the server keeps only its hash)."""
        token = secrets.token_urlsafe(18)
        if seat.token_hash:
            self.lobby.forget_token(seat.token_hash)
        seat.token_hash = token_hash(token)
        seat.grace_until, seat.starting = trio.current_time() + self.limits.grace, True
        self.lobby.register_token(seat.token_hash, self.id)
        seat.bot_scope = self.lobby.launch_bot(self.id, seat.index, token,
                                                seat.name or f"bot-{seat.index}",
                                                seat.level or "basic")

    def _relaunch_bots(self) -> None:
        """After a restore, once the server listens: the bots take their seats back."""
        seats = [s for s in self.roster.seats
                 if s.kind == "bot" and s.token_hash and s.member is None and s.bot_scope is None]
        for seat in seats:
            self._launch_bot(seat)
        if seats:
            self._send_seats()  # and the new tokens' hashes are saved

    def _on_chat(self, member: Member, msg: pr.Chat) -> None:
        """Chat allowances belong to the seat or spectator token (a reconnect keeps what is
        left) and to the address (fresh tokens from one place share one)."""
        place = self.roster.place_of(member)
        if place is None:
            member.error("not_in_room", "you are not in this room", msg)
            return
        if place.chat is None:
            place.chat = TokenBucket(self.limits.chat_rate, self.limits.chat_burst)
        if not place.chat.take() or not member.peer.chat.take():
            member.error("rate_limited", "too many chat lines; slow down", msg)
            return
        self.audience.public("chat", {"seat": member.seat, "name": place.name or member.name, "text": msg.text})
        member.ok(msg)

    def _on_sync(self, member: Member, msg: pr.Sync) -> None:
        if self.match is None:
            member.error("not_started", "no game yet", msg)
            return
        self._snapshot(member, member.seat, msg.id)

    def _snapshot(self, member: Member, seat: int | None, id: int | None = None) -> None:
        assert self.match is not None
        member.send(pr.Snapshot(seq=self.seq, id=id, **self.match.snapshot(seat)))

    # -- game actions ------------------------------------------------------------------

    def _on_action(self, member: Member, msg: Any) -> None:
        seat = self.roster.seat_of(member)
        if seat is None:
            member.error("not_seated", "spectators do not play", msg)
            return
        match = self.match
        if match is None:
            member.error("not_started", "the match has not started", msg)
            return
        if msg.seq > self.seq:
            member.error("illegal", f"seq {msg.seq} is ahead of the room ({self.seq})", msg)
            return
        table = match.table_of(seat.index)
        if self.events.too_late(msg.seq, table):  # before not_started: a match that just ended is a lost race
            member.error("too_late", f"the table moved on at seq {self.events.moved_at(table)}", msg)
            self.ledger.races.lost(seat.index, msg.seq, "too_late", trio.current_time(), table)
            return
        if not self.started:
            member.error("not_started", "the match has not started", msg)
            return
        self._take_back(seat)
        try:
            action = pr.to_action(msg, seat.index)
            events = match.apply(action)
        except en.IllegalAction as exc:
            member.error(exc.code, exc.reason, msg)  # never the position: it holds hidden cards
            self.ledger.races.lost(seat.index, msg.seq, exc.code, trio.current_time(), table)
            return
        except ValueError as exc:
            member.error("illegal", str(exc)[:200], msg)
            return
        seat.timeouts = 0
        if msg.id is not None:
            member.ok(msg)
        end = self._applied(action, events)
        self.ledger.races.won(seat.index, msg.seq, end, trio.current_time(), table)

    def _apply_for(self, action: en.Action) -> None:
        """An action the server takes itself: a deal, the autopilot's, a turn timeout's."""
        assert self.match is not None
        self._applied(action, self.match.apply(action))

    def _applied(self, action: en.Action, events: list[Batch]) -> int:
        """An applied action: its events out, then into the game log (every applied action,
        in order; the store writes it later), then the timers for what comes next. The seq
        of its last event."""
        self.audience.emit(events)
        end = self.seq
        if self.store is not None:
            self.store.action(self.id, self.ledger.matches, self.actions, str(action), self.seq)
        self.actions += 1
        assert self.match is not None
        if self.match.round_over:
            self.ledger.round_over(self.match, trio.current_time(), self.limits.deal_pause)
        self._after_action()
        return end

    # -- persistence -------------------------------------------------------------------

    def record(self) -> RoomRecord:
        """What the store keeps of this room (without the actions)."""
        return RoomRecord(
            id=self.id, name=self.name, preset=self.preset, rules=self._rules_map,
            seats=len(self.roster.seats), timer=self.timer, password=self.password,
            host=self.roster.host, seed=self.seed, matches=self.ledger.matches,
            match_seed=self.ledger.match_seed, seq=self.seq, seat_records=self.roster.records(),
            ended=self.ledger.ended,
            spectators=self.roster.spectator_records())

    def restore(self, record: RoomRecord) -> None:
        """Rebuild a stored room: its seats and spectators (waiting for their tokens; the
        bots come back on a ``("bots",)`` command) and its match, by replaying the stored
        actions from the stored seed. Raises if the record cannot be played; nothing is
        registered with the server until :meth:`register_tokens`.

        The room's seq goes on ``limits.restart_gap`` above the stored one: the events a
        client saw are all on disk, but a pause notice may have gone out unsaved, and no
        seq may mean two things. A client resuming from any seq gets a snapshot."""
        now = trio.current_time()
        self.events.restart(record.seq + self.limits.restart_gap)
        self.roster.restore(record.seat_records, record.spectators, record.host,
                            now + self.limits.grace, now + self.limits.restore_grace)
        if record.match_seed is not None:
            self._restore_match(record)
        self.ledger.restore(record, self.match)

    def _restore_match(self, record: RoomRecord) -> None:
        """The stored match (``record.match_seed`` is set), replayed from its seed and
        actions: it plays on, or it was over (the ledger sees it kept)."""
        assert record.match_seed is not None
        match = self.kind.replayed(self.rules, len(self.roster.seats), record.match_seed, record.actions)
        self.match, self.actions = match, len(record.actions)
        self.started = not match.over
        if self.started:
            self._after_action()

    def register_tokens(self) -> None:
        """A restored room's tokens resume in it from now on."""
        for key in self.roster.tokens():
            self.lobby.register_token(key, self.id)

    def _saving_changed(self) -> None:
        """Saving began to fail, or works again. A pause is announced at once, past the
        frames that wait for the disk (the ``paused`` event's seq is above theirs: they
        follow when saving works). When it works again every member gets the room and
        the table afresh (``seats``, ``snapshot``), then the ``resumed`` event."""
        assert self.store is not None
        if not self.paused:
            self.paused = True
            if self.fanout.unsaved(self, self.seq) + 1 < self.limits.restart_gap:
                self.audience.public("paused", {"reason": PAUSED}, now=True)
            log.warning("room %s paused: the server cannot save its game", self.id)
            return
        self.paused = False
        for member, seat in self.audience.members():
            self._send_seats(only=member)
            if self.match is not None:
                self._snapshot(member, seat)
        self.audience.public("resumed", {"reason": RESUMED})
        if self.started and self.match is not None:
            self._retime()
        log.info("room %s resumed", self.id)

    # -- what comes next, and the deadlines --------------------------------------------

    def _after_action(self) -> None:
        """Time what comes next: each table's turn, or the next deal."""
        match = self.match
        assert match is not None
        now = trio.current_time()
        if match.round_over:
            for clock in self.turns.values():
                clock.stop_turn()
            if match.over:
                self._match_ended()
            else:
                self.clocks.deal = now + self.limits.deal_pause
            return
        self.clocks.deal = None
        for table, clock in self.turns.items():
            turn = match.turn_at(table)
            if turn is None:  # this table's round is over: the other plays on
                clock.stop_turn()
            else:
                clock.time(self.roster.seats[turn[0]], turn[1], self.events.moved_at(table), now)

    def _match_ended(self) -> None:
        """The match is over: the room is back in its lobby. Nobody is on autopilot there
        (it plays a match's turns): a player who is here is connected, and a seat whose
        player left the match for good is free again, as a seat left between matches is."""
        self.started = False
        self.clocks.deal = None
        for seat in self.roster.back_to_lobby():
            self._vacate(seat)
        self._send_seats()
        self._check_idle()

    def _retime(self, tables: Sequence[int | None] | None = None) -> None:
        """The turn clocks start again (after a pause; ``tables``: those tables' only)."""
        for table in self.kind.tables if tables is None else tables:
            self.turns[table].turn_key = None
        self._after_action()

    def _restart_turn_clock(self, seat: int) -> None:
        """Time the current turn at ``seat``'s table again from now (its player has just
        come back): the other table's clock runs on."""
        if self.started and self.match is not None and not self.match.round_over:
            self._retime([self.match.table_of(seat)])

    def _timers(self, now: float) -> None:
        if self.paused:
            return  # nothing moves until it can be saved
        watchers, seats = self.roster.expired(now)
        for watcher in watchers:
            self._forget(watcher)
        for seat in seats:
            self._expire(seat)
        self.ledger.receipts(now)
        if self.match is None and self.started and self.ledger.fair.ready(now):
            seed = self._fair_seed(1)
            assert seed is not None
            self._deal_first(seed)
        self._match_timers(now)
        clocks = self.clocks
        if clocks.idle is not None and now >= clocks.idle:
            log.info("room %s expired: nobody connected", self.id)
            if self.store is not None:
                self.store.delete_room(self.id)
            self._close()

    def _match_timers(self, now: float) -> None:
        """The match's deadlines: the next deal, and each table's autopilot and turn timer."""
        match, clocks = self.match, self.clocks
        if match is None:
            return
        if clocks.deal is not None and now >= clocks.deal:
            clocks.deal = None
            self._apply_for(match.next_deal(self._fair_seed(match.round + 1)))
        for table, clock in self.turns.items():
            turn = match.turn_at(table) if self.started else None
            if turn is None:  # read afresh: the other table's turn may have just moved it
                continue
            seat = self.roster.seats[turn[0]]
            match clock.due(seat, now):
                case Due.AUTOPILOT:
                    self._autopilot(seat.index)
                case Due.TIMEOUT:
                    self._timeout(seat)

    def _expire(self, seat: Seat) -> None:
        """The reconnect grace ran out: the token dies, the server plays the seat."""
        if seat.token_hash:
            self.lobby.forget_token(seat.token_hash)
        if not self.started:
            self._vacate(seat)
            self._send_seats()
            return
        seat.token_hash, seat.abandoned = None, True
        self.audience.public("connection", {"seat": seat.index, "state": "autopilot"})
        self._send_seats()

    def _autopilot(self, seat: int) -> None:
        assert self.match is not None
        _, legal, hand = self.match.legal(seat)
        action = choose(legal, hand, turn=True)
        if action is not None:
            self._apply_for(action)

    def _timeout(self, seat: Seat) -> None:
        """The turn clock ran out: the server acts for the seat (see :func:`.policy.on_timeout`)."""
        assert self.match is not None
        action = on_timeout(*self.match.legal(seat.index))
        table = self.match.table_of(seat.index)
        seat.timeouts += 1
        self.audience.public("timeout", {"seat": seat.index, **({} if table is None else {"table": table})})
        if seat.timeouts >= self.limits.timeouts_to_autopilot and not seat.autopilot:
            seat.autopilot = True
            self.audience.public("connection", {"seat": seat.index, "state": "autopilot"})
            self._send_seats()
        if action is not None:
            self._apply_for(action)

    def _check_idle(self) -> None:
        if self.roster.anyone_here():
            self.clocks.idle = None
        elif self.clocks.idle is None:
            self.clocks.idle = trio.current_time() + self.limits.room_idle

    # -- sending -----------------------------------------------------------------------

    def _send_seats(self, only: Member | None = None) -> None:
        if only is None and self.store is not None:
            self.store.save_seats(self.id, self.roster.host, self.roster.records())
        roster = self.roster
        msg = pr.Seats(
            seq=self.seq, room=self.id, name=self.name, host=roster.host, seats=roster.public(),
            spectators=len(roster.spectators), started=self.started, rules=self._rules_map,
            timer=self.timer,
        )
        self.audience.push(pr.encode_frame(msg.to_wire()), only)
