"""Fuzzing the decoder: whatever a peer sends, the answer is a valid message or a
RemoteProtocolError with a known code, never another exception, never a big allocation.

About 19,000 generated cases in all (hypothesis plus the exhaustive wrong-type sweep).
"""

from __future__ import annotations

import struct
import tracemalloc
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_protocol import pair
from test_protocol_docs import doc_examples
from unolan.engine.rules import OPTION_BY_NAME
from unolan.protocol import (
    CLIENT,
    MESSAGE_TYPES,
    PROTOCOL_CODES,
    SERVER,
    Connection,
    Message,
    RemoteProtocolError,
    State,
    decode_body,
    decode_message,
    encode_frame,
)


def fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
    )


EXAMPLES = [example.data for example in doc_examples()]
FRAMES = [encode_frame(data) for data in EXAMPLES]


def frames_from(sender: Any) -> list[bytes]:
    """The example frames ``sender`` may send in READY without closing the connection."""
    return [f for f, d in zip(FRAMES, EXAMPLES, strict=True)
            if d["type"] not in ("hello", "welcome", "bye", "error")
            and sender in MESSAGE_TYPES[d["type"]].SENDERS]


REQUESTS = frames_from(CLIENT)


def ready(role: Any = SERVER) -> Connection:
    """A connection past the handshake (as the server, unless told otherwise)."""
    client, server = pair()
    return server if role is SERVER else client


def drain(conn: Connection, limit: int = 10_000) -> list[Message | RemoteProtocolError]:
    """Every message or error the connection yields until it needs data or is broken."""
    out: list[Message | RemoteProtocolError] = []
    for _ in range(limit):
        try:
            event = conn.next_event()
        except RemoteProtocolError as exc:
            assert exc.code in PROTOCOL_CODES, exc
            assert exc.message
            out.append(exc)
            if exc.fatal:
                assert conn.state is State.ERROR
                return out
            continue
        if not isinstance(event, Message):
            return out
        out.append(event)
    raise AssertionError("next_event never stopped")


def decode_or_error(data: Any) -> Message | RemoteProtocolError:
    """One body through the decoder; the only exception allowed is RemoteProtocolError."""
    try:
        body = msgpack.packb(data, use_bin_type=True)
    except (OverflowError, ValueError, TypeError):
        return RemoteProtocolError("unencodable", "bad_frame")
    try:
        msg = decode_message(decode_body(body))
    except RemoteProtocolError as exc:
        assert exc.code in PROTOCOL_CODES
        return exc
    # Whatever decodes, re-encodes and decodes to the same message.
    again = decode_message(decode_body(encode_frame(msg.to_wire())[4:]))
    assert again == msg
    return msg


# -- strategies --------------------------------------------------------------------------

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**64 - 1),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.binary(max_size=8),
    st.sampled_from(["R5", "W4", "YD2", "r5", "R", "G", "play", "", "x" * 600]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.one_of(st.text(max_size=8), st.integers(0, 5)), inner, max_size=6),
    ),
    max_leaves=12,
)


def nested(depth: int, leaf: Any = 1) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


# -- raw bytes ---------------------------------------------------------------------------


@pytest.mark.slow
@fuzz(4000)
@given(st.binary(max_size=300), st.booleans())
def test_random_bytes(data: bytes, handshaken: bool) -> None:
    conn = ready() if handshaken else Connection(SERVER)
    conn.receive_data(data)
    drain(conn)


@pytest.mark.slow
@fuzz(2000)
@given(st.sampled_from(FRAMES), st.integers(0, 400), st.binary(max_size=20))
def test_truncated_and_garbled_frames(frame: bytes, cut: int, tail: bytes) -> None:
    conn = ready()
    conn.receive_data(frame[: min(cut, len(frame))] + tail)
    conn.receive_data(b"")  # end of stream
    results = drain(conn)
    if 0 < cut < len(frame) and not tail:  # a frame cut short by the end of the stream
        assert len(results) == 1 and isinstance(results[0], RemoteProtocolError)
        assert results[0].code == "bad_frame"


@pytest.mark.slow
@fuzz(300)
@given(st.integers(64 * 1024 + 1, 2**32 - 1))
def test_oversize_declared_length(length: int) -> None:
    conn = ready()
    conn.receive_data(struct.pack(">I", length) + b"\x80")
    [error] = drain(conn)
    assert isinstance(error, RemoteProtocolError) and error.code == "frame_too_large"


# -- valid msgpack, wrong shapes -----------------------------------------------------------


@pytest.mark.slow
@fuzz(1200)
@given(values)
def test_any_msgpack_value_as_a_frame(value: Any) -> None:
    result = decode_or_error(value)
    if not isinstance(value, dict):
        assert isinstance(result, RemoteProtocolError)


@pytest.mark.slow
@fuzz(1500)
@given(st.sampled_from(EXAMPLES), st.data())
def test_mutated_examples(example: dict[str, Any], data: st.DataObject) -> None:
    """Replace, drop or add a field, at the top or inside a nested map."""
    msg = dict(example)
    target = msg
    for key in ("data", "view", "options", "rules"):
        if isinstance(msg.get(key), dict) and data.draw(st.booleans()):
            target = msg[key] = dict(msg[key])
            break
    action = data.draw(st.sampled_from(["replace", "drop", "add"]))
    if action == "add" or not target:
        target[data.draw(st.one_of(st.text(max_size=8), st.integers(0, 3)))] = data.draw(values)
    else:
        key = data.draw(st.sampled_from(sorted(target, key=str)))
        if action == "drop":
            del target[key]
        else:
            target[key] = data.draw(values)
    decode_or_error(msg)


@pytest.mark.slow
@fuzz(800)
@given(
    st.dictionaries(
        st.one_of(st.sampled_from(sorted(OPTION_BY_NAME)), st.text(max_size=6)),
        st.one_of(scalars, st.floats(), st.sampled_from(["on", "off", "same", "7", "1e9"])),
        max_size=5,
    ),
    st.sampled_from(["official", "house", "party", "all-wild", "all_wild", "chaos"]),
    st.integers(0, 12),
    st.integers(-1, 6),
)
def test_create_room_rules(options: dict[str, Any], preset: str, seats: int, teams: int) -> None:
    """Room rules go through the engine's validation: only its errors, as bad_message."""
    decode_or_error(
        {"type": "create_room", "name": "r", "preset": preset, "options": options,
         "seats": seats, "teams": teams}
    )


@pytest.mark.slow
@fuzz(300)
@given(st.integers(1, 1500), st.sampled_from(["top", "data", "view"]))
def test_deep_nesting(depth: int, where: str) -> None:
    if where == "top":
        msg: dict[str, Any] = {"type": "ping", "extra": nested(depth)}
    elif where == "data":
        msg = {"type": "event", "seq": 1, "kind": "future", "data": {"x": nested(depth)}}
    else:
        msg = {**EXAMPLES[0], "versions": nested(depth, 1)}
    result = decode_or_error(msg)
    if depth > 8:
        assert isinstance(result, RemoteProtocolError)


@pytest.mark.slow
@fuzz(300)
@given(st.sampled_from(REQUESTS), st.lists(st.integers(1, 64), min_size=1, max_size=20))
def test_any_chunking_gives_the_same_messages(frame: bytes, sizes: list[int]) -> None:
    whole = ready()
    stream = frame * 3
    whole.receive_data(stream)
    expected = drain(whole)
    chunked, pos, got = ready(), 0, []
    for size in sizes * (len(stream) // sum(sizes) + 1):
        chunked.receive_data(stream[pos : pos + size])
        pos += size
        got += drain(chunked)
        if pos >= len(stream):
            break
    assert [repr(x) for x in got] == [repr(x) for x in expected]


# -- every field, every wrong type ---------------------------------------------------------

WRONG = [None, True, False, -1, 2**63, 2**64 - 1, -(2**63), 1.5, "", "x" * 2000, "R5",
         b"bytes", [], [None], {}, {"a": 1}, {1: 2}, nested(20)]


def test_every_field_with_every_wrong_type() -> None:
    count = 0
    for example in EXAMPLES:
        paths: list[tuple[str, ...]] = [(k,) for k in example if k != "type"]
        for key in ("data", "view"):
            if isinstance(example.get(key), dict):
                paths += [(key, k) for k in example[key]]
        for path in paths:
            for wrong in WRONG:
                msg = dict(example)
                if len(path) == 1:
                    msg[path[0]] = wrong
                else:
                    msg[path[0]] = {**msg[path[0]], path[1]: wrong}
                decode_or_error(msg)
                count += 1
    assert count > 5000


def test_hostile_headers_allocate_little() -> None:
    """Declared sizes are checked before anything is built."""
    hostile = [
        b"\xdd\xff\xff\xff\xff",  # array32 of 4 billion items
        b"\xdf\xff\xff\xff\xff",  # map32 of 4 billion entries
        b"\xdb\xff\xff\xff\xff",  # str32 of 4 GiB
        b"\xc6\xff\xff\xff\xff",  # bin32 of 4 GiB
        b"\xc9\xff\xff\xff\xff\x01",  # ext32 of 4 GiB
        b"\x91" * 5000,  # 5000 nested arrays
    ]
    tracemalloc.start()
    try:
        for body in hostile:
            conn = ready()
            conn.receive_data(struct.pack(">I", len(body)) + body)
            [error] = drain(conn)
            assert isinstance(error, RemoteProtocolError) and error.fatal
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2_000_000


def test_client_side_decoder_too() -> None:
    """The client's connection reads server messages with the same guarantees."""
    conn = ready(CLIENT)
    replies = frames_from(SERVER)
    for frame in replies:
        conn.receive_data(frame)
    results = drain(conn)
    assert len(results) == len(replies) > 30
    assert all(isinstance(r, Message) for r in results)
    conn.receive_data(b"\x00\x00\x00\x01\xc1")
    [error] = drain(conn)
    assert isinstance(error, RemoteProtocolError) and conn.state is State.ERROR
