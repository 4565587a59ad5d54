"""``uno host``: run the game server until Ctrl-C."""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import socket
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import trio
from unolan.protocol import parse_port

from .app import BotLauncher, Server
from .bot import LEVELS as BOT_LEVELS
from .history import Keep
from .limits import DEFAULT_PORT, raise_descriptor_limit
from .store import StoreError, default_path
from .words import N_, Said, _

EPILOG = N_("""\
examples:
  uno host                         serve on this machine only, port {port}
  uno host --host 0.0.0.0          serve the whole LAN (all interfaces)
  uno host --port 8000 --seed 42   another port; reproducible shuffles (demos, tests)
  uno host --db games.db           keep the rooms in games.db (default: the user's data dir)
  uno host --no-db                 keep nothing on disk
  uno host --keep-matches 200 --keep-days 30   a smaller match history (uno history)
  uno host --host 0.0.0.0 --name "Friday UNO"   the name players see in `uno join`

Serving the LAN, the server announces itself with multicast DNS (DNS-SD, _unolan._tcp),
so `uno join` with no address lists it; --no-announce keeps it quiet (players then give
its address). A server on 127.0.0.1 is for this machine only and is not announced.

Ctrl-C stops the server; connected clients are told it is shutting down. Rooms and their
games are kept in the database, so the next `uno host` on it resumes them: players take
their seats back where they were (their clients resume with their tokens). Every action
is saved before anyone hears of it; if saving fails, the rooms pause (and say so) until
it works again. One `uno host` per database file: a second one stops at once.
""")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser], bot_launcher: BotLauncher | None = None,
               bot_levels: Sequence[str] = BOT_LEVELS) -> None:
    """Register ``uno host``; ``bot_launcher`` runs the bots a room's host adds, at the
    ``bot_levels`` it knows (the app shell passes the client library's; without one the
    server's built-in bot plays)."""
    parser = subparsers.add_parser(
        "host",
        help=_("run a game server (lobby, rooms, bots) for players on this machine or the LAN"),
        description=_("Run the UNO game server. Players connect with `uno join HOST` "
                      "(`uno bot HOST` seats bots); scripts speak the protocol in docs/protocol.md."),
        epilog=_(EPILOG).format(port=DEFAULT_PORT),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                        help=_("address to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)"))
    parser.add_argument("--port", type=_port, default=DEFAULT_PORT, metavar="N",
                        help=_("TCP port (default {port}; 0 picks a free one)").format(port=DEFAULT_PORT))
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help=_("seed every shuffle from N (reproducible demos and tests only)"))
    parser.add_argument("--db", default=None, metavar="PATH",
                        help=_("SQLite file for the rooms and their games (default {path};"
                               " '' keeps everything in memory)").format(path=_shown(default_path())))
    parser.add_argument("--no-db", action="store_true",
                        help=_("keep everything in memory (nothing survives a restart)"))
    parser.add_argument("--keep-matches", type=_count, default=Keep.matches, metavar="N",
                        help=_("finished matches kept in the match history beside the database "
                               "(uno history; default {count}; 0 keeps none)").format(count=Keep.matches))
    parser.add_argument("--keep-days", type=_count, default=Keep.days, metavar="DAYS",
                        help=_("forget kept matches older than this (default 0: never)"))
    parser.add_argument("--name", default=None, metavar="NAME",
                        help=_("the name `uno join` shows in its list of games on the LAN"
                               " (default: 'LOGIN on HOSTNAME')"))
    parser.add_argument("--no-announce", action="store_true",
                        help=_("do not announce the server on the LAN (multicast DNS); players"
                               " then join with its address"))
    parser.add_argument("-v", "--verbose", action="store_true", help=_("log every connection"))
    parser.set_defaults(run=partial(run, bot_launcher=bot_launcher, bot_levels=bot_levels))


def _count(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(
            _("expected a whole number, 0 or more, got {text!r}").format(text=text))
    return int(text)


def _port(text: str) -> int:
    """A TCP port to listen on: 0 to 65535 (0: any free one)."""
    try:
        return parse_port(text)
    except ValueError:  # the protocol's words are English: the same, translated
        raise argparse.ArgumentTypeError(
            _("expected a port from 0 to 65535, got {text!r}").format(text=text)) from None


def _shown(path: object) -> str:
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home):] if text.startswith(home + "/") else text


def db_for(args: argparse.Namespace) -> str | None:
    """The database file ``uno host`` uses (None: in memory only)."""
    if getattr(args, "no_db", False):
        return None
    db = getattr(args, "db", None)
    if db is None:
        return str(default_path())
    return db or None


def run(args: argparse.Namespace, bot_launcher: BotLauncher | None = None,
        bot_levels: Sequence[str] = BOT_LEVELS) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("unolan.server")
    db_path = db_for(args)
    raise_descriptor_limit()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                server = Server(seed=args.seed, bot_launcher=bot_launcher,
                                bot_levels=bot_levels, db_path=db_path,
                                keep=Keep(args.keep_matches, args.keep_days))
                await nursery.start(server.run, args.host, args.port)
                port = server.port
                if db_path:
                    log.info("rooms are kept in %s", db_path)
                log.info("uno server on %s:%d%s", args.host, port,
                         " (this machine only; --host 0.0.0.0 for the LAN)"
                         if args.host in ("127.0.0.1", "localhost", "::1") else "")
                if not args.no_announce:
                    from .announce import announce, default_name

                    nursery.start_soon(announce, server, args.host, args.name or default_name())
                async for signum in signals:
                    log.info("%s: stopping", signal.Signals(signum).name)
                    nursery.cancel_scope.cancel()
                    break

    # Errors leave the nurseries as exception groups: each ordinary failure is one line.
    failure = None
    try:
        trio.run(main)
    except* StoreError as group:
        failure = _said(_first(group))
    except* OSError as group:
        failure = _listen_error(args.host, args.port, _first(group))
    if failure is not None:
        print(f"uno host: {failure}", file=sys.stderr)
        return 1
    return 0


def _said(error: BaseException) -> str:
    """An error's words for the person at the command line."""
    return error.translated() if isinstance(error, Said) else str(error)


def _first(group: BaseExceptionGroup) -> BaseException:
    """The first error in a (nested) exception group."""
    error: BaseException = group
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


def _listen_error(host: str, port: int, exc: BaseException) -> str:
    code = getattr(exc, "errno", None)
    if code == errno.EADDRINUSE:
        why = _("port {port} is in use (another uno host?); choose another with --port").format(port=port)
    elif code == errno.EACCES:
        why = _("port {port} needs privileges; choose one above 1023 with --port").format(port=port)
    elif code == errno.EADDRNOTAVAIL or isinstance(exc, socket.gaierror):
        why = _("{host} is not an address of this machine; try --host 0.0.0.0").format(host=host)
    else:  # the system's own words
        why = getattr(exc, "strerror", None) or str(exc)
    return _("cannot listen on {host}:{port}: {why}").format(host=host, port=port, why=why)
