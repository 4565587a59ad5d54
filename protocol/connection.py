"""The sans-IO connection: bytes in, messages out, messages in, bytes out.

One object per connection, for either end (``role``). It does no I/O: the caller feeds it
what the socket read (``receive_data``), pulls messages (``next_event``), and writes what
``send`` returns. The handshake is enforced by a state table (``TRANSITIONS``): which
message types each side may send in each state, and the state that follows.

    AWAIT_HELLO --hello--> AWAIT_WELCOME --welcome--> READY --bye / fatal error--> CLOSED
         \\________________ error __________/
    any state --peer breaks the protocol (fatal)--> ERROR --error frame--> CLOSED
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import HEADER, MAX_FRAME_SIZE, decode_body, encode_frame, pack
from .messages import (
    CLIENT,
    CLIENT_TYPES,
    CLIENT_VERSIONS,
    MESSAGE_TYPES,
    SERVER,
    SERVER_TYPES,
    SUPPORTED_VERSIONS,
    Error,
    Hello,
    Message,
    Role,
    Welcome,
    decode_message,
)


class State(enum.Enum):
    AWAIT_HELLO = "await_hello"  # nothing yet: the client must say hello
    AWAIT_WELCOME = "await_welcome"  # hello sent: the server must welcome or refuse
    READY = "ready"  # handshake done: requests, replies and events flow
    ERROR = "error"  # the peer broke the protocol: we may still send one error frame
    CLOSED = "closed"  # bye or fatal error sent or received: no more traffic


class _Sentinel:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NEED_DATA = _Sentinel("NEED_DATA")  # next_event: no complete frame yet
CONNECTION_CLOSED = _Sentinel("CONNECTION_CLOSED")  # next_event: the peer closed the stream

_length_at = HEADER.unpack_from
_header = HEADER.pack

A, W, R, E, C = (
    State.AWAIT_HELLO,
    State.AWAIT_WELCOME,
    State.READY,
    State.ERROR,
    State.CLOSED,
)

# (state, sender) -> {message type: next state}. A fatal ``error`` always leads to CLOSED;
# any other type is refused in that state ("bad_state").
TRANSITIONS: dict[tuple[State, Role], dict[str, State]] = {
    (A, CLIENT): {"hello": W, "error": C, "bye": C},
    (A, SERVER): {"error": C, "bye": C},
    (W, CLIENT): {"error": C, "bye": C},
    (W, SERVER): {"welcome": R, "error": C, "bye": C},
    (R, CLIENT): {t: R for t in CLIENT_TYPES - {"hello"}} | {"bye": C},
    (R, SERVER): {t: R for t in SERVER_TYPES - {"welcome"}} | {"bye": C},
    (E, CLIENT): {"error": C},
    (E, SERVER): {"error": C},
}
_NOTHING: dict[str, State] = {}
_SPECIAL = frozenset({"hello", "welcome", "error"})  # types with more to check than the table


def _steady(state: State, sender: Role) -> frozenset[str]:
    """The types ``sender`` may send in ``state`` that leave it as it is and need no
    check beyond the table: once the state allows them, they take the short paths."""
    table = TRANSITIONS.get((state, sender), _NOTHING)
    return frozenset(t for t, after in table.items() if after is state and t not in _SPECIAL)


# (state, sender) -> the classes ``send`` frames without consulting the table...
_QUICK_SEND: dict[tuple[State, Role], frozenset[type[Message]]] = {
    key: frozenset(MESSAGE_TYPES[t] for t in _steady(*key)) for key in TRANSITIONS
}
# ...and the decoders (``from_wire``) by type name ``next_event`` uses likewise.
_QUICK_RECEIVE: dict[tuple[State, Role], dict[str, Callable[[Any], Message]]] = {
    key: {t: MESSAGE_TYPES[t].from_wire for t in _steady(*key)} for key in TRANSITIONS
}
_NO_DECODERS: dict[str, Callable[[Any], Message]] = {}


class Connection:
    """One end of a connection. ``role`` is which end *we* are."""

    def __init__(
        self,
        role: Role,
        *,
        versions: tuple[int, ...] | None = None,
        max_frame_size: int = MAX_FRAME_SIZE,
    ) -> None:
        """``versions``: those we speak; by default a server's :data:`SUPPORTED_VERSIONS`,
        a client's :data:`CLIENT_VERSIONS` (those whose events carry the facts it folds)."""
        self.role = role
        self.their_role = SERVER if role is CLIENT else CLIENT
        if versions is None:
            versions = SUPPORTED_VERSIONS if role is SERVER else CLIENT_VERSIONS
        self.versions = tuple(versions)
        self.state = State.AWAIT_HELLO  # and what the state decides (see the setter)
        self.version: int | None = None  # agreed in the handshake
        self.offered: tuple[int, ...] = ()  # the versions the hello offered
        self.max_frame_size = max_frame_size  # for frames we receive
        self.peer_max_frame_size = max_frame_size  # for frames we send
        # Received bytes not yet returned as frames: ``_data[_start:]``. Usually the bytes
        # of the last read as they came (whole frames need no copy into a buffer); a
        # bytearray only while a partial frame waits for the rest.
        self._data: bytes | bytearray = b""
        self._start = 0
        self._eof = False
        self._error: RemoteProtocolError | None = None

    @property
    def state(self) -> State:
        return self._state

    @state.setter
    def state(self, state: State) -> None:
        # Look the table up once per state change, not per message (enum hashing is slow).
        self._state = state
        self._can_send: dict[str, State] = TRANSITIONS.get((state, self.role), _NOTHING)
        self._can_receive: dict[str, State] = TRANSITIONS.get((state, self.their_role), _NOTHING)
        self._quick_send: frozenset[type[Message]] = _QUICK_SEND.get((state, self.role), frozenset())
        self._decoders = _QUICK_RECEIVE.get((state, self.their_role), _NO_DECODERS)

    @property
    def buffered(self) -> int:
        """Bytes received and not yet returned as messages: part of a frame still coming."""
        return len(self._data) - self._start

    # -- receiving ---------------------------------------------------------------------

    def receive_data(self, data: bytes | bytearray) -> None:
        """Bytes read from the stream; ``b""`` means the peer closed it."""
        state = self._state
        if state is C or state is E or self._eof:
            self._refuse_data(data)
        elif not data:
            self._eof = True
        elif self._start == len(self._data):  # everything so far consumed: no copy
            self._data, self._start = data if type(data) is bytes else bytes(data), 0
        else:
            self._append(data)

    def _refuse_data(self, data: bytes | bytearray) -> None:
        """After the end (ours or the stream's), only more ends are welcome."""
        if not data:
            return
        if self._state is C or self._state is E:
            raise LocalProtocolError(f"connection is {self.state.value}: no more data", "bad_state")
        raise LocalProtocolError("data after end of stream", "bad_state")

    def _append(self, data: bytes | bytearray) -> None:
        """Keep ``data`` after the unconsumed bytes, in a buffer of their own (whose
        consumed part is dropped first, so a stream that never drains cannot grow it)."""
        buffer = self._data
        if isinstance(buffer, bytes):
            buffer = bytearray(memoryview(buffer)[self._start :])
        else:
            del buffer[: self._start]
        buffer += data
        self._data, self._start = buffer, 0

    def next_event(self) -> Message | _Sentinel:
        """The next message, ``NEED_DATA`` or ``CONNECTION_CLOSED``.

        Raises ``RemoteProtocolError`` on bad input; if it is ``fatal`` the connection
        goes to ERROR (send the error with :meth:`send_error`, then close the stream).

        The common case, a whole frame of a type that leaves the state as it is, is done
        here in one go: cut the frame, unpack it within the limits, and hand the map to its
        type's decoder (which validates every field). Anything else, and any doubt, is for
        :meth:`_next_event`, which does the same step by step.
        """
        decoders, data, start = self._decoders, self._data, self._start
        if decoders and len(data) - start >= 4:  # decoders: only in READY
            (length,) = _length_at(data, start)
            end = start + 4 + length
            if end <= len(data) and length <= self.max_frame_size:
                self._start = end
                try:
                    wire = decode_body(data[start + 4 : end])
                    try:
                        decode = decoders[wire["type"]]
                    except (KeyError, TypeError):  # not a map holding a type for here
                        decode = self._dispatch
                    return decode(wire)
                except RemoteProtocolError as exc:
                    self._failed(exc)
                    raise
        return self._next_event()

    def _next_event(self) -> Message | _Sentinel:
        """:meth:`next_event` for every state and case, with the state table."""
        state = self._state
        if state is E:
            assert self._error is not None
            raise self._error
        if state is C:
            return CONNECTION_CLOSED
        try:
            body = self._next_body()
            if body is None:
                if not self._eof:
                    return NEED_DATA
                if self._start < len(self._data):
                    raise RemoteProtocolError("stream closed in the middle of a frame", "bad_frame")
                self.state = State.CLOSED
                return CONNECTION_CLOSED
            return self._dispatch(decode_body(body))
        except RemoteProtocolError as exc:
            self._failed(exc)
            raise

    def _next_body(self) -> bytes | bytearray | None:
        """The next complete frame body, or ``None`` until more bytes arrive. A declared
        length over the limit is refused as soon as the header is in, body unread.

        A slice copies only this frame's bytes, and for the small frames of this protocol
        it is cheaper than a memoryview (and never pins the buffer)."""
        data, start = self._data, self._start
        if len(data) - start < 4:
            return None
        (length,) = _length_at(data, start)
        if length > self.max_frame_size:
            raise RemoteProtocolError(
                f"frame of {length} bytes declared; the limit is {self.max_frame_size}",
                "frame_too_large",
            )
        end = start + 4 + length
        if len(data) < end:
            return None
        self._start = end
        return data[start + 4 : end]

    def _dispatch(self, wire: Any) -> Message:
        """The message in an unpacked frame, checked against the state table."""
        msg = decode_message(wire)
        type_name = msg.TYPE
        # A message that keeps the state as it is needs no more work.
        if self._can_receive.get(type_name) is not self._state or type_name in _SPECIAL:
            self._advance(msg, self.their_role, RemoteProtocolError)
        return msg

    def _failed(self, exc: RemoteProtocolError) -> None:
        """Record the peer's fault: fatal ones (every one during the handshake) stop
        reading, and ``next_event`` raises the same error from then on."""
        if self._state is not State.READY:
            exc.fatal = True  # nothing is forgiven during the handshake
        if exc.fatal:
            self.state = State.ERROR
            self._error = exc

    # -- sending -----------------------------------------------------------------------

    def send(self, message: Message) -> bytes:
        """The bytes of one frame holding ``message``, if the state allows it.

        Raises ``LocalProtocolError`` (and sends nothing, changes nothing) otherwise.
        """
        if type(message) in self._quick_send:
            # The common case: the state stays as it is, so there is nothing to check or
            # roll back. Too large a frame is left to encode_frame to refuse.
            body: bytes = pack(message.to_wire())
            if len(body) <= self.peer_max_frame_size:
                return _header(len(body)) + body
        if not isinstance(message, Message):
            raise LocalProtocolError(f"not a message: {type(message).__name__}", "bad_message")
        type_name = message.TYPE
        if self._can_send.get(type_name) is self._state and type_name not in _SPECIAL:
            return encode_frame(message.to_wire(), self.peer_max_frame_size)
        before = (self.state, self.version, self.offered)
        self._advance(message, self.role, LocalProtocolError)
        try:
            return encode_frame(message.to_wire(), self.peer_max_frame_size)
        except LocalProtocolError:
            self.state, self.version, self.offered = before
            raise

    def send_error(self, error: ProtocolError | Error) -> bytes:
        """The bytes of an ``error`` frame for ``error`` (e.g. the RemoteProtocolError
        ``next_event`` raised). After a fatal one, close the stream."""
        fatal = error.fatal or self.state is not State.READY  # the handshake forgives nothing
        if isinstance(error, ProtocolError) or fatal is not error.fatal:
            error = Error(
                code=error.code,
                message=error.message[:500],
                fatal=fatal,
                id=error.id,
                versions=error.versions,
            )
        return self.send(error)

    def hello(self, name: str, client: str | None = None, *, bot: bool = False) -> bytes:
        """The client's hello, offering every version we speak (``bot``: a program plays)."""
        return self.send(Hello(versions=self.versions, name=name, client=client,
                               bot=True if bot else None))

    def welcome(self, server: str, heartbeat: int = 15, server_id: str | None = None) -> bytes:
        """The server's welcome, choosing the newest version both sides speak."""
        common = set(self.offered) & set(self.versions)
        if self.state is not State.AWAIT_WELCOME or not common:
            raise LocalProtocolError("welcome answers a hello with a common version", "bad_state")
        return self.send(
            Welcome(
                version=max(common),
                server=server,
                max_frame=self.max_frame_size,
                heartbeat=heartbeat,
                server_id=server_id,
            )
        )

    # -- the state table ---------------------------------------------------------------

    def _advance(self, msg: Message, sender: Role, fault: type[ProtocolError]) -> None:
        """Check ``msg`` against the table and move to the next state, or raise."""
        type_name = msg.TYPE
        ours = fault is LocalProtocolError
        target = (self._can_send if ours else self._can_receive).get(type_name)
        if target is None:
            who = "we" if ours else "the peer"
            raise fault(
                f"{who} ({sender.value}) may not send {type_name} in state {self.state.value}",
                "bad_state",
                id=getattr(msg, "id", None),
            )
        match msg:
            case Hello():
                self._on_hello(msg, fault)
            case Welcome():
                self._on_welcome(msg, fault)
            case Error(fatal=True):
                target = State.CLOSED
        if target is not self._state:
            self.state = target

    def _on_hello(self, msg: Hello, fault: type[ProtocolError]) -> None:
        self.offered = msg.versions
        if self.role is SERVER and not set(msg.versions) & set(self.versions):
            spoken = ", ".join(map(str, self.versions))
            raise fault(
                f"this server speaks protocol version {spoken}; the client offered "
                f"{', '.join(map(str, msg.versions))}",
                "unsupported_version",
                fatal=True,
                versions=self.versions,
            )

    def _on_welcome(self, msg: Welcome, fault: type[ProtocolError]) -> None:
        offered = self.versions if self.role is CLIENT else self.offered
        if msg.version not in offered:
            raise fault(
                f"welcome chose version {msg.version}, which was not offered",
                "unsupported_version",
                fatal=True,
            )
        self.version = msg.version
        if self.role is CLIENT:
            self.peer_max_frame_size = min(self.peer_max_frame_size, msg.max_frame)

    def __repr__(self) -> str:
        return f"<Connection {self.role.value} {self.state.value} v{self.version}>"
