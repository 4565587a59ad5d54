"""Frames: a 4-byte big-endian length, then one msgpack map.

Limits are enforced before any work is done on untrusted input: a declared length over
the maximum is refused before its body is read, and msgpack is told the largest string,
array and map it may build, so a hostile frame cannot make us allocate much more than
its own size. bin and ext types are never used by this protocol and are refused.
"""

from __future__ import annotations

import struct
from typing import Any

import msgpack

from .errors import LocalProtocolError, RemoteProtocolError

HEADER = struct.Struct(">I")
MAX_FRAME_SIZE = 64 * 1024
MAX_STR_LEN = 8 * 1024
MAX_ARRAY_LEN = 1024
MAX_MAP_LEN = 256


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ValueError("ext types are not used by this protocol")


_packer = msgpack.Packer(use_bin_type=True, autoreset=True)


def encode_frame(data: dict[str, Any], max_size: int = MAX_FRAME_SIZE) -> bytes:
    """One frame holding ``data``; ``LocalProtocolError`` if it would be over the limit."""
    body = _packer.pack(data)
    if len(body) > max_size:
        raise LocalProtocolError(
            f"frame of {len(body)} bytes is over the {max_size}-byte limit", "frame_too_large"
        )
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes | memoryview) -> Any:
    """Unpack one frame body within the limits; any failure is the peer's fault."""
    try:
        return msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=False,
            max_str_len=MAX_STR_LEN,
            max_bin_len=0,
            max_ext_len=0,
            max_array_len=MAX_ARRAY_LEN,
            max_map_len=MAX_MAP_LEN,
            ext_hook=_refuse_ext,
        )
    except Exception as exc:  # msgpack raises several types; all mean "bad bytes"
        raise RemoteProtocolError(f"undecodable frame: {exc or type(exc).__name__}", "bad_frame") from None


class FrameReader:
    """Buffers incoming bytes and cuts them into frame bodies.

    The common case, a read holding whole frames, is served from the bytes as they came
    (no copy into a buffer); only a partial frame is kept in a ``bytearray``."""

    __slots__ = ("_buffer", "_data", "_start", "max_size")

    def __init__(self, max_size: int = MAX_FRAME_SIZE) -> None:
        self.max_size = max_size
        self._buffer = bytearray()
        self._data: bytes | bytearray = b""  # what next_body reads from
        self._start = 0

    def feed(self, data: bytes) -> None:
        if self._start == len(self._data):  # everything so far consumed
            self._data, self._start = bytes(data), 0
        else:
            if self._data is not self._buffer:
                self._buffer[:] = self._data[self._start :]
                self._data, self._start = self._buffer, 0
            self._buffer += data

    @property
    def pending(self) -> int:
        """Bytes received but not yet returned as a frame."""
        return len(self._data) - self._start

    def next_body(self) -> bytes | None:
        """The next complete frame body, or ``None`` until more bytes arrive.

        A slice copies only this frame's bytes, and for the small frames of this protocol
        it is cheaper than a memoryview (and never pins the buffer)."""
        data, start = self._data, self._start
        if len(data) - start < 4:
            return None
        (length,) = HEADER.unpack_from(data, start)
        if length > self.max_size:
            raise RemoteProtocolError(
                f"frame of {length} bytes declared; the limit is {self.max_size}",
                "frame_too_large",
            )
        end = start + 4 + length
        if len(data) < end:
            return None
        body = bytes(data[start + 4 : end])
        if data is self._buffer and end == len(data):
            data.clear()  # type: ignore[union-attr]
            self._data, end = b"", 0
        self._start = end
        return body
