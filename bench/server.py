"""Load-test the game server against a bare Trio + msgpack fan-out baseline.

The server under test runs in its own process; a load generator (this process) opens
``--rooms`` rooms of 4 bot clients over real TCP and plays real games, as fast as it can
or with ``--think`` ms between a turn arriving and the bot acting. Bots play with the
built-in bot (``unolan.server.Bot``): on its turn a bot asks for a snapshot, computes
its legal actions from its view and sends one.

Then the same load shape against a baseline server in its own process: bare Trio and
msgpack, no game, no validation: one frame in, one ~100-byte event packed once and sent
to the 4 clients of the "room", whose next member then acts.

Reported per server: actions/s; server CPU microseconds per action (utime + stime of the
server process from /proc/<pid>/stat over the measuring window); p50/p99 latency from an
action sent to the last of the 4 room members receiving its event; server RSS per
connected client (VmRSS with everyone connected minus VmRSS before, over the clients);
clients dropped. Then the ratios server / baseline.

Targets (2 cores): CPU per action at 100 clients <= 2x the baseline's; 1000 clients
(250 rooms) with 100 ms think time all served, none dropped, p99 <= 1.5x the baseline's;
<= 25 KiB server memory per connected client.

    python bench/server.py                          # 25 rooms (100 clients), no think time
    python bench/server.py --rooms 250 --think 100  # 1000 clients, 100 ms think time
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing as mp
import os
import statistics
import struct
import sys
import time
from typing import Any

import msgpack
import trio

HEADER = struct.Struct(">I")
GAME_ACTIONS = frozenset({"play", "draw", "pass", "call_uno", "catch", "challenge", "choose_color"})


# -- the two servers, each in its own process --------------------------------------------


def _game_server(conn: Any) -> None:
    from unolan.server import Limits, Server

    limits = Limits(request_rate=1e9, request_burst=1e9, deal_pause=0.05, autopilot_delay=0.5,
                    room_idle=3600, max_rooms=10_000, max_connections=20_000)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            server = await nursery.start(Server(limits=limits).run, "127.0.0.1", 0)
            conn.send(server.port)
            await trio.to_thread.run_sync(conn.recv)  # any message: stop
            nursery.cancel_scope.cancel()

    trio.run(main)


def _baseline_server(conn: Any) -> None:
    """Bare fan-out: connections grouped by 4 in arrival order; a frame in, an event out."""
    rooms: list[list[trio.SocketStream]] = []
    locks: dict[trio.SocketStream, trio.Lock] = {}
    counter = [0]

    async def handler(stream: trio.SocketStream) -> None:
        if not rooms or len(rooms[-1]) == 4:
            rooms.append([])
        room = rooms[-1]
        room.append(stream)
        locks[stream] = trio.Lock()  # handlers of one room may send to a member at once
        buffer = b""
        seq = 0
        while True:
            try:
                data = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                return  # the load generator went away at the end of the run
            if not data:
                return
            buffer += data
            while len(buffer) >= 4:
                (n,) = HEADER.unpack_from(buffer)
                if len(buffer) < 4 + n:
                    break
                msg = msgpack.unpackb(buffer[4:4 + n], raw=False)
                buffer = buffer[4 + n:]
                counter[0] += 1
                seq = msg.get("seq", seq) + 1
                seat = room.index(stream)
                event = {"type": "event", "seq": seq, "kind": "played",
                         "data": {"seat": seat, "cards": ["R7"], "color": "R", "target": None,
                                  "jump_in": False, "next": (seat + 1) % 4}}
                body = msgpack.packb(event)
                frame = HEADER.pack(len(body)) + body
                for member in room:
                    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                        async with locks[member]:
                            await member.send_all(frame)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
            conn.send(listeners[0].socket.getsockname()[1])
            nursery.start_soon(trio.serve_listeners, handler, listeners)
            await trio.to_thread.run_sync(conn.recv)
            nursery.cancel_scope.cancel()

    trio.run(main)


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


# -- measuring ---------------------------------------------------------------------------


class Meter:
    """Latency from an action sent to the last room member receiving its event."""

    def __init__(self) -> None:
        self.pending: dict[tuple[Any, int], list[Any]] = {}  # key -> [t0, receipts]
        self.latencies: list[float] = []
        self.actions = 0
        self.measuring = False
        self.dropped = 0

    def start(self, key: tuple[Any, int]) -> None:
        self.pending[key] = [time.perf_counter(), 0]

    def got(self, key: tuple[Any, int]) -> None:
        entry = self.pending.get(key)
        if entry is None:
            return
        entry[1] += 1
        if entry[1] == 4:
            del self.pending[key]
            if self.measuring:
                self.latencies.append(time.perf_counter() - entry[0])
                self.actions += 1


class GameObserver:
    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def sent(self, bot: Any, msg: Any) -> None:
        if msg.TYPE in GAME_ACTIONS and msg.TYPE != "catch":
            self.meter.start((bot.room, msg.seq + 1))

    def received(self, bot: Any, msg: Any) -> None:
        if msg.TYPE == "event":
            self.meter.got((bot.room, msg.seq))


async def _game_load(port: int, rooms: int, think: float, meter: Meter, ready: trio.Event,
                     connected: list[int]) -> None:
    from unolan.server import Bot

    from unolan import protocol as pr

    observer = GameObserver(meter)

    async def one(**kw: Any) -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        connected[0] += 1
        bot = Bot(stream, name="b", think=think, observer=observer, catch=False, **kw)
        await bot.run()
        meter.dropped += 1  # a bot only returns when its connection ends

    async with trio.open_nursery() as nursery:
        for r in range(rooms):
            create = pr.CreateRoom(name=f"bench{r}", seats=4, preset="house")
            nursery.start_soon(lambda c=create: one(create=c))
            await trio.sleep(0.02)
            for _ in range(3):
                nursery.start_soon(lambda r=r: one(join=f"r{r + 1}"))
        ready.set()


async def _baseline_load(port: int, rooms: int, think: float, meter: Meter, ready: trio.Event,
                         connected: list[int]) -> None:
    async def one(stream: trio.SocketStream, room: int, seat: int) -> None:
        buffer = b""
        try:
            if seat == 0:
                await trio.sleep(0.5)
                await _send(stream, room, 0, meter)
            while True:
                data = await stream.receive_some(65536)
                if not data:
                    break
                buffer += data
                while len(buffer) >= 4:
                    (n,) = HEADER.unpack_from(buffer)
                    if len(buffer) < 4 + n:
                        break
                    msg = msgpack.unpackb(buffer[4:4 + n], raw=False)
                    buffer = buffer[4 + n:]
                    meter.got((room, msg["seq"]))
                    if msg["data"]["next"] == seat:
                        if think:
                            await trio.sleep(think)
                        await _send(stream, room, msg["seq"], meter)
        finally:
            meter.dropped += 1

    async with trio.open_nursery() as nursery:
        for r in range(rooms):
            for seat in range(4):  # one at a time: the baseline groups rooms by arrival
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                connected[0] += 1
                nursery.start_soon(one, stream, r, seat)
                await trio.sleep(0.002)
        ready.set()


async def _send(stream: trio.SocketStream, room: int, seq: int, meter: Meter) -> None:
    meter.start((room, seq + 1))
    body = msgpack.packb({"type": "play", "seq": seq, "cards": ["R7"]})
    await stream.send_all(HEADER.pack(len(body)) + body)


def run_one(kind: str, rooms: int, think_ms: float, warmup: float, duration: float) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    target = _game_server if kind == "server" else _baseline_server
    proc = ctx.Process(target=target, args=(child,), daemon=True)
    proc.start()
    port = parent.recv()
    time.sleep(0.2)
    rss_idle = _rss_bytes(proc.pid)
    meter = Meter()
    connected = [0]
    result: dict[str, Any] = {}

    async def main() -> None:
        ready = trio.Event()
        load = _game_load if kind == "server" else _baseline_load
        async with trio.open_nursery() as nursery:
            nursery.start_soon(load, port, rooms, think_ms / 1000, meter, ready, connected)
            await ready.wait()
            await trio.sleep(warmup)
            rss_loaded = _rss_bytes(proc.pid)
            cpu0, t0 = _cpu_seconds(proc.pid), time.perf_counter()
            meter.measuring = True
            await trio.sleep(duration)
            meter.measuring = False
            cpu1, t1 = _cpu_seconds(proc.pid), time.perf_counter()
            dropped = meter.dropped
            lat = sorted(meter.latencies) or [float("nan")]
            result.update(
                clients=connected[0], actions=meter.actions,
                actions_per_s=meter.actions / (t1 - t0),
                cpu_us_per_action=(cpu1 - cpu0) * 1e6 / max(meter.actions, 1),
                server_cpu_share=(cpu1 - cpu0) / (t1 - t0),
                p50_ms=statistics.median(lat) * 1000,
                p99_ms=lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
                rss_per_client_kib=(rss_loaded - rss_idle) / max(connected[0], 1) / 1024,
                dropped=dropped,
            )
            nursery.cancel_scope.cancel()

    try:
        trio.run(main)
    finally:
        parent.send("stop")
        proc.join(5)
        if proc.is_alive():
            proc.kill()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=25, help="rooms of 4 clients (default 25)")
    parser.add_argument("--think", type=float, default=0.0, metavar="MS",
                        help="bot think time in milliseconds (default 0: as fast as possible)")
    parser.add_argument("--warmup", type=float, default=3.0, metavar="S", help="seconds before measuring")
    parser.add_argument("--duration", type=float, default=10.0, metavar="S", help="seconds measured")
    parser.add_argument("--no-baseline", action="store_true", help="skip the bare fan-out baseline")
    args = parser.parse_args(argv)

    rows = {"server": run_one("server", args.rooms, args.think, args.warmup, args.duration)}
    if not args.no_baseline:
        rows["baseline"] = run_one("baseline", args.rooms, args.think, args.warmup, args.duration)
    print(f"rooms={args.rooms} clients={4 * args.rooms} think={args.think:g} ms "
          f"window={args.duration:g} s")
    keys = ["clients", "actions_per_s", "cpu_us_per_action", "server_cpu_share", "p50_ms",
            "p99_ms", "rss_per_client_kib", "dropped"]
    print(f"{'':<22}" + "".join(f"{name:>12}" for name in rows))
    for key in keys:
        print(f"{key:<22}" + "".join(f"{row[key]:>12.1f}" if isinstance(row[key], float)
                                     else f"{row[key]:>12}" for row in rows.values()))
    if "baseline" in rows:
        s, b = rows["server"], rows["baseline"]
        print(f"ratio cpu/action server/baseline: {s['cpu_us_per_action'] / b['cpu_us_per_action']:.2f}"
              f"  (target <= 2 at 100 clients)")
        print(f"ratio p99 server/baseline:        {s['p99_ms'] / b['p99_ms']:.2f}"
              f"  (target <= 1.5 at 1000 clients, 100 ms think)")
    print(f"server rss per client: {rows['server']['rss_per_client_kib']:.1f} KiB (target <= 25)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
