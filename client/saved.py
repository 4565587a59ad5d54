"""Seats kept on disk, so that a player whose ``uno join`` stopped takes the seat back.

A seat is resumed with the secret token the server gave in ``joined``. The tokens are
kept in one JSON file in the user's state directory (``platformdirs``; on Linux
``~/.local/state/unolan/seats.json``), readable by its owner only (mode 0600), for each
server, player name and room. A server is known by the ``server_id`` of its ``welcome``
(``id:ID``), the same whichever of its addresses was typed (the LAN list's, 127.0.0.1);
a server that sends none, and seats saved before ids, by ``HOST:PORT``, the host as the
address it resolves to (so that ``localhost`` and ``127.0.0.1`` are one server). For each: the token, when it was saved and which
process holds the seat. A restarted client resumes the newest seat of its server and
name that no other running client holds. The file is only a convenience: a file that
cannot be read or written never stops a game.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import os
import socket
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import platformdirs

log = logging.getLogger("unolan.client")


def default_path() -> Path:
    """``seats.json`` in the user's state directory."""
    return platformdirs.user_state_path("unolan", appauthor=False) / "seats.json"


@lru_cache(maxsize=64)
def server_key(server: str) -> str:
    """``HOST:PORT`` with the host as the address it names (any loopback address as
    127.0.0.1); a name that does not resolve stays as typed."""
    host, sep, port = server.rpartition(":")
    if not sep:
        host, port = server, ""
    host = host.strip("[]")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return server
        addresses = [ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos]
        address = min(addresses, key=lambda a: a.version)  # IPv4 first, as trio dials
    text = "127.0.0.1" if address.is_loopback else address.compressed
    return f"[{text}]:{port}" if address.version == 6 and not address.is_loopback else f"{text}:{port}"


@dataclass(frozen=True)
class SavedSeat:
    room: str
    token: str


class SavedSeats:
    """The seats file of one user (``path``: another file, for tests)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()

    def latest(self, server: str, name: str, server_id: str | None = None) -> SavedSeat | None:
        """The newest seat ``name`` holds on ``server`` (or the server of ``server_id``,
        whatever address it was saved under) that no running client holds."""
        data = self._read()
        free = [(entry.get("saved", 0), room, entry) for key in _keys(server, server_id)
                for room, entry in _rooms(data.get(key), name).items()
                if isinstance(entry, dict) and isinstance(entry.get("token"), str)
                and not _running(entry.get("pid"))]
        if not free:
            return None
        _, room, entry = max(free, key=lambda item: item[0])
        return SavedSeat(room, entry["token"])

    def save(self, server: str, name: str, room: str, token: str,
             server_id: str | None = None) -> None:
        """Keep (or update) the token of ``name``'s seat in ``room``, held by this process
        (under ``server_id`` when the server sent one; a copy kept under the address
        before is dropped, not kept twice)."""
        data, keys = self._read(), _keys(server, server_id)
        _drop(data, keys, name, room)
        data.setdefault(keys[0], {}).setdefault(name, {})[room] = {
            "token": token, "saved": time.time(), "pid": os.getpid()}
        self._write(data)

    def forget(self, server: str, name: str, room: str, server_id: str | None = None) -> None:
        """The seat is gone (left, or its token refused): drop it."""
        data = self._read()
        if _drop(data, _keys(server, server_id), name, room):
            self._write(data)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.info("cannot read %s: %s", self.path, exc)
            return {}
        return data if isinstance(data, dict) else {}

    def _write(self, data: dict[str, Any]) -> None:
        """Atomically, created with mode 0600 (a token lets anyone take the seat)."""
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(data, file)
            os.replace(temporary, self.path)
        except OSError as exc:
            log.info("cannot write %s: %s", self.path, exc)


def _keys(server: str, server_id: str | None) -> list[str]:
    """Where a server's seats may be kept, the one to save under first."""
    address = server_key(server)
    return [f"id:{server_id}", address] if server_id else [address]


def _rooms(names: Any, name: str) -> dict[str, Any]:
    rooms = names.get(name) if isinstance(names, dict) else None
    return rooms if isinstance(rooms, dict) else {}


def _drop(data: dict[str, Any], keys: list[str], name: str, room: str) -> bool:
    """Take ``name``'s seat in ``room`` out of ``data`` under any of ``keys``: whether
    there was one."""
    found = False
    for key in keys:
        rooms = _rooms(data.get(key), name)
        if rooms.pop(room, None) is None:
            continue
        found = True
        if not rooms:
            del data[key][name]
            if not data[key]:
                del data[key]
    return found


def _running(pid: object) -> bool:
    """Whether another process with this id is running (it then holds the seat)."""
    if not isinstance(pid, int) or pid == os.getpid() or os.name != "posix":
        return False  # (on Windows a signal 0 would end the process: never ask there)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # it exists, under another user
    return True
