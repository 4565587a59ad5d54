"""End to end in a real terminal: ``uno play`` inside tmux, driven by keys, read by eye.

Starts ``uno play --seed`` in an 80x24 tmux pane, waits for the table, plays a card with
number keys and Enter, watches the bots answer, then quits with Ctrl-C and checks the
terminal came back (the alternate screen left, the shell running again). It prints two
timings: from the command to the first table on screen, and from the Enter key to the
play shown on screen. Polling the pane is the only waiting here, bounded by DEADLINE.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = [pytest.mark.skipif(TMUX is None, reason="tmux is not installed: no real terminal to test in"),
              pytest.mark.slow]
DEADLINE = 20.0  # seconds, for the whole test
UNO = Path(sys.executable).with_name("uno")


def tmux(*args: str) -> str:
    assert TMUX is not None
    done = subprocess.run([TMUX, *args], capture_output=True, text=True, check=False)
    return done.stdout


class Pane:
    def __init__(self, command: str) -> None:
        self.name = f"unolan-e2e-{uuid.uuid4().hex[:8]}"
        self.end = time.monotonic() + DEADLINE
        env = {**os.environ, "TERM": "xterm-256color"}
        subprocess.run([TMUX, "new-session", "-d", "-s", self.name, "-x", "80", "-y", "24",
                        command], check=True, env=env)

    def screen(self) -> str:
        return tmux("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        tmux("send-keys", "-t", self.name, *keys)

    def wait_for(self, pattern: str, poll: float = 0.002) -> str:
        """Poll the pane until ``pattern`` (a regex) shows; fail at the deadline."""
        regex = re.compile(pattern)
        while True:
            screen = self.screen()
            if regex.search(screen):
                return screen
            if time.monotonic() > self.end:
                raise AssertionError(f"{pattern!r} never appeared; the screen was:\n{screen}")
            time.sleep(poll)

    def alternate_screen(self) -> bool:
        return tmux("display-message", "-p", "-t", self.name, "#{alternate_on}").strip() == "1"

    def close(self) -> None:
        tmux("kill-session", "-t", self.name)


def uno_command() -> str:
    if UNO.exists():
        return str(UNO)
    return f"{sys.executable} -m unolan.cli"


def test_uno_play_in_a_real_terminal() -> None:
    shell = (f"{uno_command()} play --seed 7 --bots 3 --name ann;"
             " echo UNO-EXIT-$?; exec sleep 30")
    started = time.monotonic()
    pane = Pane(shell)
    try:
        screen = pane.wait_for(r"Hand \d\[")
        first_table = time.monotonic() - started
        assert pane.alternate_screen()
        assert "0 ann (you)" in screen and "bot-1" in screen
        hand = re.findall(r"\d\[(\w+)\]", screen.split(" Hand ", 1)[1].splitlines()[0])
        assert len(hand) == 7

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
            line = screen.split(" Hand ", 1)[1].splitlines()[0]
            hand = re.findall(r"\d\[(\w+)\]", line)
            for number, card in enumerate(hand[:9], start=1):
                pane.keys(str(number))
                pane.wait_for(rf"\[{card}\] .* · Enter play")
                sent = time.monotonic()
                pane.keys("Enter")
                screen = pane.wait_for(rf"you played \[|\[{card}\] does not match|Choose a color")
                if "Choose a color" in screen:
                    pane.keys("r")
                    screen = pane.wait_for(r"you played \[")
                if "you played [" in screen:
                    latency = time.monotonic() - sent
                    played_at = screen
                    break
            else:
                pane.keys("d")
                pane.wait_for(r"You drew|you drew")
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
