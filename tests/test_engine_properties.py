"""Properties of random legal play, 2 to 10 players, every preset (and some option mixes).

The policy mixes in-turn actions with out-of-turn ones from random seats (UNO calls,
catches, jump-ins), and prefers plays to voluntary draws so that rounds end.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_play import card_count, deck_size, every_legal_action_applies
from unolan.engine import (
    EVENT_KINDS,
    PRESETS,
    Draw,
    Event,
    Game,
    Play,
    Rules,
    format_cards,
    parse_position,
)

RULE_SETS = [
    *PRESETS,
    "house stacking=mixed deflect=on pair_beats_wd4=on",
    "house stacking=same strict_after_penalty=on",
    "official draw_until_playable=on forced_play=on",
    "house drawn_action_stays=on last_card_no_action=on",
    "house elimination=on",
    "party mercy_limit=25",
    "house scoring=penalty target_score=200",
    "house scoring=chips rounds=3",
]
MAX_ACTIONS_PER_ROUND = 3000
PRIVATE = {"hand", "revealed"}

common = settings(max_examples=800, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])
tables = st.tuples(
    st.sampled_from(RULE_SETS),
    st.integers(2, 10),
    st.integers(0, 2**32),
    st.integers(0, 2**32),
)


def new_game(rules_text: str, players: int, seed: int) -> Game:
    return Game(Rules.parse(rules_text), players, seed)


def choose(game: Game, rng: random.Random):
    """One legal action: usually the seat in turn's, sometimes any seat's (out of turn)."""
    if game.phase == "round_over":
        return game.legal_actions(game.turn)[0]
    if rng.random() < 0.15:
        seat = rng.randrange(game.players)
        others = game.legal_actions(seat)
        if seat != game.turn and others:
            return rng.choice(others)
    legal = game.legal_actions(game.turn)
    plays = [a for a in legal if type(a) is Play]
    if plays and rng.random() < 0.9:
        return rng.choice(plays)
    return rng.choice(legal)


def check_events(game: Game, action, events: list[Event]) -> None:
    for event in events:
        if event.kind in PRIVATE:  # always holds its cards, for one seat
            assert "cards" in event.data and event.private_to is not None, event
            if event.kind == "revealed":
                assert event.private_to == action.seat, event
            else:
                assert event.private_to == event.data["seat"], event
        if event.kind == "drew":
            assert event.private_to == event.data["seat"], event
            assert "cards" not in event.data_for(None), event
        if event.private_to is None and event.kind not in ("played", "round_over", "dealer_draw",
                                                           "first_card"):
            assert "cards" not in event.data, event
        for member in (*range(game.players), None):
            data = event.data_for(member)
            assert "draw_pile" not in data and "seed" not in data
            if member != event.private_to:
                assert not set(data) & set(EVENT_KINDS[event.kind].private), event


def check_views(game: Game) -> None:
    secret = format_cards(game.draw_pile[::-1])
    for seat in [*range(game.players), None]:
        view = game.view(seat)
        data = view.to_dict()
        own = [c.text for c in game.hands[seat]] if seat is not None else []
        assert list(view.hand) == own
        assert view.counts == tuple(len(h) for h in game.hands)
        if view.drawn is not None:
            assert seat == game.turn and view.drawn in own
        text = repr(data)
        assert "seed" not in data
        if len(game.draw_pile) > 3:
            assert secret not in text


def play_rounds(game: Game, rng: random.Random, rounds: int, check=None) -> list:
    """Play ``rounds`` rounds (or to the match's end); return the actions taken."""
    log = []
    for _ in range(rounds):
        for _ in range(MAX_ACTIONS_PER_ROUND):
            action = choose(game, rng)
            events = game.apply(action)
            log.append(action)
            if check:
                check(game, action, events)
            if game.phase in ("round_over", "match_over"):
                break
        else:
            # A preset's round must end. Some option mixes can cycle for ever by the rules
            # themselves (draw_until_playable with forced_play and every other card in the
            # hands: the one card left to draw is played, reshuffled and drawn again): there
            # the game must stay live, which the checks above did at every action.
            if not game.rules.changes():
                raise AssertionError(f"round did not end in {MAX_ACTIONS_PER_ROUND} actions:\n{game.position()}")
            assert game.legal_actions(game.turn), game.position()
            return log
        if game.over:
            break
    return log


@pytest.mark.slow
@common
@given(tables)
def test_random_play_keeps_the_invariants(table):
    rules_text, players, seed, policy = table
    game = new_game(rules_text, players, seed)
    size = deck_size(game)
    assert card_count(game) == size
    check_events(game, None, game.start_events)
    rng = random.Random(policy)

    def check(game: Game, action, events: list[Event]) -> None:
        assert card_count(game) == size
        check_events(game, action, events)
        if not game.over:
            assert game.legal_actions(game.turn), game.position()
            assert not game.out[game.turn] or game.phase == "round_over"
        if rng.random() < 0.1:
            check_views(game)

    play_rounds(game, rng, 2, check)


@pytest.mark.slow
@common
@given(tables)
def test_replaying_the_actions_reproduces_the_position(table):
    rules_text, players, seed, policy = table
    game = new_game(rules_text, players, seed)
    log = play_rounds(game, random.Random(policy), 2)
    again = new_game(rules_text, players, seed)
    for action in log:
        again.apply(action)
    assert again.position() == game.position()


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables)
def test_every_legal_action_applies(table):
    rules_text, players, seed, policy = table
    game = new_game(rules_text, players, seed)
    rng = random.Random(policy)

    def check(game: Game, action, events: list[Event]) -> None:
        if rng.random() < 0.85 or game.over:
            return
        every_legal_action_applies(game)

    play_rounds(game, rng, 1, check)


@pytest.mark.slow
@common
@given(tables, st.integers(0, 400))
def test_a_position_mid_game_continues_like_the_game(table, cut):
    rules_text, players, seed, policy = table
    game = new_game(rules_text, players, seed)
    log = play_rounds(game, random.Random(policy), 2)
    replay = new_game(rules_text, players, seed)
    cut = min(cut, len(log))
    for action in log[:cut]:
        replay.apply(action)
    text = replay.position()
    resumed = parse_position(text)
    assert resumed.position() == text
    for action in log[cut:]:
        replay.apply(action)
        resumed.apply(action)
        assert resumed.position() == replay.position()
    assert resumed.position() == game.position()


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(tables)
def test_draws_from_an_exhausted_table_never_stall(table):
    """Everyone draws on purpose until both piles run dry; play goes on."""
    rules_text, players, seed, _ = table
    if "forced_play" in rules_text or "mercy" in rules_text or "until" in rules_text:
        return
    game = new_game(rules_text, players, seed)
    if game.phase != "play":
        return
    size = deck_size(game)
    for _ in range(150):
        if game.phase == "drawn":
            (action,) = [a for a in game.legal_actions(game.turn) if type(a) is not Play]
        elif game.phase == "play" and Draw(game.turn) in game.legal_actions(game.turn):
            action = Draw(game.turn)
        else:
            break
        game.apply(action)
        assert card_count(game) == size
        assert game.legal_actions(game.turn)
