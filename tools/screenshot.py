"""The README's picture of the table, from a real terminal: ``uno play`` in tmux.

    python tools/screenshot.py                      # docs/table.svg, 100x30, seed 7
    python tools/screenshot.py --size 80x24 --out docs/table-80x24.svg --lang zh-Hant

Starts ``uno play`` with a fixed seed, name and port in a tmux pane of a fixed size (a
tmux server of its own, so nothing else is touched), waits until it is the player's turn
and the screen has stopped changing (the bots wait for the player then), captures the
pane with its colors (``tmux capture-pane -e -p``) and turns that into SVG with
tools/ansi_svg.py. The same seed and size give the same picture; run it again after the
table changes. Needs tmux and the package installed (``pip install -e .``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

from ansi_svg import to_svg  # beside this script (on the path when it runs)

ROOT = Path(__file__).resolve().parents[1]
READY = "Your turn"  # the hint line once the table waits for the player
STABLE = 1.0  # seconds the screen must stay the same
DEADLINE = 30.0


def tmux(socket: str, *args: str) -> str:
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True,
                          check=False).stdout


def uno() -> str:
    """The ``uno`` beside this Python (a venv's), else the module."""
    script = Path(sys.executable).with_name("uno")
    return str(script) if script.exists() else f"{sys.executable} -m unolan"


def capture(columns: int, rows: int, seed: int, port: int, lang: str) -> str:
    """The pane's text with its colors, once the table waits for the player."""
    socket = f"unolan-shot-{uuid.uuid4().hex[:8]}"
    command = (f"{uno()} play --seed {seed} --bots 3 --name ann --port {port} --lang {lang}; "
               "exec sleep 30")
    env = {**os.environ, "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    env.pop("NO_COLOR", None)
    env.pop("LC_ALL", None)
    subprocess.run(["tmux", "-L", socket, "new-session", "-d", "-s", "shot", "-x", str(columns),
                    "-y", str(rows), command], check=True, env=env)
    try:
        end = time.monotonic() + DEADLINE
        last, since = "", time.monotonic()
        while time.monotonic() < end:
            screen = tmux(socket, "capture-pane", "-e", "-p", "-t", "shot")
            if screen != last:
                last, since = screen, time.monotonic()
            elif READY in screen and time.monotonic() - since >= STABLE:
                return screen
            time.sleep(0.1)
        raise SystemExit(f"the table never settled on the player's turn; the screen was:\n{last}")
    finally:
        tmux(socket, "kill-server")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", default="100x30", help="COLUMNSxROWS of the pane (default 100x30)")
    parser.add_argument("--seed", type=int, default=7, help="the deal (default 7)")
    parser.add_argument("--port", type=int, default=7190,
                        help="the local server's port, shown in the header (default 7190)")
    parser.add_argument("--lang", default="en", help="the UI's language (default en)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "table.svg",
                        help="the SVG to write (default docs/table.svg)")
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        raise SystemExit("tools/screenshot.py needs tmux")
    columns, _x, rows = args.size.partition("x")
    screen = capture(int(columns), int(rows), args.seed, args.port, args.lang)
    args.out.write_text(to_svg(screen, int(columns), int(rows),
                               title="uno play: the table in a terminal"), encoding="utf-8")
    print(f"wrote {args.out} ({args.size}, seed {args.seed})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
