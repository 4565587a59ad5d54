"""Events: what an applied action changed, each with its audience.

Event data holds only plain values (ints, strings, bools, lists, None) so that the
server can put it on the wire as it is. Cards appear as their notation (``"R5"``).
"""

from __future__ import annotations

from typing import Any


class Event:
    """One thing that happened. ``only``: just this seat sees it; ``exclude``: all but it.

    Events are values: compared by their fields, and immutable by convention (nothing
    assigns to an event after the engine made it; its data is never changed either). A
    plain slotted class rather than a frozen dataclass, because the engine makes two or
    three per action and a frozen dataclass's ``__init__`` costs several times as much.
    """

    __slots__ = ("data", "exclude", "kind", "only")

    kind: str
    data: dict[str, Any]
    only: int | None
    exclude: int | None

    def __init__(self, kind: str, data: dict[str, Any] | None = None, only: int | None = None,
                 exclude: int | None = None) -> None:
        self.kind = kind
        self.data = {} if data is None else data
        self.only = only
        self.exclude = exclude

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

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.kind == other.kind and self.data == other.data  # type: ignore[attr-defined]
                and self.only == other.only and self.exclude == other.exclude)  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # data is a dict: events are not hashable

    def __repr__(self) -> str:
        return (f"Event(kind={self.kind!r}, data={self.data!r}, only={self.only!r}, "
                f"exclude={self.exclude!r})")

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
