"""Events: what an applied action changed, each with its audience.

Event data holds only plain values (ints, strings, bools, lists, None) so that the
server can put it on the wire as it is. Cards appear as their notation (``"R5"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``only``: just this seat sees it; ``exclude``: all but it."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    only: int | None = None
    exclude: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether a seat (``None``: a spectator) may see this event."""
        if self.only is not None:
            return seat == self.only
        if self.exclude is not None:
            return seat != self.exclude
        return True

    @property
    def audience(self) -> str:
        if self.only is not None:
            return f"seat {self.only}"
        if self.exclude is not None:
            return f"all but {self.exclude}"
        return "all"

    def __str__(self) -> str:
        fields = " ".join(f"{k}={_text(v)}" for k, v in self.data.items())
        return f"[{self.audience}] {self.kind} {fields}".rstrip()


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "[" + " ".join(_text(v) for v in value) + "]"
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
