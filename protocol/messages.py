"""Every message as a small frozen dataclass that cannot be built invalid.

Each class names its wire ``type`` and who may send it; each field carries the checker
that validates it. Constructing a message validates it (``LocalProtocolError``), and so
does decoding one (``RemoteProtocolError``): the same code path, so what one peer can
build the other can read. Fields are keyword-only: ``Play(seq=12, cards=("R5",))``.

On the wire a message is a map: ``type`` plus its fields. Optional fields whose value is
``None`` are left out; unknown fields are ignored (but still bounded).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from unolan.engine.game import check_table
from unolan.engine.rules import PRESETS, Rules

from . import events as ev
from . import fields as f
from .errors import LocalProtocolError, RemoteProtocolError
from .events import EVENT_CHECKS, check_event
from .fastpath import MISSING, build, compile_fields, inline
from .fields import Checker, FrozenDict


class Role(enum.Enum):
    CLIENT = "client"
    SERVER = "server"


CLIENT, SERVER = Role.CLIENT, Role.SERVER
BOTH = frozenset(Role)

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS: tuple[int, ...] = (1,)

MESSAGE_TYPES: dict[str, type[Message]] = {}


def req(check: Checker) -> Any:
    """A field that must be present (it may still allow null if ``check`` does)."""
    return dataclasses.field(metadata={"check": check})


def opt(check: Checker, default: Any = None) -> Any:
    """A field that may be absent; ``None`` defaults are left out of the wire map."""
    if default is None:
        check = f.nullable(check)
    return dataclasses.field(default=default, metadata={"check": check})


M = TypeVar("M", bound="type[Message]")


def message(type_name: str, senders: Role | frozenset[Role]) -> Callable[[M], M]:
    """Make a class a registered message: frozen, slotted, keyword-only, validated."""

    def wrap(cls: M) -> M:
        cls = dataclasses.dataclass(frozen=True, slots=True, kw_only=True)(cls)  # type: ignore[assignment]
        cls.TYPE = type_name
        cls.SENDERS = senders if isinstance(senders, frozenset) else frozenset([senders])
        fields = dataclasses.fields(cls)
        cls.FIELDS = tuple(
            (
                fl.name,
                fl.metadata["check"],
                MISSING if fl.default is dataclasses.MISSING else fl.default,
            )
            for fl in fields
        )
        cls.WIRE_NAMES = frozenset(["type", *(fl.name for fl in fields)])
        cls.to_wire = _compile_to_wire(cls)  # type: ignore[method-assign]
        cls.from_wire = staticmethod(_compile_from_wire(cls))  # type: ignore[method-assign,assignment]
        MESSAGE_TYPES[type_name] = cls
        return cls

    return wrap


@dataclasses.dataclass(frozen=True, slots=True)
class Message:
    """Base of all messages."""

    TYPE: ClassVar[str] = ""
    SENDERS: ClassVar[frozenset[Role]] = frozenset()
    # name, check, default (MISSING: required); a None default is left out of the wire map
    FIELDS: ClassVar[tuple[tuple[str, Checker, Any], ...]] = ()
    WIRE_NAMES: ClassVar[frozenset[str]] = frozenset()
    # ``_check`` as a statement for the compiled ``from_wire``, if it has one: a template
    # over the field values (``{name}``, which it may replace) and the constants it uses.
    # It saves a method call and a second store on the hottest path.
    FAST_CHECK: ClassVar[tuple[str, dict[str, Any]] | None] = None

    def __post_init__(self) -> None:
        setattr_ = object.__setattr__
        for name, check, _ in self.FIELDS:
            value = getattr(self, name)
            try:
                checked = check(value)
            except ValueError as exc:
                raise LocalProtocolError(
                    f"{self.TYPE}.{name}: {exc}", "bad_message", id=_request_id(self)
                ) from None
            if checked is not value:
                setattr_(self, name, checked)
        try:
            self._check()
        except ValueError as exc:
            raise LocalProtocolError(
                f"{self.TYPE}: {exc}", "bad_message", id=_request_id(self)
            ) from None

    def _check(self) -> None:
        """Checks across fields; raise ``ValueError``."""

    def to_wire(self) -> dict[str, Any]:
        """The map that goes on the wire: ``type``, then the fields in order, those whose
        default is None left out while None. Each registered class replaces this with a
        compiled one (see ``_compile_to_wire``)."""
        raise NotImplementedError(f"{type(self).__name__} is not a registered message")

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> Message:
        """Build from a decoded map (its ``type`` already matched); ``RemoteProtocolError``.

        Each registered class replaces this with a compiled fast path (see ``fastpath``)
        that falls back to :meth:`checked_from_wire` on any doubt."""
        return cls.checked_from_wire(data)

    @classmethod
    def checked_from_wire(cls, data: dict[str, Any]) -> Message:
        """The general path of :meth:`from_wire`, field by field, with precise errors.

        The same checks as construction, without going through ``__init__``."""
        msg = object.__new__(cls)
        setattr_ = object.__setattr__
        get = data.get
        present = 1  # "type"
        name = ""
        try:
            for name, check, default in cls.FIELDS:
                value = get(name, MISSING)
                if value is MISSING:
                    if default is MISSING:
                        raise ValueError("missing")
                    setattr_(msg, name, default)
                else:
                    present += 1
                    setattr_(msg, name, check(value))
            name = ""
            msg._check()
        except ValueError as exc:
            where = f"{cls.TYPE}.{name}" if name else cls.TYPE
            raise RemoteProtocolError(
                f"{where}: {exc}", "bad_message", id=_wire_id(data)
            ) from None
        if present != len(data):
            _check_unknown_fields(cls, data)
        return msg


def _compile_to_wire(cls: type[Message]) -> Callable[[Message], dict[str, Any]]:
    """``cls.to_wire`` compiled: the map built field by field in a straight line."""
    lines = ["def to_wire(self):", f"    out = {{'type': {cls.TYPE!r}}}"]
    for name, _, default in cls.FIELDS:
        if default is None:
            lines += [f"    value = self.{name}", "    if value is not None:",
                      f"        out[{name!r}] = value"]
        else:
            lines.append(f"    out[{name!r}] = self.{name}")
    lines.append("    return out")
    return build("\n".join(lines), "to_wire", {}, f"{cls.TYPE}.to_wire")


def _compile_from_wire(cls: type[Message]) -> Callable[[dict[str, Any]], Message]:
    """``cls.from_wire`` compiled: the fields checked inline, the message built without
    ``__init__`` (whose checks would repeat the ones just done), cross-field checks run."""
    ns: dict[str, Any] = {"_slow": cls.checked_from_wire, "_new": object.__new__, "_cls": cls}
    names = [name for name, _, _ in cls.FIELDS]

    def accept(converted: list[tuple[int, str]]) -> list[str]:
        lines = []
        if cls.FAST_CHECK is not None:  # the cross-field checks, inline, before building
            template, consts = cls.FAST_CHECK
            ns.update(consts)
            lines.append(template.format(**{name: f"v{i}" for i, name in enumerate(names)}))
        lines.append("msg = _new(_cls)")
        for i, name in enumerate(names):
            # The slot's own setter: what object.__setattr__ ends up calling, minus the
            # lookup by name (the class is frozen only through its __setattr__).
            ns[f"_s{i}"] = cls.__dict__[name].__set__
            lines.append(f"_s{i}(msg, v{i})")
        if cls.FAST_CHECK is None and cls._check is not Message._check:
            ns["_check"] = cls._check
            lines.append("_check(msg)")  # the cross-field checks, on the built message
        return [*lines, "return msg"]

    fields = (
        # A nested table (a view) is called through its compiled check: one call fewer.
        (name, check.check if isinstance(check, ev.Schema) else check,
         default is MISSING, default)
        for name, check, default in cls.FIELDS
    )
    code = compile_fields("from_wire", fields, "data", accept, ns, frozenset(["type"]))
    return build(code, "from_wire", ns, f"{cls.TYPE}.from_wire")


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
    """The client's first frame: the protocol versions it speaks, and who it is."""

    versions: tuple[int, ...] = req(f.array(_version, 1, 16))
    name: str = req(_name)
    client: str | None = opt(f.text(1, 64))


@message("welcome", SERVER)
class Welcome(Message):
    """The server's answer to ``hello``: the version chosen and the limits it enforces."""

    version: int = req(_version)
    server: str = req(f.text(1, 64))
    max_frame: int = req(f.integer(1024, 16 * 1024 * 1024))
    heartbeat: int = req(f.integer(1, 3600))


@message("error", BOTH)
class Error(Message):
    """A refusal: stable ``code``, human ``message``, the request ``id`` if it had one."""

    code: str = req(_code)
    message: str = req(f.text(0, 500, printable=False))
    fatal: bool = opt(f.boolean, False)
    id: int | None = opt(f.request_id)
    versions: tuple[int, ...] | None = opt(f.array(_version, 1, 16))


@message("ping", BOTH)
class Ping(Message):
    """Are you there? Answer with a ``pong`` carrying the same ``id``."""

    id: int | None = opt(f.request_id)


@message("pong", BOTH)
class Pong(Message):
    id: int | None = opt(f.request_id)


@message("bye", BOTH)
class Bye(Message):
    """An orderly close; the sender closes the stream after it."""

    reason: str | None = opt(f.text(0, 200))


# -- lobby: client requests -----------------------------------------------------------


@message("list_rooms", CLIENT)
class ListRooms(Message):
    id: int | None = opt(f.request_id)


@message("create_room", CLIENT)
class CreateRoom(Message):
    """Open a room and take its first seat as host. Rules: a preset plus options."""

    name: str = req(f.text(1, 40))
    preset: str = opt(f.choice(*PRESETS), "house")
    options: FrozenDict = opt(f.scalar_map(), f.EMPTY_MAP)
    seats: int = opt(f.integer(2, f.MAX_SEATS), 4)
    password: str | None = opt(f.text(1, 64))
    timer: int = opt(f.integer(0, 3600), 0)
    teams: int = opt(f.integer(0, 5), 0)
    id: int | None = opt(f.request_id)

    def _check(self) -> None:
        if "teams" in self.options:
            raise ValueError("set teams with the teams field, not in options")
        if self.teams and (
            self.teams < 2 or self.seats % self.teams or self.seats // self.teams < 2
        ):
            raise ValueError(f"{self.seats} seats do not split into {self.teams} teams of 2+")
        try:
            rules = self.rules()
        except (ArithmeticError, TypeError) as exc:  # e.g. an infinite float for a number
            raise ValueError(f"bad rule options: {exc}") from None
        check_table(rules, self.seats)  # e.g. partner_rotation needs 4 seats

    def rules(self) -> Rules:
        """The engine's rule set for this room (``ValueError`` if the options are bad)."""
        return Rules.preset(self.preset, **self.options, teams=self.teams)


@message("join", CLIENT)
class Join(Message):
    room: str = req(_room_id)
    role: str = opt(f.choice("player", "spectator"), "player")
    password: str | None = opt(f.text(1, 64))
    id: int | None = opt(f.request_id)


@message("leave", CLIENT)
class Leave(Message):
    id: int | None = opt(f.request_id)


@message("ready", CLIENT)
class Ready(Message):
    ready: bool = opt(f.boolean, True)
    id: int | None = opt(f.request_id)


@message("start", CLIENT)
class Start(Message):
    """The host starts the match (every seated human ready)."""

    id: int | None = opt(f.request_id)


@message("add_bot", CLIENT)
class AddBot(Message):
    """The host seats a bot: in ``seat``, or the first free seat."""

    seat: int | None = opt(f.seat)
    level: str | None = opt(f.text(1, 32, r"[a-z][a-z0-9_]*"))
    id: int | None = opt(f.request_id)


@message("remove_bot", CLIENT)
class RemoveBot(Message):
    seat: int = req(f.seat)
    id: int | None = opt(f.request_id)


@message("chat", CLIENT)
class Chat(Message):
    text: str = req(f.text(1, 300))
    id: int | None = opt(f.request_id)


@message("resume", CLIENT)
class Resume(Message):
    """Take back a seat after a reconnect: the token from ``joined``, the last seq seen."""

    token: str = req(_token)
    seq: int = req(f.seq)
    id: int | None = opt(f.request_id)


@message("sync", CLIENT)
class Sync(Message):
    """Ask for a fresh ``snapshot`` (after a gap in ``seq``, say)."""

    id: int | None = opt(f.request_id)


# -- game actions: every one names the room seq it was decided on ----------------------


@message("play", CLIENT)
class Play(Message):
    """Play cards (last on top). Sent out of turn, it is a jump-in."""

    seq: int = req(f.seq)
    cards: tuple[str, ...] = req(f.cards(1, 20))
    color: str | None = opt(f.color)
    target: int | None = opt(f.seat)
    uno: bool = opt(f.boolean, False)
    id: int | None = opt(f.request_id)


@message("draw", CLIENT)
class Draw(Message):
    seq: int = req(f.seq)
    id: int | None = opt(f.request_id)


@message("pass", CLIENT)
class Pass(Message):
    """Keep the card just drawn and end the turn."""

    seq: int = req(f.seq)
    id: int | None = opt(f.request_id)


@message("call_uno", CLIENT)
class CallUno(Message):
    seq: int = req(f.seq)
    id: int | None = opt(f.request_id)


@message("catch", CLIENT)
class Catch(Message):
    """Catch ``target``, who holds one card and has not called UNO."""

    seq: int = req(f.seq)
    target: int = req(f.seat)
    id: int | None = opt(f.request_id)


@message("challenge", CLIENT)
class Challenge(Message):
    """The target of a Wild Draw Four challenges it instead of drawing."""

    seq: int = req(f.seq)
    id: int | None = opt(f.request_id)


@message("choose_color", CLIENT)
class ChooseColor(Message):
    """Name the color when a Wild is turned up as the first card."""

    seq: int = req(f.seq)
    color: str = req(f.color)
    id: int | None = opt(f.request_id)


# -- server to client -----------------------------------------------------------------


@message("ok", SERVER)
class Ok(Message):
    """A request with an ``id`` was accepted, and it has no other reply."""

    id: int = req(f.request_id)


@message("rooms", SERVER)
class Rooms(Message):
    rooms: tuple[FrozenDict, ...] = req(f.array(ev.check_room, 0, 256))
    id: int | None = opt(f.request_id)


@message("joined", SERVER)
class Joined(Message):
    """You are in ``room`` at ``seat`` (null: spectator); keep ``token`` for ``resume``."""

    room: str = req(_room_id)
    seat: int | None = req(f.seat_or_null)
    token: str = req(_token)
    seq: int = req(f.seq)
    id: int | None = opt(f.request_id)


@message("seats", SERVER)
class Seats(Message):
    """The room as the lobby sees it: who sits where, ready or not, and the rules."""

    seq: int = req(f.seq)
    room: str = req(_room_id)
    name: str = req(f.text(1, 40))
    host: int | None = req(f.seat_or_null)
    seats: tuple[FrozenDict, ...] = req(f.array(ev.check_seat, 2, f.MAX_SEATS))
    spectators: int = req(f.count)
    started: bool = req(f.boolean)
    rules: FrozenDict = req(f.scalar_map())
    timer: int = req(f.integer(0, 3600))


@message("snapshot", SERVER)
class Snapshot(Message):
    """A seat's whole view of the table as of ``seq``."""

    seq: int = req(f.seq)
    view: FrozenDict = req(ev.check_view)
    id: int | None = opt(f.request_id)


def _checked_by_kind(value: Any) -> Any:
    """Event ``data``: checked by ``Event._check``, which knows the kind."""
    return value


inline(_checked_by_kind, "True")


@message("event", SERVER)
class Event(Message):
    """One room event; ``seq`` goes up by one per event in the room."""

    seq: int = req(f.seq)
    kind: str = req(f.text(1, 32, r"[a-z][a-z0-9_]*", known=tuple(ev.EVENT_KINDS)))
    data: FrozenDict = opt(_checked_by_kind, f.EMPTY_MAP)

    # When the compiled from_wire gets here, ``kind`` is one of the known kinds (its
    # inline test), and each has a compiled check.
    FAST_CHECK = ("{data} = _check_by_kind[{kind}]({data})", {"_check_by_kind": EVENT_CHECKS})

    def _check(self) -> None:
        object.__setattr__(self, "data", check_event(self.kind, self.data))


CLIENT_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if CLIENT in c.SENDERS)
SERVER_TYPES = frozenset(t for t, c in MESSAGE_TYPES.items() if SERVER in c.SENDERS)
# Game actions: they carry the room seq they were decided on.
ACTIONS = frozenset(
    {"play", "draw", "pass", "call_uno", "catch", "challenge", "choose_color"}
)
