"""A grid of terminal cells to draw a picture on: the table's seats around the pile.

prompt_toolkit lays windows out in rows and columns; a table is a picture with things at
places (a seat on the left, the pile in the middle, a card on its way between them), so
it is drawn on a :class:`Canvas` of styled cells and handed over as formatted text, one
line per row. Widths are terminal cells as prompt_toolkit measures them: a wide (CJK)
character takes two cells, and one that would straddle the right edge is left out.
The text measures (``cut``, ``fit``, ``wrap``) live here too: every picture and pane of
the UI fits its words with them.
"""

from __future__ import annotations

import re
from functools import lru_cache

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth

Fragments = StyleAndTextTuples
Cell = tuple[str, str]  # (style, character); "" as the character: the right half of a wide one


class Canvas:
    """``width`` x ``height`` cells, blank at first; drawing outside is clipped."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = max(width, 0), max(height, 0)
        self.rows: list[list[Cell]] = [[("", " ")] * self.width for _ in range(self.height)]

    def put(self, x: int, y: int, fragments: Fragments) -> int:
        """Draw one line of ``fragments`` from cell ``x`` of row ``y``; the cell after it."""
        for style, text, *_rest in fragments:
            for char in text:
                w = get_cwidth(char)
                if w == 0:
                    continue
                if 0 <= y < self.height and x >= 0 and x + w <= self.width:
                    row = self.rows[y]
                    self._clear_wide(row, x)
                    if w == 2:
                        self._clear_wide(row, x + 1)
                        row[x + 1] = (style, "")
                    row[x] = (style, char)
                x += w
        return x

    def block(self, x: int, y: int, lines: list[Fragments]) -> None:
        """Draw ``lines`` one under the other from (``x``, ``y``)."""
        for i, line in enumerate(lines):
            self.put(x, y + i, line)

    def restyle(self, x: int, y: int, width: int, style: str) -> None:
        """Add ``style`` to ``width`` cells of row ``y`` from ``x`` (a flash, a highlight)."""
        if not 0 <= y < self.height:
            return
        row = self.rows[y]
        for i in range(max(x, 0), min(x + width, self.width)):
            row[i] = (f"{row[i][0]} {style}".strip(), row[i][1])

    @staticmethod
    def _clear_wide(row: list[Cell], x: int) -> None:
        """Drawing over half of a wide character blanks its other half."""
        if row[x][1] == "" and x > 0:
            row[x - 1] = (row[x - 1][0], " ")
        elif x + 1 < len(row) and get_cwidth(row[x][1]) == 2:
            row[x + 1] = (row[x + 1][0], " ")

    def fragments(self) -> Fragments:
        """The picture as formatted text: runs of one style, a newline after each row but
        the last."""
        out: Fragments = []
        for y, row in enumerate(self.rows):
            for style, char in row:
                if not char:
                    continue
                if out and out[-1][0] == style and out[-1][1] != "\n":
                    out[-1] = (style, out[-1][1] + char)
                else:
                    out.append((style, char))
            if y < self.height - 1:
                out.append(("", "\n"))
        return out


def width_of(fragments: Fragments) -> int:
    """How many cells ``fragments`` take on one line."""
    return sum(get_cwidth(text) for _style, text, *_rest in fragments)


def cut(text: str, width: int) -> str:
    """``text`` cut to at most ``width`` cells, with … where it was cut."""
    if get_cwidth(text) <= width:
        return text
    out, used = [], 0
    for char in text:
        w = get_cwidth(char)
        if used + w > width - 1:
            break
        out.append(char)
        used += w
    return "".join(out) + "…"


def fit(text: str, width: int) -> str:
    """``text`` in exactly ``width`` cells: cut, or padded with spaces."""
    text = cut(text, width)
    return text + " " * (width - get_cwidth(text))


@lru_cache(maxsize=1024)  # the log's lines are wrapped again at every redraw
def wrap(text: str, width: int, indent: int = 2, start: int = 0) -> tuple[str, ...]:
    """``text`` in lines of at most ``width`` cells, broken between words or between two
    wide (CJK) characters, which a line may break between as between words (a narrow word
    wider than a line is cut, never broken inside: a card label stays whole); lines after
    the first are indented by ``indent``, and the first begins ``start`` cells in. A
    title's dashes (``— round 2 · dealer: bob —``) stay with its words: no line is a
    dash alone."""
    if text.startswith("— ") or text.endswith(" —"):
        text = _TITLE_DASHES.sub(lambda m: m.group().replace(" ", _NO_BREAK), text)
    lines: list[str] = []
    line, used = "", 0
    for word, glued in _pieces(text):
        w = get_cwidth(word)
        gap = 0 if glued or not line else 1
        room = width - (indent if lines else start)
        if line and used + gap + w > room:
            lines.append(line)
            line, used, gap = "", 0, 0
            room = width - indent
        if not line and w > room:
            word = cut(word, room)
            w = get_cwidth(word)
        line, used = (line + " " * gap + word, used + gap + w)
    lines.append(line)
    lines = [part.replace(_NO_BREAK, " ") for part in lines]
    return (lines[0], *(" " * indent + rest for rest in lines[1:]))


_NO_BREAK = "\u00a0"  # inside a piece: a space that wrap does not break at
_TITLE_DASHES = re.compile(r"^— | —$")


def wrapped(lines: list[tuple[str, str]], width: int) -> Fragments:
    """Lines of (style, text), each wrapped by words to ``width`` cells (a terminal's own
    wrapping breaks inside a word) and indented by a cell."""
    return [(style, f" {part}\n") for style, text in lines for part in wrap(text, max(width - 2, 20))]


def _pieces(text: str) -> list[tuple[str, bool]]:
    """The pieces a line may break between: words, and each wide character on its own;
    ``glued``: no space before it (the next piece of the same word)."""
    out: list[tuple[str, bool]] = []
    for word in text.split(" "):
        run, glued = "", False
        for char in word:
            if get_cwidth(char) == 2:
                if run:
                    out.append((run, glued))
                    glued = True
                out.append((char, glued))
                run, glued = "", True
            else:
                run += char
        if run or not glued:
            out.append((run, glued))
    return out
