"""End to end in a real terminal: ``uno play`` inside tmux, driven by keys, read by eye.

Starts ``uno play --seed`` in an 80x24 tmux pane, waits for the table, plays a card with
number keys and Enter, watches the bots answer, then quits with Ctrl-C and checks the
terminal came back (the alternate screen left, the shell running again). It prints two
timings: from the command to the first table on screen, and from the Enter key to the
play shown on screen. The waiting is on the pane's output (tmux copies it into a pipe
that the test waits on) and is bounded by DEADLINE: the screen is read again each time
the program writes, never on a timer.

The other tests check what a person sees at the edges: ``kill`` or a hang-up restores the
terminal, rules from the command line are on screen, a pasted escape sequence does no harm.
"""

from __future__ import annotations

import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from prompt_toolkit.utils import get_cwidth
from test_tui import hand_of

TMUX = shutil.which("tmux")
pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed: no real terminal to test in"),
              pytest.mark.slow]
DEADLINE = 20.0  # seconds, for the whole test
TABLE_UP = r"▲\d|Hand \d\["  # the hand's number keys: the table is on screen
UNO = Path(sys.executable).with_name("uno")


# Each pane gets a tmux server of its own (-L): a shared default server may be exiting,
# its last session closed by another test, just when a new session asks it for one.
def tmux(socket: str, *args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, "-L", socket, *args], capture_output=True, text=True, check=False)
    return done.stdout


class Pane:
    def __init__(self, command: str) -> None:
        self.name = f"unolan-e2e-{uuid.uuid4().hex[:8]}"
        self.end = time.monotonic() + DEADLINE
        env = {**os.environ, "TERM": "xterm-256color"}
        subprocess.run([TMUX, "-L", self.name, "new-session", "-d", "-s", self.name, "-x", "80",
                        "-y", "24", command], check=True, env=env)
        # Everything the program writes, copied by tmux into a pipe: what the test waits on.
        # Held open for writing too, so that it never reads as ended while nothing writes.
        self.folder = tempfile.mkdtemp(prefix="unolan-e2e-")
        fifo = os.path.join(self.folder, "output")
        os.mkfifo(fifo)
        self.output = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
        tmux(self.name, "pipe-pane", "-t", self.name, f"cat >> {shlex.quote(fifo)}")

    def screen(self) -> str:
        return tmux(self.name, "capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        tmux(self.name, "send-keys", "-t", self.name, *keys)

    def wait_for(self, pattern: str, within: float | None = None) -> str:
        """Read the pane each time its program writes, until ``pattern`` (a regex) shows;
        fail at the deadline (or, given ``within`` seconds, give up after them and return
        "")."""
        regex = re.compile(pattern)
        give_up = time.monotonic() + within if within is not None else self.end
        while True:
            self._drain()  # before the screen is read: what comes after it wakes the wait
            screen = self.screen()
            if regex.search(screen):
                return screen
            left = min(give_up, self.end) - time.monotonic()
            if left <= 0:
                if within is not None and time.monotonic() <= self.end:
                    return ""
                raise AssertionError(f"{pattern!r} never appeared; the screen was:\n{screen}")
            select.select([self.output], [], [], left)

    def _drain(self) -> None:
        try:
            while os.read(self.output, 65536):
                pass
        except BlockingIOError:
            pass

    def show(self, variable: str) -> str:
        """A tmux format variable of the pane (``alternate_on``, ``pane_pid``…)."""
        return tmux(self.name, "display-message", "-p", "-t", self.name, f"#{{{variable}}}").strip()

    def alternate_screen(self) -> bool:
        return self.show("alternate_on") == "1"

    def close(self) -> None:
        tmux(self.name, "kill-server")
        os.close(self.output)
        shutil.rmtree(self.folder, ignore_errors=True)


def uno_command() -> str:
    if UNO.exists():
        return str(UNO)
    return f"{sys.executable} -m unolan.cli"


def test_uno_play_in_a_real_terminal() -> None:
    shell = (f"{uno_command()} play --lang en --seed 7 --bots 3 --name ann;"
             " echo UNO-EXIT-$?; exec sleep 30")
    started = time.monotonic()
    pane = Pane(shell)
    try:
        screen = pane.wait_for(TABLE_UP)
        first_table = time.monotonic() - started
        assert pane.alternate_screen()
        assert "0 ann (you)" in screen and "bot-1" in screen
        hand = hand_of(screen)
        assert len(hand) == 7, screen

        # On our turn, try the cards in order until one is accepted (draw if none is).
        played_at = None
        latency = None
        while played_at is None:
            screen = pane.wait_for(r"Your turn|You drew")
            if "You drew [" in screen:
                sent = time.monotonic()
                pane.keys("Enter")
                played_at = pane.wait_for(r"you played \[")
                latency = time.monotonic() - sent
                break
            hand = hand_of(screen)
            for number, card in enumerate(hand[:9], start=1):
                pane.keys(str(number))
                if not pane.wait_for(rf"\[{card}\] .* · Enter play", within=3):
                    # The key came before our turn (the screen still showed the last
                    # one): the turn, when it came, put the cursor on a playable card.
                    break
                sent = time.monotonic()
                pane.keys("Enter")
                screen = pane.wait_for(rf"you played \[|\[{card}\] does not match|Choose a color"
                                       r"|not your turn")
                if "not your turn" in screen:
                    break  # a bot jumped in meanwhile: wait for our turn again
                if "Choose a color" in screen:
                    pane.keys("r")
                    screen = pane.wait_for(r"you played \[")
                if "you played [" in screen:
                    latency = time.monotonic() - sent
                    played_at = screen
                    break
            else:
                pane.keys("d")  # a bot may have jumped in meanwhile: then our turn comes again
                pane.wait_for(r"You drew|you drew", within=3)
        assert played_at is not None, "no card in the hand could be played"
        # The bots answer: some bot acts after our play.
        pane.wait_for(r"you played \[[^\n]*\n(.*\n)*.*bot-\d (played|drew|JUMPED|called)")

        print(f"\nuno play -> first table on screen: {first_table * 1000:.0f} ms")
        print(f"Enter -> play shown on screen: {latency * 1000:.1f} ms")

        pane.keys("C-c")
        screen = pane.wait_for(r"UNO-EXIT-\d+")
        assert "UNO-EXIT-0" in screen
        assert not pane.alternate_screen()
        assert "Traceback" not in screen
    finally:
        pane.close()


# Runs a command and prints how it ended: its exit status, or minus the signal that killed it.
WRAPPER = """\
import subprocess, sys
child = subprocess.Popen(sys.argv[2:])
open(sys.argv[1], "w").write(str(child.pid))
print("UNO-EXIT", child.wait())
"""


@pytest.mark.parametrize(("signum", "name"), [(signal.SIGTERM, "kill"), (signal.SIGHUP, "hang-up")])
def test_kill_or_a_closed_terminal_restores_the_terminal(signum: int, name: str, tmp_path: Path) -> None:
    """``kill PID`` (SIGTERM) and a hang-up (SIGHUP, sent here while the terminal is still
    there to look at) end the UI as Ctrl-C does: uno exits by itself with 128 + the signal
    (not killed by it), the terminal has left the alternate screen and shows the cursor."""
    wrapper, pid_file = tmp_path / "wrapper.py", tmp_path / "pid"
    wrapper.write_text(WRAPPER)
    pane = Pane(f"{sys.executable} {wrapper} {pid_file} {uno_command()} play --lang en --seed 3 --bots 1"
                " --name ann; exec sleep 30")
    try:
        pane.wait_for(TABLE_UP)
        assert pane.alternate_screen()
        os.kill(int(pid_file.read_text()), signum)
        screen = pane.wait_for(r"UNO-EXIT -?\d+")
        assert f"UNO-EXIT {128 + signum}" in screen and "Traceback" not in screen
        assert not pane.alternate_screen() and pane.show("cursor_flag") == "1"
    finally:
        pane.close()


def test_teams_from_the_command_line_and_the_rules_on_screen() -> None:
    pane = Pane(f"{uno_command()} play --lang en --seed 5 --bots 3 --name ann --rules 'house teams=2';"
                " echo UNO-EXIT-$?; exec sleep 30")
    try:
        screen = pane.wait_for(TABLE_UP)
        assert "Rules: house teams=2" in screen
        assert re.search(r"0 ann \(you\) · .* · T1 partner: bot-2", screen)  # the team marked
        pane.keys("C-c")
        assert "UNO-EXIT-0" in pane.wait_for(r"UNO-EXIT-\d+")
    finally:
        pane.close()


def test_a_pasted_escape_sequence_in_the_chat_does_no_harm(tmp_path: Path) -> None:
    """Pasted into a real terminal without bracketed paste, ESC [ 3 1 m looks like a mouse
    report to prompt_toolkit's parser (it crashed the UI); bracketed, it is text with a
    control character in it. Both times the line is cleaned and sent."""
    paste = tmp_path / "paste"
    paste.write_bytes(b"hi \x1b[31mred")
    pane = Pane(f"{uno_command()} play --lang en --seed 3 --bots 1 --name ann; echo UNO-EXIT-$?; exec sleep 30")
    try:
        pane.wait_for(TABLE_UP)
        tmux(pane.name, "load-buffer", "-b", pane.name, str(paste))
        for bracketed in ([], ["-p"]):
            pane.keys("t")
            pane.wait_for(r"chat>")
            tmux(pane.name, "paste-buffer", *bracketed, "-b", pane.name, "-t", pane.name)
            pane.keys("Enter")
        screen = pane.wait_for(r"ann: hi[^\n]*\n(.*\n)*.*ann: hi red")
        assert "Unhandled exception" not in screen and "Traceback" not in screen
        pane.keys("C-c")
        assert "UNO-EXIT-0" in pane.wait_for(r"UNO-EXIT-\d+")
    finally:
        tmux(pane.name, "delete-buffer", "-b", pane.name)
        pane.close()


def cell_columns(line: str, char: str) -> list[int]:
    """The terminal cells where ``char`` stands in ``line`` (a CJK character takes two)."""
    out, x = [], 0
    for c in line:
        if c == char:
            out.append(x)
        x += get_cwidth(c)
    return out


def table_columns(screen: str) -> tuple[set[int], dict[str, int]]:
    """Where the table's pane ends (its border │, the last on each of its rows) and the
    cell where each bot's name starts on its tile (a card flying past may cover one)."""
    rows = screen.splitlines()[1:16]
    border = {cell_columns(row, "│")[-1] for row in rows if "│" in row}
    names = {}
    for line in rows:
        row = line[:line.rindex("│")] if "│" in line else line  # the table's pane, not the log
        x = 0
        for i, c in enumerate(row):
            if re.match(r"bot-\d", row[i:i + 5]):  # whole: a flying card may cover its end
                names[row[i:i + 5]] = x
            x += get_cwidth(c)
    return border, names


def test_a_turn_in_traditional_chinese_keeps_every_column(tmp_path: Path) -> None:
    """``uno play --lang zh-Hant`` at 80x24: the table is in Chinese, a turn is played
    (a card, or a draw), and the pane's border and the seats' names stay in the same
    terminal cells before and after, wide characters and all."""
    pane = Pane(f"{uno_command()} play --seed 7 --bots 3 --name 安 --lang zh-Hant;"
                " echo UNO-EXIT-$?; exec sleep 30")
    try:
        screen = pane.wait_for(TABLE_UP)
        assert "0 安（你）" in screen and "電腦" in screen
        assert re.search(r"│ *(紅色|黃色|綠色|藍色) *│", screen), screen  # the pile's color in words
        before = table_columns(screen)
        assert len(before[0]) == 1 and len(before[1]) == 3, screen
        # The turn: draw (the one action always open), then play the card drawn if it
        # fits, else the turn passes on by itself.
        pane.wait_for(r"(?<!還沒)輪到你：")  # not "還沒輪到你": not yet
        pane.keys("d")
        played = pane.wait_for(r"你摸到 \[|你摸了 \[")
        if "你摸到 [" in played:
            pane.keys("Enter")
            played = pane.wait_for(r"你出了 \[|選顏色")
            if "選顏色" in played:
                pane.keys("r")
                played = pane.wait_for(r"你出了 \[")
        after = table_columns(played)
        assert after[0] == before[0], played
        for name, x in after[1].items():  # a banner may cover a name for a moment
            assert before[1][name] == x, played
        assert "Traceback" not in played
        pane.keys("C-c")
        assert "UNO-EXIT-0" in pane.wait_for(r"UNO-EXIT-\d+")
    finally:
        pane.close()
