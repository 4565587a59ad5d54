"""Who in a room hears its events, and which frame of each event every one of them gets.

The room's seats and spectators are the audience: a seat's connection hears the events
as its seat may know them, a spectator's as a spectator may. Every event is numbered and
logged by the room's :class:`~.eventlog.EventLog` first (the log redacts), and its seq is
given to the store before any frame leaves, so that a restarted room never gives a seq
out twice. How the frames reach the sockets is the server's :mod:`.fanout`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .eventlog import EventLog, frame_for

if TYPE_CHECKING:
    from .commands import Member
    from .match import Batch
    from .roster import Roster
    from .store import Store


class Audience:
    """The members of one room: its seats' connections and its connected spectators
    (read from its roster, which the room changes; this only reads it)."""

    def __init__(self, room_id: str, roster: Roster, events: EventLog, store: Store | None) -> None:
        self.room_id = room_id
        self.roster = roster
        self.events = events
        self.store = store

    def members(self) -> list[tuple[Member, int | None]]:
        """Every connected member and its seat (None: a spectator)."""
        out: list[tuple[Member, int | None]] = [
            (s.member, s.index) for s in self.roster.seats if s.member is not None]
        out += [(member, None) for member in self.roster.spectators]
        return out

    def public(self, kind: str, data: dict[str, Any], now: bool = False) -> None:
        """A server event everyone in the room sees the same (``now``: past the frames
        held for the room's writes, as a pause notice goes)."""
        frame = self.events.public(kind, data)
        if self.store is not None:
            self.store.seq(self.room_id, self.events.seq)
        for member, _ in self.members():
            if now:
                member.push_now(frame)
            else:
                member.push(frame)

    def emit(self, batches: list[Batch]) -> None:
        """One action's engine events, a table's run of them at a time (see
        :meth:`.eventlog.EventLog.add`): each member its own frame of each."""
        members = self.members()
        for table, events in batches:
            for entry in self.events.add(events, len(self.roster.seats), table):
                if isinstance(entry, bytes):  # the same for everyone
                    for member, _ in members:
                        member.push(entry)
                    continue
                for member, seat in members:
                    frame = frame_for(entry, seat)
                    if frame is not None:
                        member.push(frame)

    def push(self, frame: bytes, only: Member | None = None) -> None:
        """A frame for every member (``only``: for that one)."""
        for member, _ in ([(only, None)] if only is not None else self.members()):
            member.push(frame)
