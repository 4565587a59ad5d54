"""``uno bot`` and ``uno arena``: the client's subcommands (wired by :mod:`unolan.cli`)."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from unolan.engine import Rules, RulesError, check_match
from unolan.protocol import DEFAULT_PORT as DEFAULT_PORT  # the protocol's: servers listen on it
from unolan.protocol import parse_port

from .i18n import N_, _, ngettext
from .strategies import STRATEGIES

BOT_EPILOG = N_("""\
examples:
  uno bot                            one bot opens a room of 2 here and waits for you
  uno bot 192.168.1.20 --count 3 --seats 4   three bots, one seat left for a person
  uno bot --count 4 --matches 1      four bots play one match among themselves
  uno bot --room r1 --count 2        two bots take free seats in room r1
  uno bot --strategy counter --rules 'party stacking=same' --count 2 --seats 3

The room a bot opens is listed in the lobby (uno join); join it to play against them.
""")


def add_parser(subparsers: Any) -> None:
    """Add the ``bot`` and ``arena`` subcommands."""
    names = ", ".join(STRATEGIES)

    bot = subparsers.add_parser(
        "bot",
        help=_("seat bots at a server's table"),
        description=_("Connect bots to an UNO server. Without --room they open a room of their "
                      "own (the first bot hosts it and starts the match once every seat is taken)."),
        epilog=_(BOT_EPILOG),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bot.add_argument("address", nargs="?", default="127.0.0.1",
                     help=_("HOST or HOST:PORT of the server (default 127.0.0.1:{port})").format(
                         port=DEFAULT_PORT))
    bot.add_argument("--strategy", default="greedy",
                     help=_("one of: {names} (default greedy)").format(names=names))
    bot.add_argument("--count", type=int, default=1, help=_("how many bots to connect (default 1)"))
    bot.add_argument("--room", help=_("the room id to join (default: create one)"))
    bot.add_argument("--name", help=_("the bots' name (default: the strategy's; numbered)"))
    bot.add_argument("--password", help=_("the room's password, if it has one"))
    bot.add_argument("--rules", default="house",
                     help=_("rules of a room the bots create: a preset and options (default house)"))
    bot.add_argument("--seats", type=int, default=0,
                     help=_("seats of a room the bots create (default: --count, and at least 2: "
                            "the seats left wait for players)"))
    bot.add_argument("--delay", type=float, default=0.3,
                     help=_("seconds a bot waits before acting, so humans see its moves (default 0.3)"))
    bot.add_argument("--matches", type=int, default=0,
                     help=_("leave after this many matches (default 0: stay until stopped)"))
    bot.set_defaults(run=run_bot)

    arena = subparsers.add_parser(
        "arena",
        help=_("an offline tournament between strategies"),
        description=_("Play strategies against each other on the engine (no network) and "
                      "print win rates with 95% intervals and average points. Seats rotate between "
                      "matches; the same --seed gives the same results with any --jobs."),
    )
    arena.add_argument("--strategies", default="greedy,random",
                       help=_("comma-separated, from: {names} (default greedy,random)").format(names=names))
    arena.add_argument("--games", type=int, default=200, help=_("matches to play (default 200)"))
    arena.add_argument("--rules", default="house",
                       help=_("a preset and options, e.g. 'house stacking=same' (default house)"))
    arena.add_argument("--players", type=int, default=4, help=_("seats per match (default 4)"))
    arena.add_argument("--target", type=int, help=_("target score (default: the rules')"))
    arena.add_argument("--seed", default="0", help=_("tournament seed (default 0)"))
    arena.add_argument("--jobs", type=int, default=1,
                       help=_("processes to play on (default 1; 0: one per CPU)"))
    arena.add_argument("--no-progress", action="store_true", help=_("no progress bar"))
    arena.set_defaults(run=run_arena)


def add_verify_parser(subparsers: Any) -> None:
    """Add ``verify``."""
    verify = subparsers.add_parser(
        "verify",
        help=_("check the deals of a saved match: nobody stacked the deck"),
        description=_("Check every round of a match kept with 'uno join --record FILE': the "
                      "secret the server revealed is the one it committed to before the round, "
                      "the seed is the hash of that secret and every seat's nonce (yours among "
                      "them), and the cards you were dealt follow from that seed. Exit status: 0 "
                      "if every round checked out, 1 if any did not (or none could be checked), 2 "
                      "if the file cannot be read."),
    )
    verify.add_argument("file", metavar="FILE",
                        help=_("a file written by 'uno join --record FILE'"))
    verify.set_defaults(run=run_verify)


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``host``, ``host:port``, ``[v6]:port`` or ``:port``."""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port = text.split(":")
    else:
        host, port = text, ""
    return host or "127.0.0.1", parse_port(port) if port else default_port


def read_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """An address a person typed: :func:`parse_address` of the stripped text, with the
    port checked; ``ValueError`` says what is wrong."""
    try:
        host, port = parse_address(text.strip(), default_port)
    except ValueError:
        port = 0
    if port == 0:  # out of range, not a number, or a port no server listens on
        raise ValueError(_("a port is a number from 1 to 65535"))
    return host, port


def run_arena(args: argparse.Namespace) -> int:
    from .arena import head_to_head, run_tournament

    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown or not strategies:
        print("uno arena: " + _("unknown strategy {names}; choose from {choices}").format(
            names=", ".join(unknown) or _("(none)"), choices=", ".join(STRATEGIES)), file=sys.stderr)
        return 2
    if args.games < 1:
        print("uno arena: " + _("--games takes 1 or more matches to play"), file=sys.stderr)
        return 2
    if not 2 <= args.players <= 10:
        print("uno arena: " + _("--players takes 2 to 10"), file=sys.stderr)
        return 2
    if args.jobs < 0:
        print("uno arena: " + _("--jobs takes 0 (one process per CPU) or more"), file=sys.stderr)
        return 2
    if args.target is not None and args.target < 1:
        print("uno arena: " + _("--target takes a score of 1 or more"), file=sys.stderr)
        return 2
    try:
        rules = Rules.parse(args.rules)
        if args.target is not None:
            rules = rules.with_options(target_score=args.target)
        check_match(rules, args.players)
    except ValueError as exc:
        print(f"uno arena: {exc}", file=sys.stderr)
        return 2
    seed: int | str = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed
    jobs = args.jobs if args.jobs > 0 else (os.cpu_count() or 1)
    show = not args.no_progress and sys.stdout.isatty()

    def play(progress: Any = None) -> Any:
        return run_tournament(strategies, args.games, rules, players=args.players, seed=seed,
                              jobs=jobs, progress=progress)

    if show:
        from prompt_toolkit.shortcuts import ProgressBar
        from prompt_toolkit.shortcuts.progress_bar.base import ProgressBarCounter

        with ProgressBar(title=f"uno arena: {' vs '.join(strategies)}") as bar:
            counter: ProgressBarCounter[object] = bar(label="matches", total=args.games)
            tour = play(lambda _result: counter.item_completed())
    else:
        tour = play()
    print(tour.table())
    if len(strategies) == 2:
        won, decided, share, p = head_to_head(tour, strategies[0])
        if decided:
            print(f"\n{strategies[0]} won {won} of {decided} matches "
                  f"({won / decided:.1%}; its seats: {share:.1%}); "
                  f"one-sided binomial p = {p:.2g}")
    return 0


def run_bot(args: argparse.Namespace) -> int:
    from .runner import main_bots

    if args.strategy not in STRATEGIES:
        print("uno bot: " + _("unknown strategy {name!r}; choose from {choices}").format(
            name=args.strategy, choices=", ".join(STRATEGIES)), file=sys.stderr)
        return 2
    if args.count < 1:
        print("uno bot: " + _("--count takes 1 or more"), file=sys.stderr)
        return 2
    try:
        host, port = read_address(args.address)
    except ValueError as exc:
        print("uno bot: " + _("bad address {address!r}: expected HOST[:PORT] ({problem})").format(
            address=args.address, problem=exc), file=sys.stderr)
        return 2
    seats = args.seats or max(args.count, 2)
    if args.room is None and not 2 <= seats <= 10:
        print("uno bot: " + _("a room has 2 to 10 seats: give --seats (or a --count of 2 or more)"),
              file=sys.stderr)
        return 2
    if args.room is None and seats < args.count:
        print("uno bot: " + _("{count} bots do not fit in {seats} seats: raise --seats").format(
            count=args.count, seats=seats), file=sys.stderr)
        return 2
    try:
        rules = Rules.parse(args.rules)
        if args.room is None:  # the bots open a room: its rules must suit its seats
            check_match(rules, seats)
    except (RulesError, ValueError) as exc:
        print(f"uno bot: {exc}", file=sys.stderr)
        return 2
    return main_bots(host, port, args, rules)


def run_verify(args: argparse.Namespace) -> int:
    """``uno verify FILE``: one line per round, then a summary; the exit status."""
    from .verify import FAILED, VERIFIED, verify_record

    try:
        with open(args.file, encoding="utf-8") as file:
            verdicts = verify_record(file)
    except OSError as exc:
        print("uno verify: " + _("cannot read {file}: {problem}").format(
            file=args.file, problem=exc.strerror or exc), file=sys.stderr)
        return 2
    except (ValueError, UnicodeDecodeError) as exc:
        print("uno verify: " + _("{file} is not a saved match ({problem}); save one with "
                                 "'uno join --record FILE'").format(file=args.file, problem=exc),
              file=sys.stderr)
        return 2
    for verdict in verdicts:
        print(verdict)
    checked = sum(v.status == VERIFIED for v in verdicts)
    failed = sum(v.status == FAILED for v in verdicts)
    if failed:
        print(ngettext("{failed} of {total} round was NOT dealt as the server committed",
                       "{failed} of {total} rounds were NOT dealt as the server committed",
                       len(verdicts)).format(failed=failed, total=len(verdicts)))
        return 1
    if not checked:
        print(_("no round could be checked"))
        return 1
    line = ngettext("the {checked} round checked was dealt fairly",
                    "all {checked} rounds checked were dealt fairly", checked).format(checked=checked)
    if checked < len(verdicts):
        line += " " + _("({n} could not be checked)").format(n=len(verdicts) - checked)
    print(line)
    return 0
