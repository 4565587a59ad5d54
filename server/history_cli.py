"""``uno history``, ``uno stats`` and ``uno audit``: the server's match history, printed.

They read the history beside the server's database (:mod:`.history`), also while the
server runs. ``uno replay`` (the app shell's) steps through one match.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

from . import history
from .replay import player_stats
from .store import default_path

# The server's commands speak English (the server does not import the client's catalogs);
# uno replay, the app shell's, gives its --db help in the player's language.
DB_HELP = ("the server's database, as given to uno host --db (default: the user's data "
           "directory); the history is the file beside it")


def add_db_argument(parser: argparse.ArgumentParser, help: str = DB_HELP) -> None:
    """``--db``; ``help`` in the player's language where the caller has one (uno replay)."""
    parser.add_argument("--db", default=None, metavar="PATH", help=help)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``history``, ``stats`` and ``audit``."""
    commands = (
        ("history", run_history, "list the finished matches the server keeps",
         "List the finished matches kept in the server's match history, newest first: id, "
         "when it ended, room, seats and final scores. 'uno replay ID' steps through one. "
         "uno host --keep-matches and --keep-days set how much is kept."),
        ("stats", run_stats, "per-player results over the match history",
         "Per player (and bot) over every kept match: matches, wins, average final score, "
         "UNO calls missed (caught holding one card) and players caught."),
        ("audit", run_audit, "print the race receipts of a room's matches",
         "Print every race receipt of a room (jump-ins on the same card, catches against UNO "
         "calls...): who won, and every contender in the order they arrived, with the seq "
         "each decided on and how long after the first it came."),
    )
    for name, command, summary, description in commands:
        parser = subparsers.add_parser(name, help=summary, description=description)
        if name == "audit":
            parser.add_argument("room", metavar="ROOM", help="the room's id (as uno join shows it)")
        add_db_argument(parser)
        parser.set_defaults(run=_reading(command))


def db_path(args: argparse.Namespace) -> Path:
    return Path(args.db) if args.db else default_path()


def _reading(command: Callable[[argparse.Namespace, sqlite3.Connection], int]) -> Callable[[argparse.Namespace], int]:
    """Open the history for ``command``, or say in one line why it cannot be read."""

    def run(args: argparse.Namespace) -> int:
        try:
            db = history.open_history(db_path(args))
        except history.HistoryError as exc:
            print(f"uno {args.command}: {exc}", file=sys.stderr)
            return 1
        try:
            return command(args, db)
        except history.HistoryError as exc:
            print(f"uno {args.command}: {exc}", file=sys.stderr)
            return 1
        finally:
            db.close()

    return run


def seat_names(match: history.KeptMatch) -> str:
    return ", ".join(f"{s.name or '-'}{'*' if s.bot else ''}" for s in match.seats)


def run_history(args: argparse.Namespace, db: sqlite3.Connection) -> int:
    matches = history.list_matches(db)
    if not matches:
        print("no finished match is kept yet")
        return 0
    print(f"{'match':10}  {'ended':19}  {'room':8}  seats (* a bot) and scores")
    for m in matches:
        winner = m.seats[m.winner].name if m.winner is not None and m.winner < len(m.seats) else "-"
        print(f"{m.id:10}  {m.ended[:19].replace('T', ' '):19}  {m.room:8}  {seat_names(m)}:"
              f" {' '.join(map(str, m.scores))}; won by {winner}")
    return 0


def run_stats(args: argparse.Namespace, db: sqlite3.Connection) -> int:
    ids = [m.id for m in history.list_matches(db)]
    rows = player_stats(history.load_match(db, mid) for mid in ids)
    if not rows:
        print("no finished match is kept yet")
        return 0
    print(f"{'player':24} {'matches':>7} {'wins':>5} {'avg points':>10} {'UNO missed':>10} {'caught':>6}")
    for r in rows:
        name = r.name + (" (bot)" if r.bot else "")
        print(f"{name[:24]:24} {r.matches:7} {r.wins:5} {r.average:10.1f} {r.missed:10} {r.caught:6}")
    return 0


def run_audit(args: argparse.Namespace, db: sqlite3.Connection) -> int:
    receipts = history.room_receipts(db, args.room)
    if not receipts:
        print(f"no race receipts for room {args.room}")
        return 0
    for mid, seq, data in receipts:
        print(f"match {mid or '(under way)'} seq {seq}: seat {data['winner']} won")
        for c in data["contenders"]:
            print(f"  {c['order']}. seat {c['seat']}: {c['result']}, decided on seq {c['seq']},"
                  f" +{c['after']} ms")
    return 0
