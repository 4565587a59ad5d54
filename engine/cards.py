"""Cards, their text notation and the two decks.

A card is an immutable value; every distinct card exists once (``Card.parse("R5") is
Card.parse("R5")``), so hands can be compared and hashed cheaply and the engine's hot
loop never allocates cards.

Notation: a colored card is its color letter then its symbol (``R5``, ``GS`` skip, ``BR``
reverse, ``YD2`` draw two); a wild card is its symbol alone (``W``, ``W4``, and for the
All Wild deck ``WR``, ``WS``, ``WS2``, ``WD2``, ``WT2``, ``WX``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Final

from .errors import NotationError


class Color(str, Enum):
    RED = "R"
    YELLOW = "Y"
    GREEN = "G"
    BLUE = "B"

    @classmethod
    def parse(cls, text: str) -> Color:
        try:
            return cls(text.upper())
        except ValueError:
            raise NotationError(f"unknown color {text!r}: expected one of R, Y, G, B") from None

    def __str__(self) -> str:
        return self.value

    # Hashed as its text, in C: Enum's own hash is a Python method (of the member's name),
    # and colors are looked up in tables on every action. Equal to its text, hashed alike.
    __hash__ = str.__hash__


COLORS: Final[tuple[Color, ...]] = tuple(Color)
COLOR_OF_CODE: Final[tuple[Color | None, ...]] = (*COLORS, None)
"""Each color by its code, a small int (None, no color, is the last): a state and a card
hold the code, so that the engine indexes tables by it instead of hashing a member."""
COLOR_CODES: Final[dict[Color | None, int]] = {color: code for code, color in enumerate(COLOR_OF_CODE)}
"""Each color's code (and None's), as :data:`COLOR_OF_CODE` has them."""
NO_COLOR: Final = COLOR_CODES[None]


class Kind(str, Enum):
    """A card's symbol. Numbers are kinds too, so "same symbol" is one comparison."""

    N0 = "0"
    N1 = "1"
    N2 = "2"
    N3 = "3"
    N4 = "4"
    N5 = "5"
    N6 = "6"
    N7 = "7"
    N8 = "8"
    N9 = "9"
    SKIP = "S"
    REVERSE = "R"
    DRAW_TWO = "D2"
    WILD = "W"
    WILD_DRAW_FOUR = "W4"
    # The All Wild deck.
    WILD_REVERSE = "WR"
    WILD_SKIP = "WS"
    WILD_SKIP_TWO = "WS2"
    WILD_DRAW_TWO = "WD2"
    WILD_TARGETED_DRAW_TWO = "WT2"
    WILD_FORCED_SWAP = "WX"

    def __str__(self) -> str:
        return self.value

    __hash__ = str.__hash__  # as Color's: in C, as its text


# The kinds as plain names, for the engine's hot paths: a member looked up on its class
# costs many times a name (the enum's class answers attribute lookups through a hook).
N0: Final = Kind.N0
N7: Final = Kind.N7
SKIP: Final = Kind.SKIP
REVERSE: Final = Kind.REVERSE
DRAW_TWO: Final = Kind.DRAW_TWO
WILD: Final = Kind.WILD
WILD_DRAW_FOUR: Final = Kind.WILD_DRAW_FOUR
WILD_REVERSE: Final = Kind.WILD_REVERSE
WILD_SKIP: Final = Kind.WILD_SKIP
WILD_SKIP_TWO: Final = Kind.WILD_SKIP_TWO
WILD_DRAW_TWO: Final = Kind.WILD_DRAW_TWO
WILD_TARGETED_DRAW_TWO: Final = Kind.WILD_TARGETED_DRAW_TWO
WILD_FORCED_SWAP: Final = Kind.WILD_FORCED_SWAP

WILD_KINDS: Final = tuple(k for k in Kind if k.value.startswith("W"))
NUMBER_KINDS: Final = tuple(Kind(str(n)) for n in range(10))
ACTION_KINDS: Final = (Kind.SKIP, Kind.REVERSE, Kind.DRAW_TWO)
# Cards whose penalty can be stacked on, deflected, or answered (the All Wild Draw Two too).
PENALTY: Final = {Kind.DRAW_TWO: 2, Kind.WILD_DRAW_FOUR: 4, Kind.WILD_DRAW_TWO: 2}
_KINDS: Final = tuple(Kind)


_BY_TEXT: Final[dict[str, Card]] = {}  # every card, by its notation


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Card:
    """One card face. Build with :meth:`of` or :meth:`parse`; instances are shared, so a
    card equals only itself (``eq=False``: compared and hashed by identity, as objects are).

    Cards define no order of their own: sort them by ``order`` (``key=attrgetter("order")``).
    Any comparison method written in Python would make every ``==`` between two cards a
    Python-level call, pure, and the engine compares cards on every action (``card in
    hand``, ``hand.remove(card)``): about a microsecond for a seven-card hand."""

    color: Color | None
    kind: Kind
    text: str
    is_wild: bool
    number: int | None
    penalty: int
    points: int
    code: int  # its place among all cards (ALL_CARDS): tables are indexed by it, not hashed
    order: int  # its place in the sort order: by color (wilds last), then kind
    kind_code: int  # its kind's place in Kind: same kind, same code (compared as ints)
    color_code: int  # its color's code (COLOR_CODES; NO_COLOR for a wild)

    @classmethod
    def of(cls, color: Color | None, kind: Kind) -> Card:
        text = kind.value if color is None else color.value + kind.value
        card = _BY_TEXT.get(text)
        if card is None:
            if (color is None) != (kind in WILD_KINDS):
                raise NotationError(f"a {kind.name} card {'has no' if color is None else 'has a'} color")
            number = int(kind.value) if kind in NUMBER_KINDS else None
            points = number if number is not None else 50 if color is None else 20
            order = (len(COLORS) if color is None else COLORS.index(color)) * len(Kind) + _KINDS.index(kind)
            card = cls(color, kind, text, color is None, number, PENALTY.get(kind, 0), points,
                       len(_BY_TEXT), order, _KINDS.index(kind), COLOR_CODES[color])
            _BY_TEXT[text] = card
        return card

    @classmethod
    def parse(cls, text: str) -> Card:
        card = _BY_TEXT.get(text)
        if card is not None:
            return card
        up = text.strip().upper()
        card = _BY_TEXT.get(up)
        if card is not None:
            return card
        raise NotationError(f"unknown card {text!r}")

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Card.parse, (self.text,))

    def __repr__(self) -> str:
        return f"Card({self.text})"

    def __str__(self) -> str:
        return self.text



def _build_all() -> None:
    for color in COLORS:
        for kind in (*NUMBER_KINDS, *ACTION_KINDS):
            Card.of(color, kind)
    for kind in WILD_KINDS:
        Card.of(None, kind)


_build_all()
ALL_CARDS: Final[tuple[Card, ...]] = tuple(_BY_TEXT.values())
SORT_KEY: Final[dict[Card, tuple[int, int]]] = {card: divmod(card.order, len(Kind)) for card in ALL_CARDS}
"""Each card's sort key: (its color's place, wilds last; its kind's place)."""


def parse_cards(text: str) -> list[Card]:
    """Parse a space- or comma-separated list of cards; ``-`` or empty means none."""
    text = text.replace(",", " ").strip()
    if text in ("", "-"):
        return []
    return [Card.parse(t) for t in text.split()]


def format_cards(cards: list[Card] | tuple[Card, ...]) -> str:
    return " ".join(c.text for c in cards) if cards else "-"


# The All Wild deck's composition: the one table the counts live in (RULES.md).
ALL_WILD_COUNTS: dict[Kind, int] = {
    Kind.WILD: 54,
    Kind.WILD_REVERSE: 14,
    Kind.WILD_SKIP: 14,
    Kind.WILD_DRAW_TWO: 10,
    Kind.WILD_DRAW_FOUR: 6,
    Kind.WILD_SKIP_TWO: 6,
    Kind.WILD_TARGETED_DRAW_TWO: 4,
    Kind.WILD_FORCED_SWAP: 4,
}


def _classic() -> tuple[Card, ...]:
    deck: list[Card] = []
    for color in COLORS:
        deck.append(Card.of(color, Kind.N0))
        for kind in (*NUMBER_KINDS[1:], *ACTION_KINDS):
            deck += [Card.of(color, kind)] * 2
    deck += [Card.of(None, Kind.WILD)] * 4 + [Card.of(None, Kind.WILD_DRAW_FOUR)] * 4
    return tuple(deck)


_CLASSIC = _classic()
_ALL_WILD = tuple(Card.of(None, kind) for kind, count in ALL_WILD_COUNTS.items() for _ in range(count))


def classic_deck() -> list[Card]:
    """The 108-card deck, in a fixed order (shuffling is the caller's job)."""
    return list(_CLASSIC)


def all_wild_deck() -> list[Card]:
    """The 112-card All Wild deck."""
    return list(_ALL_WILD)
