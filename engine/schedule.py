"""Partner rotation (RULES.md, "Partner rotation"; seed 000 "玩家位置變化").

With 4 players each player partners each of the other three for 4 rounds in a row: 3
pairings x 4 rounds = a cycle of 12 rounds. With 8 players the table splits in two and
each player partners each of the other seven for 4 rounds: 7 pairings x 4 = 28 rounds.

Everything here is plain data computed from the player count, so a server, a client and
a test all agree on who partners whom in which round. Rounds are numbered from 1, like
``Game.round``.

The 4-player schedule drives team membership inside one :class:`~unolan.engine.Game`
(``partner_rotation=on``): seats stay where they are and the teams change per round. The
8-player schedule is two tables; one engine game is one table, so a server runs each
round as two 4-player games (seated with :func:`table_seats`, ``teams=2``) and adds
each player's round score to their cumulative total.
"""

from __future__ import annotations

ROUNDS_PER_PARTNER = 4
ROTATION_PLAYERS = (4, 8)

Pair = tuple[int, int]
Table = tuple[Pair, Pair]


def _pair(a: int, b: int) -> Pair:
    return (a, b) if a < b else (b, a)


def _check(players: int) -> None:
    if players not in ROTATION_PLAYERS:
        raise ValueError(f"partner rotation is played by 4 or 8 players, not {players}")


def pairings(players: int) -> list[tuple[Pair, ...]]:
    """Every way the players pair up once each: ``players - 1`` perfect matchings.

    The circle method: seat 0 stays put, the others turn around it. For 4 players the
    first pairing is the seated-alternately one (0 with 2, 1 with 3), so the first block
    of a rotation matches ``teams=2``.
    """
    _check(players)
    ring = list(range(1, players))
    out: list[tuple[Pair, ...]] = []
    for _ in range(players - 1):
        order = [0, *ring]
        pairs = [_pair(order[i], order[players - 1 - i]) for i in range(players // 2)]
        out.append(tuple(sorted(pairs)))
        ring = ring[-1:] + ring[:-1]
    if players == 4:  # start with 0+2 / 1+3: the seating the room already has
        start = next(i for i, p in enumerate(out) if (0, 2) in p)
        out = out[start:] + out[:start]
    return out


def cycle_length(players: int) -> int:
    """Rounds in one full rotation: 12 for 4 players, 28 for 8."""
    _check(players)
    return (players - 1) * ROUNDS_PER_PARTNER


def pairing_for_round(players: int, round_number: int) -> tuple[Pair, ...]:
    """The pairs that play together in round ``round_number`` (1-based, cycles repeat)."""
    if round_number < 1:
        raise ValueError(f"rounds are numbered from 1, not {round_number}")
    block = (round_number - 1) // ROUNDS_PER_PARTNER
    all_pairs = pairings(players)
    return all_pairs[block % len(all_pairs)]


def partner_of(seat: int, round_number: int, players: int = 4) -> int:
    """The partner of ``seat`` in a round."""
    for a, b in pairing_for_round(players, round_number):
        if seat in (a, b):
            return b if seat == a else a
    raise ValueError(f"no seat {seat} among {players} players")


def team_of(seat: int, round_number: int, players: int = 4) -> int:
    """The team (0 or 1) of a seat at a 4-player table: team 0 is seat 0's pair."""
    if players != 4:
        raise ValueError("teams at one table exist for 4 players; 8 players play two tables")
    return 0 if 0 in (seat, partner_of(seat, round_number, players)) else 1


def tables_for_round(players: int, round_number: int) -> tuple[Table, ...]:
    """The tables of a round: each two pairs. 4 players: one table; 8 players: two."""
    pairs = pairing_for_round(players, round_number)
    return tuple((pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2))


def table_seats(table: Table) -> tuple[int, int, int, int]:
    """Seat order for one table's game: partners face each other (seats 0/2 and 1/3)."""
    (a, b), (c, d) = table
    return (a, c, b, d)


def schedule(players: int) -> list[tuple[Table, ...]]:
    """One full cycle: for each round (index 0 is round 1) its tables."""
    return [tables_for_round(players, r) for r in range(1, cycle_length(players) + 1)]
