"""The sans-IO connection: handshake, round trips, state rules, errors, framing."""

from __future__ import annotations

import struct

import msgpack
import pytest
from test_protocol_docs import doc_examples
from unolan.protocol import (
    CLIENT,
    CONNECTION_CLOSED,
    MESSAGE_TYPES,
    NEED_DATA,
    SERVER,
    Bye,
    Chat,
    Connection,
    CreateRoom,
    Draw,
    Error,
    Event,
    FrozenDict,
    Hello,
    Joined,
    ListRooms,
    LocalProtocolError,
    Message,
    Ok,
    Ping,
    Play,
    Pong,
    RemoteProtocolError,
    Resume,
    Snapshot,
    State,
    Welcome,
    decode_message,
    encode_frame,
)
from unolan.protocol.framing import MAX_FRAME_SIZE

VIEW = {
    "seat": 0,
    "hand": ["R1", "W4"],
    "counts": [2, 5],
    "top": "R5",
    "color": "R",
    "direction": 1,
    "turn": 0,
    "phase": "play",
    "pending": 0,
    "called": [False, False],
    "catchable": [],
    "scores": [0, 0],
    "draw_count": 80,
    "discard_count": 1,
    "round": 1,
    "dealer": 1,
    "drawn": None,
    "out": [False, False],
    "rules": {"preset": "house"},
}


def frame(data: object) -> bytes:
    body = msgpack.packb(data, use_bin_type=True)
    return struct.pack(">I", len(body)) + body


def pair() -> tuple[Connection, Connection]:
    """A client and a server that have shaken hands."""
    client, server = Connection(CLIENT), Connection(SERVER)
    server.receive_data(client.hello("ann"))
    assert isinstance(server.next_event(), Hello)
    client.receive_data(server.welcome("test server", heartbeat=10))
    welcome = client.next_event()
    assert isinstance(welcome, Welcome)
    assert client.state is server.state is State.READY
    return client, server


def deliver(sender: Connection, receiver: Connection, msg: Message) -> Message:
    receiver.receive_data(sender.send(msg))
    got = receiver.next_event()
    assert receiver.next_event() is (CONNECTION_CLOSED if receiver.state is State.CLOSED else NEED_DATA)
    return got  # type: ignore[return-value]


# -- handshake -----------------------------------------------------------------------


def test_handshake_agrees_on_the_highest_common_version() -> None:
    client = Connection(CLIENT, versions=(1, 2, 3))
    server = Connection(SERVER, versions=(1, 2))
    server.receive_data(client.hello("ann", client="test/1"))
    hello = server.next_event()
    assert hello == Hello(versions=(1, 2, 3), name="ann", client="test/1")
    client.receive_data(server.welcome("srv"))
    welcome = client.next_event()
    assert isinstance(welcome, Welcome) and welcome.version == 2
    assert client.version == server.version == 2
    assert welcome.max_frame == MAX_FRAME_SIZE


def test_unsupported_version_is_refused_then_closed() -> None:
    client = Connection(CLIENT, versions=(7, 8))
    server = Connection(SERVER, versions=(1,))
    server.receive_data(client.hello("ann"))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    exc = info.value
    assert exc.code == "unsupported_version" and exc.fatal and exc.versions == (1,)
    assert "1" in exc.message and "7, 8" in exc.message
    assert server.state is State.ERROR
    with pytest.raises(LocalProtocolError):
        server.welcome("srv")  # no common version: nothing to welcome
    client.receive_data(server.send_error(exc))
    assert server.state is State.CLOSED
    error = client.next_event()
    assert isinstance(error, Error)
    assert (error.code, error.fatal, error.versions) == ("unsupported_version", True, (1,))
    assert client.state is State.CLOSED
    assert client.next_event() is CONNECTION_CLOSED
    with pytest.raises(LocalProtocolError):
        client.send(ListRooms())
    with pytest.raises(LocalProtocolError):
        server.send(Ping())
    with pytest.raises(LocalProtocolError):
        server.receive_data(b"more")


def test_welcome_choosing_a_version_not_offered_is_refused() -> None:
    client = Connection(CLIENT, versions=(1,))
    client.hello("ann")
    client.receive_data(
        encode_frame(Welcome(version=2, server="s", max_frame=65536, heartbeat=5).to_wire())
    )
    with pytest.raises(RemoteProtocolError) as info:
        client.next_event()
    assert info.value.code == "unsupported_version" and client.state is State.ERROR


def test_nothing_before_hello() -> None:
    client, server = Connection(CLIENT), Connection(SERVER)
    with pytest.raises(LocalProtocolError) as info:
        client.send(Play(seq=1, cards=("R5",)))
    assert info.value.code == "bad_state"
    assert client.state is State.AWAIT_HELLO  # a local mistake changes nothing
    with pytest.raises(LocalProtocolError):
        server.send(Event(seq=1, kind="uno", data={"seat": 0}))
    server.receive_data(frame({"type": "list_rooms", "id": 5}))
    with pytest.raises(RemoteProtocolError) as remote:
        server.next_event()
    assert remote.value.code == "bad_state" and remote.value.fatal and remote.value.id == 5
    assert server.state is State.ERROR
    with pytest.raises(RemoteProtocolError):
        server.next_event()  # it stays broken
    data = server.send_error(remote.value)
    assert decode_message(msgpack.unpackb(data[4:])) == Error(
        code="bad_state", message=remote.value.message, fatal=True, id=5
    )
    assert server.state is State.CLOSED


def test_server_can_refuse_before_hello() -> None:
    client, server = Connection(CLIENT), Connection(SERVER)
    client.receive_data(server.send(Error(code="server_full", message="full", fatal=True)))
    assert client.next_event() == Error(code="server_full", message="full", fatal=True)
    assert client.state is server.state is State.CLOSED


def test_hello_twice_and_wrong_direction_are_refused() -> None:
    client, server = pair()
    with pytest.raises(LocalProtocolError):
        client.send(Hello(versions=(1,), name="again"))
    with pytest.raises(LocalProtocolError):
        client.send(Ok(id=1))  # a server message
    with pytest.raises(LocalProtocolError):
        server.send(Draw(seq=1))  # a client message
    server.receive_data(frame({"type": "hello", "versions": [1], "name": "x"}))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "bad_state" and not info.value.fatal
    assert server.state is State.READY  # not fatal once the handshake is done
    assert deliver(client, server, Ping(id=3)) == Ping(id=3)


# -- every message type, both ways ---------------------------------------------------


def test_every_message_type_round_trips_through_a_connection() -> None:
    examples = doc_examples()
    seen = set()
    for data in (example.data for example in examples):
        cls = MESSAGE_TYPES[data["type"]]
        msg = cls.from_wire(data)
        if cls in (Hello, Welcome):
            continue  # handshake only; covered above
        client, server = pair()
        sender, receiver = (client, server) if CLIENT in cls.SENDERS else (server, client)
        got = deliver(sender, receiver, msg)
        assert got == msg and type(got) is cls
        assert got.to_wire() == msg.to_wire()
        seen.add(cls.TYPE)
    assert seen == set(MESSAGE_TYPES) - {"hello", "welcome"}


def test_messages_are_frozen_and_hashable() -> None:
    msg = Event(seq=3, kind="played", data={"seat": 1, "cards": ["R5"], "color": "R",
                                            "target": None, "jump_in": False})
    assert msg.data["cards"] == ("R5",)  # arrays become tuples
    assert isinstance(msg.data, FrozenDict)
    with pytest.raises(AttributeError):
        msg.seq = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        msg.data["seat"] = 2  # type: ignore[index]
    assert hash(msg) == hash(Event.from_wire(msg.to_wire()))


def test_optional_none_fields_are_left_out_and_defaults_are_sent() -> None:
    assert Play(seq=1, cards=("R5",)).to_wire() == {
        "type": "play", "seq": 1, "cards": ("R5",), "uno": False,
    }
    assert Ping().to_wire() == {"type": "ping"}
    # A spectator's seat is a required null: always sent.
    assert Joined(room="r1", seat=None, token="t" * 16, seq=0).to_wire()["seat"] is None


# -- invalid messages ------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"seq": -1, "cards": ("R5",)},
        {"seq": 1, "cards": ()},
        {"seq": 1, "cards": ("R55",)},
        {"seq": 1, "cards": ("r5",)},  # canonical spelling only
        {"seq": 1, "cards": ("R5",), "color": "P"},
        {"seq": 1, "cards": ("R5",), "target": 10},
        {"seq": True, "cards": ("R5",)},
        {"seq": 1.0, "cards": ("R5",)},
        {"seq": 1, "cards": ("R5",), "uno": 1},
        {"seq": 1, "cards": "R5"},
    ],
)
def test_invalid_messages_cannot_be_built(kwargs: dict[str, object]) -> None:
    with pytest.raises(LocalProtocolError) as info:
        Play(**kwargs)  # type: ignore[arg-type]
    assert info.value.code == "bad_message"


def test_create_room_validates_rules_with_the_engine() -> None:
    room = CreateRoom(name="r", preset="party", options={"stacking": "same"}, seats=4, teams=2)
    assert room.rules().stacking == "same" and room.rules().teams == 2
    for bad in (
        {"options": {"stacking": "sideways"}},
        {"options": {"no_such_option": True}},
        {"options": {"teams": 2}},
        {"preset": "chaos"},
        {"seats": 11},
        {"seats": 5, "teams": 2},
        {"seats": 4, "teams": 3},
        {"options": {"hand_size": [7]}},
        {"options": {"hand_size": float("inf")}},
        {"options": {"hand_size": float("nan")}},
        {"options": {"target_score": 1e300}},
    ):
        with pytest.raises(LocalProtocolError):
            CreateRoom(**{"name": "r", **bad})  # type: ignore[arg-type]


def test_event_data_is_checked_by_kind() -> None:
    with pytest.raises(LocalProtocolError, match="played"):
        Event(seq=1, kind="played", data={"seat": 1})  # missing fields
    with pytest.raises(LocalProtocolError):
        Event(seq=1, kind="turn", data={"seat": 1, "direction": 0, "phase": "play", "pending": 0})
    # Unknown extra fields are kept, unknown kinds are generic: newer servers work.
    extra = Event(seq=1, kind="uno", data={"seat": 1, "sparkle": [1, 2]})
    assert extra.data["sparkle"] == (1, 2)
    future = Event(seq=1, kind="confetti", data={"n": 3, "who": [{"seat": 1}]})
    assert future.data["who"][0]["seat"] == 1
    with pytest.raises(LocalProtocolError):
        Event(seq=1, kind="confetti", data={"x": b"bytes"})
    deep: object = 1
    for _ in range(10):
        deep = [deep]
    with pytest.raises(LocalProtocolError, match="deeper"):
        Event(seq=1, kind="confetti", data={"x": deep})


def test_snapshot_view_is_checked() -> None:
    Snapshot(seq=5, view=VIEW)
    Snapshot(seq=5, view={**VIEW, "seat": None, "hand": []})
    for key, value in [("hand", ["XX"]), ("direction", 2), ("called", [0, 1]),
                       ("rules", {"a": [1]}), ("counts", [-1, 2]), ("drawn", 5)]:
        with pytest.raises(LocalProtocolError, match=key):
            Snapshot(seq=5, view={**VIEW, key: value})
    view = dict(VIEW)
    del view["top"]
    with pytest.raises(LocalProtocolError, match="top"):
        Snapshot(seq=5, view=view)


def test_bad_messages_in_ready_are_not_fatal_and_name_the_request() -> None:
    client, server = pair()
    server.receive_data(frame({"type": "play", "seq": 3, "cards": ["R99"], "id": 42}))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert (info.value.code, info.value.fatal, info.value.id) == ("bad_message", False, 42)
    client.receive_data(server.send_error(info.value))
    error = client.next_event()
    assert isinstance(error, Error) and error.id == 42 and not error.fatal
    server.receive_data(frame({"type": "teleport", "id": 43}))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert (info.value.code, info.value.fatal, info.value.id) == ("unknown_type", False, 43)
    # Unknown fields are ignored.
    server.receive_data(frame({"type": "draw", "seq": 9, "colour": "mauve"}))
    assert server.next_event() == Draw(seq=9)
    assert server.state is State.READY


def test_fatal_remote_errors_stop_the_connection() -> None:
    client, server = pair()
    server.receive_data(b"\x00\x00\x00\x02\xc1\xc1")
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "bad_frame" and info.value.fatal
    assert server.state is State.ERROR
    with pytest.raises(LocalProtocolError):
        server.receive_data(frame({"type": "ping"}))
    with pytest.raises(LocalProtocolError):
        server.send(Pong())  # only an error frame may still go out
    client.receive_data(server.send_error(info.value))
    assert client.next_event() == Error(code="bad_frame", message=info.value.message, fatal=True)
    assert client.state is server.state is State.CLOSED


def test_a_fatal_error_received_closes_the_connection() -> None:
    client, server = pair()
    client.receive_data(server.send(Error(code="timeout", message="silent", fatal=True)))
    assert isinstance(client.next_event(), Error)
    assert client.state is server.state is State.CLOSED
    with pytest.raises(LocalProtocolError):
        client.send(Ping())


def test_bye_closes_both_ends() -> None:
    client, server = pair()
    assert deliver(client, server, Bye(reason="gg")) == Bye(reason="gg")
    assert client.state is server.state is State.CLOSED
    assert server.next_event() is CONNECTION_CLOSED
    with pytest.raises(LocalProtocolError):
        server.send(Ok(id=1))


# -- framing ---------------------------------------------------------------------------


def test_frames_split_and_joined_anyhow() -> None:
    client, server = pair()
    msgs = [Chat(text=f"line {i}", id=i) for i in range(50)]
    data = b"".join(client.send(m) for m in msgs)
    got = []
    for size in (1, 2, 3, 7, 50, 1000):
        for i in range(0, len(data), size):
            server.receive_data(data[i : i + size])
            while (event := server.next_event()) is not NEED_DATA:
                got.append(event)
        assert got == msgs
        got.clear()


def test_oversize_frame_is_refused_before_its_body() -> None:
    _client, server = pair()
    server.receive_data(struct.pack(">I", MAX_FRAME_SIZE + 1))  # no body at all
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "frame_too_large" and info.value.fatal


def test_sending_an_oversize_frame_is_a_local_error() -> None:
    client, server = Connection(CLIENT), Connection(SERVER, max_frame_size=1024)
    server.receive_data(client.hello("ann"))
    server.next_event()
    client.receive_data(server.welcome("srv"))
    assert client.next_event().max_frame == 1024  # type: ignore[union-attr]
    big = Event(seq=1, kind="confetti", data={f"k{i}": "x" * 200 for i in range(10)})
    with pytest.raises(LocalProtocolError) as info:
        server.send(big)
    assert info.value.code == "frame_too_large"
    assert server.state is State.READY
    assert client.peer_max_frame_size == 1024  # the client adopts the server's limit


def test_end_of_stream() -> None:
    client, server = pair()
    server.receive_data(client.send(Ping())[:3])
    server.receive_data(b"")
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code == "bad_frame"
    client, server = pair()
    server.receive_data(client.send(Ping()))
    server.receive_data(b"")
    assert server.next_event() == Ping()
    assert server.next_event() is CONNECTION_CLOSED
    assert server.state is State.CLOSED


# -- resume ----------------------------------------------------------------------------


def test_resume_with_missed_events_or_a_snapshot() -> None:
    # First connection: join, see events up to seq 5, then the line drops.
    client, server = pair()
    token = "q8Jx0c4mNf2LrT7wYb1ZsA"
    assert deliver(server, client, Joined(room="k3f9", seat=1, token=token, seq=3, id=1))
    last = 3
    for seq in (4, 5):
        event = deliver(server, client, Event(seq=seq, kind="uno", data={"seat": 0}))
        last = event.seq  # type: ignore[attr-defined]
    # Second connection: resume from the last seq seen.
    client, server = pair()
    request = deliver(client, server, Resume(token=token, seq=last, id=2))
    assert request == Resume(token=token, seq=5, id=2)
    joined = deliver(server, client, Joined(room="k3f9", seat=1, token=token, seq=7, id=2))
    assert isinstance(joined, Joined)
    replay = [deliver(server, client, Event(seq=s, kind="passed", data={"seat": 0}))
              for s in (6, 7)]
    assert [e.seq for e in replay] == list(range(last + 1, joined.seq + 1))  # type: ignore[attr-defined]
    # Or, when the server no longer has the events, one snapshot as of the current seq.
    snap = deliver(server, client, Snapshot(seq=7, view=VIEW, id=2))
    assert isinstance(snap, Snapshot) and snap.seq == joined.seq and snap.view["hand"] == ("R1", "W4")
