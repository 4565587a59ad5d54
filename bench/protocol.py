"""Benchmark the wire protocol against bare msgpack on the same data.

For a typical room event and a typical snapshot, time one encode + decode round trip:

- protocol: ``Connection.send(message)`` (state check, framing, packing) on one end, then
  ``receive_data`` + ``next_event`` (unframing, unpacking within limits, validating every
  field, building the frozen message) on the other;
- bare: the same map packed by a reused ``msgpack.Packer`` with the protocol's settings,
  then unpacked with the protocol's own settings and limits (``decode_body``'s call
  without its wrapper): everything the protocol does that msgpack does too, at msgpack's
  own best speed.

The two are timed in interleaved slices (A B A B ...) so that drifting load on the
machine hits both alike; the ratio is the median of the per-pair ratios of protocol rate
/ bare rate. The target is at least 0.5.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import msgpack
from unolan.engine.rules import Rules
from unolan.protocol import CLIENT, SERVER, Connection, Event, Message, Snapshot, framing


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


def batch_size(fn: Callable[[], object]) -> int:
    """Calls of ``fn`` that take about 20 ms."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        if time.perf_counter() - start >= 0.02:
            return n
        n *= 2


def timed(fn: Callable[[], object], n: int) -> float:
    """Calls per second over ``n`` calls."""
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return n / (time.perf_counter() - start)


def interleaved(ours: Callable[[], object], bare: Callable[[], object],
                seconds: float) -> tuple[float, float, float]:
    """Best rate of each and the median per-pair ratio, over slices taken in turn."""
    n_ours, n_bare = batch_size(ours), batch_size(bare)
    pairs = max(3, int(seconds / 0.04))
    rates = [(timed(ours, n_ours), timed(bare, n_bare)) for _ in range(pairs)]
    ratio = statistics.median(a / b for a, b in rates)
    return max(a for a, _ in rates), max(b for _, b in rates), ratio


def compare(name: str, message: Message, seconds: float) -> float:
    client, server = connected_pair()
    data = message.to_wire()
    send, receive, next_event = server.send, client.receive_data, client.next_event

    def ours() -> None:
        receive(send(message))
        next_event()

    pack, unpackb = msgpack.Packer(use_bin_type=True, autoreset=True).pack, msgpack.unpackb
    limits = {"max_str_len": framing.MAX_STR_LEN, "max_bin_len": 0, "max_ext_len": 0,
              "max_array_len": framing.MAX_ARRAY_LEN, "max_map_len": framing.MAX_MAP_LEN}

    def bare() -> None:  # decode_body's call, without its wrapper
        unpackb(pack(data), raw=False, strict_map_key=True, use_list=False, **limits)

    ours()
    bare()
    ours_rate, bare_rate, ratio = interleaved(ours, bare, seconds)
    size = len(server.send(message))
    print(
        f"{name:9} {size:5d} B  protocol {ours_rate:10,.0f}/s  bare msgpack {bare_rate:10,.0f}/s"
        f"  ratio {ratio:.2f}"
    )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=1.5, help="time per measurement")
    args = parser.parse_args()
    print("encode + decode round trips (send -> receive_data -> next_event vs Packer.pack -> unpackb)")
    ratios = [
        compare("event", typical_event(), args.seconds),
        compare("snapshot", typical_snapshot(), args.seconds),
    ]
    print(f"worst ratio {min(ratios):.2f} (target >= 0.50)")


if __name__ == "__main__":
    main()
