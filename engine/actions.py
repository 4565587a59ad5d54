"""Actions: what a seat may do, as small immutable values with a text notation.

Every action carries the seat that takes it, so out-of-turn actions (calling UNO,
catching, challenging, jumping in) are ordinary actions judged when applied. Each is
pickled as the call that builds it (``__reduce__``), the same for the pure and the
compiled engine: a compiled frozen dataclass cannot be restored field by field.

A :class:`Play` is made for every legal play of several cards, each time the plays are
listed, so it has an ``__init__`` of its own that stores its fields straight: a frozen
dataclass's costs several times as much, pure or compiled (where the dataclass's is
still Python). It is immutable by convention, as events are; the other actions, made
once and shared, are frozen.

Notation (``seat verb args``)::

    1 play R5                 one card
    1 play W4 G               a wild, naming green
    1 play R5 G5 B5 G uno     several cards (last on top), naming green, calling UNO
    1 play R7 @3              seven-zero: swap hands with seat 3 (also WT2, WX)
    1 draw                    draw (or take a pending penalty)
    1 pass                    keep the card just drawn
    1 challenge               challenge a Wild Draw Four
    1 uno                     call UNO
    1 catch 2                 catch seat 2, who has not called UNO
    1 color G                 name the color of a Wild turned up as the first card
    0 deal                    the dealer deals the next round
    0 deal 9f86d081884c7d65   ... shuffled by this seed from now on (a fair deal's)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from .cards import COLORS, Card, Color
from .errors import NotationError


@dataclass(slots=True, unsafe_hash=True)
class Play:
    seat: int
    cards: tuple[Card, ...]
    color: Color | None = None
    target: int | None = None
    uno: bool = False

    def __init__(self, seat: int, cards: tuple[Card, ...], color: Color | None = None,
                 target: int | None = None, uno: bool = False) -> None:
        self.seat = seat
        self.cards = cards
        self.color = color
        self.target = target
        self.uno = uno

    def __str__(self) -> str:
        words = [str(self.seat), "play", *(c.text for c in self.cards)]
        if self.color is not None:
            words.append(self.color.value)
        if self.target is not None:
            words.append(f"@{self.target}")
        if self.uno:
            words.append("uno")
        return " ".join(words)

    def __reduce__(self) -> tuple[type[Play], tuple[object, ...]]:
        return (Play, (self.seat, self.cards, self.color, self.target, self.uno))


@dataclass(frozen=True, slots=True)
class _SeatAction:
    """An action that names only its seat: ``SEAT VERB``."""

    seat: int

    def __str__(self) -> str:
        return f"{self.seat} {_VERBS[type(self)]}"

    def __reduce__(self) -> tuple[type[_SeatAction], tuple[int]]:
        return (type(self), (self.seat,))


@dataclass(frozen=True, slots=True)
class Draw(_SeatAction):
    """``SEAT draw``"""


@dataclass(frozen=True, slots=True)
class Pass(_SeatAction):
    """``SEAT pass``"""


@dataclass(frozen=True, slots=True)
class Challenge(_SeatAction):
    """``SEAT challenge``"""


@dataclass(frozen=True, slots=True)
class CallUno(_SeatAction):
    """``SEAT uno``"""


@dataclass(frozen=True, slots=True)
class Catch:
    seat: int
    target: int

    def __str__(self) -> str:
        return f"{self.seat} catch {self.target}"

    def __reduce__(self) -> tuple[type[Catch], tuple[int, int]]:
        return (Catch, (self.seat, self.target))


@dataclass(frozen=True, slots=True)
class ChooseColor:
    seat: int
    color: Color

    def __str__(self) -> str:
        return f"{self.seat} color {self.color.value}"

    def __reduce__(self) -> tuple[type[ChooseColor], tuple[int, Color]]:
        return (ChooseColor, (self.seat, self.color))


@dataclass(frozen=True, slots=True)
class Deal:
    """``SEAT deal`` or ``SEAT deal SEED``: deal the next round. ``seed``: the match's
    shuffles are seeded by it from this deal on (a round whose seed the players helped
    draw; None: the seed goes on)."""

    seat: int
    seed: int | str | None = None

    def __str__(self) -> str:
        return f"{self.seat} deal" if self.seed is None else f"{self.seat} deal {self.seed}"

    def __reduce__(self) -> tuple[type[Deal], tuple[int, int | str | None]]:
        return (Deal, (self.seat, self.seed))


Action = Play | Draw | Pass | Challenge | CallUno | Catch | ChooseColor | Deal
_SIMPLE: Final[dict[str, type[Draw | Pass | Challenge | CallUno]]] = {
    "draw": Draw, "pass": Pass, "challenge": Challenge, "uno": CallUno}
_VERBS: Final[dict[type[_SeatAction], str]] = {cls: verb for verb, cls in _SIMPLE.items()}
_COLOR_LETTERS: Final = {c.value for c in COLORS}


def _seat(text: str, line: str) -> int:
    if not text.isdigit():
        raise NotationError(f"expected a seat number, got {text!r} in {line!r}")
    return int(text)


def read_seed(text: str) -> int | str:
    """A seed as the notation writes it: an integer's digits, or any other word."""
    return int(text) if text.lstrip("-").isdigit() else text


def parse_action(line: str) -> Action:
    """Parse one action in the notation above."""
    words = line.split()
    if len(words) < 2:
        raise NotationError(f"expected 'SEAT VERB ...', got {line!r}")
    seat, verb, args = _seat(words[0], line), words[1].lower(), words[2:]
    if verb in _SIMPLE:
        if args:
            raise NotationError(f"{verb} takes no arguments: {line!r}")
        return _SIMPLE[verb](seat)
    if verb == "deal" and len(args) <= 1:
        return Deal(seat, read_seed(args[0]) if args else None)
    if verb == "catch" and len(args) == 1:
        return Catch(seat, _seat(args[0], line))
    if verb == "color" and len(args) == 1:
        return ChooseColor(seat, Color.parse(args[0]))
    if verb == "play" and args:
        cards: list[Card] = []
        color = target = None
        uno = False
        for word in args:
            if word.lower() == "uno":
                uno = True
            elif word.startswith("@"):
                target = _seat(word[1:], line)
            elif word.upper() in _COLOR_LETTERS:
                color = Color(word.upper())
            else:
                cards.append(Card.parse(word))
        if not cards:
            raise NotationError(f"play names no card: {line!r}")
        return Play(seat, tuple(cards), color, target, uno)
    raise NotationError(f"unknown action {line!r}")


def parse_actions(text: str) -> list[Action]:
    """Actions one per line or separated by ``;``; ``#`` starts a comment."""
    out = []
    for line in text.splitlines():
        for chunk in line.split("#", 1)[0].split(";"):  # a comment runs to the end of its line
            if chunk.strip():
                out.append(parse_action(chunk.strip()))
    return out
