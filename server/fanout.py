"""Frames out to clients without ever waiting: the server's fan-out.

A room sends each event to every member, and the room task must never wait for a slow
client. An :class:`Outbox` writes a frame straight into its client's non-blocking socket
when nothing waits before it; what the socket does not take waits in a small bounded
backlog that a writer task, started only while there is one, sends as the socket drains;
and a client whose backlog overflows has stopped reading, so it is given up on (its seat
waits for a ``resume``) instead of slowing its room.

The :class:`Fanout` is the server's. While a room handles a command it is *corked*: each
member's frames of that command are gathered and written at its end in one system call.
When the command queued a write for the database, its frames are *held*, in order per
room, until the store says that write is on disk (write-ahead: nobody ever sees a table
that a crash could take back); the room goes on with later commands meanwhile, and their
frames queue behind.

Over a socket the outbox writes to the descriptor itself (the stream's ``send_all``
costs a task switch per frame); over any other stream (``trio.testing``'s memory
streams, in tests) every frame goes through the writer task and ``send_all``.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Hashable
from typing import Protocol

import trio

_WRITEV_MAX = 64  # buffers per writev (the system's limit is far above; beyond: one join)


class Outbox:
    """One client's outgoing frames, in order. ``lost(not_reading)`` is called once when
    the client is given up on: its backlog overflowed (True) or its socket failed."""

    __slots__ = ("backlog", "corked", "drained", "fd", "limit", "lost", "nursery", "partial",
                 "shut", "stream", "writing")

    def __init__(self, stream: trio.abc.Stream, limit: int, lost: Callable[[bool], None]) -> None:
        self.stream = stream
        self.fd = stream.socket.fileno() if isinstance(stream, trio.SocketStream) else -1
        self.limit = limit  # frames the backlog may hold
        self.lost = lost
        self.shut = False  # no more frames are taken
        self.backlog: deque[bytes | memoryview] | None = None
        self.partial = False  # half a frame is out: nothing may go out around the backlog
        self.writing = False  # the writer task is running
        self.drained: trio.Event | None = None  # set when the backlog is empty
        self.corked: list[bytes] | None = None  # frames gathered while the server is corked
        self.nursery: trio.Nursery | None = None  # where the writer runs (None: closed)

    def write(self, frames: list[bytes]) -> bool:
        """Into the socket now, or else the backlog; False if the client is gone."""
        if self.shut:
            return False
        backlog = self.backlog
        if backlog:
            backlog.extend(frames)
            return len(backlog) <= self.limit or self._give_up(True)
        sent = 0
        if self.fd >= 0:
            try:
                if len(frames) == 1:
                    sent = os.write(self.fd, frames[0])
                else:
                    sent = os.writev(self.fd, frames if len(frames) <= _WRITEV_MAX else [b"".join(frames)])
            except BlockingIOError:
                pass
            except OSError:
                return self._give_up(False)
        rest: deque[bytes | memoryview] = deque()
        for frame in frames:
            size = len(frame)
            if sent >= size:
                sent -= size
            elif sent:
                rest.append(memoryview(frame)[sent:])
                self.partial = True
                sent = 0
            else:
                rest.append(frame)
        if not rest:
            return True
        if len(rest) > self.limit or self.nursery is None:
            return self._give_up(True)
        self.backlog = rest
        if not self.writing:
            self.writing = True
            self.nursery.start_soon(self._writer)
        return True

    def _give_up(self, not_reading: bool) -> bool:
        self.close()
        self.lost(not_reading)
        return False

    def close(self) -> None:
        """Take no more frames and forget those waiting."""
        self.shut = True
        self.backlog = None
        if self.corked is not None:
            self.corked = []

    async def _writer(self) -> None:
        """Send the backlog as the client takes it, then end."""
        try:
            while self.backlog:
                if self.fd < 0:
                    frames = list(self.backlog)
                    self.backlog.clear()
                    await self.stream.send_all(b"".join(frames))
                    continue
                await trio.lowlevel.wait_writable(self.fd)
                backlog = self.backlog
                if not backlog:  # given up on while we waited
                    break
                frames = list(backlog) if len(backlog) <= _WRITEV_MAX else [b"".join(backlog)]
                try:
                    sent = os.writev(self.fd, frames)
                except BlockingIOError:
                    continue
                while sent and backlog:
                    size = len(backlog[0])
                    if sent >= size:
                        backlog.popleft()
                        sent -= size
                        self.partial = False
                    else:
                        backlog[0] = memoryview(backlog[0])[sent:]
                        self.partial = True
                        sent = 0
        except (OSError, trio.ClosedResourceError, trio.BrokenResourceError):
            self._give_up(False)
        finally:
            self.writing = False
            if not self.backlog:
                self.backlog = None
                if self.drained is not None:
                    self.drained.set()

    async def flushed(self) -> None:
        """Wait until every frame taken so far is in the socket."""
        while self.backlog and self.writing:
            self.drained = trio.Event()
            await self.drained.wait()


class Saves(Protocol):
    """What the fan-out reads of the store: how many writes were queued so far, and the
    ticket of the transaction the latest will be in."""

    @property
    def queued(self) -> int: ...

    @property
    def ticket(self) -> int: ...


# Per room, the frames of its commands whose writes are not on disk yet, in order: the
# store's ticket to wait for, the room's seq before the command, each outbox's frames.
_Held = deque[tuple[int, int, list[tuple[Outbox, list[bytes]]]]]


class Fanout:
    """The server's corking and write-ahead holding of frames (see the module's text).
    Rooms are known by any hashable key."""

    def __init__(self, store: Saves | None) -> None:
        self.store = store
        self.corking = False  # a room is handling a command
        self._dirty: list[Outbox] = []  # outboxes holding corked frames
        self._held: dict[Hashable, _Held] = {}
        self._mark = 0  # the store's count of queued writes when the command began
        self._seq = 0  # the room's seq when the command began

    def push(self, outbox: Outbox, frame: bytes) -> bool:
        """Send ``frame`` (gathered while corked); False if the client is gone."""
        if outbox.shut:
            return False
        if self.corking:
            corked = outbox.corked
            if corked is None:
                outbox.corked = [frame]
                self._dirty.append(outbox)
            else:
                corked.append(frame)
            return True
        return outbox.write([frame])

    def cork(self, seq: int) -> None:
        """A room whose seq is ``seq`` begins a command."""
        self.corking = True
        if self.store is not None:
            self._mark = self.store.queued
            self._seq = seq

    def uncork(self, room: Hashable) -> None:
        """The room's command is done: its frames go out, or wait behind its writes."""
        self.corking = False
        dirty, self._dirty = self._dirty, []
        store = self.store
        if store is not None:
            wrote = store.queued != self._mark
            queue = self._held.get(room)
            if wrote or queue:
                batch = []
                for outbox in dirty:
                    frames, outbox.corked = outbox.corked, None
                    if frames and not outbox.shut:
                        batch.append((outbox, frames))
                if queue is None:
                    queue = self._held[room] = deque()
                queue.append((store.ticket if wrote else queue[-1][0], self._seq, batch))
                return
        for outbox in dirty:
            frames, outbox.corked = outbox.corked, None
            if frames:
                outbox.write(frames)

    def committed(self, ticket: int) -> None:
        """Writes up to ``ticket`` are on disk: the frames that waited for them go out."""
        for room, queue in list(self._held.items()):
            while queue and queue[0][0] <= ticket:
                for outbox, frames in queue.popleft()[2]:
                    outbox.write(frames)
            if not queue:
                del self._held[room]

    def unsaved(self, room: Hashable, seq: int) -> int:
        """How many of the room's seqs (up to ``seq``) are given out but not on disk yet."""
        queue = self._held.get(room)
        return seq - queue[0][1] if queue else 0

    def forget(self, room: Hashable) -> None:
        """The room is gone: nothing of it is held any more."""
        self._held.pop(room, None)
