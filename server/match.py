"""The match a room plays, at one table or at two, behind the one interface a room drives.

A room does the same things whatever it plays: it applies an action and sends its events,
times the turn of each table, deals the next round, shows a member the table, keeps the
result. What differs between the engine's :class:`~unolan.engine.Game` and its
:class:`~unolan.engine.TwoTableRotation` (eight players, partner rotation, both tables at
once: RULES.md) is here, once:

- Every event of a table carries its ``table`` in its data; the rotation's own totals
  (``rotation_round_over``, ``rotation_over``) belong to no table and carry none. The
  events come in *batches*, each table's run of them: a batch moves its own table only
  (:meth:`.eventlog.EventLog.too_late`), so jump-ins, UNO calls and catches race per
  table, and each table has its own turn clock.
- Hidden cards stay with their seat: the engine's events name the room's seats, so the
  log's redaction works as in any room; a snapshot shows a member its own table as its
  seat and the other as a spectator does.
- A match is its first seed and its actions: a ``deal`` action (with its seed) starts the
  next round, so replaying the stored actions rebuilds the match (:meth:`Match.replayed`).
- Only clients of protocol version 4 may enter a two-table room: they know the ``table``
  field.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from itertools import groupby
from typing import Any, ClassVar

from unolan.engine.rotation import TABLES, Seats

from unolan import engine as en
from unolan import protocol as pr

Batch = tuple[int | None, list[en.Event]]  # one table's run of events (None: no table's)

NEEDS_VERSION = (f"a two-table room needs a client of protocol version {pr.TWO_TABLE_VERSION}; "
                 "update this client")


def on_wire(event: en.TableEvent) -> en.Event:
    """A rotation's event as the room sends it: a table's with its ``table`` in the data."""
    if event.table is None:
        return event.event
    return en.Event(event.event.kind, {**event.event.data, "table": event.table})


def play(rotation: en.TwoTableRotation, action: en.Action) -> list[en.TableEvent]:
    """Apply an action to the rotation; a ``deal`` starts its next round (from its seed)."""
    if type(action) is en.Deal:
        return rotation.next_round(action.seed)
    return rotation.apply(action)


class Match(ABC):
    """A match under way in a room (or just over)."""

    tables: ClassVar[tuple[int | None, ...]]  # its tables, as events and clocks name them
    needs_version: ClassVar[int] = 0  # the protocol version a client needs to enter

    @classmethod
    @abstractmethod
    def dealt(cls, rules: en.Rules, seats: int, seed: int | str) -> Match:
        """A new match, its first round dealt from ``seed`` (its events: :meth:`opening`)."""

    @classmethod
    def replayed(cls, rules: en.Rules, seats: int, seed: int | str, actions: Iterable[str]) -> Match:
        """The match a store kept: dealt from its seed, then every action (text) again."""
        match = cls.dealt(rules, seats, seed)
        for text in actions:
            match.apply(en.parse_action(text))
        return match

    @abstractmethod
    def opening(self) -> list[Batch]:
        """The events of setting the match up and dealing its first round."""

    @abstractmethod
    def apply(self, action: en.Action) -> list[Batch]:
        """Apply an action (``IllegalAction`` if refused); its events, table by table."""

    @property
    @abstractmethod
    def round(self) -> int:
        """The round being played (or just over)."""

    @property
    @abstractmethod
    def round_over(self) -> bool:
        """The round (or the match) is over: the next round waits for its deal."""

    @property
    @abstractmethod
    def over(self) -> bool:
        """The match is over."""

    @abstractmethod
    def table_of(self, seat: int) -> int | None:
        """The table a seat plays at now."""

    @abstractmethod
    def turn_at(self, table: int | None) -> tuple[int, en.Phase] | None:
        """The seat in turn at ``table`` and what it is to do (None: its round is over)."""

    @abstractmethod
    def legal(self, seat: int) -> tuple[en.Phase, list[en.Action], list[en.Card]]:
        """What the server may do for a seat it plays: the phase, its actions, its hand."""

    @abstractmethod
    def next_deal(self, seed: str | None) -> en.Action:
        """The action that deals the next round (``seed``: the fair deal's)."""

    @abstractmethod
    def dealt_from(self, seed: str) -> bool:
        """Whether the round under way was dealt from ``seed`` (a fair deal's)."""

    @abstractmethod
    def outcome(self) -> tuple[int | None, list[int]]:
        """The match's winner (None: not over) and every score, as the history keeps them."""

    @abstractmethod
    def snapshot(self, seat: int | None) -> dict[str, Any]:
        """The table as ``seat`` may see it: a ``snapshot`` message's fields but its seq and id."""

    @abstractmethod
    def positions(self) -> tuple[tuple[Seats, str], ...]:
        """Each table's room seats (in table order) and its position in the position
        notation (docs/notation.md); a match at one table has none: :meth:`position`."""

    @abstractmethod
    def position(self) -> str:
        """The whole match now, in the position notation (two tables: each, headed by its
        number as people count them and its room seats)."""


class OneTable(Match):
    """A match at one table: the engine's game."""

    tables = (None,)

    def __init__(self, game: en.Game) -> None:
        self.game = game

    @classmethod
    def dealt(cls, rules: en.Rules, seats: int, seed: int | str) -> OneTable:
        return cls(en.Game(rules, seats, seed=seed))

    def opening(self) -> list[Batch]:
        return [(None, list(self.game.start_events))]

    def apply(self, action: en.Action) -> list[Batch]:
        return [(None, list(self.game.apply(action)))]

    @property
    def round(self) -> int:
        return self.game.round

    @property
    def round_over(self) -> bool:
        return self.game.phase in (en.Phase.ROUND_OVER, en.Phase.MATCH_OVER)

    @property
    def over(self) -> bool:
        return self.game.phase is en.Phase.MATCH_OVER

    def table_of(self, seat: int) -> int | None:
        return None

    def turn_at(self, table: int | None) -> tuple[int, en.Phase] | None:
        return None if self.round_over else (self.game.turn, self.game.phase)

    def legal(self, seat: int) -> tuple[en.Phase, list[en.Action], list[en.Card]]:
        return self.game.phase, self.game.legal_actions(seat), self.game.hands[seat]

    def next_deal(self, seed: str | None) -> en.Action:
        return en.Deal(self.game.turn, seed)

    def dealt_from(self, seed: str) -> bool:
        return seed == self.game.seed

    def outcome(self) -> tuple[int | None, list[int]]:
        result = self.game.outcome()
        return result.match_winner if result is not None else None, list(self.game.scores)

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        return {"view": self.game.view(seat).to_dict(), "match": self.game.match_end()}

    def positions(self) -> tuple[tuple[Seats, str], ...]:
        return ()

    def position(self) -> str:
        return self.game.position()


class TwoTables(Match):
    """Eight players at two tables, partner rotation: the engine's rotation. Seats are
    numbered 0..7 across the room; the schedule moves them between the tables."""

    tables = tuple(range(TABLES))
    needs_version = pr.TWO_TABLE_VERSION

    def __init__(self, rotation: en.TwoTableRotation) -> None:
        self.rotation = rotation

    @classmethod
    def dealt(cls, rules: en.Rules, seats: int, seed: int | str) -> TwoTables:
        return cls(en.TwoTableRotation(rules, seed))

    def opening(self) -> list[Batch]:
        return self._batches(self.rotation.start_events)

    def apply(self, action: en.Action) -> list[Batch]:
        return self._batches(play(self.rotation, action))

    @staticmethod
    def _batches(events: list[en.TableEvent]) -> list[Batch]:
        return [(table, [on_wire(e) for e in run])
                for table, run in groupby(events, key=lambda e: e.table)]

    @property
    def round(self) -> int:
        return self.rotation.round

    @property
    def round_over(self) -> bool:
        return self.rotation.round_over

    @property
    def over(self) -> bool:
        return self.rotation.over

    def table_of(self, seat: int) -> int | None:
        return self.rotation.locate(seat)[0]

    def turn_at(self, table: int | None) -> tuple[int, en.Phase] | None:
        assert table is not None
        seats, game = self.rotation.tables[table]
        return None if game.phase is en.Phase.ROUND_OVER else (seats[game.turn], game.phase)

    def legal(self, seat: int) -> tuple[en.Phase, list[en.Action], list[en.Card]]:
        table, local = self.rotation.locate(seat)
        game = self.rotation.tables[table][1]
        return game.phase, self.rotation.legal_actions(seat), game.hands[local]

    def next_deal(self, seed: str | None) -> en.Action:
        return en.Deal(0, seed)

    def dealt_from(self, seed: str) -> bool:
        # Each table is dealt from the round's seed and its number (engine/rotation.py).
        return all(game.seed == f"{seed}/table {table}"
                   for table, (_, game) in enumerate(self.rotation.tables))

    def outcome(self) -> tuple[int | None, list[int]]:
        result = self.rotation.outcome()
        return result.champion if result is not None else None, list(self.rotation.scores)

    def snapshot(self, seat: int | None) -> dict[str, Any]:
        rotation = self.rotation
        views = [rotation.table_view(t, seat).to_dict() for t in range(TABLES)]
        tables = tuple({"table": t, "seats": list(rotation.seats_at(t)), "view": view}
                       for t, view in enumerate(views))
        own = rotation.locate(seat)[0] if seat is not None else 0
        result = rotation.outcome()  # over: who won, as its rotation_over said
        return {"view": views[own], "tables": tables,
                "rotation": {"round": rotation.round, "rounds": rotation.rounds,
                             "scores": list(rotation.scores), "champion": None,
                             **(result.to_data() if result is not None else {})}}

    def positions(self) -> tuple[tuple[Seats, str], ...]:
        return tuple((seats, game.position()) for seats, game in self.rotation.tables)

    def position(self) -> str:
        return "\n".join(f"# table {t}: seats {' '.join(map(str, seats))}\n{text}"
                         for t, (seats, text) in enumerate(self.positions(), 1))


def match_kind(rules: en.Rules, seats: int) -> type[Match]:
    """The match these rules play at this many seats."""
    return TwoTables if en.two_tables(rules, seats) else OneTable
