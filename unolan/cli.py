"""The ``uno`` command: one entry point, a subcommand per job.

Each part of the project registers its own subcommands (``add_parser``); this module
only gathers them, so it is the one place allowed to import both server and client.
"""

from __future__ import annotations

import argparse
import os
import sys

from unolan import __version__, rules_cli
from unolan.client import BOT_LEVELS, launch_bot
from unolan.client import cli as client_cli
from unolan.client.tui import cli as tui_cli
from unolan.engine import COMPILED
from unolan.server import cli as server_cli


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno",
        description="UNO over the LAN from the terminal. 'uno COMMAND --help' for each command.",
    )
    engine = "compiled" if COMPILED else "pure Python"
    parser.add_argument("--version", action="version", version=f"unolan {__version__} ({engine} engine)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    tui_cli.add_parser(sub)  # join, play
    # Bots a room's host adds play the client library's strategies.
    server_cli.add_parser(sub, bot_launcher=launch_bot, bot_levels=tuple(BOT_LEVELS))  # host
    client_cli.add_parser(sub)  # bot, arena
    rules_cli.add_parser(sub)  # rules
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        status = int(args.run(args) or 0)
        sys.stdout.flush()  # here, not at exit: a closed pipe is then caught below
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Whoever read our output stopped (uno rules --options | head): end quietly, as
        # the shell's own commands do, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13  # as if ended by SIGPIPE


if __name__ == "__main__":
    sys.exit(main())
