"""Ordinary mistakes at the command line: one line that says what went wrong and what to
do, a non-zero exit status, never a traceback. Each runs the real ``uno`` command in a
subprocess, as a person would."""

from __future__ import annotations

import errno
import fcntl
import os
import pty
import socket
import struct
import subprocess
import sys
import termios
import threading
from functools import partial

import trio
from unolan.engine import COMPILED
from unolan.server.app import serve

from unolan import __version__

UNO = [sys.executable, "-m", "unolan"]


def uno(*args: str, prelude: str = "", timeout: float = 30, **kw: object) -> subprocess.CompletedProcess[str]:
    """Run ``uno ARGS`` (``prelude``: Python run first in the same process)."""
    command = UNO + list(args)
    if prelude:
        command = [sys.executable, "-c",
                   f"{prelude}\nfrom unolan.cli import main\nraise SystemExit(main({list(args)!r}))"]
    if "input" not in kw:
        kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,  # type: ignore[call-overload]
                          check=False, **kw)


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The command failed with a single line of explanation: that line."""
    output = done.stdout + done.stderr
    assert "Traceback" not in output, output
    lines = [line for line in output.splitlines() if line.strip()]
    assert done.returncode != 0, output
    assert len(lines) == 1, output
    return lines[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


MISTAKES: list[tuple[list[str], str]] = [
    (["arena", "--rules", "house teams=3", "--games", "2"],
     "4 players cannot sit as 3 teams of two or more"),
    (["arena", "--rules", "house partner_rotation=on", "--players", "3", "--games", "2"],
     "partner rotation is played by 4 players at one table or 8 at two, not 3"),
    (["arena", "--games", "0"], "--games takes 1 or more"),
    (["play", "--rules", "house teams=3"], "4 players cannot sit as 3 teams"),
    (["play", "--rules", "house partner_rotation=on", "--bots", "2"],
     "partner rotation is played by 4 players at one table or 8 at two, not 3"),
    (["bot", "--rules", "house teams=3", "--count", "4"], "4 players cannot sit as 3 teams"),
    (["bot", "--rules", "house bogus=1", "--count", "2"], "unknown option 'bogus'"),
    (["bot", "--seats", "1"], "a room has 2 to 10 seats"),
    (["bot", "127.0.0.1:99999"], "expected HOST[:PORT] (a port is a number from 1 to 65535)"),
    (["join", "127.0.0.1:0"], "expected HOST[:PORT], got '127.0.0.1:0' (a port is a number from 1 to 65535)"),
    (["arena", "--jobs", "-1"], "--jobs takes 0 (one process per CPU) or more"),
    (["arena", "--target", "0"], "--target takes a score of 1 or more"),
    (["join", "nosuch.invalid"], "unknown host 'nosuch.invalid'"),
    (["bot", "--count", "3", "--seats", "2"], "3 bots do not fit in 2 seats"),
    (["play"], "or add --plain for lines on stdin and stdout"),
    (["join"], "needs a terminal"),
]


def test_each_mistake_is_one_line() -> None:
    """Every command of the list at once (each is its own process), then each checked."""
    running = [(args, expected, subprocess.Popen(
        UNO + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)) for args, expected in MISTAKES]
    for args, expected, process in running:
        out, err = process.communicate(timeout=30)
        line = one_line(subprocess.CompletedProcess(args, process.returncode, out, err))
        assert expected in line and line.startswith(f"uno {args[0]}: "), (args, line)


def test_uno_bot_with_no_server_says_nothing_listens() -> None:
    port = free_port()
    line = one_line(uno("bot", f"127.0.0.1:{port}", "--room", "k3f9"))
    assert line == (f"uno bot: nothing is listening on 127.0.0.1:{port} (connection refused): "
                    "is the server (uno host) running there, on that port?")


def test_uno_join_plain_that_never_reaches_its_server_fails() -> None:
    """It says why as it tries; a session that never connected ends with status 1 (the
    input ended at once here), and a choice typed meanwhile is told there is no table."""
    port = free_port()
    done = uno("join", f"127.0.0.1:{port}", "--plain", "--name", "x", input="3\n")
    output = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in output, output
    assert f"nothing is listening on 127.0.0.1:{port}" in output
    assert "not connected yet" in output and "wait for your turn" not in output


async def test_uno_bot_with_a_room_that_does_not_exist() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0))
        done = await trio.to_thread.run_sync(partial(uno, "bot", f"127.0.0.1:{port}", "--room", "k3f9"))
        nursery.cancel_scope.cancel()
    line = one_line(done)
    assert line.startswith(f"uno bot: there is no room 'k3f9' on 127.0.0.1:{port}")
    assert "uno join" in line


async def test_uno_bot_at_a_server_that_never_answers() -> None:
    """It accepts the connection and says nothing: the handshake times out (shortened
    here) with the reason."""
    held: list[trio.SocketStream] = []

    async def silent(stream: trio.SocketStream) -> None:
        held.append(stream)
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(partial(trio.serve_tcp, silent, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        done = await trio.to_thread.run_sync(partial(
            uno, "bot", f"127.0.0.1:{port}", "--room", "k3f9",
            prelude="import unolan.client.session as s; s.CONNECT_TIMEOUT = 0.3"))
        nursery.cancel_scope.cancel()
    assert held  # it did connect
    assert one_line(done) == (f"uno bot: 127.0.0.1:{port} accepted the connection but did not "
                              "answer within 0.3 seconds: is it an unolan server (uno host)?")


def test_uno_play_on_a_port_in_use() -> None:
    """In a terminal (a pseudo-terminal here): the UI starts, the local server cannot, and
    the terminal is back with one line saying why."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        screen: list[bytes] = []

        def drain() -> None:  # the UI's output must be read, or it blocks
            while True:
                try:
                    data = os.read(master, 65536)
                except OSError as exc:
                    assert exc.errno == errno.EIO  # the other side closed
                    return
                if not data:
                    return
                screen.append(data)

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            done = subprocess.run([*UNO, "play", "--port", str(port)], stdin=slave, stdout=slave,
                                  stderr=subprocess.PIPE, text=True, timeout=30, check=False,
                                  env={**os.environ, "TERM": "xterm-256color"})
        finally:
            os.close(slave)
            reader.join(5)
            os.close(master)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "Traceback" not in b"".join(screen).decode(errors="replace")
    assert done.stderr.strip() == (f"uno play: port {port} is already in use, so the local server "
                                   "cannot start: choose another --port, or leave it out to use "
                                   "any free port")


def test_a_closed_output_pipe_ends_quietly() -> None:
    """``uno rules --options | head``: the reader goes away; no traceback, no complaint,
    the status a shell gives a command ended by SIGPIPE."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        done = subprocess.run([*UNO, "rules", "--options"], stdout=write, stderr=subprocess.PIPE,
                              text=True, timeout=30, check=False)
    finally:
        os.close(write)
    assert done.returncode == 141 and done.stderr == ""


# -- the commands' own promises --------------------------------------------------------


def test_python_dash_m_unolan_and_version() -> None:
    done = uno("--version")
    engine = "compiled" if COMPILED else "pure Python"  # says which engine runs
    assert done.returncode == 0 and done.stdout.strip() == f"unolan {__version__} ({engine} engine)"


def test_uno_host_help_says_how_players_connect() -> None:
    done = uno("host", "--help")
    assert done.returncode == 0 and "uno join" in done.stdout


def test_uno_rules_options_writes_on_and_off_as_the_docs_do() -> None:
    done = uno("rules", "--options")
    assert done.returncode == 0
    jump_in = next(line for line in done.stdout.splitlines() if line.split()[:1] == ["jump_in"])
    assert "default on " in jump_in
    assert "True" not in done.stdout and "False" not in done.stdout
