"""``--bell``: the terminal's bell rings when the table starts to want something of the
player (their turn, they may be caught, they may catch), once per moment."""

from __future__ import annotations

import asyncio

import trio
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from unolan.client.tui.bell import Bell, moments
from unolan.client.tui.run import run_async
from unolan.client.tui.state import Command, UIState
from unolan.engine import parse_position

THEIR_TURN = "hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 1"
MY_TURN = "hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0"
ME_ON_ONE = "hand 0: G7; hand 1: B1 B2; discard: R5; turn: 1; catchable: 0"  # UNO not called
THEM_ON_ONE = "hand 0: R5 G7; hand 1: B1; discard: B3; turn: 0; catchable: 1"
# The views of a short story: theirs, mine (ring), mine again (no ring: the same moment),
# I played to one card without calling (ring: I may be caught), mine with a catch (ring).
STORY = (THEIR_TURN, MY_TURN, MY_TURN, ME_ON_ONE, THEM_ON_ONE)
RINGS = [False, True, False, True, True]


def view(position: str):
    return parse_position(position).view(0)


def test_moments_come_from_the_engine_s_view() -> None:
    assert moments(UIState(view=view(THEIR_TURN))) == frozenset()
    assert moments(UIState(view=view(MY_TURN))) == {("turn", 1)}
    assert moments(UIState(view=view(ME_ON_ONE))) == {("uno", 1)}
    assert moments(UIState(view=view(THEM_ON_ONE))) == {("turn", 1), ("catch", 1)}
    assert moments(UIState()) == frozenset()  # no table: nothing to ring for


def test_the_bell_rings_when_a_moment_begins_not_while_it_lasts() -> None:
    state, bell = UIState(), Bell()
    rang = []
    for position in STORY:
        state.set_view(view(position))
        rang.append(bell.ring(state))
    assert rang == RINGS


class BellOutput(DummyOutput):
    """A dummy terminal that counts the bells it is asked to ring."""

    def __init__(self) -> None:
        super().__init__()
        self.bells = 0

    def bell(self) -> None:
        self.bells += 1


def _rings_in_the_full_screen_ui(bell: bool) -> int:
    async def network(state: UIState, commands: trio.MemoryReceiveChannel[Command], invalidate) -> None:
        state.set_status("connected")
        for position in STORY:
            state.set_view(view(position))
            invalidate()
            await trio.sleep(0)

    output = BellOutput()

    async def main() -> int:
        with create_pipe_input() as inp, create_app_session(input=inp, output=output):
            return await run_async(UIState(), network, bell=bell)

    assert asyncio.run(main()) == 0
    return output.bells


def test_the_full_screen_ui_rings_the_terminal_s_bell_with_bell_only() -> None:
    assert _rings_in_the_full_screen_ui(bell=True) == RINGS.count(True)
    assert _rings_in_the_full_screen_ui(bell=False) == 0
