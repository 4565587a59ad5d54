"""How a server is found on the LAN: the DNS-SD service type and its TXT record, as data.

A server announces itself with DNS-SD over multicast DNS (RFC 6762, RFC 6763) under
:data:`SERVICE_TYPE`; its TXT record says which protocol versions it speaks, its name and
how busy it is. Sans-IO like the rest of the protocol: this module turns an
:class:`Announcement` into TXT key/value pairs and back; the server's announcer and the
client's browser put them on and take them off the network (docs/protocol.md, "Finding
servers on the LAN").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .messages import SUPPORTED_VERSIONS

SERVICE_TYPE = "_unolan._tcp.local."
TXT_VERSION = 1
# A DNS-SD instance name is one DNS label: at most 63 bytes of UTF-8. The TXT ``name``
# has the same bound, so what a browser shows is what the instance is called.
MAX_NAME_BYTES = 63
# Counts above this are not believed (a hostile or broken announcer): shown as unknown.
MAX_COUNT = 1_000_000
MAX_VERSIONS = 16
# How long a browser listens before it says what it found: responders answer a query
# within about 120 ms (RFC 6762, 6), and a browser repeats its query after a second.
BROWSE_SECONDS = 2.0


def clip_name(text: str) -> str:
    """``text`` as a server name: printable, trimmed, at most :data:`MAX_NAME_BYTES` bytes
    of UTF-8 (cut at a character, never inside one)."""
    text = "".join(c if c.isprintable() else " " for c in text).strip()
    data = text.encode()[:MAX_NAME_BYTES]
    return data.decode(errors="ignore").rstrip() or "unolan"


@dataclass(frozen=True, slots=True)
class Announcement:
    """What a server tells the LAN about itself. A count is ``None`` when the record did
    not say (or said something unbelievable)."""

    name: str
    versions: tuple[int, ...] = SUPPORTED_VERSIONS
    rooms: int | None = 0  # rooms open on the server
    waiting: int | None = 0  # of which not started yet (a player can still take a seat)
    players: int | None = 0  # people seated at its tables (bots not counted)

    def to_txt(self) -> dict[str, str]:
        """The TXT record's pairs, ``txtvers`` first (RFC 6763, 6.7)."""
        txt = {
            "txtvers": str(TXT_VERSION),
            "protovers": ",".join(str(v) for v in self.versions),
            "name": clip_name(self.name),
        }
        for key in ("rooms", "waiting", "players"):
            value = getattr(self, key)
            if value is not None:
                txt[key] = str(value)
        return txt

    @classmethod
    def from_txt(cls, properties: Mapping[bytes, bytes | None]) -> Announcement:
        """Read a TXT record as a browser gets it (bytes keys, values or ``None``).

        Keys are case-insensitive and unknown ones are ignored (RFC 6763, 6.4-6.6).
        Raises ``ValueError`` when the record names no protocol version: such a server
        cannot be joined. A missing name is ``""`` (the browser uses the instance name).
        """
        txt: dict[str, str] = {}
        for key, value in properties.items():
            name = key.decode("ascii", errors="replace").lower()
            if name not in txt:  # the first of repeated keys counts (6.4)
                txt[name] = (value or b"").decode(errors="replace")
        try:
            versions = tuple(int(v) for v in txt["protovers"].split(",")[:MAX_VERSIONS])
        except (KeyError, ValueError):
            raise ValueError("the TXT record names no protocol version (protovers)") from None
        if not versions or any(v < 1 for v in versions):
            raise ValueError(f"bad protovers {txt['protovers']!r}")
        return cls(
            name=clip_name(txt["name"]) if txt.get("name", "").strip() else "",
            versions=versions,
            rooms=_count(txt.get("rooms")),
            waiting=_count(txt.get("waiting")),
            players=_count(txt.get("players")),
        )


def _count(value: str | None) -> int | None:
    if value is None or not (value.isascii() and value.isdigit()):  # no sign, no spaces
        return None
    number = int(value) if len(value) <= 7 else MAX_COUNT + 1
    return number if number <= MAX_COUNT else None
