"""``--plain``: the game as lines of text, for screen readers and braille displays.

No full-screen application and no cursor movement: every event is one line, written as
the full-screen UI's log says it (the same :class:`UIState` folds the same events, so the
words and their translations are the log's), and whenever this player may act, a prompt
lists the legal actions by number. The player answers with a line on stdin: a number,
``'text`` or ``say text`` to chat, ``look``, ``scores``, ``help`` or ``quit`` (each
command also as the help lists it in the player's language: a screen reader reads the
help aloud, and its listener types the word they heard; the English word works in every
language, as the README and the protocol's examples give it). After any line that is not
an action (a command, a chat line, a mistake) the numbered choices are said again, so
that they can always be heard once more; an empty line says them again too. In a
terminal, a number that comes just after the list changed, and now means something else,
was typed for the list before and is not taken (:data:`STALE_ANSWER`).

What may be done comes from the engine's view (:meth:`UIState.legal`), as on the table
screen: one numbered line per play, grouped by its cards; a choice the play still needs
(a color, a target) is the :class:`Controller`'s picker, asked as numbered follow-ups.
The networking side is the full-screen UI's own (:mod:`.net`); only the drawing differs.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import partial
from typing import Any

import trio
from unolan.client.i18n import N_, _, ngettext
from unolan.engine import (
    OPTIONS,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Draw,
    Pass,
    Phase,
    Play,
    Rules,
    RulesError,
    View,
)

from . import other_panel, render, table
from .bell import BELL, Bell
from .controller import Controller
from .form import FIELDS, OPTION_BY_NAME, CreateForm, label, shown, typable
from .run import Network  # the networking side, the full-screen UI's: it calls refresh
from .state import (
    Command,
    Said,
    Say,
    UIState,
    VerdictSaid,
    card_label,
    card_name,
    clean_text,
    color_word,
    named_cards,
)

ReadLine = Callable[[], Awaitable[str]]  # the next line typed ("" once the input ends: quit)

CHAT_PREFIXES = ("'", '"')
# The failed tries after which plain mode says it still tries, then every 10th (not two
# lines a try, for ever).
_RETRIES_SAID = (1, 2, 5, 10)
# Said above the create-room form's lists: a number's value need not be stepped to.
TYPE_A_VALUE = N_("A setting that is a number also takes one typed after its choice: 3 6 makes choice 3 six.")
TYPE_A_NUMBER = N_("Type a number (help: the other commands):")  # the last line of every prompt
# In a terminal, a number that comes this soon after the list changed, and that now means
# something else than in the list before, was typed for that one: it is not taken (the
# list is said again). A script reads each list before it answers, and is not held up.
STALE_ANSWER = 0.6  # seconds
# A line is as long as what it says: a reader takes it whole (the screen's widths wrap a
# hand onto a line of its own, which read alone names nobody).
LINE_WIDTH = 200


class PlainState(UIState):
    """The screen's state, which also writes each log line, message and chat line as it
    comes (``write``: one line of output)."""

    WRONG_PASSWORD = N_("Wrong password: type it again, or an empty line to go back")

    def __init__(self, write: Callable[[str], None], **kwargs: Any) -> None:
        self._write = write
        self.written = 0  # lines written so far (a prompt that others followed is said again)
        self.refusals = 0  # refusals from the server so far (the choices are said again after one)
        self.listed = False  # the server's rooms have been listed (else none are known yet)
        # The view is the table after the last event (an action's events come one by
        # one, and the view is drawn again after its last: a prompt in between is stale).
        self.settled = True
        super().__init__(**kwargs)
        self.listed = False

    def write(self, text: str) -> None:
        self._write(text)
        self.written += 1

    @property
    def rooms(self) -> list[dict[str, Any]]:
        return self._rooms

    @rooms.setter
    def rooms(self, rooms: list[dict[str, Any]]) -> None:
        self._rooms = rooms
        self.listed = True

    def set_view(self, view: View | None) -> None:
        self.settled = True
        super().set_view(view)

    def add_log(self, text: str, style: str = "", said: Said | VerdictSaid | None = None) -> None:
        """The line, its cards in words too: the choices name them so (``play [R5] red
        5``), and a reader hears ``[R5]`` as letters."""
        super().add_log(text, style, said)
        self.write(named_cards(text))

    def notify(self, text: str, style: str = "error", seconds: float = 6.0,
               lasting: bool = False, topic: str = "") -> None:
        super().notify(text, style, seconds, lasting, topic)
        # Not "s shows the summary again" (a key of the full screen), nor a notice the log
        # has just said (one line is read once).
        if topic not in ("summary", "back"):
            self.write(f"! {text}")

    def on_error(self, code: str, message: str) -> None:
        super().on_error(code, message)
        self.refusals += 1

    def connecting(self, where: str, attempt: int) -> None:
        self.attempts = attempt  # (before the status: a retry's is not said on its own line)
        super().connecting(where, attempt)
        if attempt in _RETRIES_SAID or (attempt > _RETRIES_SAID[-1] and attempt % _RETRIES_SAID[-1] == 0):
            self.write(_("Not connected to {where}: still trying (attempt {attempt}).").format(
                where=where, attempt=attempt + 1) + " " + _("Type {quit} to stop.").format(
                    quit=command_words(COMMANDS[Typed.QUIT])))

    def set_status(self, status: str, detail: str = "") -> None:
        before = (self.status, self.status_detail)
        super().set_status(status, detail)
        retrying = status in ("connecting", "offline") and self.attempts > 0  # said by connecting
        if (status, detail) != before and not retrying:  # as the full screen's header says it
            word = _(render.STATUS_WORDS.get(status, status))
            self.write(f"{word}: {detail}" if detail else word)

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        self.settled = False
        super().on_event(kind, data)
        if kind == "chat" and self.chat:
            name, text = self.chat[-1]
            self.write(_("{name} says: {text}").format(name=name, text=text))


@dataclass(frozen=True, slots=True)
class Option:
    """One numbered line of the prompt: what it says, and what choosing it does."""

    words: str
    take: Callable[[], None]
    # A line that gives the choice's number and then a value ("12 500"): the value for
    # the setting the choice names (why it is refused, or None). None: the choice takes none.
    typed: Callable[[str], str | None] | None = None


def text_of(fragments: render.Fragments, leave_out: Sequence[str] = ("class:overlay.hint",)) -> list[str]:
    """A render callable's formatted text as plain lines: no styles, no empty lines, and
    nothing styled as one of ``leave_out`` (by default the overlays' hints, which name
    keys of the full screen)."""
    text = "".join(f[1] for f in fragments
                   if not f[0].startswith("[") and not set(leave_out) & set(f[0].split()))
    return [line.strip() for line in text.splitlines() if line.strip()]


def cards_words(cards: Sequence[str]) -> str:
    """``[R5] red 5``, or for several cards at once ``[R5] [G5] together``."""
    if len(cards) == 1:
        return f"{card_label(cards[0])} {card_name(cards[0])}"
    return _("{cards} together").format(cards=" ".join(card_label(c) for c in cards))


def play_options(state: UIState, controller: Controller) -> list[Option]:
    """A line per set of cards the engine lets this seat play now (and one more where
    the play may carry an UNO call); color and target are asked after."""
    groups: dict[tuple[str, ...], list[Play]] = {}
    for action in state.legal():
        if isinstance(action, Play):
            groups.setdefault(tuple(c.text for c in action.cards), []).append(action)
    turn = state.my_turn
    out = []
    for cards, plays in groups.items():
        named = cards_words(cards)
        for uno in (False, True):
            some = [p for p in plays if p.uno is uno]
            if not some:
                continue
            if uno:
                words = _("play {cards} and call UNO") if turn else _("jump in with {cards} and call UNO")
            else:
                words = _("play {cards}") if turn else _("jump in with {cards}")
            out.append(Option(words.format(cards=named), partial(controller.offer, some)))
    return out


def other_options(state: UIState, controller: Controller) -> list[Option]:
    """A line for each legal action that is not a play."""
    view = state.view
    assert view is not None
    out = []
    if view.seat is not None and state.my_presence == "autopilot":
        out.append(Option(_("take your seat back: the server plays for you (autopilot)"),
                          controller.take_back))
    for action in state.legal():
        match action:
            case Draw():
                words = (ngettext("draw the {count} card you owe", "draw the {count} cards you owe",
                                  view.pending).format(count=view.pending)
                         if view.pending else _("draw a card"))
            case Pass():
                words = _("keep {card} and end your turn").format(card=card_label(view.drawn or "?"))
            case CallUno():
                words = _("call UNO")
            case Challenge():
                words = _("challenge the Wild Draw Four")
            case Catch(target=target):
                words = _("catch {who}: one card and no UNO called").format(who=state.name_of(target))
            case ChooseColor(color=color):
                words = _("the first card's color: {color}").format(color=color_word(color.value))
            case _:
                continue  # a deal is the server's
        out.append(Option(words, partial(controller.act, action)))
    return out


def picker_options(state: UIState, controller: Controller) -> list[Option]:
    """The open picker's choices (the color or the player a play still needs), then back."""
    p = state.picker
    assert p is not None
    out = []
    for value in p.options:
        if p.kind.names_color:
            words = color_word(value)
        else:
            count = state.view.counts[value] if state.view is not None else 0
            words = _("{who}, holding {cards}").format(
                who=state.name_of(value),
                cards=ngettext("{count} card", "{count} cards", count).format(count=count))
        out.append(Option(words, partial(controller.pick, value)))
    out.append(Option(_("back: choose another action"), controller.cancel))
    return out


def listed_words(room: dict[str, Any]) -> str:
    """A listed room's rules in words, as the create-room form names them (``house rules;
    stacking: same``), not in the rules' notation: a reader hears each word."""
    said = [_("{preset} rules").format(preset=shown("preset", room.get("preset", "")))]
    for name, value in room.get("options", {}).items():
        said.append(_("{field}: {value}").format(field=label(name), value=shown(name, value))
                    if name in OPTION_BY_NAME else f"{name}={value}")  # a newer server's
    return _("; ").join(said)


def rules_words(rules: object) -> str:
    """A room's rules in words, as :func:`listed_words` says a listed room's (its notation
    if they are not rules this version reads)."""
    if not isinstance(rules, dict):
        return render.rules_text(rules)
    try:
        parsed = Rules.from_dict(dict(rules))
    except (RulesError, TypeError, ValueError):  # options from a newer server
        return render.rules_text(rules)
    return listed_words({"preset": parsed.preset_name, "options": parsed.changes()})


def lobby_options(state: UIState, controller: Controller) -> list[Option]:
    """The server's rooms to join or watch, one to create, the list again."""

    def chosen(index: int, then: Callable[[], None]) -> None:
        state.room_cursor = index
        then()

    # The two that are always there come first: the list refreshes itself as rooms open
    # (new ones come last), and a number typed as it does still means what it meant.
    out = [Option(_("create a room"), controller.open_form),
           Option(_("list the rooms again"), controller.refresh_rooms)]
    for i, room in enumerate(state.rooms):
        people = listed_words(room) + ", " + _("{players}/{seats} players, {spectators} watching").format(
            players=room.get("players", 0), seats=room.get("seats", 0),
            spectators=room.get("spectators", 0))
        if room.get("tables", 1) > 1:
            people += ", " + _("two tables")
        if room.get("password"):
            people += ", " + _("a password is needed")
        if not room.get("started") and room.get("players", 0) < room.get("seats", 0):  # a seat is free
            out.append(Option(_("join {room} ({people})").format(room=room["name"], people=people),
                              partial(chosen, i, controller.join_room)))
        out.append(Option(_("watch {room} ({people})").format(room=room["name"], people=people),
                          partial(chosen, i, partial(controller.join_room, "spectator"))))
    return out


def next_value(form: CreateForm, name: str) -> Any:
    """What choosing field ``name`` would set it to (the form's own step, on a copy)."""
    trial = replace(form, options=dict(form.options))
    step_field(trial, name)
    return trial.value(name)


def step_field(form: CreateForm, name: str) -> None:
    """Field ``name`` of the form to its next value (after the last: the first)."""
    form.field_index = FIELDS.index(name)
    form.step(1)


def type_field(form: CreateForm, name: str, text: str) -> str | None:
    """A number typed for field ``name``; the reason it is refused, or None."""
    form.field_index = FIELDS.index(name)
    return form.typed(text)


def stepped(form: CreateForm, name: str, value: str) -> Option:
    """Field ``name``, said as ``value``: choosing it steps it to the value it names; a
    number's value may also be typed after the choice's number."""
    return Option(_("{field}: {value} (choose for {next})").format(
        field=label(name), value=value, next=shown(name, next_value(form, name))),
        partial(step_field, form, name), partial(type_field, form, name) if typable(name) else None)


def ask_for(state: UIState, mode: str) -> None:
    """The next line typed is the answer to ``mode`` (the room's name, its password)."""
    state.input_mode = mode


def form_options(state: UIState, controller: Controller, create: Callable[[], None],
                 rule_options: Callable[[bool], None]) -> list[Option]:
    """The create-room form as a list: create, then each of the room's own settings
    (choosing one steps it to its next value, or asks for the name or the password), the
    rule options, and back to the lobby."""
    form = state.form
    assert form is not None
    out = [Option(_("create the room"), create)]
    for name in ("preset", "seats", "timer"):
        out.append(stepped(form, name, shown(name, form.value(name))))
    out.append(Option(_("{field}: {value} (choose to type another)").format(
        field=label("name"), value=form.name), partial(ask_for, state, "room_name")))
    # Not its dots, as on the screen: read aloud they say its length, one by one.
    out.append(Option(_("password: set (choose to type another, or an empty line for none)")
                      if form.password else _("password: none (choose to type one)"),
                      partial(ask_for, state, "room_password")))
    out.append(Option(ngettext("rule options: {count} changed from the preset",
                               "rule options: {count} changed from the preset",
                               len(form.options)).format(count=len(form.options)),
                      partial(rule_options, True)))
    out.append(Option(_("back to the lobby"), controller.close_form))
    return out


def rule_options_list(state: UIState, rule_options: Callable[[bool], None]) -> list[Option]:
    """Every rule option with its value (choosing one steps it to its next value; the
    preset's own value is said beside a changed one), then back to the room's settings."""
    form = state.form
    assert form is not None
    out = [Option(_("done: back to the room's settings"), partial(rule_options, False))]
    for option in OPTIONS:
        name = option.name
        value = shown(name, form.value(name))
        if name in form.options:
            value = _("{value}, the preset's {default}").format(
                value=value, default=shown(name, form.default(name)))
        out.append(stepped(form, name, value))
    return out


def room_options(state: UIState, controller: Controller) -> list[Option]:
    """In a room before its match: ready, start and the bots (the host's), leave."""
    room = state.room or {}
    out = []
    if state.my_seat is not None:
        ready = any(e["seat"] == state.my_seat and e.get("ready") for e in room.get("seats", ()))
        out.append(Option(_("not ready after all") if ready else _("ready"), controller.ready))
        if room.get("host") == state.my_seat:  # the same numbers as the seats fill up
            out.append(Option(_("start the match"), controller.start))
            # What the seats say can be done: a bot for an empty seat, a bot sitting to
            # remove (the list is said again as they change; the choices before these
            # keep their numbers).
            seats = room.get("seats", ())
            if any(entry.get("state") == "empty" for entry in seats):
                out.append(Option(_("add a bot"), controller.add_bot))
            if any(entry.get("kind") == "bot" for entry in seats):
                out.append(Option(_("remove a bot"), controller.remove_bot))
    out.append(Option(_("leave the room"), controller.leave))
    return out


@dataclass(frozen=True, slots=True)
class Word:
    """A command: its English word (typed in every language), the word in the player's
    language (``_(word)``, typed as well) and what it does, as the help says them."""

    word: str
    meaning: str
    also: tuple[str, ...] = ()  # other spellings (English)


class Typed(Enum):
    """What a word typed in plain mode asks for, besides an action's number."""

    LOOK = "look"
    SCORES = "scores"
    HELP = "help"
    QUIT = "quit"
    SAY = "say"


SAY = Word(N_("say"), "")  # ``say TEXT``: the help's line for ``'TEXT`` names it
COMMANDS = {
    Typed.LOOK: Word(N_("look"), N_("the table, the hands' sizes, your hand and the choices")),
    Typed.SCORES: Word(N_("scores"), N_("the scores and the last round")),
    Typed.HELP: Word(N_("help"), N_("this list"), ("?",)),
    Typed.QUIT: Word(N_("quit"), N_("leave (your seat is held for a while)"), ("exit",)),
    Typed.SAY: SAY,
}
HELP_HEAD = (
    (N_("NUMBER"), N_("do what the prompt lists under that number")),
    (N_("'TEXT"), N_("say TEXT to the table (also: {say} TEXT)")),
    (N_("an empty line"), N_("the choices again")),
)


def command_words(word: Word) -> str:
    """``look``, or in another language ``看 (look)``: what the help lists for it."""
    mine = _(word.word)
    return word.word if mine == word.word else f"{mine} ({word.word})"


def read_command(typed: str) -> Typed | None:
    """The command a typed word names (its English word, another spelling, or the word
    in the player's language), or None."""
    typed = typed.casefold()
    for name, word in COMMANDS.items():
        if typed in (word.word, _(word.word).casefold(), *word.also):
            return name
    return None


class PlainUI:
    """Lines out, lines in: writes the prompt when what may be done changes, and turns
    each line typed into the controller's action."""

    def __init__(self, state: PlainState, controller: Controller, bell: bool = False, *,
                 stale_answer: float = 0.0, clock: Callable[[], float] = time.monotonic) -> None:
        """``stale_answer``: how soon after the list changed a number that changed meaning
        is not taken (0: always taken, as for a script; see :data:`STALE_ANSWER`)."""
        self.state = state
        self.controller = controller
        self.bell = Bell() if bell else None
        self.options: list[Option] = []
        self.stale_answer = stale_answer
        self.clock = clock
        self._before: list[Option] = []  # the list said before the last one, if not answered
        self._last: list[Option] = []  # the last list of choices said and not answered yet
        self._changed = -float("inf")  # when the last list was said (the clock's time)
        self._shown: tuple[Any, ...] | None = None  # the prompt last written
        self._prompted: int | None = None  # the state's line count just after it (None: no choices)
        self._heading_said = False  # the next prompt's heading was just written (by look)
        self._watched = False  # a spectator has been shown the table of the match watched
        self._scored: int | None = None  # the round's result last written
        self._refusals = 0  # the state's refusals when the choices were last said
        self._rule_options = False  # the create-room form lists its rule options
        self._creating: int | None = None  # a room asked for: the refusals then (see _create)

    def write(self, text: str) -> None:
        self.state.write(text)

    # -- out ------------------------------------------------------------------------------

    def refresh(self) -> None:
        """After each change of the state: the bell, the results, a new prompt."""
        s = self.state
        if self.bell is not None and self.bell.ring(s):
            self.write(BELL)
        if s.round_result is not None and id(s.round_result) != self._scored and s.show_scores and (
                s.other_table is None or s.totals_round == s.round_result.get("round")):
            # (a two-table room's: once both tables are over, with the rotation's new totals)
            self._scored = id(s.round_result)
            for line in text_of(render.scoreboard(s, LINE_WIDTH)):
                self.write(line)
        if s.view is not None and s.view.seat is None and not self._watched and s.settled:
            self._watched = True  # watching a match under way: its table, once
            self.look()
        elif s.view is None:
            self._watched = False
        if s.refusals != self._refusals:  # a refusal is a mistake: the choices are said again
            self._refusals, self._shown = s.refusals, None
        heading, options = self.prompt()
        # The room's seats change as people come (each says so in a line): the prompt
        # is written again when its choices change, or at the table when the table does.
        # (A question, a prompt without choices, is its heading.)
        now_shown = (tuple(heading) if s.view is not None or not options else (),
                     tuple(o.words for o in options))
        if now_shown == self._shown:
            if self._prompted is not None and s.written > self._prompted:
                # Lines came after it (chat, the deal's check): the last line asks again.
                self.write(_(TYPE_A_NUMBER))
                self._prompted = s.written
            return
        if options and [o.words for o in options] != [o.words for o in self._last]:
            self._before, self._last, self._changed = self._last, options, self.clock()
        self._shown, self.options = now_shown, options
        if self._heading_said:  # look said the table: only the choices follow
            self._heading_said, heading = False, heading[:1] if options else heading
        for line in heading:
            self.write(line)
        for number, option in enumerate(options, 1):
            self.write(f"{number}. {option.words}")
        self._prompted = None
        if options:
            self.write(_(TYPE_A_NUMBER))
            self._prompted = s.written

    def prompt(self) -> tuple[list[str], list[Option]]:
        """The heading and the numbered choices for now (none: nothing to decide)."""
        s, c, v = self.state, self.controller, self.state.view
        if s.input_mode == "join_password":
            return [_("Type the room's password (an empty line goes back):")], []
        if s.input_mode == "room_name":
            return [_("Type the new room's name (an empty line keeps it):")], []
        if s.input_mode == "room_password":
            return [_("Type a password for the new room (an empty line: none):")], []
        if v is None:
            if s.status != "connected":
                self._creating = None
                return [], []
            if s.room is not None:
                self._creating = None
                if s.starting:  # uno play starts the match itself: nothing to choose yet
                    return [], []
                if s.room.get("started"):  # under way: the table comes with its next events
                    return ([_("The match in room {name} is under way: the table follows.").format(
                        name=s.room.get("name"))] if s.my_seat is None else []), []
                return text_of(render.room(s, said=rules_words)), room_options(s, c)
            if not s.listed:  # uno play is opening its room
                return [], []
            if s.form is not None:
                if self._rule_options:
                    return ([_("Rule options of the new room (choose one for its next value):"),
                             _(TYPE_A_VALUE)],
                            rule_options_list(s, self._show_rule_options))
                return ([_("A new room: {preset} rules, {seats} seats").format(
                    preset=shown("preset", s.form.preset), seats=s.form.seats), _(TYPE_A_VALUE)],
                    form_options(s, c, self._create, self._show_rule_options))
            self._rule_options = False
            if self._creating == s.refusals:  # the room comes next (or a refusal)
                return [], []
            self._creating = None
            if s.joining is not None or s.room_id is not None:  # a password sent, or joined:
                return [], []  # the room comes next, or a refusal (a list said between
                # would take the script's next line as its answer)
            return [_("Rooms on {address}").format(address=s.address or _("the server"))], lobby_options(s, c)
        if not s.settled or s.catching_up:  # the table as it is comes first
            return [], []
        if s.picker is not None:
            return [s.picker.title], picker_options(s, c)
        if v.phase is Phase.MATCH_OVER:
            if s.match_result is None:  # its event (who won) comes next
                return [], []
            if v.seat is None:
                return [_("The match is over.")], [Option(_("back to the lobby"), c.leave)]
            return [_("The match is over.")], [
                Option(_("back to the room for another match"), partial(c.after_match, to_lobby=False)),
                Option(_("leave the room for the lobby"), partial(c.after_match, to_lobby=True))]
        if s.sent is not None:
            return [], []  # the table has not answered yet
        options = play_options(s, c) + other_options(s, c)
        if not options:
            return [], []
        if s.my_turn:
            turn = (ngettext("Your turn: {seconds} second.", "Your turn: {seconds} seconds.",
                             s.timer).format(seconds=s.timer) if s.timer else _("Your turn."))
            return [turn, *self.table_lines()], options
        if v.phase is Phase.ROUND_OVER:  # (on autopilot: the seat may still be taken back)
            return [_("The round is over; you may:")], options
        return [_("Out of turn, you may:")], options

    def _show_rule_options(self, shown: bool) -> None:
        self._rule_options = shown

    def _create(self) -> None:
        """Ask for the form's room; until it comes (or a refusal does) the lobby's list
        is not said again."""
        self.controller.create_room()
        if self.state.form is None:  # asked (a room the rules refuse keeps the form open)
            self._creating = self.state.refusals

    def look(self) -> None:
        """The seats, the pile and the hand (each card in words); in a two-table room, then
        the other table as its panel on the screen says it."""
        s = self.state
        assert s.view is not None
        catchable = set(s.catchable()) | set(s.view.catchable)
        for seat in range(len(s.view.counts)):
            self.write(text_of(table.seat_line(s, seat, LINE_WIDTH, catchable))[0])
        for out in self.table_lines(named=True):
            self.write(out)
        for out in text_of(other_panel.panel(s, LINE_WIDTH)):
            self.write(out)

    def table_lines(self, named: bool = False) -> list[str]:
        """The top of the pile (and anything pending), then this player's hand (each
        card also in words when ``named``)."""
        s = self.state
        if s.view is None:
            return []
        # Left out of the prompt: the rules (a hint) and the clock, which ticks.
        lines = text_of(render.table_info(s), () if named else ("class:hint", "class:timer", "class:timer.low"))
        if s.view.seat is not None:
            hand = s.hand()
            cards = (", ".join(f"{card_label(c)} {card_name(c)}" for c in hand) if named
                     else " ".join(card_label(c) for c in hand))
            lines.append(_("Your hand ({count}): {cards}").format(count=len(hand), cards=cards))
        return lines

    # -- in -------------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """One line typed; False once the player quits."""
        s = self.state
        if s.input_mode is not None:  # the line the prompt asked for (a password)
            self.controller.submit_input(line.rstrip("\r\n"))
            return True
        text = clean_text(line)
        number, _space, value = text.partition(" ")
        if number.isdigit() and value and not text.startswith(CHAT_PREFIXES):
            self._type(int(number), value)
            return True
        if not text or not text.isdigit() or not self._choose(int(text)):
            self._shown = None  # not an action: the choices are said again after it
        if not text or text.isdigit():
            return True
        if text.startswith(CHAT_PREFIXES):
            return self._say(text[1:])
        word, _space, rest = text.partition(" ")
        match read_command(word):
            case Typed.QUIT:
                return False
            case Typed.SAY:
                return self._say(rest)
            case Typed.HELP:
                self.write(_("Commands:"))
                for command, meaning in HELP_HEAD:
                    self.write(f"{_(command)}: {_(meaning).format(say=command_words(SAY))}")
                for entry in COMMANDS.values():
                    if entry.meaning:
                        self.write(f"{command_words(entry)}: {_(entry.meaning)}")
            case Typed.LOOK:
                if s.view is not None:
                    self.look()
                    self._heading_said = True
                else:
                    self.write("! " + _("no table to look at yet: a match shows one"))
            case Typed.SCORES:
                for out in text_of(render.scoreboard(s, LINE_WIDTH)):
                    self.write(out)
            case _:
                self.write("! " + _("{word} is not a command: type a number, or {help}").format(
                    word=word, help=command_words(COMMANDS[Typed.HELP])))
        return True

    def _say(self, text: str) -> bool:
        text = text.strip()
        if text:
            self.controller.send(Say(text[:300]))
        else:
            self.write("! " + _("nothing to say: type ' then the words"))
        return True

    def _choose(self, number: int) -> bool:
        """Take choice ``number`` of the prompt: whether there was one."""
        self.refresh()  # what may be done now (the table may have moved since the prompt)
        if not 1 <= number <= len(self.options):
            if self.options:
                said = _("there is no choice {number} now").format(number=number)
            elif self.state.connected_once:
                said = _("nothing to choose now: wait for your turn")
            else:
                said = _("nothing to choose: not connected yet")
            self.write("! " + said)
            return False
        if self._meant_for_the_list_before(number):
            self.write("! " + _("the choices changed as you answered: choose again"))
            self._before = []  # the list is said again after this: the next number is for it
            return False
        # Answered: what it starts is said, then the next prompt (a list that follows the
        # player's own answer, a color say, surprises nobody: there is none before it),
        # also when it is the same list (a bot added, a mistake said with !): a script
        # answers after each prompt, and a list not said again would keep it waiting.
        self._prompted, self._last, self._shown = None, [], None
        self.options[number - 1].take()
        return True

    def _type(self, number: int, value: str) -> None:
        """A value typed for choice ``number`` (a setting that takes a number)."""
        self.refresh()
        if not 1 <= number <= len(self.options):
            self.write("! " + _("there is no choice {number} now").format(number=number))
        elif (typed := self.options[number - 1].typed) is None:
            self.write("! " + _("choice {number} takes no value: type the number alone").format(
                number=number))
        elif refused := typed(value):
            self.write("! " + refused)
        self._prompted, self._last, self._shown = None, [], None  # said again, as it is now

    def _meant_for_the_list_before(self, number: int) -> bool:
        """Whether choice ``number`` came too soon after a new list to have been read, and
        meant something else in the list before (a number the list before did not have
        was typed for the new one)."""
        before = self._before
        return (self.clock() - self._changed < self.stale_answer and number <= len(before)
                and before[number - 1].words != self.options[number - 1].words)


async def run_plain(state: PlainState, network: Network, read_line: ReadLine, *, bell: bool = False,
                    stale_answer: float = 0.0) -> int:
    """Run until the player quits or the input ends; the exit status. An error that
    stops the networking side comes out as it is (an ``ExceptionGroup``)."""
    send_channel, receive_channel = trio.open_memory_channel[Command](256)

    def send(command: Command) -> None:
        try:
            send_channel.send_nowait(command)
        except trio.WouldBlock:
            state.notify(_("too many keys at once: slow down"))

    ui = PlainUI(state, Controller(state, send), bell=bell, stale_answer=stale_answer)
    async with trio.open_nursery() as nursery:

        async def networking() -> None:
            await network(state, receive_channel, ui.refresh)
            nursery.cancel_scope.cancel()  # it ended by itself: so does the UI

        nursery.start_soon(networking)
        while (line := await read_line()) and ui.handle(line):
            ui.refresh()
        state.quitting = True
        nursery.cancel_scope.cancel()
    return state.exit_status()


async def read_stdin() -> str:
    """A line from stdin (a terminal or a pipe): in a thread, so the game goes on while
    the player types."""
    return await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)


def choose_game(seconds: float) -> tuple[str, int] | None:
    """``uno join --plain`` without an address: the games found on the LAN by number, or
    an address typed; None (having said why) when there is nothing to join."""
    from unolan.client.cli import read_address
    from unolan.client.discovery import DiscoveryUnavailable, find_games

    try:
        games = [g for g in trio.run(find_games, seconds) if g.joinable]
    except DiscoveryUnavailable as exc:
        write_stdout(_("{problem}: no games found").format(problem=exc))
        games = []
    for number, game in enumerate(games, 1):
        write_stdout(f"{number}. {game.name} ({game.address})")
    write_stdout(_("Type a number, or the address of a server (HOST[:PORT]):") if games else
                 _("No games found on the LAN. Type the address of a server (HOST[:PORT]):"))
    while text := sys.stdin.readline():
        text = text.strip()
        if text.isdigit() and 1 <= int(text) <= len(games):
            game = games[int(text) - 1]
            return game.host, game.port
        try:
            return read_address(text) if text else None
        except ValueError as exc:
            write_stdout("! " + _("expected HOST[:PORT], got {text!r} ({problem})").format(
                text=text, problem=exc))
    return None


def write_stdout(text: str) -> None:
    end = "" if text == BELL else "\n"
    sys.stdout.write(text + end)
    sys.stdout.flush()


def run(state: PlainState, network: Network, *, bell: bool = False) -> int:
    """``--plain`` from the command line: stdin and stdout; the exit status."""
    status = 128 + 2  # Ctrl-C (SIGINT), as a shell counts it
    try:
        stale_answer = STALE_ANSWER if sys.stdin.isatty() else 0.0  # a person reads the lists
        status = trio.run(partial(run_plain, state, network, read_stdin, bell=bell,
                                  stale_answer=stale_answer))
    except* KeyboardInterrupt:
        pass  # leaving is what Ctrl-C is for: no traceback
    return status
