"""Frames: a 4-byte big-endian length, then one msgpack map.

Limits are enforced before any work is done on untrusted input: a declared length over
the maximum is refused before its body is read, and msgpack is told the largest string,
array and map it may build, so a hostile frame cannot make us allocate much more than
its own size. bin and ext types are never used by this protocol and are refused.

The stream is cut into frames by ``Connection.next_event`` itself, with the same limits:
for messages this small, a function call per step costs as much as the step.
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


# One reusable packer (packb makes one per call); ``pack(data)`` is a frame's body.
pack = msgpack.Packer(use_bin_type=True, autoreset=True).pack


def encode_frame(data: dict[str, Any], max_size: int = MAX_FRAME_SIZE) -> bytes:
    """One frame holding ``data``; ``LocalProtocolError`` if it would be over the limit."""
    body: bytes = pack(data)
    if len(body) > max_size:
        raise LocalProtocolError(
            f"frame of {len(body)} bytes is over the {max_size}-byte limit", "frame_too_large"
        )
    return HEADER.pack(len(body)) + body


def decode_body(body: bytes | bytearray) -> Any:
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
