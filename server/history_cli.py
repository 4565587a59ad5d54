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
from .words import N_, _, code_words, fit

DB_HELP = N_("the server's database, as given to uno host --db (default: the user's data "
             "directory); the history is the file beside it")


def add_db_argument(parser: argparse.ArgumentParser) -> None:
    """``--db``: the database whose history is read (also uno replay's)."""
    parser.add_argument("--db", default=None, metavar="PATH", help=_(DB_HELP))


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``history``, ``stats`` and ``audit``."""
    commands = (
        ("history", run_history, N_("list the finished matches the server keeps"),
         N_("List the finished matches kept in the server's match history, newest first: id, "
            "when it ended, room, seats and final scores. 'uno replay ID' steps through one. "
            "uno host --keep-matches and --keep-days set how much is kept.")),
        ("stats", run_stats, N_("per-player results over the match history"),
         N_("Per player (and bot) over every kept match: matches, wins, average final score, "
            "UNO calls missed (caught holding one card) and players caught. A person is known "
            "by name: the same name in any room is one player. A bot is known by its name and "
            "its room, since each room names its own bots (bot-1 of one room is not bot-1 of "
            "another); its row says which room.")),
        ("audit", run_audit, N_("print the race receipts of a room's matches"),
         N_("Print every race receipt of a room (jump-ins on the same card, catches against UNO "
            "calls...): who won, and every contender in the order they arrived, with the seq "
            "each decided on and how long after the first it came.")),
    )
    for name, command, summary, description in commands:
        parser = subparsers.add_parser(name, help=_(summary), description=_(description))
        if name == "audit":
            parser.add_argument("room", metavar="ROOM", help=_("the room's id (as uno join shows it)"))
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
            print(f"uno {args.command}: {exc.translated()}", file=sys.stderr)
            return 1
        try:
            return command(args, db)
        except history.HistoryError as exc:
            print(f"uno {args.command}: {exc.translated()}", file=sys.stderr)
            return 1
        finally:
            db.close()

    return run


def seat_names(match: history.KeptMatch) -> str:
    return ", ".join(f"{s.name or '-'}{'*' if s.bot else ''}" for s in match.seats)


def run_history(args: argparse.Namespace, db: sqlite3.Connection) -> int:
    matches = history.list_matches(db)
    if not matches:
        print(_("no finished match is kept yet"))
        return 0
    print("  ".join((fit(_("match"), 10), fit(_("ended"), 19), fit(_("room"), 8),
                     _("seats (* a bot) and scores"))))
    for m in matches:
        winner = m.seats[m.winner].name if m.winner is not None and m.winner < len(m.seats) else "-"
        print(f"{m.id:10}  {m.ended[:19].replace('T', ' '):19}  {fit(m.room, 8)}  "
              + _("{seats}: {scores}; won by {winner}").format(
                  seats=seat_names(m), scores=" ".join(map(str, m.scores)), winner=winner))
    return 0


# uno stats' columns: each heading, its width in terminal cells, and whether it is
# right-aligned (the numbers are).
STATS_COLUMNS = ((N_("player"), 30, False), (N_("matches"), 7, True), (N_("wins"), 5, True),
                 (N_("avg points"), 10, True), (N_("UNO missed"), 10, True), (N_("catches"), 7, True))


def run_stats(args: argparse.Namespace, db: sqlite3.Connection) -> int:
    ids = [m.id for m in history.list_matches(db)]
    rows = player_stats(history.load_match(db, mid) for mid in ids)
    if not rows:
        print(_("no finished match is kept yet"))
        return 0
    print(" ".join(fit(_(title), width, right) for title, width, right in STATS_COLUMNS))
    for r in rows:
        name = _("{name} (bot, room {room})").format(name=r.name, room=r.room) if r.bot else r.name
        print(f"{fit(name, 30)} {r.matches:7} {r.wins:5} {r.average:10.1f} {r.missed:10} {r.caught:7}")
    return 0


def run_audit(args: argparse.Namespace, db: sqlite3.Connection) -> int:
    receipts = history.room_receipts(db, args.room)
    if not receipts and not history.room_known(db, args.room):
        raise history.HistoryError(N_("the match history has no room {room!r}: uno history lists "
                                      "the rooms of the kept matches"), room=args.room)
    if not receipts:
        print(_("no race receipts for room {room}").format(room=args.room))
        return 0
    for mid, seq, data in receipts:
        names = data.get("names") or []
        line = _("match {match} seq {seq}: {seat} won").format(
            match=mid or _("(under way)"), seq=seq, seat=seat_label(data["winner"], names))
        if data.get("table") is not None:  # a two-table match's race, at one of its tables
            # numbered from 1, as people read them (the receipt's table is 0 or 1)
            line += " " + _("(table {table})").format(table=data["table"] + 1)
        print(line)
        for c in data["contenders"]:
            print("  " + _("{order}. {seat}: {result}, decided on seq {seq}, +{after} ms").format(
                order=c["order"], seat=seat_label(c["seat"], names), result=result_label(c["result"]),
                seq=c["seq"], after=c["after"]))
    return 0


def seat_label(seat: int, names: list[str | None]) -> str:
    """``seat 2 (cy)``: the seat's number as the receipt has it, and whose it was."""
    name = names[seat] if 0 <= seat < len(names) else None
    if name is None:
        return _("seat {seat}").format(seat=seat)
    return _("seat {seat} ({name})").format(seat=seat, name=name)


def result_label(result: str) -> str:
    """``too_late (Too late: the table had moved on)``: a contender's result as the
    protocol words it (won, or the refusal's error code), and its words in the chosen
    language (the client's error catalog's; a winner's: it arrived first)."""
    words = _("arrived first") if result == "won" else code_words(result)
    return result if words is None or words == result else _("{code} ({words})").format(code=result, words=words)
