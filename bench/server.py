"""Load-test the game server against a bare Trio + msgpack fan-out baseline.

The server under test runs in its own process; a load generator (``--procs`` processes,
each with its share of the rooms) opens ``--rooms`` rooms of 4 bot clients over real TCP
and plays real games, as fast as it can or with ``--think`` ms between a turn arriving
and the bot acting. Each bench bot keeps its own table from the events it receives (the
client library's ``Mirror``) and, when a batch closes on its turn, computes its legal
actions from that table and sends one (the built-in bot's policy): one frame in per
action, as for the baseline. A refused action or a gap (``refused`` in the report) makes
it ask for a snapshot.

Then the same load shape against a baseline server in its own process: bare Trio and
msgpack, no game, no validation: one frame in, one ~100-byte event packed once and sent
to the 4 clients of the "room", whose next member then acts.

The game server runs twice, interleaved: with its database (a file in a temporary
directory, write-ahead: every action is committed before its ``ok`` and its events go
out) and with ``--no-db`` (memory only), so that the cost of persistence is measured on
the same machine in the same minutes.

Reported per server: actions/s; server CPU microseconds per action (utime + stime of the
server process from /proc/<pid>/stat over the measuring window), split into the event
loop's thread (``loop_thread_us``) and the others (``other_threads_us``: the store's
thread, where the transactions that take long run, and Trio's worker threads); p50/p99
latency from an
action sent to the last of the 4 room members receiving its event; server RSS per
connected client (VmRSS with everyone connected, at the end of the warm-up, minus VmRSS
before, over the clients; and the same at the end of the measured window, which says what
the play left behind);
clients dropped; refusals; the generators' CPU share (all of them, and the busiest one's)
and their lag (how late a 10 ms timer of theirs wakes, p50 and p99): a lag near the
latencies says the generators, or the machine they share with the server, set them, not
the server. Then the ratios server / baseline.

Fairness: both servers get the same generator processes (rooms dealt round-robin, one
process connecting after another, since the baseline groups rooms by arrival) with the
same settings, including a rarely running garbage collector, so that the generators' own
pauses weigh as little as possible on the latencies. The game server runs with its own
defaults (among them ``Limits.gc_threshold``), and the baseline with the same collector
threshold, so that neither pays for garbage collection passes the other is spared.

Targets (2 cores): CPU per action at 100 clients <= 2x the baseline's; 1000 clients
(250 rooms) with 100 ms think time all served, none dropped, p99 <= 1.5x the baseline's;
<= 25 KiB server memory per connected client; persistence costs at most +15% CPU per
action at 100 clients (database on / --no-db).

    python bench/server.py                          # 25 rooms (100 clients), no think time
    python bench/server.py --rooms 250 --think 100  # 1000 clients, 100 ms think time
    python bench/server.py --rounds 3               # each server 3 times, interleaved: medians
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import multiprocessing as mp
import os
import statistics
import struct
import sys
import tempfile
import time
from typing import Any

import msgpack
import trio

HEADER = struct.Struct(">I")


class _Frames:
    """Cuts a stream into unpacked frame bodies (both ends of the bench trust each other's
    frames: no limits, no checks)."""

    __slots__ = ("buffer",)

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[Any]:
        buffer = self.buffer + data if self.buffer else data
        out = []
        start, size = 0, len(buffer)
        while size - start >= 4:
            (n,) = HEADER.unpack_from(buffer, start)
            if size - start - 4 < n:
                break
            out.append(msgpack.unpackb(buffer[start + 4:start + 4 + n], raw=False))
            start += 4 + n
        self.buffer = buffer[start:]
        return out


# -- the two servers, each in its own process --------------------------------------------


def _game_server(conn: Any, db_path: str | None = None) -> None:
    from unolan.server import Limits, Server

    limits = Limits(request_rate=1e9, request_burst=1e9, deal_pause=0.05, autopilot_delay=0.5,
                    room_idle=3600, max_rooms=10_000, max_connections=20_000,
                    rooms_per_address=10_000, lobby_burst=1e9)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            server = await nursery.start(Server(limits=limits, db_path=db_path).run, "127.0.0.1", 0)
            conn.send(server.port)
            await trio.to_thread.run_sync(conn.recv)  # any message: stop
            nursery.cancel_scope.cancel()

    trio.run(main)


def _baseline_server(conn: Any) -> None:
    """Bare fan-out: connections grouped by 4 in arrival order; a frame in, an event out.
    Its garbage collector runs as the game server's does (``Limits.gc_threshold``)."""
    from unolan.server import Limits

    gc.set_threshold(Limits().gc_threshold, *gc.get_threshold()[1:])
    rooms: list[list[trio.SocketStream]] = []
    locks: dict[trio.SocketStream, trio.Lock] = {}
    counter = [0]

    async def handler(stream: trio.SocketStream) -> None:
        if not rooms or len(rooms[-1]) == 4:
            rooms.append([])
        room = rooms[-1]
        room.append(stream)
        locks[stream] = trio.Lock()  # handlers of one room may send to a member at once
        frames = _Frames()
        seq = 0
        while True:
            try:
                data = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                return  # the load generator went away at the end of the run
            if not data:
                return
            for msg in frames.feed(data):
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


def _cpu_seconds(pid: int, task: int | None = None) -> float:
    """utime + stime of a process (or of one of its threads, ``task``)."""
    path = f"/proc/{pid}/stat" if task is None else f"/proc/{pid}/task/{task}/stat"
    with open(path) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _other_threads_seconds(pid: int) -> float:
    """utime + stime of a process's threads other than its first (the event loop's): read
    each thread's own, so that the clock's ticks of the whole process do not blur them."""
    total = 0.0
    for task in os.listdir(f"/proc/{pid}/task"):
        if int(task) != pid:
            with contextlib.suppress(FileNotFoundError):  # a thread that just ended
                total += _cpu_seconds(pid, int(task))
    return total


def _rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


# -- measuring (in the load generator's processes) ------------------------------------


class Meter:
    """Latency from an action sent to the last room member receiving its event."""

    def __init__(self) -> None:
        self.pending: dict[tuple[Any, int], list[Any]] = {}  # key -> [t0, receipts]
        self.latencies: list[float] = []
        self.actions = 0
        self.measuring = False
        self.dropped = 0
        self.refused = 0  # game server only: actions or requests it refused

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


_TURN_PHASES = ("play", "drawn", "color")


# The load generators' socket calls, the same for both servers. They must cost far less
# than what they measure (at 1000 clients they share the machine with the server), so
# they go to the descriptor as the server does: the stream's own receive_some tries a
# read first, which mostly finds nothing and costs more than the read, and send_all a
# task switch where one write nearly always takes the whole frame.


async def _receive(stream: trio.SocketStream) -> bytes:
    """What the server sent next (b"": it closed), read when the socket is readable."""
    fd = stream.socket.fileno()
    while True:
        await trio.lowlevel.wait_readable(fd)
        try:
            return os.read(fd, 65536)
        except BlockingIOError:
            continue


async def _send(stream: trio.SocketStream, data: bytes) -> None:
    """Straight into the socket; what it does not take, through the stream."""
    try:
        sent = os.write(stream.socket.fileno(), data)
    except BlockingIOError:
        sent = 0
    if sent < len(data):
        await stream.send_all(data[sent:])


async def _game_bot(port: int, room: int, think: float, meter: Meter, host: bool,
                    room_id: list[str], joined: trio.Event) -> None:
    """One bench client of the game server: plays its own seat from its own mirror of the
    table (kept from the events it receives), and acts when a batch closes on its turn."""
    from unolan.client.mirror import Mirror, SeqGap
    from unolan.engine import Card
    from unolan.protocol import to_message
    from unolan.server.policy import choose

    from unolan import protocol as pr

    stream = await trio.open_tcp_stream("127.0.0.1", port)
    conn = pr.Connection(pr.CLIENT)
    try:
        await _send(stream, conn.hello("bench", client="bench"))
        while (msg := conn.next_event()) is pr.NEED_DATA:
            conn.receive_data(await _receive(stream))
        if not isinstance(msg, pr.Welcome):
            return
        if host:
            await _send(stream, conn.send(pr.CreateRoom(name=f"bench{room}", seats=4,
                                                          preset="house")))
        else:
            await joined.wait()
            await _send(stream, conn.send(pr.Join(room=room_id[0])))
        frames = _Frames()
        frames.buffer = bytes(conn._data[conn._start:])  # anything read past the welcome
        mirror: Mirror | None = None
        seat = -1
        starting = False
        acted = -1

        async def act() -> None:
            nonlocal acted
            assert mirror is not None
            seq = mirror.seq or 0
            if not (mirror.settled and mirror.my_turn and mirror.phase in _TURN_PHASES) \
                    or acted == seq:
                return
            if think:
                await trio.sleep(think)
            view = mirror.view()
            action = choose(view.legal_actions(), [Card.parse(c) for c in view.hand], turn=True)
            if action is None:
                return
            acted = seq
            meter.start((room, seq + 1))
            await _send(stream, conn.send(to_message(action, seq)))

        data = b""
        while True:
            for m in frames.feed(data):
                t = m["type"]
                if t == "event":
                    seq = m["seq"]
                    meter.got((room, seq))
                    if mirror is None:
                        continue
                    try:
                        mirror.feed(seq, m["kind"], m["data"])
                    except SeqGap:
                        await _send(stream, conn.send(pr.Sync()))
                        continue
                    if m["kind"] == "turn":
                        await act()
                elif t == "joined":
                    seat = m["seat"]
                    mirror = Mirror(seat)
                    mirror.seq = m["seq"]
                    if host:
                        room_id.append(m["room"])
                        joined.set()
                    await _send(stream, conn.send(pr.Ready()))
                elif t == "seats":
                    if mirror is not None and not mirror.rules:
                        mirror.set_rules(m["rules"])
                    seats = m["seats"]
                    if m["started"]:
                        starting = False
                    elif host:
                        if not starting and all(s["kind"] != "empty" and (s["ready"] or s["seat"] == seat)
                                                for s in seats):
                            starting = True
                            await _send(stream, conn.send(pr.Start()))
                    elif 0 <= seat < len(seats) and not seats[seat]["ready"]:
                        await _send(stream, conn.send(pr.Ready()))  # a new match
                elif t == "snapshot":
                    if mirror is not None:
                        mirror.load(m["view"], m["seq"])
                        await act()
                elif t == "error":
                    meter.refused += 1
                    if m.get("fatal"):
                        return
                    if m["code"] == "not_ready":
                        starting = False
                    elif mirror is not None and mirror.started:
                        await _send(stream, conn.send(pr.Sync()))
                elif t == "ping":
                    await _send(stream, conn.send(pr.Pong(id=m["id"])))
            data = await _receive(stream)
            if not data:
                return
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        return
    finally:
        meter.dropped += 1  # a bot only returns when its connection ends
        with trio.CancelScope(shield=True):
            await trio.aclose_forcefully(stream)


async def _game_load(port: int, rooms: list[int], think: float, meter: Meter,
                     connected: list[int]) -> None:
    async with trio.open_nursery() as nursery:
        for r in rooms:
            room_id: list[str] = []
            joined = trio.Event()
            for seat in range(4):
                nursery.start_soon(_game_bot, port, r, think, meter, seat == 0, room_id, joined)
            connected[0] += 4
            await trio.sleep(0.02)
        await trio.sleep(0.5)
        connected.append(0)  # every room is open
        await trio.sleep_forever()


async def _baseline_load(port: int, rooms: list[int], think: float, meter: Meter,
                         connected: list[int]) -> None:
    async def one(stream: trio.SocketStream, room: int, seat: int) -> None:
        frames = _Frames()
        try:
            if seat == 0:
                await trio.sleep(0.5)
                await _play(stream, room, 0, meter)
            while True:
                data = await _receive(stream)
                if not data:
                    break
                for msg in frames.feed(data):
                    meter.got((room, msg["seq"]))
                    if msg["data"]["next"] == seat:
                        if think:
                            await trio.sleep(think)
                        await _play(stream, room, msg["seq"], meter)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            pass
        finally:
            meter.dropped += 1

    async with trio.open_nursery() as nursery:
        for r in rooms:
            for seat in range(4):  # one at a time: the baseline groups rooms by arrival
                stream = await trio.open_tcp_stream("127.0.0.1", port)
                connected[0] += 1
                nursery.start_soon(one, stream, r, seat)
                await trio.sleep(0.002)
        connected.append(0)
        await trio.sleep_forever()


async def _play(stream: trio.SocketStream, room: int, seq: int, meter: Meter) -> None:
    meter.start((room, seq + 1))
    body = msgpack.packb({"type": "play", "seq": seq, "cards": ["R7"]})
    await _send(stream, HEADER.pack(len(body)) + body)


def _generator(kind: str, port: int, rooms: list[int], think: float, conn: Any) -> None:
    """One load-generator process: its share of the rooms, driven by ``conn``'s orders
    (connect, start, stop); it reports what it measured. The same for both servers: its
    collector runs rarely (a pass walks every waiting client's coroutines), so that its
    pauses add as little as possible to the latencies it measures."""
    gc.set_threshold(20_000, 10, 10)
    meter = Meter()
    connected = [0]
    lags: list[float] = []

    async def lag() -> None:
        """How late the generator wakes for a timer: its own lateness, which every
        latency it measures includes (a busy generator or a busy machine)."""
        while True:
            t0 = time.perf_counter()
            await trio.sleep(_LAG_TICK)
            if meter.measuring:
                lags.append(time.perf_counter() - t0 - _LAG_TICK)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lag)
            await trio.to_thread.run_sync(conn.recv)  # connect
            load = _game_load if kind == "server" else _baseline_load
            nursery.start_soon(load, port, rooms, think, meter, connected)
            while len(connected) == 1:
                await trio.sleep(0.01)
            conn.send(connected[0])
            await trio.to_thread.run_sync(conn.recv)  # start
            meter.measuring = True
            cpu0 = time.process_time()
            await trio.to_thread.run_sync(conn.recv)  # stop
            meter.measuring = False
            conn.send({"latencies": meter.latencies, "actions": meter.actions,
                       "cpu": time.process_time() - cpu0,
                       "dropped": meter.dropped, "refused": meter.refused, "lags": lags})
            await trio.to_thread.run_sync(conn.recv)  # quit
            nursery.cancel_scope.cancel()

    trio.run(main)


_LAG_TICK = 0.01  # seconds


def run_one(kind: str, rooms: int, think_ms: float, warmup: float, duration: float,
            procs: int, db_path: str | None = None) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    parent, child = ctx.Pipe()
    target = _game_server if kind == "server" else _baseline_server
    args = (child, db_path) if kind == "server" else (child,)
    proc = ctx.Process(target=target, args=args, daemon=True)
    proc.start()
    port = parent.recv()
    time.sleep(0.2)
    rss_idle = _rss_bytes(proc.pid)
    procs = max(1, min(procs, rooms))
    workers = []
    for i in range(procs):
        here, there = ctx.Pipe()
        share = list(range(i, rooms, procs))
        worker = ctx.Process(target=_generator, args=(kind, port, share, think_ms / 1000, there),
                             daemon=True)
        worker.start()
        workers.append((worker, here))
    try:
        clients = 0
        for _, pipe in workers:  # one after another: the baseline groups rooms by arrival
            pipe.send("connect")
            clients += pipe.recv()
        time.sleep(warmup)
        rss_loaded = _rss_bytes(proc.pid)
        cpu0, t0 = _cpu_seconds(proc.pid), time.perf_counter()
        others0 = _other_threads_seconds(proc.pid)  # the store's thread, Trio's workers
        for _, pipe in workers:
            pipe.send("start")
        time.sleep(duration)
        rss_end = _rss_bytes(proc.pid)  # after the window's play too: memory the play left behind
        for _, pipe in workers:
            pipe.send("stop")
        cpu1, t1 = _cpu_seconds(proc.pid), time.perf_counter()
        others1 = _other_threads_seconds(proc.pid)
        reports = [pipe.recv() for _, pipe in workers]
        for _, pipe in workers:
            pipe.send("quit")
    finally:
        for worker, _ in workers:
            worker.join(5)
            if worker.is_alive():
                worker.kill()
        parent.send("stop")
        proc.join(5)
        if proc.is_alive():
            proc.kill()
    actions = sum(r["actions"] for r in reports)
    lat = sorted(x for r in reports for x in r["latencies"]) or [float("nan")]
    lags = sorted(x for r in reports for x in r["lags"]) or [float("nan")]
    return dict(
        clients=clients, actions=actions,
        actions_per_s=actions / (t1 - t0),
        cpu_us_per_action=(cpu1 - cpu0) * 1e6 / max(actions, 1),
        loop_thread_us=(cpu1 - cpu0 - (others1 - others0)) * 1e6 / max(actions, 1),
        other_threads_us=(others1 - others0) * 1e6 / max(actions, 1),
        server_cpu_share=(cpu1 - cpu0) / (t1 - t0),
        p50_ms=statistics.median(lat) * 1000,
        p99_ms=lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000,
        rss_per_client_kib=(rss_loaded - rss_idle) / max(clients, 1) / 1024,
        rss_end_per_client_kib=(rss_end - rss_idle) / max(clients, 1) / 1024,
        dropped=sum(r["dropped"] for r in reports),
        refused=sum(r["refused"] for r in reports),
        generator_cpu_share=sum(r["cpu"] for r in reports) / (t1 - t0),
        generator_busiest=max(r["cpu"] for r in reports) / (t1 - t0),
        generator_lag_p50_ms=statistics.median(lags) * 1000,
        generator_lag_p99_ms=lags[min(len(lags) - 1, int(len(lags) * 0.99))] * 1000,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=25, help="rooms of 4 clients (default 25)")
    parser.add_argument("--think", type=float, default=0.0, metavar="MS",
                        help="bot think time in milliseconds (default 0: as fast as possible)")
    parser.add_argument("--warmup", type=float, default=3.0, metavar="S", help="seconds before measuring")
    parser.add_argument("--duration", type=float, default=10.0, metavar="S", help="seconds measured")
    parser.add_argument("--procs", type=int, default=0, metavar="N",
                        help="load-generator processes (default: one per 60 rooms, at most 4)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the bare fan-out baseline")
    parser.add_argument("--no-db", action="store_true",
                        help="run the game server without its database only (no persistence cost)")
    parser.add_argument("--rounds", type=int, default=1, metavar="N",
                        help="run each server N times, interleaved, and report medians (default 1)")
    args = parser.parse_args(argv)

    procs = args.procs or max(1, min(4, args.rooms // 60))
    kinds = ([] if args.no_db else ["server"]) + ["server --no-db"]
    kinds += [] if args.no_baseline else ["baseline"]
    runs: dict[str, list[dict[str, Any]]] = {kind: [] for kind in kinds}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            # Interleaved: each round runs every server once, every other round in the
            # reverse order, so that no server always runs first (or last) in a round.
            for kind in kinds if r % 2 == 0 else kinds[::-1]:
                db = f"{tmp}/bench{r}.db" if kind == "server" else None
                runs[kind].append(run_one(kind.split()[0], args.rooms, args.think, args.warmup,
                                          args.duration, procs, db))
    rows = {kind: _median(results) for kind, results in runs.items()}
    print(f"rooms={args.rooms} clients={4 * args.rooms} think={args.think:g} ms "
          f"window={args.duration:g} s generator processes={procs} rounds={args.rounds}")
    keys = ["clients", "actions_per_s", "cpu_us_per_action", "loop_thread_us",
            "other_threads_us", "server_cpu_share", "p50_ms",
            "p99_ms", "rss_per_client_kib", "rss_end_per_client_kib", "dropped", "refused", "generator_cpu_share",
            "generator_busiest", "generator_lag_p50_ms", "generator_lag_p99_ms"]
    print(f"{'':<22}" + "".join(f"{name:>16}" for name in rows))
    for key in keys:
        print(f"{key:<22}" + "".join(f"{row[key]:>16.1f}" if isinstance(row[key], float)
                                     else f"{row[key]:>16}" for row in rows.values()))
    server = rows.get("server", rows["server --no-db"])
    if "baseline" in rows:
        b = rows["baseline"]
        print(f"ratio cpu/action server/baseline: {_ratio(server, b, 'cpu_us_per_action')}"
              f"  (target <= 2 at 100 clients)")
        print(f"ratio p99 server/baseline:        {_ratio(server, b, 'p99_ms')}"
              f"  (target <= 1.5 at 1000 clients, 100 ms think)")
    if "server" in rows:
        print(f"ratio cpu/action database/--no-db: "
              f"{_ratio(rows['server'], rows['server --no-db'], 'cpu_us_per_action', change=True)}"
              f"  (target <= 1.15 at 100 clients)")
    print(f"server rss per client: {server['rss_per_client_kib']:.1f} KiB after the warm-up, "
          f"{server['rss_end_per_client_kib']:.1f} after the window (target <= 25)")
    return 0


def _ratio(a: dict[str, Any], b: dict[str, Any], key: str, change: bool = False) -> str:
    """``a``'s figure over ``b``'s; in a run too short for the CPU clock's ticks, say so."""
    if not b[key] > 0:
        return "n/a (nothing measured: run longer)"
    ratio = a[key] / b[key]
    return f"{ratio:.2f} ({(ratio - 1) * 100:+.0f}%)" if change else f"{ratio:.2f}"


def _median(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Each figure's median over the rounds (the first round's for whole numbers)."""
    return {key: statistics.median(r[key] for r in results) if isinstance(value, float) else value
            for key, value in results[0].items()}


if __name__ == "__main__":
    sys.exit(main())
