"""The server's limits and knobs, in one place, and the token bucket that enforces rates."""

from __future__ import annotations

from dataclasses import dataclass

import trio
from unolan.protocol import DEFAULT_PORT as DEFAULT_PORT  # the protocol's: clients assume it too


@dataclass(frozen=True)
class Limits:
    """Every bound the server enforces. Times are in seconds (Trio's clock)."""

    max_connections: int = 4096
    max_rooms: int = 512
    max_spectators: int = 32  # per room
    max_frame: int = 64 * 1024  # largest frame a client may send
    outbox: int = 64  # frames queued for one client before it counts as stuck and is dropped
    sndbuf: int = 0  # SO_SNDBUF for client sockets (0: the system's default)
    handshake_timeout: float = 10.0
    heartbeat: int = 15  # ping after this much silence; drop after twice as much
    request_rate: float = 100.0  # requests per second, per connection (token bucket)
    request_burst: float = 200.0
    chat_rate: float = 1.0  # chat lines per second, per connection
    chat_burst: float = 5.0
    max_strikes: int = 10  # non-fatal protocol errors before the connection is closed
    room_log: int = 128  # events kept per room for resume (older: a snapshot instead)
    room_idle: float = 120.0  # a room with no connected human expires after this long
    grace: float = 60.0  # a disconnected player's seat is kept this long for resume
    # After a restart, a player's turns wait this long for them before the autopilot plays
    # (clients retry every few seconds: this covers a retry or two).
    restore_grace: float = 15.0
    timeouts_to_autopilot: int = 2  # consecutive turn timeouts before autopilot takes over
    autopilot_delay: float = 0.5  # autopilot's think time, so people can follow it
    deal_pause: float = 3.0  # pause between a round's end and the next deal
    # The cyclic garbage collector's first threshold while serving. Every connection keeps
    # a few coroutines alive while it waits, and each young-generation pass walks them all:
    # with the default (700) those passes cost more than the game. The server makes
    # little cyclic garbage, so passes this much rarer cost next to no memory.
    gc_threshold: int = 20_000


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; :meth:`take` says whether one was left."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = trio.current_time()

    def take(self, cost: float = 1.0) -> bool:
        now = trio.current_time()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False
