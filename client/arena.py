"""An offline tournament: strategies play whole matches on the engine, no network.

Bots go through the same interface as over the network (:func:`unolan.client.bot.decide`
on their seat's view, :meth:`Bot.observe` on the events their seat sees). Out-of-turn
actions are races; the arena settles each moment by asking the seats in a shuffled order
(the seat in turn included) and applying the first action anyone takes, so no seat is
always fastest.

Match ``g`` of a tournament seats strategy ``(i + g) % S`` at seat ``i``, so every
strategy sits everywhere in turn, and its seed is derived from the tournament seed and
``g`` alone, so results do not depend on how many processes play them.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from unolan.engine import Deal, Event, Game, Phase, Rules, TableEvent, TwoTableRotation, two_tables
from unolan.engine.rotation import localize, to_global

from .bot import decide
from .strategies import make_bot

MAX_ACTIONS = 50_000  # a match that runs longer is called off (no winner)


@dataclass(frozen=True)
class MatchResult:
    index: int
    lineup: tuple[str, ...]  # the strategy at each seat
    winner: int | None  # the winning seat (None: called off)
    scores: tuple[int, ...]  # final score of each seat (its team's under teams)
    rounds: int
    actions: int


def lineup_for(strategies: Sequence[str], players: int, index: int) -> tuple[str, ...]:
    s = len(strategies)
    return tuple(strategies[(i + index) % s] for i in range(players))


def play_match(lineup: Sequence[str], rules: Rules, seed: int | str, index: int = 0) -> MatchResult:
    """Play one match between bots of the named strategies (one per seat)."""
    players = len(lineup)
    if two_tables(rules, players):
        return play_rotation(lineup, rules, seed, index)
    game = Game(rules, players=players, seed=f"{seed}/game")
    bots = [make_bot(name, seed=f"{seed}/bot/{seat}") for seat, name in enumerate(lineup)]
    race = random.Random(f"{seed}/race")
    seats = list(range(players))

    def tell(events: Iterable[Event]) -> None:
        for event in events:
            for seat, bot in enumerate(bots):
                bot.observe(event.kind, event.data_for(seat))

    tell(game.start_events)
    actions = 0
    while not game.over and actions < MAX_ACTIONS:
        if game.phase is Phase.ROUND_OVER:
            tell(game.apply(Deal(game.turn)))
            continue
        race.shuffle(seats)
        for seat in seats:
            legal = game.legal_actions(seat)
            if not legal:
                continue
            action = decide(bots[seat], game.view(seat), legal)
            if action is not None:
                break
        else:  # nobody acts: cannot happen, the seat in turn always does
            raise RuntimeError(f"no seat acted in position\n{game.position()}")
        tell(game.apply(action))
        actions += 1
    result = game.results[-1] if game.results else None
    winner = result.match_winner if result is not None and game.over else None
    if winner is not None and rules.teams:
        winner = min(s for s in range(players) if game.team_of(s) == winner)
    scores = tuple(game.scores[game.team_of(s)] for s in range(players))
    return MatchResult(index, tuple(lineup), winner, scores, game.round, actions)


def play_rotation(lineup: Sequence[str], rules: Rules, seed: int | str, index: int = 0) -> MatchResult:
    """Play one eight-player partner rotation (two tables) between bots of the named
    strategies: each bot sees its own table, in that table's seats, as it would over the
    network; the champion is the winner."""
    rotation = TwoTableRotation(rules, seed=f"{seed}/game")
    bots = [make_bot(name, seed=f"{seed}/bot/{seat}") for seat, name in enumerate(lineup)]
    race = random.Random(f"{seed}/race")
    order = list(range(len(lineup)))

    def tell(events: Iterable[TableEvent]) -> None:
        for event in events:
            if event.table is None:
                continue
            seats = rotation.seats_at(event.table)
            for seat in seats:
                bots[seat].observe(event.event.kind, localize(event.data_for(seat), seats))

    tell(rotation.start_events)
    actions = 0
    while not rotation.over and actions < MAX_ACTIONS:
        if rotation.round_over:
            tell(rotation.next_round())
            continue
        race.shuffle(order)
        for seat in order:
            table, local = rotation.locate(seat)
            seats, game = rotation.tables[table]
            legal = game.legal_actions(local) if game.phase is not Phase.ROUND_OVER else []
            action = decide(bots[seat], game.view(local), legal) if legal else None
            if action is not None:
                break
        else:  # nobody acts: cannot happen, the seats in turn always do
            raise RuntimeError("no seat acted at either table")
        tell(rotation.apply(to_global(action, seats)))
        actions += 1
    outcome = rotation.outcome()
    return MatchResult(index, tuple(lineup), outcome.champion if outcome else None,
                       tuple(rotation.scores), len(rotation.history), actions)


def _play_indexed(args: tuple[Sequence[str], int, Rules, int | str, int]) -> MatchResult:
    strategies, players, rules, seed, index = args
    return play_match(lineup_for(strategies, players, index), rules, f"{seed}/{index}", index)


@dataclass
class Standing:
    strategy: str
    seats: int = 0  # seats this strategy took, over all matches
    wins: int = 0
    points: int = 0

    @property
    def rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.wins, self.seats)

    @property
    def avg_points(self) -> float:
        return self.points / self.seats if self.seats else 0.0


@dataclass
class Tournament:
    strategies: tuple[str, ...]
    players: int
    rules: Rules
    seed: int | str
    results: list[MatchResult] = field(default_factory=list)

    def standings(self) -> list[Standing]:
        table = {name: Standing(name) for name in self.strategies}
        for match in self.results:
            for seat, name in enumerate(match.lineup):
                row = table[name]
                row.seats += 1
                row.points += match.scores[seat]
                if match.winner is not None and (
                    match.winner == seat
                    or (self.rules.teams and match.winner % self.rules.teams == seat % self.rules.teams)
                ):
                    row.wins += 1
        return sorted(table.values(), key=lambda r: -r.rate)

    def table(self) -> str:
        """The results as a text table: win rate per seat taken, its 95% interval, points."""
        base = 1 / self.players
        lines = [
            f"{len(self.results)} matches, {self.players} players, rules: {self.rules}, seed {self.seed}",
            f"(a seat wins {base:.1%} of matches by chance)",
            "",
            f"{'strategy':<12} {'seats':>6} {'wins':>6} {'win rate':>9}  {'95% interval':<17} {'avg points':>10}",
        ]
        for row in self.standings():
            lo, hi = row.interval
            lines.append(
                f"{row.strategy:<12} {row.seats:>6} {row.wins:>6} {row.rate:>9.1%}  "
                f"[{lo:6.1%}, {hi:6.1%}]  {row.avg_points:>10.1f}"
            )
        called_off = sum(1 for m in self.results if m.winner is None)
        if called_off:
            lines.append(f"\n{called_off} matches called off after {MAX_ACTIONS} actions")
        return "\n".join(lines)


def run_tournament(
    strategies: Sequence[str],
    games: int,
    rules: Rules,
    players: int = 4,
    seed: int | str = 0,
    jobs: int = 1,
    progress: Callable[[MatchResult], None] | None = None,
) -> Tournament:
    """Play ``games`` matches; ``jobs`` > 1 spreads them over processes."""
    for name in strategies:
        make_bot(name)  # unknown names fail here, before any process starts
    tour = Tournament(tuple(strategies), players, rules, seed)
    work = [(tuple(strategies), players, rules, seed, i) for i in range(games)]
    if jobs <= 1:
        for args in work:
            result = _play_indexed(args)
            tour.results.append(result)
            if progress:
                progress(result)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_play_indexed, args) for args in work]
            for future in as_completed(futures):
                result = future.result()
                tour.results.append(result)
                if progress:
                    progress(result)
    tour.results.sort(key=lambda m: m.index)
    return tour


# -- statistics -------------------------------------------------------------------------


def wilson(wins: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score 95% interval for a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def binomial_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): a one-sided binomial test's p-value."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p <= 0.0 or p >= 1.0:
        return 1.0 if p >= 1.0 else 0.0
    lp, lq = math.log(p), math.log1p(-p)
    terms = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq
        for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def head_to_head(tour: Tournament, strategy: str) -> tuple[int, int, float, float]:
    """Matches ``strategy`` won, matches decided, its seat share, and the one-sided p-value
    that it wins no more often than its share of seats."""
    decided = [m for m in tour.results if m.winner is not None]
    won = sum(1 for m in decided if m.winner is not None and m.lineup[m.winner] == strategy)
    share = sum(m.lineup.count(strategy) for m in decided) / (len(decided) * tour.players or 1)
    return won, len(decided), share, binomial_sf(won, len(decided), share)
