"""A two-table room as one member hears it: a mirror per table, the seats at each, the
rotation's totals.

In a room of 8 seats under partner rotation (protocol version 4) the server runs two
tables of 4 at once, and every event of a table says which (``table``) in the room's
seats. :class:`Tables` checks the room's ``seq`` as a :class:`~.mirror.Mirror` does and
folds each table's events into that table's own mirror, in the table's own seats
(:func:`unolan.engine.rotation.localize`), so that each mirror's view is what the engine
would show a seat (or a spectator) of that table and its ``legal_actions()`` work as at
any table. An action decided on the member's own table goes to the server in the
room's seats (:meth:`Tables.to_global`).

It stands in for the client's mirror: ``seq``, ``rules``, ``started``, ``settled``,
``view()`` and ``feed()`` are the member's own table's (a spectator's: table 0's). No
table's game ends the match (``match_over``): the rotation does, with ``rotation_over``,
and from that event on the own table's view says so (``phase`` ``match_over``), as a
one-table room's last view does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from unolan.engine import EVENT_KINDS, Action, Phase, Rules, View
from unolan.engine.rotation import PLAYERS, TABLES, Seats, localize, table_rules, to_global

from .mirror import Mirror, is_next


class Tables:
    """Both tables of a two-table room, seen from room seat ``seat`` (None: a spectator)."""

    def __init__(self, seat: int | None, rules: Mapping[str, Any], seq: int | None = None) -> None:
        self.seat = seat
        self.seq = seq
        self.table_rules = table_rules(Rules.from_dict(dict(rules))).to_dict()
        self.seats: list[Seats | None] = [None] * TABLES
        self.mirrors = [Mirror(None, self.table_rules) for _ in range(TABLES)]
        # The seq of each table's last event (or of the last snapshot): a table's bot
        # thinks from its own table's last move, not from the other table's.
        self.moved: list[int | None] = [seq] * TABLES
        self.round = 0
        self.rounds = 0
        self.scores = [0] * PLAYERS
        self.champion: int | None = None
        self.tie: dict[str, Any] = {}  # the champion's tie, as the match's end said it (tied, tie_break)

    # -- the member's own table, as a mirror shows it ------------------------------------

    @property
    def own(self) -> int:
        """The table the member sits at (a spectator's, or before seating: table 0)."""
        return next((t for t, seats in enumerate(self.seats) if seats and self.seat in seats), 0)

    @property
    def mirror(self) -> Mirror:
        return self.mirrors[self.own]

    @property
    def own_moved(self) -> int | None:
        """The seq of the last event of the member's own table (or of the room's totals)."""
        return self.moved[self.own]

    @property
    def rules(self) -> dict[str, Any]:
        return self.mirror.rules

    @property
    def placed(self) -> bool:
        """Whether the member's table is known (a seat's: once its table is seated)."""
        return self.seat is None or any(seats and self.seat in seats for seats in self.seats)

    @property
    def started(self) -> bool:
        """Its own table has been dealt (a seat never sees another table as its own)."""
        return self.placed and self.mirror.started

    @property
    def settled(self) -> bool:
        return self.placed and self.mirror.settled

    @property
    def over(self) -> bool:
        """The match is over (``rotation_over`` named its champion)."""
        return self.champion is not None

    def view(self) -> View:
        """The own table's view; once the rotation is over, its phase is the match's end."""
        if not self.placed:
            raise RuntimeError("this seat's table has not been seated yet")
        view = self.mirror.view()
        return replace(view, phase=Phase.MATCH_OVER) if self.over else view

    def set_rules(self, rules: Mapping[str, Any]) -> None:
        """The room's rules; each table plays by :func:`~unolan.engine.rotation.table_rules`."""
        self.table_rules = table_rules(Rules.from_dict(dict(rules))).to_dict()
        for mirror in self.mirrors:
            mirror.set_rules(self.table_rules)

    def to_global(self, action: Action) -> Action:
        """An action decided on the own table's view, in the room's seats."""
        seats = self.seats[self.own]
        return action if seats is None else to_global(action, seats)

    def local(self, kind: str, data: Mapping[str, Any]) -> dict[str, Any] | None:
        """An event of the own table in that table's seats (None: not the own table's)."""
        table, seats = data.get("table"), self.seats[self.own]
        if table != self.own or seats is None or kind not in EVENT_KINDS:
            return None
        return localize(dict(data), seats)

    # -- events and snapshots ------------------------------------------------------------

    def feed(self, seq: int, kind: str, data: Mapping[str, Any]) -> bool:
        """Apply one room event with its ``seq`` (False: an old one); raises
        :class:`~.mirror.SeqGap` as a mirror does."""
        if not is_next(self.seq, seq):
            return False
        self.apply(kind, data)
        self.seq = seq
        table = data.get("table")
        if table is not None:
            self.moved[table] = seq
        elif kind in ("rotation_round_over", "rotation_over"):
            self.moved = [seq] * TABLES
        return True

    def apply(self, kind: str, data: Mapping[str, Any]) -> None:
        table = data.get("table")
        if kind == "table_seated":
            a, b, c, d = data["seats"]
            seats = self.seats[data["table"]] = (a, b, c, d)
            self.mirrors[data["table"]] = Mirror(seats.index(self.seat) if self.seat in seats else None,
                                                 self.table_rules)
            self.round = data["round"]
            if self.round == 1:  # a new match
                self.champion, self.tie = None, {}
        elif kind in ("rotation_round_over", "rotation_over"):
            self.scores = list(data["scores"])
            self.champion = data.get("champion")
            self.tie = tie_of(data)
        elif table is not None and kind in EVENT_KINDS:
            seats = self.seats[table]
            if seats is not None:
                self.mirrors[table].apply(kind, localize(dict(data), seats))
                self.round = max(self.round, self.mirrors[table].round)

    def load(self, snapshot: Any) -> None:
        """A two-table snapshot: both tables, their seats, the totals."""
        for table in snapshot.tables or ():
            a, b, c, d = table["seats"]
            self.seats[table["table"]] = (a, b, c, d)
            self.mirrors[table["table"]] = Mirror.from_view(dict(table["view"]))
        if snapshot.rotation is not None:
            self.round = snapshot.rotation["round"]
            self.rounds = snapshot.rotation["rounds"]
            self.scores = list(snapshot.rotation["scores"])
            self.champion = snapshot.rotation.get("champion")  # the match ended: its champion
            self.tie = tie_of(snapshot.rotation)
        self.seq = snapshot.seq
        self.moved = [snapshot.seq] * TABLES


def tie_of(data: Mapping[str, Any]) -> dict[str, Any]:
    """The champion's tie in a match's end (``tied``, ``tie_break``), where it had one."""
    return {key: data[key] for key in ("tied", "tie_break") if key in data}
