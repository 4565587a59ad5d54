"""The start screen of ``uno join`` without an address: the games found on the LAN.

It lists the servers that announce themselves with multicast DNS (name, address, rooms,
players), live while it is open; Enter joins the one under the cursor, ``a`` takes a
typed address instead, ``r`` searches again. Its data is
:class:`~.start_screen.StartScreen` (on ``UIState.start`` until a game is joined), its
keys are :class:`StartKeys`, its text is :func:`render`, and :func:`find_then_join` is
the networking side: it browses (:mod:`unolan.client.discovery`) until the player
chooses, then runs the usual connection (:func:`.net.network`) to that server.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial

import trio
from prompt_toolkit.formatted_text import StyleAndTextTuples
from unolan.client import discovery
from unolan.client.cli import read_address
from unolan.client.discovery import DiscoveryUnavailable, Game
from unolan.client.i18n import N_, _
from unolan.client.saved import SavedSeats
from unolan.client.session import version_mismatch
from unolan.client.verify import MatchRecord
from unolan.protocol.lan import BROWSE_SECONDS

from .canvas import fit, wrapped
from .net import network
from .start_screen import StartScreen
from .state import Back, Command, Connect, Rescan, UIState

Browse = Callable[[Callable[[list[Game]], None]], Awaitable[None]]

NOT_FOUND = N_("No games found on the LAN; give an address: press a")


class StartKeys:
    """What the start screen's keys do."""

    def __init__(self, state: UIState, send: Callable[[Command], None]) -> None:
        self.state = state
        self.send = send

    def _screen(self) -> StartScreen | None:
        """The screen, if it takes keys now (not once a game is being joined)."""
        screen = self.state.start
        if screen is not None and screen.joining:
            self.state.notify(_("joining {address}…").format(address=screen.joining), "info", 3)
            return None
        return screen

    def move(self, step: int) -> None:
        screen = self._screen()
        if screen is not None and screen.games:
            screen.cursor = (screen.cursor + step) % len(screen.games)

    def join(self) -> None:
        """Enter: join the game under the cursor."""
        screen = self._screen()
        if screen is None:
            return
        game = screen.selected()
        if game is None:
            self.state.notify(_("no game to join: give an address (a)"))
        elif not game.joinable:
            self.state.notify(version_mismatch(game.name, game.versions))
        else:
            self._connect(screen, game.host, game.port, game.address)

    def type_address(self) -> None:
        """``a``: open the input line for an address."""
        if self._screen() is not None:
            self.state.input_mode = "address"

    def submit_address(self, text: str) -> None:
        """The input line's Enter in ``address`` mode."""
        self.state.input_mode = None
        screen = self._screen()
        if screen is None or not text.strip():
            return
        try:
            host, port = read_address(text)
        except ValueError as exc:
            self.state.notify(_("expected HOST[:PORT], got {text!r} ({problem})").format(
                text=text.strip(), problem=exc))
            return
        self._connect(screen, host, port, text.strip())

    def rescan(self) -> None:
        """``r``: forget what was found and search again."""
        screen = self._screen()
        if screen is not None:
            screen.restart()
            self.send(Rescan())

    def _connect(self, screen: StartScreen, host: str, port: int, shown: str) -> None:
        screen.joining = shown
        self.send(Connect(host, port))


def _versions(versions: tuple[int, ...]) -> str:
    return "/".join(str(v) for v in versions)


def _count(value: int | None) -> str:
    return "?" if value is None else str(value)


def render(state: UIState, width: int = 80) -> StyleAndTextTuples:
    screen = state.start
    assert screen is not None
    out: StyleAndTextTuples = [("class:pane.title", " " + _("Games on the LAN") + "\n\n")]
    if screen.games:
        name, address, rooms, players = _("name"), _("address"), _("rooms"), _("players")
        out.append(("class:hint", f"   {fit(name, 22)} {fit(address, 21)} {fit(rooms, 14)} {players}\n"))
    for i, game in enumerate(screen.games):
        sel = "class:cursor" if i == screen.cursor else ""
        if game.joinable:
            waiting = " " + _("({count} waiting)").format(count=game.waiting) if game.waiting else ""
            counts = f"{fit(_count(game.rooms) + waiting, 14)} {_count(game.players)}"
        else:
            counts = _("needs protocol {versions}").format(versions=_versions(game.versions))
        line = f" {'▶' if sel else ' '} {fit(game.name, 22)} {fit(game.address, 21)} {counts}"
        out.append((sel or ("" if game.joinable else "class:hint"), line + "\n"))
    if screen.joining:
        out.append(("class:notice.info", "\n " + _("Joining {address}…").format(address=screen.joining) + "\n"))
    elif screen.problem:
        out += wrapped([("class:notice.error", f"{screen.problem}."), ("", f"{_(NOT_FOUND)}.")], width)
    elif not screen.games:
        out.append(("class:hint" if screen.searching else "",
                    " " + _("Searching the LAN…") + "\n" if screen.searching else f" {_(NOT_FOUND)}.\n"))
    out.append(("class:hint", "\n " + _("↑ ↓ choose · Enter join · a address · r search again"
                                         " · ? keys · q quit")))
    return out


# -- the networking side -------------------------------------------------------------------


async def find_then_join(
    state: UIState,
    commands: trio.MemoryReceiveChannel[Command],
    invalidate: Callable[[], None],
    *,
    name: str,
    browse: Browse = discovery.browse,
    saved: SavedSeats | None = None,
    record: MatchRecord | None = None,
) -> None:
    """The guest's main for ``uno join`` without an address: the start screen, then the
    chosen server's lobby and tables, like ``uno join HOST``; Esc in its lobby (also while
    the address is still being tried) comes back to the start screen."""
    while True:
        choice = await _choose(state, commands, invalidate, browse)
        state.start, state.from_start = None, True
        state.address = f"{choice.host}:{choice.port}"
        await _until_back(state, commands, partial(
            network, state, host=choice.host, port=choice.port, name=name, saved=saved,
            record=record, invalidate=invalidate))
        state.forget_room()
        state.rooms, state.address, state.from_start = [], "", False
        state.set_status("offline")
        state.start = StartScreen()


async def _until_back(state: UIState, commands: trio.MemoryReceiveChannel[Command],
                      run: Callable[[trio.MemoryReceiveChannel[Command]], Awaitable[None]]) -> None:
    """Run the connection, handing it the keys' commands, until a :class:`Back` from the
    lobby (out of a room) ends it."""
    send, receive = trio.open_memory_channel[Command](16)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, receive)
        async for command in commands:
            if isinstance(command, Back):
                if state.room is None and state.view is None:
                    break
            else:
                await send.send(command)
        nursery.cancel_scope.cancel()


async def _choose(state: UIState, commands: trio.MemoryReceiveChannel[Command],
                  invalidate: Callable[[], None], browse: Browse) -> Connect:
    screen = state.start
    assert screen is not None
    while True:
        screen.restart()
        invalidate()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_search, screen, invalidate, browse)
            choice = await _next_choice(state, commands, invalidate)
            nursery.cancel_scope.cancel()
        if isinstance(choice, Connect):
            return choice


async def _next_choice(state: UIState, commands: trio.MemoryReceiveChannel[Command],
                       invalidate: Callable[[], None]) -> Connect | Rescan:
    while True:
        command = await commands.receive()
        if isinstance(command, Connect | Rescan):
            return command
        state.notify(_("not connected: choose a game (Enter) or give an address (a)"))
        invalidate()


async def _search(screen: StartScreen, invalidate: Callable[[], None], browse: Browse) -> None:
    """Browse into the screen; after :data:`BROWSE_SECONDS` an empty list says "none found"
    (the browse goes on: a server started later still appears)."""
    def changed(games: list[Game]) -> None:
        screen.show(games)
        invalidate()

    async def searched() -> None:
        await trio.sleep(BROWSE_SECONDS)
        screen.searching = False
        invalidate()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(searched)
        try:
            await browse(changed)
        except DiscoveryUnavailable as exc:
            screen.problem = str(exc)
            screen.searching = False
            invalidate()
        nursery.cancel_scope.cancel()
