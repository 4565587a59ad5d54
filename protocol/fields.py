"""Field checkers: small functions that validate one value and return it normalised.

A checker takes a value and returns it (lists become tuples, maps become
:class:`FrozenDict`) or raises ``ValueError`` with a short reason. Messages, event data
and snapshot views are all described as tables of these, so validation is data.

Types are checked exactly (``type(v) is int``): ``True`` is not a seat, ``1.0`` is not a
sequence number.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from unolan.engine.cards import Card

Checker = Callable[[Any], Any]

MAX_SEQ = 2**53 - 1  # exact in a double: safe for bots written in JavaScript
MAX_ID = 2**32 - 1
MAX_SEATS = 10
MAX_DEPTH = 8  # maps and arrays nested deeper than this are refused
MAX_CARDS = 120  # more than any deck holds
MAX_GENERIC_STR = 1024  # strings in data this package has no table for


class FrozenDict(dict):  # type: ignore[type-arg]
    """A read-only dict: messages are frozen all the way down, and msgpack packs it as is."""

    __slots__ = ()

    def _readonly(self, *args: object, **kwargs: object) -> None:
        raise TypeError("protocol maps are read-only")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly  # type: ignore[assignment]
    __ior__ = _readonly  # type: ignore[assignment]

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


EMPTY_MAP = FrozenDict()


def integer(low: int, high: int) -> Checker:
    def check(value: Any) -> int:
        if type(value) is not int:
            raise ValueError(f"expected an integer, got {type(value).__name__}")
        if not low <= value <= high:
            raise ValueError(f"expected {low}..{high}, got {value}")
        return value

    return check


def boolean(value: Any) -> bool:
    if type(value) is not bool:
        raise ValueError(f"expected true or false, got {type(value).__name__}")
    return value


def text(low: int, high: int, pattern: str | None = None, printable: bool = True) -> Checker:
    """A string of ``low..high`` characters, printable (no control characters)."""
    regex = re.compile(pattern) if pattern else None

    def check(value: Any) -> str:
        if type(value) is not str:
            raise ValueError(f"expected a string, got {type(value).__name__}")
        if not low <= len(value) <= high:
            raise ValueError(f"expected {low}..{high} characters, got {len(value)}")
        if regex is not None and not regex.fullmatch(value):
            raise ValueError(f"{value[:40]!r} does not match {pattern}")
        if printable and not value.isprintable():
            raise ValueError("control characters are not allowed")
        return value

    return check


def choice(*values: str) -> Checker:
    allowed = frozenset(values)

    def check(value: Any) -> str:
        if type(value) is not str or value not in allowed:
            raise ValueError(f"expected one of {', '.join(values)}, got {_short(value)}")
        return value

    return check


def nullable(inner: Checker) -> Checker:
    def check(value: Any) -> Any:
        return None if value is None else inner(value)

    return check


def array(inner: Checker, low: int = 0, high: int = MAX_CARDS) -> Checker:
    def check(value: Any) -> tuple[Any, ...]:
        if type(value) is not tuple and type(value) is not list:
            raise ValueError(f"expected an array, got {type(value).__name__}")
        if not low <= len(value) <= high:
            raise ValueError(f"expected {low}..{high} items, got {len(value)}")
        return tuple([inner(item) for item in value])

    return check


def card(value: Any) -> str:
    """A card in engine notation, canonical spelling only (``R5``, not ``r5``)."""
    if type(value) is str and len(value) <= 4:
        try:
            if Card.parse(value).text == value:
                return value
        except ValueError:
            pass
    raise ValueError(f"not a card: {_short(value)}")


def cards(low: int = 0, high: int = MAX_CARDS) -> Checker:
    return array(card, low, high)


color = choice("R", "Y", "G", "B")
seat = integer(0, MAX_SEATS - 1)
seq = integer(0, MAX_SEQ)
request_id = integer(0, MAX_ID)
count = integer(0, 10_000)
score = integer(-10_000_000, 10_000_000)


def direction(value: Any) -> int:
    """Play direction: 1 clockwise, -1 counter-clockwise."""
    if type(value) is not int or value not in (1, -1):
        raise ValueError(f"expected 1 or -1, got {_short(value)}")
    return value


def primitive(value: Any) -> Any:
    """A scalar: nil, bool, int, float or a bounded string."""
    if value is None or type(value) in (bool, int, float):
        return value
    if type(value) is str and len(value) <= MAX_GENERIC_STR:
        return value
    raise ValueError(f"expected a scalar, got {type(value).__name__}")


def scalar_map(high: int = 64) -> Checker:
    """A map of short string keys to scalars (rule options)."""
    key = text(1, 40)

    def check(value: Any) -> FrozenDict:
        if type(value) is not dict and type(value) is not FrozenDict:
            raise ValueError(f"expected a map, got {type(value).__name__}")
        if len(value) > high:
            raise ValueError(f"expected at most {high} entries")
        return FrozenDict({key(k): primitive(v) for k, v in value.items()})

    return check


def freeze(value: Any, depth: int = MAX_DEPTH) -> Any:
    """Validate and freeze data this package has no table for: msgpack primitives only,
    string keys, nesting at most ``depth`` levels. Lists become tuples, maps FrozenDicts."""
    kind = type(value)
    if kind is tuple or kind is list:
        if depth <= 0:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
        return tuple([freeze(item, depth - 1) for item in value])
    if kind is dict or kind is FrozenDict:
        if depth <= 0:
            raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise ValueError(f"map keys must be strings, got {type(k).__name__}")
            out[k] = freeze(v, depth - 1)
        return FrozenDict(out)
    return primitive(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
