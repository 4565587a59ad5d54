"""The action log's tail: a file of its own beside the database, where the rounds' actions
are written first and from which they go into the database in batches.

A round that only played (actions, and the seqs of chat and presence) is one ``pwrite``
of one frame here, a few microseconds, where a SQLite transaction costs tens of them on
a busy server (see :mod:`.store`). Like a commit in WAL mode with ``synchronous=NORMAL``,
a frame written survives the server being killed (it is in the operating system's
hands), not the machine's crash. The store moves the tail into the database, in one
transaction that records the number of the last frame moved, before anything else it
writes there and whenever the tail grows long; the tail is then emptied. At the next
start, the frames numbered above the one recorded go into the database first.

A frame is its length and CRC-32 (``>II``), then msgpack: ``[number, rows]``, each row a
list of fields. Reading stops at the first frame that is cut short or does not match
its CRC (only a crash of the machine leaves one, at the end): what follows it cannot be
trusted.
"""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path
from typing import Any

import msgpack

_HEADER = struct.Struct(">II")


def tail_path(database: Path) -> Path:
    """The tail of ``database``: beside it, like SQLite's ``-wal``."""
    return Path(f"{database}-tail")


class Tail:
    """The tail file, open for the store's life (its owner's only: it holds actions)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        os.chmod(path, 0o600)
        self._end = 0  # where the next frame goes (a failed write leaves no frame before it)
        self._packer = msgpack.Packer()  # one for the file's life (packb builds one a call)

    def read(self) -> list[tuple[int, list[list[Any]]]]:
        """Every sound frame, ``(number, rows)``, from the start; the next one goes after
        the last of them (over whatever cannot be trusted)."""
        data = b""
        while chunk := os.pread(self._fd, 1 << 20, len(data)):
            data += chunk
        frames: list[tuple[int, list[list[Any]]]] = []
        at = 0
        while at + _HEADER.size <= len(data):
            length, crc = _HEADER.unpack_from(data, at)
            body = data[at + _HEADER.size:at + _HEADER.size + length]
            if len(body) < length or zlib.crc32(body) != crc:
                break
            try:
                number, rows = msgpack.unpackb(body)
            except (ValueError, TypeError):  # a sound CRC over what we never wrote
                break
            frames.append((number, rows))
            at += _HEADER.size + length
        self._end = at
        return frames

    def append(self, number: int, rows: list[Any]) -> None:
        """One frame, at the end (raises ``OSError``; a short write is written over by
        the next attempt)."""
        body = self._packer.pack((number, rows))
        frame = _HEADER.pack(len(body), zlib.crc32(body)) + body
        if os.pwrite(self._fd, frame, self._end) != len(frame):
            raise OSError(f"a short write to {self.path}")
        self._end += len(frame)

    def clear(self) -> None:
        """Empty it (everything in it is in the database)."""
        os.ftruncate(self._fd, 0)
        self._end = 0

    def close(self) -> None:
        os.close(self._fd)
