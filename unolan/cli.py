"""The ``uno`` command: one entry point, a subcommand per job.

Each part of the project registers its own subcommands (``add_parser``); this module
only gathers them, so it is the one place allowed to import both server and client.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from unolan import __version__

# Modules that register subcommands, in the order --help lists them. A part that is not
# installed yet (or fails to import) is left out rather than breaking every command.
COMMAND_MODULES = (
    "unolan.client.tui.cli",
    "unolan.server.cli",
    "unolan.client.cli",
    "unolan.rules_cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uno",
        description="UNO over the LAN from the terminal. 'uno COMMAND --help' for each command.",
    )
    parser.add_argument("--version", action="version", version=f"unolan {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):
                raise
            continue
        if name == "unolan.server.cli":
            module.add_parser(sub, bot_launcher=_client_bots())
        else:
            module.add_parser(sub)
    return parser


def _client_bots() -> object:
    """The client library's bot runner, so `uno host` bots play the client's strategies."""
    try:
        from unolan.client import launch_bot
    except ImportError:
        return None
    return launch_bot


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
