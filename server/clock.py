"""A room's clocks: when its task must wake up even if no command arrives.

Five kinds of deadline, all absolute Trio times (None: not running): the turn timer of
a room with one, the autopilot's think time for a seat the server plays, the pause
before the next deal, the room's idle expiry, and each seat's or spectator's reconnect
grace. The room decides what happens at each; this only keeps the times.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

NEVER = float("inf")


@dataclass
class TurnClock:
    """The clocks of one table's turn (a two-table room has one per table)."""

    turn_key: tuple[int, str, int] | None = None  # the turn being timed: seat, phase, moved
    turn: float | None = None  # the player in turn must act by then (the room's timer)
    pilot: float | None = None  # the server plays the seat in turn then

    def stop_turn(self) -> None:
        """No turn is being timed (a round or the match is over)."""
        self.turn_key = self.turn = self.pilot = None


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
