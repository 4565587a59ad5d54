"""The server's limits and knobs, in one place, and what enforces them: token buckets, the
state kept per client address, and the connection cap the descriptor limit allows.

Limits are per client, not per connection: a player's chat allowance belongs to its seat
(a spectator's to its token) and every address has its own allowance for joining,
leaving, resuming and creating rooms, its own count of open rooms and connections and its
own password lockout. Reconnecting resets none of them.
"""

from __future__ import annotations

import ipaddress
import resource
from dataclasses import dataclass

import trio
from unolan.protocol import DEFAULT_PORT as DEFAULT_PORT  # the protocol's: clients assume it too


@dataclass(frozen=True)
class Limits:
    """Every bound the server enforces. Times are in seconds (Trio's clock)."""

    max_connections: int = 4096  # and at most what the descriptor limit allows (connection_cap)
    reserved_fds: int = 64  # descriptors kept back from connections (database, listeners, threads)
    max_rooms: int = 512
    max_spectators: int = 32  # connected at once, per room
    max_frame: int = 64 * 1024  # largest frame a client may send
    frame_timeout: float = 10.0  # a frame must arrive whole within this once it has begun
    outbox: int = 64  # frames queued for one client before it counts as stuck and is dropped
    sndbuf: int = 0  # SO_SNDBUF for client sockets (0: the system's default)
    handshake_timeout: float = 10.0
    heartbeat: int = 15  # ping after this much silence; drop after twice as much
    watch_tick: float = 1.0  # how often heartbeats and frame deadlines are checked
    request_rate: float = 100.0  # requests per second, per connection (token bucket)
    request_burst: float = 200.0
    chat_rate: float = 1.0  # chat lines per second, per seat or spectator token
    chat_burst: float = 5.0
    address_chat_rate: float = 4.0  # chat lines per second, per address (all its members)
    address_chat_burst: float = 20.0
    lobby_rate: float = 1.0  # joins, leaves, resumes and room creations per second, per address
    lobby_burst: float = 20.0
    rooms_per_address: int = 8  # open rooms created from one address
    connections_per_address: int = 64
    # Loopback addresses are not held to connections_per_address: the server's own bots
    # (and `uno play`'s) connect from there, all at once after a restart.
    exempt_loopback: bool = True
    password_failures: int = 5  # wrong room passwords from one address before a lockout
    password_lockout: float = 60.0
    max_strikes: int = 10  # non-fatal protocol errors before the connection is closed
    room_log: int = 64  # events kept per room for resume (older: a snapshot instead)
    room_idle: float = 120.0  # a room with no connected human expires after this long
    grace: float = 60.0  # a disconnected player's seat (a spectator's token) is kept this long
    # After a restart, a player's turns wait this long for them before the autopilot plays
    # (clients retry every few seconds: this covers a retry or two).
    restore_grace: float = 15.0
    linger: float = 1.0  # after the last frame to a closing client, read what it still sends
    # Python's thread switch interval while the server keeps a database. The store's
    # thread (the transactions that take long: a match kept, a sweep, checkpoints) takes
    # the GIL back after each statement, and the frames held for it wait with it: with
    # the default 5 ms it may wait that long behind a busy event loop.
    switch_interval: float = 0.001
    # A restored room's seq goes on this far above the stored one, so that no seq a client
    # may have seen is given out again (a room announces a pause only within this margin).
    restart_gap: int = 10_000
    timeouts_to_autopilot: int = 2  # consecutive turn timeouts before autopilot takes over
    autopilot_delay: float = 0.5  # autopilot's think time, so people can follow it
    deal_pause: float = 3.0  # pause between a round's end and the next deal
    # A fair deal waits at most this long for the nonces of the seats it asked (the first
    # round's; a next round's have until its deal_pause ends).
    nonce_wait: float = 2.0
    race_window: float = 0.5  # refusals this soon after a race's winner join its receipt
    # The cyclic garbage collector's first threshold while serving. Every connection keeps
    # a few coroutines alive while it waits, and each young-generation pass walks them all:
    # with the default (700) those passes cost more than the game. The server makes
    # little cyclic garbage, so passes this much rarer cost next to no memory.
    gc_threshold: int = 20_000
    # Every this many seconds the memory the server freed goes back to the system
    # (:mod:`.heap`; 0: never).
    heap_trim: float = 10.0


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; :meth:`take` says whether one was left."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = trio.current_time()

    def _refill(self) -> None:
        now = trio.current_time()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now

    def take(self, cost: float = 1.0) -> bool:
        self._refill()
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    @property
    def full(self) -> bool:
        """Refilled to its burst: forgetting it would give nothing away."""
        self._refill()
        return self.tokens >= self.burst


class Peer:
    """What the server keeps about one client address, across all its connections."""

    __slots__ = (
        "address",
        "chat",
        "connections",
        "failures",
        "lobby",
        "local",
        "locked_until",
        "rooms",
    )

    def __init__(self, address: str, limits: Limits) -> None:
        self.address = address  # ``local``: a loopback address, exempt from the connection cap
        self.local = limits.exempt_loopback and is_loopback(address)
        self.connections = 0
        self.rooms = 0  # open rooms created from here
        self.lobby = TokenBucket(limits.lobby_rate, limits.lobby_burst)
        self.chat = TokenBucket(limits.address_chat_rate, limits.address_chat_burst)
        self.failures = 0  # wrong passwords since the last lockout or right one
        self.locked_until = 0.0

    @property
    def idle(self) -> bool:
        """Nothing here that a returning client could profit from losing."""
        return (not self.connections and not self.rooms and self.lobby.full and self.chat.full
                and not self.failures and trio.current_time() >= self.locked_until)

    def locked_out(self) -> float:
        """Seconds left of a password lockout (0: none)."""
        return max(0.0, self.locked_until - trio.current_time())

    def wrong_password(self, limits: Limits) -> None:
        self.failures += 1
        if self.failures >= limits.password_failures:
            self.failures = 0
            self.locked_until = trio.current_time() + limits.password_lockout


def is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.partition("%")[0]).is_loopback
    except ValueError:
        return False


def connection_cap(limits: Limits) -> int:
    """The most connections the server takes: ``limits.max_connections``, but no more than
    the descriptor limit (``RLIMIT_NOFILE``) leaves after ``limits.reserved_fds``, so that
    accepting never runs out of descriptors: a client past the cap is told ``server_full``."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return limits.max_connections
    return max(1, min(limits.max_connections, soft - limits.reserved_fds))


def raise_descriptor_limit() -> int:
    """Raise the soft descriptor limit to the hard one (a server wants many sockets);
    return the soft limit in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft
