"""What a room is asked to do, and what it knows of the members it answers.

Everything that touches a room reaches its task as one of these commands, on its
channel, and the room task applies them one at a time in arrival order: that order
settles every race. A room answers its members through :class:`Member`, the part of a
connection it may use, and asks the server for what is the server's through
:class:`Lobby`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, get_args

from unolan.protocol.actions import ActionMessage

from unolan import protocol as pr

if TYPE_CHECKING:
    import trio

    from .fanout import Fanout
    from .limits import Limits, Peer
    from .store import Store

LobbyRequest = pr.Leave | pr.Ready | pr.Start | pr.AddBot | pr.RemoveBot | pr.Chat | pr.Sync | pr.Nonce
"""Requests about the room itself (its seats, its host, its chat, its deal) from a member."""

ROOM_REQUESTS = (pr.Leave, pr.Ready, pr.Start, pr.AddBot, pr.RemoveBot, pr.Chat, pr.Sync, pr.Nonce,
                 *get_args(ActionMessage))
"""The messages a session passes on to its room as a :class:`Request`."""

# What a paused room refuses (``paused``): anything that would play or change the room.
# Leaving, resuming, syncing and disconnecting go on; their answers wait for the disk.
REFUSED_WHILE_PAUSED = (pr.Ready, pr.Start, pr.AddBot, pr.RemoveBot, pr.Chat,
                        *get_args(ActionMessage))


class Member(Protocol):
    """A connection as its room sees it."""

    name: str
    bot: bool  # a program plays (it said so in its hello)
    peer: Peer  # its address, and the allowances kept for it

    @property
    def version(self) -> int | None:
        """The protocol version agreed in its handshake (3 and up: it sends nonces)."""

    @property
    def room(self) -> object | None:
        """The room it is in (a room knows itself by identity)."""

    @property
    def seat(self) -> int | None: ...

    def entered(self, seat: int | None, token: str) -> None:
        """Its join or resume was accepted: it is in the room it asked for, at ``seat``
        (None: a spectator), with ``token`` to resume."""

    def turned_away(self) -> None:
        """Its join or resume was refused (the refusal is sent)."""

    def left(self) -> None:
        """It is no longer in the room."""

    def push(self, frame: bytes) -> bool: ...

    def push_now(self, frame: bytes) -> bool: ...

    def send(self, msg: pr.Message, now: bool = False) -> None: ...

    def ok(self, request: pr.Message) -> None: ...

    def error(self, code: str, message: str, request: Any = None, fatal: bool = False,
              now: bool = False) -> None: ...

    def close(self, code: str, message: str) -> None:
        """Say why (a fatal error) and end the connection."""


class Lobby(Protocol):
    """What a room asks of the server that holds it."""

    limits: Limits
    store: Store | None
    fanout: Fanout
    bot_levels: tuple[str, ...]

    def register_token(self, key: str, room_id: str) -> None:
        """The token whose hash is ``key`` resumes in room ``room_id`` from now on."""

    def forget_token(self, key: str) -> None: ...

    def launch_bot(self, room: str, seat: int, token: str, name: str,
                   level: str) -> trio.CancelScope: ...

    def room_closed(self, room_id: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Enter:
    """Join the room (a seat, or as a spectator) or resume a seat or spectator token;
    ``creator``: the member created the room and is its host."""

    member: Member
    msg: pr.Join | pr.Resume
    creator: bool = False


@dataclass(frozen=True, slots=True)
class Request:
    """A lobby request or a game action from a member."""

    member: Member
    msg: LobbyRequest | ActionMessage


@dataclass(frozen=True, slots=True)
class Gone:
    """A member's connection ended."""

    member: Member


@dataclass(frozen=True, slots=True)
class BotsBack:
    """After a restore, once the server listens: the room's bots take their seats back."""


@dataclass(frozen=True, slots=True)
class SavingChanged:
    """The store's health changed: saving began to fail, or works again."""


Command = Enter | Request | Gone | BotsBack | SavingChanged
