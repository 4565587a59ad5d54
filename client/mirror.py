"""A local mirror of the table: the engine's fold of the events one seat receives, plus
the room's sequence numbers.

The server owns the game; a client only hears its events. The engine's
:class:`~unolan.engine.ViewFold` applies them (it knows no rule: the events carry the
facts), so that after every batch :meth:`~Mirror.view` equals the server's
``game.view(seat)`` field for field and ``mirror.view().legal_actions()`` answers what
the seat may do without asking anyone.

Events arrive with the room's sequence number. :meth:`Mirror.feed` checks continuity and
raises :class:`SeqGap` when something was missed; the owner then asks for a snapshot and
calls :meth:`Mirror.load`, which replaces the whole table.

The mirror knows nothing about sockets: tests feed it a :class:`~unolan.engine.Game`'s
events directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from unolan.engine import View, ViewFold


class SeqGap(Exception):
    """An event's ``seq`` is not the one after the last seen: events were missed."""

    def __init__(self, expected: int, got: int) -> None:
        super().__init__(f"expected event seq {expected}, got {got}: resync from a snapshot")
        self.expected = expected
        self.got = got


def is_next(last: int | None, seq: int) -> bool:
    """Whether an event of ``seq`` comes next after ``last`` (False: an old one); raise
    :class:`SeqGap` when events between were missed."""
    if last is not None:
        if seq <= last:
            return False
        if seq != last + 1:
            raise SeqGap(last + 1, seq)
    return True


class Mirror(ViewFold):
    """One seat's table (``seat`` None: a spectator), rebuilt from events; ``seq`` is the
    last event's sequence number (None before the first)."""

    seq: int | None = None

    @classmethod
    def from_view(cls, view: View | Mapping[str, Any], seq: int | None = None) -> Mirror:
        """A mirror holding a snapshot's view."""
        data = view.to_dict() if isinstance(view, View) else view
        mirror = cls(data["seat"], data["rules"])
        mirror.load(data, seq)
        return mirror

    def load(self, view: View | Mapping[str, Any], seq: int | None = None) -> None:
        """Replace the whole table with a snapshot's view (taken as of ``seq``)."""
        super().load(view)
        if seq is not None:
            self.seq = seq

    @property
    def my_turn(self) -> bool:
        return self.started and self.seat is not None and self.turn == self.seat

    def to_dict(self) -> dict[str, Any]:
        """The same map as the engine's ``game.view(seat).to_dict()`` (before a deal too)."""
        return super().view().to_dict()

    def view(self) -> View:
        """The table as an engine :class:`View` (``view.legal_actions()`` works on it)."""
        if not self.started:
            raise RuntimeError("no round has been dealt yet")
        return super().view()

    def feed(self, seq: int, kind: str, data: Mapping[str, Any]) -> bool:
        """Apply one room event with its ``seq``. False: an old event, ignored.

        Raises :class:`SeqGap` (and applies nothing) unless ``seq`` is exactly one more
        than the last: the server sends every member every seq (an event whose private
        fields are not for this seat comes without them), so any gap means events were
        missed and the table must be reloaded from a snapshot.
        """
        if not is_next(self.seq, seq):
            return False
        self.apply(kind, data)
        self.seq = seq
        return True
