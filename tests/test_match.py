"""The match a room drives, one table or two: the same interface gives back the same match."""

from __future__ import annotations

import random

import pytest
from unolan.server.match import Match, OneTable, TwoTables, match_kind

from unolan import engine as en


def played(kind: type[Match], rules: en.Rules, seats: int, seed: str, steps: int) -> tuple[Match, list[str]]:
    """A match played for ``steps`` actions by random legal moves through the interface
    alone (the seat in turn at each table, a deal when the round is over); its actions."""
    rng = random.Random(seed)
    match = kind.dealt(rules, seats, seed)
    actions: list[str] = []
    for n in range(steps):
        if match.over:
            break
        if match.round_over:
            action = match.next_deal(f"{seed}/{n}")
        else:
            turns = [t for t in (match.turn_at(table) for table in kind.tables) if t is not None]
            seat, _ = rng.choice(turns)
            _, legal, _ = match.legal(seat)
            action = rng.choice(legal)
        for table, events in match.apply(action):
            for event in events:  # each batch is its table's: every event of it says so
                assert event.data.get("table") == table
        actions.append(str(action))
    return match, actions


@pytest.mark.parametrize(("rules", "seats", "kind"), [
    (en.Rules.preset("house"), 4, OneTable),
    (en.Rules.preset("official"), 3, OneTable),
    (en.Rules.preset("house", partner_rotation=True, rounds=3), 8, TwoTables),
])
@pytest.mark.parametrize("seed", ["a", "b"])
def test_a_match_replayed_from_its_actions_is_the_match(rules: en.Rules, seats: int, kind: type[Match],
                                                         seed: str) -> None:
    assert match_kind(rules, seats) is kind
    match, actions = played(kind, rules, seats, seed, 600)
    assert len(actions) > 50
    again = kind.replayed(rules, seats, seed, actions)
    assert again.position() == match.position() and again.positions() == match.positions()
    assert again.outcome() == match.outcome() and again.round == match.round
    for seat in range(seats):
        assert again.snapshot(seat) == match.snapshot(seat)
        assert again.table_of(seat) == match.table_of(seat)


def test_a_round_dealt_from_a_seed_is_known_by_it() -> None:
    rules = en.Rules.preset("house", partner_rotation=True, rounds=3)
    for kind, seats in ((OneTable, 4), (TwoTables, 8)):
        match = kind.dealt(rules if kind is TwoTables else en.Rules.preset("house"), seats, "first")
        assert match.dealt_from("first")  # a rotation's tables: each from it and its number
        assert not match.dealt_from("other")
