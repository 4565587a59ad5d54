"""Who is in a room: its seats, its spectators and its host.

The room asks its roster who a connection is, where a newcomer sits, whom a token
resumes and who hosts when the host goes. The roster changes nothing outside itself: it
sends no event, registers no token and closes no connection; it says what changed, and
the room announces it. So the rules of who sits where are read in one place, and tested
without a room or a socket (``tests/test_roster.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .seats import Seat, Watcher

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .commands import Member
    from .store import SeatRecord

NAME_LENGTH = 32  # the protocol's longest name: a suffixed one is cut to fit


class Roster:
    """A room's seats (by index), its spectators (by token hash, and the connected ones
    by connection) and the seat of its host (None: nobody hosts)."""

    def __init__(self, seats: int) -> None:
        self.seats = [Seat(i) for i in range(seats)]
        self.watchers: dict[str, Watcher] = {}  # token hash -> spectator
        self.spectators: dict[Member, Watcher] = {}  # the connected ones
        self.host: int | None = None

    # -- who is who --------------------------------------------------------------------

    def seat_of(self, member: Member) -> Seat | None:
        """The seat ``member`` plays, if it plays one (a connection replaced by another
        one on the same seat plays none)."""
        seat = member.seat
        if seat is not None and self.seats[seat].member is member:
            return self.seats[seat]
        return None

    def place_of(self, member: Member) -> Seat | Watcher | None:
        """Where ``member`` is: its seat, its place among the spectators, or nowhere."""
        return self.seat_of(member) or self.spectators.get(member)

    def resumable(self, key: str) -> Seat | Watcher | None:
        """The seat or the spectator's place that the token hashed to ``key`` resumes."""
        return next((s for s in self.seats if s.token_hash == key), None) or self.watchers.get(key)

    def bot_token(self, key: str) -> bool:
        """Whether ``key`` (a token's hash) is one the server gave a bot of its own."""
        return any(s.kind == "bot" and s.token_hash == key for s in self.seats)

    def tokens(self) -> list[str]:
        """Every token hash that resumes in the room, seats' and spectators'."""
        return [s.token_hash for s in self.seats if s.token_hash] + list(self.watchers)

    def name_for(self, wanted: str) -> str:
        """``wanted``, or ``wanted (2)`` and so on if someone in the room goes by it: names
        tell people apart in every line of the log."""
        taken = {s.name for s in self.seats if s.kind != "empty"} | {w.name for w in self.watchers.values()}
        name, n = wanted, 1
        while name in taken:
            n += 1
            suffix = f" ({n})"
            name = wanted[:NAME_LENGTH - len(suffix)] + suffix
        return name

    def free_seat(self, index: int | None = None) -> Seat | None:
        """Seat ``index`` if it is free, or (no index) the first free seat."""
        if index is not None:
            seat = self.seats[index] if 0 <= index < len(self.seats) else None
            return seat if seat is not None and seat.kind == "empty" else None
        return next((s for s in self.seats if s.kind == "empty"), None)

    def players(self) -> int:
        return sum(s.kind != "empty" for s in self.seats)

    def humans(self) -> int:
        return sum(s.kind == "human" for s in self.seats)

    def anyone_here(self) -> bool:
        """Whether a person is connected: a human's seat, or any spectator."""
        return bool(self.spectators) or any(s.member is not None and s.kind == "human" for s in self.seats)

    def not_ready(self) -> str | None:
        """Why the host may not start yet (None: every seat is filled and ready; the host's
        own seat, and a seat the server plays, need not say so)."""
        empty = next((s.index for s in self.seats if s.kind == "empty"), None)
        if empty is not None:
            return f"seat {empty} is empty: wait for a player or add a bot"
        waiting = next((s.index for s in self.seats if s.kind == "human" and not s.ready
                        and s.index != self.host and not s.piloted), None)
        if waiting is not None:
            return f"seat {waiting} is not ready"
        return None

    def deadlines(self) -> list[float | None]:
        """The reconnect graces running: seats' and spectators'."""
        return [s.grace_until for s in self.seats] + [w.grace_until for w in self.watchers.values()]

    # -- comings and goings ------------------------------------------------------------

    def sit(self, seat: Seat, member: Member, name: str, key: str, *, creator: bool) -> bool:
        """A person takes the free ``seat``; the room's creator hosts, as does the first
        to sit in a room nobody hosts. Whether they now host."""
        seat.kind, seat.name, seat.member, seat.token_hash = "human", name, member, key
        seat.ready, seat.program = False, member.bot
        if creator or self.host is None:
            self.host = seat.index
            return True
        return False

    def seat_bot(self, seat: Seat, level: str) -> None:
        """A bot of the server's takes the free ``seat``, ready at once."""
        seat.kind, seat.name, seat.ready, seat.level = "bot", f"bot-{seat.index}", True, level

    def watch(self, member: Member, key: str, name: str) -> Watcher:
        watcher = self.watchers[key] = Watcher(key, name, member)
        self.spectators[member] = watcher
        return watcher

    def reseat(self, seat: Seat, member: Member) -> Member | None:
        """``member`` plays ``seat`` again (its token resumed it); the connection it had
        before, if another, is returned for the room to close."""
        old = seat.member
        seat.member, seat.grace_until, seat.starting = member, None, False
        seat.autopilot, seat.timeouts = False, 0
        if seat.kind != "bot":
            if member.name != seat.name:  # back under another name
                seat.name = None  # its old name no longer stands in the new one's way
                seat.name = self.name_for(member.name)
            seat.program = member.bot
        return old if old is not member else None

    def rewatch(self, watcher: Watcher, member: Member) -> Member | None:
        """``member`` watches again in ``watcher``'s place; its old connection, if another."""
        old = watcher.member
        if old is not None and old is not member:
            del self.spectators[old]
        watcher.member, watcher.grace_until = member, None
        self.spectators[member] = watcher
        return old if old is not member else None

    def away(self, member: Member, until: float) -> Seat | Watcher | None:
        """``member``'s connection ended: its place is held for its token until ``until``."""
        watcher = self.spectators.pop(member, None)
        if watcher is not None:
            watcher.member, watcher.grace_until = None, until
        seat = self.seat_of(member)
        if seat is not None:
            seat.member, seat.grace_until = None, until
        return seat or watcher

    def unwatch(self, member: Member) -> Watcher | None:
        """A spectator left: its place is gone (the room forgets its token)."""
        watcher = self.spectators.pop(member, None)
        if watcher is not None:
            del self.watchers[watcher.token_hash]
        return watcher

    def clear(self, seat: Seat) -> None:
        """``seat`` is free again."""
        self.seats[seat.index] = Seat(seat.index)

    def expired(self, now: float) -> tuple[list[Watcher], list[Seat]]:
        """The spectators and the seats whose reconnect grace has run out by ``now`` with
        nobody back (each said once: its grace is over, and a spectator's place is gone)."""
        watchers = [w for w in self.watchers.values() if w.grace_until is not None and now >= w.grace_until]
        for watcher in watchers:
            del self.watchers[watcher.token_hash]
        seats = []
        for seat in self.seats:
            if seat.grace_until is not None and now >= seat.grace_until:
                seat.grace_until = None
                if seat.member is None:
                    seats.append(seat)
        return watchers, seats

    # -- the host ----------------------------------------------------------------------

    def claim_host(self, seat: Seat) -> bool:
        """A person back in ``seat`` hosts a room nobody hosts; whether they now do."""
        if self.host is None and seat.kind == "human":
            self.host = seat.index
            return True
        return False

    def hand_over_host(self, left: int) -> bool:
        """Seat ``left`` is no longer played by its person: if it held the host, the first
        connected human hosts (or nobody). Whether someone new hosts."""
        if self.host != left:
            return False
        self.host = next((s.index for s in self.seats if s.kind == "human" and s.member), None)
        return self.host is not None

    # -- between matches, and at rest --------------------------------------------------

    def back_to_lobby(self) -> list[Seat]:
        """The match is over: bots are ready and nobody is on autopilot. The seats whose
        players left the match for good are returned, to be freed."""
        for seat in self.seats:
            seat.ready = seat.kind == "bot"
            seat.autopilot, seat.timeouts = False, 0
        return [s for s in self.seats if s.abandoned and s.member is None]

    def public(self) -> tuple[dict[str, Any], ...]:
        """The seats as the ``seats`` message shows them."""
        return tuple(s.public() for s in self.seats)

    def records(self) -> list[SeatRecord]:
        return [s.record() for s in self.seats]

    def spectator_records(self) -> list[tuple[str, str | None]]:
        return [(w.token_hash, w.name) for w in self.watchers.values()]

    def restore(self, records: Iterable[SeatRecord], spectators: Iterable[tuple[str, str | None]],
                host: int | None, grace_until: float, held_until: float) -> None:
        """The stored seats and spectators, waiting for their tokens until ``grace_until``
        (a person's turns wait for them until ``held_until``). Raises ``ValueError`` on a
        seat that does not fit the room."""
        self.host = host
        for r in records:
            if r.kind not in ("empty", "human", "bot") or not 0 <= r.seat < len(self.seats):
                raise ValueError(f"seat {r.seat} of kind {r.kind!r} does not fit the room")
            if r.kind == "empty":
                continue
            seat = self.seats[r.seat]
            seat.kind, seat.name, seat.level, seat.token_hash = r.kind, r.name, r.level, r.token_hash
            seat.ready, seat.program = r.ready, r.program
            if seat.token_hash:
                seat.grace_until = grace_until
                if seat.kind == "human":  # give its owner time to reconnect first
                    seat.held_until = held_until
            else:
                seat.abandoned = True
        for key, name in spectators:
            self.watchers[key] = Watcher(key, name, grace_until=grace_until)
