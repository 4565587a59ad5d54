"""A two-table room as the terminal UI sees it: the player's own table, in its own seats.

The screen draws one table, as in any room. In a room of two tables the networking side
puts this lens between the server and the screen's state: the own table's events come
through in that table's seats (:func:`unolan.engine.rotation.localize`), the other
table's go to its panel only (:mod:`.other_table`), a seat named by a server event (chat,
presence) is the table's seat when it sits at the own table, and the room's ``seats``
during the match name the own table's four players in table order. Before and after the
match the room is shown whole, as any room (the last table, still on the screen after the
match, keeps its players' names).
"""

from __future__ import annotations

from typing import Any

from unolan.client.tables import Tables
from unolan.engine.rotation import Seats, localize


class TableLens:
    """The own table of ``tables``, for the screen."""

    def __init__(self, tables: Tables, names: dict[int, str] | None = None) -> None:
        self.tables = tables
        self.names = names or {}  # by room seat

    @property
    def seats(self) -> Seats | None:
        return self.tables.seats[self.tables.own]

    def event(self, kind: str, data: dict[str, Any]) -> dict[str, Any] | None:
        """The event as the screen takes it (None: not for the own table's screen)."""
        seats = self.seats
        if seats is None:
            return data
        if "table" in data:
            if data["table"] != self.tables.own:
                return None
            local = localize(data, seats)
            if kind == "table_seated" and self.tables.seat in seats:  # partners face each other
                local["partner"] = (seats.index(self.tables.seat) + 2) % 4
            if "contenders" in local:  # a receipt: its contenders' seats too
                local["contenders"] = [{**c, "seat": seats.index(c["seat"])} for c in local["contenders"]]
            return local
        me = self.tables.seat
        if kind == "rotation_round_over" and me is not None:  # the player's points and total
            return {**data, "mine": [data["points"][me], data["scores"][me]]}
        if kind == "rotation_over":  # the champion: a seat at this table, else by name
            champion, tied = data["champion"], data.get("tied") or ()
            return {**data, "champion": seats.index(champion) if champion in seats else None,
                    "name": self.names.get(champion, "?"),
                    "tied": [seats.index(s) if s in seats else None for s in tied],  # (None: the
                    "tied_names": [self.names.get(s, "?") for s in tied]}  # other table's)
        seat = data.get("seat")
        if seat is None:
            return data
        if seat in seats:
            return {**data, "seat": seats.index(seat)}
        return {**data, "seat": None} if kind == "chat" else None  # another table's player

    def ended(self) -> dict[str, Any] | None:
        """The match's end as the screen takes ``rotation_over``, from what the tables
        folded (a snapshot after the match says its champion); None while it goes on."""
        tables = self.tables
        if tables.champion is None:
            return None
        return self.event("rotation_over", {"rounds": tables.rounds, "scores": list(tables.scores),
                                            "champion": tables.champion, **tables.tie})

    def room(self, room: dict[str, Any]) -> dict[str, Any]:
        """The room's ``seats`` (as a map) during the match: the own table's, in its order."""
        return self.at_table(room) if room.get("started") else room

    def at_table(self, room: dict[str, Any]) -> dict[str, Any]:
        """The room's ``seats`` (as a map) as the own table names its players, in table
        order: during the match, and after it while its last table is on the screen (the
        room itself is then shown whole)."""
        seats = self.seats
        if seats is None:
            return room
        by_seat = {entry["seat"]: entry for entry in room.get("seats", ())}
        host = room.get("host")
        return {**room, "host": seats.index(host) if host in seats else None,
                "seats": [{**by_seat[g], "seat": i} for i, g in enumerate(seats) if g in by_seat]}
