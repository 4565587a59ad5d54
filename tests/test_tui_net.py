"""The UI's networking side against a real server on 127.0.0.1 (no terminal needed).

The server runs in the test's Trio run; the UI state is filled by ``NetClient`` exactly as
under prompt_toolkit. Waits are on events (the table drawn, a log line), bounded by
``fail_after``; nothing sleeps for a fixed time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import trio
from unolan.client.tui.net import AutoStart, NetClient, to_message
from unolan.client.tui.state import Act, Command, Request, UIState
from unolan.engine import Card, Color, Draw, Pass, Play
from unolan.protocol import Play as PlayMessage
from unolan.server.app import serve


class Watch:
    """``invalidate`` for tests: wakes whoever waits for a condition on the state."""

    def __init__(self) -> None:
        self.changed = trio.Event()

    def __call__(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    async def until(self, condition: Callable[[], object], timeout: float = 10) -> None:
        with trio.fail_after(timeout):
            while not condition():
                await self.changed.wait()


async def start(nursery: trio.Nursery, seed: int = 3) -> tuple[int, UIState, NetClient, trio.MemorySendChannel[Command], Watch]:
    port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=seed))
    state, watch = UIState(name="ann"), Watch()
    client = NetClient(state, "127.0.0.1", port, "ann", watch, AutoStart(bots=2))
    send, receive = trio.open_memory_channel[Command](16)
    nursery.start_soon(client.run, receive)
    return port, state, client, send, watch


def test_actions_become_protocol_messages_with_the_seq() -> None:
    action = Play(0, (Card.parse("R5"), Card.parse("G5")), Color.GREEN, None, True)
    assert to_message(action, 41) == PlayMessage(seq=41, cards=("R5", "G5"), color="G", uno=True)


async def test_uno_play_flow_seats_bots_starts_and_plays() -> None:
    async with trio.open_nursery() as nursery:
        _, state, _client, send, watch = await start(nursery)
        await watch.until(lambda: state.view is not None)
        assert state.status == "connected"
        assert state.view.seat == 0 and len(state.view.counts) == 3
        assert sorted(state.bots) == [1, 2]
        # play when our turn comes: the first legal play, else draw (then keep)
        await watch.until(lambda: state.my_turn)
        legal = state.legal()
        plays = [a for a in legal if isinstance(a, Play) and a.seat == 0]
        action = plays[0] if plays else Draw(0)
        await send.send(Act(action))
        await watch.until(lambda: any(t.startswith("you ") for t, _ in state.log))
        if isinstance(action, Draw) and state.can(Pass):
            await send.send(Act(Pass(0)))
        # the bots answer
        await watch.until(lambda: any(t.startswith("bot-") and ("played" in t or "drew" in t)
                                      for t, _ in state.log))
        nursery.cancel_scope.cancel()


async def test_an_illegal_or_late_action_is_a_message() -> None:
    async with trio.open_nursery() as nursery:
        _, state, _client, send, watch = await start(nursery)
        await watch.until(lambda: state.view is not None)
        await send.send(Act(Pass(0)))  # nothing was drawn (the UI would not offer this)
        await watch.until(lambda: state.current_notices())
        text = state.current_notices()[-1].text
        assert "Traceback" not in text and ("turn" in text or "phase" in text or "late" in text.lower())
        nursery.cancel_scope.cancel()


async def test_losing_the_connection_shows_reconnecting_and_resumes_the_seat() -> None:
    async with trio.open_nursery() as nursery:
        _, state, client, send, watch = await start(nursery)
        await watch.until(lambda: state.view is not None)
        token = client.token
        assert token is not None
        statuses: list[str] = []
        original = state.set_status

        def record(status: str, detail: str = "") -> None:
            statuses.append(status)
            original(status, detail)

        state.set_status = record  # type: ignore[method-assign]
        assert client.stream is not None
        await trio.aclose_forcefully(client.stream)  # the network drops
        await watch.until(lambda: "reconnecting" in statuses and state.status == "connected")
        assert client.token == token  # the same seat, resumed
        assert state.view is not None and state.view.seat == 0
        await send.send(Request("sync"))
        nursery.cancel_scope.cancel()
