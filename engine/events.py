"""Events: what an applied action changed, and the one table of what each kind means.

Event data holds only plain values (ints, strings, bools, lists or tuples, None) so that
the server can put it on the wire as it is. Cards appear as their notation (``"R5"``).

Every event is public, but some fields of some kinds are private to one seat (the cards
a seat drew, its new hand, the hand a challenger was shown): :data:`EVENT_KINDS` says
which, and :meth:`Event.data_for` gives what a member may see. The protocol's schemas,
the server's redaction and "too late" rule, and every client read that table; nobody
keeps a list of their own.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeAlias, overload

from .cards import Card

FACTS: Final = ("direction", "phase", "pending", "stack", "pair", "served", "challengeable", "catchable",
         "opening", "called")
"""The public facts that say what each seat may do now, carried by every closing event
with ``seat``, the seat in turn (after a round: its winner, who deals the next): whether a
penalty is pending (``pending`` cards owed by the seat in turn, made of
``stack`` penalty cards, ``pair``: from a pair of Draw Twos, ``served``: the top card's
penalty has been drawn), whether the seat in turn may challenge the Wild Draw Four on top
(``challengeable``), which seats may be caught (``catchable``), whether the top card is
still the round's opening card (``opening``: no jump-in on its penalty), who has called
UNO (``called``), the ``direction`` and the ``phase``."""


CLOSING_FIELDS: Final = ("seat", *FACTS)
"""What every closing event carries: the seat in turn, then the facts."""


def closing_data(data: dict[str, Any], record: Record) -> dict[str, Any]:
    """``data`` with :data:`CLOSING_FIELDS` added after its own fields, their values those
    of a closing event's ``record``: stored one by one, not a map made and then merged (a
    zip with ``strict`` and a dict union are generic calls, compiled)."""
    if len(record) != len(CLOSING_FIELDS) + 1:
        raise ValueError(f"a closing event's record holds its kind and {len(CLOSING_FIELDS)} values")
    for i, name in enumerate(CLOSING_FIELDS, 1):
        data[name] = record[i]
    return data


@dataclass(frozen=True, slots=True)
class EventKind:
    """What every reader may rely on about one kind of event.

    ``fields``: every field of its data, in order. ``private``: the fields only the seat
    named by the field ``to`` may see (everyone else gets the event without them);
    ``optional``: fields that may be absent even from that seat's copy. ``moves``: the
    event changes what an action is judged against (whose turn, the top card, the hands),
    so an action decided before it is too late. ``closes``: it ends a batch (the events
    of one action or one deal); the table is whole again. ``actor``: its ``seat`` field
    names the seat whose action it reports (for ``drew``: the seat that drew). ``cards``:
    the fields that hold a card or a list of cards, in the notation (``"R5"``).
    """

    fields: tuple[str, ...]
    private: tuple[str, ...] = ()
    to: str = "seat"
    optional: tuple[str, ...] = ()
    moves: bool = False
    closes: bool = False
    actor: bool = False
    cards: tuple[str, ...] = ()


EVENT_KINDS: Final[dict[str, EventKind]] = {
    "dealer_draw": EventKind(("draws", "dealer")),
    "round_started": EventKind(("round", "dealer", "players", "hand_size", "scores", "draw_count"),
                               moves=True),
    "hand": EventKind(("seat", "count", "called", "cards"), private=("cards",), cards=("cards",)),
    "first_card": EventKind(("card", "color"), cards=("card",)),
    "turn": EventKind(("seat", *FACTS, "drawn"), private=("drawn",), optional=("drawn",), closes=True,
                      cards=("drawn",)),
    "played": EventKind(("seat", "cards", "color", "target", "jump_in"), moves=True, actor=True,
                        cards=("cards",)),
    "drew": EventKind(("seat", "count", "reason", "cards"), private=("cards",), moves=True, actor=True,
                      cards=("cards",)),
    "passed": EventKind(("seat",), moves=True, actor=True),
    "color_chosen": EventKind(("seat", "color"), moves=True, actor=True),
    "skipped": EventKind(("seat",)),
    "reversed": EventKind(("direction",)),
    "penalty": EventKind(("seat", "amount", "stack", "pair", "challengeable")),
    "challenged": EventKind(("seat", "target", "guilty"), moves=True, actor=True),
    "revealed": EventKind(("seat", "challenger", "cards"), private=("cards",), to="challenger",
                          cards=("cards",)),
    "uno": EventKind(("seat",), actor=True),
    "caught": EventKind(("seat", "target", "penalty"), moves=True, actor=True),
    "false_uno": EventKind(("seat", "penalty"), moves=True, actor=True),
    "swapped": EventKind(("seats",), moves=True),
    "rotated": EventKind(("direction",), moves=True),
    "reshuffled": EventKind(("count",)),
    "misplay": EventKind(("seat", "penalty", "reason"), moves=True, actor=True),
    "out": EventKind(("seat", "reason", "count"), moves=True),
    "round_over": EventKind(("winner", "points", "scores", "hands", "round", "finished", "seat", *FACTS),
                            moves=True, closes=True),
    # ``tied``, ``tie_break``: a partner rotation's champion shared its total (scoring.tie_data).
    "match_over": EventKind(("winner", "scores", "tied", "tie_break", "seat", *FACTS),
                            optional=("tied", "tie_break"), moves=True, closes=True),
}
"""Every kind of event a :class:`~.game.Game` emits. Other kinds (a rotation match's own)
have no private fields and neither move the table nor close a batch."""


Record: TypeAlias = tuple[Any, ...]
"""One event as the engine records it: its kind, then the values of the kind's fields in
order (cards as :class:`~.cards.Card` values, the last optional fields left out)."""


class Event:
    """One thing that happened, told to everyone; :meth:`data_for` leaves out what a
    member may not see.

    ``Event(kind, data)`` with ``data`` its map; the engine gives instead the values of
    the kind's fields in order (a tuple, as in a :data:`Record`), and the map is made when
    first read. The engine's batches are :class:`Events`, which make their events only
    when read: most events of a simulation are never read.

    Events are values: compared by their fields, and immutable by convention (nothing
    assigns to an event after the engine made it; its data is never changed either).
    """

    __slots__ = ("_data", "_values", "kind")

    kind: str
    _data: dict[str, Any] | None  # None until made from _values
    _values: tuple[Any, ...]

    def __init__(self, kind: str, data: dict[str, Any] | tuple[Any, ...] | None = None) -> None:
        self.kind = kind
        if isinstance(data, tuple):
            self._data, self._values = None, data
        else:
            self._data, self._values = ({} if data is None else data), ()

    @property
    def data(self) -> dict[str, Any]:
        """The event's fields by name, in plain values (cards as their notation)."""
        data = self._data
        if data is None:
            spec = EVENT_KINDS[self.kind]
            data = dict(zip(spec.fields, self._values, strict=False))
            for name in spec.cards:
                if name in data:
                    data[name] = _notation(data[name])
            self._data = data
        return data

    @property
    def private_to(self) -> int | None:
        """The seat that may see this event's private fields (None: it holds none)."""
        spec = EVENT_KINDS.get(self.kind)
        if spec is None or not spec.private:
            return None
        data = self.data
        for name in spec.private:
            if name in data:
                owner: int = data[spec.to]
                return owner
        return None

    def public_data(self) -> dict[str, Any]:
        """The data without its private fields: what every other member sees."""
        private = EVENT_KINDS[self.kind].private
        return {k: v for k, v in self.data.items() if k not in private}

    def data_for(self, seat: int | None) -> dict[str, Any]:
        """What a member sees of this event: ``seat`` None is a spectator."""
        owner = self.private_to
        return self.data if owner is None or owner == seat else self.public_data()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Event):
            return NotImplemented
        return self.kind == other.kind and self.data == other.data

    # Events are not hashable (their data is a dict). None is the data model's mark for
    # that; typeshed declares __hash__ a method, hence the ignore.
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Event(kind={self.kind!r}, data={self.data!r})"

    def __str__(self) -> str:
        """``[all] drew seat=2 count=1 reason=draw | seat 2 only: cards=[G8]``"""
        owner = self.private_to
        public = self.data if owner is None else self.public_data()
        text = " ".join([f"[all] {self.kind}", *(f"{k}={_text(v)}" for k, v in public.items())])
        if owner is not None:
            hidden = [f"{k}={_text(v)}" for k, v in self.data.items() if k not in public]
            text += f" | seat {owner} only: " + " ".join(hidden)
        return text


class Events(Sequence[Event]):
    """The events of one batch, in order: a sequence of :class:`Event`.

    The engine records each as a :data:`Record` (or, for a few rare kinds, an
    :class:`Event` already); the events are made from the records when first read, so a
    batch nobody reads costs its records alone. Equal to any sequence of the same events.
    """

    __slots__ = ("_events", "_records")

    _records: list[Record | Event]
    _events: list[Event] | None  # None until first read

    def __init__(self, records: list[Record | Event]) -> None:
        self._records = records
        self._events = None

    def _made(self) -> list[Event]:
        events = self._events
        if events is None:
            events = self._events = [
                record if isinstance(record, Event) else Event(record[0], record[1:])
                for record in self._records
            ]
        return events

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...
    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        return self._made()[index]

    def __iter__(self) -> Iterator[Event]:
        return iter(self._made())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence):
            return NotImplemented
        return self._made() == list(other)

    __hash__ = None  # type: ignore[assignment]  # as Event's: a batch is not hashable

    def __repr__(self) -> str:
        return f"Events({self._made()!r})"


def _notation(value: Card | list[Card] | tuple[Card, ...]) -> str | list[str]:
    """A card's notation, or a list of cards' (an event's values hold the cards)."""
    if isinstance(value, Card):
        return value.text
    return [card.text for card in value]


def _text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "[" + " ".join(_text(v) for v in value) + "]"
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
