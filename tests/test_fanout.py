"""The server's fan-out (server/fanout.py) on its own, and a session served over memory
streams: frames go out whole and in order, never waiting; a client that stops reading is
given up on; corked frames go out in one write; frames held for the disk wait for it; a
request reaches its room without a task switch of its reader."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from functools import partial

import msgpack
import trio
import trio.testing
from unolan.server import Limits, Server
from unolan.server.fanout import Fanout, Outbox

from unolan import protocol as pr


def frames(n: int, size: int = 1000) -> list[bytes]:
    return [bytes([i % 256]) * size for i in range(n)]


class Counting(trio.abc.HalfCloseableStream):
    """A memory stream that counts its writes."""

    def __init__(self) -> None:
        self.inner, self.other = trio.testing.memory_stream_pair()
        self.writes = 0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.writes += 1
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self.inner.send_eof()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def read(self, size: int) -> bytes:
        data = b""
        while len(data) < size:
            data += await self.other.receive_some()
        return data


async def test_a_socket_outbox_writes_at_once_and_keeps_the_rest_in_order() -> None:
    """What the socket takes goes at once (a frame may be cut in the middle); the rest
    waits in the backlog and goes out whole and in order as the reader reads."""
    left, right = trio.socket.socketpair()
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    lost: list[bool] = []
    stream = trio.SocketStream(left)
    sent = frames(200)
    async with trio.open_nursery() as nursery:
        outbox = Outbox(stream, limit=1000, lost=lost.append)
        outbox.nursery = nursery
        assert all(outbox.write([frame]) for frame in sent)  # never waits
        assert outbox.backlog and outbox.writing  # the socket is full: the rest waits
        received = b""
        while len(received) < sum(map(len, sent)):
            received += await right.recv(65536)
        await outbox.flushed()
    assert received == b"".join(sent) and not lost
    assert outbox.backlog is None and not outbox.partial
    left.close()
    right.close()


async def test_a_client_that_stops_reading_is_given_up_on() -> None:
    left, right = trio.socket.socketpair()
    left.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    lost: list[bool] = []
    async with trio.open_nursery() as nursery:
        outbox = Outbox(trio.SocketStream(left), limit=10, lost=lost.append)
        outbox.nursery = nursery
        results = [outbox.write([frame]) for frame in frames(100)]
        nursery.cancel_scope.cancel()
    assert lost == [True] and outbox.shut and outbox.backlog is None
    assert results[0] and not results[-1]  # taken until the backlog overflowed, then refused
    assert not outbox.write([b"late"])  # nothing more is taken
    left.close()
    right.close()


async def test_a_memory_stream_outbox_sends_through_its_writer() -> None:
    stream = Counting()
    async with trio.open_nursery() as nursery:
        outbox = Outbox(stream, limit=100, lost=lambda _: None)
        outbox.nursery = nursery
        sent = frames(5, 10)
        for frame in sent:
            outbox.write([frame])
        assert await stream.read(50) == b"".join(sent)


@dataclass
class Disk:
    """What the fan-out reads of the store."""

    queued: int = 0
    ticket: int = 0

    def write(self) -> None:
        self.queued += 1
        self.ticket += 1


async def test_corked_frames_go_out_in_one_write_per_client() -> None:
    fanout = Fanout(None)
    a, b = Counting(), Counting()
    async with trio.open_nursery() as nursery:
        outboxes = [Outbox(s, limit=100, lost=lambda _: None) for s in (a, b)]
        for outbox in outboxes:
            outbox.nursery = nursery
        fanout.cork(seq=0)
        for i in range(3):
            for outbox in outboxes:
                assert fanout.push(outbox, b"frame%d" % i)
        assert a.writes == b.writes == 0  # nothing out while corked
        fanout.uncork("room")
        assert await a.read(18) == await b.read(18) == b"frame0frame1frame2"
        assert a.writes == b.writes == 1


async def test_frames_held_for_the_disk_wait_for_their_commit_in_order() -> None:
    """A command that queued a write holds its frames until that write is on disk; a
    later command that wrote nothing waits behind it; another room is not held."""
    disk = Disk()
    fanout = Fanout(disk)
    held, free = Counting(), Counting()
    async with trio.open_nursery() as nursery:
        outbox, other = (Outbox(s, limit=100, lost=lambda _: None) for s in (held, free))
        outbox.nursery = other.nursery = nursery
        fanout.cork(seq=10)
        disk.write()
        fanout.push(outbox, b"played")
        fanout.uncork("room")
        first = disk.ticket
        fanout.cork(seq=11)
        fanout.push(outbox, b"chat")  # no write of its own: behind the first
        fanout.uncork("room")
        fanout.cork(seq=0)
        fanout.push(other, b"other")  # another room, nothing to wait for
        fanout.uncork("elsewhere")
        assert await free.read(5) == b"other"
        assert fanout.unsaved("room", seq=12) == 2  # seqs 11 and 12 are not on disk
        await trio.testing.wait_all_tasks_blocked()
        assert held.writes == 0
        fanout.committed(first)
        assert await held.read(10) == b"playedchat"
        assert fanout.unsaved("room", seq=12) == 0


def encode(msg: pr.Message) -> bytes:
    return pr.encode_frame(msg.to_wire())


async def read_message(stream: trio.abc.ReceiveStream, buffer: bytearray) -> dict:
    while len(buffer) < 4 or len(buffer) < 4 + int.from_bytes(buffer[:4], "big"):
        buffer += await stream.receive_some()
    size = int.from_bytes(buffer[:4], "big")
    message = msgpack.unpackb(bytes(buffer[4:4 + size]))
    del buffer[:4 + size]
    return message


async def test_a_session_is_served_over_memory_streams() -> None:
    """The server needs no socket to serve a client: hello, a room, a refusal, bye."""
    server = Server(limits=Limits(deal_pause=0))
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(server.run, "127.0.0.1", 0))
        ours, theirs = trio.testing.memory_stream_pair()
        nursery.start_soon(server.serve_connection, ours, "192.0.2.7")
        buffer = bytearray()
        await theirs.send_all(encode(pr.Hello(versions=(2,), name="ann")))
        assert (await read_message(theirs, buffer))["type"] == "welcome"
        await theirs.send_all(encode(pr.CreateRoom(name="t", seats=2, id=1)))
        joined = await read_message(theirs, buffer)
        assert (joined["type"], joined["seat"], joined["id"]) == ("joined", 0, 1)
        assert server.peers["192.0.2.7"].connections == 1
        await theirs.send_all(encode(pr.Start(id=2)))
        while (reply := await read_message(theirs, buffer)).get("id") != 2:
            pass
        assert (reply["type"], reply["code"]) == ("error", "not_ready")  # seat 1 is empty
        await theirs.send_all(encode(pr.Bye()))
        while await theirs.receive_some():
            pass  # the server closes its side
        nursery.cancel_scope.cancel()
    assert not server.sessions



class _ReaderSteps(trio.abc.Instrument):
    """Counts the steps of the tasks that serve a TCP connection (a session's reader)."""

    def __init__(self) -> None:
        self.steps = 0

    def before_task_step(self, task: trio.lowlevel.Task) -> None:
        if task.coro.cr_code.co_qualname == "Server._handle":
            self.steps += 1


async def test_a_request_reaches_its_room_without_a_task_switch_of_its_reader() -> None:
    """The reader hands a request to its room and goes back to its socket: one step of
    the reader per request that arrives alone. (Waiting for room in the inbox, which is
    never full here, would be a second: every other task runs before it goes on.)"""
    server = Server(limits=Limits(deal_pause=0, chat_rate=1e6, chat_burst=1e6,
                                  address_chat_rate=1e6, address_chat_burst=1e6))
    counter = _ReaderSteps()
    async with trio.open_nursery() as nursery:
        await nursery.start(partial(server.run, "127.0.0.1", 0))
        client = await trio.open_tcp_stream("127.0.0.1", server.port)
        buffer = bytearray()
        await client.send_all(encode(pr.Hello(versions=(2,), name="ann")))
        assert (await read_message(client, buffer))["type"] == "welcome"
        await client.send_all(encode(pr.CreateRoom(name="t", seats=2, id=1)))
        while (await read_message(client, buffer)).get("id") != 1:
            pass
        trio.lowlevel.add_instrument(counter)
        requests = 40
        for n in range(requests):
            await client.send_all(encode(pr.Chat(text=f"hello {n}", id=100 + n)))
            while (await read_message(client, buffer)).get("id") != 100 + n:
                pass
        trio.lowlevel.remove_instrument(counter)
        assert requests <= counter.steps <= requests + 2
        await client.aclose()
        nursery.cancel_scope.cancel()
