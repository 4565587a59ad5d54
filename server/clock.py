"""A room's clocks: when its task must wake up even if no command arrives.

Five kinds of deadline, all absolute Trio times (None: not running): the turn timer of
a room with one, the autopilot's think time for a seat the server plays, the pause
before the next deal, the room's idle expiry, and each seat's or spectator's reconnect
grace. A turn clock also says whose move is due (:class:`Due`); what the move is, and
everything else that happens at a deadline, the room decides.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .seats import Seat

NEVER = float("inf")


class Due(enum.Enum):
    """What a turn clock that ran out asks of the room."""

    AUTOPILOT = "autopilot"  # the server plays the seat it plays (its think time is up)
    TIMEOUT = "timeout"  # the player in turn did not act in time: the server acts for them


@dataclass
class TurnClock:
    """The clocks of one table's turn (a two-table room has one per table): the room's
    turn ``timer`` (seconds, 0: none) for a player, the autopilot's ``think`` time for a
    seat the server plays."""

    timer: float = 0
    think: float = 0
    turn_key: tuple[int, str, int] | None = None  # the turn being timed: seat, phase, moved
    turn: float | None = None  # the player in turn must act by then (the room's timer)
    pilot: float | None = None  # the server plays the seat in turn then

    def stop_turn(self) -> None:
        """No turn is being timed (a round or the match is over)."""
        self.turn_key = self.turn = self.pilot = None

    def time(self, seat: Seat, phase: str, moved: int, now: float) -> None:
        """Time ``seat``'s turn (in ``phase``, at the table as it moved at seq ``moved``),
        unless that very turn is timed already."""
        key = (seat.index, phase, moved)
        if key != self.turn_key:
            self.turn_key = key
            self.turn = now + self.timer if self.timer and not seat.piloted else None
            self.pilot = self._pilot_at(seat, now) if seat.piloted else None

    def due(self, seat: Seat, now: float) -> Due | None:
        """What is due at ``seat``'s turn by ``now``. A seat the server began to play
        (its player went away) gets the autopilot's think time; one whose player came
        back before it ran out gets the turn timer again."""
        if seat.piloted and self.pilot is None:
            self.pilot = self._pilot_at(seat, now)
            self.turn = None
        if self.pilot is not None and now >= self.pilot:
            self.pilot = None
            if seat.piloted:
                return Due.AUTOPILOT
            if self.timer:
                self.turn = now + self.timer
        elif self.turn is not None and now >= self.turn:
            self.turn = None
            if not seat.piloted:
                return Due.TIMEOUT
        return None

    def _pilot_at(self, seat: Seat, now: float) -> float:
        """After the think time, and not before a restored seat's owner had their time to
        come back."""
        return max(now + self.think, seat.held_until or now)


@dataclass
class Clocks:
    """The room's own clocks: the next deal, the idle expiry (each table's turn has its
    :class:`TurnClock`)."""

    deal: float | None = None  # the next round is dealt then
    idle: float | None = None  # the room closes then (nobody connected)

    def next(self, others: Iterable[float | None]) -> float:
        """The earliest deadline, these and ``others`` (NEVER if none is running)."""
        times = [t for t in (self.deal, self.idle) if t is not None]
        times += [t for t in others if t is not None]
        return min(times, default=NEVER)
