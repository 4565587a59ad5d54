"""Limits per client (address and token), not per connection, and connections that end in
good order. Reconnecting resets nothing."""

from __future__ import annotations

import contextlib
import errno
import logging
import struct
import threading
from typing import Any

import msgpack
import pytest
import trio
from test_server import FAST, Raw, frame, running, settle, table
from unolan.server import Limits
from unolan.server import app as server_app
from unolan.server import session as server_session
from unolan.server.limits import connection_cap

from unolan import protocol as pr


def limits(**kw: Any) -> Limits:
    base = dict(deal_pause=0.0, autopilot_delay=0.0, request_rate=1e6, request_burst=1e6,
                heartbeat=3600, exempt_loopback=False)
    return Limits(**base | kw)  # type: ignore[arg-type]


async def test_rooms_per_address_count_rooms_left_behind_until_they_close(
        autojump_clock: trio.abc.Clock) -> None:
    async with running(limits(rooms_per_address=2, room_idle=30)) as server:
        a = await Raw.connect(server.port)
        for i in range(2):  # create, leave, repeat: the rooms stay open a while, empty
            assert (await a.reply(pr.CreateRoom(name=f"t{i}", seats=2, id=1))).TYPE == "joined"
            assert (await a.reply(pr.Leave(id=2))).TYPE == "ok"
        refused = await a.reply(pr.CreateRoom(name="t3", seats=2, id=3))
        assert refused.code == "too_many_rooms"  # type: ignore[attr-defined]
        b = await Raw.connect(server.port)  # another connection from the same address
        assert (await b.reply(pr.CreateRoom(name="t4", seats=2, id=1))).code == "too_many_rooms"  # type: ignore[attr-defined]
        await trio.sleep(31)  # the empty rooms expire: their places are free again
        assert server.rooms == {}
        assert (await b.reply(pr.CreateRoom(name="t5", seats=2, id=2))).TYPE == "joined"


async def test_connections_per_address(autojump_clock: trio.abc.Clock) -> None:
    async with running(limits(connections_per_address=3)) as server:
        kept = [await Raw.connect(server.port) for _ in range(3)]
        extra = await Raw.connect(server.port, hello=False)
        assert await extra.closed()
        (full,) = [m for m in extra.seen if m.TYPE == "error"]
        assert full.code == "server_full" and full.fatal and "your address" in full.message  # type: ignore[attr-defined]
        await kept.pop().aclose()
        await trio.sleep(1)
        assert (await (await Raw.connect(server.port)).reply(pr.ListRooms(id=1))).TYPE == "rooms"


async def test_joins_and_leaves_are_limited_per_address_across_connections(
        autojump_clock: trio.abc.Clock) -> None:
    async with running(limits(lobby_rate=0.1, lobby_burst=4)) as server:
        host = await Raw.connect(server.port, "host")
        room = (await host.reply(pr.CreateRoom(name="t", seats=4, id=1))).room  # type: ignore[attr-defined]
        churn = await Raw.connect(server.port, "churn")
        codes = []
        for i in range(4):
            msg = pr.Join(room=room, id=10 + i) if i % 2 == 0 else pr.Leave(id=10 + i)
            codes.append((await churn.reply(msg)).TYPE)
        assert codes == ["joined", "ok", "joined", "error"]  # the host's creation took one
        again = await Raw.connect(server.port, "churn")  # a new connection: the same allowance
        assert (await again.reply(pr.Join(room=room, id=1))).code == "rate_limited"  # type: ignore[attr-defined]
        await trio.sleep(10)
        assert (await again.reply(pr.Join(room=room, id=2))).TYPE == "joined"


async def test_a_spectator_reconnecting_keeps_its_chat_allowance(autojump_clock: trio.abc.Clock) -> None:
    async with running(limits(chat_rate=0.01, chat_burst=3, address_chat_burst=100)) as server:
        clients, room = await table(server, 2, "official")
        eve = await Raw.connect(server.port, "eve")
        joined = await eve.reply(pr.Join(room=room, role="spectator", id=1))
        said = [(await eve.reply(pr.Chat(text=f"line {i}", id=2 + i))).TYPE for i in range(4)]
        assert said == ["ok", "ok", "ok", "error"]
        await eve.aclose()
        back = await Raw.connect(server.port, "eve")
        assert (await back.reply(pr.Resume(token=joined.token, seq=0, id=1))).TYPE == "joined"  # type: ignore[attr-defined]
        assert (await back.reply(pr.Chat(text="again", id=2))).code == "rate_limited"  # type: ignore[attr-defined]
        await settle(*clients)
        lines = [m for m in clients[0].seen if m.TYPE == "event" and m.kind == "chat"]  # type: ignore[attr-defined]
        assert len(lines) == 3


async def test_fresh_spectator_tokens_share_their_address_chat_allowance(
        autojump_clock: trio.abc.Clock) -> None:
    async with running(limits(chat_burst=5, address_chat_rate=0.01, address_chat_burst=4)) as server:
        _, room = await table(server, 2, "official")
        codes = []
        for i in range(3):
            eve = await Raw.connect(server.port, f"eve{i}")
            await eve.reply(pr.Join(room=room, role="spectator", id=1))
            codes += [(await eve.reply(pr.Chat(text="hi", id=2 + j))).TYPE for j in range(2)]
            await eve.reply(pr.Leave(id=9))
        assert codes == ["ok"] * 4 + ["error"] * 2


async def test_presence_churn_does_not_drop_the_rooms_own_bots(caplog: pytest.LogCaptureFixture) -> None:
    """A client joining and leaving as fast as the server lets it: the room's bots keep
    their seats (none is dropped as a slow reader), and the churn is cut off."""
    async with running(Limits(deal_pause=0.0, autopilot_delay=0.0, heartbeat=3600,
                              exempt_loopback=False)) as server:
        host = await Raw.connect(server.port, "host")
        room = (await host.reply(pr.CreateRoom(name="t", seats=4, id=1))).room  # type: ignore[attr-defined]
        for i in range(2):
            assert (await host.reply(pr.AddBot(id=2 + i))).TYPE == "ok"
        while sum(s.member is not None for s in server.rooms[room].roster.seats) < 3:
            await trio.sleep(0.01)
        churn = await Raw.connect(server.port, "churn")
        for i in range(90):  # pipelined, as fast as the socket takes them
            await churn.send(pr.Join(room=room, role="spectator", id=2 * i))
            await churn.send(pr.Leave(id=2 * i + 1))
        codes = []
        while len(codes) < 180:
            msg = await churn.recv()
            assert msg is not None
            if msg.TYPE in ("joined", "ok", "error"):
                codes.append(msg.TYPE if msg.TYPE != "error" else msg.code)  # type: ignore[attr-defined]
        assert codes.count("joined") <= 20 < codes.count("rate_limited")  # the burst, then cut off
        await settle(host)
        seats = server.rooms[room].roster.seats
        assert [s.state for s in seats[1:3]] == ["connected", "connected"]
        assert "not reading" not in caplog.text


def test_the_connection_cap_comes_from_the_descriptor_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    monkeypatch.setattr(resource, "getrlimit", lambda _: (1024, 4096))
    assert connection_cap(Limits()) == 1024 - 64
    assert connection_cap(Limits(max_connections=100)) == 100
    monkeypatch.setattr(resource, "getrlimit", lambda _: (50, 4096))
    assert connection_cap(Limits()) == 1


async def test_running_out_of_descriptors_is_waited_out_quietly(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        autojump_clock: trio.abc.Clock) -> None:
    accept = trio.SocketListener.accept
    failures = [50]

    async def exhausted(self: trio.SocketListener) -> trio.SocketStream:
        if failures[0]:
            failures[0] -= 1
            await trio.sleep(0)
            raise OSError(errno.EMFILE, "Too many open files")
        return await accept(self)

    monkeypatch.setattr(trio.SocketListener, "accept", exhausted)
    caplog.set_level(logging.INFO)
    async with running(limits()) as server:
        client = await Raw.connect(server.port, hello=False)
        await client.stream.send_all(client.conn.hello("late"))
        assert (await client.expect("welcome", timeout=60)).TYPE == "welcome"
        assert failures == [0]
    noted = [r for r in caplog.records if "cannot accept" in r.getMessage()]
    assert len(noted) == 1 and noted[0].exc_info is None  # one line, no traceback
    assert "Traceback" not in caplog.text


async def test_a_frame_trickled_a_byte_at_a_time_is_cut_off(autojump_clock: trio.abc.Clock) -> None:
    async with running(limits(frame_timeout=10)) as server:
        slow = await Raw.connect(server.port)
        body = msgpack.packb({"type": "chat", "text": "x" * 60})
        data = struct.pack(">I", len(body)) + body
        sent = 0
        with trio.move_on_after(30), contextlib.suppress(trio.BrokenResourceError):
            for byte in data:
                await slow.send_bytes(bytes([byte]))
                sent += 1
                await trio.sleep(1)
        assert sent < 13  # cut off after about ten seconds, not served for ever
        error = await slow.expect("error")
        assert error.code == "timeout" and error.fatal and "frame" in error.message  # type: ignore[attr-defined]
        assert await slow.closed()


async def test_a_steady_stream_of_split_frames_is_not_cut_off(autojump_clock: trio.abc.Clock) -> None:
    """Each frame arrives whole soon enough, though the stream never stops in between."""
    async with running(limits(frame_timeout=10)) as server:
        client = await Raw.connect(server.port)
        data = b"".join(client.conn.send(pr.Ping(id=i)) for i in range(40))
        half = len(data) // 40 // 2
        for i in range(40):  # every send ends in the middle of a frame
            await client.send_bytes(data[i * 2 * half:(i + 1) * 2 * half + half][:2 * half])
            await trio.sleep(1)
        await client.send_bytes(data[40 * 2 * half:])
        for i in range(40):
            assert (await client.expect("pong", id=i)).TYPE == "pong"


async def test_wrong_passwords_lock_the_address_out_and_are_checked_off_the_event_loop(
        monkeypatch: pytest.MonkeyPatch, thread_clock: trio.abc.Clock) -> None:
    threads = []
    check = server_session.check_password

    def watched(stored: str, password: str | None) -> bool:
        threads.append(threading.current_thread() is threading.main_thread())
        return check(stored, password)

    monkeypatch.setattr(server_session, "check_password", watched)
    async with running(limits(password_failures=3, password_lockout=60)) as server:
        host = await Raw.connect(server.port, "host")
        room = (await host.reply(pr.CreateRoom(name="t", seats=4, password="sesame", id=1))).room  # type: ignore[attr-defined]
        guesser = await Raw.connect(server.port, "g")
        for i in range(3):
            assert (await guesser.reply(pr.Join(room=room, password=f"no{i}", id=i))).code == "bad_password"  # type: ignore[attr-defined]
        other = await Raw.connect(server.port, "g")  # the lockout is the address's
        locked = await other.reply(pr.Join(room=room, password="sesame", id=5))
        assert locked.code == "rate_limited" and "password" in locked.message  # type: ignore[attr-defined]
        await trio.sleep(61)
        assert (await other.reply(pr.Join(room=room, password="sesame", id=6))).TYPE == "joined"
    assert threads and not any(threads)  # every check ran in a worker thread


@pytest.mark.parametrize(("options", "seats", "words"), [
    ({"partner_rotation": True}, 5, "4 players at one table or 8 at two"),
    ({"hand_size": 20}, 10, "leave too few"),
])
async def test_rules_that_do_not_fit_the_seats_are_refused_when_the_room_is_created(
        options: dict[str, Any], seats: int, words: str, caplog: pytest.LogCaptureFixture) -> None:
    async with running(FAST) as server:
        host = await Raw.connect(server.port, "host")
        await host.send_bytes(frame({"type": "create_room", "name": "t", "seats": seats,
                                     "options": options, "id": 1}))
        refused = await host.expect("error", id=1)
        assert refused.code == "bad_message" and words in refused.message  # type: ignore[attr-defined]
        assert server.rooms == {} and "Traceback" not in caplog.text


# -- connections that end in good order ------------------------------------------------------


async def test_a_seat_resumed_elsewhere_closes_the_old_connection_at_once(
        caplog: pytest.LogCaptureFixture, autojump_clock: trio.abc.Clock) -> None:
    async with running(limits()) as server:
        clients, _ = await table(server, 2, "official")
        old = clients[0]
        new = await Raw.connect(server.port, "host")
        assert (await new.reply(pr.Resume(token=old.token, seq=old.seq, id=1))).TYPE == "joined"
        with trio.fail_after(1):  # not after a heartbeat: at once
            error = await old.expect("error")
            assert error.code == "replaced" and error.fatal  # type: ignore[attr-defined]
            while await old.stream.receive_some(1024):  # the server's end of the socket
                pass
        await old.send_bytes(frame({"type": "ping", "id": 3}))  # its next frame goes nowhere
        await trio.sleep(20)
    assert "handler failed" not in caplog.text and "Traceback" not in caplog.text


async def test_a_fatal_error_arrives_before_the_close_though_the_client_keeps_sending() -> None:
    """Closing with unread bytes would reset the connection and could take the error
    with it: the server reads on until the client is done."""
    async with running(limits()) as server:
        bad = await Raw.connect(server.port, hello=False)
        junk = struct.pack(">I", 5) + b"\xc1" * 5 + b"\x00" * 300_000
        received = b""

        async def read() -> None:
            nonlocal received
            while chunk := await bad.stream.receive_some(65536):
                received += chunk

        with trio.fail_after(5):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(read)
                await bad.stream.send_all(junk)
                await bad.stream.send_eof()
        reply = msgpack.unpackb(received[4:], raw=False)
        assert reply["code"] == "bad_frame" and reply["fatal"]


async def test_a_session_dropped_while_its_writer_waits_ends_quietly(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, autojump_clock: object) -> None:
    """The writer wakes to a dropped session (its backlog gone): it stops, no TypeError."""
    wait_writable = trio.lowlevel.wait_writable
    dropped: list[Any] = []

    async def writable_then_dropped(fd: int) -> None:
        await wait_writable(fd)
        session = next(s for s in dropped[0].sessions if s.outbox.fd == fd)
        session.drop()  # as the room does when a client stops reading
        dropped.append(session)

    async with running(limits(sndbuf=4096, outbox=10_000)) as server:
        dropped.append(server)
        monkeypatch.setattr(server_app.trio.lowlevel, "wait_writable", writable_then_dropped)
        host = await Raw.connect(server.port, "host")
        await host.reply(pr.CreateRoom(name="t", seats=2, id=1))
        late = await Raw.connect(server.port, "late", rcvbuf=2048)
        await late.send(pr.Join(room=next(iter(server.rooms))))
        with trio.fail_after(5):
            ready = False
            while len(dropped) < 2:  # each change of the host's readiness: seats for everyone
                ready = not ready
                await host.send(pr.Ready(ready=ready, id=5))
                await host.expect("ok", id=5)
        monkeypatch.undo()
        await trio.sleep(0.1)
    assert dropped[1].dropped and "TypeError" not in caplog.text and "Traceback" not in caplog.text


def test_the_rooms_listing_fits_in_one_frame_however_many_options_the_rooms_changed() -> None:
    """A reply over the frame limit cannot be sent, and its request would wait for ever:
    the listing stops at 256 rooms or at what one frame holds, whichever comes first."""
    from unolan.engine import OPTIONS

    def room(i: int, options: dict[str, Any]) -> dict[str, Any]:
        return {"room": f"r{i:030d}", "name": "n" * 40, "preset": "house", "seats": 10, "players": 10,
                "spectators": 99, "started": True, "password": True, "tables": 1, "options": options}

    crowded = {o.name: "x" * 20 for o in OPTIONS}  # every option, each with a long value
    listed = server_session.rooms_listing(room(i, crowded) for i in range(300))
    assert 0 < len(listed) < 256 and listed == [room(i, crowded) for i in range(len(listed))]
    frame = pr.encode_frame(pr.Rooms(rooms=tuple(listed), id=2**32 - 1).to_wire())  # raises if over
    assert len(frame) <= pr.MAX_FRAME_SIZE + 4
    assert len(server_session.rooms_listing(room(i, {}) for i in range(300))) == 256


async def test_a_reply_over_the_frame_limit_is_logged_not_lost_in_silence(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, autojump_clock: object) -> None:
    """Should a reply ever be too large to send, the log says which (its request gets no
    reply: a bug to see, never to guess)."""
    huge = [{"room": f"r{i}", "name": "n" * 40, "preset": "house", "seats": 4, "players": 1, "spectators": 0,
             "started": False, "password": False, "options": {f"o{j}": "x" * 200 for j in range(60)}}
            for i in range(100)]
    monkeypatch.setattr(server_session, "rooms_listing", lambda summaries: huge)
    async with running(Limits()) as server:
        raw = await Raw.connect(server.port, "ann")
        with pytest.raises(trio.TooSlowError):
            await raw.reply(pr.ListRooms(id=1), timeout=1)
    assert "a rooms message is over the frame limit and is not sent" in caplog.text
