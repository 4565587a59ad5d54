"""Eight players, partner rotation: two tables of four, 28 rounds a cycle (RULES.md).

One :class:`~unolan.engine.Game` is one table, so this match format holds two of them
and speaks in *global* seats 0..7: actions come in with global seats, events go out with
global seats and the table they happened at. The schedule (:mod:`.schedule`) decides who
sits where: partners for 4 rounds in a row, at the same table, facing each other.

Why one game per table per block of 4 rounds, rather than one per round: the table does
not change within a block, so the engine's own rule applies as it is — after a round the
round's winner deals the next (:class:`~unolan.engine.Deal`). A new block seats new
tables, so a new game is built and its dealer is drawn, as at the start of any match.

The tables of a block are announced by a ``table_seated`` event per table (its global
seats in table order), before that table's first events: a client that folds one table
maps global seats back to the table's own with :func:`localize`.

Seeds: the rotation's ``seed`` is the first round's; :meth:`TwoTableRotation.next_round`
may be given the next round's seed (a round whose seed the players helped draw). Every
round, the first included, deals table ``T`` from ``SEED/table T`` (``SEED`` the round's
seed) as a one-table game with that seed deals its round: a block's first round is that
game's round 1 (with its draw for dealer), the block's next rounds its rounds 2 to 4.

Scoring: each table scores its round by team (``teams=2``), and each player adds their
team's round score to their own cumulative total — under ``winner_takes`` both winners
get the points of the other team's hands, under ``penalty`` both partners add the cards
left in both their hands, under ``chips`` both take their team's net. After the cycle
(or ``rounds`` rounds) the highest total (lowest under ``penalty``) is the champion.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from . import schedule
from .actions import Action, Catch, Deal, Play
from .errors import IllegalAction, RulesError
from .events import Event
from .game import Game, check_table
from .phases import ROUND_OVER
from .rules import OPTION_BY_NAME, Rules
from .scoring import tie_data
from .view import View

PLAYERS = 8
_SEAT_KEYS = ("seat", "dealer", "target", "winner", "challenger")
_SEAT_LIST_KEYS = ("seats", "finished", "catchable")
TABLES = 2
# A block's table game must not end its own match: no target is reached in 4 rounds.
_NO_TARGET = OPTION_BY_NAME["target_score"].high

Seats = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class TableEvent:
    """An event of one table (``table`` None: of the rotation itself), in global seats.

    Lists by seat inside the data (``hands`` of ``round_over``, ``called``) stay in
    table order: index ``i`` is global seat ``seats[i]`` of that table. ``scores`` in a table's
    ``round_over`` are its two teams' totals for the block; the rotation's own
    ``rotation_round_over`` event gives each player's round score and total.
    """

    table: int | None
    event: Event

    def data_for(self, seat: int | None) -> dict[str, Any]:
        """What a (global) seat sees of the event: at another table, its public part."""
        return self.event.data_for(seat)


@dataclass(frozen=True, slots=True)
class RotationOutcome:
    """How a finished rotation came out: every player's total, and the champion."""

    rounds: int
    scores: tuple[int, ...]
    champion: int

    def to_data(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "scores": list(self.scores), "champion": self.champion,
                **tie_data(self.scores, self.champion)}


ROTATION_KINDS: dict[str, tuple[str, ...]] = {
    "table_seated": ("seats", "round"),
    "rotation_round_over": ("round", "points", "scores"),
    "rotation_over": ("rounds", "scores", "champion", "tied", "tie_break"),  # the last two: a tie
}
"""The rotation's own event kinds and their fields (none private; none moves a table).
``table_seated`` belongs to a table; the others to the whole rotation."""


def table_rules(rules: Rules) -> Rules:
    """The rules each table's game is played by: two teams, no rotation, no target.

    The match's rules may say ``partner_rotation=on`` (that is what the match is); the
    tables do not rotate themselves. ``rounds`` and ``target_score`` belong to the match,
    not to a table, so they are switched off inside it.
    """
    if rules.elimination:
        raise RulesError("elimination scores no points, so cumulative scores could name no champion")
    if rules.teams not in (0, 2):
        raise RulesError(f"partner rotation seats two teams of two per table, not teams={rules.teams}")
    return rules.with_options(partner_rotation=False, teams=2, rounds=0, target_score=_NO_TARGET)


def two_tables(rules: Rules, players: int) -> bool:
    """Whether a match of these rules and players is the two-table rotation."""
    return rules.partner_rotation and players == PLAYERS


def check_match(rules: Rules, players: int) -> None:
    """Raise ValueError when no match of these rules can be played by this many players:
    one table of ``players``, or under partner rotation with 8 the two tables of 4."""
    if rules.partner_rotation and players not in schedule.ROTATION_PLAYERS:
        raise RulesError(f"partner rotation is played by 4 players at one table or 8 at two, "
                         f"not {players}")
    if two_tables(rules, players):
        check_table(table_rules(rules), 4)
    else:
        check_table(rules, players)


class TwoTableRotation:
    """The 8-player rotation match: apply actions by global seat, round after round.

    ``tables`` holds each table's global seats (in table order: ``seats[i]`` is local
    seat ``i``, partners at 0/2 and 1/3) and its game. When both tables' rounds are over
    the round is scored; :meth:`next_round` then deals both tables at once.
    """

    def __init__(self, rules: Rules | None = None, seed: int | str = 0) -> None:
        self.rules = rules or Rules()
        self.table_rules = table_rules(self.rules)
        self.seed = seed
        self.rounds = self.rules.rounds or schedule.cycle_length(PLAYERS)
        self.round = 1
        self.scores = [0] * PLAYERS
        self.history: list[tuple[int, ...]] = []  # each round's score per player
        self.tables: list[tuple[Seats, Game]] = []
        self._where: dict[int, tuple[int, int]] = {}
        self.start_events = self._settle(self._seat_tables(seed))  # round 1's seed is the match's

    # -- seats ------------------------------------------------------------------------

    def locate(self, seat: int) -> tuple[int, int]:
        """Global seat -> (table, local seat) this round."""
        if seat not in self._where:
            raise ValueError(f"no seat {seat} among {PLAYERS} players")
        return self._where[seat]

    def global_seat(self, table: int, local: int) -> int:
        """(table, local seat) -> global seat this round."""
        return self.tables[table][0][local]

    def seats_at(self, table: int) -> Seats:
        """The global seats of a table this round, in table order."""
        return self.tables[table][0]

    def game_of(self, seat: int) -> Game:
        """The game of a global seat's table this round."""
        return self.tables[self.locate(seat)[0]][1]

    # -- state ------------------------------------------------------------------------

    @property
    def round_over(self) -> bool:
        """Both tables have finished this round (it is scored then)."""
        return all(game.phase is ROUND_OVER for _, game in self.tables)

    @property
    def over(self) -> bool:
        return self.round_over and len(self.history) >= self.rounds

    def outcome(self) -> RotationOutcome | None:
        """The champion and every total, once the last round is over; else None."""
        if not self.over:
            return None
        pick = min if self.rules.scoring == "penalty" else max
        best = pick(self.scores)
        return RotationOutcome(self.rounds, tuple(self.scores), self.scores.index(best))

    def view(self, seat: int) -> View:
        """What a global seat may know: its own table's view, in that table's local seats
        (its round the rotation's, as the events say)."""
        return self.table_view(self.locate(seat)[0], seat)

    def table_view(self, table: int, seat: int | None) -> View:
        """A table as a global seat sees it: its own table as its seat, another as a
        spectator (None: a spectator of the room). In that table's local seats."""
        seats, game = self.tables[table]
        view = game.view(seats.index(seat) if seat in seats else None)
        return replace(view, round=self.round)  # the rotation's round, as its events say

    def legal_actions(self, seat: int) -> list[Action]:
        """What a global seat may do now, in global seats; dealing is :meth:`next_round`'s."""
        table, local = self.locate(seat)
        seats = self.tables[table][0]
        return [_translate(a, seats.__getitem__) for a in self.tables[table][1].legal_actions(local)
                if type(a) is not Deal]

    # -- play -------------------------------------------------------------------------

    def apply(self, action: Action) -> list[TableEvent]:
        """Apply an action given in global seats at its player's table; events in global seats.

        When this action ends the round at the second table, the round is scored and a
        ``rotation_round_over`` event follows (and ``rotation_over`` after the last round).
        """
        if action.seat not in self._where:
            raise IllegalAction(action, f"there is no seat {action.seat}", code="bad_seat")
        if type(action) is Deal:
            raise IllegalAction(action, "both tables deal together once both rounds are over",
                                code="wrong_phase")
        table, _ = self._where[action.seat]
        game = self.tables[table][1]

        def local(seat: int) -> int:
            where = self._where.get(seat)
            if where is None:
                raise IllegalAction(action, f"there is no seat {seat}", code="bad_seat")
            if where[0] != table:
                raise IllegalAction(action, f"seat {seat} is not at this table", code="bad_target")
            return where[1]

        try:
            events = game.apply(_translate(action, local))
        except IllegalAction as error:
            raise IllegalAction(action, error.reason, error.position, error.code) from None
        return self._settle(self._tag(table, events))

    def next_round(self, seed: int | str | None = None) -> list[TableEvent]:
        """Start the next round at both tables: its winner deals at a table that stays,
        a new block seats new tables (their dealers drawn). ``seed``: the round's seed
        (None: each table's shuffles go on)."""
        if not self.round_over or self.over:
            raise ValueError("the next round starts once both tables' rounds are over, "
                             "before the rotation's last round")
        self.round += 1
        if (self.round - 1) % schedule.ROUNDS_PER_PARTNER == 0:
            return self._settle(self._seat_tables(seed))
        out: list[TableEvent] = []
        for table, (_, game) in enumerate(self.tables):
            table_seed = None if seed is None else f"{seed}/table {table}"
            out += self._tag(table, game.apply(Deal(game.results[-1].winner, table_seed)))
        return self._settle(out)

    # -- inside -----------------------------------------------------------------------

    def _seat_tables(self, seed: int | str | None) -> list[TableEvent]:
        """Build this round's tables: new games, seeds from the round's seed and the
        table (without one: from the rotation's seed, the round and the table)."""
        self.tables = []
        self._where = {}
        out: list[TableEvent] = []
        base = f"{self.seed}/round {self.round}" if seed is None else seed
        for table, pairs in enumerate(schedule.tables_for_round(PLAYERS, self.round)):
            seats = schedule.table_seats(pairs)
            game = Game(self.table_rules, 4, f"{base}/table {table}")
            self.tables.append((seats, game))
            self._where.update({g: (table, local) for local, g in enumerate(seats)})
            out.append(TableEvent(table, Event("table_seated", {"seats": list(seats), "round": self.round})))
            out += self._tag(table, game.start_events)
        return out

    def _settle(self, events: list[TableEvent]) -> list[TableEvent]:
        """Score the round once both tables are over; checked after deals too, so that no
        round could end unscored."""
        if self.round_over and len(self.history) < self.round:
            events += self._score_round()
        return events

    def _score_round(self) -> list[TableEvent]:
        """Each player adds their team's round score: the change in its team total."""
        points = [0] * PLAYERS
        for seats, game in self.tables:
            now = game.results[-1].scores
            before = game.results[-2].scores if len(game.results) > 1 else (0,) * len(now)
            for local, seat in enumerate(seats):
                team = game.team_of(local)
                points[seat] = now[team] - before[team]
        self.history.append(tuple(points))
        self.scores = [a + b for a, b in zip(self.scores, points, strict=True)]
        out = [TableEvent(None, Event("rotation_round_over", {
            "round": self.round, "points": points, "scores": list(self.scores)}))]
        result = self.outcome()
        if result is not None:
            out.append(TableEvent(None, Event("rotation_over", result.to_data())))
        return out

    def _tag(self, table: int, events: Sequence[Event]) -> list[TableEvent]:
        """Table events with global seats (and the rotation's round numbers)."""
        seats = self.tables[table][0]
        offset = self.round - self.tables[table][1].round  # block start, less one
        return [TableEvent(table, _globalize(e, seats, offset)) for e in events]


def to_global(action: Action, seats: Seats) -> Action:
    """An action decided on a table's view (its local seats) in global seats."""
    return _translate(action, seats.__getitem__)


def localize(data: dict[str, Any], seats: Seats) -> dict[str, Any]:
    """A table event's data (global seats) in the table's own seats, for a fold of that
    table (:class:`~.fold.ViewFold`): the inverse of the rotation's own mapping, rounds
    aside (they stay the rotation's)."""
    return _remap(data, {seat: i for i, seat in enumerate(seats)}.__getitem__)


def _remap(data: dict[str, Any], seat_of: Callable[[int], int]) -> dict[str, Any]:
    """Event data with every seat it names mapped by ``seat_of``."""
    out = dict(data)
    for key in _SEAT_KEYS:
        if out.get(key) is not None:
            out[key] = seat_of(out[key])
    for key in _SEAT_LIST_KEYS:
        if key in out:
            out[key] = [seat_of(s) for s in out[key]]
    if "draws" in out:
        out["draws"] = [[seat_of(s), card] for s, card in out["draws"]]
    return out


def _translate(action: Action, seat_of: Callable[[int], int]) -> Action:
    """The same action with its seat (and target) mapped by ``seat_of``."""
    seat = seat_of(action.seat)
    match action:
        case Catch(target=target) | Play(target=int() as target):
            return replace(action, seat=seat, target=seat_of(target))
    return replace(action, seat=seat)


def _globalize(event: Event, seats: Seats, offset: int) -> Event:
    """An event of a table with every seat it names made global."""
    data = _remap(event.data, seats.__getitem__)
    if "round" in data:
        data["round"] += offset
    return Event(event.kind, data)
