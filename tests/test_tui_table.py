"""The table as a picture: what must be on screen at 80x24, 100x30 and 160x50 (the real
layout, drawn through pipe input and a dummy output), the motion that tells the story
(driven by a clock the test holds: nothing sleeps), and the themes kept in the config."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from prompt_toolkit.styles import Style
from prompt_toolkit.utils import get_cwidth
from test_tui import BASIC, Table, faces, hand_of, pile, table
from unolan.client import config
from unolan.client.tui import themes
from unolan.client.tui.motion import FLASH, FLIGHT, FRAME, Motion
from unolan.client.tui.render import players
from unolan.engine import Play

from unolan.cli import build_parser

SIZES = [(80, 24), (100, 30), (160, 50)]
FOUR = "hand 0: R5 G7 W4 R2; hand 1: B1 B2 B3; hand 2: YS R9; hand 3: G1; discard: Y3 R3; draw: G2 G3 G4; catchable: 3"


def must_show(t: Table, screen: str) -> None:
    """Everything needed to play, whatever the size: every seat with its count, the pile's
    face with its color word, the draw pile's count, the direction, the catch mark, this
    player's line, the hand with its keys, what to do now."""
    for seat, name, count in ((1, "bob", "3 cards"), (2, "cy", "2 cards"), (3, "di", "1 card")):
        assert re.search(rf"\b{seat} {name}\b", screen), name
        assert count in screen
    assert pile(screen).startswith("R3")
    assert "red" in pile(screen)
    assert re.search(r"│▒▒▒│ 3\b", screen)  # the draw pile and its count
    assert "↻ clockwise" in screen
    assert "NO UNO!" in screen  # di may be caught: the engine's view says so
    assert "▶ 0 ann (you) · 4 cards" in screen
    assert hand_of(screen) == ["R2", "R5", "G7", "W4"]
    assert "Your turn" in screen and "Log" in screen


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_table_shows_everything_needed_to_play_at_each_size(width: int, height: int) -> None:
    with table(FOUR) as t:
        screen = t.screen(width, height)
        print(f"\n{width}x{height}:\n{screen}")
        must_show(t, screen)
        lines = screen.splitlines()
        assert len(lines) <= height and all(len(line) <= width for line in lines)


@pytest.mark.parametrize("players", [4, 6, 8])
def test_the_same_hand_size_is_drawn_alike_at_every_seat(players: int) -> None:
    """A tile at the right edge keeps off the border: every tile is as narrow as it, so
    seven cards are never a full fan at one seat and a cut one at another."""
    sevens = ["R1 R2 R3 R4 R5 R6 R7", "Y1 Y2 Y3 Y4 Y5 Y6 Y7", "G1 G2 G3 G4 G5 G6 G7", "B1 B2 B3 B4 B5 B6 B7"]
    hands = "; ".join(f"hand {i}: {sevens[i % 4]}" for i in range(players))
    with table(f"{hands}; discard: R9; turn: 0") as t:
        for size in ((80, 24), (100, 30), (160, 50)):
            fans = re.findall(r"(?<!│)(▒+\+?) 7 cards", t.screen(*size))
            assert len(fans) == players - 1 and len(set(fans)) == 1, (size, fans)


def test_a_large_terminal_uses_the_space() -> None:
    with table(FOUR) as t:
        for i in range(40):
            t.state.add_log(f"line {i}")
        small, big = t.screen(80, 24), t.screen(160, 50)
        assert len(pile(big).split()) > len(pile(small).split())  # a larger face: both corners
        assert "Scores" in big and "Scores" not in small
        assert big.count("line ") > 2 * small.count("line ")
        assert faces(small) == faces(big) == [("R2", False), ("R5", False), ("G7", False), ("W4", False)]
        assert "│R2 │" in small and "│R2   │" in big and "│   R2│" in big  # larger faces


def test_resizing_redraws_for_the_new_size() -> None:
    with table(FOUR) as t:
        narrow, wide = t.screen(80, 24), t.screen(160, 50)
        again = t.screen(80, 24)
        assert narrow == again != wide


def test_a_long_hand_wraps_to_more_rows_of_faces_where_there_is_room() -> None:
    big = "R1 R2 R3 R4 R5 R6 R7 R8 R9 G3 G4 G5 B1 B2 B3 B4 Y1 Y2 Y3 W W4 RS RR RD2"
    with table(f"rules: official; hand 0: {big}; hand 1: G1 G2; discard: Y9 R0") as t:
        tall = t.screen(100, 40)
        assert len(faces(tall)) == 24  # two rows of faces
        compact = t.screen(80, 24)  # too short for them: the compact labels
        assert " Hand ↑1[R1] ↑2[R2]" in compact
        # the cards some legal play holds are signed without color, as their faces stand up
        marked = re.findall(r"(↑?)\d\*?\[(\w+)\]", compact)
        playable = {c.text for a in t.state.legal() if isinstance(a, Play) for c in a.cards}
        assert {card for sign, card in marked if sign} == playable
        assert {card for sign, card in marked if not sign} == set(big.split()) - playable != set()


# -- motion --------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_played_card_flies_from_its_seat_to_the_pile_then_the_pile_flashes() -> None:
    clock = Clock()
    with table("hand 0: R5 G7; hand 1: B1 B2 R9; hand 2: G4 G5; discard: R3; turn: 1",
               clock=clock) as t:
        before = t.screen()
        t.apply("1 play R9")
        clock.now += FLIGHT / 3  # on its way: its label between the seat and the pile
        flying = t.screen()
        assert flying.count("[R9]") == 2 and "[R9]" not in before  # (and in the log)
        assert t.state.motion.next_frame(clock.now) == FRAME
        clock.now += FLIGHT  # landed: the pile shows it, flashing, drawn again when that ends
        assert "│R9 │" not in t.screen() and pile(t.screen()).startswith("R9")
        assert FRAME < t.state.motion.next_frame(clock.now) < FLASH
        styles = {style for style, _text, *_ in players(t.state, 53, 16)}
        assert any("class:flash" in style for style in styles)
        clock.now += 1.0  # over: nothing moves, nothing to draw again
        assert not any("class:flash" in s for s, *_ in players(t.state, 53, 16))
        assert t.state.motion.next_frame(clock.now) is None


def test_a_wild_draw_four_note_at_80x24_keeps_who_draws_and_the_challenge_keys() -> None:
    """Short of rows (a two-table room's panel takes two), the note under the pile says
    the penalty as its count and whom it is for; what it is, and its keys, are on the
    hint line, once (no banner says the keys again)."""
    from unolan.client.tui.other_table import OtherTable

    position = ("hand 0: Y8 GR B6 BS; hand 1: B1 W4 R1; hand 2: B3 R2 R3; hand 3: G1;"
                " discard: R3 W4; color: Y; turn: 0; pending: 4; challengeable: 3 bluff")
    with table(position) as t:
        t.state.other_table = OtherTable(1, 1, "GS", ("eve", "fay", "gus", "hal"), (5, 1, 7, 2), 2)
        rows = t.screen().splitlines()
        y = next(i for i, row in enumerate(rows) if "Pending: " in row)
        x = rows[y].index("Pending: ")
        note = " ".join(row[x:].strip().split("  ")[0] for row in rows[y:y + 2])
        assert note == "Pending: 4 cards for you"
        assert rows[-1] == " 4 cards (Wild Draw Four, may be challenged) on you: d draws them · c challenge"
        for size in ((80, 24), (160, 50)):
            screen = t.screen(*size)
            assert screen.count("c challenge") == 1 and screen.count("d draw") == 1, screen


def test_a_card_flying_to_the_pile_never_covers_the_lines_under_it() -> None:
    clock = Clock()
    with table("hand 0: RD2 G7 G8; hand 1: B1 B2 B3; hand 2: G4 G5; hand 3: Y1 Y2; discard: R3 BD2;"
               " pending: 2", clock=clock) as t:
        t.apply("0 play RD2")
        for _step in range(9):
            clock.now += FLIGHT / 10
            screen = t.screen()
            for words in ("↻ clockwise", "Pending: 4 cards (2", "stacked, the last", "Draw Two) for bob"):
                assert words in screen, screen


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (160, 50)])
def test_a_flying_card_goes_where_the_table_is_bare(size: tuple[int, int]) -> None:
    """From every seat, at every size: the card on its way never covers a name, a count,
    the pile, the draw pile or a line of text (it is a small face where there is room,
    its label where only a line is free); and it is seen on its way."""
    names = ("1 bob", "2 cy", "3 di", "0 ann (you)")
    for seat in range(4):
        hands = "; ".join(f"hand {i}: {'R9 ' if i == seat else ''}G7 G2" for i in range(4))
        clock = Clock()
        with table(f"{hands}; discard: R3; turn: {seat}", clock=clock) as t:
            t.apply(f"{seat} play R9")
            flight = []
            for _step in range(10):
                flight.append(t.screen(*size).splitlines())
                clock.now += FLIGHT / 10
            clock.now += 1.0
            landed = t.screen(*size).splitlines()  # the table as it stays, the card in the pile
            marks = sum(row.count("[R9]") + row.count("│R9 │") for row in landed)
            seen = 0
            for rows in flight:
                changed = [(y, i) for y, (row, still) in enumerate(zip(rows, landed, strict=True))
                           for i, (a, b) in enumerate(zip(row.ljust(size[0]), still.ljust(size[0]), strict=True))
                           if a != b]
                # what the flight changed were blank cells only (the log pane aside)
                assert all(landed[y].ljust(size[0])[i] == " " for y, i in changed), "\n".join(rows)
                assert all(any(name in row for row in rows) for name in names)
                seen += sum(row.count("[R9]") + row.count("│R9 │") for row in rows) > marks
            assert seen >= 2, (seat, size)


def test_banners_show_at_the_seat_where_it_happened_and_go() -> None:
    clock = Clock()
    with table("hand 0: R5 G7; hand 1: B1 R3; hand 2: G4 G5; discard: R3; turn: 2", clock=clock) as t:
        row = next(i for i, line in enumerate(t.screen().splitlines()) if "1 bob" in line)
        t.apply("1 play R3")  # bob jumps in with the identical card
        clock.now += FLIGHT + 0.05  # the card has landed; the banner stays
        lines = t.screen().splitlines()
        assert "JUMP IN!" in lines[row + 1] and lines[row + 1].index("JUMP IN!") < 30  # on bob's tile
        assert "1 bob" in lines[row]  # under his name, which it hides not
        t.state.on_event("uno", {"seat": 1})
        assert " UNO! " in t.screen().splitlines()[row + 1] and "1 bob" in t.screen().splitlines()[row]
        clock.now += 1.0
        line = t.screen().splitlines()[row]
        assert "1 bob" in line and "JUMP IN!" not in line and " UNO! " not in line


def test_catch_challenge_and_penalty_banners() -> None:
    clock = Clock()
    with table(BASIC, clock=clock) as t:
        t.state.on_event("caught", {"seat": 0, "target": 1, "penalty": 2})
        t.state.on_event("challenged", {"seat": 2, "target": 3, "guilty": True})
        t.state.on_event("penalty", {"seat": 2, "amount": 4})
        screen = t.screen()
        assert "CAUGHT +2" in screen and " +4 " in screen
        lines = screen.splitlines()  # a banner wider than the tile takes its next line too
        row = next(i for i, line in enumerate(lines) if "challenge:" in line)
        x = lines[row].index("challenge:")
        assert lines[row + 1][x:].startswith("guilty!")
        assert re.search(r"│▒▒▒│ \d+", screen)  # the draw pile's count is never covered


@pytest.mark.parametrize("no_motion", [False, True])
def test_a_banner_covers_the_tile_lines_it_takes_whole(no_motion: bool) -> None:
    clock = Clock()
    with table("hand 0: R5 G7; hand 1: B1 R3; hand 2: G4 G5; hand 3: B7; discard: R3; turn: 2",
               clock=clock) as t:
        t.state.motion = Motion(moving=not no_motion)
        t.state.names.update({1: "bot-1", 2: "bot-2", 3: "bot-3"})
        t.state.bots.update({1, 2, 3})
        t.apply("1 play R3")  # bot-1 jumps in
        t.state.on_event("uno", {"seat": 3})
        t.state.on_event("uno", {"seat": 2})
        screen = t.screen(80, 24)
        for banner in ("JUMP IN!", "UNO!"):
            for line in (line for line in screen.splitlines() if banner in line):
                tile = line[:line.index("│")] if "│" in line else line  # the table, not the log
                assert "bot" not in tile and not re.search(r"\b[123] ", tile), line
        assert screen.count("UNO!") >= 2 and "JUMP IN!" in screen


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("players", [4, 8])
def test_banners_hide_no_seats_name(width: int, height: int, players: int) -> None:
    """A banner at every seat at once (this player's too, whose line is long): every
    name is still read, on tiles of three lines and of two."""
    hands = "; ".join(f"hand {s}: B{s} Y{s}" for s in range(1, players))
    with table(f"hand 0: R5 G7 B9 Y1 Y2 Y3 G1 G2 G3; {hands}; discard: R3; turn: 1",
               clock=Clock()) as t:
        t.state.names.update({s: f"bot-{s}" for s in range(1, players)})
        t.state.bots.update(range(1, players))
        t.state.presence[0] = "autopilot"  # this player's line too long for a banner beside it
        for seat in range(players):
            t.state.on_event("challenged", {"seat": (seat + 1) % players, "target": seat, "guilty": True})
        screen = t.screen(width, height)
        for seat in range(1, players):
            assert re.search(rf"\b{seat} bot-{seat}\b", screen), (seat, screen)
        assert "0 ann (you)" in screen and "challenge:" in screen, screen
        mine = next(line for line in screen.splitlines() if "0 ann (you)" in line).split("│")[0]
        if "autopilot" not in mine:  # the banner over what follows the name: nothing of it left
            assert re.fullmatch(r" *0 ann \(you\)  challenge: (guilty!|gu…) *", mine), mine


def test_no_motion_moves_nothing_but_keeps_the_banners() -> None:
    clock = Clock()
    with table("hand 0: R5 G7; hand 1: B1 R3; hand 2: G4 G5; discard: R3; turn: 2", clock=clock) as t:
        t.state.motion = Motion(moving=False)
        t.apply("1 play R3")
        clock.now += FLIGHT / 3
        screen = t.screen()
        assert "│R3 │" not in screen  # nothing flies
        assert "JUMP IN!" in screen  # the banner stays, still
        assert not any("class:flash" in s for s, *_ in players(t.state, 53, 16))
        assert t.state.motion.next_frame(clock.now) == pytest.approx(1 - FLIGHT / 3 - 0.1, abs=0.01)


def test_motion_never_holds_a_key() -> None:
    clock = Clock()
    with table("hand 0: R5 G7; hand 1: B1 B2 R9; hand 2: G4 G5; discard: R3; turn: 1", clock=clock) as t:
        t.apply("1 play R9", "2 draw", "2 pass")
        t.press("1", "enter")  # while R9 is still flying
        assert t.actions()[-1].cards[0].text == "R5"


# -- themes and the config -----------------------------------------------------------------


def test_every_theme_styles_every_class_of_the_default() -> None:
    for theme in themes.THEMES:
        sheet = {"dark": themes.DARK, "light": themes.LIGHT, "high-contrast": themes.HIGH_CONTRAST}[theme]
        assert set(sheet) == set(themes.DARK), theme
        themes.style(theme)  # a valid style sheet


def test_the_theme_is_kept_in_the_users_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from unolan.client.tui.cli import apply_table_options
    from unolan.client.tui.state import UIState

    path = tmp_path / "unolan" / "config.json"
    monkeypatch.setattr(config, "default_path", lambda: path)
    parse = build_parser().parse_args
    state = UIState()
    apply_table_options(parse(["play", "--theme", "light", "--no-motion"]), state)
    assert state.theme == "light" and not state.motion.moving
    assert config.load(path) == {"theme": "light"}
    state = UIState()
    apply_table_options(parse(["join", "127.0.0.1"]), state)  # no --theme: the one kept
    assert state.theme == "light" and state.motion.moving
    path.write_text("not json")
    apply_table_options(parse(["play"]), state)  # a broken file: the default
    assert state.theme == "dark"


def test_an_unknown_theme_is_refused_by_the_parser() -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["play", "--theme", "pink"])


CARD_CLASSES = ("card.red", "card.yellow", "card.green", "card.blue", "card.wild")
# What a card's face is drawn with on top of its color: the pile's face, the hand's states.
CARD_MODIFIERS = ("", "face", "face flash", "face flying", "card.top", "playable", "playable.along",
                  "unplayable", "playable marked", "playable cursor")
PAPER = {"dark": "000000", "light": "ffffff", "high-contrast": "000000"}  # the terminal's own


def luminance(rgb: str) -> float:
    """WCAG 2's relative luminance of a ``rrggbb`` color."""
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = (int(rgb[i:i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(style: Style, classes: str, paper: str) -> float:
    attrs = style.get_attrs_for_style_str(" ".join(f"class:{c}" for c in classes.split()))
    ink, back = attrs.color or ("ffffff" if paper == "000000" else "000000"), attrs.bgcolor or paper
    if attrs.reverse:
        ink, back = back, ink
    light, dark = sorted((luminance(ink), luminance(back)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


@pytest.mark.parametrize("theme", themes.THEMES)
def test_every_card_face_and_every_styled_pair_of_each_theme_reads(theme: str) -> None:
    """A card's text against its face at WCAG's 3:1 (bold text) at the least, the high
    contrast theme's at 4.5:1 (WCAG AA); and every class that sets its own background as readable."""
    style, paper = themes.style(theme), PAPER[theme]
    least = 4.5 if theme == "high-contrast" else 3.0
    for card in CARD_CLASSES:
        for extra in CARD_MODIFIERS:
            assert contrast(style, f"{card} {extra}", paper) >= least, (theme, card, extra)
    sheet = {"dark": themes.DARK, "light": themes.LIGHT, "high-contrast": themes.HIGH_CONTRAST}[theme]
    for name, value in sheet.items():
        if "bg:" in value:
            assert contrast(style, name, paper) >= 3.0, (theme, name)


# -- pop-up boxes ----------------------------------------------------------------------------


def box_rows(screen: str, corner: str = "┌") -> list[str]:
    """The rows a pop-up box (a frame drawn with ┌ ┐ └ ┘) takes on ``screen``."""
    lines = screen.splitlines()
    top = next(i for i, line in enumerate(lines) if corner in line)
    bottom = next(i for i in range(top, len(lines)) if "└" in lines[i])
    return lines[top:bottom + 1]


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_pop_up_box_covers_what_is_behind_it_along_its_rows(width: int, height: int) -> None:
    with table(FOUR) as t:
        for i in range(60):
            t.state.add_log(f"bob played [R{i % 10}] and reversed the direction of play")
        t.press("s")
        rows = box_rows(t.screen(width, height))
        assert any("left in hand" in row for row in rows)
        for row in rows:  # nothing but blanks beside the box: no cut log, no cut tile
            left, right = row.index(row.strip()[0]), len(row.rstrip())
            assert row[:left].strip() == "" and row[left] in "┌│└", row
            assert row[right - 1] in "┐│┘", row


def test_the_color_picker_keeps_its_border_over_wide_characters() -> None:
    from unolan.client import i18n

    i18n.set_language("zh_Hant")
    with table("hand 0: W R1; hand 1: B1; hand 2: B2 B3; discard: G3") as t:
        for _i in range(40):
            t.state.add_log("規則說明文字規則說明文字規則說明文字規則說明文字規則說明文字")
        t.press("2", "enter")
        rows = box_rows(t.screen(80, 24))
        assert len(rows) >= 6
        for row in rows:
            text = row.strip()
            assert text[0] in "┌│└" and text[-1] in "┐│┘", row
            assert row[:row.index(text[0])].strip() == "", row


# -- a two-table room (partner rotation) -------------------------------------------------------


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_two_table_room_names_every_seat_shows_the_rotation_and_every_total(width: int, height: int) -> None:
    from unolan.client.tui.other_table import OtherTable
    from unolan.engine import Rules
    from unolan.engine.rotation import table_rules

    rules = Rules.parse("house partner_rotation=on")
    position = f"rules: {table_rules(rules)}; hand 0: R5 G7 W4 R2; hand 1: B1 B2 B3; hand 2: YS R9; hand 3: G1; discard: Y3 R3"
    with table(position) as t:
        t.state.names.update({1: "bot-1", 2: "bot-5", 3: "bot-3"})
        t.state.bots.update({1, 2, 3})
        names = ["ann", "bot-1", "bot-2", "bot-3", "bot-4", "bot-5", "bot-6", "bot-7"]
        t.state.other_table = OtherTable(1, 2, "GS", ("bot-2", "bot-4", "bot-6", "bot-7"), (5, 1, 7, 2), 2,
                                         tuple((name, 11 * i) for i, name in enumerate(names)))
        t.state.room = {"name": "Rot", "rules": rules.to_dict(), "seats": []}
        screen = t.screen(width, height)
        for seat, name in ((1, "bot-1"), (2, "bot-5"), (3, "bot-3")):
            assert f"{seat} {name}" in screen  # whole: the tags give way first
        assert "partner_rotation=on" in screen
        assert "teams=2" not in screen and "target_score" not in screen  # what the rotation sets
        from unolan.client.tui.render import table_info
        said = "".join(text for _s, text, *_ in table_info(t.state))  # plain mode reads the same
        assert "partner_rotation=on" in said and "teams=2" not in said
        t.press("s")
        board = t.screen(width, height)
        for i, name in enumerate(names):
            assert f"{name} {11 * i}" in board, name


def test_a_tall_two_table_rooms_scores_panel_shows_every_players_rotation_total() -> None:
    """The side Scores panel of a tall terminal: the own table's teams, then all eight
    players' rotation totals, as the s scoreboard has them (not only the own table's)."""
    from unolan.client.tui.other_table import OtherTable
    from unolan.engine import Rules
    from unolan.engine.rotation import table_rules

    rules = Rules.parse("house partner_rotation=on")
    with table(f"rules: {table_rules(rules)}; hand 0: R5 G7; hand 1: B1 B2; hand 2: YS R9; hand 3: G1; "
               "discard: Y3 R3") as t:
        names = ["ann", "bot-1", "bot-2", "bot-3", "bot-4", "bot-5", "bot-6", "bot-7"]
        t.state.other_table = OtherTable(1, 2, "GS", ("bot-2", "bot-4", "bot-6", "bot-7"), (5, 1, 7, 2), 2,
                                         tuple((name, 100 + 11 * i) for i, name in enumerate(names)))
        screen = t.screen(160, 50)
        side = [line.split("│")[-1] for line in screen.splitlines() if "│" in line]
        start = next(i for i, line in enumerate(side) if "Rotation totals" in line)
        rows = [line.split() for line in side[start + 1:start + 9]]
        assert [(row[0], row[-1]) for row in rows] == [(n, str(100 + 11 * i)) for i, n in enumerate(names)]
        assert [line.split()[0] for line in side[start - 2:start]] == ["T1", "T2"]  # the own table's teams


def test_a_round_over_at_one_table_says_the_other_plays_it_and_what_the_totals_count() -> None:
    """The own table's round is over while the other plays it: the hint says the other
    table still plays (not that the next round is dealt), and the rotation totals say the
    last round they count (a round counts once both tables end it)."""
    from unolan.client.tui.other_table import OtherTable
    from unolan.engine import Rules
    from unolan.engine.rotation import table_rules

    rules = Rules.parse("house partner_rotation=on")
    names = ["ann", "bot-1", "bot-2", "bot-3", "bot-4", "bot-5", "bot-6", "bot-7"]
    with table(f"rules: {table_rules(rules)}; round: 3; phase: round_over; hand 0: -; hand 1: B1 B2; "
               "hand 2: YS R9; hand 3: G1; discard: Y3 R3") as t:
        totals = tuple((name, 10 * i) for i, name in enumerate(names))
        t.state.other_table = OtherTable(1, 3, "GS", ("bot-2", "bot-4", "bot-6", "bot-7"), (5, 1, 7, 2), 2,
                                         totals)
        t.state.totals_round = 2
        screen = t.screen(160, 50)
        assert "Round over: table 2 is still playing it" in screen
        assert "next round is dealt" not in screen
        assert "Rotation totals after round 2, both tables" in screen
        t.state.other_table = OtherTable(1, 3, None, ("bot-2", "bot-4", "bot-6", "bot-7"), (5, 1, 7, 2), None,
                                         totals)
        t.state.totals_round = 3
        screen = t.screen(160, 50)
        assert "Round over: the next round is dealt in a moment" in screen
        assert "Rotation totals after round 3, both tables" in screen


@pytest.mark.parametrize("language", ["en", "zh_Hant"])
def test_the_other_tables_panel_says_it_waits_for_the_own_table_to_end_the_round(language: str) -> None:
    """Fed a real rotation as seat 0 hears it: once the other table's round is over while
    the own one plays on, the panel says so (whole at 80x24), and says nothing before."""
    import random

    from unolan.client import i18n
    from unolan.client.tables import Tables
    from unolan.client.tui.other_table import OtherTable
    from unolan.engine import Rules, TwoTableRotation
    from unolan.server.match import on_wire

    i18n.set_language(language)
    rules = Rules.preset("house", partner_rotation=True, rounds=1)
    rotation, rng = TwoTableRotation(rules, seed="wait"), random.Random(3)
    tables, seq = Tables(0, rules.to_dict(), seq=0), 0
    own = rotation.locate(0)[0]

    def tell(events: list) -> OtherTable | None:
        nonlocal seq
        for event in map(on_wire, events):
            seq += 1
            tables.feed(seq, event.kind, event.data_for(0))
        return OtherTable.of(tables, {})

    panel = tell(rotation.start_events)
    assert panel is not None and panel.waits_for is None
    while rotation.tables[1 - own][1].phase != "round_over":  # the other table plays its round out
        seats, game = rotation.tables[1 - own]
        panel = tell(rotation.apply(rng.choice(rotation.legal_actions(seats[game.turn]))))
        assert panel is not None
        if rotation.tables[1 - own][1].phase != "round_over":
            assert panel.waits_for is None
    assert panel is not None and panel.waits_for == own and panel.turn is None
    with table("hand 0: R5 G7; hand 1: B1 B2; hand 2: YS R9; hand 3: G1; discard: Y3 R3") as t:
        t.state.other_table = panel
        words = {"en": f"round over: waits for table {own + 1}", "zh_Hant": f"本局已結束：等第 {own + 1} 桌"}
        assert words[language] in t.screen(80, 24)


def test_a_rounds_title_line_never_wraps_a_dash_alone() -> None:
    """``— round 10 · dealer: bob —`` is one cell wider than the log at 80 columns: it
    wraps before a word, its closing dash kept with the name; at every width likewise."""
    from unolan.client.tui.canvas import wrap
    from unolan.client.tui.state import describe

    with table("hand 0: R5 G7; hand 1: B1 B2; hand 2: YS R9; hand 3: G1; discard: Y3 R3") as t:
        start = {"dealer": 1, "players": 4, "hand_size": 7, "scores": [0] * 4, "draw_count": 80}
        for number in (9, 10, 12):
            t.state.on_event("round_started", {"round": number, **start})
        log = [line.split("│")[-1].strip() for line in t.screen(80, 24).splitlines()[2:7]]
        assert log == ["— round 9 · dealer: bob —", "— round 10 · dealer:", "bob —",
                       "— round 12 · dealer:", "bob —"], log
    line, _style = describe("round_started", {"round": 10, **start}, lambda s: "bob", 0)  # type: ignore[misc]
    for width in range(10, 30):
        lines = [part.strip() for part in wrap(line, width)]
        assert "—" not in lines and " ".join(lines) == line, (width, lines)


@pytest.mark.parametrize(("language", "direction"), [("zh_Hant", "↻ 順時針"), ("en", "↻ clockwise")])
def test_the_penalty_note_of_an_eight_player_room_is_read_whole_at_80x24(language: str, direction: str) -> None:
    """The other table's panel takes two rows of an 8-player room's table: the note of a
    stacked penalty (three lines in Chinese, four in English where the table had room)
    is shown whole under the pile all the same, and the direction with it."""
    from unolan.client import i18n
    from unolan.client.tui.other_table import OtherTable
    from unolan.client.tui.render import pile_info
    from unolan.engine import Rules
    from unolan.engine.rotation import table_rules

    i18n.set_language(language)
    rules = Rules.parse("house partner_rotation=on")
    with table(f"rules: {table_rules(rules)}; hand 0: R5 G7 RD2 B4; hand 1: B1 B2 B3; hand 2: YS R9; "
               "hand 3: G1; discard: Y3 GD2 RD2; pending: 4; stack: 2; turn: 1") as t:
        t.state.names.update({1: "bot-1", 2: "bot-5", 3: "bot-3"})
        t.state.other_table = OtherTable(1, 2, "GS", ("bot-2", "bot-4", "bot-6", "bot-7"), (5, 1, 7, 2), 2)
        rows = t.screen(80, 24).splitlines()
        assert any(row.startswith(("第 2 桌", "table 2")) for row in rows)  # the panel is there
        foot = next(i for i, row in enumerate(rows) if "╰───────╯" in row)
        x = get_cwidth(rows[foot][:rows[foot].index("╰")])  # the pile's column, in cells

        def at_pile(row: str) -> str:  # the words of a row that begin in the pile's column
            return "".join(m.group() for m in re.finditer(r"\S+(?: {1,2}\S+)*", row)
                           if x <= get_cwidth(row[:m.start()]) <= x + 2)

        under = "".join(at_pile(row).replace(" ", "") for row in rows[foot - 1:foot + 5])
        note = "".join(text for _s, text, *_ in pile_info(t.state)[1])
        assert note.startswith(("bot-1待罰", "Pending: 4 cards")) and note.replace(" ", "") in under, (note, under)
        assert direction in " ".join(rows[foot - 1:foot + 2])


def test_the_rules_line_names_the_preset_in_the_readers_language() -> None:
    from unolan.client import i18n

    i18n.set_language("zh_Hant")
    with table(FOUR) as t:
        screen = t.screen(100, 30)
        assert "家規" in screen.splitlines()[0]  # the header, as before
        assert "規則： 家規" in screen and "規則： house" not in screen


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("top", ["W", "G3"])  # a Wild's named color; a G3 after [Y3] [G3] → yellow
def test_the_pile_says_the_color_that_continues_whole_at_each_face_size(top: str, width: int, height: int) -> None:
    with table(f"hand 0: R5 Y7; hand 1: B1 B2; discard: R3 {top}; color: Y") as t:
        face = pile(t.screen(width, height))
        assert face.startswith(top), face
        assert re.search(r"→ ?yellow(?!\S)", face), face  # whole, inside the face's frame


def words_of(screen: str) -> str:
    """The words on ``screen`` joined across its lines (a wrapped sentence reads whole)."""
    return " ".join(" ".join(line.strip(" │").split()) for line in screen.splitlines())


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_false_uno_warning_and_a_multi_plays_question_are_read_whole(width: int, height: int) -> None:
    with table("hand 0: R6 G1 G2 B9; hand 1: B1 B2; discard: R3") as t:
        t.press("u")  # four cards: a false call, warned about first
        assert "Press u again to call anyway" in words_of(t.screen(width, height))
    with table("hand 0: R6 Y6 Y6 B6 G1; hand 1: B1 B2; discard: R3") as t:
        t.press("1", "space", "2", "space", "3", "space", "5", "space", "enter")  # G1 is the 4th
        assert "[R6] [Y6] [Y6] [B6]: which color continues?" in words_of(t.screen(width, height))


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_header_keeps_the_connection_status_beside_a_fairness_alarm(width: int, height: int) -> None:
    with table(FOUR) as t:
        t.state.room = {"name": "Friday night at the lab", "room": "r1"}
        t.state.deals[1] = "failed"
        line = t.screen(width, height).splitlines()[0]
        assert "● connected" in line and "⚠" in line and line.endswith("? keys")


def test_the_zh_hant_hint_line_keeps_its_keys_whole_at_80x24() -> None:
    from unolan.client import i18n

    i18n.set_language("zh_Hant")
    with table("hand 0: R6 Y6 G7; hand 1: B1 B2 B3; hand 2: YS R9; hand 3: G1; discard: Y3 R3") as t:
        t.press("2")  # Y6: only after R6, which its words say where they fit
        line = t.screen(80, 24).splitlines()[-1]
        assert line.startswith(" 輪到你") and line.endswith("? 按鍵"), line
        assert get_cwidth(line) <= 80


def test_below_the_minimum_size_the_screen_says_the_minimum() -> None:
    with table(FOUR) as t:
        screen = t.screen(60, 20)
        assert "needs at least 80x24" in screen and "Window too small..." not in screen


@pytest.mark.parametrize("width", [50, 80, 100])
def test_an_unreachable_server_is_explained_in_whole_words(width: int) -> None:
    import errno

    from unolan.client.session import _refusal
    from unolan.client.tui.render import lobby
    from unolan.client.tui.state import UIState

    state = UIState()
    reason = _refusal("192.0.2.2", 7455, OSError(errno.ECONNREFUSED, "Connection refused"))
    state.set_status("offline", reason)
    state.connecting("192.0.2.2:7455", 1)
    text = "".join(t for _s, t, *_ in lobby(state, width))
    lines = text.splitlines()
    assert all(get_cwidth(line) <= width for line in lines)
    words = " ".join(text.split())
    assert "is the server (uno host) running there" in words, words


def test_drawing_over_half_of_a_wide_character_blanks_its_other_half() -> None:
    from unolan.client.tui.canvas import Canvas

    canvas = Canvas(8, 1)
    canvas.put(0, 0, [("", "規則說")])  # cells 0-5
    canvas.put(1, 0, [("", "│")])  # the right half of 規: its left half goes
    canvas.put(4, 0, [("", "│")])  # the left half of 說: its right half goes
    row = "".join(text for _style, text, *_ in canvas.fragments())
    assert row == " │則│   " and get_cwidth(row) == 8


def test_a_tile_at_the_tables_right_edge_keeps_a_cell_off_the_border() -> None:
    position = "hand 0: R5 G7; hand 1: B1; hand 2: B3 R2; hand 3: G1 G2 G3 G4 G5 G6 G7; discard: R3"
    with table(position) as t:
        row = next(row for row in t.screen(80, 24).splitlines() if "7 cards" in row)
        assert "7 cards │" in row, row


def test_the_room_screens_title_wraps_between_words_at_80x24() -> None:
    from unolan.engine import Rules

    with table(BASIC) as t:
        t.state.view, t.state.my_seat = None, 0
        t.state.room = {"name": "ann's table", "room": "k3f9", "host": 0, "timer": 30, "started": False,
                        "rules": Rules.parse("house partner_rotation=on rounds=5").to_dict(),
                        "spectators": 0, "seats": [{"seat": i, "name": f"bot-{i}", "kind": "bot",
                                                    "ready": True, "state": "connected"} for i in range(8)]}
        rows = t.screen(80, 24).splitlines()
        assert any("partner_rotation=on" in row for row in rows), rows[:4]
        assert any("timer 30s" in row for row in rows)
