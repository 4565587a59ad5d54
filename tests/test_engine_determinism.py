"""The same game gives the same legal actions, in the same order, in every process.

Seeded bots pick by index into ``legal_actions``, so an order that depended on object
ids or hash seeds would make arena runs (which use several processes) irreproducible.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
import hashlib, random
from unolan.engine import Game, Rules
digest = hashlib.sha1()
for preset in ("official", "house", "party"):
    for seed in range(12):
        game, rng = Game(Rules.preset(preset), 4, seed), random.Random(seed)
        while game.phase not in ("round_over", "match_over"):
            legal = game.legal_actions(game.turn)
            digest.update(repr(legal).encode())
            game.apply(rng.choice(legal))
print(digest.hexdigest())
"""


def _digest(hash_seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                            text=True, check=True, timeout=120)
    return result.stdout.strip()


@pytest.mark.slow
def test_legal_action_order_is_the_same_across_processes_and_hash_seeds() -> None:
    first = _digest("1")
    assert len(first) == 40
    assert _digest("2") == first
    assert _digest("random") == first


def test_round_results_pickle_as_the_values_they_are() -> None:
    """A round's result crosses processes (the arena's pool) as an equal value, pure or
    compiled (where an object is not restored field by field)."""
    import pickle
    import random

    from unolan.engine import Game, Phase, Rules

    game, rng = Game(Rules.preset("house"), 4, 3), random.Random(3)
    while game.phase is not Phase.ROUND_OVER and game.phase is not Phase.MATCH_OVER:
        game.apply(rng.choice(game.legal_actions(game.turn)))
    result = game.outcome()
    assert result is not None and result.points > 0
    copy = pickle.loads(pickle.dumps(result))
    assert copy == result and copy is not result
    assert hash(copy) == hash(result)
