"""``uno play``: a private server, bots in the other seats, and the terminal UI, at once.

The app shell: the one place that starts a server and a client together. Everything runs
in one Trio run, as the guest of prompt_toolkit's asyncio loop: the server on
127.0.0.1, the bots (the client library's, each over TCP like any other client, through
:func:`unolan.client.launch_bot`), and this player's connection, which creates the room,
seats the bots and starts the match.
"""

from __future__ import annotations

import argparse
import errno
import sys
from collections.abc import Callable
from functools import partial

import trio

from unolan.client import BOT_LEVELS, launch_bot
from unolan.client.i18n import _
from unolan.client.session import first_error
from unolan.client.tui.cli import needs_terminal, quiet_logging
from unolan.client.tui.net import AutoStart, network
from unolan.client.tui.run import run as run_ui
from unolan.client.tui.state import Command, UIState
from unolan.engine import check_table
from unolan.server.app import serve


def run(args: argparse.Namespace) -> int:
    try:
        check_table(args.rules, args.bots + 1)  # before anything starts: the real reason
    except ValueError as exc:
        print("uno play: " + _("{problem}: change --bots or --rules").format(problem=exc), file=sys.stderr)
        return 2
    if not needs_terminal("play"):
        return 2
    quiet_logging()
    state = UIState(name=args.name, address="127.0.0.1")
    auto = AutoStart(bots=args.bots, preset=args.rules.preset_name, options=args.rules.changes(),
                     room_name=_("{name}'s table").format(name=args.name), timer=args.timer)

    async def main(state: UIState, commands: trio.MemoryReceiveChannel[Command],
                   invalidate: Callable[[], None]) -> None:
        async with trio.open_nursery() as nursery:
            port = await nursery.start(partial(
                serve, "127.0.0.1", args.port, seed=args.seed, bot_launcher=launch_bot,
                bot_levels=tuple(BOT_LEVELS)))
            state.address = f"127.0.0.1:{port}"
            await network(state, commands, invalidate, host="127.0.0.1", port=port,
                          name=args.name, auto=auto)
            nursery.cancel_scope.cancel()

    status = 1
    try:
        status = run_ui(state, main)
    except* OSError as group:  # the local server could not listen
        print(f"uno play: {_cannot_serve(args.port, first_error(group))}", file=sys.stderr)
    return status


def _cannot_serve(port: int, exc: BaseException) -> str:
    if getattr(exc, "errno", None) == errno.EADDRINUSE:
        return _("port {port} is already in use, so the local server cannot start: "
                 "choose another --port, or leave it out to use any free port").format(port=port)
    return _("the local server cannot start on port {port}: {problem}").format(port=port, problem=exc)
