"""``--plain``: the game as lines, over real TCP against a real server with bots.

The in-process tests run the plain UI's own loop (:func:`run_plain`) with its lines
typed through a memory channel and its output kept in a list; the subprocess test runs
``uno play --plain`` with stdin and stdout as pipes (no terminal at all).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from functools import partial
from typing import Any

import pytest
import trio
from unolan.client import i18n
from unolan.client.tui.bell import BELL
from unolan.client.tui.net import AutoStart, network
from unolan.client.tui.plain import PlainState, run_plain
from unolan.client.tui.state import card_name
from unolan.engine import Play, parse_position
from unolan.server.app import serve

PROMPT = "Type a number (help: the other commands):"
SHORT = {"target_score": 1, "hand_size": 3}  # a match of one short round


class Terminal:
    """The plain UI's stdout and stdin, for a test: lines out into a list, lines in
    through a channel; ``until`` waits for a line."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.changed = trio.Event()
        self.send, self._receive = trio.open_memory_channel[str](64)

    def write(self, text: str) -> None:
        self.lines.append(text)
        self.changed.set()
        self.changed = trio.Event()

    async def read_line(self) -> str:
        try:
            return await self._receive.receive()
        except trio.EndOfChannel:
            return ""

    async def until(self, seen: int, predicate, timeout: float = 60) -> int:
        """The index of the first line from ``seen`` on that ``predicate`` holds for."""
        with trio.fail_after(timeout):
            while True:
                for i in range(seen, len(self.lines)):
                    if predicate(self.lines[i]):
                        return i
                await self.changed.wait()


async def start_plain(nursery: trio.Nursery, term: Terminal, *, bell: bool = False,
                      **auto: Any) -> PlainState:
    """A real server (fixed seed) and ``uno play``'s start: a room with bots, started;
    the plain UI's loop runs in ``nursery``."""
    port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
    state = PlainState(term.write, name="ann", address=f"127.0.0.1:{port}")
    main = partial(network, host="127.0.0.1", port=port, name="ann",
                   auto=AutoStart(room_name="t", **auto) if auto else None)
    nursery.start_soon(partial(run_plain, state, main, term.read_line, bell=bell))
    return state


def prompt_at(lines: list[str], end: int) -> list[str]:
    """The numbered choices of the prompt that ends at line ``end``."""
    start = end
    while start > 0 and re.match(r"\d+\. ", lines[start - 1]):
        start -= 1
    return [re.sub(r"^\d+\. ", "", line) for line in lines[start:end]]


async def answer_with(term: Terminal, line: str) -> list[str]:
    """Type ``line``; the next prompt's choices, or the question asked instead."""
    seen = len(term.lines)
    await term.send.send(line + "\n")
    end = await term.until(seen, lambda line: line == PROMPT or line.startswith("Type "))
    return prompt_at(term.lines, end) if term.lines[end] == PROMPT else [term.lines[end]]


async def play_match(term: Terminal, state: PlainState, check) -> None:
    """Answer every prompt with its first choice until the match is over."""
    seen = 0
    while True:
        end = await term.until(seen, lambda line: line == PROMPT or "won the match" in line)
        if "won the match" in term.lines[end]:
            return
        check(prompt_at(term.lines, end), state)
        seen = end + 1
        await term.send.send("1\n")


async def test_plain_plays_a_whole_match_against_bots_over_tcp(autojump_clock) -> None:
    term = Terminal()
    state = PlainState(term.write, name="ann")
    checked: list[list[str]] = []

    def check(choices: list[str], state: PlainState) -> None:
        """Each prompt lists exactly the engine's plays (by their cards), numbered."""
        if state.picker is not None:
            assert choices[-1] == "back: choose another action"
            return
        if state.view is None:
            return
        legal = [a for a in state.legal() if isinstance(a, Play)]
        listed = {c for c in choices if c.startswith(("play ", "jump in "))}
        groups = {tuple(card.text for card in a.cards) for a in legal}
        assert len({c for c in listed if "call UNO" not in c}) == len(
            {g for g in groups if any(not a.uno and tuple(c.text for c in a.cards) == g for a in legal)})
        for cards in groups:
            assert any(all(f"[{card}]" in c for card in cards) for c in listed)
        checked.append(choices)

    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
        auto = AutoStart(bots=2, options=SHORT, room_name="t")
        main = partial(network, host="127.0.0.1", port=port, name="ann", auto=auto)
        done: list[int] = []

        async def run() -> None:
            done.append(await run_plain(state, main, term.read_line))

        nursery.start_soon(run)
        await play_match(term, state, check)
        await term.send.send("scores\n")
        await term.until(0, lambda line: line.startswith("seat") and "left in hand" in line)
        await term.send.send("quit\n")
        with trio.fail_after(10):
            while not done:
                await trio.sleep(0.1)
        nursery.cancel_scope.cancel()  # the server
    assert done == [0]
    text = "\n".join(term.lines)
    assert "connected: 127.0.0.1" in text
    first = re.search(r"^first card \[(\w+)\] (.+)$", text, re.M)  # the log's own words, the card's too
    assert first and first.group(2) == card_name(first.group(1)), text
    assert re.search(r"^(you played|you drew) ", text, re.M)
    assert re.search(r"^bot-\d (played|drew) ", text, re.M)
    assert "Your turn." in text and re.search(r"^Your hand \(\d+\): \[", text, re.M)
    assert re.search(r"^1\. (play \[\w+\] |draw a card)", text, re.M)
    assert checked, "no prompt at the table was checked"
    assert BELL not in term.lines  # no --bell: no bell
    assert "start the match" not in text  # uno play starts it: no room menu meanwhile


async def test_plain_two_table_match_sums_up_with_the_new_totals_and_ends_as_any_match(autojump_clock) -> None:
    """An 8-seat partner-rotation room: each round's summary comes once both tables are
    over, with the rotation's totals after that round, and at the end the usual
    numbered choices."""
    term = Terminal()
    async with trio.open_nursery() as nursery:
        await start_plain(nursery, term, bots=7, options={"partner_rotation": True, "rounds": 3})
        seen = 0
        while True:
            end = await term.until(seen, lambda line: line == PROMPT)
            if "back to the room for another match" in prompt_at(term.lines, end):
                break
            seen = end + 1
            await term.send.send("1\n")
        nursery.cancel_scope.cancel()
    lines = term.lines
    assert prompt_at(lines, end) == ["back to the room for another match", "leave the room for the lobby"]
    assert lines[end - 3] == "The match is over."
    assert any(line.endswith("is the champion!") or line == "you are the champion!" for line in lines)
    summaries = [i for i, line in enumerate(lines) if re.fullmatch(r"Rotation totals after round \d+, both tables", line)]
    assert len(summaries) >= 3
    for i in summaries:
        title = next(line for line in reversed(lines[:i]) if re.match(r"Round \d+: ", line))
        number = int(title.split(":")[0].split()[1])
        over = [line for line in lines[:i] if line.startswith(f"round {number} is over at both tables: you +")]
        assert over, f"round {number}'s summary came before the round was over at both tables"
        total = int(over[-1].rsplit(" ", 3)[-3])  # "... you +P, T in all"
        assert f"ann {total}" in " · ".join(lines[i + 1:i + 3]).split(" · ")


async def test_plain_chat_help_look_and_mistakes(autojump_clock) -> None:
    term = Terminal()
    async with trio.open_nursery() as nursery:
        await start_plain(nursery, term, bell=True, bots=1)
        turn = await term.until(0, lambda line: line == "Your turn.")
        assert BELL in term.lines[:turn]  # --bell: it rang as the turn began
        for line in ("'hello table", "say and again", "help", "look", "42", "dance"):
            await term.send.send(line + "\n")
        await term.until(0, lambda line: line == "ann says: and again")
        await term.until(0, lambda line: line == "ann says: hello table")
        await term.until(0, lambda line: line == "! dance is not a command: type a number, or help")
        text = "\n".join(term.lines)
        assert "quit: leave (your seat is held for a while)" in text
        assert re.search(r"^▶ 0 ann \(you\) .*cards", text, re.M)  # look: the seats
        assert re.search(r"^Your hand \(\d+\): \[\w+\] \w", text, re.M)  # and the cards in words
        assert "! there is no choice 42 now" in text
        nursery.cancel_scope.cancel()


async def test_plain_asks_a_wild_s_color_as_numbered_follow_ups() -> None:
    """A Wild: its play first, then the color as a numbered picker, then the action sent."""
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import PlainUI
    from unolan.client.tui.state import Act
    from unolan.engine import Card, Color

    game = parse_position("hand 0: W R5; hand 1: B1 B2; discard: G3; turn: 0")
    out: list[str] = []
    sent: list[object] = []
    state = PlainState(out.append, view=game.view(0))
    ui = PlainUI(state, Controller(state, sent.append))
    ui.refresh()
    assert out == ["Your turn.", "Top [G3] green   ↻ clockwise   draw pile 0", "Your hand (2): [R5] [W]",
                   "1. play [W] Wild", "2. play [W] Wild and call UNO", "3. draw a card", PROMPT]
    ui.handle("1\n")
    ui.refresh()
    assert out[-7:] == ["Choose a color", "1. red", "2. yellow", "3. green", "4. blue",
                        "5. back: choose another action", PROMPT]
    ui.handle("3\n")
    assert sent == [Act(Play(0, (Card.parse("W"),), Color.GREEN))]  # without the call: line 1
    state.sent = None
    ui.handle("2\n")  # the prompt is back (nothing answered yet): the play with the call
    ui.handle("2\n")
    assert sent[-1] == Act(Play(0, (Card.parse("W"),), Color.YELLOW, uno=True))


async def test_plain_speaks_chinese(autojump_clock) -> None:
    i18n.set_language("zh_Hant")
    term = Terminal()
    async with trio.open_nursery() as nursery:
        state = await start_plain(nursery, term, bots=1)
        prompt = i18n._(PROMPT)
        assert prompt != PROMPT
        end = await term.until(0, lambda line: line == prompt and state.view is not None)
        choices = prompt_at(term.lines, end)
        assert choices and all(re.search(r"[\u4e00-\u9fff]", c) for c in choices)
        assert i18n._("Your turn.") in term.lines
        nursery.cancel_scope.cancel()


@pytest.mark.slow
def test_uno_play_plain_through_pipes_to_the_end_of_the_match() -> None:
    """No terminal at all: stdin and stdout are pipes, as for a screen reader's shell."""
    env = {**os.environ, "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
    env.pop("LC_ALL", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "unolan", "play", "--plain", "--seed", "7", "--bots", "1",
         "--name", "ann", "--rules", "house target_score=1 hand_size=3"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stdin is not None and proc.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
            if lines[-1] == PROMPT:
                proc.stdin.write("1\n")
                proc.stdin.flush()
            if "won the match" in lines[-1]:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                break
        assert proc.wait(timeout=20) == 0, proc.stderr.read() if proc.stderr else ""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = "\n".join(lines)
    assert "won the match" in text
    assert "Traceback" not in text
    first = re.search(r"^first card \[(\w+)\] (.+)$", text, re.M)
    assert first and first.group(2) == card_name(first.group(1)), text
    assert re.search(r"^1\. (play \[\w+\] |draw a card)", text, re.M)
    assert "start the match" not in text  # uno play starts it: no room menu meanwhile


async def test_plain_lobby_creates_a_room_adds_bots_and_starts(autojump_clock) -> None:
    """uno join --plain: the lobby and the room as numbered choices too."""
    term = Terminal()
    async with trio.open_nursery() as nursery:
        state = await start_plain(nursery, term)
        port = int(state.address.rpartition(":")[2])
        end = await term.until(0, lambda line: line == PROMPT)
        assert term.lines[end - 3] == f"Rooms on 127.0.0.1:{port}"
        assert prompt_at(term.lines, end) == ["create a room", "list the rooms again"]
        await term.send.send("1\n")
        end = await term.until(end + 1, lambda line: line == PROMPT)
        assert prompt_at(term.lines, end)[0] == "create the room"  # the form, as it is
        await term.send.send("1\n")
        end = await term.until(end + 1, lambda line: line == PROMPT)
        assert prompt_at(term.lines, end) == ["ready", "start the match", "add a bot", "leave the room"]
        assert term.lines[end - 9:end - 5] == ["0  ann               you · host · not ready",
                                              "1  (empty)", "2  (empty)", "3  (empty)"]
        for _bot in range(3):  # the room has four seats
            await term.send.send("3\n")
        # Once a bot sits, the room is said again with it, and a bot may be removed.
        removing = await term.until(end, lambda line: line == "4. remove a bot")
        assert prompt_at(term.lines, removing + 2) == ["ready", "start the match", "add a bot",
                                                       "remove a bot", "leave the room"]
        assert term.lines[removing - 7] == "1  bot-1             bot · ready"
        # A full room: no bot to add.
        full = await term.until(removing, lambda line: line == "3  bot-3             bot · ready")
        assert prompt_at(term.lines, full + 6) == ["ready", "start the match", "remove a bot",
                                                   "leave the room"]
        await term.send.send("2\n")
        first = await term.until(end, lambda line: line.startswith("first card ["))
        await term.until(first, lambda line: line == "Your turn." or line.startswith("bot-"))
        nursery.cancel_scope.cancel()


def test_plain_offers_the_seat_back_on_autopilot_and_asks_for_a_password() -> None:
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import PlainUI
    from unolan.client.tui.state import Ask, Request

    out: list[str] = []
    sent: list[object] = []
    state = PlainState(out.append, view=parse_position("hand 0: R5 G7; hand 1: B1 B2; discard: B3; turn: 1")
                       .view(0))
    state.presence[0] = "autopilot"
    ui = PlainUI(state, Controller(state, sent.append))
    ui.refresh()
    assert out == ["Out of turn, you may:",
                   "1. take your seat back: the server plays for you (autopilot)", PROMPT]
    ui.handle("1\n")
    assert sent == [Request(Ask.READY, {"ready": True})]

    state = PlainState(out.append)
    state.set_status("connected")
    ui = PlainUI(state, Controller(state, sent.append))
    state.ask_password(Request(Ask.JOIN, {"room": "r1", "role": "player"}))
    ui.refresh()
    assert out[-1] == "Type the room's password (an empty line goes back):"
    ui.handle("  sesame \n")  # the line as typed is the password
    assert sent[-1] == Request(Ask.JOIN, {"room": "r1", "role": "player", "password": "sesame"})
    ui.handle("look\n")  # in the lobby: no table, and a line says so
    assert "! no table to look at yet: a match shows one" in out
    state.rooms = [{"room": "r1", "name": "den", "preset": "house", "options": {}, "players": 1,
                    "seats": 4, "spectators": 0, "started": False, "password": True}]
    asked = len(out)
    ui.refresh()  # the password is out: nothing is asked until the answer (a list would
    assert out[asked:] == []  # take the script's next line, meant as a password, as a number)
    state.on_error("bad_password", "wrong password for this room")  # plain mode has no Esc
    assert "! Wrong password: type it again, or an empty line to go back" in out
    assert not any("Esc" in line for line in out)
    ui.refresh()
    assert out[-1] == "Type the room's password (an empty line goes back):"
    ui.handle("\n")
    assert state.input_mode is None and state.joining is None and len(sent) == 2
    ui.refresh()  # gone back: the rooms again
    assert out[-1] == PROMPT and "3. join den (house rules, 1/4 players, 0 watching, a password is needed)" in out


def test_plain_on_autopilot_says_no_turn_after_the_seats_last_card() -> None:
    """The autopilot plays the last card: the round is over, nobody's turn; the seat may
    still be taken back, and the prompt says so without a "Your turn"."""
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import PlainUI
    from unolan.engine import parse_action

    out: list[str] = []
    game = parse_position("hand 0: R5; hand 1: B1 B2; discard: R3; turn: 0; uno: 0")
    state = PlainState(out.append, view=game.view(0))
    state.set_status("connected")
    state.presence[0] = "autopilot"
    ui = PlainUI(state, Controller(state, lambda command: None))
    ui.refresh()
    assert "Your turn." in out
    del out[:]
    for event in game.apply(parse_action("0 play R5")):  # the server played it for the seat
        state.on_event(event.kind, dict(event.data_for(0)))
    state.set_view(game.view(0))
    ui.refresh()
    assert "you won the round (+3)" in out and "Your turn." not in out, out
    assert out[-3:] == ["The round is over; you may:",
                        "1. take your seat back: the server plays for you (autopilot)", PROMPT]


def _plain_at(position: str, seat: int | None = 0) -> tuple[list[str], Any]:
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import PlainUI

    out: list[str] = []
    state = PlainState(out.append, view=parse_position(position).view(seat))
    state.set_status("connected")
    ui = PlainUI(state, Controller(state, lambda command: None))
    ui.refresh()
    return out, ui


def test_plain_says_the_choices_again_after_any_line_that_is_not_an_action() -> None:
    """A screen-reader user must always be able to hear the current choices once more."""
    out, ui = _plain_at("hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0")
    choices = ["1. play [R5] red 5", "2. play [R5] red 5 and call UNO", "3. draw a card", PROMPT]
    assert out[-4:] == choices
    for line in ("look", "help", "scores", "99", "foo", "", "say hi", "'hi"):
        del out[:]
        ui.handle(line + "\n")
        ui.refresh()
        assert out[-4:] == choices, (line, out)
    del out[:]
    ui.handle("look\n")
    ui.refresh()  # look says the table and the hand in words: the prompt adds only the choices
    assert sum(line.startswith("Your hand") for line in out) == 1 and out[-5:] == ["Your turn.", *choices]


def test_plain_asks_again_when_lines_came_after_its_prompt() -> None:
    """Chat and the deal's check come when they come: the last line is always the prompt."""
    out, ui = _plain_at("hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0")
    assert out[-1] == PROMPT
    del out[:]
    ui.refresh()
    assert out == []  # nothing new: nothing said
    ui.state.add_log("bob says: hi")
    ui.state.notify("the deal checks out")
    ui.refresh()
    assert out == ["bob says: hi", "! the deal checks out", PROMPT]  # the choices stand: only the prompt
    ui.refresh()
    assert out[-1] == PROMPT and out.count(PROMPT) == 1
    del out[:]
    ui.handle("3\n")  # draw: sent, and the server refuses it (the table moved on, say)
    ui.state.on_error("not_your_turn", "it is not your turn")
    ui.refresh()
    assert out[0].startswith("! ") and out[-1] == PROMPT and "3. draw a card" in out  # all the choices again


def test_plain_says_now_and_then_that_it_still_tries_to_connect_and_how_to_stop() -> None:
    """Not two lines a try for ever: the first failure, then a line after tries 1, 2, 5,
    10, 20... with the count and the command that stops."""
    out: list[str] = []
    state = PlainState(out.append)
    for attempt in range(21):
        state.connecting("10.0.0.9:7117", attempt)
        state.set_status("offline", "nothing is listening on 10.0.0.9:7117")
    assert out[:2] == ["connecting: 10.0.0.9:7117", "offline: nothing is listening on 10.0.0.9:7117"]
    assert out[2:] == [f"Not connected to 10.0.0.9:7117: still trying (attempt {n}). Type quit to stop."
                       for n in (2, 3, 6, 11, 21)]
    state.set_status("connected", "10.0.0.9:7117")
    assert out[-1] == "connected: 10.0.0.9:7117"


def test_plain_commands_work_as_the_chinese_help_lists_them() -> None:
    i18n.set_language("zh_Hant")
    out, ui = _plain_at("hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0")
    del out[:]
    ui.handle("help\n")
    listed = [line.partition(":")[0] for line in out if " (" in line.partition(":")[0]]
    assert {"分數 (scores)", "看 (look)", "說明 (help)", "離開 (quit)"} <= set(listed), out
    for word, english in (("分數", "scores"), ("看", "look"), ("說明", "help")):
        for typed in (word, english):
            del out[:]
            ui.handle(typed + "\n")
            assert out and not any("不是指令" in line for line in out), (typed, out)
    assert ui.handle("離開\n") is False and ui.handle("quit\n") is False


def test_plain_shows_no_stale_room_menu() -> None:
    """uno play starting its own match offers no room menu; a match under way that is
    being watched is said to be under way, not shown as the room before its start."""
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import PlainUI

    out: list[str] = []
    state = PlainState(out.append)
    state.set_status("connected")
    seats = {"room": "r1", "name": "t", "host": 0, "started": False, "spectators": 0,
             "seats": [{"seat": 0, "name": "ann", "kind": "human", "ready": False}]}
    state.room, state.my_seat, state.starting = dict(seats), 0, True
    ui = PlainUI(state, Controller(state, lambda command: None))
    ui.refresh()
    assert PROMPT not in out and not any("start the match" in line for line in out)
    state.starting = False
    ui.refresh()
    assert any("start the match" in line for line in out)  # the player's own room: the menu
    del out[:]
    state.room, state.my_seat = {**seats, "started": True}, None  # watching a match under way
    ui.refresh()
    assert out == ["The match in room t is under way: the table follows."]
    del out[:]
    state.set_view(parse_position("hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 1").view(None))
    ui.refresh()  # and then the table, once
    assert out[-2:] == ["Top [R3] red   ↻ clockwise   draw pile 0", "Rules: house"] and len(out) == 4, out
    ui.refresh()
    assert len(out) == 4


@pytest.mark.parametrize(("timer", "said"), [(1, "Your turn: 1 second."), (20, "Your turn: 20 seconds.")])
async def test_plain_says_the_turn_clock_in_seconds_singular_and_plural(timer: int, said: str, autojump_clock) -> None:
    term = Terminal()
    async with trio.open_nursery() as nursery:
        await start_plain(nursery, term, bots=1, timer=timer)
        await term.until(0, lambda line: line.startswith("Your turn"))
        nursery.cancel_scope.cancel()
    assert said in term.lines


class _Clock:
    """A clock a test sets by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _plain_with_clock(position: str, stale_answer: float) -> tuple[list[str], list[object], Any, _Clock]:
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import PlainUI

    out: list[str] = []
    sent: list[object] = []
    clock = _Clock()
    state = PlainState(out.append, view=parse_position(position).view(0))
    state.set_status("connected")
    ui = PlainUI(state, Controller(state, sent.append), stale_answer=stale_answer, clock=clock)
    ui.refresh()
    return out, sent, ui, clock


BEFORE = "hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0"  # 1. play [R5]
AFTER = "hand 0: R5 G7; hand 1: B1 B2; discard: G3; turn: 0"  # 1. play [G7]


def test_plain_in_a_terminal_does_not_take_a_number_typed_for_the_list_before() -> None:
    """The table moved just as the player typed 1 for the list they read: 1 now means
    another card. Typed that soon after the new list, it is not taken; the list is said
    again, and 1 then plays what the new list says."""
    from unolan.client.tui.state import Act
    from unolan.engine import Card

    out, sent, ui, clock = _plain_with_clock(BEFORE, stale_answer=0.6)
    assert "1. play [R5] red 5" in out
    clock.now += 5  # the player reads it...
    ui.state.set_view(parse_position(AFTER).view(0))
    ui.refresh()
    assert out[-4] == "1. play [G7] green 7"
    del out[:]
    clock.now += 0.3  # ...and their 1 comes just after the new list
    ui.handle("1\n")
    ui.refresh()
    assert sent == [] and out[0] == "! the choices changed as you answered: choose again"
    assert "1. play [G7] green 7" in out and out[-1] == PROMPT  # the choices, said again
    clock.now += 0.1  # at once after hearing them: the same list, so it is taken
    ui.handle("1\n")
    assert sent == [Act(Play(0, (Card.parse("G7"),)))]


def test_plain_takes_a_quick_number_that_means_what_it_meant_or_is_new() -> None:
    """Only a number whose meaning changed is held back: one beyond the old list, or one
    that still means the same, goes at once; after the time a person needs to hear the
    new list, every number is taken; a script (no terminal) is never held up."""
    from unolan.client.tui.state import Act
    from unolan.engine import Card, Draw

    _, sent, ui, clock = _plain_with_clock(BEFORE, stale_answer=0.6)
    ui.state.set_view(parse_position(AFTER).view(0))
    ui.refresh()
    ui.handle("3\n")  # draw a card, in both lists
    assert sent == [Act(Draw(0))]
    for stale_answer, wait in ((0.6, 0.7), (0.0, 0.0)):
        _, sent, ui, clock = _plain_with_clock(BEFORE, stale_answer)
        ui.state.set_view(parse_position(AFTER).view(0))
        ui.refresh()
        clock.now += wait
        ui.handle("1\n")
        assert sent == [Act(Play(0, (Card.parse("G7"),)))], (stale_answer, wait)


def test_plain_takes_a_quick_answer_to_the_list_its_own_choice_opened() -> None:
    """A Wild's color list follows the player's own answer: they expect it, and a quick
    number there is what they meant."""
    from unolan.client.tui.state import Act
    from unolan.engine import Card, Color

    out, sent, ui, clock = _plain_with_clock("hand 0: W R5; hand 1: B1 B2; discard: G3; turn: 0", 0.6)
    clock.now += 5
    ui.handle("1\n")  # play the Wild: its colors come next
    ui.refresh()
    assert out[-6] == "1. red"
    clock.now += 0.1
    ui.handle("4\n")
    assert sent == [Act(Play(0, (Card.parse("W"),), Color.BLUE))]


def test_plain_look_says_the_other_table_of_a_two_table_room() -> None:
    """Plain mode's look says what the screen's panel shows of the other table: its top
    card, the color to match, and each player's cards in hand."""
    from unolan.client.tui.other_table import OtherTable

    out, ui = _plain_at("hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0")
    ui.handle("look\n")
    assert not any(line.startswith("table 2") for line in out)  # one table: nothing more
    ui.state.other_table = OtherTable(1, 3, "W4", ("eve", "fay", "gus", "hal"), (5, 1, 7, 2), 2, color="B")
    del out[:]
    ui.handle("look\n")
    assert "table 2 · round 3 · top [W4] blue · cards in hand:" in out
    assert any(re.fullmatch(r" ?eve 5 +fay 1 +▶gus 7 +hal 2", line) for line in out), out


def test_plain_scores_say_each_hand_left_on_its_player_s_line() -> None:
    """The screen's scoreboard wraps a long hand under its player; read as lines, the
    wrapped part would be a line of cards that names nobody. Plain mode's lines are as
    long as what they say."""
    out, ui = _plain_at("hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0")
    long_hand = ["R1", "R2", "R3", "R4", "Y5", "Y6", "Y7", "G4", "G5", "B3", "B9", "W4", "W"]
    ui.state.round_result = {"round": 1, "winner": 0, "points": 142, "scores": [142, 0],
                             "hands": [[], long_hand]}
    del out[:]
    ui.handle("scores\n")
    (line,) = [line for line in out if "[R1]" in line]
    assert re.match(r"1 +seat 1 +0 +\[R1\]", line) and line.endswith("[B3] [B9] [W4] [W]"), out
    assert not any(line.startswith("[") for line in out)


async def test_plain_creates_a_room_with_its_rules_seats_name_and_options(autojump_clock) -> None:
    """The create-room form as numbered lists: each setting steps to its next value when
    chosen, the name and the password are typed, the rule options are a list of their
    own; the room is created with all of it."""
    term = Terminal()
    async with trio.open_nursery() as nursery:
        state = await start_plain(nursery, term)
        answer = partial(answer_with, term)
        await term.until(0, lambda line: line == PROMPT)
        form = await answer("1")  # create a room
        assert form == ["create the room", "preset: house (choose for party)",
                        "seats: 4 (choose for 5)", "timer: none (choose for 15s per turn)",
                        "name: ann's table (choose to type another)",
                        "password: none (choose to type one)",
                        "rule options: 0 changed from the preset", "back to the lobby"]
        assert term.lines[-len(form) - 3:-len(form) - 1] == [
            "A new room: house rules, 4 seats",
            "A setting that is a number also takes one typed after its choice: 3 6 makes choice 3 six."]
        assert (await answer("2"))[1] == "preset: party (choose for all-wild)"
        assert (await answer("3 7"))[2] == "seats: 7 (choose for 8)"
        assert (await answer("3 5"))[2] == "seats: 5 (choose for 6)"
        assert await answer("5") == ["Type the new room's name (an empty line keeps it):"]
        assert (await answer("six at the table"))[4] == "name: six at the table (choose to type another)"
        options = await answer("7")
        assert options[0] == "done: back to the room's settings" and len(options) == 27
        number = next(i for i, words in enumerate(options, 1) if words.startswith("hand size: "))
        assert options[number - 1] == "hand size: 7 (choose for 8)"
        assert (await answer(str(number)))[number - 1] == "hand size: 8, the preset's 7 (choose for 9)"
        # A number is typed after its choice's number; a wrong one is refused with why.
        target = next(i for i, words in enumerate(options, 1) if words.startswith("target score: "))
        assert (await answer(f"{target} 425"))[target - 1].startswith("target score: 425, the preset's ")
        seen = len(term.lines)
        assert (await answer(f"{number} 99"))[number - 1].startswith("hand size: 8,")
        assert [line for line in term.lines[seen:] if line.startswith("! ")] == ["! hand size takes 1..20; not 99"]
        seen = len(term.lines)
        await answer("1 5")  # "done" takes no value
        assert "! choice 1 takes no value: type the number alone" in term.lines[seen:]
        assert (await answer("1"))[6] == "rule options: 2 changed from the preset"
        room = await answer("1")  # create the room
        assert room == ["ready", "start the match", "add a bot", "leave the room"]  # no bot to remove
        assert state.room is not None
        assert state.room["name"] == "six at the table" and len(state.room["seats"]) == 5
        assert state.room["rules"]["preset"] == "party" and state.room["rules"]["hand_size"] == 8
        # The room's heading says its rules in words too, as the lobby does.
        heading = next(line for line in term.lines if line.startswith("Room six at the table"))
        assert heading.endswith("party rules; hand size: 8; target score: 425") and "=" not in heading
        nursery.cancel_scope.cancel()


async def test_plain_form_hides_the_password_and_goes_back_to_the_lobby(autojump_clock) -> None:
    term = Terminal()
    async with trio.open_nursery() as nursery:
        await start_plain(nursery, term)
        answer = partial(answer_with, term)
        await term.until(0, lambda line: line == PROMPT)
        await answer("1")
        assert await answer("6") == ["Type a password for the new room (an empty line: none):"]
        form = await answer("secret")
        assert form[5] == "password: set (choose to type another, or an empty line for none)"
        assert not [line for line in term.lines if "secret" in line]  # never said back
        assert await answer("8") == ["create a room", "list the rooms again"]
        nursery.cancel_scope.cancel()


def test_plain_lobby_says_a_rooms_rules_in_words_and_whether_it_needs_a_password() -> None:
    from unolan.client.tui.controller import Controller
    from unolan.client.tui.plain import lobby_options

    state = PlainState(lambda line: None)
    state.rooms = [
        {"room": "r1", "name": "den", "preset": "house", "options": {"stacking": "same", "hand_size": 8},
         "players": 1, "seats": 4, "spectators": 0, "started": False, "password": True},
        {"room": "r2", "name": "hall", "preset": "official", "options": {"future_rule": 3},
         "players": 4, "seats": 4, "spectators": 2, "started": True, "password": False},
        {"room": "r3", "name": "nook", "preset": "house", "options": {},  # full, between matches
         "players": 2, "seats": 2, "spectators": 0, "started": False, "password": False},
    ]
    words = [option.words for option in lobby_options(state, Controller(state, lambda _: None))]
    assert words[2:] == [
        "join den (house rules; stacking: same; hand size: 8, 1/4 players, 0 watching, a password is needed)",
        "watch den (house rules; stacking: same; hand size: 8, 1/4 players, 0 watching, a password is needed)",
        "watch hall (official rules; future_rule=3, 4/4 players, 2 watching)",  # a newer server's option
        "watch nook (house rules, 2/2 players, 0 watching)",  # no seat free: nothing to join
    ]


async def test_plain_joins_a_room_with_its_password_and_lists_the_room_next() -> None:
    """A wrong password asks again, the right one joins: the next list is the room's (no
    list of the rooms in between, which a script would answer for nothing). On the real
    clock: the password is checked in a thread, which a jumping clock would not wait for."""
    from unolan.client.session import open_client

    term = Terminal()
    async with trio.open_nursery() as nursery:
        state = await start_plain(nursery, term)
        port = int(state.address.rpartition(":")[2])
        async with open_client("127.0.0.1", port, "alice") as alice:
            await alice.create_room("den", seats=3, password="sekrit")
            await term.until(0, lambda line: line == PROMPT)
            seen = len(term.lines)
            await term.send.send("2\n")  # list the rooms again
            listed = await term.until(seen, lambda line: line.startswith("3. join den ("))
            assert "a password is needed" in term.lines[listed]
            await term.until(listed, lambda line: line == PROMPT)
            assert await answer_with(term, "3") == ["Type the room's password (an empty line goes back):"]
            seen = len(term.lines)
            assert await answer_with(term, "wrong") == ["Type the room's password (an empty line goes back):"]
            assert PROMPT not in term.lines[seen:]
            seen = len(term.lines)
            assert await answer_with(term, "sekrit") == ["ready", "leave the room"]
            assert not any(line.startswith("Rooms on") for line in term.lines[seen:])
        nursery.cancel_scope.cancel()


async def test_plain_back_in_its_seat_says_so_once_and_asks_only_of_the_table_as_it_is(tmp_path) -> None:
    """uno join --plain stopped mid-match (nothing said to the server) and started again:
    its seat comes back; the line that says so is written once (not again as a notice),
    and no choices are offered before the events it missed are shown (a list of the
    table as it was would be answered for nothing)."""
    from unolan.client.saved import SavedSeats

    seats = SavedSeats(tmp_path / "seats.json")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
        first, term = trio.CancelScope(), Terminal()
        state = PlainState(term.write, name="ann", address=f"127.0.0.1:{port}")
        main = partial(network, host="127.0.0.1", port=port, name="ann",
                       auto=AutoStart(room_name="t", bots=1), saved=seats)

        async def run_first() -> None:
            with first:
                await run_plain(state, main, term.read_line)

        nursery.start_soon(run_first)
        await term.until(0, lambda line: line == PROMPT and state.view is not None)
        room = state.room_id
        first.cancel()  # stopped: its socket closes, the bot plays on against the autopilot
        again = Terminal()
        back_state = PlainState(again.write, name="ann", address=f"127.0.0.1:{port}")
        nursery.start_soon(partial(run_plain, back_state, partial(
            network, host="127.0.0.1", port=port, name="ann", saved=seats), again.read_line))
        back = f"You are back in your seat (seat 0) in room {room}."
        said = await again.until(0, lambda line: back in line)
        await again.until(said, lambda line: line == PROMPT)
        assert [line for line in again.lines if back in line] == [back]  # once, and not as "! ..."
        assert PROMPT not in again.lines[:said]  # nothing asked of the table as it was
        nursery.cancel_scope.cancel()


def test_a_log_line_names_its_cards_in_words_for_a_reader() -> None:
    out: list[str] = []
    state = PlainState(out.append)
    state.add_log("ann played [R5] [G5] → red")
    state.add_log("bob drew [W4]")
    assert out == ["ann played [R5] red 5, [G5] green 5 → red", "bob drew [W4] Wild Draw Four"]
    assert state.log[-2][0] == "ann played [R5] [G5] → red"  # the screen's log keeps its labels
