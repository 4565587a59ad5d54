"""The README's picture: the ANSI-to-SVG converter on a small capture, and the script
that takes the picture from ``uno play`` in a real tmux pane."""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[1] / "tools"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # a dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


ansi_svg = load("ansi_svg")
SAMPLE = ("\x1b[1;31mR5\x1b[0m ok \x1b[38;5;33;48;2;10;20;30mB\x1b[0m 你<\n"
          "\x1b[7mrev\x1b[27m \x1b[4;92mG\x1b[K")


def texts(svg: str) -> list[tuple[float, float, str, str]]:
    """Each text element's x, y, color and text."""
    return [(float(x), float(y), fill, text) for x, y, fill, text in re.findall(
        r'<text xml:space="preserve" x="([\d.]+)" y="([\d.]+)" fill="(#\w+)"[^>]*>([^<]*)</text>', svg)]


def test_cells_keep_their_colors_and_columns() -> None:
    grid = ansi_svg.parse(SAMPLE, 12, 3)
    assert len(grid) == 3 and all(len(row) == 12 for row in grid)
    assert "".join(c for c, _s in grid[0]) == "R5 ok B 你< "  # 你 and its second cell ""
    assert grid[0][0][1] == ansi_svg.Style(fg="#cd0000", bold=True)
    assert grid[0][6][1] == ansi_svg.Style(fg="#0087ff", bg="#0a141e")  # 256 and 24-bit colors
    assert grid[0][8][0] == "你" and grid[0][9][0] == ""
    assert grid[1][0][1].reverse and not grid[1][3][1].reverse
    assert grid[1][4][1] == ansi_svg.Style(fg="#00ff00", underline=True)
    assert all(c == " " for c, _s in grid[2])  # a row the capture did not reach


def test_the_svg_draws_each_run_at_its_cells() -> None:
    svg = ansi_svg.to_svg(SAMPLE, 12, 3, title="a <sample>")
    w, h = ansi_svg.CELL_WIDTH, ansi_svg.CELL_HEIGHT
    assert svg.startswith("<svg ") and svg.rstrip().endswith("</svg>")
    assert f'width="{12 * w:g}" height="{3 * h:g}"' in svg
    assert "<title>a &lt;sample&gt;</title>" in svg
    runs = texts(svg)
    assert (0.0, h * 0.75, "#ff0000", "R5") in runs  # bold brightens red
    assert (6 * w, h * 0.75, "#0087ff", "B") in runs
    assert (8 * w, h * 0.75, "#d0d0d0", "你") in runs  # a wide character over two cells
    assert (10 * w, h * 0.75, "#d0d0d0", "&lt; ") in runs  # escaped, after the two cells
    assert (0.0, h * 1.75, ansi_svg.BACKGROUND, "rev") in runs  # reversed: the colors swap
    assert f'<rect x="0" y="{h:g}" width="{3 * w:g}" height="{h:g}" fill="{ansi_svg.FOREGROUND}"/>' in svg
    assert f'<rect x="{6 * w:g}" y="0" width="{w:g}" height="{h:g}" fill="#0a141e"/>' in svg
    assert 'text-decoration="underline"' in svg


def test_256_colors() -> None:
    assert ansi_svg.color_256(9) == "#ff0000"
    assert ansi_svg.color_256(16) == "#000000" and ansi_svg.color_256(231) == "#ffffff"
    assert ansi_svg.color_256(196) == "#ff0000"
    assert ansi_svg.color_256(232) == "#080808" and ansi_svg.color_256(255) == "#eeeeee"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_script_pictures_the_table_from_a_real_pane(tmp_path: Path) -> None:
    out = tmp_path / "table.svg"
    done = subprocess.run([sys.executable, str(TOOLS / "screenshot.py"), "--size", "80x24",
                           "--port", "0", "--out", str(out)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    svg = out.read_text(encoding="utf-8")
    assert 'width="720" height="432"' in svg  # 80x24 cells
    words = " ".join(text for _x, _y, _fill, text in texts(svg))
    # The table as drawn: the own seat's line, a card face of the hand with its key, the prompt.
    assert "ann (you)" in words and "╭───╮" in words and "Your turn" in words
    assert re.search(r"▲\d", words)  # the cursor's key (on a card that can be played)
    assert len({fill for _x, _y, fill, _t in texts(svg)}) >= 4  # the colors came through
