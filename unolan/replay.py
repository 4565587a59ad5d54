"""``uno replay MATCH``: step through a kept match in the terminal, or export it.

The match is played again by the engine (:class:`unolan.server.replay.Replay`); this
module only shows its steps: → / ← one action, ] / [ one round, 1-9 round N, Home / End,
v the next seat's view (every hand, seat 0, seat 1, ..., a spectator's), q quits.
``--plain`` prints every step as lines instead (for a pipe, a file, a screen reader), and
``--export`` the match in the action notation (docs/notation.md). A two-table match's
tables are numbered from 1, as everywhere people read them (the wire's ``table`` is 0 or 1).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

from unolan.client.i18n import N_, _
from unolan.client.tui.state import event_line, named_cards, seat_name
from unolan.server import history
from unolan.server.history_cli import add_db_argument, db_path, seat_names
from unolan.server.replay import Replay

ALL = "all"  # the view that shows every hand
# A seat's view, field by field: the view's names, in the player's words.
VIEW_FIELDS = {"hand": N_("hand"), "counts": N_("cards held"), "top": N_("top card"),
               "color": N_("color"), "turn": N_("turn"), "phase": N_("phase"),
               "pending": N_("penalty pending"), "scores": N_("scores"),
               "draw_count": N_("draw pile"), "called": N_("called UNO"),
               "catchable": N_("can be caught")}


class ReplayState:
    """Where the viewer is: a step of the replay, and whose view it shows."""

    def __init__(self, replay: Replay, seat: int | str | None = ALL) -> None:
        self.replay = replay
        self.step = 0
        self.seat: int | str | None = seat  # ALL, a seat, or None: a spectator
        self.starts = replay.round_starts()

    @property
    def last(self) -> int:
        return len(self.replay.steps) - 1

    def move(self, by: int) -> None:
        self.step = max(0, min(self.last, self.step + by))

    def to(self, step: int) -> None:
        self.step = max(0, min(self.last, step))

    def round(self, number: int) -> None:
        """Jump to the deal of round ``number`` (from 1), if the match had it."""
        if 1 <= number <= len(self.starts):
            self.step = self.starts[number - 1]

    def next_round(self, by: int) -> None:
        current = self.replay.steps[self.step].round
        self.round(max(1, min(len(self.starts), current + by)))

    def cycle_view(self) -> None:
        order: list[int | str | None] = [ALL, *range(self.replay.players), None]
        self.seat = order[(order.index(self.seat) + 1) % len(order)]

    @property
    def _viewer(self) -> int | None:
        """The seat whose view is shown (None: a spectator's, or every hand)."""
        return self.seat if isinstance(self.seat, int) else None

    def _name_of(self, who: int | None) -> str:
        names = {i: s.name for i, s in enumerate(self.replay.match.seats) if s.name}
        return seat_name(who, self._viewer, names)

    def _title(self) -> str:
        m = self.replay.match
        return _("match {id} · room {room} ({name}) · {seats}").format(
            id=m.id, room=m.room, name=m.name, seats=seat_names(m))

    def _step_lines(self, index: int) -> list[tuple[str, str]]:
        """A step's action, then each of its events in the words of the table's log (a
        two-table match's marked by their table)."""
        step, seat = self.replay.steps[index], self._viewer
        out = [("class:action", f"> {step.action}" if step.action else "> " + _("the match is dealt"))]
        for event in step.events:
            data = event.data if self.seat == ALL else event.data_for(seat)
            text, _style = event_line(event.kind, data, self._name_of, seat)
            table = data.get("table")
            mark = "" if table is None else _("table {table}").format(table=table + 1) + " · "
            out.append(("", "  " + mark + text))
        return out

    def plain(self) -> Iterator[str]:
        """The whole match as lines (``uno replay --plain``): the title, then each round's
        steps under its number, from this state's view, each card named in words too."""
        yield self._title()
        for index, step in enumerate(self.replay.steps):
            if index in self.starts:
                yield ""
                yield _("round {round}").format(round=step.round)
            for _style, line in self._step_lines(index):
                yield named_cards(line)  # a reader hears [R5] as letters

    def lines(self) -> list[tuple[str, str]]:
        """The screen, as (style, text) lines."""
        r, step = self.replay, self.replay.steps[self.step]
        seat, name_of = self._viewer, self._name_of
        who = (_("every hand") if self.seat == ALL else _("a spectator's view") if seat is None
               else _("seat {seat}'s view").format(seat=seat))
        where = _("step {step}/{last} · round {round} · {who}").format(
            step=self.step, last=self.last, round=step.round, who=who)
        out = [("class:title", f" {self._title()} "), ("", where), *self._step_lines(self.step)]
        out.append(("", ""))
        if self.seat == ALL:
            out += [("class:table", line) for line in step.position.splitlines()]
        else:
            for seats, view in r.views(self.step, seat):
                if seats is not None:  # a two-table match: which table, and its seats in order
                    out.append(("class:title", " " + _("table {table} · seats {seats}").format(
                        table=[s for s, _text in step.tables].index(seats) + 1,
                        seats=", ".join(name_of(s) for s in seats)) + " "))
                data = view.to_dict()
                for key, label in VIEW_FIELDS.items():
                    value = data[key]
                    shown = " ".join(map(str, value)) if isinstance(value, (list, tuple)) else value
                    out.append(("class:table", _("{field}: {value}").format(field=_(label), value=shown)))
        out.append(("", ""))
        out.append(("class:keys", _("→/← step · ]/[ round · 1-9 round N · Home/End · v view · q quit")))
        return out


def run_app(state: ReplayState, **app_kwargs: Any) -> None:
    """The full-screen viewer (``app_kwargs``: input and output, for tests)."""
    from prompt_toolkit import Application
    from prompt_toolkit.formatted_text import StyleAndTextTuples
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.layout import Layout, Window
    from prompt_toolkit.layout.controls import FormattedTextControl
    from prompt_toolkit.styles import Style

    keys = KeyBindings()

    def bind(*names: str) -> Any:
        return keys.add(*names)

    bind("right")(lambda e: state.move(1))
    bind("n")(lambda e: state.move(1))
    bind("left")(lambda e: state.move(-1))
    bind("p")(lambda e: state.move(-1))
    bind("]")(lambda e: state.next_round(1))
    bind("[")(lambda e: state.next_round(-1))
    bind("home")(lambda e: state.to(0))
    bind("end")(lambda e: state.to(state.last))
    bind("v")(lambda e: state.cycle_view())
    for digit in "123456789":
        bind(digit)(lambda e, d=int(digit): state.round(d))
    bind("q")(lambda e: e.app.exit())
    bind("c-c")(lambda e: e.app.exit())

    def text() -> StyleAndTextTuples:
        fragments: StyleAndTextTuples = []
        for style, line in state.lines():
            fragments.append((style, line + "\n"))
        return fragments

    style = Style.from_dict({"title": "bg:#d70000 #ffffff bold", "action": "bold",
                             "keys": "#888888"})
    window = Window(FormattedTextControl(text), wrap_lines=True)
    app: Application[None] = Application(layout=Layout(window), key_bindings=keys,
                                         full_screen=True, style=style, **app_kwargs)
    app.run()


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay", help=_("step through a kept match, or export it in the notation"),
        description=_("Play a kept match again with the engine and step through it: → / ← one "
                      "action, ] / [ one round, 1-9 round N, Home / End, v cycles the view (every "
                      "hand, each seat's, a spectator's), q quits. --plain prints every step as "
                      "lines instead; --export prints the match's actions in the notation of "
                      "docs/notation.md, with the table at each round's deal, for uno rules."),
    )
    parser.add_argument("match", metavar="MATCH",
                        help=_("the match's id, or its start (uno history)"))
    parser.add_argument("--export", action="store_true",
                        help=_("print the match in the notation"))
    parser.add_argument("--plain", action="store_true",
                        help=_("print every step as lines on stdout (no full screen: for a pipe, "
                               "a file or a screen reader), from --seat's view"))
    parser.add_argument("--seat", type=int, default=None, metavar="N",
                        help=_("start with seat N's view (default: every hand)"))
    add_db_argument(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        db = history.open_history(db_path(args))
        try:
            match = history.load_match(db, args.match)
        finally:
            db.close()
        replay = Replay(match)
    except history.HistoryError as exc:
        print(f"uno replay: {exc.translated()}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"uno replay: {exc}", file=sys.stderr)
        return 1
    if args.seat is not None and not 0 <= args.seat < replay.players:
        print("uno replay: " + _("the match had seats 0 to {last}").format(last=replay.players - 1),
              file=sys.stderr)
        return 2
    if args.export:
        sys.stdout.write(replay.export())
        return 0
    state = ReplayState(replay, ALL if args.seat is None else args.seat)
    if args.plain:
        for line in state.plain():
            print(line)
        return 0
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        print("uno replay: " + _("needs a terminal: run it in a terminal window, without redirecting "
                                 "its input or output, or add --plain to print every step on stdout "
                                 "(--export: the match in the notation)"), file=sys.stderr)
        return 2
    run_app(state)
    return 0
