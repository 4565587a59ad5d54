"""Folding the events a member receives gives exactly the engine's view of that member.

Random matches under every preset and random mixes of options, 2 to 8 players, driven by
random actions from every seat (in and out of turn, mistakes included). For every seat and
a spectator, each event goes through the server's redaction (``Event.data_for``, which the
room uses to build each member's frame) and the protocol's validation of event data (what
a client decoding the frame gets), then into the engine's fold. After every batch the
fold's view equals ``game.view(member)`` field for field, what that view says is legal is
what the game says is legal, and why the view says an action would be refused is why the
game refuses it (a card no play may be made of, whatever it names, is one no legal play
holds).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from random_play import random_action
from unolan.engine import (
    EVENT_KINDS,
    OPTIONS,
    PRESETS,
    Game,
    IllegalAction,
    Play,
    Rules,
    ViewFold,
)
from unolan.protocol import check_event

# Numbers kept small enough that matches end within the steps played.
_NUMBERS = {
    "mercy_limit": st.sampled_from([0, 0, 12, 20]),
    "hand_size": st.integers(1, 9),
    "target_score": st.integers(20, 300),
    "uno_penalty": st.integers(0, 4),
    "rounds": st.integers(0, 3),
    "teams": st.sampled_from([0, 2]),
}


def _value(option):
    if option.name in _NUMBERS:
        return _NUMBERS[option.name]
    if option.choices:
        return st.sampled_from(option.choices)
    return st.booleans()


option_mixes = st.fixed_dictionaries({}, optional={o.name: _value(o) for o in OPTIONS})


def check_match(rules: Rules, players: int, seed: int, steps: int, fold: type[ViewFold] = ViewFold) -> None:
    game = Game(rules, players=players, seed=seed)
    members: list[int | None] = [*range(players), None]
    folds = {m: fold(m, rules) for m in members}

    def receive(events) -> None:
        for i, event in enumerate(events):
            assert event.kind in EVENT_KINDS
            for member, fold in folds.items():
                fold.apply(event.kind, check_event(event.kind, event.data_for(member)))
                # Only a batch's last events close it (round_over may be followed by match_over).
                assert fold.settled == (EVENT_KINDS[event.kind].closes
                                        and all(EVENT_KINDS[e.kind].closes for e in events[i:]))

    def compare(after: str) -> None:
        for member, fold in folds.items():
            view = game.view(member)
            assert fold.view() == view, f"member {member} after {after}"
            if member is not None:
                assert sorted(map(str, view.legal_actions())) == sorted(map(str, game.legal_actions(member)))

    receive(game.start_events)
    compare("the deal")
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        action = random_action(game, rng)
        verdict = game.view(action.seat).refusal(action)
        try:
            events = game.apply(action)
        except IllegalAction as exc:
            assert verdict is not None and (verdict.code, verdict.reason) == (exc.code, exc.reason)
            continue
        if events[0].kind == "misplay":  # refused by the rules, applied as a penalty
            assert verdict is not None and verdict.code == "misplay"
        else:
            assert verdict is None, f"{action}: {verdict}"
        receive(events)
        compare(str(action))
        hand = game.hands[game.turn]
        if hand and game.phase in ("play", "drawn"):  # why a card cannot be played, whatever is named
            card = rng.choice(hand)
            playable = any(type(a) is Play and a.cards == (card,) for a in game.legal_actions(game.turn))
            assert (game.view(game.turn).play_refusal((card,)) is None) == playable


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preset=st.sampled_from(PRESETS), options=option_mixes, players=st.integers(2, 8),
       seed=st.integers(0, 2**32))
def test_the_fold_of_what_a_member_receives_is_its_view(preset, options, players, seed) -> None:
    try:
        rules = Rules.preset(preset, **options)
        Game(rules, players=players, seed=0)
    except ValueError:  # an option mix or a table the rules do not allow
        assume(False)
    check_match(rules, players, seed, steps=250)


@pytest.mark.slow
def test_every_preset_folds_through_whole_matches() -> None:
    for preset in PRESETS:
        for players, seed in ((2, 1), (4, 2), (7, 3)):
            check_match(Rules.preset(preset, target_score=150), players, seed, steps=1500)


def test_the_client_s_mirror_a_python_subclass_of_the_fold_folds_alike() -> None:
    """The client library's mirror subclasses the engine's fold: a compiled engine must
    take the Python subclass (every client, bots and the terminal UI, makes one)."""
    from unolan.client.mirror import Mirror

    for preset in ("official", "house"):
        check_match(Rules.preset(preset, target_score=100), 4, 5, steps=300, fold=Mirror)
