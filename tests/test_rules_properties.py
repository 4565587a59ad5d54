"""Properties of random legal play under every preset and under random combinations of
every rule option, 2 to 10 players.

Checked after every action: cards are conserved, the seat in turn has a legal action, no
event or view shows a seat a card it may not see, a round ends within a bound; and a
game replayed from (rules, players, seed, actions) reaches the same position, which
itself round-trips through the notation. Set RULES_EXAMPLES to run more examples.
"""

from __future__ import annotations

import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_play import card_count, deck_size, every_legal_action_applies
from test_rules_data import counts_rounds
from unolan.engine import OPTIONS, PRESETS, Event, Game, Play, Rules, parse_position
from unolan.engine.game import check_table

ACTIONS_PER_PLAYER = 2000  # a round must end within this many actions per player
NUMBERS: dict[str, list[int]] = {
    "mercy_limit": [0, 0, 12, 25],
    "hand_size": [1, 3, 7, 10],
    "target_score": [1, 100, 500],
    "uno_penalty": [0, 2, 4],
    "rounds": [0, 1, 3],
    "teams": [0, 0, 2, 3],
}


@st.composite
def tables(draw: Any) -> tuple[Rules, int, int, int]:
    """A preset, random values for every option on top of it, a player count and seeds."""
    options: dict[str, Any] = {}
    for option in OPTIONS:
        if option.choices:
            options[option.name] = draw(st.sampled_from(option.choices))
        elif isinstance(option.default, bool):
            options[option.name] = draw(st.booleans())
        else:
            options[option.name] = draw(st.sampled_from(NUMBERS[option.name]))
    players = draw(st.integers(2, 10))
    if options["partner_rotation"]:
        options["teams"] = 0
        players = 4
    if options["mercy_limit"] <= options["hand_size"]:
        options["mercy_limit"] = 0
    teams = options["teams"]
    if teams and (players % teams or players // teams < 2):
        options["teams"] = 0
    preset = draw(st.sampled_from(PRESETS))
    if not counts_rounds(Rules.preset(preset).to_dict() | options):
        options["rounds"] = 0
    rules = Rules.preset(preset, **options)
    try:
        check_table(rules, players)
    except ValueError:
        rules = rules.with_options(hand_size=3)
    return rules, players, draw(st.integers(0, 2**32)), draw(st.integers(0, 2**32))


presets = st.tuples(st.sampled_from(PRESETS).map(Rules.preset), st.integers(2, 10),
                    st.integers(0, 2**32), st.integers(0, 2**32))
either = st.one_of(presets, tables())
fast = settings(max_examples=int(os.environ.get("RULES_EXAMPLES", 1000)), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def choose(game: Game, rng: random.Random):
    """Usually the seat in turn (preferring plays, so rounds end), sometimes another seat."""
    if rng.random() < 0.15 and game.phase not in ("round_over", "match_over"):
        seat = rng.randrange(game.players)
        others = game.legal_actions(seat)
        if seat != game.turn and others:
            return rng.choice(others)
    legal = game.legal_actions(game.turn)
    assert legal, f"seat {game.turn} has no legal action:\n{game.position()}"
    plays = [a for a in legal if type(a) is Play]
    keen = 0.5 if game.pending else 0.9  # runaway stacking would make rounds very long
    if plays and rng.random() < keen:
        return rng.choice(plays)
    return rng.choice(legal)


def private_ok(events: list[Event], actor: int | None) -> None:
    """Hidden cards reach their owner only (a challenged hand: the challenger only)."""
    for event in events:
        if event.kind in ("hand", "drew"):
            assert event.private_to == event.data["seat"], event
        elif event.kind == "revealed":
            assert event.private_to == actor == event.data["challenger"], event
        elif event.kind == "turn" and "drawn" in event.data:  # the card the seat in turn drew
            assert event.private_to == event.data["seat"], event
        else:
            assert event.private_to is None, event
        if event.private_to is not None:
            for member in (*range(10), None):
                public = event.data_for(member)
                assert (public is event.data) == (member == event.private_to), event
                assert "cards" not in public or member == event.private_to, event
        elif "cards" in event.data:
            assert event.kind in ("played", "round_over", "dealer_draw", "first_card"), event


def views_ok(game: Game) -> None:
    for seat in [*range(game.players), None]:
        view = game.view(seat)
        assert list(view.hand) == ([c.text for c in game.hands[seat]] if seat is not None else [])
        assert view.counts == tuple(len(h) for h in game.hands)
        assert view.drawn is None or (seat == game.turn and view.drawn in view.hand)


def run(game: Game, rng: random.Random, rounds: int, check=None) -> list:
    log = []
    bound = ACTIONS_PER_PLAYER * game.players
    for _ in range(rounds):
        for _ in range(bound):
            if game.phase in ("round_over", "match_over"):  # a deal itself can end a round
                break
            action = choose(game, rng)
            events = game.apply(action)
            log.append(action)
            if check:
                check(action, events)
        else:
            # Under a preset a round must end. Some option combinations let two random
            # players trade growing penalties for ever (All Wild, stacking=mixed, no mercy
            # limit): nothing stalls, and the other properties were checked all along.
            if not game.rules.changes():
                raise AssertionError(f"the round did not end in {bound} actions:\n"
                                     f"{game.position()}")
            assert game.legal_actions(game.turn), game.position()
            return log
        if game.over:
            break
        deal = game.legal_actions(game.turn)[0]  # the winner deals the next round
        game.apply(deal)
        log.append(deal)
    return log


@pytest.mark.slow
@fast
@given(either)
def test_random_play_keeps_the_invariants(table):
    rules, players, seed, policy = table
    game = Game(rules, players, seed)
    size = deck_size(game)
    assert card_count(game) == size
    private_ok(game.start_events, None)
    rng = random.Random(policy)

    def check(action, events: list[Event]) -> None:
        assert card_count(game) == size, game.position()
        private_ok(events, action.seat)
        if not game.over:
            assert not game.out[game.turn] or game.phase == "round_over"
            assert game.pending >= 0 and all(0 <= s < players for s in game.catchable)
        if rng.random() < 0.05:
            views_ok(game)

    run(game, rng, 2, check)


@pytest.mark.slow
@fast
@given(either)
def test_replay_reproduces_the_position_and_the_position_round_trips(table):
    rules, players, seed, policy = table
    game = Game(rules, players, seed)
    log = run(game, random.Random(policy), 2)
    again = Game(Rules.parse(str(rules)), players, seed)
    for action in log:
        again.apply(action)
    text = game.position()
    assert again.position() == text
    assert parse_position(text).position() == text


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_every_legal_action_of_every_seat_applies(table):
    rules, players, seed, policy = table
    game = Game(rules, players, seed)
    rng = random.Random(policy)

    def check(action, events) -> None:
        if rng.random() < 0.9 or game.phase != "play":
            return
        every_legal_action_applies(game)

    run(game, rng, 1, check)
