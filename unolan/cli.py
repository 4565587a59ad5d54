"""The ``uno`` command: one entry point, a subcommand per job."""

from __future__ import annotations

import argparse
import sys

from unolan import __version__


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="uno", description="UNO over the LAN from the terminal.")
    parser.add_argument("--version", action="version", version=f"unolan {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    from unolan import rules_cli

    rules_cli.add_parser(sub)
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    return int(args.run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
