"""Benchmark the wire protocol against bare msgpack on the same data.

For a typical room event and a typical snapshot, time one encode + decode round trip:

- protocol: ``Connection.send(message)`` (state check, framing, packing) on one end, then
  ``receive_data`` + ``next_event`` (unframing, unpacking within limits, validating every
  field, building the frozen message) on the other;
- bare: ``msgpack.packb(map)`` then ``msgpack.unpackb(bytes)`` of the same map.

The ratio is protocol rate / bare rate; the target is at least 0.5.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import msgpack
from unolan.engine.rules import Rules
from unolan.protocol import CLIENT, SERVER, Connection, Event, Message, Snapshot


def typical_event() -> Event:
    return Event(
        seq=1234,
        kind="played",
        data={"seat": 2, "cards": ["R7"], "color": "R", "target": None, "jump_in": False},
    )


def typical_snapshot() -> Snapshot:
    return Snapshot(
        seq=1234,
        view={
            "seat": 1,
            "hand": ["R1", "R7", "YS", "G2", "GD2", "B9", "W4"],
            "counts": [5, 7, 3, 6],
            "top": "R5",
            "color": "R",
            "direction": 1,
            "turn": 1,
            "phase": "play",
            "pending": 0,
            "called": [False, False, False, False],
            "catchable": [],
            "scores": [0, 120, 35, 0],
            "draw_count": 61,
            "discard_count": 18,
            "round": 2,
            "dealer": 0,
            "drawn": None,
            "out": [False, False, False, False],
            "rules": Rules.preset("house").to_dict(),
        },
    )


def connected_pair() -> tuple[Connection, Connection]:
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.hello("bench"))
    server.next_event()
    client.receive_data(server.welcome("bench"))
    client.next_event()
    return client, server


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Round trips per second, over about ``seconds`` of wall time (best of 3 runs)."""
    n = 1
    while True:  # calibrate: a batch of n calls takes >= 20 ms
        start = time.perf_counter()
        for _ in range(n):
            fn()
        took = time.perf_counter() - start
        if took >= 0.02:
            break
        n *= 2
    batch = max(1, int(n * seconds / 3 / took))
    best = 0.0
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        best = max(best, batch / (time.perf_counter() - start))
    return best


def compare(name: str, message: Message, seconds: float) -> float:
    client, server = connected_pair()
    data = message.to_wire()
    send, receive, next_event = server.send, client.receive_data, client.next_event

    def ours() -> None:
        receive(send(message))
        next_event()

    packb, unpackb = msgpack.packb, msgpack.unpackb

    def bare() -> None:
        unpackb(packb(data))

    ours()
    assert unpackb(packb(data)) is not None
    ours_rate, bare_rate = rate(ours, seconds), rate(bare, seconds)
    size = len(server.send(message))
    ratio = ours_rate / bare_rate
    print(
        f"{name:9} {size:5d} B  protocol {ours_rate:10,.0f}/s  bare msgpack {bare_rate:10,.0f}/s"
        f"  ratio {ratio:.2f}"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="time per measurement")
    args = parser.parse_args()
    print("encode + decode round trips (send -> receive_data -> next_event vs packb -> unpackb)")
    ratios = [
        compare("event", typical_event(), args.seconds),
        compare("snapshot", typical_snapshot(), args.seconds),
    ]
    print(f"worst ratio {min(ratios):.2f} (target >= 0.50)")


if __name__ == "__main__":
    main()
