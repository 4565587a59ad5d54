"""Field checkers: small functions that validate one value and return it normalised.

A checker takes a value and returns it (lists become tuples, maps become
:class:`FrozenDict`) or raises ``ValueError`` with a short reason. Messages, event data
and snapshot views are all described as tables of these, so validation is data, and each
value is checked by its one checker, whether it is being built or decoded.

Types are checked exactly (``type(v) is int``): ``True`` is not a seat, ``1.0`` is not a
sequence number. Arrays of plain items are checked with builtins over the whole array
first; a precise error names the first item that is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NoReturn

from unolan.engine.cards import ALL_CARDS

Checker = Callable[[Any], Any]

MAX_SEQ = 2**53 - 1  # exact in a double: safe for bots written in JavaScript
MAX_ID = 2**32 - 1
MAX_SEATS = 10
MAX_DEPTH = 8  # maps and arrays nested deeper than this are refused
MAX_CARDS = 120  # more than any deck holds
MAX_GENERIC_STR = 1024  # strings in data this package has no table for


class FrozenDict(dict[str, Any]):
    """A read-only dict: messages are frozen all the way down, and msgpack packs it as is."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("protocol maps are read-only")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = __ior__ = _readonly

    # typeshed declares a dict unhashable (``__hash__: None``); a frozen map hashes by its
    # items, hence the ignore.
    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


EMPTY_MAP = FrozenDict()
_STR = {str}


def integer(low: int, high: int) -> Checker:
    """An int in ``low..high``."""

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


def text(
    low: int,
    high: int,
    pattern: str | None = None,
    printable: bool = True,
    known: tuple[str, ...] = (),
) -> Checker:
    """A string of ``low..high`` characters, printable (no control characters).

    ``known``: values that are valid by construction (they need no regex)."""
    regex = re.compile(pattern) if pattern else None
    valid = frozenset(known)

    def check(value: Any) -> str:
        if type(value) is str and value in valid:
            return value
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


# Every card's canonical text, from the engine's table.
CARD_TEXTS = frozenset(c.text for c in ALL_CARDS)


def card(value: Any) -> str:
    """A card in engine notation, canonical spelling only (``R5``, not ``r5``)."""
    if type(value) is str and value in CARD_TEXTS:
        return value
    raise ValueError(f"not a card: {_short(value)}")


def cards(low: int = 0, high: int = MAX_CARDS) -> Checker:
    """An array of cards (a whole hand is checked in one set operation)."""
    slow = array(card, low, high)

    def check(value: Any) -> tuple[str, ...]:
        kind = type(value)
        if (kind is tuple or kind is list) and low <= len(value) <= high:
            # Only a str equals a str: no other type the decoder builds can slip through.
            try:
                if CARD_TEXTS.issuperset(value):
                    texts: tuple[str, ...] = value if kind is tuple else tuple(value)
                    return texts
            except TypeError:  # an unhashable item
                pass
        checked: tuple[str, ...] = slow(value)
        return checked

    return check


def _flat_array(
    item: type, inner: Checker, min_len: int, max_len: int, bounds: tuple[int, int] | None = None
) -> Checker:
    """An array of ``item`` values (within ``bounds``, if given), checked with builtins, no
    Python loop; anything else goes to ``array(inner)``, which says what is wrong."""
    slow = array(inner, min_len, max_len)
    types = {item}
    low, high = bounds or (0, 0)

    def check(value: Any) -> tuple[Any, ...]:
        kind = type(value)
        if (
            (kind is tuple or kind is list)
            and min_len <= len(value) <= max_len
            and (not value or (set(map(type, value)) == types
                               and (bounds is None or (low <= min(value) and max(value) <= high))))
        ):
            items: tuple[Any, ...] = value if kind is tuple else tuple(value)
            return items
        checked: tuple[Any, ...] = slow(value)
        return checked

    return check


def integers(low: int, high: int, min_len: int = 0, max_len: int = MAX_SEATS) -> Checker:
    """An array of integers in ``low..high``."""
    return _flat_array(int, integer(low, high), min_len, max_len, (low, high))


def booleans(min_len: int = 0, max_len: int = MAX_SEATS) -> Checker:
    return _flat_array(bool, boolean, min_len, max_len)


color = choice("R", "Y", "G", "B")
color_or_null = nullable(color)
seat = integer(0, MAX_SEATS - 1)
seat_or_null = nullable(seat)
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


_SCALARS = frozenset({type(None), bool, int, float, str})


def scalar_map(high: int = 64) -> Checker:
    """A map of short string keys (1..40 printable characters) to scalars (rule options).
    The map is checked with builtins over all its keys and values first; a precise error
    names the first entry that is wrong."""
    key = text(1, 40)

    def check(value: Any) -> FrozenDict:
        kind = type(value)
        if kind is not dict and kind is not FrozenDict:
            raise ValueError(f"expected a map, got {kind.__name__}")
        if len(value) > high:
            raise ValueError(f"expected at most {high} entries")
        keys, values = value.keys(), value.values()
        if not value or (
            set(map(type, keys)) == _STR
            and min(map(len, keys)) >= 1 and max(map(len, keys)) <= 40
            and all(map(str.isprintable, keys))
            and _SCALARS.issuperset(map(type, values))
            and max(map(len, map(str, values))) <= MAX_GENERIC_STR  # the strings' length, at most
        ):
            return value if kind is FrozenDict else FrozenDict(value)
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
