"""Eight-player partner rotation: two tables of four, 28 rounds, global seats 0..7."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations

import pytest
from unolan.engine import (
    Catch,
    Deal,
    IllegalAction,
    Play,
    RoundResult,
    Rules,
    RulesError,
    TableEvent,
    TwoTableRotation,
    schedule,
)

MAX_ACTIONS = 200_000


@dataclass
class Record:
    """What a played rotation left behind, round by round."""

    tables: list[list[tuple[int, ...]]] = field(default_factory=list)  # each round's seats
    results: list[list[RoundResult]] = field(default_factory=list)  # each round's table results
    dealers: list[list[int]] = field(default_factory=list)  # each round's global dealers
    events: list[TableEvent] = field(default_factory=list)


def cards_at(rotation: TwoTableRotation, table: int) -> int:
    game = rotation.tables[table][1]
    return sum(map(len, game.hands)) + len(game.draw_pile) + len(game.discard)


def choose(rotation: TwoTableRotation, rng: random.Random):
    """A legal action in global seats: mostly the turn at a table still playing."""
    if rng.random() < 0.15:  # out of turn: UNO calls, catches, jump-ins
        legal = rotation.legal_actions(rng.randrange(8))
        if legal:
            return rng.choice(legal)
    live = [(seats, game) for seats, game in rotation.tables if game.phase != "round_over"]
    seats, game = rng.choice(live)
    legal = rotation.legal_actions(seats[game.turn])
    plays = [a for a in legal if type(a) is Play]
    return rng.choice(plays) if plays and rng.random() < 0.9 else rng.choice(legal)


def play(rules: Rules, seed: int | str, policy: int = 0, check=None) -> tuple[TwoTableRotation, Record]:
    """Play a whole rotation with random legal actions; ``check`` runs after each one."""
    rotation, rng, record = TwoTableRotation(rules, seed), random.Random(policy), Record()
    record.events += rotation.start_events
    for _ in range(MAX_ACTIONS):
        if rotation.round_over:
            record.tables.append([seats for seats, _ in rotation.tables])
            record.results.append([game.results[-1] for _, game in rotation.tables])
            record.dealers.append([seats[game.dealer] for seats, game in rotation.tables])
            if rotation.over:
                return rotation, record
            record.events += rotation.next_round()
            continue
        action = choose(rotation, rng)
        events = rotation.apply(action)
        record.events += events
        if check:
            check(rotation, action, events)
    raise AssertionError("the rotation did not finish")


@pytest.fixture(scope="module")
def house() -> tuple[TwoTableRotation, Record]:
    return play(Rules(), seed=11, policy=5)


# -- the schedule ------------------------------------------------------------------------


def test_every_pair_partners_four_rounds_and_everyone_sits_once_a_round(house):
    rotation, record = house
    assert rotation.rounds == len(record.tables) == 28
    partners: Counter[tuple[int, int]] = Counter()
    for tables in record.tables:
        assert sorted(s for seats in tables for s in seats) == list(range(8))
        for seats in tables:  # partners face each other: local seats 0/2 and 1/3
            partners[tuple(sorted((seats[0], seats[2])))] += 1
            partners[tuple(sorted((seats[1], seats[3])))] += 1
    assert partners == {pair: 4 for pair in combinations(range(8), 2)}


def test_the_tables_follow_the_schedule(house):
    _, record = house
    for number, tables in enumerate(record.tables, 1):
        expected = [schedule.table_seats(t) for t in schedule.tables_for_round(8, number)]
        assert tables == expected


def test_rounds_sets_the_length_and_the_cycle_repeats():
    rotation, record = play(Rules.preset("house", rounds=30, partner_rotation=True), seed=2)
    assert rotation.round == rotation.rounds == len(rotation.history) == 30
    assert record.tables[28:] == record.tables[:2]
    short, record = play(Rules.preset("house", rounds=6, partner_rotation=True), seed=2)
    assert len(short.history) == 6 and short.outcome() is not None
    assert record.tables[4] != record.tables[3]  # a new block seats new tables


# -- seats -------------------------------------------------------------------------------


def test_seats_translate_both_ways_every_round():
    seen: set[int] = set()

    def check(rotation, action, events):
        seen.add(rotation.round)
        for seat in range(8):
            table, local = rotation.locate(seat)
            assert rotation.global_seat(table, local) == seat == rotation.tables[table][0][local]
        for table, local in [(t, i) for t in range(2) for i in range(4)]:
            assert rotation.locate(rotation.global_seat(table, local)) == (table, local)
        assert rotation.locate(action.seat)[0] in {t.table for t in events}

    rotation, _ = play(Rules(), seed=6, check=check)
    assert seen == set(range(1, 29))
    with pytest.raises(ValueError):
        rotation.locate(8)


def test_legal_actions_are_the_tables_in_global_seats():
    rotation = TwoTableRotation(Rules.preset("party"), seed=4)
    for seat in range(8):
        table, local = rotation.locate(seat)
        seats, game = rotation.tables[table]
        mine = rotation.legal_actions(seat)
        assert len(mine) == len(game.legal_actions(local))
        assert all(a.seat == seat for a in mine)
        targets = {a.target for a in mine if type(a) in (Play, Catch) and a.target is not None}
        assert targets <= set(seats) - {seat}


def test_targets_translate_and_must_sit_at_the_same_table():
    rules = Rules.preset("party")
    seen = []

    def check(rotation, action, events):
        if type(action) is Play and action.target is not None:
            seen.append(action)
            played = next(e.event for e in events if e.event.kind == "played")
            assert played.data["target"] == action.target
            assert rotation.locate(action.target)[0] == rotation.locate(action.seat)[0]

    play(rules, seed=8, check=check)
    assert seen, "seven-zero plays name targets"
    rotation = TwoTableRotation(rules, seed=8)
    seats = rotation.tables[0][0]
    stranger = rotation.tables[1][0][0]
    with pytest.raises(IllegalAction) as error:
        rotation.apply(Catch(seats[0], stranger))
    assert error.value.code == "bad_target" and error.value.action == Catch(seats[0], stranger)


def test_events_name_global_seats_and_stay_private(house):
    _, record = house
    for tagged in record.events:
        event = tagged.event
        if tagged.table is None:
            assert event.kind in ("rotation_round_over", "rotation_over")
            continue
        if event.kind == "hand":
            assert event.private_to == event.data["seat"]
        for key in ("seat", "dealer", "winner", "target"):
            if event.data.get(key) is not None:
                assert 0 <= event.data[key] < 8
    rounds = [e.event.data["round"] for e in record.events if e.event.kind == "round_over"]
    assert rounds == sorted(rounds) and set(rounds) == set(range(1, 29))


def test_a_seat_views_only_its_own_table():
    rotation = TwoTableRotation(Rules(), seed=9)
    for seat in range(8):
        table, local = rotation.locate(seat)
        game = rotation.tables[table][1]
        view = rotation.view(seat)
        assert view == game.view(local)
        assert view.seat == local and len(view.counts) == 4
        assert list(view.hand) == [c.text for c in game.hands[local]]
        other = rotation.tables[1 - table][1]
        hidden = {c.text for hand in other.hands for c in hand} - {c.text for c in game.hands[local]}
        assert not hidden & set(view.hand)


# -- playing -----------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["house", "official scoring=penalty", "party", "all-wild",
                                   "house scoring=chips partner_rotation=on", "party mercy_limit=25"])
def test_a_whole_cycle_keeps_the_cards_and_names_a_champion(rules):
    def check(rotation, action, events):
        for table in range(2):
            assert cards_at(rotation, table) == 108 + 4 * rotation.rules.all_wild

    rotation, record = play(Rules.parse(rules), seed=rules, check=check)
    outcome = rotation.outcome()
    assert outcome is not None and outcome.rounds == 28
    assert list(outcome.scores) == [sum(r[p] for r in rotation.history) for p in range(8)]
    pick = min if rotation.rules.scoring == "penalty" else max
    assert outcome.champion == outcome.scores.index(pick(outcome.scores))
    assert record.events[-1].event.kind == "rotation_over"
    assert record.events[-1].event.data == outcome.to_data()


def test_winner_takes_credits_both_winners_with_the_teams_points(house):
    rotation, record = house
    for points, tables, results in zip(rotation.history, record.tables, record.results, strict=True):
        for seats, result in zip(tables, results, strict=True):
            won = {result.winner % 2, result.winner % 2 + 2}
            for local, seat in enumerate(seats):
                assert points[seat] == (result.points if local in won else 0)


def test_penalty_adds_the_teams_cards_left_to_each_partner():
    rotation, record = play(Rules.preset("house", scoring="penalty"), seed=3)
    for points, tables, results in zip(rotation.history, record.tables, record.results, strict=True):
        for seats, result in zip(tables, results, strict=True):
            hands = result.hand_points
            for local, seat in enumerate(seats):
                assert points[seat] == hands[local % 2] + hands[local % 2 + 2]


def test_the_round_winner_deals_the_next_round_at_the_same_table(house):
    _, record = house
    for number in range(1, 28):
        if number % 4 == 0:
            continue  # a new block: new tables, the dealer is drawn
        for table, result in enumerate(record.results[number - 1]):
            winner = record.tables[number - 1][table][result.winner]
            assert record.dealers[number][table] == winner


def test_same_seed_same_rotation():
    rules = Rules.preset("party")
    first, _ = play(rules, seed=21, policy=1)
    again, _ = play(rules, seed=21, policy=1)
    other, _ = play(rules, seed=22, policy=1)
    assert first.history == again.history and first.scores == again.scores
    assert first.outcome() == again.outcome()
    assert other.history != first.history


# -- rules and misuse --------------------------------------------------------------------


def test_the_tables_play_two_teams_without_rotation_or_target():
    rotation = TwoTableRotation(Rules.preset("house", partner_rotation=True, target_score=200), seed=1)
    rules = rotation.tables[0][1].rules
    assert rules.teams == 2 and not rules.partner_rotation and rules.rounds == 0
    with pytest.raises(RulesError):
        TwoTableRotation(Rules.preset("house", elimination=True))
    with pytest.raises(RulesError):
        TwoTableRotation(Rules.preset("house", teams=4))


def test_dealing_is_the_rotations_and_waits_for_both_tables():
    rotation = TwoTableRotation(Rules(), seed=5)
    with pytest.raises(IllegalAction) as error:
        rotation.apply(Deal(0))
    assert error.value.code == "wrong_phase"
    with pytest.raises(IllegalAction) as error:
        rotation.apply(Play(9, ()))
    assert error.value.code == "bad_seat"
    with pytest.raises(ValueError):
        rotation.next_round()
    assert rotation.outcome() is None
