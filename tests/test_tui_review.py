"""The terminal UI at the edges a player review found: password rooms, the round summary,
the create form and the help at small sizes, team games, an early UNO call, the layout
at 80 and 160 columns, and a LAN address that cannot be reached."""

from __future__ import annotations

import asyncio
import re
from functools import partial

import pytest
from test_tui import BASIC, Table, in_room, lobby, play, table
from unolan.client.tui.form import FIELDS
from unolan.client.tui.render import help_page, lobby_keys
from unolan.client.tui.state import Ask, Back, Connect, Request, UIState
from unolan.engine import CallUno


def drawn(t: Table, width: int = 80, height: int = 24) -> str:
    """The screen as the app draws it, the input line's focus included (an open input
    line is drawn inside an event loop: its history loads in a task)."""
    async def draw() -> str:
        t.app.before_render.fire()
        return t.screen(width, height)
    return asyncio.run(draw())


def _type(t: Table, text: str) -> None:
    t.app.current_buffer.insert_text(text)
    t.app.current_buffer.validate_and_handle()


# -- 1. password rooms ----------------------------------------------------------------


def test_the_create_form_sets_a_password_and_never_shows_it() -> None:
    with lobby() as t:
        t.press("c")
        t.state.form.field_index = FIELDS.index("password")
        assert "password" in t.screen(100, 30) and "none" in t.screen(100, 30)
        t.press("e")
        assert t.state.input_mode == "room_password"
        _type(t, "s3cret")
        screen = t.screen(100, 30)
        assert "s3cret" not in screen and "••••••" in screen
        t.press("enter")
        assert t.sent[-1].params["password"] == "s3cret"


def test_joining_a_room_with_a_password_asks_for_it_and_a_wrong_one_asks_again() -> None:
    with lobby() as t:
        t.state.rooms[0]["password"] = True
        assert "🔒" in t.screen()
        t.press("enter")
        assert t.sent == [] and t.state.input_mode == "join_password"
        assert "the room's password>" in drawn(t)  # the input line, with the focus
        _type(t, "guess")
        assert t.sent == [Request("join", {"room": "r1", "role": "player", "password": "guess"})]
        assert "guess" not in t.screen()
        t.state.on_error("bad_password", "wrong password for this room")
        screen = drawn(t)
        assert "Wrong password: type it again, or Esc to go back" in screen
        assert t.state.input_mode == "join_password" and "the room's password>" in screen
        _type(t, "right")
        assert t.sent[-1].params["password"] == "right"
        t.state.on_error("bad_password", "wrong password for this room")
        drawn(t)
        t.press("esc")  # back to the rooms
        assert t.state.input_mode is None and t.state.joining is None
        assert "Rooms on" in t.screen()
        t.press("down", "s")  # a room without a password: no question
        assert t.sent[-1] == Request("join", {"room": "r2", "role": "spectator"})


async def test_a_password_room_is_created_and_joined_through_a_real_server() -> None:
    from functools import partial

    import trio
    from test_tui_net import player
    from unolan.client.tui.controller import Controller
    from unolan.server.app import serve

    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0))
        ann, _, ann_send, ann_watch = player(nursery, port, "ann")
        await ann_watch.until(lambda: ann.status == "connected")
        ann_keys = Controller(ann, ann_send.send_nowait)
        ann_keys.open_form()
        assert ann.form is not None
        ann.form.password = "s3cret"
        ann_keys.create_room()
        await ann_watch.until(lambda: ann.room is not None)

        bob, _, bob_send, bob_watch = player(nursery, port, "bob")
        await bob_watch.until(lambda: any(r.get("password") for r in bob.rooms))
        bob_keys = Controller(bob, bob_send.send_nowait)
        bob_keys.join_room()
        assert bob.input_mode == "join_password"
        bob_keys.submit_input("wrong")
        await bob_watch.until(lambda: bob.input_mode == "join_password")  # asked again
        assert any("Wrong password" in n.text for n in bob.current_notices())
        bob_keys.submit_input("s3cret")
        await bob_watch.until(lambda: bob.room is not None and bob.my_seat is not None)
        nursery.cancel_scope.cancel()


# -- 9. the create form's keys on screen, one "Not created" -------------------------------


def test_the_create_forms_keys_stay_on_screen_and_a_refusal_shows_once() -> None:
    with lobby() as t:
        t.press("c")
        for width, height in ((80, 24), (100, 30)):
            for index in (0, len(FIELDS) // 2, len(FIELDS) - 1):  # wherever the form scrolled
                t.state.form.field_index = index
                screen = t.screen(width, height)
                assert "Enter create" in screen and "Esc cancel" in screen, (width, height, index)
        t.state.form.field_index = FIELDS.index("teams")
        t.press("right", "right")  # 3 teams of 4 players: refused
        t.press("enter", "enter", "enter")
        assert t.sent == []
        assert t.screen().count("Not created") == 1
        t.press("left", "left", "enter")  # no teams: created
        assert t.sent and t.sent[-1].kind == "create_room"


def test_the_room_key_line_breaks_between_keys_at_80_columns() -> None:
    with lobby() as t:
        in_room(t, {"seat": 0, "name": "ann", "kind": "human", "ready": False, "state": "connected"})
        for width in (60, 80, 100):
            lines = [line.strip() for line in t.screen(width).splitlines()]
            keys = [line for line in lines if "add bot" in line or "Esc leave" in line]
            assert keys, width
            text = " · ".join(keys)
            for key in ("b add bot", "- remove bot", "Enter start", "Space ready", "t chat", "Esc leave"):
                assert key in text, (width, key)


# -- 8. the help fits or scrolls below 80 columns -------------------------------------------


@pytest.mark.parametrize(("width", "height"), [(80, 24), (60, 20), (40, 16)])
def test_the_help_is_never_blank_and_scrolls_to_its_last_key(width: int, height: int) -> None:
    with table(BASIC) as t:
        t.press("?")
        screen = t.screen(width, height)
        assert "At the table" in screen and "move along your hand" in screen, screen
        seen = screen
        for _ in range(60):
            t.press("down")
            seen += t.screen(width, height)
        assert "this help (Esc closes)" in seen and "quit (q in the lobby)" in seen
        assert re.search(r"Enter Esc +match over", seen)
        t.press("?")
        assert "move along your hand" not in t.screen(width, height)
        t.press("?")  # opened again: from the top
        assert "At the table" in t.screen(width, height)


# -- 13. every card reachable by a number key -------------------------------------------------


def test_cards_after_the_tenth_are_reached_by_pressing_the_digit_again() -> None:
    hand = "R1 R2 R3 R4 R5 R6 R7 R8 R9 G1 G2 G3 G4"  # 13 cards, sorted as shown
    with table(f"hand 0: {hand}; hand 1: B1 B2; discard: G0") as t:
        cards = t.state.hand()
        t.press("3")
        assert cards[t.state.cursor] == cards[2]
        t.press("3")
        assert t.state.cursor == 12  # the 13th
        t.press("3")
        assert t.state.cursor == 2  # round again
        t.press("0")
        assert t.state.cursor == 9
        t.press("0")
        assert t.state.cursor == 9  # there is no 20th: stays on the tenth
        t.press("1", "1", "enter")
        assert t.actions()[-1].cards[0].text == cards[10]
        help_text = "".join(f[1] for f in help_page(t.state, 200))  # wide: nothing wraps
        assert "the same digit again: the card ten on" in help_text


# -- 7. teams at the table, in the scoreboard and the round summary --------------------------

TEAMS = "rules: house teams=2; hand 0: R5; hand 1: B1 B2; hand 2: G4 G5; hand 3: Y1 Y2 Y3; discard: R3; uno: 0"


def test_teams_are_marked_at_the_table_and_listed_with_every_member_at_round_end() -> None:
    with table(TEAMS) as t:
        screen = t.screen()
        assert dict(re.findall(r"\b([123]) \w+ (T\d)\b", screen)) == {"1": "T2", "2": "T1", "3": "T2"}
        assert re.search(r"0 ann \(you\) · .* · T1 partner: cy", screen)  # this player's line
        assert screen.count("partner") == 2  # and on the partner's tile
        t.apply("0 play R5")
        screen = t.screen()
        assert "T1   you and cy" in screen and "T2   bob and di" in screen
        for member, hand in ((1, "[B1] [B2]"), (2, "[G4] [G5]"), (3, "[Y1] [Y2] [Y3]")):
            line = next(line for line in screen.splitlines() if hand in line)
            assert f" {member}  " in line and t.state.name_of(member) in line
        assert "you won +9" in screen


def test_a_team_that_wins_the_match_is_named_by_its_members() -> None:
    with table(TEAMS.replace("teams=2", "teams=2 target_score=5")) as t:
        t.apply("0 play R5")
        assert "you and cy won the match!" in t.screen()
        assert ("you and cy won the match!", "win") in t.state.log


@pytest.mark.parametrize(("name", "shown"), [
    ("bot-counter-strategy-seven", "bot-counter-strategy-seven"),  # room for it: whole
    ("b" * 50, "b" * 34 + "…"),  # more than the box holds beside the hands: cut, marked
])
def test_the_match_end_summary_at_80x24_fits_a_long_bot_name(name: str, shown: str) -> None:
    with table("rules: house target_score=5; hand 0: R5; hand 1: B1 B2 B3 B4 B5 B6 B7 B8 B9 G1 G2 G3;"
               " hand 2: G4; discard: R3; uno: 0") as t:
        t.state.names[1] = name
        t.state.bots.add(1)
        t.apply("0 play R5")
        screen = t.screen(80, 24)
        row = next(line for line in screen.splitlines() if "[B1]" in line)
        assert f" 1    {shown} " in row, screen
        hands = [line for line in screen.splitlines() if "[B" in line or "[G" in line]
        assert " ".join(" ".join(hands).split()).count("[") == 12 + 1  # every card left, whole
        assert all(line.rstrip().endswith(("]", "│")) for line in hands)


def test_a_partner_rotations_tie_at_the_end_is_explained_in_the_summary() -> None:
    """Partners end level: the summary says they tied and how the engine settled it (the
    match's end says both), whole at 80x24."""
    with table("rules: house partner_rotation=on rounds=1; hand 0: R5; hand 1: B1 B2; hand 2: G4 G5;"
               " hand 3: Y1 Y2; discard: R3; uno: 0") as t:
        t.apply("0 play R5")
        assert t.state.match_result is not None and t.state.match_result.get("tie_break") == "lower_seat"
        partner = t.state.name_of(t.state.match_result["tied"][1])
        screen = " ".join(t.screen(80, 24).split())
        assert f"you and {partner} tied on points; the tie goes to the lowest seat number: you" in screen


def test_no_team_marker_without_teams() -> None:
    with table(BASIC) as t:
        assert "T1" not in t.screen() and "T2" not in t.screen()


# -- 13. names, the 160x50 table ------------------------------------------------------------


def test_a_players_own_name_is_whole_when_the_column_has_room() -> None:
    with table(BASIC) as t:
        t.state.names[0] = "Alexandra"
        assert "Alexandra (you)" in t.screen()
        t.state.names[0] = "Maximiliana-Theodora"  # this player's line has the room for it
        assert "Maximiliana-Theodora (you)" in t.screen()
        t.state.names[0] = "Maximiliana-Theodora " * 3  # too long for the line: cut, "(you)" kept
        assert "… (you)" in t.screen()


def test_a_tall_terminal_shows_more_log_and_chat_and_the_scores() -> None:
    with table(BASIC) as t:
        for i in range(60):
            t.state.add_log(f"line {i}")
            t.state.chat.append(("bob", f"chat {i}"))
        small, big = t.screen(80, 24), t.screen(160, 50)
        assert small.count("chat ") <= 5 and big.count("chat ") >= 10
        assert big.count("line ") >= 2 * small.count("line ")
        assert "Scores" in big


# -- 11. u pressed early ------------------------------------------------------------------


def test_u_on_two_cards_during_anothers_turn_arms_the_call_for_the_next_play() -> None:
    with table("hand 0: R5 G7; hand 1: B1 B2; draw: Y9 Y8; discard: R3; turn: 1") as t:
        t.press("u")
        assert t.sent == [] and t.state.uno_armed
        assert "UNO will be called with your next play that leaves you one card" in t.screen()
        t.apply("1 draw")  # bob draws a card he cannot play; our turn
        assert "UNO will be called with this play" in t.screen()
        t.press("1", "enter")
        assert t.actions() == [play(0, "R5", uno=True)]


def test_u_on_more_cards_is_a_false_call_the_engine_takes_only_when_pressed_again() -> None:
    with table("hand 0: R5 G7 B9; hand 1: B1 B2; discard: R3; turn: 1") as t:  # house: false_uno_penalty
        t.press("u")
        assert t.sent == [] and not t.state.uno_armed
        assert "a call now is a false UNO and costs 2 cards" in t.screen()
        t.press("u")
        assert t.actions() == [CallUno(0)]  # the engine gives the penalty


def test_a_false_call_warned_about_lapses_when_the_table_moves() -> None:
    with table("hand 0: R5 G7 B9; hand 1: B1 B2 B3; draw: Y9 Y8; discard: R3; turn: 1") as t:
        t.press("u")
        t.apply("1 draw")
        t.press("u")
        assert t.sent == []  # warned again, not sent


def test_without_false_uno_penalty_an_early_call_gets_the_engines_reason() -> None:
    with table("rules: official; hand 0: R5 G7 B9; hand 1: B1 B2; discard: R3; turn: 1") as t:
        t.press("u", "u")
        assert t.sent == []
        assert "no UNO call now: you do not hold one card" in t.screen()


def test_the_color_picker_after_a_multi_play_offers_and_names_only_the_colors_played() -> None:
    with table("hand 0: R5 G5 B7 Y1; hand 1: B1; hand 2: B2; discard: R3") as t:
        t.press("1", "space", "3", "space", "enter")  # R5 and G5
        screen = t.screen()
        assert "[R5] [G5]: which color continues?" in screen
        assert "r g or ↑ ↓ Enter" in screen and "r y g b" not in screen
        assert "red" in screen and "green" in screen and "yellow" not in screen and "blue" not in screen
        t.press("b")  # not offered: nothing sent
        assert t.sent == [] and "blue is not one of the choices" in t.screen()
        t.press("2")  # the second color offered
        assert t.actions() == [play(0, "R5", "G5", color="G")]


def test_a_wilds_color_picker_offers_all_four() -> None:
    with table("hand 0: W R1; hand 1: B1; discard: G3") as t:
        t.press("2", "enter")
        screen = t.screen()
        assert "Choose a color" in screen and "r y g b or ↑ ↓ Enter" in screen


# -- 14. an address that cannot be reached, from the LAN list -----------------------------------


async def test_esc_leaves_an_unreachable_address_for_the_lan_list_again() -> None:
    import trio
    from test_lan import Keys
    from unolan.client.tui.start import find_then_join
    from unolan.client.tui.start_screen import StartScreen

    async def browse(changed: object) -> None:
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        listener = trio.socket.socket()  # a port nothing listens on: bound, then closed
        await listener.bind(("127.0.0.1", 0))
        dead = listener.getsockname()[1]
        listener.close()
        state, keys = UIState(name="ann"), Keys()
        state.start = StartScreen()
        nursery.start_soon(partial(find_then_join, state, keys.receive, keys, name="ann", browse=browse))
        await keys.send.send(Connect("127.0.0.1", dead))
        await keys.until(lambda: state.start is None and state.attempts >= 1)
        assert "Esc back to the games on the LAN" in "".join(f[1] for f in lobby_keys(state))
        await keys.send.send(Back())
        await keys.until(lambda: state.start is not None)
        assert not state.from_start and state.address == "" and state.status == "offline"
        assert state.start.joining == ""
        state.notices.clear()
        await keys.send.send(Request(Ask.LIST_ROOMS))  # the start screen's loop has the keys again
        await keys.until(lambda: any("choose a game" in n.text for n in state.current_notices()))
        nursery.cancel_scope.cancel()


def test_esc_in_the_lobby_of_a_lan_game_sends_back() -> None:
    with lobby() as t:
        t.press("esc")
        assert t.sent == []  # a server given on the command line: nothing to go back to
        t.state.from_start = True
        t.press("esc")
        assert t.sent == [Back()]
