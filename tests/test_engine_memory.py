"""A game frees everything it made once it is dropped, pure and compiled.

Compiled, an ``__init__`` run a second time on a live object takes every field for unset
and leaks the values it replaces: a round dealt that way left about a dozen lists and a
set behind, for every later full garbage collection to walk."""

from __future__ import annotations

import gc
import random

from unolan.engine import Deal, Game, Phase, Rules
from unolan.engine.fairness import deal_batch

IN_PLAY = (Phase.PLAY, Phase.DRAWN, Phase.COLOR)


def _play_matches(rules: Rules) -> None:
    rng = random.Random(3)
    for seed in range(20):
        game = Game(rules, 4, seed)
        for _ in range(2):  # a round to its end, then the next one dealt
            while game.phase in IN_PLAY:
                game.apply(rng.choice(game.legal_actions(game.turn)))
            if game.phase is not Phase.ROUND_OVER:
                break
            game.apply(Deal(game.turn))
        deal_batch(rules, 4, seed, 2, dealer=seed % 4, scores=[0, 0, 0, 0])


def _live(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is kind)


def test_games_leave_no_lists_or_sets_behind() -> None:
    rules = Rules.preset("house")
    _play_matches(rules)  # anything made once (tables, caches) is made now
    lists, sets = _live(list), _live(set)
    _play_matches(rules)
    # Leaking, 20 matches of two rounds plus 20 fair deals would leave hundreds.
    assert _live(list) - lists < 10
    assert _live(set) - sets < 5


def test_a_state_taking_another_takes_every_field() -> None:
    """A new round's fields are taken from a fresh state one by one (State._take): one
    left out would carry the last round's value into the next."""
    from unolan.engine import Card, Color
    from unolan.engine.state import FIELDS, State

    old = Game(Rules.preset("house"), 4, 1)
    fresh = State(Rules.preset("official"), 3, "other", round=5, dealer=2, turn=1, direction=-1,
                  mercy_points=7, reshuffles=2, pending=4, stack=2, pair=True, wd4_bluff=True,
                  wd4_offender=1, served=True, color=Color.BLUE, drawn=Card.parse("W"))
    old._take(fresh)
    assert [name for name in FIELDS if getattr(old, name) is not getattr(fresh, name)] == []
