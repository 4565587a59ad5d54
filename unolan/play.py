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
from unolan.client.i18n import N_, _
from unolan.client.session import first_error
from unolan.client.tui.cli import (
    add_display_options,
    apply_table_options,
    default_name,
    needs_terminal,
    new_state,
    player_name,
    quiet_logging,
    rule_set,
    start_ui,
)
from unolan.client.tui.net import AutoStart, network
from unolan.client.tui.state import Command, UIState
from unolan.engine import PRESETS, Rules, check_match
from unolan.protocol import parse_port
from unolan.server.app import serve

PLAY_EPILOG = N_("""\
examples:
  uno play                          you and 3 bots, house rules
  uno play --bots 1 --rules official
  uno play --rules 'party stacking=same'   party rules with like-on-like stacking
  uno play --seed 42                the same deal every time (demos, tests)

At the table: arrows or 1-9 choose a card, Enter plays, d draws, u calls UNO, x catches,
j jumps in; ? lists every key; Ctrl-C quits.
""")



def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``uno play``."""
    play = subparsers.add_parser(
        "play",
        help=_("play right now: a local server, bots in the other seats, and this UI"),
        description=_("Start a private server on 127.0.0.1, seat you and N bots, and start "
                      "the match at once. Nothing else needs to be running."),
        epilog=_(PLAY_EPILOG),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("--bots", type=int, default=3, choices=range(1, 10), metavar="N",
                      help=_("bots in the other seats, 1 to 9 (default 3)"))
    play.add_argument("--rules", default=Rules.preset("house"), type=rule_set, metavar="RULES",
                      help=_("a rule preset ({presets}; default house), optionally with options "
                             "on top, e.g. 'party stacking=same' (uno rules --options)").format(
                                 presets=", ".join(PRESETS)))
    play.add_argument("--name", type=player_name, default=default_name(),
                      help=_("your name at the table (default: your login name)"))
    play.add_argument("--seed", type=int, default=None, metavar="N",
                      help=_("seed the shuffles: the same deal every time (demos, tests)"))
    play.add_argument("--timer", type=_timer, default=0, metavar="SECONDS",
                      help=_("seconds per turn before the server plays for you (default: none)"))
    play.add_argument("--port", type=_port, default=0, metavar="N",
                      help=_("port for the local server (default: any free port)"))
    add_display_options(play)
    play.set_defaults(run=run)


def _port(text: str) -> int:
    try:
        return parse_port(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            _("expected a port from 0 to 65535, got {text!r}").format(text=text)) from None


def _timer(text: str) -> int:
    try:
        seconds = int(text)
    except ValueError:
        seconds = -1
    if not 0 <= seconds <= 3600:
        raise argparse.ArgumentTypeError(
            _("expected 0 (no timer) to 3600 seconds, got {text!r}").format(text=text))
    return seconds


def run(args: argparse.Namespace) -> int:
    """``uno play``: the exit status."""
    try:
        check_match(args.rules, args.bots + 1)  # before anything starts: the real reason
    except ValueError as exc:
        print("uno play: " + _("{problem}: change --bots or --rules").format(problem=exc), file=sys.stderr)
        return 2
    if not args.plain and not needs_terminal("play"):
        return 2
    quiet_logging()
    state = new_state(args, name=args.name, address="127.0.0.1")
    apply_table_options(args, state)
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
        status = start_ui(state, main, args)
    except* OSError as group:  # the local server could not listen
        print(f"uno play: {_cannot_serve(args.port, first_error(group))}", file=sys.stderr)
    return status


def _cannot_serve(port: int, exc: BaseException) -> str:
    if getattr(exc, "errno", None) == errno.EADDRINUSE:
        return _("port {port} is already in use, so the local server cannot start: "
                 "choose another --port, or leave it out to use any free port").format(port=port)
    return _("the local server cannot start on port {port}: {problem}").format(port=port, problem=exc)
