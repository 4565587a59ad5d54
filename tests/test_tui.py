"""The terminal UI: keys to commands and state to screen, built from engine positions.

Keys go through the real application's key bindings (``create_pipe_input`` and
``DummyOutput`` give it a terminal); the screen is the real layout written to an 80x24
grid, so these tests also check that everything fits the smallest supported terminal.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
import trio
from prompt_toolkit.application import Application
from prompt_toolkit.application.current import create_app_session, set_app
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.utils import get_cwidth
from unolan.client.tui.app import build_app
from unolan.client.tui.controller import Controller
from unolan.client.tui.form import FIELDS
from unolan.client.tui.render import lobby as render_lobby
from unolan.client.tui.run import run_async
from unolan.client.tui.state import Act, Command, Request, Say, UIState
from unolan.engine import (
    CallUno,
    Card,
    Catch,
    Challenge,
    ChooseColor,
    Color,
    Draw,
    Game,
    Pass,
    Phase,
    Play,
    Rules,
    parse_position,
)

SPECIAL = {
    "enter": Keys.ControlM, "esc": Keys.Escape, "left": Keys.Left, "right": Keys.Right,
    "up": Keys.Up, "down": Keys.Down, "space": " ", "c-c": Keys.ControlC,
}


@dataclass
class Table:
    game: Game
    state: UIState
    sent: list[Command]
    app: Application[int]
    seat: int

    def press(self, *keys: str) -> None:
        processor = self.app.key_processor
        for key in keys:
            special = SPECIAL.get(key)
            if special is None:
                processor.feed(KeyPress(key, key))
            else:
                processor.feed(KeyPress(special, "\r" if key == "enter" else str(special)))
        processor.process_keys()

    def screen(self, width: int = 80, height: int = 24) -> str:
        """The whole screen as plain text, laid out at ``width`` x ``height``."""
        self.app.render_counter += 1  # controls cache their text per render
        screen = Screen()
        self.app.layout.container.write_to_screen(
            screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None
        )
        screen.draw_all_floats()
        rows = []
        for y in range(height):
            row = screen.data_buffer[y]
            rows.append("".join(row[x].char for x in range(width)).rstrip())
        return "\n".join(rows)

    def actions(self) -> list[object]:
        return [c.action for c in self.sent if isinstance(c, Act)]

    def apply(self, *lines: str) -> None:
        """Apply actions (notation) to the game and feed this seat what it sees."""
        from unolan.engine import parse_action

        for line in lines:
            for event in self.game.apply(parse_action(line)):
                self.state.on_event(event.kind, dict(event.data_for(self.seat)))
        self.state.set_view(self.game.view(self.seat))


@contextmanager
def table(position: str, seat: int = 0, **state_kw: object) -> Iterator[Table]:
    game = parse_position(position)
    state = UIState(view=game.view(seat), name="ann", **state_kw)  # type: ignore[arg-type]
    state.names.update({s: n for s, n in enumerate(["ann", "bob", "cy", "di", "ed"]) if s != seat})
    state.set_status("connected")
    sent: list[Command] = []
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        app = build_app(state, Controller(state, sent.append))
        app.timeoutlen = None  # no multi-key timeout task: keys are processed synchronously
        with set_app(app):
            yield Table(game, state, sent, app, seat)


def play(seat: int, *cards: str, color: str | None = None, target: int | None = None,
         uno: bool = False) -> Play:
    return Play(seat, tuple(Card.parse(c) for c in cards), Color(color) if color else None,
                target, uno)


def faces(screen: str) -> list[tuple[str, bool]]:
    """The hand's card faces on ``screen`` in order: (notation, marked with ``*``)."""
    lines = screen.splitlines()
    mine = next(i for i, line in enumerate(lines) if "(you)" in line)
    first = next(i for i in range(mine + 1, len(lines)) if "╭" in lines[i])
    keys = [y for y in range(first, len(lines)) if re.fullmatch(r"[ \d▲]*\d[ \d▲]*", lines[y])]
    found = []
    for y in range(first, len(lines)):
        for m in re.finditer(r"│([A-Z0-9]+) *│", lines[y]):
            marked = lines[y - 1][m.start():m.start() + 2] == "╭*"
            row = next(k for k in keys if k > y)  # the number keys under this row of faces
            found.append((row, m.start(), m.group(1), marked))
    return [(card, marked) for _row, _x, card, marked in sorted(found)]


def hand_of(screen: str) -> list[str]:
    """The hand on ``screen``: its faces, or the first line of its labels (``1[R5] 2[G7]``)
    where the hand is drawn compact."""
    labels = re.search(r" Hand (↑?\d\*?\[.*)", screen)
    if labels:
        return re.findall(r"\d\*?\[(\w+)\]", labels.group(1))
    return [card for card, _marked in faces(screen)]


def assert_tiles_hold(rows: list[str], seats: list[int]) -> None:
    """Each seat's tile keeps its shape whatever its name: the name is cut to the tile, so
    the fan of card backs starts in the cell its seat number does; and the log's border
    stays in one column."""
    for seat in seats:
        y = next(i for i, row in enumerate(rows[1:-1], 1) if re.search(rf"(?<![\d:]){seat} \S", row))
        name_at = get_cwidth(rows[y][:re.search(rf"(?<![\d:]){seat} \S", rows[y]).start()])
        fans = [get_cwidth(rows[y + 1][:m.start()]) for m in re.finditer(r"▒[▒+]* \d", rows[y + 1])]
        assert name_at in fans, rows[y:y + 2]
    border = {get_cwidth(row[:row.rindex("│")]) for row in rows[1:12]}
    assert len(border) == 1, rows


def pile(screen: str) -> str:
    """The words on the pile's top card: the first large face (seven cells or more inside
    its frame) on ``screen``, row by row."""
    lines = screen.splitlines()
    for y, line in enumerate(lines):
        top = re.search(r"╭(─{7,})╮", line)
        if top:
            x, width = top.start(), len(top.group(0))
            rows = []
            for row in lines[y + 1:]:
                if row[x:x + 1] != "│":
                    break  # its bottom edge
                rows.append(row[x + 1:x + width - 1].strip())
            return " ".join(row for row in rows if row)
    return ""


BASIC = "hand 0: R5 G7 W4 R2; hand 1: B1 B2 B3; hand 2: YS R9; hand 3: G1 G2; discard: Y3 R3"


# -- the table on screen ----------------------------------------------------------------


def test_hand_shows_every_card_with_a_text_label_and_the_table_around_it() -> None:
    with table(BASIC) as t:
        screen = t.screen()
        assert faces(screen) == [("R2", False), ("R5", False), ("G7", False), ("W4", False)]  # by color
        keys = next(line for line in screen.splitlines() if "▲1" in line)
        assert re.findall(r"\d", keys) == ["1", "2", "3", "4"]  # the number keys under the faces
        # the playable cards stand one line higher than G7, which is not
        label_rows = {card: y for y, line in enumerate(screen.splitlines())
                      for card in re.findall(r"│([A-Z0-9]+) *│", line)}
        assert label_rows["R2"] == label_rows["R5"] == label_rows["W4"] == label_rows["G7"] - 1
        assert pile(screen).startswith("R3 3 red")  # the pile's face: notation, symbol, color word
        assert "↻ clockwise" in screen
        assert "▶ 0 ann (you)" in screen and "4 cards" in screen
        assert "1 bob" in screen and "3 cards" in screen
        assert "Your turn" in screen
        # colors are styles on top of the labels, not instead of them
        fragments = dict((text, style) for style, text, *_ in
                         __import__("unolan.client.tui.render", fromlist=["hand"]).hand(t.state))
        assert "class:card.red" in fragments["[R5]"] and "class:card.wild" in fragments["[W4]"]


def test_screen_fits_80x24_with_ten_players_and_a_big_hand() -> None:
    hands = "; ".join(f"hand {s}: G1 G2" for s in range(1, 10))
    big = "R1 R2 R3 R4 R5 R6 R7 R8 R9 G3 G4 G5 B1 B2 B3 B4 Y1 Y2 Y3 W W4 RS RR RD2"
    with table(f"hand 0: {big}; {hands}; discard: Y9 R0; pending: 0") as t:
        screen = t.screen()
        print(screen)
        assert "▶ 0 ann (you)" in screen and "9 seat 9" in screen  # every seat
        assert pile(screen).startswith("R0 0 red")
        assert "[RD2]" in screen and "[R1]" in screen  # the whole hand as labels, wrapped
        assert "Your turn" in screen


# -- playing ------------------------------------------------------------------------------


def test_number_key_then_enter_plays_that_card() -> None:
    with table(BASIC) as t:
        t.press("2", "enter")
        assert t.actions() == [play(0, "R5")]


def test_arrows_move_the_cursor_and_enter_plays() -> None:
    with table(BASIC) as t:
        t.press("right", "right", "left", "enter")
        assert t.actions() == [play(0, "R5")]


def test_an_illegal_card_is_refused_with_a_message_and_nothing_is_sent() -> None:
    with table(BASIC) as t:
        t.press("3", "enter")  # G7 on a red 3
        assert t.sent == []
        assert "[G7] does not match [R3] on red" in t.screen()


def test_not_your_turn_says_whose_turn_it_is() -> None:
    with table(BASIC, seat=1) as t:
        t.press("1", "enter")
        assert t.sent == []
        assert "not your turn: it is ann's turn" in t.screen()


def test_wild_opens_the_color_picker_and_a_color_key_plays_it() -> None:
    with table(BASIC) as t:
        t.press("4", "enter")
        assert t.sent == []
        screen = t.screen()
        assert "Choose a color" in screen and "yellow" in screen
        t.press("b")
        assert t.actions() == [play(0, "W4", color="B")]
        assert t.state.picker is None


def test_color_picker_by_arrows_and_escape_cancels() -> None:
    with table(BASIC) as t:
        t.press("4", "enter", "esc")
        assert t.state.picker is None and t.sent == []
        t.press("enter", "down", "down", "enter")
        assert t.actions() == [play(0, "W4", color="G")]


def test_escape_closes_the_round_s_summary_as_its_footer_says() -> None:
    with table("hand 0: R5; hand 1: B1 B2; hand 2: G4 G5; discard: R3") as t:
        t.apply("0 play R5")  # the round is over: its summary opens by itself
        assert t.state.view.phase is Phase.ROUND_OVER
        t.state.show_scores = True
        assert "s or Esc closes" in t.screen()
        t.press("esc")
        assert not t.state.show_scores and "s or Esc closes" not in t.screen()


def test_multi_play_marks_cards_then_names_the_continuing_color() -> None:
    with table("hand 0: R5 G5 B7 Y1; hand 1: B1; hand 2: B2; discard: R3") as t:
        t.press("1", "space", "2", "space")  # display order: R5 G5 B7 Y1? sorted: R5 Y1 G5 B7
        hand = t.state.hand()
        assert hand == ["R5", "Y1", "G5", "B7"]
        t.press("esc", "1", "space", "3", "space")
        assert faces(t.screen()) == [("R5", True), ("Y1", False), ("G5", True), ("B7", False)]
        t.press("enter")
        assert "[R5] [G5]: which color continues?" in t.screen()
        t.press("g")
        assert t.actions() == [play(0, "R5", "G5", color="G")]


def test_draw_then_keep_or_play_the_drawn_card() -> None:
    with table(BASIC) as t:
        t.press("d")
        assert t.actions() == [Draw(0)]
    drawn = "hand 0: R5 G7 G9; hand 1: B1; discard: G3; phase: drawn; drawn: G9"
    with table(drawn) as t:
        assert t.state.hand()[t.state.cursor] == "G9"  # the cursor jumps to the drawn card
        assert "You drew [G9]: Enter plays it · k keeps it" in t.screen()
        t.press("k")
        assert t.actions() == [Pass(0)]
    with table(drawn) as t:
        t.press("enter")
        assert t.actions() == [play(0, "G9")]
    with table(drawn) as t:
        t.press("1", "enter")  # R5 is not the drawn card
        assert t.sent == []
        assert "after drawing you may play only [G9]" in t.screen()


def test_seven_swap_opens_the_seat_picker() -> None:
    with table("rules: party; hand 0: R7 G1; hand 1: B1; hand 2: B2 B4; discard: R3") as t:
        t.press("1", "enter")
        screen = t.screen()
        assert "Choose a player for [R7]" in screen and "cy" in screen
        t.press("2")
        assert t.actions() == [play(0, "R7", target=2)]


def test_targeted_draw_two_and_forced_swap_pick_a_seat() -> None:
    position = "rules: all-wild; hand 0: WT2 WX W; hand 1: W; hand 2: W W; discard: W"
    with table(position) as t:
        hand = t.state.hand()
        t.press(str(hand.index("WT2") + 1), "enter", "down", "enter")
        assert t.actions() == [play(0, "WT2", target=2)]
    with table(position) as t:
        t.press(str(t.state.hand().index("WX") + 1), "enter", "1")
        assert t.actions() == [play(0, "WX", target=1)]


def test_first_card_wild_asks_for_its_color() -> None:
    with table("hand 0: R5; hand 1: B1; discard: W; phase: color") as t:
        t.state.set_view(t.game.view(0))
        Controller(t.state, t.sent.append).first_color()
        t.press("y")
        assert t.actions() == [ChooseColor(0, Color.YELLOW)]


# -- the races: challenge, UNO, catch, jump-in ----------------------------------------------


def test_wild_draw_four_on_you_offers_the_challenge() -> None:
    position = ("hand 0: R5 G7; hand 1: B1 W4; hand 2: B3; discard: R3 W4; color: B; turn: 0;"
                " pending: 4; challengeable: 1 bluff")
    with table(position) as t:
        screen = t.screen()
        assert screen.splitlines()[-1] == (" 4 cards (Wild Draw Four, may be challenged) on you:"
                                           " d draws them · c challenge")
        t.press("c")
        assert t.actions() == [Challenge(0)]


def test_u_calls_uno_on_one_card_and_the_banner_asks_for_it() -> None:
    with table("hand 0: R5; hand 1: B1 B2; hand 2: G4 G5; discard: G3; turn: 1") as t:
        assert "ONE CARD: press u to call UNO!" in t.screen()
        t.press("u")
        assert t.actions() == [CallUno(0)]


def test_u_on_two_cards_calls_uno_with_the_next_play() -> None:
    with table("hand 0: R5 G7; hand 1: B1 B2; discard: R3") as t:
        t.press("u")
        assert t.sent == [] and t.state.uno_armed
        assert "UNO will be called with this play" in t.screen()
        t.press("1", "enter")
        assert t.actions() == [play(0, "R5", uno=True)]
        assert not t.state.uno_armed


def test_an_armed_uno_call_says_this_play_only_when_a_play_can_leave_one_card() -> None:
    """Two cards, none playable (or a penalty to take): armed, the call waits for a
    later play; "with this play" would promise what no play of this turn can do."""
    for scenario in ("hand 0: G9 GS; hand 1: B1 B2; discard: Y5",
                     "hand 0: R5 G7; hand 1: B1 W4; discard: R3 W4; color: R; pending: 4; challengeable: 1"):
        with table(scenario) as t:
            t.press("u")
            assert t.state.uno_armed
            screen = t.screen()
            assert "UNO will be called with this play" not in screen
            assert "UNO will be called with your next play that leaves you one card" in screen


def test_an_armed_uno_call_goes_with_a_draw_and_says_so() -> None:
    """u on two cards arms the call for the next play to one card; a draw makes the hand
    three, which no play takes to one: the call goes, and the player is told."""
    with table("hand 0: B5 G7; hand 1: B1 B2; draw: Y9 Y8; discard: R3") as t:
        t.press("u")
        assert t.state.uno_armed
        t.press("d")
        assert t.actions() == [Draw(0)] and t.state.uno_armed  # until the table answers
        t.apply("0 draw")
        assert not t.state.uno_armed and "UNO call cancelled" in t.screen()
        assert "UNO will be called" not in t.screen()


def test_an_armed_uno_call_on_a_multi_play_to_one_card_stays_while_the_table_moves() -> None:
    """Three cards, two of them a pair that leaves one: in turn u arms the call, and it
    stays armed through new views that leave the hand as it is (each event of the other
    table of a two-table room brings one), then rides on the pair."""
    with table("hand 0: R5 R5 G7; hand 1: B1 B2; hand 2: Y1 Y2; discard: R3") as t:
        t.press("u")
        assert t.state.uno_armed
        for _i in range(3):
            t.state.set_view(t.game.view(0))
        assert t.state.uno_armed and "UNO will be called with this play" in t.screen()
        t.press("1", "space", "2", "space", "enter")
        assert t.actions() == [play(0, "R5", "R5", color="R", uno=True)] and not t.state.uno_armed


def test_x_catches_the_player_who_forgot_uno_and_the_banner_shows_it_at_once() -> None:
    with table("hand 0: R5 G7; hand 1: B1; hand 2: G4 G5; discard: R3; turn: 2; catchable: 1") as t:
        screen = t.screen()
        assert "CATCH bob: press x!" in screen
        assert "NO UNO!" in screen
        t.press("x")
        assert t.actions() == [Catch(0, 1)]


def test_catch_with_two_candidates_asks_whom() -> None:
    position = "hand 0: R5 G7; hand 1: B1; hand 2: G4; hand 3: G1 G2; discard: R3; turn: 3; catchable: 1 2"
    with table(position) as t:
        t.press("x")
        assert "Catch whom?" in t.screen()
        t.press("2")
        assert t.actions() == [Catch(0, 2)]


def test_j_jumps_in_with_the_identical_card_out_of_turn() -> None:
    with table(BASIC, seat=2) as t:
        assert "JUMP IN" not in t.screen()  # YS R9: nothing identical to R3
    with table("hand 0: R5 G7; hand 1: B1 B2; hand 2: YS R3; discard: Y3 R3", seat=2) as t:
        assert "JUMP IN: j plays your [R3]" in t.screen()
        t.press("j")
        assert t.actions() == [play(2, "R3")]


def test_jump_in_banner_appears_the_moment_the_card_lands() -> None:
    with table("hand 0: R5 G7; hand 1: B1 B5; hand 2: G5 R5; discard: R3", seat=2) as t:
        assert "JUMP IN" not in t.screen()
        t.apply("0 play R5")  # now bob's turn, and cy holds the other red 5
        assert "JUMP IN: j plays your [R5]" in t.screen()
        assert "ann played [R5]" in t.screen()


def test_j_without_an_identical_card_explains() -> None:
    with table(BASIC, seat=1) as t:
        t.press("j")
        assert t.sent == []
        assert "no jump-in: you need a card identical to [R3]" in t.screen()


def test_j_holding_the_identical_card_gives_the_engines_reason() -> None:
    """An opening Draw Two: the player holds its twin, yet no jump-in is allowed on the
    first card's penalty, and that is what the screen says (from the engine's rules)."""
    opening = "hand 0: R5 G7; hand 1: GD2 B2; hand 2: G4; hand 3: G1 G2; discard: GD2; turn: 2; served: yes"
    with table(opening, seat=1) as t:
        t.press("j")
        assert t.sent == []
        assert "no jump-in: no jump-in on the first card's penalty" in t.screen()
    with table(opening, seat=1) as t:
        t.press("1", "enter")  # the [GD2] itself, out of turn
        assert t.sent == []
        assert "no jump-in on the first card's penalty" in t.screen()
    pending = "hand 0: R5 G7; hand 1: GD2 B2; hand 2: G4; hand 3: G1; discard: R3 GD2; turn: 2; pending: 2"
    with table(pending, seat=1) as t:
        t.press("j")
        assert "no jump-in: no jump-in while a penalty is pending" in t.screen()


def test_enter_on_a_card_that_cannot_answer_a_penalty_says_why() -> None:
    with table("hand 0: R5 R2; hand 1: B1; hand 2: B2; discard: R3 RD2; pending: 2") as t:
        t.press("1", "enter")
        assert t.sent == []
        assert "a penalty is pending: only a penalty card may answer it, not [R2]" in t.screen()


# -- what the server says ------------------------------------------------------------------


def test_server_errors_are_messages_not_tracebacks() -> None:
    with table(BASIC) as t:
        t.state.on_error("too_late", "the table moved on before your jump-in arrived")
        assert "Too late: the table moved on" in t.screen()
        t.state.on_error("misplay", "R5 does not match")
        assert "R5 does not match" in t.screen()


def test_errors_expire() -> None:
    now = [0.0]
    with table(BASIC, clock=lambda: now[0]) as t:
        t.press("3", "enter")
        assert "does not match" in t.screen()
        now[0] = 10.0
        assert "does not match" not in t.screen()


def test_log_says_what_each_player_did() -> None:
    with table("hand 0: R5 G7; hand 1: B1 R7; hand 2: G4 W; discard: R3") as t:
        t.apply("0 play R5", "1 play R7", "2 play W B")
        screen = t.screen()
        assert "you played [R5]" in screen
        assert "bob played [R7]" in screen
        assert "cy played [W] → blue" in screen
        assert "bob UNO" not in screen


def test_turn_timer_counts_down() -> None:
    now = [100.0]
    with table(BASIC, clock=lambda: now[0]) as t:
        t.state.timer = 30
        t.state.on_event("turn", {"seat": 0, "direction": 1, "phase": "play", "pending": 0})
        assert "⏱  30s for you" in t.screen()
        now[0] += 26.5
        assert "⏱   4s for you" in t.screen()


def test_connection_states_and_reconnecting_are_shown() -> None:
    with table(BASIC) as t:
        t.state.on_event("connection", {"seat": 1, "state": "autopilot"})
        t.state.set_status("reconnecting", "server lost, retrying")
        screen = t.screen()
        assert "autopilot" in screen
        assert "reconnecting: server lost, retrying" in screen


def test_round_over_shows_the_scoreboard() -> None:
    with table("hand 0: R5; hand 1: B1 B2; hand 2: G4 G5; discard: R3; uno: 0") as t:
        t.apply("0 play R5")
        screen = t.screen()
        assert "Round 1: you won +" in screen
        assert "[B1] [B2]" in screen
        t.press("s")
        assert "Round 1: you won" not in t.screen()
        assert "you won the round" in t.screen()


def test_help_overlay_lists_the_keys_and_fits() -> None:
    with table(BASIC) as t:
        t.press("?")
        screen = t.screen()
        for key in ("Enter", "Space", "call UNO", "catch", "jump in", "challenge", "Ctrl-C"):
            assert key in screen
        t.press("esc")
        assert "call UNO" not in t.screen()


def test_chat_line_is_sent_and_shown() -> None:
    with table(BASIC) as t:
        t.press("t")
        assert t.state.input_mode == "chat"
        t.app.current_buffer.insert_text("gg all")
        t.app.current_buffer.validate_and_handle()
        assert t.sent == [Say("gg all")]
        t.state.on_event("chat", {"seat": 1, "name": "bob", "text": "nice"})
        assert "bob: nice" in t.screen()


def test_spectator_sees_the_table_and_cannot_play() -> None:
    game = parse_position(BASIC)
    state = UIState(view=game.view(None))
    sent: list[Command] = []
    Controller(state, sent.append).play()
    assert sent == []


# -- the lobby ----------------------------------------------------------------------------


@contextmanager
def lobby() -> Iterator[Table]:
    state = UIState(name="ann", address="10.0.0.2:7117")
    state.set_status("connected")
    state.rooms = [
        {"room": "r1", "name": "bob's table", "preset": "house", "seats": 4, "players": 2,
         "spectators": 0, "started": False, "password": False},
        {"room": "r2", "name": "fast", "preset": "party", "seats": 3, "players": 3,
         "spectators": 1, "started": True, "password": False},
    ]
    sent: list[Command] = []
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        app = build_app(state, Controller(state, sent.append))
        app.timeoutlen = None  # no multi-key timeout task: keys are processed synchronously
        with set_app(app):
            yield Table(Game(), state, sent, app, 0)


def test_lobby_lists_rooms_and_joins_or_spectates() -> None:
    with lobby() as t:
        screen = t.screen()
        assert "bob's table" in screen and "2/4 players" in screen and "started" in screen
        t.press("enter")
        assert t.sent == [Request("join", {"room": "r1", "role": "player"})]
        t.press("down", "enter")
        assert "spectate it" in t.screen()
        t.press("s")
        assert t.sent[-1] == Request("join", {"room": "r2", "role": "spectator"})


def test_lobby_create_room_form() -> None:
    with lobby() as t:
        t.press("c")
        assert "Create a room" in t.screen()
        t.press("down", "right")  # preset: house -> party
        t.press("down", "left")  # seats 4 -> 3
        t.press("down", "down", "down", "down", "right", "right")  # stacking: progressive -> same -> mixed
        t.press("enter")
        assert t.sent == [Request("create_room", {
            "name": "ann's table", "preset": "party", "seats": 3, "timer": 0,
            "options": {"stacking": "mixed"}, "password": None})]


def in_room(t: Table, *seats: dict[str, object]) -> None:
    """Seat this player (seat 0, the host) in room r9 with ``seats``."""
    t.state.my_seat = 0
    t.state.set_seats({
        "seq": 3, "room": "r9", "name": "ann's table", "host": 0, "spectators": 0,
        "started": False, "rules": {"preset": "house"}, "timer": 0, "seats": list(seats)})


def test_room_screen_adds_bots_and_starts() -> None:
    with lobby() as t:
        in_room(t, {"seat": 0, "name": "ann", "kind": "human", "ready": True, "state": "connected"},
                {"seat": 1, "name": "bot-1", "kind": "bot", "ready": True, "state": "connected"},
                {"seat": 2, "name": None, "kind": "empty", "ready": False, "state": "empty"})
        screen = t.screen()
        assert "bot-1" in screen and "(empty)" in screen and "host" in screen
        t.press("b", "-", "enter")
        assert t.sent == [Request("add_bot"), Request("remove_bot", {"seat": 1}), Request("start")]


# -- the guest run: Trio networking inside prompt_toolkit's asyncio loop -------------------


def _run_with_keys(keys: str, network) -> int:
    async def main() -> int:
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            inp.send_text(keys)
            return await run_async(UIState(view=parse_position(BASIC).view(0)), network)

    return asyncio.run(main())


def test_keys_reach_the_trio_side_through_the_channel() -> None:
    got: list[Command] = []

    async def network(state: UIState, commands: trio.MemoryReceiveChannel[Command], invalidate) -> None:
        state.set_status("connected")
        invalidate()
        got.append(await commands.receive())  # then return: the app closes with the guest

    assert _run_with_keys("2\r", network) == 0
    assert got == [Act(play(0, "R5"))]


def test_ctrl_c_cancels_the_guest_and_trio_finishes_first() -> None:
    seen: list[str] = []

    async def network(state: UIState, commands: trio.MemoryReceiveChannel[Command], invalidate) -> None:
        try:
            await trio.sleep_forever()
        except trio.Cancelled:
            seen.append("cancelled")
            raise

    assert _run_with_keys("\x03", network) == 0
    assert seen == ["cancelled"]


def test_a_crash_on_the_network_side_closes_the_ui_and_is_reported() -> None:
    """The error comes out of the UI as it is, once the terminal is restored (a command's
    edge catches the ordinary ones with except*)."""

    async def network(state: UIState, commands: trio.MemoryReceiveChannel[Command], invalidate) -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        _run_with_keys("", network)


# -- what the table says -----------------------------------------------------------------


def test_chatting_on_your_turn_keeps_the_turn_prompt() -> None:
    with table(BASIC) as t:
        t.press("t")
        t.app.current_buffer.insert_text("one sec")
        t.app.current_buffer.validate_and_handle()
        assert t.sent == [Say("one sec")]
        hint = t.screen().splitlines()[-1]
        assert "Your turn" in hint and "waiting" not in hint


def test_pasted_escape_sequences_are_cleaned_and_never_crash_the_ui() -> None:
    with table(BASIC) as t:
        t.press("t")
        # Unbracketed, ESC [ 3 1 m reaches the key parser as a "mouse event": dropped.
        t.app.key_processor.feed(KeyPress(Keys.Vt100MouseEvent, "\x1b[31m"))
        t.app.key_processor.process_keys()
        t.app.current_buffer.insert_text("red \x1b[31malert\x1b[0m\tnow\x07")
        t.app.current_buffer.validate_and_handle()
        assert t.sent == [Say("red alert now")]


def test_a_round_over_scoreboard_shows_every_card_and_s_shows_it_in_the_next_round() -> None:
    twelve = "R1 R2 R3 R4 R6 R7 R8 R9 G1 G2 G3 G4"
    with table(f"hand 0: R5; hand 1: {twelve}; hand 2: G5; discard: R3; uno: 0") as t:
        t.apply("0 play R5")
        screen = t.screen()
        assert "Round 1: you won +" in screen
        for card in twelve.split():
            assert f"[{card}]" in screen
        t.state.on_event("round_started", {"round": 2, "dealer": 1, "players": 3, "hand_size": 7})
        t.state.set_view(Game(players=3, seed=4).view(0))  # the next round is dealt
        screen = t.screen()
        assert "left in hand" not in screen and "[G4]" not in screen  # the new table, uncovered
        assert "s shows round 1's summary again" in screen
        t.press("s")  # the last round's hands, not an empty column
        assert "Last round (1): you won" in t.screen() and "[G4]" in t.screen()
        t.press("s")
        assert "left in hand" not in t.screen()


def test_messages_about_a_table_that_moved_on_go() -> None:
    with table("hand 0: R5 G7 R1; hand 1: B1 R7 B3; hand 2: G4 Y5; discard: R3") as t:
        t.press("3", "enter")  # G7 on a red 3
        assert "does not match" in t.screen()
        t.apply("0 play R5")  # the table moves
        assert "does not match" not in t.screen()


def test_uno_armed_shows_in_the_banner_only_while_it_is_true() -> None:
    with table("hand 0: R5 R6; hand 1: B1 B2; hand 2: G4 G5; discard: R3") as t:
        t.press("u")
        assert "UNO will be called with this play" in t.screen()
        assert "UNO will be called with your next play" not in t.screen()
        t.press("1", "enter")
        assert t.actions() == [play(0, "R5", uno=True)]
        t.apply("0 play R5 uno")
        assert "UNO will be called" not in t.screen()


def test_no_stacking_hint_without_a_card_that_stacks() -> None:
    with table("hand 0: R7 B2; hand 1: B1 B5; discard: R5 RD2; pending: 2; turn: 0") as t:
        hint = t.screen().splitlines()[-1]
        assert "2 cards (Draw Two) on you: d draws them" in hint and "stacks" not in hint
    with table("hand 0: GD2 B2; hand 1: B1 B5; discard: R5 RD2; pending: 2; turn: 0") as t:
        assert "Enter stacks a penalty card" in t.screen()


def test_a_stacked_penalty_keeps_every_key_of_its_hint_at_80_columns() -> None:
    """The long words of a stacked penalty give way to its count in the hint line (they
    stay under the pile), never the keys: d draws, Enter stacks."""
    stacked = "hand 0: YD2 B2; hand 1: B1 B5; discard: R5 RD2 GD2; pending: 4; stack: 2; turn: 0"
    with table(stacked) as t:
        screen = t.screen()
        hint = screen.splitlines()[-1]
        assert "4 cards on you: d draws them · Enter stacks a penalty card" in hint, hint
        assert "…" not in hint
        assert "Pending: 4 cards (2 stacked, the" in screen  # the words, under the pile


def test_the_pending_penalty_is_said_as_cards_and_what_they_are_never_as_plus_four() -> None:
    """Two stacked Draw Twos are 4 cards, not "+4" (the Wild Draw Four's face, whose
    challenge key c would be refused); a Wild Draw Four that may be challenged says so.
    The table's hint and pile line and the plain mode's table lines all say it."""
    from unolan.client.tui.plain import PlainState, PlainUI

    stacked = "hand 0: R7 B2; hand 1: B1 B5; discard: R5 RD2 GD2; pending: 4; stack: 2; turn: 0"
    with table(stacked) as t:
        screen = t.screen()
        assert "4 cards (2 stacked, the last Draw Two) on you: d draws them" in screen
        assert "Pending: 4 cards (2 stacked, the" in screen  # (wrapped under the pile)
        assert "+4" not in screen and "challenge" not in screen
    out: list[str] = []
    state = PlainState(out.append, view=parse_position(stacked).view(0))
    PlainUI(state, Controller(state, lambda command: None)).refresh()
    assert "Pending: 4 cards (2 stacked, the last Draw Two) for you" in " ".join(out)
    assert not any("+4" in line for line in out)
    four = "hand 0: R7 B2; hand 1: B1 B5; discard: R5 W4; color: R; pending: 4; turn: 0; challengeable: 1 fair"
    with table(four) as t:
        assert "4 cards (Wild Draw Four, may be challenged) on you" in t.screen()


def test_a_card_playable_only_in_a_multi_play_is_not_shown_as_playable_alone() -> None:
    from unolan.client.tui.render import hand

    with table("hand 0: R7 B7 G2; hand 1: B1 B2; discard: R5; turn: 0") as t:
        styles = {text: style for style, text, *_ in hand(t.state)}
        assert "class:playable " in styles["[R7]"] + " "
        assert "class:playable.along" in styles["[B7]"] and "class:playable " not in styles["[B7]"] + " "
        assert "class:unplayable" in styles["[G2]"]
        assert t.state.hand() == ["R7", "G2", "B7"]
        t.press("3", "enter")
        assert t.sent == []
        assert "[B7] cannot be played alone, only after [R7]" in t.screen()
        t.press("1", "space", "3", "space")
        screen = t.screen()  # both marked, the cursor on [B7]: the advice was taken, and goes
        assert "cannot be played alone" not in screen and "only after" not in screen
        assert "[B7] blue 7 ·" in screen
        t.press("enter")
        assert t.state.picker is not None  # which color continues: red or blue


def test_wide_and_combining_names_keep_the_columns() -> None:
    with table("hand 0: R5; hand 1: B1 B2; hand 2: G4 G5 G6; discard: R3") as t:
        t.state.names[0] = "安娜贝尔"  # eight cells wide
        t.state.names.update({1: "Zoë Zoe\u0308", 2: "陈小明陈小明陈小明"})
        rows = t.screen().splitlines()
        assert any("安娜贝尔 (you)" in row for row in rows)  # this player's line has the room
        assert_tiles_hold(rows, [1, 2])


def test_the_log_wraps_between_words_never_inside_a_card_label() -> None:
    with table(BASIC) as t:
        for _ in range(3):
            t.state.on_event("played", {"seat": 1, "cards": ["BS", "GS", "RS", "YS"], "color": "G",
                                        "target": None, "jump_in": False})
        screen = t.screen()
        assert "bob played [BS] [GS]" in screen
        for line in screen.splitlines():
            assert not re.search(r"\[[A-Z0-9]*$", line.rstrip()), line  # no "[BS" / "]"


def test_the_header_fits_100_columns_with_a_long_status() -> None:
    with table(BASIC) as t:
        t.state.room = {"name": "Friday night at the lab", "room": "r1"}
        t.state.set_status("reconnecting", "connection lost: the server closed the connection"
                                           " while we were in the middle of something long")
        line = t.screen(width=100).splitlines()[0]
        assert line.endswith("? keys") and "reconnecting: connection lost" in line and "…" in line


@pytest.mark.parametrize("width", [80, 100])
@pytest.mark.parametrize("reason", ["the server closed the connection",
                                    "connection lost: Connection reset by peer"])
def test_the_header_shows_the_whole_reason_for_reconnecting(width: int, reason: str) -> None:
    """Not connected, why comes first: the room's name, the round and the address give
    way before the reason is cut, and the keys hint stays."""
    with table(BASIC) as t:
        t.state.room = {"name": "Friday night at the lab", "room": "r1"}
        t.state.set_status("reconnecting", reason)
        line = t.screen(width=width).splitlines()[0]
        assert f"reconnecting: {reason}" in line and line.endswith("? keys")
        t.state.set_status("connected", "127.0.0.1:7117")
        assert "Friday night at the lab" in t.screen(width=width).splitlines()[0]


def test_the_header_while_reconnecting_keeps_the_rooms_name_at_80_columns() -> None:
    with table(BASIC) as t:
        t.state.room = {"name": "ann's table", "room": "r1"}
        t.state.set_status("reconnecting", "the server closed the connection")
        line = t.screen(80, 24).splitlines()[0]
        assert "ann's table" in line and "reconnecting: the server closed the connection" in line
        assert line.endswith("? keys")


def test_an_autopilot_seat_is_taken_back_with_b() -> None:
    with table(BASIC) as t:
        t.state.on_event("connection", {"seat": 0, "state": "autopilot"})
        screen = t.screen()
        assert "press b to take your seat back" in screen
        assert "you are on autopilot" in screen
        t.press("b")
        assert t.sent == [Request("ready", {"ready": True})]


def test_after_the_match_back_to_the_room_or_the_lobby() -> None:
    with table("hand 0: R5; hand 1: B1 B2; discard: R3; uno: 0; scores: 499 0") as t:
        t.state.set_seats({"seq": 1, "room": "r1", "name": "den", "host": 0, "spectators": 0,
                           "started": False, "rules": {"preset": "house"}, "timer": 0, "seats": [
                               {"seat": 0, "name": "ann", "kind": "human", "ready": False, "state": "connected"},
                               {"seat": 1, "name": "bob", "kind": "human", "ready": False, "state": "connected"}]})
        t.apply("0 play R5")
        assert t.state.view.phase == "match_over"
        assert "Enter back to the room" in t.screen()
        t.press("enter")
        assert t.state.view is None and t.state.room is not None
        assert "Room den" in t.screen()
        t.state.set_view(t.game.view(0))  # later events about the old match do not bring it back
        assert t.state.view is None
        t.press("esc")
        assert t.sent == [Request("leave")]


@pytest.mark.parametrize("finished", [False, True])
def test_a_spectator_leaves_for_the_lobby(finished: bool) -> None:
    game = parse_position("hand 0: R5; hand 1: B1 B2; discard: R3; uno: 0; scores: 499 0")
    if finished:
        game.apply(play(0, "R5"))
    state = UIState(view=game.view(None))
    sent: list[Command] = []
    Controller(state, sent.append).cancel()
    assert sent == [Request("leave")] and state.view is None


def test_the_room_screen_for_a_spectator_and_its_rules() -> None:
    with lobby() as t:
        t.state.set_seats({
            "seq": 3, "room": "r9", "name": "den", "host": 0, "spectators": 1, "started": False,
            "rules": Rules.parse("house stacking=same teams=2").to_dict(), "timer": 0, "seats": [
                {"seat": 0, "name": "bob", "kind": "human", "ready": True, "state": "connected"},
                {"seat": 1, "name": "greedy1", "kind": "human", "ready": True, "state": "connected",
                 "bot": True}]})
        screen = t.screen()
        assert "house stacking=same teams=2" in screen
        assert re.search(r"greedy1 +bot · ready", screen)
        assert "You are watching" in screen and "Space ready" not in screen
        t.press("space")
        assert t.sent == [] and "spectators do not sit" in t.screen()


def test_the_create_form_offers_every_option_with_its_default() -> None:
    from unolan.engine import OPTIONS

    with lobby() as t:
        t.press("c")
        seen = ""
        for _ in range(len(OPTIONS) + 4):
            seen += t.screen()
            t.press("down")
        for option in OPTIONS:
            assert option.name.replace("_", " ") in seen, option.name
        assert "house: on" in seen and "house: progressive" in seen  # the preset's defaults
        # a number typed, a value stepped, a mix the seats cannot play refused with the reason
        form = t.state.form
        form.field_index = FIELDS.index("target_score")
        t.press("e")
        t.app.current_buffer.text = "1234"
        t.app.current_buffer.validate_and_handle()
        form.field_index = FIELDS.index("teams")
        t.press("right", "right")  # 0 -> 2 -> 3
        assert form.options == {"target_score": 1234, "teams": 3}
        assert "4 players cannot sit as 3 teams" in t.screen()
        t.press("enter")
        assert t.sent == [] and "Not created" in t.screen()
        t.press("left")  # teams 2
        t.press("enter")
        assert t.sent == [Request("create_room", {"name": "ann's table", "preset": "house",
                                                  "seats": 4, "timer": 0,
                                                  "options": {"target_score": 1234, "teams": 2},
                                                  "password": None})]


def test_the_lobby_says_it_is_still_trying_and_why() -> None:
    now = [0.0]
    state = UIState(name="ann", address="10.0.0.9:7117", clock=lambda: now[0])
    state.connecting("10.0.0.9:7117", 0)
    now[0] = 4.0
    text = "".join(t for _, t, *_ in render_lobby(state, 200))
    assert "Connecting to 10.0.0.9:7117… no answer yet after 4 s" in text
    assert "No rooms yet" not in text
    state.set_status("offline", "10.0.0.9:7117 accepted the connection but did not answer "
                                "within 10 seconds: is it an unolan server (uno host)?")
    state.connecting("10.0.0.9:7117", 1)
    text = "".join(t for _, t, *_ in render_lobby(state, 200))
    assert "still trying (attempt 2)" in text and "did not answer within 10 seconds" in text
    assert "No rooms yet" not in text


def test_a_two_table_room_shows_the_other_table_in_a_panel_at_80x24() -> None:
    from unolan.client.tui.other_table import OtherTable

    with table(BASIC) as t:
        assert "table 2" not in t.screen()  # a room of one table: no panel
        t.state.other_table = OtherTable(1, 3, "GS", ("eve", "fay", "gus", "hal"), (5, 1, 7, 2), 2)
        screen = t.screen()
        assert "table 2 · round 3 · top [GS] · cards in hand:" in screen  # what the numbers are
        assert " eve 5   fay 1  ▶gus 7   hal 2" in screen
        assert "R3" in pile(screen) and "red" in pile(screen)  # the own table as ever
        assert hand_of(screen) == ["R2", "R5", "G7", "W4"]
        # a wild on top there: the color its player named, as the own table would say it
        t.state.other_table = OtherTable(1, 3, "W4", ("eve", "fay", "gus", "hal"), (5, 1, 7, 2), 2,
                                         color="B")
        assert "table 2 · round 3 · top [W4] blue · cards in hand:" in t.screen()
        # both tables' rounds over: said so, not its last card as if it were still played
        t.state.other_table = OtherTable(1, 3, "W4", ("eve", "fay", "gus", "hal"), (0, 1, 7, 2), None,
                                         color="B")
        assert "table 2 · round 3 · round over · cards in hand:" in t.screen()
        assert "[W4]" not in t.screen().split("table 2", 1)[1]


def test_a_turn_begins_with_the_cursor_on_a_card_that_can_be_played() -> None:
    with table("hand 0: R9 Y4 G6; hand 1: Y1 B2; discard: Y3; turn: 1") as t:
        assert t.state.hand()[t.state.cursor] == "R9"  # not the turn yet: where it was
        t.apply("1 play Y1")
        assert t.state.my_turn and t.state.hand()[t.state.cursor] == "Y4"
        assert "[Y4] yellow 4" in t.screen().splitlines()[-1]


def test_the_scores_panel_says_what_s_does_with_the_last_round() -> None:
    with table(BASIC) as t:
        t.state.round_result = {"round": 1, "winner": 1, "points": 142, "scores": [0, 142, 0, 0]}
        assert "Last round (1): bob won +142 · s shows it" in t.screen(160, 50)


def test_the_lobby_says_which_rooms_play_at_two_tables_and_their_changed_options() -> None:
    state = UIState(name="ann", address="10.0.0.9:7117")
    state.set_status("connected")
    state.rooms = [{"room": "a1", "name": "eight", "preset": "house", "seats": 8, "players": 1,
                    "spectators": 0, "started": False, "password": False, "tables": 2,
                    "options": {"partner_rotation": True}},
                   {"room": "b2", "name": "four", "preset": "house", "seats": 4, "players": 1,
                    "spectators": 0, "started": False, "password": False, "tables": 1,
                    "options": {"stacking": "same", "jump_in": False}},
                   {"room": "c3", "name": "old", "preset": "official", "seats": 4, "players": 1,
                    "spectators": 0, "started": False, "password": False}]  # an older server's
    lines = "".join(t for _, t, *_ in render_lobby(state, 200)).splitlines()
    assert "two tables" in next(line for line in lines if "eight" in line)
    assert "two tables" not in next(line for line in lines if "four" in line)
    # the options a room changed from its preset, after the preset's column
    assert next(line for line in lines if "four" in line).endswith("· stacking=same jump_in=off")
    assert "·" not in next(line for line in lines if "old" in line)
    assert all(len(line) <= 60 for line in "".join(t for _, t, *_ in render_lobby(state, 60)).splitlines())
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import lobby_options

    words = [o.words for o in lobby_options(state, Controller(state, lambda command: None))]
    assert "join eight (house rules; partner rotation: on, 1/8 players, 0 watching, two tables)" in words
    assert "join four (house rules; stacking: same; jump in: off, 1/4 players, 0 watching)" in words
    assert "watch old (official rules, 1/4 players, 0 watching)" in words
    # the choices always there come first: a room opening as the list refreshes renumbers none
    assert words[:2] == ["create a room", "list the rooms again"]


@pytest.mark.parametrize(("width", "height"), [(80, 24), (100, 30)])
def test_the_help_overlays_columns_keep_a_gap_and_clear_of_the_frame(width: int, height: int) -> None:
    with table(BASIC) as t:
        t.state.view, t.state.help_open = None, True
        rows = [row for row in t.screen(width, height).splitlines() if row.startswith("│")]
        assert rows and all(row[-2] == " " for row in rows), rows
        middle = get_cwidth(rows[0][:rows[0].index("Anywhere")]) - 1  # the cell left of the right column
        assert all(row[middle] == " " for row in rows if get_cwidth(row) == get_cwidth(rows[0])), rows
        assert any("edits the name" in row for row in rows)
