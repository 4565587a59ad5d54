"""Race receipts: how the room settled a race, told to every member.

The room applies actions one at a time in arrival order (see :mod:`.room`). A race is an
applied action (its winner) and the actions of other seats refused because of it:
``too_late`` (decided on a table the winner's events moved) or ``cannot_catch`` (the UNO
call won), arriving within ``window`` seconds of the winner. :class:`Races` keeps the races
of the last ``window`` seconds and gives each one's receipt once its time is over, if it
had a loser: the winner, the seq its events ended at, and every contender in arrival
order with the seq it decided on, how many milliseconds after the winner it came and what
it got. Receipts name no card: a refused action shows nobody what it held.
"""

from __future__ import annotations

from bisect import insort
from collections import deque
from dataclasses import dataclass, field
from typing import Any

RACE_CODES = frozenset({"too_late", "cannot_catch"})
"""The refusals that lose a race (any other is a mistake of the sender's own)."""


@dataclass(slots=True)
class _Race:
    winner: int
    decided: int  # the seq the winner decided on
    seq: int  # the room's seq after the winner's events
    at: float  # when the winner arrived
    losers: list[tuple[int, int, float, str]] = field(default_factory=list)  # seat, seq, time, code
    table: int | None = None  # in a two-table room: the table it was run at


class Races:
    """The races of one room. Every applied action opens one, and nearly all of them end
    without a loser: such a race sets no deadline (the room is not woken for it) and is
    forgotten when a later one opens after its window. Only a race with a loser has a
    receipt due, so only those count toward :attr:`deadline`."""

    __slots__ = ("_contested", "_open", "window")

    def __init__(self, window: float) -> None:
        self.window = window
        self._open: deque[_Race] = deque()  # the races of the last window, oldest first
        self._contested: list[_Race] = []  # those with a loser, oldest first

    def won(self, seat: int, decided: int, seq: int, now: float, table: int | None = None) -> None:
        """A player's action was applied: ``decided`` on seq, its events up to ``seq``
        (``table``: at that table of a two-table room)."""
        self._close_open(now)
        self._open.append(_Race(seat, decided, seq, now, table=table))

    def _close_open(self, now: float) -> None:
        """Forget the races whose window is over by ``now`` (no loser may join them)."""
        races, window = self._open, self.window
        while races and now >= races[0].at + window:
            races.popleft()

    def lost(self, seat: int, decided: int, code: str, now: float, table: int | None = None) -> None:
        """A player's action was refused with ``code``: it joins the first open race it
        lost (one at its table whose winner's events it had not seen), if any."""
        if code not in RACE_CODES:
            return
        for race in self._open:
            if race.winner != seat and race.table == table and decided < race.seq \
                    and now < race.at + self.window:
                if not race.losers:
                    insort(self._contested, race, key=_opened)
                race.losers.append((seat, decided, now, code))
                return

    @property
    def deadline(self) -> float | None:
        """When the oldest race with a loser closes (None: no receipt is due)."""
        return self._contested[0].at + self.window if self._contested else None

    def settled(self, now: float) -> bool:
        """Whether no race is open at ``now``: none may still get a loser or a receipt."""
        return not self._contested and (not self._open or now >= self._open[-1].at + self.window)

    @property
    def settles(self) -> float | None:
        """When the newest open race closes (None: none is open)."""
        return self._open[-1].at + self.window if self._open else None

    def due(self, now: float) -> list[dict[str, Any]]:
        """The receipts of the races closed by ``now`` that had a loser (``receipt`` data)."""
        out = []
        contested = self._contested
        while contested and now >= contested[0].at + self.window:  # as deadline has it
            out.append(receipt(contested.pop(0)))
        self._close_open(now)
        return out

    def clear(self) -> None:
        self._open.clear()
        self._contested.clear()


def _opened(race: _Race) -> float:
    return race.at


def receipt(race: _Race) -> dict[str, Any]:
    contenders = [{"seat": race.winner, "order": 1, "seq": race.decided, "after": 0, "result": "won"}]
    for order, (seat, decided, at, code) in enumerate(race.losers, 2):
        contenders.append({"seat": seat, "order": order, "seq": decided,
                           "after": round((at - race.at) * 1000), "result": code})
    table = {} if race.table is None else {"table": race.table}
    return {"winner": race.winner, "seq": race.seq, "contenders": contenders, **table}
