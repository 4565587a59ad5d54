"""Benchmark the rules engine: full rounds per second of random legal play.

One process, 4 players (``--players``), for the presets ``official``, ``house`` and
``party`` (``--presets``). Every round is played from the deal to its end by the same
random policy for every preset:

* if the seat in turn has any legal play (a ``Play`` action), pick one uniformly;
* otherwise pick uniformly among its other legal actions (draw, pass, challenge, name a
  color, and its own UNO call or a catch when it may make one);
* seats not in turn never act: no jump-ins, calls or catches out of turn.

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

With ``--compiled PYTHON`` the same run also times the engine of another environment,
whose interpreter is PYTHON, in a worker process fed slice by slice: typically the
compiled engine (``build/venv/bin/python``, see README.md) beside this environment's
pure one, or an earlier commit's engine installed elsewhere. It may be given more than
once (this build's compiled engine beside an earlier commit's, in one run). Each engine
is labelled by what it is (``pure`` or ``compiled``), numbered in the order given when
two are alike (``compiled #2``).

Rates are per CPU second of this process (``time.process_time``), and the measurements
are cut into interleaved slices (``--slices``), so that other load on the machine skews
neither the figures nor the ratios much.

Example::

    python bench/engine.py --seconds 5 --vs-rlcard
    python bench/engine.py --presets official,house --vs-rlcard --compiled build/venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time

from unolan.engine import Deal, Game, Phase, Play, Rules

from unolan import engine

# Which engine this environment has; an engine older than the compiled build is pure
# (so that --compiled can also point at a checkout of an earlier commit, side by side).
COMPILED: bool = getattr(engine, "COMPILED", False)

# CPU time of this process: other load on the machine disturbs it far less than wall time.
clock = time.process_time
IN_PLAY = (Phase.PLAY, Phase.DRAWN, Phase.COLOR)  # a round is being played


def play_round(game: Game, rng: random.Random) -> int:
    """Play the current round to its end with the policy above; return the action count."""
    actions = 0
    choice = rng.choice
    while game.phase in IN_PLAY:
        legal = game.legal_actions(game.turn)  # the seat's own actions only
        plays = [a for a in legal if type(a) is Play]
        game.apply(choice(plays or legal))
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
Totals = list[float]  # count, actions, CPU seconds


class Worker:
    """This script in another environment, timing its engine one slice per request."""

    def __init__(self, python: str) -> None:
        self.process = subprocess.Popen([python, __file__, "--worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.compiled = bool(self.ask({"hello": True}))

    def ask(self, request: dict[str, object]) -> object:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("the worker environment could not run the benchmark (see above)")
        return json.loads(line)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def serve_worker() -> None:
    """The worker's side: one JSON request a line, one answer a line."""
    for line in sys.stdin:
        request = json.loads(line)
        if "hello" in request:
            answer: object = COMPILED
        else:
            answer = bench_engine(request["preset"], request["players"], request["seconds"],
                                  request["seed"])
        print(json.dumps(answer), flush=True)


def engine_label(compiled: bool) -> str:
    return "compiled" if compiled else "pure"


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
    parser.add_argument("--compiled", metavar="PYTHON", action="append", default=[],
                        help="also time the engine of the environment of this interpreter "
                             "(e.g. build/venv/bin/python, with the compiled engine); "
                             "may be given more than once")
    parser.add_argument("--profile", metavar="PRESET",
                        help="run cProfile on PRESET instead and print the top functions")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        serve_worker()
        return
    if args.profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.runcall(bench_engine, args.profile, args.players, args.seconds, args.seed)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return

    presets = args.presets.split(",")
    workers = [Worker(python) for python in args.compiled]
    engines = []
    for compiled in (COMPILED, *(worker.compiled for worker in workers)):
        label = engine_label(compiled)
        alike = sum(engine.split(" #")[0] == label for engine in engines)
        engines.append(f"{label} #{alike + 1}" if alike else label)
    by_engine = dict(zip(engines[1:], workers, strict=True))
    measured = [(engine, preset) for preset in presets for engine in engines]
    names = [*measured, *((r, "") for r in RLCARD)] if args.vs_rlcard else measured
    totals: dict[tuple[str, str], Totals] = {name: [0, 0, 0.0] for name in names}
    # Interleave short slices of every measurement so that drifting machine load hits all alike.
    seconds = args.seconds / args.slices
    for i in range(args.slices):
        slice_seed = args.seed + 1000 * i
        for name in names:
            what, preset = name
            done: object
            if what in RLCARD:
                done = bench_rlcard(args.players, seconds, slice_seed, bare=what == "rlcard bare")
            elif what == engines[0]:
                done = bench_engine(preset, args.players, seconds, slice_seed)
            else:
                done = by_engine[what].ask({"preset": preset, "players": args.players, "seconds": seconds,
                                   "seed": slice_seed})
            assert isinstance(done, (list, tuple))
            for k in range(3):
                totals[name][k] += done[k]
    for worker in workers:
        worker.close()
    rates = {}
    for name, (count, actions, spent) in totals.items():
        what, preset = name
        rates[name] = count / spent
        label = what if what in RLCARD else f"unolan {what} {preset}"
        print(f"{label:26} {rates[name]:7.0f} games/s  {1e6 * spent / actions:5.2f} us/action  "
              f"{actions / count:5.1f} actions/round  ({count:.0f} in {spent:.2f} s CPU)")
    if args.vs_rlcard:
        driven, bare = (rates[r, ""] for r in RLCARD)
        for engine, preset in measured:
            rate = rates[engine, preset]
            print(f"ratio {engine:9} {preset:10} {rate / driven:5.2f}x RLCard driven  "
                  f"{rate / bare:5.2f}x RLCard bare  (games/s)")
    for later, engine in enumerate(engines[1:], 1):
        for earlier in engines[:later]:
            for preset in presets:
                print(f"ratio {engine} / {earlier} {preset:10} "
                      f"{rates[engine, preset] / rates[earlier, preset]:5.2f}x (games/s)")

if __name__ == "__main__":
    main()
