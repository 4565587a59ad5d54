"""A room's numbered events, kept for resumes, and the gate that makes an action too late.

Every room event gets the next ``seq`` and every member of the room sees every ``seq``.
An engine event with private fields (the cards of a ``drew`` or a ``hand``, the hand a
challenger is shown, the card a seat just drew) goes in full to the seat the engine's
table of event kinds names, and without those fields, under the same ``seq``, to every
other member (:meth:`~unolan.engine.Event.data_for`).

Every game action names the ``seq`` it was decided on. The events of one action (or of
one deal) form a batch that ends with an event that closes it (``turn``, ``round_over``
or ``match_over``). The log keeps ``moved``: the last seq of the last batch holding an
event that *moves the table* (:data:`TABLE_EVENTS`, from the engine's table: a card
played, cards drawn, a turn passed, a color named, a challenge, a catch, hands swapped or
rotated, a round dealt or ended). Those are the events that change what an action is
judged against: whose turn it is, the top card, the hands. An action whose seq is older
than ``moved`` was decided on a table that is gone (:meth:`EventLog.too_late`); the room
refuses it with ``too_late`` and nothing changes. So of several jump-ins or catches sent
on the same seq, the first to arrive is applied and the others are too late, and a play
sent by the player whose turn a jump-in took is too late too. Chat, presence, ``turn``
and ``uno`` events do not move the table (an UNO call is answered by the engine: a catch
of a player who has called is refused with ``cannot_catch``).

A two-table room's tables move on their own: the log keeps each table's ``moved`` too,
and an action is too late when its own table (or the whole room, at a new match) moved
after its seq, never because the other table did.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from unolan.protocol.framing import encode_frame

from unolan import engine as en

TABLE_EVENTS = frozenset(kind for kind, spec in en.EVENT_KINDS.items() if spec.moves)
"""Event kinds that move the table: an action decided before one of them is too late."""

LogEntry = bytes | tuple[bytes | None, ...]
"""One event in the log: its frame when everyone sees the same one, else one frame per
seat and then the spectators' (None: no frame). Every seq is logged, in order, so an
entry's seq is its distance from the last one and is not kept."""


def event_frame(seq: int, kind: str, data: dict[str, Any]) -> bytes:
    """One ``event`` frame. The data comes from the engine or from the room itself, never
    from a client, so it is not checked again here (clients check every frame)."""
    return encode_frame({"type": "event", "seq": seq, "kind": kind, "data": data})


def frame_for(entry: LogEntry, seat: int | None) -> bytes | None:
    """The frame of ``entry`` that ``seat`` gets (None: a spectator)."""
    if isinstance(entry, bytes):
        return entry
    return entry[-1 if seat is None else seat]


class EventLog:
    """The room's seq, its last ``room_log`` events, and ``moved``."""

    __slots__ = ("entries", "moved", "seq", "tables")

    def __init__(self, size: int) -> None:
        self.seq = 0  # the last seq given out
        self.moved = 0  # the last seq of the last batch that moved the table
        self.tables: dict[int, int] = {}  # in a two-table room: each table's own ``moved``
        self.entries: deque[LogEntry] = deque(maxlen=size)

    def restart(self, seq: int) -> None:
        """Go on from ``seq``, with nothing logged and the table moved (after a restore)."""
        self.seq = self.moved = seq
        self.entries.clear()

    def public(self, kind: str, data: dict[str, Any]) -> bytes:
        """The next seq, for an event everyone sees the same: its frame, logged."""
        self.seq += 1
        frame = event_frame(self.seq, kind, data)
        self.entries.append(frame)
        return frame

    def add(self, events: Sequence[en.Event], seats: int, table: int | None = None) -> list[LogEntry]:
        """One batch of engine events, each with its own seq, logged; their entries
        (``table``: the batch is that table's, and moves that table only).

        If any event of the batch moves the table, ``moved`` becomes the batch's *last*
        seq: an action decided on part of a batch (a ``passed`` whose ``turn`` has not
        arrived yet) is too late, never judged against a table its sender did not see
        whole."""
        entries: list[LogEntry] = []
        moves = False
        for event in events:
            self.seq += 1
            seq, kind = self.seq, event.kind
            moves = moves or kind in TABLE_EVENTS
            owner = event.private_to
            entry: LogEntry
            if owner is None:
                entry = event_frame(seq, kind, event.data)
            else:
                full, rest = event_frame(seq, kind, event.data), event_frame(seq, kind, event.public_data())
                entry = (*(full if s == owner else rest for s in range(seats)), rest)
            entries.append(entry)
        self.entries.extend(entries)
        if moves:
            if table is None:
                self.moved = self.seq
            else:
                self.tables[table] = self.seq
        return entries

    def table_moved(self) -> None:
        """The table is new (a match begins): every action decided before is too late."""
        self.moved = self.seq

    def moved_at(self, table: int | None = None) -> int:
        """The last seq that moved ``table`` (None: the room's one table)."""
        return self.moved if table is None else max(self.moved, self.tables.get(table, 0))

    def too_late(self, seq: int, table: int | None = None) -> bool:
        """Whether an action decided on ``seq`` was decided on a table that is gone."""
        return seq < self.moved_at(table)

    def since(self, seq: int, seat: int | None) -> list[bytes] | None:
        """The frames ``seat`` missed after ``seq``; None if the log no longer holds them
        all, or ``seq`` is not one the room gave out (then a snapshot is due)."""
        first = self.seq - len(self.entries) + 1  # the oldest logged seq
        if seq != self.seq and not first <= seq + 1 <= self.seq:
            return None
        missed = list(self.entries)[seq + 1 - first:]
        return [frame for entry in missed if (frame := frame_for(entry, seat)) is not None]
