"""A terminal capture with its colors (``tmux capture-pane -e -p``) as an SVG picture.

Small on purpose: a capture holds text and SGR sequences (``ESC [ ... m``) only, so this
reads those (bold, dim, italic, underline, reverse; the 16 colors, the 256 and 24-bit
ones) into a grid of cells and draws each run of like cells as one rectangle and one
text element stretched to its cells, so the columns line up in any monospace font. A
wide character (CJK) takes two cells, as in the terminal. Any other escape is dropped.

Why not a library: rich (``Text.from_ansi`` then ``Console.export_svg``) would do it too,
but it draws its own window frame and theme around the picture and would be a new
development dependency for what is this one small file.

    python tools/ansi_svg.py capture.ansi --size 100x30 > table.svg
"""

from __future__ import annotations

import argparse
import re
import sys
import unicodedata
from dataclasses import dataclass, replace
from html import escape

# The 16 colors as xterm draws them, on the dark background below.
PALETTE_16 = (
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
)
FOREGROUND = "#d0d0d0"
BACKGROUND = "#1c1c1c"
CELL_WIDTH = 9.0  # pixels per cell; the text is stretched to it
CELL_HEIGHT = 18.0
FONT = "ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace"

_ESCAPE = re.compile(r"\x1b\[([0-9;:]*)([A-Za-z])|\x1b[()][0-9A-Za-z]|\x1b.")


def color_256(n: int) -> str:
    """xterm's 256 colors: the 16, a 6x6x6 cube, 24 grays."""
    if n < 16:
        return PALETTE_16[n]
    if n < 232:
        n -= 16
        levels = [0 if v == 0 else 55 + 40 * v for v in (n // 36, n // 6 % 6, n % 6)]
        return "#" + "".join(f"{v:02x}" for v in levels)
    gray = 8 + 10 * (n - 232)
    return f"#{gray:02x}{gray:02x}{gray:02x}"


@dataclass(frozen=True, slots=True)
class Style:
    fg: str | None = None  # None: the terminal's default
    bg: str | None = None
    bold: bool = False
    dim: bool = False
    italic: bool = False
    underline: bool = False
    reverse: bool = False

    def colors(self) -> tuple[str, str | None]:
        """The text's color and the cell's (None: the picture's background)."""
        fg, bg = self.fg or FOREGROUND, self.bg
        if self.reverse:
            fg, bg = bg or BACKGROUND, fg
        if self.bold and fg in PALETTE_16[:8] and self.fg is not None:
            fg = PALETTE_16[PALETTE_16.index(fg) + 8]  # bold brightens the first 8
        return fg, bg


def apply_sgr(style: Style, params: str) -> Style:
    """``style`` after one SGR sequence's parameters (``"1;38;5;196"``)."""
    codes = [int(p) if p.isdigit() else 0 for p in params.replace(":", ";").split(";")] if params else [0]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 0:
            style = Style()
        elif code in (1, 2, 3, 4, 7):
            style = replace(style, **{{1: "bold", 2: "dim", 3: "italic", 4: "underline", 7: "reverse"}[code]: True})
        elif code == 22:
            style = replace(style, bold=False, dim=False)
        elif code in (23, 24, 27):
            style = replace(style, **{{23: "italic", 24: "underline", 27: "reverse"}[code]: False})
        elif 30 <= code <= 37 or 90 <= code <= 97:
            style = replace(style, fg=PALETTE_16[code - 30 if code < 90 else code - 82])
        elif 40 <= code <= 47 or 100 <= code <= 107:
            style = replace(style, bg=PALETTE_16[code - 40 if code < 100 else code - 92])
        elif code == 39:
            style = replace(style, fg=None)
        elif code == 49:
            style = replace(style, bg=None)
        elif code in (38, 48) and i + 1 < len(codes):
            color = None
            if codes[i + 1] == 5 and i + 2 < len(codes):
                color, i = color_256(codes[i + 2] % 256), i + 2
            elif codes[i + 1] == 2 and i + 4 < len(codes):
                color = "#" + "".join(f"{min(v, 255):02x}" for v in codes[i + 2:i + 5])
                i += 4
            if color is not None:
                style = replace(style, fg=color) if code == 38 else replace(style, bg=color)
        i += 1
    return style


def cell_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


Cell = tuple[str, Style]


def parse(capture: str, columns: int, rows: int) -> list[list[Cell]]:
    """The capture as ``rows`` rows of ``columns`` cells (a wide character's second cell
    is ``""``); a capture's style carries over from line to line, as tmux writes it."""
    grid: list[list[Cell]] = []
    style = Style()
    for line in capture.split("\n")[:rows]:
        row: list[Cell] = []
        position = 0
        for match in _ESCAPE.finditer(line + "\x1b[]"):
            for char in line[position:match.start()]:
                width = cell_width(char)
                if width == 0 and row:
                    row[-1] = (row[-1][0] + char, row[-1][1])
                elif width and char.isprintable():
                    row.append((char, style))
                    if width == 2:
                        row.append(("", style))
            if match.group(2) == "m":
                style = apply_sgr(style, match.group(1))
            position = match.end()
        row = row[:columns]
        row += [(" ", Style())] * (columns - len(row))
        grid.append(row)
    grid += [[(" ", Style())] * columns for _ in range(rows - len(grid))]
    return grid


def to_svg(capture: str, columns: int, rows: int, title: str = "") -> str:
    """The SVG picture of a capture at ``columns`` x ``rows``."""
    width, height = columns * CELL_WIDTH, rows * CELL_HEIGHT
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
           f'viewBox="0 0 {width:g} {height:g}" font-family="{escape(FONT)}" font-size="15">']
    if title:
        out.append(f"<title>{escape(title)}</title>")
    out.append(f'<rect width="100%" height="100%" fill="{BACKGROUND}"/>')
    for y, row in enumerate(parse(capture, columns, rows)):
        x = 0
        while x < columns:
            char, style = row[x]
            end = x + 1
            if cell_width(char[:1] or " ") == 2:
                end = x + 2  # a wide character on its own, over its two cells
            else:
                while end < columns and row[end][1] == style and cell_width(row[end][0][:1] or " ") == 1:
                    end += 1
            text = "".join(char for char, _style in row[x:end])
            out += _run(x, y, end - x, text, style)
            x = end
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _run(x: int, y: int, cells: int, text: str, style: Style) -> list[str]:
    fg, bg = style.colors()
    left, top = x * CELL_WIDTH, y * CELL_HEIGHT
    out = []
    if bg is not None:
        out.append(f'<rect x="{left:g}" y="{top:g}" width="{cells * CELL_WIDTH:g}" '
                   f'height="{CELL_HEIGHT:g}" fill="{bg}"/>')
    if text.strip():
        attributes = [f'x="{left:g}"', f'y="{top + CELL_HEIGHT * 0.75:g}"', f'fill="{fg}"',
                      f'textLength="{cells * CELL_WIDTH:g}"', 'lengthAdjust="spacingAndGlyphs"']
        if style.bold:
            attributes.append('font-weight="bold"')
        if style.italic:
            attributes.append('font-style="italic"')
        if style.underline:
            attributes.append('text-decoration="underline"')
        if style.dim:
            attributes.append('opacity="0.6"')
        out.append(f'<text xml:space="preserve" {" ".join(attributes)}>{escape(text)}</text>')
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description="A terminal capture with colors as SVG.")
    parser.add_argument("capture", help="the capture (tmux capture-pane -e -p), - for stdin")
    parser.add_argument("--size", default="100x30", help="COLUMNSxROWS (default 100x30)")
    args = parser.parse_args()
    columns, _x, rows = args.size.partition("x")
    if args.capture == "-":
        text = sys.stdin.read()
    else:
        with open(args.capture, encoding="utf-8") as f:
            text = f.read()
    sys.stdout.write(to_svg(text, int(columns), int(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
