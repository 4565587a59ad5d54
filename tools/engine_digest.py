"""One hash of everything the engine says over many random matches: for speed work.

    python tools/engine_digest.py            # 150 matches per preset
    python tools/engine_digest.py 400        # more
    PYTHONSAFEPATH=1 build/venv/bin/python tools/engine_digest.py   # the compiled engine

A change that is only meant to make the engine faster must leave this hash as it was,
pure and compiled: it covers every listing of legal actions (in order), every event of
every batch (kind, data, who may see its private fields), the match's opening events,
the next rounds' deals, and every round's result, over the presets official, house,
party and all-wild, 2 to 6 players. The seats act at random, in and out of turn (a seat
with nothing to do hands the choice to the seat in turn), so jump-ins, calls, catches,
challenges and misplays are played too, not only what a bot would do.
"""

from __future__ import annotations

import argparse
import hashlib
import random

from unolan.engine import Deal, Game, Phase, Rules

IN_PLAY = (Phase.PLAY, Phase.DRAWN, Phase.COLOR)
PRESETS = ("official", "house", "party", "all-wild")
ROUNDS = 3  # per match, at most: the later rounds' deals are covered too


def digest(matches: int) -> str:
    """The hash of ``matches`` random matches per preset."""
    h = hashlib.sha1()
    for preset in PRESETS:
        rules = Rules.preset(preset)
        rng = random.Random(7)
        for g in range(matches):
            game = Game(rules, 2 + g % 5, g)
            for event in game.start_events:
                h.update(repr((event.kind, event.data)).encode())
            for _ in range(ROUNDS):
                while game.phase in IN_PLAY:
                    seat = rng.choice(range(game.players))
                    legal = game.legal_actions(seat)
                    h.update(repr(legal).encode())
                    if not legal:
                        seat = game.turn
                        legal = game.legal_actions(seat)
                    for event in game.apply(rng.choice(legal)):
                        h.update(repr((event.kind, event.data, event.private_to)).encode())
                if game.phase is not Phase.ROUND_OVER:
                    break
                for event in game.apply(Deal(game.turn)):
                    h.update(repr((event.kind, event.data)).encode())
            h.update(repr([result.to_data() for result in game.results]).encode())
    return h.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Print one hash of everything the engine says over random matches "
                    "(it must not change with a change meant only for speed, pure or compiled).")
    parser.add_argument("matches", nargs="?", type=int, default=150,
                        help="random matches per preset (default: 150)")
    print(digest(parser.parse_args().matches))


if __name__ == "__main__":
    main()
