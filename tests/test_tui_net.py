"""The UI's networking side against a real server on 127.0.0.1 (no terminal needed).

The server runs in the test's Trio run; the UI state is filled by the ``Bridge`` (the
client library's connection turned into screen state) exactly as under prompt_toolkit. Waits are on events (the table drawn, a log line), bounded by
``fail_after``; nothing sleeps for a fixed time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
import trio
from unolan.client import session, to_message
from unolan.client.saved import SavedSeat, SavedSeats
from unolan.client.tui.net import AutoStart, Bridge
from unolan.client.tui.state import Act, Command, Request, Say, UIState
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


async def start(nursery: trio.Nursery, seed: int = 3) -> tuple[int, UIState, Bridge, trio.MemorySendChannel[Command], Watch]:
    port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=seed))
    state, bridge, send, watch = player(nursery, port, "ann", AutoStart(bots=2))
    return port, state, bridge, send, watch


def player(nursery: trio.Nursery, port: int, name: str, auto: AutoStart | None = None,
           saved: SavedSeats | None = None
           ) -> tuple[UIState, Bridge, trio.MemorySendChannel[Command], Watch]:
    state, watch = UIState(name=name), Watch()
    bridge = Bridge(state, "127.0.0.1", port, name, watch, auto, saved)
    send, receive = trio.open_memory_channel[Command](16)
    nursery.start_soon(bridge.run, receive)
    return state, bridge, send, watch


async def host_den(nursery: trio.Nursery, port: int) -> tuple[UIState, trio.MemorySendChannel[Command], Watch]:
    """ann connects and creates room "den" (house, 3 seats), sitting at seat 0."""
    ann, _, to_ann, sees = player(nursery, port, "ann")
    await sees.until(lambda: ann.status == "connected")
    await to_ann.send(Request("create_room", {"name": "den", "preset": "house", "seats": 3,
                                              "timer": 0, "options": {}}))
    await sees.until(lambda: ann.room is not None and ann.room_id is not None and ann.my_seat == 0)
    return ann, to_ann, sees


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
        _, state, bridge, send, watch = await start(nursery)
        await watch.until(lambda: state.view is not None)
        assert bridge.client is not None
        token = bridge.client.token
        assert token is not None
        statuses: list[str] = []
        original = state.set_status

        def record(status: str, detail: str = "") -> None:
            statuses.append(status)
            original(status, detail)

        state.set_status = record  # type: ignore[method-assign]
        assert bridge.client.stream is not None
        await trio.aclose_forcefully(bridge.client.stream)  # the network drops
        await watch.until(lambda: "reconnecting" in statuses and state.status == "connected")
        assert bridge.client.token == token  # the same seat, resumed
        said = [text for text, _ in state.log if "reconnect" in text or "again" in text]
        assert said[0].startswith("connection lost: ")
        assert said[0].endswith(f": trying to reconnect to 127.0.0.1:{bridge.port} until it answers (Ctrl-C quits)")
        await watch.until(lambda: (f"connected to 127.0.0.1:{bridge.port} again", "info") in state.log)
        assert state.view is not None and state.view.seat == 0
        await send.send(Request("sync"))
        nursery.cancel_scope.cancel()


async def test_lobby_create_spectate_join_bots_start_and_chat() -> None:
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
        ann, to_ann, ann_sees = await host_den(nursery, port)

        bob, _, to_bob, bob_sees = player(nursery, port, "bob")
        await bob_sees.until(lambda: [r["name"] for r in bob.rooms] == ["den"])
        await to_bob.send(Request("join", {"room": bob.rooms[0]["room"], "role": "spectator"}))
        await bob_sees.until(lambda: bob.room is not None and bob.room_id == ann.room_id)
        assert bob.my_seat is None

        await to_ann.send(Request("add_bot"))
        await to_ann.send(Request("add_bot"))
        await ann_sees.until(lambda: len(ann.bots) == 2)
        await to_ann.send(Request("start"))
        await ann_sees.until(lambda: ann.view is not None)
        await bob_sees.until(lambda: bob.view is not None)
        assert bob.view.seat is None and bob.view.hand == ()
        assert ann.view.seat == 0 and len(ann.view.hand) == 7

        await to_bob.send(Say("nice table"))
        await ann_sees.until(lambda: ("bob", "nice table") in ann.chat)
        await to_bob.send(Request("start"))  # not the host: refused, shown as a message
        await bob_sees.until(lambda: bob.current_notices())
        await to_bob.send(Request("leave"))
        await bob_sees.until(lambda: bob.room is None and bob.view is None)
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize("library_gives_up", [False, True])
async def test_a_seat_lost_with_the_server_goes_back_to_the_lobby(
        library_gives_up: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server restarts without the room: the token is refused, the lobby comes back,
    whether the library's own resume or the UI's next connection presents the token."""
    if library_gives_up:
        monkeypatch.setattr(session, "RETRY_DELAYS", (0.01,))
    async with trio.open_nursery() as nursery:
        first = trio.CancelScope()

        async def server(task_status: trio.TaskStatus[int]) -> None:
            with first:
                await serve("127.0.0.1", 0, seed=2, task_status=task_status)

        port = await nursery.start(server)
        state, bridge, _send, watch = player(nursery, port, "ann", AutoStart(bots=1))
        await watch.until(lambda: state.view is not None)
        room = state.room_id
        first.cancel()  # the server goes away...
        await watch.until(lambda: state.status != "connected")
        assert state.status == "reconnecting"
        # ...saying so as it stops: the log and the header give its words.
        lost = f"the server is stopping: trying to reconnect to 127.0.0.1:{port} until it answers"
        await watch.until(lambda: any(text.startswith(lost) for text, _ in state.log))
        assert state.status_detail == "the server is stopping"
        if library_gives_up:
            await watch.until(lambda: bridge.client is None and bridge.token is not None)
        assert sum(text.startswith(lost) for text, _ in state.log) == 1  # said once, not per retry
        await nursery.start(partial(serve, "127.0.0.1", port))  # ...and comes back empty
        await watch.until(lambda: state.status == "connected" and state.view is None, timeout=20)
        await watch.until(lambda: state.room is None and state.rooms == [])
        # The log went with the room; what became of the seat is said instead.
        assert [n.text for n in state.current_notices()] == [
            f"Your seat in room {room} is no longer held: choose a room."]
        nursery.cancel_scope.cancel()


async def test_a_new_connection_resumes_the_seat_without_repeating_the_log(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """When the library gives up resuming, the UI's next connection takes the seat back,
    and goes on checking its deals; the room's log replayed to the new connection is not
    shown twice."""
    monkeypatch.setattr(session, "RETRY_DELAYS", ())
    async with trio.open_nursery() as nursery:
        _, state, bridge, _send, watch = await start(nursery)
        await watch.until(lambda: state.view is not None)
        old = bridge.client
        assert old is not None and old.stream is not None
        token = old.token
        await trio.aclose_forcefully(old.stream)
        await watch.until(lambda: bridge.client not in (None, old) and state.status == "connected")
        await watch.until(lambda: bridge.client is not None and bridge.client.view() is not None)
        assert bridge.client.token == token and state.view is not None and state.view.seat == 0
        # the checks of the seat's deals go on from what the old connection saw
        assert bridge.client.verifier is old.verifier and old.verifier is not None
        log = list(state.log)
        starts = [line for line in log if "round 1" in line[0]]
        assert len(starts) == 1 and log.count(log[0]) == 1  # shown once each
        nursery.cancel_scope.cancel()


async def test_a_restarted_uno_join_takes_its_seat_back(tmp_path) -> None:
    """The client stops mid-match (nothing said to the server); the next one with the
    same server and name resumes the seat from the file and says so."""
    seats = SavedSeats(tmp_path / "seats.json")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=3))
        first = trio.CancelScope()
        state, watch = UIState(name="ann"), Watch()
        bridge = Bridge(state, "127.0.0.1", port, "ann", watch, AutoStart(bots=2), saved=seats)

        async def run_first() -> None:
            with first:
                await bridge.run(trio.open_memory_channel[Command](16)[1])

        nursery.start_soon(run_first)
        await watch.until(lambda: state.view is not None)
        room, token = bridge.client.room, bridge.client.token
        server_id = bridge.client.welcome.server_id
        assert server_id and seats.latest(f"127.0.0.1:{port}", "ann", server_id) == SavedSeat(room, token)
        bob, _, to_bob, bob_sees = player(nursery, port, "bob")  # watches the seat go away
        await bob_sees.until(lambda: bool(bob.rooms))
        await to_bob.send(Request("join", {"room": room, "role": "spectator"}))
        await bob_sees.until(lambda: bob.room_id == room)
        first.cancel()  # stopped: no leave, but its socket is closed
        await bob_sees.until(lambda: bob.presence.get(0) == "away")
        again, _, _, sees = player(nursery, port, "ann", saved=seats)
        back = f"You are back in your seat (seat 0) in room {room}."
        await sees.until(lambda: any(t == back for t, _ in again.log))
        assert again.room_id == room and again.view is not None and again.view.seat == 0
        await sees.until(lambda: again.presence.get(0) == "connected")  # the room's word folded
        lines = [t for t, _ in again.log]
        assert lines.index(back) > next(i for i, t in enumerate(lines) if "round 1" in t)  # after the replay
        assert any(n.text == back for n in again.current_notices())
        # The replay said the seat was away; that it is back is said once, with the room.
        assert "you lost the connection: your seat is held" in lines
        assert "you are back at the table" not in lines
        nursery.cancel_scope.cancel()


async def test_a_seat_that_is_gone_is_forgotten_and_the_lobby_shown(tmp_path) -> None:
    seats = SavedSeats(tmp_path / "seats.json")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=3))
        seats.save(f"127.0.0.1:{port}", "ann", "r7", "expired-token-000000")
        state, _, _, sees = player(nursery, port, "ann", saved=seats)
        await sees.until(lambda: any("no longer held" in n.text for n in state.current_notices()))
        assert state.room is None and state.view is None
        assert seats.latest(f"127.0.0.1:{port}", "ann") is None
        nursery.cancel_scope.cancel()


async def test_the_lobby_refreshes_itself_and_a_new_room_starts_a_new_log(monkeypatch) -> None:
    monkeypatch.setattr("unolan.client.tui.net.LOBBY_REFRESH", 0.05)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
        ann, _, to_ann, ann_sees = player(nursery, port, "ann")
        await ann_sees.until(lambda: ann.status == "connected" and ann.rooms == [])
        bob, _, to_bob, bob_sees = player(nursery, port, "bob")
        await bob_sees.until(lambda: bob.status == "connected")
        await to_bob.send(Request("create_room", {"name": "den", "preset": "house", "seats": 3,
                                                  "timer": 0, "options": {}}))
        await ann_sees.until(lambda: [r["name"] for r in ann.rooms] == ["den"])  # no key pressed
        await to_ann.send(Request("join", {"room": ann.rooms[0]["room"], "role": "player"}))
        await ann_sees.until(lambda: ann.room is not None and any("joined" in t for t, _ in ann.log))
        await to_ann.send(Say("hello den"))
        await ann_sees.until(lambda: ("ann", "hello den") in ann.chat)
        await to_ann.send(Request("leave"))
        await ann_sees.until(lambda: ann.room is None)
        await to_ann.send(Request("create_room", {"name": "attic", "preset": "house", "seats": 2,
                                                  "timer": 0, "options": {}}))
        await ann_sees.until(lambda: ann.room is not None and ann.room.get("name") == "attic")
        assert not ann.chat and all("bob" not in t for t, _ in ann.log)
        nursery.cancel_scope.cancel()


async def test_a_silent_server_is_reported_with_the_reason(monkeypatch) -> None:
    monkeypatch.setattr(session, "CONNECT_TIMEOUT", 0.2)

    async def silent(stream: trio.SocketStream) -> None:
        await trio.sleep_forever()

    async with trio.open_nursery() as nursery:
        (listener,) = await nursery.start(partial(trio.serve_tcp, silent, 0, host="127.0.0.1"))
        port = listener.socket.getsockname()[1]
        state, _, _, watch = player(nursery, port, "ann")
        await watch.until(lambda: state.last_failure)
        assert "accepted the connection but did not answer within 0.2 seconds" in state.last_failure
        assert state.status in ("offline", "connecting")
        nursery.cancel_scope.cancel()


async def test_the_lobby_removes_a_remote_bot() -> None:
    """A `uno bot` client in the room shows as a bot, and the host's `-` (remove_bot on
    the last bot's seat) frees its seat over the real connection."""
    from unolan.client import seat_bots

    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
        ann, to_ann, sees = await host_den(nursery, port)
        nursery.start_soon(partial(seat_bots, "127.0.0.1", port, strategy="greedy", count=1,
                                   room=ann.room_id))
        await sees.until(lambda: len(ann.bots) == 1)
        await to_ann.send(Request("remove_bot", {"seat": sorted(ann.bots)[-1]}))
        await sees.until(lambda: not ann.bots and [s["kind"] for s in ann.room["seats"]] == ["human", "empty", "empty"])
        assert not ann.current_notices()  # nothing refused
        nursery.cancel_scope.cancel()


async def test_a_two_table_room_shows_the_own_table_and_a_panel_for_the_other() -> None:
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from unolan.client.tui.other_panel import panel
    from unolan.client.tui.other_table import OtherTable
    from unolan.client.tui.state import color_word

    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
        auto = AutoStart(bots=7, options={"partner_rotation": True, "rounds": 1})
        state, bridge, send, watch = player(nursery, port, "ann", auto)
        await watch.until(lambda: state.view is not None and state.other_table is not None)
        client = bridge.client
        assert client is not None
        tables = client.mirror
        own = tables.own  # type: ignore[union-attr]
        seats = tables.seats[own]  # type: ignore[union-attr]
        # the own table as any table: four players in table order, ann among them as "you"
        assert state.view.seat == seats.index(0) and len(state.view.counts) == 4
        assert [state.names[i] for i in range(4)] == ["ann" if s == 0 else f"bot-{s}" for s in seats]
        assert state.name_of(state.view.seat) == "you"
        # the other table in its panel: its four players, their counts, its top card
        other = state.other_table
        assert other.table == 1 - own and "ann" not in other.names
        assert sorted(other.names) == sorted(f"bot-{s}" for s in tables.seats[1 - own])  # type: ignore[union-attr]
        text = fragment_list_to_text(panel(state, 54))
        assert f"table {2 - own}" in text and all(name in text for name in other.names)
        # once that table is dealt: the color to match beside its top card
        await watch.until(lambda: state.other_table is not None and state.other_table.color is not None)
        color = state.other_table.color
        assert color in ("R", "Y", "G", "B")
        assert f"] {color_word(color)} · " in fragment_list_to_text(panel(state, 54))
        now = OtherTable.of(tables, {})  # type: ignore[arg-type]
        assert now is not None and now.color == tables.mirrors[1 - own].color  # type: ignore[union-attr]
        # the log of the match tells of the own table alone
        others = set(other.names)
        lines = [line for line, _ in state.log]
        match = lines[next(i for i, line in enumerate(lines) if line.startswith("— round 1")):]
        assert not any(name in line for line in match for name in others)
        await watch.until(lambda: state.my_turn)
        legal = [a for a in state.legal() if isinstance(a, Play) and a.seat == state.view.seat]
        await send.send(Act(legal[0] if legal else Draw(state.view.seat)))
        await watch.until(lambda: any(t.startswith("you ") for t, _ in state.log))
        nursery.cancel_scope.cancel()


@pytest.mark.slow
async def test_a_two_table_match_names_the_new_tables_players_and_ends_as_any_match() -> None:
    """Round 5 seats new tables: the own table names its new players (also after the
    match, when the room is back in its lobby), and once ``rotation_over`` names the
    champion the table offers what a one-table match's end offers."""
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from unolan.client.tui import render
    from unolan.client.tui.controller import Controller
    from unolan.engine import Phase

    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5))
        auto = AutoStart(bots=7, options={"partner_rotation": True, "rounds": 5})
        state, bridge, send, watch = player(nursery, port, "ann", auto)

        async def play_on() -> None:  # ann plays her first legal action each turn
            while True:
                await watch.until(lambda: state.my_turn and state.sent is None and bool(state.legal()), 60)
                state.sent = Act(state.legal()[0])
                await send.send(state.sent)

        nursery.start_soon(play_on)
        await watch.until(lambda: state.match_result is not None, 120)
        await watch.until(lambda: state.room is not None and not state.room.get("started"))
        tables = bridge.client.mirror  # type: ignore[union-attr]
        seats = tables.seats[tables.own]
        assert tables.round == 5 and seats != (0, 1, 2, 3)  # the second block's tables
        assert [state.names[i] for i in range(4)] == ["ann" if s == 0 else f"bot-{s}" for s in seats]
        assert state.view is not None and state.view.phase is Phase.MATCH_OVER
        assert state.view.legal_actions() == []
        hint = fragment_list_to_text(render.hint(state, 100))
        assert "The match is over: Enter back to the room · Esc to the lobby" in hint
        assert state.log[-1][0].endswith("is the champion!") or state.log[-1][0] == "you are the champion!"
        Controller(state, lambda command: None).play()  # Enter: back to the room, whole
        assert state.view is None and state.room is not None
        room = fragment_list_to_text(render.room(state))
        assert [e["seat"] for e in state.room["seats"]] == list(range(8))
        assert "ann" in room and "you" in next(line for line in room.splitlines() if "ann" in line)
        nursery.cancel_scope.cancel()


async def test_a_seat_back_after_a_two_table_match_ended_is_told_its_champion(tmp_path) -> None:
    """ann's client is killed mid-match; the server's autopilot plays her seat to the
    match's end; her next client resumes the seat from a snapshot (the room's log no
    longer holds the events), and the snapshot's champion is the one shown."""
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from unolan.client.tui import render
    from unolan.engine import Phase
    from unolan.server import Limits, Server

    seats = SavedSeats(tmp_path / "seats.json")
    limits = Limits(deal_pause=0.0, autopilot_delay=0.0, grace=600, room_log=8, heartbeat=3600)
    async with trio.open_nursery() as nursery:
        server = await nursery.start(partial(Server(seed=5, limits=limits).run, "127.0.0.1", 0))
        port = server.port
        first = trio.CancelScope()
        state, watch = UIState(name="ann"), Watch()
        auto = AutoStart(bots=7, options={"partner_rotation": True, "rounds": 1})
        bridge = Bridge(state, "127.0.0.1", port, "ann", watch, auto, saved=seats)

        async def run_first() -> None:
            with first:
                await bridge.run(trio.open_memory_channel[Command](16)[1])

        nursery.start_soon(run_first)
        await watch.until(lambda: state.view is not None and state.other_table is not None)
        room = server.rooms[bridge.client.room]  # type: ignore[union-attr,index]
        stream = bridge.client.stream  # type: ignore[union-attr]
        first.cancel()  # killed: the seat is held, and played by the server
        await trio.aclose_forcefully(stream)
        with trio.fail_after(30):
            while room.match is None or not room.match.over:
                await trio.sleep(0.01)
        champion = room.match.outcome()[0]
        again, again_bridge, _, sees = player(nursery, port, "ann", saved=seats)
        await sees.until(lambda: again.view is not None and again.view.phase is Phase.MATCH_OVER)
        assert again_bridge.client.resyncs == 0  # type: ignore[union-attr]
        assert again.match_result is not None
        tables = again_bridge.client.mirror  # type: ignore[union-attr]
        assert tables.champion == champion  # type: ignore[union-attr]
        name = "you" if champion == 0 else f"bot-{champion}"
        said = "you are the champion!" if champion == 0 else f"{name} is the champion!"
        assert any(line == said for line, _ in again.log), list(again.log)
        board = fragment_list_to_text(render.scoreboard(again))
        assert f"{name} won the match!" in board, board
        nursery.cancel_scope.cancel()


async def test_a_seat_back_after_a_one_table_match_ended_is_told_who_won(tmp_path) -> None:
    """As above in a room of one table: the snapshot says the match's end (``match``) as
    its match_over did, and the screen shows the winner from it."""
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from unolan.client.tui import render
    from unolan.engine import Phase
    from unolan.server import Limits, Server

    seats = SavedSeats(tmp_path / "seats.json")
    limits = Limits(deal_pause=0.0, autopilot_delay=0.0, grace=600, room_log=8, heartbeat=3600)
    async with trio.open_nursery() as nursery:
        server = await nursery.start(partial(Server(seed=5, limits=limits).run, "127.0.0.1", 0))
        first = trio.CancelScope()
        state, watch = UIState(name="ann"), Watch()
        auto = AutoStart(bots=3, options={"target_score": 1})
        bridge = Bridge(state, "127.0.0.1", server.port, "ann", watch, auto, saved=seats)

        async def run_first() -> None:
            with first:
                await bridge.run(trio.open_memory_channel[Command](16)[1])

        nursery.start_soon(run_first)
        await watch.until(lambda: state.view is not None)
        room = server.rooms[bridge.client.room]  # type: ignore[union-attr,index]
        stream = bridge.client.stream  # type: ignore[union-attr]
        first.cancel()  # killed: the seat is held, and played by the server
        await trio.aclose_forcefully(stream)
        with trio.fail_after(30):
            while room.match is None or not room.match.game.over:
                await trio.sleep(0.01)
        end = room.match.game.match_end()
        assert end is not None
        again, again_bridge, _, sees = player(nursery, server.port, "ann", saved=seats)
        await sees.until(lambda: again.view is not None and again.view.phase is Phase.MATCH_OVER)
        assert again_bridge.client.resyncs == 0  # type: ignore[union-attr]
        assert again.match_result is not None and again.match_result["winner"] == end["winner"]
        name = "you" if end["winner"] == 0 else f"bot-{end['winner']}"
        board = fragment_list_to_text(render.scoreboard(again))
        assert f"{name} won the match!" in board, board
        nursery.cancel_scope.cancel()


def told_rotation(rounds: int) -> tuple[Any, Any, UIState]:
    """A whole two-table rotation of ``rounds`` rounds (random plays) told to seat 0's
    screen state as the networking side tells it: through the client's tables and the
    lens. The engine's rotation, the client's tables and the state, at its end."""
    import random

    from unolan.client.tables import Tables
    from unolan.client.tui.lens import TableLens
    from unolan.engine import Deal, Rules, TwoTableRotation
    from unolan.server.match import on_wire, play

    rules = Rules.preset("house", partner_rotation=True, rounds=rounds)
    rotation, rng = TwoTableRotation(rules, seed="log"), random.Random(2)
    names = {s: f"p{s}" for s in range(8)}
    tables, state = Tables(0, rules.to_dict(), 0), UIState(name="p0")
    state.log, state._said = deque(), deque()  # the whole match's log, not the last lines
    lens = TableLens(tables, names)
    seq = 0

    def tell(events: list) -> None:
        nonlocal seq
        for event in map(on_wire, events):
            seq += 1
            tables.feed(seq, event.kind, event.data_for(0))
            if event.kind == "table_seated":
                state.names = {i: names[s] for i, s in enumerate(tables.seats[tables.own])}  # as the lens's seats do
            data = lens.event(event.kind, dict(event.data_for(0)))
            if data is not None:
                state.on_event(event.kind, data)
            if tables.settled:
                state.set_view(tables.view())

    tell(rotation.start_events)
    while not rotation.over:
        if rotation.round_over:
            tell(play(rotation, Deal(0)))
        else:
            seats, game = rng.choice([t for t in rotation.tables if t[1].phase != "round_over"])
            tell(rotation.apply(rng.choice(rotation.legal_actions(seats[game.turn]))))
    return rotation, tables, state


def test_a_two_table_rooms_log_says_the_partners_the_rounds_and_the_champion() -> None:
    rotation, _tables, state = told_rotation(5)
    lines = [line for line, _ in state.log]
    partners = [line for line in lines if line.startswith("— new tables: your partner is")]
    assert partners == [f"— new tables: your partner is p{p} —"
                        for p in (7, 6)]  # blocks 1 and 2 (rounds 1-4, 5): the schedule's partners
    mine = [line for line in lines if "is over at both tables: you +" in line]
    assert len(mine) == 5 and mine[-1].endswith(f"{rotation.scores[0]} in all")
    champion = rotation.outcome().champion  # type: ignore[union-attr]
    assert lines[-1] == ("you are the champion!" if champion == 0 else f"p{champion} is the champion!")


def test_a_two_table_champion_level_with_its_partner_is_explained_as_the_engine_settled_it() -> None:
    """After one round a winning team's partners are level: the match's end says they
    tied and how the tie went (the event's tie_break), in the summary, also when the
    end is learnt from a snapshot."""
    from prompt_toolkit.formatted_text import fragment_list_to_text
    from unolan.client.tui import render
    from unolan.client.tui.lens import TableLens

    rotation, tables, state = told_rotation(1)
    outcome = rotation.outcome()
    tied = [s for s, total in enumerate(outcome.scores) if total == outcome.scores[outcome.champion]]
    assert len(tied) == 2 and tied[0] == outcome.champion
    names = ["you" if s == 0 else f"p{s}" for s in tied]
    said = f"{names[0]} and {names[1]} tied on points; the tie goes to the lowest seat number: {names[0]}"
    board = " ".join(fragment_list_to_text(render.scoreboard(state)).split())
    assert said in board, board
    again = UIState(name="p0")  # the end as a snapshot says it (lens.ended)
    again.names = dict(state.names)
    again.on_event("rotation_over", TableLens(tables, {s: f"p{s}" for s in range(8)}).ended() or {})
    assert said in " ".join(fragment_list_to_text(render.scoreboard(again)).split())


def _lan_address() -> str | None:
    """This machine's address on its LAN (not loopback), if it has one."""
    import socket
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: only the route is chosen
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


async def test_a_seat_joined_at_one_address_is_taken_back_at_another_of_the_same_server(tmp_path) -> None:
    """Joined through the LAN list's address, stopped, started again with 127.0.0.1: the
    same server (its welcome's server_id), so the seat comes back."""
    lan = _lan_address()
    if lan is None:
        pytest.skip("this machine has no LAN address")
    seats = SavedSeats(tmp_path / "seats.json")
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "0.0.0.0", 0, seed=3))
        first = trio.CancelScope()
        state, watch = UIState(name="ann"), Watch()
        bridge = Bridge(state, lan, port, "ann", watch, AutoStart(bots=2), saved=seats)

        async def run_first() -> None:
            with first:
                await bridge.run(trio.open_memory_channel[Command](16)[1])

        nursery.start_soon(run_first)
        await watch.until(lambda: state.view is not None)
        room = bridge.client.room
        first.cancel()  # killed: no leave
        again, _, _, sees = player(nursery, port, "ann", saved=seats)  # 127.0.0.1 this time
        back = f"You are back in your seat (seat 0) in room {room}."
        await sees.until(lambda: any(t == back for t, _ in again.log))
        assert again.view is not None and again.view.seat == 0
        nursery.cancel_scope.cancel()
