"""Benchmark what a player feels in a real terminal: ``uno play`` in tmux.

Two figures, each over several tries (a single one is at the mercy of the machine's
other load): how long ``uno play`` takes from the command to its first table on screen
(``--launches`` launches), and how long a key takes to show its play: on each of our
turns it presses ``d`` and waits until the table's answer shows (the card drawn, or the
turn marker moved on; ``--keys`` presses): the same round trip as any play (the key, the
server, the events, the redraw). The screen is
polled every millisecond. It prints the median and the slowest tenth of each.

Targets: first table under 1.5 s, a key to its play on screen under 50 ms.

``--motion both`` runs each seed twice, with the table's motion and with ``--no-motion``,
one after the other, and prints the key figure of each and their ratio (what the moving
cards cost a key press).

Example::

    python bench/tui.py --launches 5 --keys 30
    python bench/tui.py --launches 4 --keys 40 --motion both
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

UNO = Path(sys.executable).with_name("uno")


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=False).stdout


def wait_for(session: str, pattern: str, timeout: float = 20.0) -> str:
    regex, end = re.compile(pattern), time.monotonic() + timeout
    while True:
        screen = tmux("capture-pane", "-p", "-t", session)
        if regex.search(screen):
            return screen
        if time.monotonic() > end:
            raise SystemExit(f"{pattern!r} never appeared; the screen was:\n{screen}")
        time.sleep(0.001)


def launch(seed: int, extra: str = "") -> tuple[str, float]:
    """Start ``uno play`` in a new 80x24 session: its name and the time to the first table."""
    session = f"unolan-bench-{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24",
         f"{UNO} play --lang en --seed {seed} --bots 1 --name ann {extra}")
    wait_for(session, r"▲\d|Hand \d\[")  # the hand's number keys: the table is up
    return session, time.monotonic() - started


def our_turn(screen: str) -> bool:
    """The turn marker is on our row (we sit at seat 0)."""
    return any(line.startswith("▶ 0 ") for line in screen.splitlines())


def key_latencies(session: str, count: int) -> list[float]:
    """On each of our turns: d, then the time until the table has answered it (the card
    drawn is shown, or the turn marker has moved on)."""
    out: list[float] = []
    while len(out) < count:
        screen = wait_for(session, r"(?m)^▶ 0 |match is over|Round over")
        if "match is over" in screen or "Round over" in screen:
            break
        if "You drew [" in screen:
            tmux("send-keys", "-t", session, "k")  # keep it: the turn passes
            while "You drew [" in tmux("capture-pane", "-p", "-t", session):
                time.sleep(0.001)
            continue
        sent = time.monotonic()
        tmux("send-keys", "-t", session, "d")
        while True:
            now = tmux("capture-pane", "-p", "-t", session)
            if "You drew [" in now or not our_turn(now):
                break
            if time.monotonic() - sent > 5:
                raise SystemExit(f"the draw was never answered; the screen was:\n{now}")
            time.sleep(0.001)
        out.append(time.monotonic() - sent)
    return out


def summary(name: str, values: list[float], target: float) -> str:
    values = sorted(values)
    slow = values[max(0, -(-len(values) * 9 // 10) - 1)]
    return (f"{name}: median {statistics.median(values) * 1000:.1f} ms, 90% under "
            f"{slow * 1000:.1f} ms over {len(values)} (target {target * 1000:.0f} ms; "
            f"median / target {statistics.median(values) / target:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launches", type=int, default=5, help="uno play launches (default 5)")
    parser.add_argument("--keys", type=int, default=30, help="key presses timed (default 30)")
    parser.add_argument("--motion", choices=("on", "off", "both"), default="on",
                        help="the table's motion: on, off (--no-motion), or both, interleaved")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("bench/tui.py needs tmux")
    variants = {"on": [""], "off": ["--no-motion"], "both": ["", "--no-motion"]}[args.motion]
    firsts: dict[str, list[float]] = {v: [] for v in variants}
    keys: dict[str, list[float]] = {v: [] for v in variants}
    for seed in range(args.launches):
        for extra in variants:  # interleaved: the machine's load falls on both alike
            session, first = launch(seed, extra)
            firsts[extra].append(first)
            try:
                keys[extra] += key_latencies(session, -(-args.keys // args.launches))
            finally:
                tmux("kill-session", "-t", session)
    for extra in variants:
        label = " (--no-motion)" if extra else ""
        print(summary(f"uno play -> first table{label}", firsts[extra], 1.5))
        print(summary(f"key -> its play on screen{label}", keys[extra], 0.050))
    if len(variants) == 2:
        on, off = (statistics.median(keys[v]) for v in variants)
        print(f"key -> screen, motion / no motion: {on / off:.2f}")

if __name__ == "__main__":
    main()
