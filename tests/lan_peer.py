"""The joining side of test_lan_netns.py, run in a network namespace of its own.

``python tests/lan_peer.py NAME`` finds the game called NAME through the start screen's
own code (``uno join`` without an address: the same browse, the same keys, the same
connection), joins it, opens a room there, watches the server's announcement follow
(one room, one player), says ``ready``, and waits for the announcement to be withdrawn.
One line per step on stdout; exit status 0 when every step happened, 1 with the step it
was stuck on otherwise. Every wait is bounded.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import trio
from test_tui_net import Watch  # this script's folder comes first on sys.path
from unolan.client import discovery
from unolan.client.discovery import Game
from unolan.client.tui.start import StartKeys, find_then_join
from unolan.client.tui.start_screen import StartScreen
from unolan.client.tui.state import Command, Request, UIState

STEP_SECONDS = 12


class Stuck(Exception):
    """A step did not happen in time."""


def say(*words: object) -> None:
    print(*words, flush=True)


class Steps(Watch):
    """``invalidate`` for the headless UI; each wait is a named step, bounded."""

    async def step(self, name: str, condition: Callable[[], object]) -> None:
        try:
            await self.until(condition, STEP_SECONDS)
        except trio.TooSlowError:
            raise Stuck(f"stuck: {name}") from None


async def main(name: str) -> None:
    state, watch = UIState(name="peer"), Steps()
    screen = state.start = StartScreen()
    send, receive = trio.open_memory_channel[Command](16)
    keys = StartKeys(state, send.send_nowait)
    browsed: list[Game] = []

    def ours(games: list[Game]) -> Game | None:
        return next((g for g in games if g.name == name), None)

    def changed(games: list[Game]) -> None:
        browsed[:] = games
        watch()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(lambda: find_then_join(state, receive, watch, name="peer"))
        await watch.step("finding the game", lambda: ours(screen.games))
        game = ours(screen.games)
        assert game is not None
        say("found", game.address, f"rooms={game.rooms}", f"players={game.players}")
        screen.cursor = screen.games.index(game)
        keys.join()  # Enter
        await watch.step("connecting", lambda: state.start is None and state.status == "connected")
        send.send_nowait(Request("create_room", {"name": "from the other namespace"}))
        await watch.step("opening a room", lambda: state.room_id is not None)
        say("joined", state.address, state.room_id)
        # A second browse, as another player's start screen would show the game now.
        await nursery.start(discovery.browse, changed)
        await watch.step("the announcement's update",
                          lambda: (g := ours(browsed)) and (g.rooms, g.players) == (1, 1))
        say("updated rooms=1 players=1")
        say("ready")
        await watch.step("the announcement's withdrawal", lambda: not ours(browsed))
        say("withdrawn")
        nursery.cancel_scope.cancel()


if __name__ == "__main__":
    try:
        trio.run(main, sys.argv[1])
    except* Stuck as group:
        say(group.exceptions[0])
        sys.exit(1)
