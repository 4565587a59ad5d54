"""A two-table room: eight players, partner rotation, both tables at once (RULES.md).

The match is the engine's :class:`~unolan.engine.TwoTableRotation`: one game per table,
seats numbered 0..7 across the room, the schedule moving them between the tables every
block of 4 rounds. In all else (seats, tokens, chat, spectators, the fair deal, the store)
it is a :class:`~.room.Room`; what differs is here:

- Every event of a table carries its ``table`` in its data; the rotation's own totals
  (``rotation_round_over``, ``rotation_over``) belong to no table and carry none.
- Each table moves on its own: an action is too late only when its own table moved
  (:meth:`.eventlog.EventLog.too_late`), so jump-ins, UNO calls and catches race per
  table, and each table has its own turn clock and autopilot.
- Hidden cards stay with their seat: the engine's events name the room's seats, so the
  log's redaction works as in any room; a snapshot shows a member its own table as its
  seat and the other as a spectator does.
- The store keeps the actions as in any room; the start of each next round is kept as a
  ``deal`` (with its seed), which a restore replays as the rotation's next round.
- Only clients of protocol version 4 may enter: they know the ``table`` field.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

import trio
from unolan.engine.rotation import TABLES

from unolan import engine as en
from unolan import protocol as pr

from .clock import TurnClock
from .commands import Member
from .history import KeptMatch
from .room import Room
from .store import RoomRecord

NEEDS_VERSION = (f"a two-table room needs a client of protocol version {pr.TWO_TABLE_VERSION}; "
                 "update this client")


def on_wire(event: en.TableEvent) -> en.Event:
    """A rotation's event as the room sends it: a table's with its ``table`` in the data."""
    if event.table is None:
        return event.event
    return en.Event(event.event.kind, {**event.event.data, "table": event.table})


def play(match: en.TwoTableRotation, action: en.Action) -> list[en.TableEvent]:
    """Apply an action to the rotation; a ``deal`` starts its next round (from its seed)."""
    if type(action) is en.Deal:
        return match.next_round(action.seed)
    return match.apply(action)


class TwoTableRoom(Room):
    """A room of 8 seats playing :class:`~unolan.engine.TwoTableRotation`."""

    table_count = TABLES

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.match: en.TwoTableRotation | None = None
        self.turns = [TurnClock() for _ in range(TABLES)]

    # -- who may enter -------------------------------------------------------------------

    def _on_join(self, member: Member, msg: pr.Join, creator: bool) -> None:
        if (member.version or 0) < pr.TWO_TABLE_VERSION:
            member.error("needs_version", NEEDS_VERSION, msg)
            return
        super()._on_join(member, msg, creator)

    def _on_resume(self, member: Member, msg: pr.Resume) -> None:
        if (member.version or 0) < pr.TWO_TABLE_VERSION:
            member.error("needs_version", NEEDS_VERSION, msg)
            return
        super()._on_resume(member, msg)

    # -- the match -----------------------------------------------------------------------

    def _has_table(self) -> bool:
        return self.match is not None

    def _clear_table(self) -> None:
        self.match = None

    def _table_of(self, seat: int) -> int | None:
        return self.match.locate(seat)[0] if self.match is not None else None

    def _at(self, seat: int) -> dict[str, Any]:
        table = self._table_of(seat)
        return {} if table is None else {"table": table}

    def _new_match(self, seed: int | str) -> Sequence[en.Event]:
        self.match = en.TwoTableRotation(self.rules, seed)
        return [on_wire(e) for e in self.match.start_events]

    def _apply(self, action: en.Action) -> Sequence[en.Event]:
        assert self.match is not None
        return [on_wire(e) for e in play(self.match, action)]

    def _round(self) -> int:
        assert self.match is not None
        return self.match.round

    def _round_is_over(self) -> bool:
        return self.match is not None and self.match.round_over

    def _match_over(self) -> bool:
        assert self.match is not None
        return self.match.over

    def _kept(self) -> KeptMatch:
        """The rotation just over: its champion, and every seat's total."""
        assert self.match is not None
        result = self.match.outcome()
        return self._kept_as(result.champion if result is not None else None, list(self.match.scores))

    def _legal(self, seat: int) -> tuple[en.Phase, list[en.Action], list[en.Card]]:
        assert self.match is not None
        table, local = self.match.locate(seat)
        game = self.match.tables[table][1]
        return game.phase, self.match.legal_actions(seat), game.hands[local]

    # -- sending -------------------------------------------------------------------------

    def _emit(self, events: Sequence[en.Event]) -> None:
        """Each table's run of events is a batch of that table (it moves that table only)."""
        members = self._members()
        for table, batch in groupby(events, key=lambda e: e.data.get("table")):
            for entry in self.events.add(list(batch), len(self.seats), table):
                self._send_entry(entry, members)

    def _snapshot(self, member: Member, seat: int | None, id: int | None = None) -> None:
        match = self.match
        assert match is not None
        views = [match.table_view(t, seat).to_dict() for t in range(TABLES)]
        tables = tuple({"table": t, "seats": list(match.seats_at(t)), "view": view}
                       for t, view in enumerate(views))
        own = match.locate(seat)[0] if seat is not None else 0
        result = match.outcome()  # over: who won, as its rotation_over said
        member.send(pr.Snapshot(seq=self.seq, view=views[own], id=id, tables=tables,
                                rotation={"round": match.round, "rounds": match.rounds,
                                          "scores": list(match.scores), "champion": None,
                                          **(result.to_data() if result is not None else {})}))

    # -- clocks --------------------------------------------------------------------------

    def _next_deadline(self) -> float:
        times = [t for clock in self.turns for t in (clock.turn, clock.pilot) if t is not None]
        return min([super()._next_deadline(), *times])

    def _after_action(self) -> None:
        match = self.match
        assert match is not None
        now = trio.current_time()
        if match.round_over:
            for clock in self.turns:
                clock.stop_turn()
            if match.over:
                self._match_ended()
            else:
                self.clocks.deal = now + self.limits.deal_pause
            return
        self.clocks.deal = None
        for table, (seats, game) in enumerate(match.tables):
            if game.phase is en.Phase.ROUND_OVER:
                self.turns[table].stop_turn()
            else:
                self._time_turn(self.turns[table], self.seats[seats[game.turn]], game.phase,
                                self.events.moved_at(table), now)

    def _retime(self, table: int | None = None) -> None:
        for clock in self.turns if table is None else [self.turns[table]]:
            clock.turn_key = None
        self._after_action()

    def _match_timers(self, now: float) -> None:
        match, clocks = self.match, self.clocks
        if clocks.deal is not None and now >= clocks.deal and match is not None:
            clocks.deal = None
            self._apply_for(en.Deal(0, self._fair_seed(match.round + 1)))
        if match is None or not self.started:
            return
        for table in range(TABLES):
            seats, game = match.tables[table]
            if self.match is match and game.phase is not en.Phase.ROUND_OVER:
                self._run_turn_clock(self.turns[table], self.seats[seats[game.turn]], now)

    # -- persistence ---------------------------------------------------------------------

    def _restore_match(self, record: RoomRecord) -> None:
        assert record.match_seed is not None
        match = en.TwoTableRotation(self.rules, record.match_seed)
        for text in record.actions:
            play(match, en.parse_action(text))
        self.match, self.actions = match, len(record.actions)
        self.started = not match.over
        # Each table is dealt from the round's seed and its number (engine/rotation.py).
        self._restore_deal(record, match.round, lambda seed: all(
            game.seed == f"{seed}/table {table}" for table, (_, game) in enumerate(match.tables)))
        self._restore_finish()


def room_class(rules: en.Rules, seats: int) -> type[Room]:
    """The room that plays these rules at this many seats."""
    return TwoTableRoom if en.two_tables(rules, seats) else Room
