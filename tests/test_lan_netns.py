"""Multicast DNS for real: two network namespaces joined by a veth pair.

``uno host --host 0.0.0.0`` runs in one namespace; from the other, ``uno join --list``
finds it and tests/lan_peer.py finds it through the start screen's code, joins it, opens
a room, sees the announcement's counts follow, and sees the announcement withdrawn when
the host gets SIGINT. Two more servers run beside it, listed by neither namespace: one
on 127.0.0.1 (the default; it says it is not announced, since no LAN player could reach
it) and one on the LAN started with --no-announce. A third namespace with no network at
all shows that ``uno join --list`` says "no games found; give an address" there at once
instead of hanging.

Creating namespaces needs root (CI runs as root); elsewhere the test is skipped with the
reason. Every wait is bounded; the namespaces and every process in them are removed even
when the test fails. The addresses are from TEST-NET-2 (198.51.100.0/24), which exists
only on that veth pair.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import trio

IP = shutil.which("ip")
PEER = Path(__file__).resolve().with_name("lan_peer.py")
UNO = [sys.executable, "-m", "unolan.cli"]
HOST_ADDRESS, PEER_ADDRESS = "198.51.100.1", "198.51.100.2"
NAME, PRIVATE = "netns game", "private table"
SECONDS = 45  # the whole test, at most (it takes about 6 s)


def ip(*args: str) -> subprocess.CompletedProcess[str]:
    assert IP is not None
    return subprocess.run([IP, *args], capture_output=True, text=True, timeout=10, check=False)


def checked(*args: str) -> None:
    done = ip(*args)
    if done.returncode:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


@pytest.fixture
def namespaces() -> Iterator[tuple[str, str, str]]:
    """Three namespaces: a host and a peer joined by a veth pair, and one without a network."""
    if IP is None:
        pytest.skip("iproute2's `ip` is not installed: no network namespaces to test in")
    if os.geteuid() != 0:
        pytest.skip("creating network namespaces (ip netns) needs root; CI runs as root")
    tag = f"ul{os.getpid() % 100000}"
    host, peer, bare = f"{tag}-host", f"{tag}-peer", f"{tag}-bare"
    made: list[str] = []
    try:
        for name in (host, peer, bare):
            done = ip("netns", "add", name)
            if done.returncode:
                pytest.skip(f"cannot create a network namespace here: {done.stderr.strip()}")
            made.append(name)
        checked("link", "add", f"{tag}h", "type", "veth", "peer", "name", f"{tag}p")
        for name, end, address in ((host, f"{tag}h", HOST_ADDRESS), (peer, f"{tag}p", PEER_ADDRESS)):
            checked("link", "set", end, "netns", name)
            checked("-n", name, "addr", "add", f"{address}/24", "dev", end)
            checked("-n", name, "link", "set", end, "up")
            checked("-n", name, "link", "set", "lo", "up")
        yield host, peer, bare
    finally:
        for name in made:
            pids = ip("netns", "pids", name).stdout.split()
            for pid in pids:  # our processes, should a failure have left one
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)
            ip("netns", "del", name)  # takes its end of the veth pair, and so the pair, along


class Lines:
    """A child's output, read line by line with a deadline."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream, self.buffer, self.seen = stream, b"", []

    async def until(self, text: str, seconds: float) -> str:
        with trio.fail_after(seconds):
            while True:
                line, newline, rest = self.buffer.partition(b"\n")
                if newline:
                    self.buffer = rest
                    self.seen.append(line.decode())
                    if text in self.seen[-1]:
                        return self.seen[-1]
                    continue
                data = await self.stream.receive_some()
                if not data:
                    raise AssertionError(f"ended before {text!r}: {self.seen}")
                self.buffer += data


async def in_namespace(name: str, *command: str, seconds: float = 15) -> subprocess.CompletedProcess[bytes]:
    with trio.fail_after(seconds):
        return await trio.run_process(["ip", "netns", "exec", name, *command],
                                      capture_stdout=True, capture_stderr=True, check=False)


@pytest.mark.slow
async def test_a_host_in_one_namespace_is_found_joined_and_withdrawn_from_another(
        namespaces: tuple[str, str, str]) -> None:
    host_ns, peer_ns, bare_ns = namespaces
    processes: list[trio.Process] = []

    async def start(namespace: str, *command: str, output: str) -> Lines:
        process = await trio.lowlevel.open_process(
            ["ip", "netns", "exec", namespace, *command], **{output: subprocess.PIPE})
        processes.append(process)
        return Lines(getattr(process, output))

    listed: dict[str, subprocess.CompletedProcess[bytes]] = {}

    async def list_in(namespace: str, seconds: str = "4") -> None:
        listed[namespace] = await in_namespace(namespace, *UNO, "join", "--list", "--wait",
                                               seconds)

    with trio.fail_after(SECONDS):
        try:
            log = await start(host_ns, *UNO, "host", "--host", "0.0.0.0", "--no-db",
                              "--name", NAME, output="stderr")
            private_log = await start(host_ns, *UNO, "host", "--port", "7118", "--no-db",
                                      "--name", PRIVATE, output="stderr")
            quiet_log = await start(host_ns, *UNO, "host", "--host", "0.0.0.0", "--port", "7119",
                                    "--no-db", "--no-announce", "--name", "quiet", output="stderr")
            # The peer browses from before the host is announced: it appears live.
            steps = await start(peer_ns, sys.executable, str(PEER), NAME, output="stdout")
            host, private, quiet, peer = processes
            async with trio.open_nursery() as nursery:
                nursery.start_soon(list_in, bare_ns, "5")  # no network at all
                line = await log.until("announced on", 15)
                assert f"the LAN ({HOST_ADDRESS})" in line and repr(NAME) in line
                line = await private_log.until("announced", 15)
                assert "not announced on the LAN: it listens on 127.0.0.1, this machine only" in line
                await quiet_log.until("uno server on 0.0.0.0:7119", 15)
                nursery.start_soon(list_in, peer_ns)
                nursery.start_soon(list_in, host_ns)  # the loopback server is not in it either
            bare = listed[bare_ns]
            assert (bare.returncode, bare.stdout) == (1, b"")
            assert b"no games found; give an address: uno join HOST[:PORT]" in bare.stderr
            assert b"Traceback" not in bare.stderr
            lan = rf"{re.escape(HOST_ADDRESS)}:7117\t{NAME}\t\d+\t\d+\n"
            for namespace in (peer_ns, host_ns):
                assert listed[namespace].returncode == 0, listed[namespace].stderr
                assert re.fullmatch(lan, listed[namespace].stdout.decode())

            found = await steps.until("found", 15)
            assert found == f"found {HOST_ADDRESS}:7117 rooms=0 players=0"
            joined = await steps.until("joined", 10)
            assert joined.startswith(f"joined {HOST_ADDRESS}:7117 r")
            await steps.until("updated rooms=1 players=1", 10)
            await steps.until("ready", 5)
            host.send_signal(signal.SIGINT)  # Ctrl-C
            await steps.until("withdrawn", 10)
            assert await peer.wait() == 0
            assert await host.wait() == 0
            await log.until("LAN announcement withdrawn", 5)
            for other, other_log in ((private, private_log), (quiet, quiet_log)):
                other.send_signal(signal.SIGTERM)
                assert await other.wait() == 0
                await other_log.until("server stopped", 5)
            assert not any("announce" in line for line in quiet_log.seen)
        finally:
            for process in processes:
                process.kill()
