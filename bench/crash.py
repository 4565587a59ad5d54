"""Kill a real ``uno host`` with SIGKILL while four players play, again and again, and
check that nothing acknowledged was lost and nobody's table ever left the durable game.

The server runs as its own process on a database file. Four players (the client
library's ``Client``, which resumes on its own after a dropped connection) play one long
match: each acts whenever its table is settled and it has something to do, and keeps
every action the server acknowledged (an ``ok``) and every table it held (its seq and
its view). The server is killed at a random moment or right after an ``ok``, alternately,
then started again on the same file; the players resume with their tokens.

After the last kill the database is opened as a restarting server opens it (the store
moves the log's tail in) and the match replayed from its seed:

- every acknowledged action is in the stored log, in its player's order (0 lost);
- every table a player held, resumed tables included, equals ``view(seat)`` of the
  stored game after the actions stored up to that seq (so no seq ever meant two things
  and no client saw anything that a crash took back); at two tables (``--players 8``),
  or after the action whose events it was in the middle of, since one action's events
  may span both tables and a seat's own table is whole before the batch ends.

    python bench/crash.py                 # 25 kills
    python bench/crash.py --kills 100 --seed 3
    python bench/crash.py --players 8     # a two-table room (partner rotation)

The test suite runs a short version (tests/test_crash.py).
"""

from __future__ import annotations

import argparse
import bisect
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from unolan.client.session import ClientError, ConnectionLost, Reconnected, open_client
from unolan.client.tables import Tables
from unolan.server.match import play
from unolan.server.policy import choose
from unolan.server.store import RoomRecord, Store

from unolan import engine as en
from unolan import protocol as pr

_TURN_PHASES = ("play", "drawn", "color")


@dataclass
class Report:
    kills: int = 0
    after_ok: int = 0  # kills right after an ok reached a player
    acked: int = 0  # actions acknowledged to the players
    lost: int = 0  # acknowledged actions missing from the stored game
    stored: int = 0  # actions in the stored game at the end
    tables: int = 0  # tables the players held, each checked against the stored game
    resumes: int = 0  # resumed tables among them (the first table after each resume)
    wrong: list[str] = field(default_factory=list)  # tables that differ (should be none)
    tracebacks: int = 0  # tracebacks in the server's log (should be none)
    seconds: float = 0.0

    def lines(self) -> list[str]:
        return [
            f"kills survived:        {self.kills} ({self.after_ok} right after an ok)",
            f"actions acknowledged:  {self.acked}; lost: {self.lost}",
            f"actions stored:        {self.stored}",
            f"tables checked:        {self.tables} ({self.resumes} just resumed); "
            f"differing: {len(self.wrong)}",
            f"server tracebacks:     {self.tracebacks}",
            f"time:                  {self.seconds:.1f} s",
        ]


class ServerProcess:
    """``uno host`` in a process of its own, on a fixed port and a database file."""

    def __init__(self, port: int, db: Path) -> None:
        self.port = port
        self.db = db
        self.proc: subprocess.Popen[str] | None = None
        self.log: list[str] = []

    async def start(self, timeout: float = 20.0) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "unolan.cli", "host", "--port", str(self.port),
             "--db", str(self.db)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        listening = threading.Event()
        threading.Thread(target=self._read_log, args=(self.proc, listening), daemon=True).start()
        with trio.fail_after(timeout):
            while not listening.is_set():
                if self.proc.poll() is not None:
                    raise RuntimeError("the server did not start:\n" + "".join(self.log[-20:]))
                await trio.sleep(0.02)

    def _read_log(self, proc: subprocess.Popen[str], listening: threading.Event) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            self.log.append(line)
            if "listening on" in line:
                listening.set()

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class Player:
    """One seat, played by the client library; keeps its acknowledged actions and every
    table it held."""

    def __init__(self, index: int, acks: trio.MemorySendChannel[int], players: int = 4) -> None:
        self.index = index
        self.players = players  # 8: a two-table room
        self.acks = acks
        self.seat: int | None = None
        self.acked: list[str] = []
        self.tables: list[tuple[int, dict[str, Any]]] = []
        self.resumed: list[int] = []  # indexes into tables: the first table after a resume
        self.reconnects = 0
        self.client: Any = None
        self.ready = trio.Event()

    async def run(self, port: int, room: list[str]) -> None:
        async with open_client("127.0.0.1", port, f"p{self.index}") as client:
            self.client = client
            if self.index == 0:
                options = {"partner_rotation": True} if self.players == 8 else {"target_score": 100_000}
                joined = await client.create_room("crash", preset="house", seats=self.players,
                                                  options=options)
                room.append(joined.room)
            else:
                while not room:
                    await trio.sleep(0.01)
                joined = await client.join(room[0])
                await client.ready()
            self.seat = joined.seat
            self.ready.set()
            acted = -1
            back = ""  # "reconnected", then "snapshot": the resume's table is the next one
            async for msg in client.messages():
                if isinstance(msg, Reconnected):
                    self.reconnects += 1
                    back = "reconnected"
                elif back and isinstance(msg, pr.Snapshot):
                    back = "snapshot"
                view = client.view()
                if view is None:
                    continue
                if back == "snapshot":
                    self.resumed.append(len(self.tables))
                    self.tables.append((client.seq, view.to_dict()))
                    back = ""
                elif not self.tables or self.tables[-1][0] != client.seq:
                    self.tables.append((client.seq, view.to_dict()))
                mine = view.turn == view.seat and view.phase in _TURN_PHASES
                actions = view.legal_actions()
                action = choose(actions, [en.Card.parse(c) for c in view.hand], turn=mine)
                if action is None or acted == client.seq:
                    continue
                acted = client.seq
                try:
                    await client.act(action)
                except (ClientError, ConnectionLost, pr.ProtocolError, trio.BrokenResourceError):
                    continue  # refused (a lost race), or the server died before answering
                if isinstance(client.mirror, Tables):  # decided at its table, stored in room seats
                    action = client.mirror.to_global(action)
                self.acked.append(str(action))
                self.acks.send_nowait(self.index)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def run(kills: int, seed: int, workdir: Path, budget: float = 600.0, players: int = 4) -> Report:
    """Play, kill ``kills`` times, check; ``budget`` bounds the whole run (seconds);
    ``players``: 4 at one table, or 8 at the two tables of a partner rotation."""
    rng = random.Random(seed)
    report = Report()
    began = time.monotonic()
    db = workdir / "crash.db"
    server = ServerProcess(_free_port(), db)
    await server.start()
    send_acks, acks = trio.open_memory_channel[int](10_000)
    seated = [Player(i, send_acks, players) for i in range(players)]
    room: list[str] = []
    logs: list[str] = []
    with trio.fail_after(budget):
        async with trio.open_nursery() as nursery:
            for player in seated:
                nursery.start_soon(player.run, server.port, room)
            for player in seated:
                await player.ready.wait()
            while True:  # the host starts once every ready has arrived
                try:
                    await seated[0].client.start()
                    break
                except ClientError:
                    await trio.sleep(0.05)
            await _wait_for_acks(acks, 10)
            for k in range(kills):
                if k % 2:
                    while True:  # drain, then the next ok: kill at once
                        try:
                            acks.receive_nowait()
                        except trio.WouldBlock:
                            break
                    await acks.receive()
                    report.after_ok += 1
                else:
                    await trio.sleep(rng.uniform(0.05, 1.0))
                server.kill()
                report.kills += 1
                logs += server.log
                server = ServerProcess(server.port, db)
                await server.start()
                for player in seated:  # everyone back at the table before the next kill
                    while player.reconnects < k + 1:
                        await trio.sleep(0.01)
                await _wait_for_acks(acks, players)
            server.kill()
            logs += server.log
            nursery.cancel_scope.cancel()
    report.tracebacks = sum("Traceback" in line for line in logs)
    _check(await _stored(db, room[0]), seated, report)
    report.seconds = time.monotonic() - began
    return report


async def _wait_for_acks(acks: trio.MemoryReceiveChannel[int], n: int) -> None:
    for _ in range(n):
        await acks.receive()


async def _stored(db: Path, room: str) -> RoomRecord:
    """The room as a restarting server reads it."""
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        (record,) = [r for r in (await store.load()).rooms if r.id == room]
        nursery.cancel_scope.cancel()
    return record


def _check(record: RoomRecord, players: list[Player], report: Report) -> None:
    """Replay the stored match; every player's acknowledged actions and tables against it."""
    match_rules, seats = en.Rules.from_dict(record.rules), record.seats
    stored = list(zip(record.actions, record.action_seqs, strict=True))
    game: en.Game | en.TwoTableRotation
    if en.two_tables(match_rules, seats):
        game = en.TwoTableRotation(match_rules, seed=record.match_seed)
    else:
        game = en.Game(match_rules, seats, seed=record.match_seed)
    views = [[game.view(s).to_dict() for s in range(seats)]]
    for text, _ in stored:
        action = en.parse_action(text)
        if isinstance(game, en.TwoTableRotation):
            play(game, action)  # a deal there: the rotation's next round
        else:
            game.apply(action)
        views.append([game.view(s).to_dict() for s in range(seats)])
    seqs = [seq for _, seq in stored]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs), "stored seqs go up"
    report.stored = len(stored)
    for player in players:
        assert player.seat is not None
        mine = [text for text, _ in stored if int(text.split()[0]) == player.seat]
        report.acked += len(player.acked)
        at = 0
        for text in player.acked:  # a subsequence of the stored log, in order
            while at < len(mine) and mine[at] != text:
                at += 1
            if at == len(mine):
                report.lost += 1
            else:
                at += 1
        for i, (seq, view) in enumerate(player.tables):
            n = bisect.bisect_right(seqs, seq)  # the actions whose events it had seen
            report.tables += 1
            report.resumes += i in player.resumed
            # At two tables one action's events may span both (a deal, a round's totals
            # after its last card): a seat's own table is whole before the batch ends.
            within = isinstance(game, en.TwoTableRotation) and n < len(stored) \
                and views[n + 1][player.seat] == view
            if views[n][player.seat] != view and not within:
                report.wrong.append(f"seat {player.seat} at seq {seq} (after {n} actions)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kills", type=int, default=25, help="kills (default 25)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill moments")
    parser.add_argument("--players", type=int, choices=(4, 8), default=4,
                        help="4 at one table (default), or 8 at two tables (partner rotation)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        report = trio.run(run, args.kills, args.seed, Path(tmp), 600.0, args.players)
    print("\n".join(report.lines()))
    for line in report.wrong[:10]:
        print("  differs:", line)
    return 0 if not report.lost and not report.wrong and not report.tracebacks else 1


if __name__ == "__main__":
    sys.exit(main())
