"""The other table of a two-table room: what its panel under the player's own table shows.

In a room of 8 seats under partner rotation the player's own table is drawn as any
table; the other one is shown in two lines (:mod:`.other_panel`): its number, the round,
its top card and the color to match (once its round is over, instead of the card: that
it waits for the own table, both tables being dealt the next round together, or that
its round is over when both are), then each of its players with the cards they hold,
the one in turn marked. The networking side fills :class:`OtherTable` from the client's
tables (hidden cards are not in it: the other table is seen as a spectator sees it).
Data only: the UI's state holds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from unolan.client.i18n import _
from unolan.client.tables import Tables
from unolan.engine import Phase


@dataclass(frozen=True, slots=True)
class OtherTable:
    """What the panel shows of the table the player does not sit at."""

    table: int  # 0 or 1
    round: int
    top: str | None
    names: tuple[str, ...]  # in table order
    counts: tuple[int, ...]
    turn: int | None  # the player in turn (table order); None between rounds
    totals: tuple[tuple[str, int], ...] = ()  # every player's rotation total, by room seat
    waits_for: int | None = None  # its round is over: the table (0 or 1) still playing it
    color: str | None = None  # the color to match (a wild's: the one its player named)

    @classmethod
    def of(cls, tables: Tables, names: Mapping[int, str]) -> OtherTable | None:
        """The other table of ``tables`` (None until both tables are seated and dealt)."""
        other = 1 - tables.own
        seats, mirror = tables.seats[other], tables.mirrors[other]
        if seats is None or not mirror.started:
            return None
        over = (Phase.ROUND_OVER, Phase.MATCH_OVER)
        playing = mirror.phase not in over
        own = tables.mirrors[tables.own]
        waits = not playing and own.started and own.round == mirror.round and own.phase not in over
        return cls(other, mirror.round, mirror.top, tuple(_name(names, s) for s in seats),
                   tuple(mirror.counts), mirror.turn if playing else None,
                   tuple((_name(names, s), total) for s, total in enumerate(tables.scores)),
                   tables.own if waits else None, mirror.color)


def _name(names: Mapping[int, str], seat: int) -> str:
    return names.get(seat) or _("seat {seat}").format(seat=seat)
