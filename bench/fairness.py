"""What a fair deal costs: the client's check of a round, and the wait before a match's deal.

- check: a client's whole check of one round (both hashes, then dealing the round again
  with the engine and comparing the deal it saw), next to the engine dealing that round
  (a plain ``Game``): the check is a deal and a compare, so the ratio tells what the
  compare adds.
- start: on a real server over TCP, the time from the host's ``start`` to the first
  ``turn`` with ``--players`` client-library bots, in a room the host seeded (no fair
  deal) and in one that deals fair (a commitment, every seat's nonce, then the deal),
  interleaved, medians of ``--rounds`` starts each.

    python bench/fairness.py --players 4 --rounds 20
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from functools import partial

import trio
from unolan.client import open_client
from unolan.client.verify import DealVerifier
from unolan.engine import Game, Rules, commitment, round_seed
from unolan.server import Limits, Server


def check_cost(players: int, rounds: int) -> tuple[float, float]:
    """Seconds per round: the client's check, the engine's plain deal."""
    rules = Rules.preset("house")
    secret, salt = "a" * 64, "b" * 64
    nonces = [f"n{s}" for s in range(players)]
    seed = round_seed(secret, nonces)
    seen = [(e.kind, json.loads(json.dumps(e.data_for(0)))) for e in Game(rules, players, seed).start_events]
    reveal = {"round": 1, "secret": secret, "salt": salt, "nonces": nonces, "drawn": [], "seed": seed}
    checks, deals = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        verifier = DealVerifier(0, rules.to_dict())
        verifier.feed("commitment", {"round": 1, "commitment": commitment(secret, salt)})
        for kind, data in seen:
            verifier.feed(kind, data)
        assert verifier.feed("reveal", reveal).ok  # type: ignore[union-attr]
        checks.append(time.perf_counter() - start)
        start = time.perf_counter()
        Game(rules, players, seed)
        deals.append(time.perf_counter() - start)
    return statistics.median(checks), statistics.median(deals)


async def start_to_turn(port: int, players: int) -> float:
    """One match started by ``players`` bots: seconds from ``start`` to the first turn."""
    async with trio.open_nursery() as nursery:
        clients = [await nursery.start(_client, port, f"b{i}") for i in range(players)]
        joined = await clients[0].create_room("bench", seats=players)
        for client in clients[1:]:
            await client.join(joined.room)
            await client.ready()
        began = trio.current_time()
        await clients[0].start()
        while not all(c.view() is not None for c in clients):
            await trio.sleep(0.001)
        took = trio.current_time() - began
        nursery.cancel_scope.cancel()
    return took


async def _client(port: int, name: str, task_status: trio.TaskStatus = trio.TASK_STATUS_IGNORED) -> None:
    async with open_client("127.0.0.1", port, name, bot=True) as client:
        task_status.started(client)
        await trio.sleep_forever()


async def starts(players: int, rounds: int) -> tuple[float, float]:
    limits = Limits(request_rate=1e6, request_burst=1e6, lobby_rate=1e6, lobby_burst=1e6,
                    rooms_per_address=10_000, room_idle=1.0)
    seeded, fair = [], []
    async with trio.open_nursery() as nursery:
        known = await nursery.start(partial(Server(seed=1, limits=limits).run, "127.0.0.1", 0))
        drawn = await nursery.start(partial(Server(seed=None, limits=limits).run, "127.0.0.1", 0))
        for _ in range(rounds):  # interleaved, so that the machine's load hits both alike
            seeded.append(await start_to_turn(known.port, players))
            fair.append(await start_to_turn(drawn.port, players))
        nursery.cancel_scope.cancel()
    return statistics.median(seeded), statistics.median(fair)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    check, deal = check_cost(args.players, max(args.rounds, 50))
    print(f"check of a round: {check * 1e3:.2f} ms; the engine's deal of it: {deal * 1e3:.2f} ms;"
          f" ratio {check / deal:.2f}")
    seeded, fair = trio.run(starts, args.players, args.rounds)
    print(f"start to first turn, {args.players} bots: seeded {seeded * 1e3:.1f} ms, fair"
          f" {fair * 1e3:.1f} ms; ratio {fair / seeded:.2f}")


if __name__ == "__main__":
    main()
