"""A kept match played again by the engine: every step, every event, every seat's view.

A match is its rules, seat count, first seed and actions (a fair deal's later seeds ride on
its ``deal`` actions), so the engine running them again gives back every event the
players heard, in order. :class:`Replay` keeps the table after each step in the position
notation (docs/notation.md), which is both what a replay shows and what ``uno rules``
reads back; :func:`player_stats` sums the history up per player.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from unolan.engine.actions import Action
from unolan.engine.rotation import Seats

from unolan import engine as en

from .history import KeptMatch
from .match import Batch, TwoTables, match_kind


@dataclass(frozen=True)
class Step:
    """One moment of a match: the action that led to it (None: the deal of round 1), its
    events, the round it is in, and the whole table then, in the position notation. A
    two-table match's step has each table's room seats (in table order) and position in
    ``tables``, and its events carry their ``table`` as the room sent them."""

    action: Action | None
    events: Sequence[en.Event]
    round: int
    position: str
    tables: tuple[tuple[Seats, str], ...] = ()


class Replay:
    """Every step of a kept match: one game, or a two-table rotation (8 seats, partner
    rotation). Raises ``ValueError`` if a kept action does not apply (the history and
    this engine disagree)."""

    def __init__(self, match: KeptMatch) -> None:
        self.match = match
        self.rules = en.Rules.from_dict(dict(match.rules))
        self.players = len(match.seats)
        kind = match_kind(self.rules, self.players)
        self.two_tables = kind is TwoTables
        self.final = kind.dealt(self.rules, self.players, match.seed)  # after the last step
        self.steps = [self._step(None, self.final.opening())]
        for n, text in enumerate(match.actions):
            action = en.parse_action(text)
            try:
                self.steps.append(self._step(action, self.final.apply(action)))
            except (en.IllegalAction, ValueError) as exc:
                reason = exc.reason if isinstance(exc, en.IllegalAction) else str(exc)
                raise ValueError(f"action {n + 1} ({text}) does not apply: {reason}") from None

    def _step(self, action: Action | None, batches: list[Batch]) -> Step:
        played = self.final
        return Step(action, [e for _, events in batches for e in events], played.round,
                    played.position(), played.positions())

    def round_starts(self) -> list[int]:
        """The step at which each round is dealt, by round (index 0: round 1)."""
        starts: list[int] = []
        for i, step in enumerate(self.steps):
            if any(e.kind == "round_started" for e in step.events):
                starts.append(i)
        return starts

    def view(self, step: int, seat: int | None) -> en.View:
        """What ``seat`` knew after ``step`` (a two-table match: of its own table, in
        that table's order; a spectator's: table 0's)."""
        return self.views(step, seat)[0][1]

    def views(self, step: int, seat: int | None) -> list[tuple[Seats | None, en.View]]:
        """Every table as ``seat`` saw it after ``step``: its own first, as its seat, then
        the other as a spectator sees it; each with its room seats (None: one table)."""
        shown = self.steps[step]
        if not shown.tables:
            return [(None, en.parse_position(shown.position).view(seat))]
        out = [(seats, en.parse_position(text).view(seats.index(seat) if seat in seats else None))
               for seats, text in shown.tables]
        return sorted(out, key=lambda pair: seat not in (pair[0] or ()))

    def export(self) -> str:
        """The match in the action notation, a position at the start of each round (as a
        comment): give it to ``uno rules --new ... --actions-file FILE`` whole, or paste a
        round's position into ``uno rules --position`` with the actions after it. A
        two-table match's actions name room seats and each table's position is in its own
        seats (table order), so a table's round pastes into ``uno rules --position``; its
        tables are table 1 and table 2, as everywhere people read them."""
        m = self.match
        seats = ", ".join(f"{i} {s.name or '-'}{' (bot)' if s.bot else ''}" for i, s in enumerate(m.seats))
        lines = [f"# unolan match {m.id}: room {m.room} ({m.name}), ended {m.ended}",
                 f"# seats: {seats}",
                 f"# scores: {' '.join(map(str, m.scores))}; winner: {m.winner}"]
        if self.two_tables:
            lines.append("# two tables (partner rotation): the actions name room seats; each "
                         "table's position at a deal is in that table's own seats")
        else:
            lines.append(f"# the whole match: uno rules --new --rules '{self.rules}' --players "
                         f"{self.players} --seed {m.seed} --actions-file THIS_FILE")
        for step in self.steps:
            if step.action is not None:
                lines.append(str(step.action))
            if any(e.kind == "round_started" for e in step.events):
                lines.append(f"# round {step.round} dealt; the table now:")
                if step.tables:
                    lines += [f"#   table {t} (seats {' '.join(map(str, seats))}): " + text.replace("\n", "; ")
                              for t, (seats, text) in enumerate(step.tables, 1)]
                else:
                    lines.append("#   " + step.position.replace("\n", "; "))
        return "\n".join(lines) + "\n"


@dataclass
class PlayerStats:
    """One player's (or bot's) results over the history. ``room`` is a bot's room (None
    for a person): see :func:`player_key`."""

    name: str
    bot: bool
    room: str | None = None
    matches: int = 0
    wins: int = 0
    points: int = 0  # final match scores, summed
    missed: int = 0  # UNO calls missed: caught holding one card
    caught: int = 0  # other players caught

    @property
    def average(self) -> float:
        return self.points / self.matches if self.matches else 0.0


def player_key(match: KeptMatch, seat: int) -> tuple[str, bool, str | None]:
    """Who sat at ``seat``, as the history can tell: a person by name (the same name in
    any room is one player, as people keep theirs), a bot by its name in its room (each
    room numbers its own bots, so bot-1 of one room is not bot-1 of another)."""
    info = match.seats[seat]
    return (info.name or f"seat {seat}", info.bot, match.room if info.bot else None)


def player_stats(matches: Iterable[KeptMatch]) -> list[PlayerStats]:
    """Per player (:func:`player_key`), most wins first. Each match is replayed for its
    catches; a match that no longer replays counts its results only."""
    table: dict[tuple[str, bool, str | None], PlayerStats] = {}
    for match in matches:
        teams = len(match.scores) != len(match.seats) and len(match.scores) > 0
        for seat in range(len(match.seats)):
            key = player_key(match, seat)
            stats = table.setdefault(key, PlayerStats(*key))
            stats.matches += 1
            side = seat % len(match.scores) if teams else seat
            stats.wins += match.winner == side
            stats.points += match.scores[side] if side < len(match.scores) else 0
        try:
            steps = Replay(match).steps
        except (ValueError, en.NotationError, en.RulesError):
            continue
        for step in steps:
            for event in step.events:
                if event.kind == "caught":
                    for seat, field in ((event.data["seat"], "caught"), (event.data["target"], "missed")):
                        stats = table[player_key(match, seat)]
                        setattr(stats, field, getattr(stats, field) + 1)
    return sorted(table.values(), key=lambda s: (-s.wins, -s.matches, s.name, s.room or ""))
