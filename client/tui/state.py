"""The terminal UI's state: everything the screen shows, and nothing that draws it.

The UI is a thin view. The networking side writes into a :class:`UIState` (the seat's
engine ``View``, lobby data, events turned into log lines, the connection status) and
calls ``invalidate``; render callables read it; key handlers turn it into commands. The
state holds no prompt_toolkit or Trio objects, so tests build it straight from an engine
position: ``UIState(view=game.view(0))``.
"""

from __future__ import annotations

import enum
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from unolan.client.i18n import ENGLISH, N_, _, language, ngettext
from unolan.client.reasons import refusal_text
from unolan.client.verify import FAILED, VERIFIED, Verdict
from unolan.engine import (
    EVENT_KINDS,
    Action,
    CallUno,
    Card,
    Catch,
    IllegalAction,
    Phase,
    Play,
    View,
)
from unolan.engine.cards import ALL_CARDS
from unolan.engine.phases import IN_PLAY

from .form import CreateForm
from .motion import Motion

if TYPE_CHECKING:
    from .other_table import OtherTable
    from .start_screen import StartScreen

# The colors' names in the style's classes (card.red); what a player reads is color_word.
COLOR_NAMES = {"R": "red", "Y": "yellow", "G": "green", "B": "blue"}
COLOR_WORDS = {"R": N_("red"), "Y": N_("yellow"), "G": N_("green"), "B": N_("blue")}
# The cards' names as the rule pages name them (translated where shown).
KIND_NAMES = {
    "S": N_("Skip"), "R": N_("Reverse"), "D2": N_("Draw Two"), "W": N_("Wild"),
    "W4": N_("Wild Draw Four"), "WR": N_("Wild Reverse"), "WS": N_("Wild Skip"),
    "WS2": N_("Wild Skip Two"), "WD2": N_("Wild Draw Two"), "WT2": N_("Wild Targeted Draw Two"),
    "WX": N_("Wild Forced Swap"),
}


# -- commands: what keys put on the channel to the networking side ----------------------


@dataclass(frozen=True, slots=True)
class Act:
    """An engine action for this seat; the client library adds the room seq."""

    action: Action


class Ask(enum.StrEnum):
    """The lobby requests a key may make (each the client library's method of that name)."""

    LIST_ROOMS = "list_rooms"
    CREATE_ROOM = "create_room"
    JOIN = "join"
    LEAVE = "leave"
    READY = "ready"
    START = "start"
    ADD_BOT = "add_bot"
    REMOVE_BOT = "remove_bot"
    SYNC = "sync"


@dataclass(frozen=True, slots=True)
class Request:
    """A lobby request; ``params`` are its message's fields."""

    kind: Ask
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Say:
    """A chat line."""

    text: str


@dataclass(frozen=True, slots=True)
class Connect:
    """The start screen: join the server at ``host``:``port`` (found on the LAN or typed)."""

    host: str
    port: int


@dataclass(frozen=True, slots=True)
class Rescan:
    """The start screen: search the LAN again from scratch."""


@dataclass(frozen=True, slots=True)
class Back:
    """Esc in the lobby of a game chosen on the start screen: back to the games on the LAN
    (also while its address is still being tried)."""


Command = Act | Request | Say | Connect | Rescan | Back


# -- pickers: a choice the player must make before an action can be sent -----------------


class Choice(enum.Enum):
    """What a picker asks for."""

    COLOR = enum.auto()  # the color a play names
    SEAT = enum.auto()  # the seat a play targets
    CATCH = enum.auto()  # whom to catch
    FIRST_COLOR = enum.auto()  # the color of a Wild turned up first

    @property
    def names_color(self) -> bool:
        return self in (Choice.COLOR, Choice.FIRST_COLOR)


@dataclass(slots=True)
class Picker:
    """Choose one of ``options`` (color letters or seat numbers) to finish ``plays``."""

    kind: Choice
    options: list[Any]
    plays: Sequence[Action]
    title: str
    cursor: int = 0


@dataclass(slots=True)
class Notice:
    text: str
    style: str  # "error" | "info"
    until: float
    lasting: bool = False  # not about the table: stays when the table moves
    topic: str = ""  # a newer notice of the same topic replaces it ("": none)


_ESCAPES = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.)?")


def clean_text(text: str) -> str:
    """Typed or pasted text made safe to send and show: terminal escape sequences
    (``\x1b[31m``) removed, other control characters turned into spaces."""
    text = _ESCAPES.sub("", text)
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def card_label(text: str) -> str:
    """``[R5]``: readable without color."""
    return f"[{text}]"


# A card's notation as a word of a sentence (the longest first: W4 before W).
_CARDS = "(?:" + "|".join(sorted((c.text for c in ALL_CARDS), key=len, reverse=True)) + ")"
_CARD_WORD = re.compile(rf"\b{_CARDS}\b")


def card_style(text: str) -> str:
    card = Card.parse(text)
    return f"class:card.{COLOR_NAMES[card.color.value]}" if card.color else "class:card.wild"


def color_word(letter: str) -> str:
    """A color letter (``R``) as the player reads it (``red``, ``紅色``)."""
    return _(COLOR_WORDS[letter]) if letter in COLOR_WORDS else "?"


# A run of card labels in a line: ``[R5] [G5]``.
_LABELS = re.compile(rf"\[{_CARDS}\](?: \[{_CARDS}\])*")


def named_cards(line: str) -> str:
    """``line`` with each card label followed by the card in words (``[R5] red 5, [G5]
    green 5``): for a reader who hears the line rather than sees its colors."""
    return _LABELS.sub(lambda m: ", ".join(f"{label} {card_name(label[1:-1])}"
                                           for label in m.group(0).split(" ")), line)


def card_name(text: str) -> str:
    """A card in words: ``red 5``, ``green Skip``, ``Wild Draw Four``."""
    card = Card.parse(text)
    kind = KIND_NAMES.get(card.kind.value)
    kind_word = _(kind) if kind else card.kind.value
    if not card.color:
        return kind_word
    return _("{color} {kind}").format(color=color_word(card.color.value), kind=kind_word)


def penalty_words(view: View) -> str:
    """The pending penalty as cards, and what it is, from the view's facts (the top card,
    how many penalty cards are stacked, whether it may be challenged): ``4 cards (2
    stacked, the last Draw Two)``. Never ``+4``, which is the Wild Draw Four's face and
    would invite its challenge key."""
    cards = ngettext("{count} card", "{count} cards", view.pending).format(count=view.pending)
    kind = KIND_NAMES.get(Card.parse(view.top).kind.value) if view.top else None
    kind_word = _(kind) if kind else _("penalty card")
    if view.challengeable:
        return _("{cards} ({kind}, may be challenged)").format(cards=cards, kind=kind_word)
    if view.stack > 1:
        return _("{cards} ({stack} stacked, the last {kind})").format(
            cards=cards, stack=view.stack, kind=kind_word)
    return _("{cards} ({kind})").format(cards=cards, kind=kind_word)


def sort_hand(hand: tuple[str, ...] | list[str]) -> list[str]:
    """By color (wilds last), then kind: the cards' own order."""
    return sorted(hand, key=lambda text: Card.parse(text).order)


def seat_name(seat: int | None, me: int | None, names: dict[int, str]) -> str:
    """A seat as the screen names it: "you", the player's name, or "seat 2"."""
    if seat is None:
        return _("a spectator")
    if seat == me:
        return _("you")
    return names.get(seat) or _("seat {seat}").format(seat=seat)


def team_members(view: View, team: int) -> list[int]:
    """The seats of ``team`` this round."""
    return [seat for seat in range(len(view.counts)) if view.team_of(seat) == team]


@dataclass(frozen=True, slots=True)
class Said:
    """A log line's event with the names and seat of its moment, so it can be said again."""

    kind: str
    data: dict[str, Any]
    names: dict[int, str]
    me: int | None

    def line(self) -> tuple[str, str] | None:
        return describe(self.kind, self.data, lambda seat: seat_name(seat, self.me, self.names),
                        self.me)


@dataclass(frozen=True, slots=True)
class VerdictSaid:
    """A log line for the check of a round's deal, so it can be said again."""

    verdict: Verdict

    def line(self) -> tuple[str, str]:
        v = self.verdict
        if v.status == VERIFIED:
            return _("✓ round {round}: the deal is verified fair").format(round=v.round), "info"
        if v.status == FAILED:
            return _("WARNING: round {round} was NOT dealt as the server committed: {reason}").format(
                round=v.round, reason=v.reason_text()), "error"
        return _("round {round}: the deal could not be checked ({reason})").format(
            round=v.round, reason=v.reason_text()), ""


class UIState:
    """What the screen shows. Mutated only on the UI thread (asyncio host + Trio guest)."""

    # Words that name a key say this UI's (plain mode's are lines, not keys).
    WRONG_PASSWORD = N_("Wrong password: type it again, or Esc to go back")

    def __init__(
        self,
        *,
        view: View | None = None,
        name: str = "you",
        address: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.clock = clock
        self.name = name
        self.address = address
        self.status = "offline"  # connecting | connected | reconnecting | offline
        self.status_detail = ""
        self.start: StartScreen | None = None  # the games on the LAN, until one is joined
        self.from_start = False  # the server was chosen on the start screen: Esc goes back
        self.last_failure = ""  # why the last attempt to connect failed ("": none did)
        self.attempts = 0  # failed attempts to connect, since the last success
        self.connected_once = False  # a server answered at some point of this session
        self.connect_started = clock()
        # lobby
        self.rooms: list[dict[str, Any]] = []
        self.room_cursor = 0
        self.room: dict[str, Any] | None = None  # the latest ``seats`` message, as a map
        self.room_id: str | None = None
        self.my_seat: int | None = None
        self.form: CreateForm | None = None
        self.joining: Request | None = None  # a join waiting for the room's password
        self.catching_up = False  # a resume's missed events are being shown: the table is not yet now
        self.starting = False  # uno play is opening its room and starting the match itself
        # table
        self.view: View | None = None
        # In a two-table room: the table the player does not sit at (see other_table.py).
        self.other_table: OtherTable | None = None
        self._legal: list[Action] = []
        self._legal_of: View | None = None
        self.names: dict[int, str] = {}
        self.bots: set[int] = set()
        self.presence: dict[int, str] = {}  # seat -> connected | away | autopilot
        # Each seat's presence as the log last said it (or as first seen): a seats message
        # may show a change before the event that says it, which is news all the same.
        self._heard: dict[int, str] = {}
        self.log: deque[tuple[str, str]] = deque(maxlen=300)
        # What each log line says, to say it again in another language (None: a line
        # written as it is): the event, and the names and seat it was told with.
        self._said: deque[Said | VerdictSaid | None] = deque(maxlen=300)
        self.chat: deque[tuple[str, str]] = deque(maxlen=100)
        self.round_result: dict[str, Any] | None = None  # the last round's, until the next ends
        self.match_result: dict[str, Any] | None = None
        self.totals_round = 0  # a two-table room: the last round the rotation's totals count
        self.deals: dict[int, str] = {}  # round -> its deal's verdict: verified, failed, unchecked
        self.match_left = False  # the player went back to the room after the match
        self.timer = 0  # seconds per turn (0: none)
        self.turn_deadline: float | None = None
        self.notices: deque[Notice] = deque(maxlen=4)
        self.sent: Command | None = None  # the last command, until the table answers
        # purely local UI state
        self.cursor = 0
        self.marked: list[int] = []  # indices into hand(), in the order marked
        self.picker: Picker | None = None
        self.help_open = False
        self.help_scroll = 0  # lines of the help scrolled off the top (↑ ↓)
        # "chat" | "room_name" | "form_value" while the input line is open
        self.input_mode: str | None = None
        self.uno_armed = False
        self.false_call: View | None = None  # the table a false UNO call was warned about
        self.show_scores = False
        self.quitting = False
        self.theme = "dark"  # the table's colors: dark, light or high-contrast (themes.py)
        self.motion = Motion()  # what moves on the table now (``Motion(moving=False)``: nothing flies)
        if view is not None:
            self.set_view(view)

    # -- the table ------------------------------------------------------------------

    @property
    def seat(self) -> int | None:
        return self.view.seat if self.view is not None else self.my_seat

    def set_view(self, view: View | None) -> None:
        """A new view of the table (after each event or a snapshot)."""
        if view is not None and view.phase is Phase.MATCH_OVER and self.match_left:
            return  # the player left this match's table for the room
        old = self.hand()
        selected = old[self.cursor] if 0 <= self.cursor < len(old) else None
        before, self.view = self.view, view
        if view is None:
            return
        self.match_left = False
        if before is None or _table_key(before) != _table_key(view):
            # They were about a table that has moved on.
            self.notices = deque((n for n in self.notices if n.lasting), maxlen=self.notices.maxlen)
        if view.seat is not None:
            self.my_seat = view.seat
        new = self.hand()
        if old != new:
            self.marked = []
            if selected in new:
                self.cursor = new.index(selected)
        if view.drawn and view.drawn in new and view.turn == view.seat:
            self.cursor = new.index(view.drawn)
        elif view.turn == view.seat and (before is None or before.turn != view.seat or before.round != view.round):
            # A turn begins: the cursor on a card the engine lets this seat play, if any.
            playable = {a.cards[0].text for a in self.legal() if isinstance(a, Play) and len(a.cards) == 1}
            if not (0 <= self.cursor < len(new) and new[self.cursor] in playable):
                self.cursor = next((i for i, card in enumerate(new) if card in playable), self.cursor)
        self.cursor = max(0, min(self.cursor, len(new) - 1))
        if self.uno_armed and old != new and len(new) != 2 and not self.play_leaves_one():
            # The call rode on a play to one card of the hand it was armed on: a hand
            # changed (a draw, a penalty) that no play takes to one card lets it go.
            self.uno_armed = False
            self.notify(_("UNO call cancelled"), "info", 3, topic="uno")
        if self.picker is not None and not self._picker_still_valid():
            self.picker = None

    def _picker_still_valid(self) -> bool:
        assert self.picker is not None
        legal = self.legal()
        return all(p in legal for p in self.picker.plays)

    def hand(self) -> list[str]:
        """The hand in display order (by color, then number or symbol)."""
        return sort_hand(self.view.hand) if self.view is not None else []

    def play_leaves_one(self) -> bool:
        """Whether a play open now takes the hand to one card (an UNO call may ride on it)."""
        return any(isinstance(a, Play) and a.uno for a in self.legal())

    def legal(self) -> list[Action]:
        """This seat's legal actions now, straight from the engine's rules."""
        view = self.view
        if view is None or view.seat is None:
            return []
        if self._legal_of is not view:
            self._legal = view.legal_actions()
            self._legal_of = view
        return self._legal

    def name_of(self, seat: int | None) -> str:
        return seat_name(seat, self.seat, self.names)

    @property
    def my_turn(self) -> bool:
        """Whether this seat is asked to act: in turn while a round is played (once it is
        over, ``turn`` still names the seat that ended it, which acts no more)."""
        v = self.view
        return v is not None and v.seat is not None and v.turn == v.seat and v.phase in IN_PLAY

    def catchable(self) -> list[int]:
        """Seats this player can catch right now (one card, UNO not called)."""
        return [a.target for a in self.legal() if isinstance(a, Catch)]

    def jump_ins(self) -> list[Play]:
        """Plays out of turn (jump-ins) open to this seat right now."""
        if self.my_turn:
            return []
        return [a for a in self.legal() if isinstance(a, Play)]

    def can(self, kind: type) -> Action | None:
        for action in self.legal():
            if isinstance(action, kind):
                return action
        return None

    def can_call_uno(self) -> bool:
        return self.can(CallUno) is not None

    def refusal(self, action: Action) -> str:
        """Why the engine would refuse this seat's ``action`` now, in the screen's words
        (empty when it would not)."""
        view = self.view
        return self._words(view.refusal(action) if view is not None and view.seat is not None else None)

    def play_refusal(self, cards: tuple[Card, ...]) -> str:
        """Why the engine would refuse every play of ``cards`` now (whichever color and
        target it named), in the screen's words; empty when some play of them is legal."""
        view = self.view
        return self._words(view.play_refusal(cards) if view is not None and view.seat is not None else None)

    def _words(self, refused: IllegalAction | None) -> str:
        if refused is None:
            return ""
        return self.reason_words(refused.code, refused.reason)

    def reason_words(self, code: str, reason: str) -> str:
        """An engine's or the server's reason (English, with seat numbers and card
        notation) in the screen's words: in the player's language, names for seats and
        ``[R5]`` for cards."""
        return _CARD_WORD.sub(lambda m: card_label(m.group(0)),
                              self.with_names(refusal_text(code, reason, self.name_of)))

    def with_names(self, text: str) -> str:
        """``seat 2`` in a message from the engine or the server, as that player's name."""
        return re.sub(r"\bseat (\d+)", lambda m: self.name_of(int(m.group(1))), text)

    def seconds_left(self) -> int | None:
        if self.turn_deadline is None:
            return None
        return max(0, int(self.turn_deadline - self.clock() + 0.999))

    # -- messages -------------------------------------------------------------------

    def notify(self, text: str, style: str = "error", seconds: float = 6.0,
               lasting: bool = False, topic: str = "") -> None:
        """A transient message under the hand (an illegal play, a jump-in too late...);
        ``lasting``: it stays its time even when the table moves; ``topic``: it replaces
        the last one about the same thing instead of piling up."""
        if topic:
            self.drop_notices(topic)
        self.notices.append(Notice(text, style, self.clock() + seconds, lasting, topic))

    def drop_notices(self, topic: str) -> None:
        """The notices about ``topic`` go (what they said no longer holds)."""
        self.notices = deque((n for n in self.notices if n.topic != topic), maxlen=self.notices.maxlen)

    def current_notices(self) -> list[Notice]:
        now = self.clock()
        while self.notices and self.notices[0].until <= now:
            self.notices.popleft()
        return [n for n in self.notices if n.until > now]

    def add_log(self, text: str, style: str = "", said: Said | VerdictSaid | None = None) -> None:
        self.log.append((text, style))
        self._said.append(said)

    def relabel(self) -> None:
        """Say the log again in the current language (after the language changed)."""
        for i, said in enumerate(self._said):
            if said is not None:
                line = said.line()
                if line is not None:
                    self.log[i] = line

    # -- what the server tells us ---------------------------------------------------

    def set_status(self, status: str, detail: str = "") -> None:
        self.status = status
        self.status_detail = detail
        if status == "connected":
            self.last_failure, self.attempts, self.connected_once = "", 0, True
        elif status in ("offline", "reconnecting") and detail:
            self.last_failure = detail

    def exit_status(self) -> int:
        """The exit status of a session the player ended: 1 when it tried a server and
        never reached it (a mistake, to a script as to a person), else 0."""
        return 1 if self.last_failure and not self.connected_once else 0

    def connecting(self, where: str, attempt: int) -> None:
        """Trying to connect to ``where`` (``attempt``: how many tries failed before)."""
        self.set_status("connecting", where)
        self.attempts = attempt
        self.connect_started = self.clock()

    @property
    def my_presence(self) -> str:
        """This seat's connection state as the room sees it (``autopilot``: the server
        plays for us after missed turns)."""
        seat = self.seat
        return self.presence.get(seat, "connected") if seat is not None else "connected"

    def set_seats(self, seats: dict[str, Any], table: dict[str, Any] | None = None) -> None:
        """The room as the lobby sees it (a ``seats`` message as a map); ``table``: its
        players as the table on the screen seats them, when that is not the room's order
        (a two-table room's own table)."""
        self.room = dict(seats)
        self.room_id = seats.get("room", self.room_id)
        if seats.get("started"):
            self.starting = False  # uno play's start has happened
        self.timer = int(seats.get("timer") or 0)
        for entry in (seats if table is None else table).get("seats", ()):
            seat = entry["seat"]
            if entry.get("name"):
                self.names[seat] = entry["name"]
            if entry.get("kind") == "bot" or entry.get("bot"):
                self.bots.add(seat)
            else:
                self.bots.discard(seat)
            state = entry.get("state")
            if state and state != "empty":
                self.presence[seat] = state
                self._heard.setdefault(seat, state)
            elif state == "empty":
                self._heard.pop(seat, None)  # whoever sits there next starts afresh

    def back(self, text: str) -> None:
        """This client is back in its room (``text`` says where), the events it missed
        shown: said in the log and as a notice. The room's own word that the seat is
        connected again, which follows, is then not news."""
        self.catching_up = False
        if self.seat is not None:
            self._heard[self.seat] = "connected"
        self.add_log(text, "info")
        self.notify(text, "info", 8, lasting=True, topic="back")  # the log says it too

    def ask_password(self, join: Request) -> None:
        """Open the input line for the password of the room ``join`` asks for."""
        self.joining = join
        self.input_mode = "join_password"

    def forget_room(self) -> None:
        """Back to the lobby: no room, no seat, no table."""
        self.view, self.room, self.room_id, self.my_seat = None, None, None, None
        self.other_table = None
        self.enter_room()

    def enter_room(self) -> None:
        """Another room: nothing of the last one carries over (log, chat, people, scores)."""
        self.log.clear()
        self._said.clear()
        self.chat.clear()
        self.names.clear()
        self.bots.clear()
        self.presence.clear()
        self._heard.clear()
        self.notices.clear()
        self.round_result = self.match_result = None
        self.match_left = self.show_scores = False
        self.turn_deadline = self.sent = self.picker = self.joining = None
        self.catching_up = False
        self.marked = []
        self.cursor = 0

    def leave_match(self) -> None:
        """After the match: back to the room's seats (a new match can be readied there)."""
        self.view = None
        self.match_left = True
        self.show_scores = False
        self.picker = None

    def on_event(self, kind: str, data: dict[str, Any]) -> None:
        """A room event: update what the view does not carry, show it, and log it."""
        self.motion.on_event(kind, data, self.clock())
        if kind == "turn":
            self.turn_deadline = self.clock() + self.timer if self.timer else None
            self.sent = None
        elif kind in _MINE and data.get("seat") == self.seat:
            self.sent = None
        if kind == "player_joined" and data.get("seat") is not None:
            self.names[data["seat"]] = data["name"]
            self._heard.pop(data["seat"], None)
            if data.get("bot"):
                self.bots.add(data["seat"])
        elif kind == "connection":
            before = self._heard.get(data["seat"], "connected")
            self.presence[data["seat"]] = self._heard[data["seat"]] = data["state"]
            if data["state"] == before:
                return  # a seat taking its place: not news
        elif kind == "round_over":
            self.round_result = dict(data)
            self.turn_deadline = None
            self.show_scores = True
        elif kind == "match_over":
            if self.view is not None and self.view.rules.get("teams"):  # the winner is a team
                data = {**data, "members": team_members(self.view, int(data.get("winner") or 0))}
            self.match_result = dict(data)
            self.show_scores = True
        elif kind == "rotation_round_over":
            self.totals_round = int(data.get("round") or 0)
        elif kind == "rotation_over":  # a two-table match's end: its champion won it
            self.match_result = {"winner": data.get("champion"), "name": data.get("name"),
                                 **{k: data[k] for k in ("tied", "tied_names", "tie_break") if k in data}}
            self.show_scores = True
        elif kind == "round_started":
            if data.get("round") == 1:
                self.round_result = self.match_result = None  # a new match
            elif self.show_scores and self.round_result is not None:
                # The next round is dealt: the summary makes way for the table (s shows it).
                self.notify(_("s shows round {round}'s summary again").format(
                    round=self.round_result.get("round")), "info", 8, lasting=True, topic="summary")
            self.show_scores = False
        elif kind == "chat":
            self.chat.append((str(data.get("name") or self.name_of(data.get("seat"))), data["text"]))
            return
        said = Said(kind, dict(data), dict(self.names), self.seat)
        line = said.line()
        if line:
            self.add_log(*line, said=said)

    def on_verdict(self, verdict: Verdict) -> None:
        """The check of a round's deal: a quiet mark when it holds, a loud warning if not."""
        self.deals[verdict.round] = verdict.status
        said = VerdictSaid(verdict)
        line = said.line()
        self.add_log(*line, said=said)
        if verdict.status == FAILED:
            self.notify(line[0], "error", seconds=30.0, lasting=True)

    def on_error(self, code: str, message: str) -> None:
        """A refusal from the server: shown, never raised."""
        self.sent = None
        text = self.with_names(refusal_text(code, message, self.name_of))
        if code == "too_late" and message and language() == ENGLISH:
            text = f"Too late: {text}"  # the server's reason, in English only
        if code == "bad_password" and self.joining is not None:  # again, or Esc goes back
            self.notify(_(self.WRONG_PASSWORD), topic="password")
            self.input_mode = "join_password"
            return
        self.joining = None
        self.notify(text)


# Events that report an action of the seat they name: ours answer what we sent.
_MINE = frozenset(kind for kind, spec in EVENT_KINDS.items() if spec.actor)


def _cards(data: dict[str, Any]) -> str:
    return " ".join(card_label(c) for c in data.get("cards", ()))


def describe(
    kind: str, data: dict[str, Any], name_of: Callable[[int | None], str], me: int | None
) -> tuple[str, str] | None:
    """One log line for an event (text, style), or None for events not worth a line.
    What happens to the player is said to them ("you are skipped"), so each such line
    has its own words for "you" (a language does not always just swap the name)."""
    who = name_of(data.get("seat"))
    you = me is not None and data.get("seat") == me

    def say(yours: str, theirs: str, **values: Any) -> str:
        return (_(yours) if you else _(theirs)).format(who=who, **values)

    if kind == "played":
        values: dict[str, Any] = {"who": who, "cards": _cards(data)}
        text = (_("{who} JUMPED IN with {cards}") if data.get("jump_in") else
                _("{who} played {cards}")).format(**values)
        cards = [Card.parse(c) for c in data.get("cards", ())]
        if data.get("color") and (any(c.is_wild for c in cards) or len({c.color for c in cards}) > 1):
            text += f" → {color_word(data['color'])}"  # a wild's color, or which one continues
        if data.get("target") is not None:
            text += " " + _("at {target}").format(target=name_of(data["target"]))
        return text, "jump" if data.get("jump_in") else ""
    if kind == "drew":
        n = data.get("count", 0)
        what = _cards(data) if data.get("cards") else ngettext("{n} card", "{n} cards", n).format(n=n)
        reason = data.get("reason", "draw")
        text = _("{who} drew {what}").format(who=who, what=what)
        if reason != "draw":
            words = DRAW_REASONS.get(reason)
            text += f" ({_(words) if words else reason.replace('_', ' ')})"
        return text, ""
    if kind == "passed":
        return _("{who} kept the drawn card").format(who=who), ""
    if kind == "skipped":
        return say(N_("you are skipped"), N_("{who} is skipped")), ""
    if kind == "uno":
        return _("{who} called UNO!").format(who=who), "uno"
    if kind == "reshuffled":
        return _("the discards are shuffled into a new draw pile"), ""
    if kind == "host":
        return say(N_("you are the host"), N_("{who} is the host")), ""
    if kind == "color_chosen":
        return _("{who} chose {color}").format(who=who, color=color_word(data.get("color", ""))), ""
    if kind == "reversed":
        return _("direction reversed"), ""
    if kind == "penalty":
        return say(N_("you owe {amount} cards"), N_("{who} owes {amount} cards"), amount=data.get("amount")), ""
    if kind == "challenged":
        text = (_("{who} challenged {target}: guilty!") if data.get("guilty") else
                _("{who} challenged {target}: innocent"))
        return text.format(who=who, target=name_of(data.get("target"))), "uno"
    if kind == "revealed":
        if data.get("cards"):
            return _("{who} held {cards}").format(who=who, cards=_cards(data)), ""
        return say(N_("your hand was shown to the challenger"), N_("{who}'s hand was shown to the challenger")), ""
    if kind == "caught":
        return (_("{who} CAUGHT {target} (+{penalty})").format(
            who=who, target=name_of(data.get("target")), penalty=data.get("penalty")), "uno")
    if kind == "false_uno":
        return _("{who} called UNO falsely (+{penalty})").format(who=who, penalty=data.get("penalty")), "error"
    if kind == "swapped":
        a, b = data.get("seats", (None, None))
        return _("{a} and {b} swapped hands").format(a=name_of(a), b=name_of(b)), ""
    if kind == "rotated":
        return _("every hand passed along"), ""
    if kind == "misplay":
        reason = refusal_text("misplay", str(data.get("reason") or ""), name_of)
        return _("{who} misplayed (+{penalty}): {reason}").format(
            who=who, penalty=data.get("penalty"), reason=reason), "error"
    if kind == "out":
        reason = str(data.get("reason"))
        words = OUT_REASONS.get(reason)
        return say(N_("you are out ({reason})"), N_("{who} is out ({reason})"),
                   reason=_(words) if words else reason), ""
    if kind == "first_card":
        return _("first card {card}").format(card=card_label(data["card"])), ""
    if kind == "round_started":
        return "— " + _("round {round} · dealer: {dealer}").format(
            round=data.get("round"), dealer=name_of(data.get("dealer"))) + " —", "info"
    if kind == "round_over":
        return (_("{winner} won the round (+{points})").format(
            winner=name_of(data.get("winner")), points=data.get("points")), "win")
    if kind == "match_over":
        return _("{winner} won the match!").format(winner=winners(data, name_of)), "win"
    if kind == "player_joined":
        name = data.get("name")
        if data.get("seat") is None:
            return _("{name} is watching").format(name=name), ""
        if data.get("bot"):
            return _("{name} joined (bot)").format(name=name), ""
        return _("{name} joined").format(name=name), ""
    if kind == "player_left":
        if data.get("seat") is None:
            return _("{name} stopped watching").format(name=data.get("name")), ""
        return _("{name} left").format(name=data.get("name", who)), ""
    if kind == "timeout":
        if you:
            return _("your time ran out: the server played for you"), "error"
        return _("{who}'s time ran out: the server played for them").format(who=who), ""
    if kind == "connection":
        presence = _PRESENCE.get((str(data.get("state")), you))
        return (_(presence).format(who=who), "") if presence else None
    if kind == "receipt":
        return receipt_line(data, name_of, me)
    if kind == "table_seated" and "partner" in data:  # a two-table room's new block (own table)
        return "— " + _("new tables: your partner is {partner}").format(
            partner=name_of(data["partner"])) + " —", "info"
    if kind == "rotation_round_over":
        if "mine" in data:
            points, total = data["mine"]
            return _("round {round} is over at both tables: you +{points}, {total} in all").format(
                round=data.get("round"), points=points, total=total), "info"
        return _("round {round} is over at both tables").format(round=data.get("round")), "info"
    if kind == "rotation_over":
        champion = data.get("champion")
        if me is not None and champion == me:
            return _("you are the champion!"), "win"
        return _("{winner} is the champion!").format(
            winner=name_of(champion) if champion is not None else data.get("name", "?")), "win"
    if kind == "paused":  # the server cannot save the game (the event's reason says the same)
        return _("the server cannot save the game; paused"), "error"
    if kind == "resumed":
        return _("the server can save the game again; play goes on"), "info"
    return None


def event_line(
    kind: str, data: dict[str, Any], name_of: Callable[[int | None], str], me: int | None
) -> tuple[str, str]:
    """Every event in words (text, style), for a reader that shows each one (``uno
    replay``): the log's line (:func:`describe`), and for the events the table shows
    instead of the log (whose turn, a hand, the draw for dealer) a line of their own."""
    line = describe(kind, data, name_of, me)
    if line is not None:
        return line
    who = name_of(data.get("seat"))
    you = me is not None and data.get("seat") == me
    if kind == "turn":
        return (_("your turn") if you else _("{who}'s turn").format(who=who)), ""
    if kind == "hand":
        if data.get("cards") is not None:
            return (_("your hand: {cards}") if you else _("{who}'s hand: {cards}")).format(
                who=who, cards=_cards(data)), ""
        n = data.get("count", 0)
        return _("{who} holds {what}").format(
            who=who, what=ngettext("{n} card", "{n} cards", n).format(n=n)), ""
    if kind == "table_seated":  # a two-table match's new block, as a reader of both tables sees it
        a, b, c, d = (name_of(seat) for seat in data.get("seats", (None,) * 4))
        return "— " + _("seated {a}, {b}, {c}, {d}: partners {a} and {c}, {b} and {d}").format(
            a=a, b=b, c=c, d=d) + " —", "info"
    if kind == "dealer_draw":
        draws = ", ".join(f"{name_of(seat)} {card_label(card)}" for seat, card in data.get("draws", ()))
        return _("draw for dealer: {draws}; dealer: {dealer}").format(
            draws=draws, dealer=name_of(data.get("dealer"))), "info"
    return _("{kind} (an event this version has no words for)").format(kind=kind), ""


def winners(data: dict[str, Any], name_of: Callable[[int | None], str]) -> str:
    """Who won a match: a player, or every member of the winning team (``members``)."""
    members = data.get("members")
    if members:
        return _(" and ").join(name_of(seat) for seat in members)
    if data.get("winner") is None and data.get("name"):  # a champion of the other table
        return str(data["name"])
    return name_of(data.get("winner"))


def tie_words(data: dict[str, Any], name_of: Callable[[int | None], str]) -> str | None:
    """How a tie for the match was settled, as its end's event says (``tied``, the seats
    level with the winner, and ``tie_break``, the rule that chose among them); None
    without a tie."""
    tied = list(data.get("tied") or ())
    if len(tied) < 2:
        return None
    names = list(data.get("tied_names") or ())  # a two-table match's: by name where not at this table
    said = [name_of(seat) if seat is not None or i >= len(names) else names[i] for i, seat in enumerate(tied)]
    code = str(data.get("tie_break") or "")
    rule = TIE_BREAKS.get(code)
    return _("{names} tied on points; {rule}: {winner}").format(
        names=_(" and ").join(said), rule=_(rule) if rule else code, winner=winners(data, name_of))


# How a tie for the match is settled (a match's end's ``tie_break``).
TIE_BREAKS = {"lower_seat": N_("the tie goes to the lowest seat number")}

# Why cards were drawn (a ``drew`` event's ``reason``; plain draws say nothing).
DRAW_REASONS = {
    "penalty": N_("penalty"), "challenge": N_("challenge"), "caught": N_("caught"),
    "false_uno": N_("false uno"), "misplay": N_("misplay"), "first_card": N_("first card"),
    "targeted": N_("targeted"),
}
# Why a seat is out of the round (an ``out`` event's ``reason``).
OUT_REASONS = {"mercy": N_("mercy"), "finished": N_("finished")}

# Where a seat came in a race (a receipt's ``order``, from 1).
_PLACES = (N_("first"), N_("second"), N_("third"), N_("fourth"), N_("fifth"), N_("sixth"),
           N_("seventh"), N_("eighth"), N_("ninth"))


def receipt_line(data: dict[str, Any], name_of: Callable[[int | None], str],
                 me: int | None) -> tuple[str, str] | None:
    """A race's receipt: where this seat came ("you were second by 3 ms"), or who won.
    A player hears of the races it was in; a race between others (most often two bots'
    answers to the same move, a millisecond apart) is left to a spectator's log and to
    ``uno audit``: among the turns it only puzzled."""
    contenders = list(data.get("contenders", ()))
    winner = name_of(data.get("winner"))
    mine = next((c for c in contenders if c.get("seat") == me), None)
    if me is not None and mine is None:
        return None
    if mine is not None and mine.get("result") != "won":
        order = int(mine.get("order", 0))
        place = (_(_PLACES[order - 1]) if 0 < order <= len(_PLACES)
                 else _("number {order}").format(order=order))
        return _("you were {place} by {after} ms: {winner} won the race").format(
            place=place, after=mine.get("after", 0), winner=winner), "error"
    losers = _(", ").join(_("{name} +{after} ms").format(name=name_of(c.get("seat")), after=c.get("after", 0))
                          for c in contenders if c.get("result") != "won")
    if mine is not None:
        return _("you won the race ({losers})").format(losers=losers), "jump"
    return _("{who} won the race ({losers})").format(who=winner, losers=losers), "jump"


_PRESENCE = {
    ("connected", True): N_("you are back at the table"),
    ("connected", False): N_("{who} is back"),
    ("away", True): N_("you lost the connection: your seat is held"),
    ("away", False): N_("{who} lost the connection: the seat is held"),
    ("autopilot", True): N_("you are on autopilot: the server plays for you"),  # each UI says how to stop
    ("autopilot", False): N_("{who} is on autopilot: the server plays for them"),
}


def _table_key(view: View) -> tuple[Any, ...]:
    """What makes a message about the table go stale when it changes."""
    return (view.turn, view.phase, view.top, view.color, view.pending, view.hand, view.round)
