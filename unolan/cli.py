"""The ``uno`` command: one entry point, a subcommand per job.

Each part of the project registers its own subcommands (``add_parser``); this module
only gathers them, so it is the one place allowed to import both server and client.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import NoReturn

from unolan import __version__, play, replay, rules_cli
from unolan.client import BOT_LEVELS, i18n, launch_bot
from unolan.client import cli as client_cli
from unolan.client.tui import cli as tui_cli
from unolan.engine import COMPILED
from unolan.server import cli as server_cli
from unolan.server import history_cli, words


class _Parser(argparse.ArgumentParser):
    """A parser whose mistakes are one line: what is wrong and where the help is (not
    argparse's usage block above it). Its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, i18n._("{prog}: {message} (see '{prog} --help')").format(
            prog=self.prog, message=message) + "\n")


def build_parser() -> argparse.ArgumentParser:
    """The ``uno`` command's parser, in the current language (its help is translated as it
    is built: choose the language first)."""
    words.use(i18n._, i18n.error_text)  # the server's commands speak the client's catalogs too
    parser: argparse.ArgumentParser = _Parser(
        prog="uno",
        description=i18n._("UNO over the LAN from the terminal. 'uno COMMAND --help' for each command."),
    )
    engine = i18n._("compiled engine") if COMPILED else i18n._("pure Python engine")
    parser.add_argument("--version", action="version", version=f"unolan {__version__} ({engine})",
                        help=i18n._("show program's version number and exit"))
    add_lang(parser)
    sub = parser.add_subparsers(dest="command", metavar=i18n._("COMMAND"))
    tui_cli.add_parser(sub)  # join
    play.add_parser(sub)  # play: a server and the UI at once
    # Bots a room's host adds play the client library's strategies.
    server_cli.add_parser(sub, bot_launcher=launch_bot, bot_levels=tuple(BOT_LEVELS))  # host
    client_cli.add_parser(sub)  # bot, arena
    rules_cli.add_parser(sub)  # rules
    client_cli.add_verify_parser(sub)  # verify
    history_cli.add_parser(sub)  # history, stats, audit
    replay.add_parser(sub)  # replay
    for command in sub.choices.values():  # --lang goes before or after the command
        add_lang(command)
    return parser


def _subcommand(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    """The parser of the subcommand ``name`` (None: no such subcommand)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            chosen: argparse.ArgumentParser = action.choices[name]
            return chosen
    return None


def add_lang(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang", type=_language, metavar="LANG", default=argparse.SUPPRESS,
        help=i18n._("the language: en, zh-Hant or zh-Hans (default: from LC_ALL, LC_MESSAGES "
                    "or LANG, else English)"))


def _language(text: str) -> str:
    try:
        return i18n.language_from(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def lang_argument(argv: list[str]) -> str | None:
    """The ``--lang`` value in ``argv`` (the last one), read before the parser is built so
    that its help speaks that language; a value we do not have is left to the parser to
    refuse (in the locale's language)."""
    found = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else (
            arg.split("=", 1)[1] if arg.startswith("--lang=") else None)
        if value is not None and i18n.read_language(value) is not None:
            found = value
    return found


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    i18n.choose(lang_argument(argv))
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # refused with the usage of the command they were given to
        command = _subcommand(parser, getattr(args, "command", None)) or parser
        command.error(i18n._("unrecognized arguments: %s") % " ".join(extra))
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
