"""Every message as a small frozen dataclass that cannot be built invalid.

Each class names its wire ``type`` and who may send it; each field's annotation carries
the checker that validates it (``seq: Annotated[int, f.seq]``). Constructing a message
validates it (``LocalProtocolError``), and so does decoding one (``RemoteProtocolError``):
the same checkers, so what one peer can build the other can read. Fields are
keyword-only: ``Play(seq=12, cards=("R5",))``.

On the wire a message is a map: ``type`` plus its fields. Optional fields whose value is
``None`` are left out; unknown fields are ignored (but still bounded).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import (
    Annotated,
    Any,
    ClassVar,
    NamedTuple,
    TypeVar,
    dataclass_transform,
    get_type_hints,
)

from unolan.engine.rotation import check_match
from unolan.engine.rules import PRESETS, Rules

from . import events as ev
from . import fields as f
from .errors import LocalProtocolError, RemoteProtocolError
from .events import check_event
from .fields import Checker


class Role(enum.Enum):
    CLIENT = "client"
    SERVER = "server"


CLIENT, SERVER = Role.CLIENT, Role.SERVER
BOTH = frozenset(Role)

DEFAULT_PORT = 7117
"""The TCP port a server listens on unless told otherwise, and the one a client assumes
for an address that names none."""


def parse_port(text: str) -> int:
    """A TCP port, 0 to 65535, as a person typed it (0: any free one, for a listener);
    ``ValueError`` otherwise."""
    port = int(text) if text.strip().isdigit() else -1
    if not 0 <= port <= 65535:
        raise ValueError(f"expected a port from 0 to 65535, got {text!r}")
    return port


PROTOCOL_VERSION = 4
SUPPORTED_VERSIONS: tuple[int, ...] = (1, 2, 3, 4)
"""What this code speaks as a server. Version 2 is version 1 plus the facts events carry
(the closing events' state of the table, a hand's count, a challenge's challenger...),
which a version 1 client gets too and ignores, so a server sends both the same frames.
Version 3 adds the fair deal: the server asks a version 3 client's seat for a ``nonce``
before each round and waits for it a moment, while an older client's seat gets a nonce
drawn by the server at once (its events are the same frames; it ignores the new kinds).
Version 4 adds the two-table room (eight players, partner rotation): each event of a table
says which (``table``), and a snapshot holds both tables; every other room sends the same
frames as before, and only a client of version 4 may enter a two-table room."""

CLIENT_VERSIONS: tuple[int, ...] = (2, 3, 4)
"""What this code speaks as a client, offered in its hello. It folds the facts version 2's
events carry into its table (it knows no rule of its own), so it cannot speak version 1;
with a version 2 server it plays on, sending no nonce (the server deals alone, as version
2 did), with version 3 it takes part in the fair deal, and with version 4 it may also sit
in a two-table room."""

FAIR_DEAL_VERSION = 3
"""The first version whose clients send nonces."""

TWO_TABLE_VERSION = 4
"""The first version whose clients know the tables of a two-table room."""

MESSAGE_TYPES: dict[str, type[Message]] = {}

MISSING: Any = object()
"""The default of a field that must be present."""


class Field(NamedTuple):
    """One field of a message: its checker, and its default (:data:`MISSING`: required;
    a field whose default is None is left out of the wire map while None)."""

    name: str
    check: Checker
    default: Any


M = TypeVar("M", bound="Message")


@dataclass_transform(frozen_default=True, kw_only_default=True)
def message(type_name: str, senders: Role | frozenset[Role]) -> Callable[[type[M]], type[M]]:
    """Make a class a registered message: frozen, slotted, keyword-only, validated.

    Each field is annotated with its checker, ``name: Annotated[type, checker]``, and has
    a default when it may be absent (a None default also allows null, and leaves the field
    out of the wire map while None)."""

    def wrap(cls: type[M]) -> type[M]:
        cls = dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)
        hints = get_type_hints(cls, include_extras=True)
        cls.TYPE = type_name
        cls.SENDERS = senders if isinstance(senders, frozenset) else frozenset([senders])
        cls.FIELDS = tuple(_field(fl, hints[fl.name]) for fl in dataclasses.fields(cls))
        cls.WIRE_NAMES = frozenset(["type", *(fl.name for fl in cls.FIELDS)])
        MESSAGE_TYPES[type_name] = cls
        return cls

    return wrap


def _field(field: dataclasses.Field[Any], hint: Any) -> Field:
    """A message field's row: its annotation's checker and its default."""
    (check,) = hint.__metadata__
    if field.default is None:
        check = f.nullable(check)
    return Field(field.name, check, MISSING if field.default is dataclasses.MISSING else field.default)


@dataclasses.dataclass(frozen=True, slots=True)
class Message:
    """Base of all messages. Building one and decoding one check each field with the same
    checker, from the class's one table of fields (:attr:`FIELDS`)."""

    TYPE: ClassVar[str] = ""
    SENDERS: ClassVar[frozenset[Role]] = frozenset()
    FIELDS: ClassVar[tuple[Field, ...]] = ()
    WIRE_NAMES: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        name = ""
        try:
            for name, check, _ in self.FIELDS:
                value = getattr(self, name)
                checked = check(value)
                if checked is not value:
                    set_(self, name, checked)
            name = ""
            self._check()
        except ValueError as exc:
            where = f"{self.TYPE}.{name}" if name else self.TYPE
            raise LocalProtocolError(f"{where}: {exc}", "bad_message", id=_request_id(self)) from None

    def _check(self) -> None:
        """Checks across fields; raise ``ValueError``."""

    def to_wire(self) -> dict[str, Any]:
        """The map that goes on the wire: ``type``, then the fields in order, those whose
        default is None left out while None."""
        out: dict[str, Any] = {"type": self.TYPE}
        for name, _, default in self.FIELDS:
            value = getattr(self, name)
            if value is not None or default is not None:
                out[name] = value
        return out

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Message:
        """Build from a decoded map (its ``type`` already matched); ``RemoteProtocolError``.

        The same checks as construction, without going through ``__init__``."""
        msg = object.__new__(cls)
        set_ = object.__setattr__
        get = data.get
        present = 1  # "type"
        name = ""
        try:
            for name, check, default in cls.FIELDS:
                value = get(name, MISSING)
                if value is MISSING:
                    if default is MISSING:
                        raise ValueError("missing")
                    set_(msg, name, default)
                else:
                    present += 1
                    set_(msg, name, check(value))
            name = ""
            msg._check()
        except ValueError as exc:
            where = f"{cls.TYPE}.{name}" if name else cls.TYPE
            raise RemoteProtocolError(f"{where}: {exc}", "bad_message", id=_wire_id(data)) from None
        if present != len(data):
            _check_unknown_fields(cls, data)
        return msg


def _check_unknown_fields(cls: type[Message], data: dict[str, Any]) -> None:
    """Unknown fields are ignored, but must still be sane: string keys, bounded nesting."""
    type_name, known = cls.TYPE, cls.WIRE_NAMES
    for key, value in data.items():
        if key in known:
            continue
        if type(key) is not str:
            raise RemoteProtocolError(f"{type_name}: map keys must be strings", "bad_message")
        try:
            f.freeze(value, f.MAX_DEPTH - 1)
        except ValueError as exc:
            raise RemoteProtocolError(
                f"{type_name}.{key[:40]}: {exc}", "bad_message", id=_wire_id(data)
            ) from None


def _request_id(msg: Message) -> int | None:
    value = getattr(msg, "id", None)
    return value if type(value) is int else None


def _wire_id(data: dict[str, Any]) -> int | None:
    value = data.get("id")
    return value if type(value) is int and 0 <= value <= f.MAX_ID else None


def decode_message(data: Any) -> Message:
    """Turn one decoded frame into a message; ``RemoteProtocolError`` if it is not one."""
    if type(data) is not dict:
        raise RemoteProtocolError(
            f"a frame must hold a map, got {type(data).__name__}", "bad_frame"
        )
    type_name = data.get("type")
    if type(type_name) is not str:
        raise RemoteProtocolError("a message needs a string `type`", "bad_frame")
    cls = MESSAGE_TYPES.get(type_name)
    if cls is None:
        raise RemoteProtocolError(
            f"unknown message type {type_name[:40]!r}", "unknown_type", id=_wire_id(data)
        )
    return cls.from_wire(data)


# -- checkers used by several messages -------------------------------------------------

_name = f.text(1, 32)
_room_id = f.text(1, 32, r"[A-Za-z0-9_-]+")
_token = f.text(16, 128, r"[A-Za-z0-9_-]+")
_code = f.text(1, 40, r"[a-z][a-z0-9_]*")
_version = f.integer(1, 65535)


# -- handshake, errors, heartbeat: either side -------------------------------------------


@message("hello", CLIENT)
class Hello(Message):
    """The client's first frame: the protocol versions it speaks, and who it is
    (``bot``: true when a program plays, so the room shows its seat as a bot's; left out
    otherwise)."""

    versions: Annotated[tuple[int, ...], f.array(_version, 1, 16)]
    name: Annotated[str, _name]
    client: Annotated[str | None, f.text(1, 64)] = None
    bot: Annotated[bool | None, f.boolean] = None


@message("welcome", SERVER)
class Welcome(Message):
    """The server's answer to ``hello``: the version chosen and the limits it enforces,
    and (optional: older servers send none) ``server_id``, the same for every address the
    server is reached at and across its restarts, so that a client keeps a seat by server."""

    version: Annotated[int, _version]
    server: Annotated[str, f.text(1, 64)]
    max_frame: Annotated[int, f.integer(1024, 16 * 1024 * 1024)]
    heartbeat: Annotated[int, f.integer(1, 3600)]
    server_id: Annotated[str | None, f.text(1, 64)] = None


@message("error", BOTH)
class Error(Message):
    """A refusal: stable ``code``, human ``message``, the request ``id`` if it had one."""

    code: Annotated[str, _code]
    message: Annotated[str, f.text(0, 500, printable=False)]
    fatal: Annotated[bool, f.boolean] = False
    id: Annotated[int | None, f.request_id] = None
    versions: Annotated[tuple[int, ...] | None, f.array(_version, 1, 16)] = None


@message("ping", BOTH)
class Ping(Message):
    """Are you there? Answer with a ``pong`` carrying the same ``id``."""

    id: Annotated[int | None, f.request_id] = None


@message("pong", BOTH)
class Pong(Message):
    id: Annotated[int | None, f.request_id] = None


@message("bye", BOTH)
class Bye(Message):
    """An orderly close; the sender closes the stream after it."""

    reason: Annotated[str | None, f.text(0, 200)] = None


# -- lobby: client requests -----------------------------------------------------------


@message("list_rooms", CLIENT)
class ListRooms(Message):
    id: Annotated[int | None, f.request_id] = None


@message("create_room", CLIENT)
class CreateRoom(Message):
    """Open a room and take its first seat as host. Rules: a preset plus options."""

    name: Annotated[str, f.text(1, 40)]
    preset: Annotated[str, f.choice(*PRESETS)] = "house"
    options: Annotated[Mapping[str, Any], f.scalar_map()] = f.EMPTY_MAP
    seats: Annotated[int, f.integer(2, f.MAX_SEATS)] = 4
    password: Annotated[str | None, f.text(1, 64)] = None
    timer: Annotated[int, f.integer(0, 3600)] = 0
    teams: Annotated[int, f.integer(0, 5)] = 0
    id: Annotated[int | None, f.request_id] = None

    def _check(self) -> None:
        if "teams" in self.options:
            raise ValueError("set teams with the teams field, not in options")
        try:
            rules = self.rules()
        except (ArithmeticError, TypeError) as exc:  # e.g. an infinite float for a number
            raise ValueError(f"bad rule options: {exc}") from None
        check_match(rules, self.seats)  # before any room exists: the rules suit its seats

    def rules(self) -> Rules:
        """The engine's rule set for this room (``ValueError`` if the options are bad)."""
        return Rules.preset(self.preset, **self.options, teams=self.teams)


@message("join", CLIENT)
class Join(Message):
    room: Annotated[str, _room_id]
    role: Annotated[str, f.choice("player", "spectator")] = "player"
    password: Annotated[str | None, f.text(1, 64)] = None
    id: Annotated[int | None, f.request_id] = None


@message("leave", CLIENT)
class Leave(Message):
    id: Annotated[int | None, f.request_id] = None


@message("ready", CLIENT)
class Ready(Message):
    ready: Annotated[bool, f.boolean] = True
    id: Annotated[int | None, f.request_id] = None


@message("start", CLIENT)
class Start(Message):
    """The host starts the match (every seated human ready)."""

    id: Annotated[int | None, f.request_id] = None


@message("add_bot", CLIENT)
class AddBot(Message):
    """The host seats a bot: in ``seat``, or the first free seat."""

    seat: Annotated[int | None, f.seat] = None
    level: Annotated[str | None, f.text(1, 32, r"[a-z][a-z0-9_]*")] = None
    id: Annotated[int | None, f.request_id] = None


@message("remove_bot", CLIENT)
class RemoveBot(Message):
    seat: Annotated[int, f.seat]
    id: Annotated[int | None, f.request_id] = None


@message("chat", CLIENT)
class Chat(Message):
    text: Annotated[str, f.text(1, 300)]
    id: Annotated[int | None, f.request_id] = None


@message("resume", CLIENT)
class Resume(Message):
    """Take back a seat after a reconnect: the token from ``joined``, the last seq seen."""

    token: Annotated[str, _token]
    seq: Annotated[int, f.seq]
    id: Annotated[int | None, f.request_id] = None


@message("sync", CLIENT)
class Sync(Message):
    """Ask for a fresh ``snapshot`` (after a gap in ``seq``, say)."""

    id: Annotated[int | None, f.request_id] = None


@message("nonce", CLIENT)
class Nonce(Message):
    """A seat's share of the next round's seed, answering the ``commitment`` event for
    ``round`` (protocol version 3). Any 1 to 64 letters, digits, ``_`` or ``-``; choose
    them at random, so that nobody, the server included, can know the seed beforehand."""

    round: Annotated[int, f.integer(1, 1_000_000)]
    nonce: Annotated[str, ev.NONCE]
    id: Annotated[int | None, f.request_id] = None


# -- game actions: every one names the room seq it was decided on ----------------------


@message("play", CLIENT)
class Play(Message):
    """Play cards (last on top). Sent out of turn, it is a jump-in."""

    seq: Annotated[int, f.seq]
    cards: Annotated[tuple[str, ...], f.cards(1, 20)]
    color: Annotated[str | None, f.color] = None
    target: Annotated[int | None, f.seat] = None
    uno: Annotated[bool, f.boolean] = False
    id: Annotated[int | None, f.request_id] = None


@message("draw", CLIENT)
class Draw(Message):
    seq: Annotated[int, f.seq]
    id: Annotated[int | None, f.request_id] = None


@message("pass", CLIENT)
class Pass(Message):
    """Keep the card just drawn and end the turn."""

    seq: Annotated[int, f.seq]
    id: Annotated[int | None, f.request_id] = None


@message("call_uno", CLIENT)
class CallUno(Message):
    seq: Annotated[int, f.seq]
    id: Annotated[int | None, f.request_id] = None


@message("catch", CLIENT)
class Catch(Message):
    """Catch ``target``, who holds one card and has not called UNO."""

    seq: Annotated[int, f.seq]
    target: Annotated[int, f.seat]
    id: Annotated[int | None, f.request_id] = None


@message("challenge", CLIENT)
class Challenge(Message):
    """The target of a Wild Draw Four challenges it instead of drawing."""

    seq: Annotated[int, f.seq]
    id: Annotated[int | None, f.request_id] = None


@message("choose_color", CLIENT)
class ChooseColor(Message):
    """Name the color when a Wild is turned up as the first card."""

    seq: Annotated[int, f.seq]
    color: Annotated[str, f.color]
    id: Annotated[int | None, f.request_id] = None


# -- server to client -----------------------------------------------------------------


@message("ok", SERVER)
class Ok(Message):
    """A request with an ``id`` was accepted, and it has no other reply."""

    id: Annotated[int, f.request_id]


@message("rooms", SERVER)
class Rooms(Message):
    rooms: Annotated[tuple[Mapping[str, Any], ...], f.array(ev.check_room, 0, 256)]
    id: Annotated[int | None, f.request_id] = None


@message("joined", SERVER)
class Joined(Message):
    """You are in ``room`` at ``seat`` (null: spectator); keep ``token`` for ``resume``."""

    room: Annotated[str, _room_id]
    seat: Annotated[int | None, f.seat_or_null]
    token: Annotated[str, _token]
    seq: Annotated[int, f.seq]
    id: Annotated[int | None, f.request_id] = None


@message("seats", SERVER)
class Seats(Message):
    """The room as the lobby sees it: who sits where, ready or not, and the rules."""

    seq: Annotated[int, f.seq]
    room: Annotated[str, _room_id]
    name: Annotated[str, f.text(1, 40)]
    host: Annotated[int | None, f.seat_or_null]
    seats: Annotated[tuple[Mapping[str, Any], ...], f.array(ev.check_seat, 2, f.MAX_SEATS)]
    spectators: Annotated[int, f.count]
    started: Annotated[bool, f.boolean]
    rules: Annotated[Mapping[str, Any], f.scalar_map()]
    timer: Annotated[int, f.integer(0, 3600)]


@message("snapshot", SERVER)
class Snapshot(Message):
    """A seat's whole view of the table as of ``seq``. In a two-table room ``view`` is
    the seat's own table (a spectator's: table 0), ``tables`` each table with its seats
    and its view as this member may see it, and ``rotation`` the match's totals. Once a
    one-table room's match is over, ``match`` says its end as ``match_over`` did."""

    seq: Annotated[int, f.seq]
    view: Annotated[Mapping[str, Any], ev.check_view]
    id: Annotated[int | None, f.request_id] = None
    tables: Annotated[tuple[Mapping[str, Any], ...] | None, f.array(ev.check_table, 2, 2)] = None
    rotation: Annotated[Mapping[str, Any] | None, ev.check_rotation] = None
    match: Annotated[Mapping[str, Any] | None, ev.check_match_end] = None


def _checked_by_kind(value: Any) -> Any:
    """Event ``data``: checked by ``Event._check``, which knows the kind."""
    return value


@message("event", SERVER)
class Event(Message):
    """One room event; ``seq`` goes up by one per event in the room."""

    seq: Annotated[int, f.seq]
    kind: Annotated[str, f.text(1, 32, r"[a-z][a-z0-9_]*", known=tuple(ev.EVENT_TABLES))]
    data: Annotated[Mapping[str, Any], _checked_by_kind] = f.EMPTY_MAP

    def _check(self) -> None:
        object.__setattr__(self, "data", check_event(self.kind, self.data))


CLIENT_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if CLIENT in c.SENDERS)
SERVER_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if SERVER in c.SENDERS)
# Game actions: they carry the room seq they were decided on.
ACTIONS = frozenset(
    {"play", "draw", "pass", "call_uno", "catch", "challenge", "choose_color"}
)
