"""Benchmark the rules engine: full rounds per second of random legal play.

One process, 4 players (``--players``), for the presets ``official``, ``house`` and
``party`` (``--presets``). Every round is played from the deal to its end by the same
random policy for every preset:

* if the seat in turn has any legal play (a ``Play`` action), pick one uniformly;
* otherwise pick uniformly among its remaining turn actions (draw, pass, challenge,
  name a color);
* UNO calls, catches and jump-ins by other seats are never taken.

This is comparable to RLCard's random agent, which picks uniformly among RLCard's
legal actions: RLCard offers "draw" only when no card can be played, so its agent, like
this policy, never draws while it holds a playable card.

With ``--vs-rlcard`` (needs the optional extra ``bench``, i.e. ``rlcard``) the same run
also times ``rlcard.games.uno.game.UnoGame`` with the same number of players, two ways:

* ``rlcard driven``: as its users drive it (``init_game()``, then ``step(random legal
  action)`` until ``is_over()``). Every ``step`` also builds the next player's
  observation (``get_state``), which is most of its time;
* ``rlcard bare``: the same loop with ``get_state`` stubbed out, i.e. its rules alone,
  the fairest comparison with an engine that builds no observation.

It prints games per second and microseconds per action for each, and the ratios ours /
RLCard's both ways. A round of ours is one game of RLCard's (one deal to one winner);
ours are longer, since they hold UNO calls, challenges, separate draws and passes.

Rates are per CPU second of this process (``time.process_time``), and the measurements
are cut into interleaved slices (``--slices``), so that other load on the machine skews
neither the figures nor the ratios much.

Example::

    python bench/engine.py --seconds 5 --vs-rlcard
"""

from __future__ import annotations

import argparse
import random
import time

from unolan.engine import Deal, Game, Phase, Play, Rules

# CPU time of this process: other load on the machine disturbs it far less than wall time.
clock = time.process_time
IN_PLAY = (Phase.PLAY, Phase.DRAWN, Phase.COLOR)  # a round is being played


def play_round(game: Game, rng: random.Random) -> int:
    """Play the current round to its end with the policy above; return the action count."""
    actions = 0
    choice = rng.choice
    while game.phase in IN_PLAY:
        legal = game.legal_actions(game.turn)
        plays = [a for a in legal if type(a) is Play]
        action = choice(plays) if plays else choice([a for a in legal if a.seat == game.turn])
        game.apply(action)
        actions += 1
    return actions


def bench_engine(preset: str, players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    """Rounds played, actions taken and CPU time spent, starting a fresh match per round."""
    rules = Rules.preset(preset)
    rng = random.Random(seed)
    rounds = actions = 0
    start = clock()
    deadline = start + seconds
    game_seed = seed
    while True:
        game = Game(rules, players, game_seed)
        game_seed += 1
        actions += play_round(game, rng)
        rounds += 1
        # A new match per round keeps dealing cost in; also play on after a Deal now and then.
        if game.phase is Phase.ROUND_OVER and rounds % 2:
            game.apply(Deal(game.turn))
            actions += 1 + play_round(game, rng)
            rounds += 1
        if clock() >= deadline:
            break
    return rounds, actions, clock() - start


def bench_rlcard(players: int, seconds: float, seed: int, bare: bool) -> tuple[int, int, float]:
    """Games played, actions taken and CPU time spent; ``bare``: without observations."""
    import numpy
    from rlcard.games.uno.game import UnoGame

    game = UnoGame(num_players=players)
    game.np_random = numpy.random.RandomState(seed)
    if bare:  # the rules loop alone: no observation built after each step
        game.get_state = lambda player_id: None  # type: ignore[method-assign]
    rng = random.Random(seed)
    games = actions = 0
    start = clock()
    deadline = start + seconds
    while True:
        game.init_game()
        while not game.is_over():
            game.step(rng.choice(game.get_legal_actions()))
            actions += 1
        games += 1
        if clock() >= deadline:
            break
    return games, actions, clock() - start


RLCARD = ("rlcard driven", "rlcard bare")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="See the module docstring for the policy.")
    parser.add_argument("--presets", default="official,house,party",
                        help="comma-separated presets to time (default: %(default)s)")
    parser.add_argument("--players", type=int, default=4, help="players per game (default: 4)")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="CPU seconds per measurement (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the policy and the deals")
    parser.add_argument("--slices", type=int, default=5,
                        help="interleaved slices per measurement (default: %(default)s)")
    parser.add_argument("--vs-rlcard", action="store_true",
                        help="also time RLCard's UnoGame and print the ratios")
    parser.add_argument("--profile", metavar="PRESET",
                        help="run cProfile on PRESET instead and print the top functions")
    args = parser.parse_args(argv)

    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(bench_engine, args.profile, args.players, args.seconds, args.seed)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return

    # Interleave short slices of every measurement so that drifting machine load hits all alike.
    presets = args.presets.split(",")
    names = presets + (list(RLCARD) if args.vs_rlcard else [])
    totals = {name: [0, 0, 0.0] for name in names}
    for i in range(args.slices):
        for name in names:
            slice_seed = args.seed + 1000 * i
            seconds = args.seconds / args.slices
            if name in RLCARD:
                done = bench_rlcard(args.players, seconds, slice_seed, bare=name == "rlcard bare")
            else:
                done = bench_engine(name, args.players, seconds, slice_seed)
            for k in range(3):
                totals[name][k] += done[k]
    rates = {}
    for name, (count, actions, spent) in totals.items():
        rates[name] = count / spent
        label = name if name in RLCARD else f"unolan {name}"
        print(f"{label:16} {rates[name]:7.0f} games/s  {1e6 * spent / actions:5.2f} us/action  "
              f"{actions / count:5.1f} actions/game  ({count} in {spent:.2f} s CPU)")
    if args.vs_rlcard:
        for name in presets:
            driven, bare = (rates[name] / rates[r] for r in RLCARD)
            print(f"ratio {name:10} {driven:5.2f}x RLCard driven  {bare:5.2f}x RLCard bare  (games/s)")


if __name__ == "__main__":
    main()
