"""Cards drawn as cards: the pile's large face, the hand's small faces, the backs of a
seat's fan.

Each face is a list of lines of formatted text in the card's color, and each carries the
card's notation (``R5``) and, on the large one, its color in words: the picture reads the
same on a monochrome terminal or with ``NO_COLOR``.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth
from unolan.client.i18n import _
from unolan.engine import Card

from .canvas import cut
from .state import COLOR_NAMES, card_style, color_word

Fragments = StyleAndTextTuples

# What the middle of a large face shows for each kind that is not a number.
SYMBOLS = {
    "S": "⊘", "R": "⇄", "D2": "+2", "W": "W", "W4": "+4", "WR": "W⇄", "WS": "W⊘",
    "WS2": "⊘⊘", "WD2": "W+2", "WT2": "+2→", "WX": "⇆",
}

SMALL_WIDTH = 5  # a hand's card: │WD2│
LARGE_WIDTH = 7  # a hand's card on a large terminal
SMALL_GAP = 1
BACK = "▒"  # one card back in a seat's fan


def _center(text: str, width: int) -> str:
    text = text if get_cwidth(text) <= width else text[:width]
    left = (width - get_cwidth(text)) // 2
    return " " * left + text + " " * (width - left - get_cwidth(text))


def _left(text: str, width: int) -> str:
    return text + " " * max(0, width - get_cwidth(text))


def symbol(text: str) -> str:
    card = Card.parse(text)
    return SYMBOLS.get(card.kind.value, card.kind.value)


def large(text: str, color: str | None, width: int = 9, height: int = 5, extra: str = "") -> list[Fragments]:
    """The pile's top card, ``width`` x ``height`` cells (at least 9 x 5): its notation in
    the corner, its symbol in the middle, the color in words under it (a wild: the color
    it named, or "wild"). ``color`` is the color in play; ``extra`` adds a style (a flash)."""
    inner = width - 2
    own = Card.parse(text).color
    named = color or (own.value if own else None)
    style = (f"class:card.{COLOR_NAMES[named]}" if named else card_style(text)) + " class:face" + (
        f" {extra}" if extra else "")
    word = color_word(named) if named else _("wild")
    if named and (Card.parse(text).is_wild or named != (own.value if own else None)):
        word = _arrow(word, inner)  # the color it named, or the one a multi-play named
    rows = height - 2
    corner = rows >= 5  # room for the notation in the other corner too
    blanks = rows - 3 - corner
    body = [_left(text, inner), *[" " * inner] * (blanks - blanks // 2), _center(symbol(text), inner),
            *[" " * inner] * (blanks // 2), _center(word, inner)]
    if corner:
        body.append(" " * (inner - get_cwidth(text)) + text)
    lines = ["╭" + "─" * inner + "╮", *("│" + line + "│" for line in body), "╰" + "─" * inner + "╯"]
    return [[(style, line)] for line in lines]


def _arrow(word: str, width: int) -> str:
    """``→ yellow``: the color that continues, in ``width`` cells (closer, then cut)."""
    for text in (f"→ {word}", f"→{word}"):
        if get_cwidth(text) <= width:
            return text
    return cut(f"→{word}", width)


def back_pile(count: int) -> list[Fragments]:
    """The draw pile: a card back with its count beside it."""
    return [[("class:back", "╭───╮")],
            [("class:back", "│" + BACK * 3 + "│"), ("class:label", f" {count}")],
            [("class:back", "╰───╯")]]


def small(text: str, style: str, marked: bool, width: int = SMALL_WIDTH) -> list[Fragments]:
    """A hand's card: its notation inside a frame, three lines; ``width`` 7 gives five,
    with the symbol in the middle and the notation again in the other corner. A marked
    card (for a multi-play) has ``*`` in its top edge."""
    inner = width - 2
    top = "╭*" + "─" * (inner - 1) + "╮" if marked else "╭" + "─" * inner + "╮"
    body = [_left(text, inner)]
    if width > SMALL_WIDTH:
        body += [_center(symbol(text), inner), " " * (inner - get_cwidth(text)) + text]
    return [[(style, line)] for line in (top, *("│" + line + "│" for line in body), "╰" + "─" * inner + "╯")]


def fan(count: int, room: int) -> str:
    """A seat's cards as backs, at most ``room`` of them (``+`` when there are more)."""
    if count <= room:
        return BACK * count
    if room <= 0:
        return ""
    return BACK * max(room - 1, 0) + "+"
