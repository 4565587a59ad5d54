"""Who sits at a room's table and who watches it.

A seat outlives the connection that plays it: it is known by its token's hash (the
token itself is never kept), its owner may drop and resume, and the server plays it when
nobody does. A spectator is known the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .store import SeatRecord

if TYPE_CHECKING:
    import trio

    from .commands import Member
    from .limits import TokenBucket


@dataclass(eq=False)
class Seat:
    index: int
    kind: str = "empty"  # empty | human | bot
    name: str | None = None
    member: Member | None = None  # the connection playing it, if any
    token_hash: str | None = None  # of the token that resumes the seat (the token is not kept)
    ready: bool = False
    autopilot: bool = False  # after repeated turn timeouts, until the player acts again
    abandoned: bool = False  # left the match, or the reconnect grace ran out
    timeouts: int = 0
    level: str | None = None  # a bot's strategy
    program: bool = False  # a client that said in its hello that a program plays
    starting: bool = False  # a server bot launched whose connection is not in yet
    grace_until: float | None = None
    held_until: float | None = None  # after a restore: the owner's turns wait this long for them
    bot_scope: trio.CancelScope | None = None
    chat: TokenBucket | None = None  # the seat's chat allowance, across reconnects

    @property
    def state(self) -> str:
        if self.kind == "empty":
            return "empty"
        if self.member is not None:
            return "autopilot" if self.autopilot else "connected"
        if self.abandoned:
            return "autopilot"
        # A bot the server has just started is not a player who went away: the server runs it.
        return "connected" if self.starting else "away"

    @property
    def piloted(self) -> bool:
        """Whether the server plays this seat's turns."""
        return self.kind != "empty" and (self.autopilot or self.member is None)

    def public(self) -> dict[str, Any]:
        """The seat as the ``seats`` message shows it."""
        return {"seat": self.index, "name": self.name, "kind": self.kind, "ready": self.ready,
                "state": self.state, "bot": self.kind == "bot" or self.program}

    def record(self) -> SeatRecord:
        """What the store keeps of it."""
        return SeatRecord(self.index, self.kind, self.name, self.level, self.token_hash, self.ready,
                          self.program)


@dataclass(eq=False)
class Watcher:
    """A spectator, known by its token's hash; its connection comes and goes."""

    token_hash: str
    name: str | None
    member: Member | None = None
    grace_until: float | None = None  # disconnected: the token is forgotten after this
    chat: TokenBucket | None = None  # its chat allowance, across reconnects
