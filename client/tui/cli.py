"""``uno join``: the terminal UI's command (``uno play``, which also starts a server, is
the app shell's: :mod:`unolan.play`)."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import logging
import sys
from typing import TYPE_CHECKING, Any

from unolan.client.cli import DEFAULT_PORT, read_address
from unolan.client.i18n import N_, _
from unolan.engine import Rules, RulesError
from unolan.protocol.lan import BROWSE_SECONDS

if TYPE_CHECKING:
    from .run import Network
    from .state import UIState

JOIN_EPILOG = N_("""\
examples:
  uno join                          list the games on the LAN; Enter joins one
  uno join --list                   print the games found on the LAN and exit (for scripts)
  uno join 192.168.1.20 --name ann  a server at a known address
  uno join 127.0.0.1                the server on this machine, port {port}
  uno join 192.168.1.20:8000        another port

Servers on the LAN announce themselves with multicast DNS (`uno host --host 0.0.0.0`).
On the list of games, a types an address instead and r searches again. In the lobby:
Enter joins a room, s spectates, c creates one; ? lists every key.
Your seat is kept on this machine: if uno join stops mid-match, start it again with the
same server and name and it takes the seat back.

--list prints one line per game, tab-separated: HOST:PORT, name, rooms, players (a count
the server did not give is '?'). Exit status: 0 if it found a game, 1 if it found none
(or multicast DNS cannot run here: the reason goes to stderr), 2 for bad usage.
""")

def default_name() -> str:
    try:
        name = getpass.getuser()
    except (KeyError, OSError):
        name = ""
    return (name or "player")[:32]


def player_name(text: str) -> str:
    """An argument type: a name at the table."""
    text = text.strip()
    if not 1 <= len(text) <= 32 or not text.isprintable():
        raise argparse.ArgumentTypeError(_("a name is 1 to 32 printable characters"))
    return text


def _address(text: str) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``[v6]:PORT`` or ``:PORT`` (the client library's reading)."""
    try:
        return read_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(_("expected HOST[:PORT], got {text!r} ({problem})").format(
            text=text, problem=exc)) from None


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``uno join``."""
    join = subparsers.add_parser(
        "join",
        help=_("join a game server from this terminal (lobby, rooms, the table)"),
        description=_("Connect the terminal UI to an unolan server: browse the rooms, create "
                      "one or join or spectate, add bots, start, and play."),
        epilog=_(JOIN_EPILOG).format(port=DEFAULT_PORT),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    join.add_argument("address", nargs="?", default=None, type=_address, metavar="HOST[:PORT]",
                      help=_("the server (port {port} if not given); without it, pick one of "
                             "the games found on the LAN").format(port=DEFAULT_PORT))
    join.add_argument("--list", action="store_true",
                      help=_("print the games found on the LAN and exit (see below)"))
    join.add_argument("--wait", type=_seconds, default=BROWSE_SECONDS, metavar="SECONDS",
                      help=_("how long --list listens for servers (default {seconds})").format(
                          seconds=f"{BROWSE_SECONDS:g}"))
    join.add_argument("--name", type=player_name, default=default_name(),
                      help=_("your name at the table (default: your login name)"))
    join.add_argument("--record", metavar="FILE",
                      help=_("keep every event you see (and the nonces you send) in FILE, "
                             "appended, so that 'uno verify FILE' can check the deals again"))
    add_display_options(join)
    join.set_defaults(run=run_join)


def add_display_options(parser: argparse.ArgumentParser) -> None:
    """``--plain``, ``--bell`` and the table's look, for ``uno join`` and ``uno play`` alike."""
    parser.add_argument("--plain", action="store_true",
                        help=_("no full-screen table: one line per event and a numbered list of "
                               "what you may do, answered on stdin (for screen readers and "
                               "braille displays; needs no terminal)"))
    parser.add_argument("--bell", action="store_true",
                        help=_("ring the terminal's bell on your turn and when a player "
                               "(you included) may be caught"))
    add_table_options(parser)


def start_ui(state: UIState, network: Network, args: argparse.Namespace) -> int:
    """Run the full-screen UI, or with ``--plain`` the lines on stdin and stdout."""
    if args.plain:
        from . import plain

        assert isinstance(state, plain.PlainState)
        return plain.run(state, network, bell=args.bell)
    from .run import run

    return run(state, network, bell=args.bell)


def new_state(args: argparse.Namespace, **kwargs: Any) -> UIState:
    """The screen's state for the UI that ``--plain`` chooses."""
    if args.plain:
        from .plain import PlainState, write_stdout

        return PlainState(write_stdout, **kwargs)
    from .state import UIState

    return UIState(**kwargs)


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """The table's look, for ``uno join`` and ``uno play``: ``--theme`` and ``--no-motion``."""
    from .themes import THEMES

    parser.add_argument("--theme", choices=THEMES, default=None, metavar="THEME",
                        help=_("the table's colors: {themes} (default: the last one chosen, "
                               "else dark); kept for the next time").format(themes=", ".join(THEMES)))
    parser.add_argument("--no-motion", action="store_true",
                        help=_("no card flying to the pile and no flash; the banners stay still"))


def apply_table_options(args: argparse.Namespace, state: UIState) -> None:
    """``--theme`` (kept in the user's config when given, else the one kept) and
    ``--no-motion``, on the state the UI draws."""
    from unolan.client import config

    from .motion import Motion
    from .themes import THEMES

    if args.theme is not None:
        with contextlib.suppress(OSError):  # a theme not kept is not worth stopping the game for
            config.save("theme", args.theme)
        state.theme = args.theme
    else:
        kept = config.load().get("theme")
        state.theme = kept if kept in THEMES else "dark"
    state.motion = Motion(moving=not args.no_motion)


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1
    if not 0 < seconds <= 60:
        raise argparse.ArgumentTypeError(
            _("expected more than 0 and at most 60 seconds, got {text!r}").format(text=text))
    return seconds


def rule_set(text: str) -> Rules:
    """An argument type: a preset, optionally with options on top."""
    try:
        return Rules.parse(text)
    except RulesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def quiet_logging() -> None:
    """Log lines would scribble over the full-screen UI: keep them off the terminal
    (ours, and zeroconf's about an interface it could not use)."""
    for name in ("unolan", "zeroconf"):
        root = logging.getLogger(name)
        root.addHandler(logging.NullHandler())
        root.propagate = False


def needs_terminal(command: str) -> bool:
    """The UI draws on a terminal: without one, say so (and False)."""
    if sys.stdin.isatty() and sys.stdout.isatty():
        return True
    print(f"uno {command}: " + _("needs a terminal: run it in a terminal window, without "
                                 "redirecting its input or output, or add --plain for lines "
                                 "on stdin and stdout"), file=sys.stderr)
    return False


def run_join(args: argparse.Namespace) -> int:
    from functools import partial

    from unolan.client.saved import SavedSeats
    from unolan.client.verify import MatchRecord

    from .net import network

    quiet_logging()
    if args.list:
        if args.address is not None:
            print("uno join: " + _("--list finds the servers itself; give no address"), file=sys.stderr)
            return 2
        return list_games(args.wait)
    if args.address is not None and not _resolves(args.address[0]):  # a typo: no use retrying
        print("uno join: " + _("unknown host {host!r}: check the address").format(host=args.address[0]),
              file=sys.stderr)
        return 1
    if not args.plain and not needs_terminal("join"):
        return 2
    try:
        record = MatchRecord(args.record) if args.record else None
    except OSError as exc:
        print("uno join: " + _("cannot write {file}: {problem}").format(
            file=args.record, problem=exc.strerror or exc), file=sys.stderr)
        return 1
    if args.address is None and args.plain:
        from .plain import choose_game

        args.address = choose_game(args.wait)
        if args.address is None:
            return 1
    if args.address is None:
        from .start import find_then_join
        from .start_screen import StartScreen

        state = new_state(args, name=args.name)
        state.start = StartScreen()
        main = partial(find_then_join, name=args.name, saved=SavedSeats(), record=record)
    else:
        host, port = args.address
        state = new_state(args, name=args.name, address=f"{host}:{port}")
        main = partial(network, host=host, port=port, name=args.name, saved=SavedSeats(),
                       record=record)
    apply_table_options(args, state)
    return start_ui(state, main, args)


def _resolves(host: str) -> bool:
    """Whether ``host`` names an address (a name the resolver does not know never will
    while we wait; a server that is down may come up, so that is retried)."""
    import socket

    try:
        socket.getaddrinfo(host, None)
    except socket.gaierror as exc:
        return exc.errno not in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME))
    except UnicodeError:
        return False
    return True


def list_games(seconds: float) -> int:
    """``uno join --list``: browse for ``seconds``, print a line per game; the exit status."""
    import trio
    from unolan.client.discovery import DiscoveryUnavailable, find_games

    try:
        games = trio.run(find_games, seconds)
    except DiscoveryUnavailable as exc:
        print("uno join: " + _("{problem}: no games found; give an address: uno join "
                               "HOST[:PORT]").format(problem=exc), file=sys.stderr)
        return 1
    for game in games:
        if not game.joinable:
            print("uno join: " + _("{name} at {address} speaks protocol {versions}, not this "
                                   "uno's: left out").format(
                name=game.name, address=game.address, versions="/".join(map(str, game.versions))),
                file=sys.stderr)
    joinable = [g for g in games if g.joinable]
    for game in joinable:
        counts = ("?" if n is None else str(n) for n in (game.rooms, game.players))
        print("\t".join((game.address, game.name, *counts)))
    if not joinable:
        print("uno join: " + _("no games found on the LAN; give an address: uno join HOST[:PORT]"),
              file=sys.stderr)
        return 1
    return 0
