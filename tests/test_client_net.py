"""The client library over real TCP against the real server (127.0.0.1, port 0)."""

from __future__ import annotations

import contextlib
import importlib.util
import logging
from collections import Counter
from functools import partial
from pathlib import Path

import pytest
import trio
from unolan.client import (
    BOT_LEVELS,
    Client,
    ClientError,
    launch_bot,
    open_client,
    play,
    seat_bots,
)
from unolan.client.bot import decide
from unolan.client.session import CannotConnect
from unolan.client.strategies import GreedyBot
from unolan.engine import PRESETS, Rules
from unolan.server import serve

from unolan import protocol as pr

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "simple_bot.py"


async def start_server(nursery: trio.Nursery, **kwargs) -> int:
    return await nursery.start(partial(serve, "127.0.0.1", 0, seed=7, bot_launcher=partial(
        launch_bot, delay=0), bot_levels=tuple(BOT_LEVELS), **kwargs))


async def start_against_a_greedy_bot(client: Client) -> None:
    """A two-seat house room (to 50 points) of the client and a greedy bot, dealt."""
    await client.create_room("t", preset="house", options={"target_score": 50}, seats=2)
    await client.add_bot(level="greedy")
    await client.start()
    while client.view() is None:
        await trio.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["official", "house", "party", "all-wild"])
async def test_four_bots_finish_a_match_under_each_preset(preset: str, autojump_clock) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        results: list[tuple[int, list[int]]] = []

        async def watch(room: str) -> None:
            async with open_client("127.0.0.1", port, "watcher") as client:
                await client.join(room, role="spectator")
                async for msg in client.messages():
                    if isinstance(msg, pr.Event) and msg.kind == "match_over":
                        results.append((msg.data["winner"], list(msg.data["scores"])))
                        return

        strategies = ["counter", "greedy", "random", "counter"]
        room = await nursery.start(partial(
            seat_bots, "127.0.0.1", port, strategy="greedy", count=1, preset=preset,
            options={"target_score": 500}, seats=4, matches=1))
        nursery.start_soon(watch, room)
        async with trio.open_nursery() as bots:
            for strategy in strategies[1:]:
                bots.start_soon(partial(seat_bots, "127.0.0.1", port, strategy=strategy, count=1,
                                        room=room, matches=1))
        with trio.fail_after(600):
            while not results:
                await trio.sleep(1)
        nursery.cancel_scope.cancel()
    winner, scores = results[0]
    assert scores[winner] >= 500  # the default target: a whole match, round after round


async def test_requests_raise_with_the_protocol_code(autojump_clock) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "ann") as client:
            assert client.welcome is not None and client.welcome.version == pr.PROTOCOL_VERSION == 4
            with pytest.raises(ClientError) as info:
                await client.join("nosuchroom")
            assert info.value.code == "no_such_room"
            joined = await client.create_room("t", preset="official", seats=2)
            assert joined.seat == 0 and client.token == joined.token
            rooms = await client.list_rooms()
            assert rooms[0]["room"] == joined.room and rooms[0]["options"] == {}  # official as it is
            with pytest.raises(ClientError) as info:
                await client.start()
            assert info.value.code == "not_ready"
        nursery.cancel_scope.cancel()


async def test_the_rooms_list_names_the_options_a_room_changed_from_its_preset(autojump_clock) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "ann") as client:
            await client.create_room("t", preset="house", options={"stacking": "same", "target_score": 300})
            (room,) = await client.list_rooms()
            assert room["preset"] == "house" and room["options"] == {"stacking": "same", "target_score": 300}
        nursery.cancel_scope.cancel()


async def test_server_bots_use_the_client_launcher_and_the_mirror_matches_snapshots(
        autojump_clock) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "ann") as client:
            await client.create_room("t", preset="house", options={"target_score": 50}, seats=3)
            await client.add_bot(level="counter")
            await client.add_bot(level="random")
            await client.start()
            bot = GreedyBot()
            checked = 0
            async for msg in client.messages():
                if isinstance(msg, pr.Event) and msg.kind == "turn" and checked < 20:
                    # The mirror against the server's own view of this seat.
                    mine, seq = client.mirror.to_dict(), client.seq
                    reply = await client.request(pr.Sync())
                    if reply.seq == seq:  # nothing happened meanwhile
                        assert normal(reply.view) == normal(mine)
                        checked += 1
                if isinstance(msg, pr.Event) and msg.kind == "match_over":
                    break
                view = client.view()
                if view is not None and view.turn == client.seat:
                    action = decide(bot, view)
                    if action is not None:
                        try:
                            await client.act(action)
                        except ClientError as exc:
                            assert exc.code == "too_late"
            assert checked > 0
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(("preset", "think"), [("official", 0.6), ("house", 1.2)])
async def test_the_servers_bots_think_twice_as_long_under_jump_in_rules(preset: str, think: float,
                                                                       autojump_clock) -> None:
    """At the bots' usual pace the next bot played before a person had taken in the card:
    where jump-ins are played, they leave a person the time to jump in."""
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=7, bot_launcher=launch_bot,
                                           bot_levels=tuple(BOT_LEVELS)))
        async with open_client("127.0.0.1", port, "ann") as client:
            await client.create_room("t", preset=preset, seats=2)
            await client.add_bot(level="greedy")
            await client.start()
            gaps: list[float] = []
            asked: float | None = None  # when the bot's turn came
            async for msg in client.messages():
                if not isinstance(msg, pr.Event):
                    continue
                if asked is not None:
                    gaps.append(trio.current_time() - asked)
                    asked = None
                if msg.kind == "turn" and msg.data["seat"] == 1 and msg.data["phase"] == "play":
                    asked = trio.current_time()
                if len(gaps) == 5:
                    break
                view = client.view()
                if msg.kind == "turn" and view is not None and view.turn == client.seat:
                    action = decide(GreedyBot(), view)
                    if action is not None:
                        with contextlib.suppress(ClientError):
                            await client.act(action)
            assert all(abs(gap - think) < 0.05 for gap in gaps), gaps
        nursery.cancel_scope.cancel()


def normal(value):
    """Plain lists and dicts, for comparing wire data (tuples, frozen maps) with the mirror's."""
    if isinstance(value, (list, tuple)):
        return [normal(v) for v in value]
    if isinstance(value, dict):
        return {k: normal(v) for k, v in value.items()}
    return value


async def test_a_gap_in_seq_is_repaired_from_a_snapshot(autojump_clock) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "ann") as client:
            await start_against_a_greedy_bot(client)
            # Lose events on purpose: the mirror forgets where it was.
            client.mirror.seq -= 3
            await client.chat("hello")  # the next event shows the gap
            played = 0
            async with trio.open_nursery() as inner:
                inner.start_soon(partial(play, client, GreedyBot(), matches=1))
                while client.resyncs == 0:
                    await trio.sleep(0.1)
                while client._syncing:
                    await trio.sleep(0.01)
                # Resynced: the mirror equals the server's view for this seat.
                reply = await client.request(pr.Sync())
                if reply.seq == client.seq:
                    assert normal(reply.view) == normal(client.mirror.to_dict())
                    played += 1
                inner.cancel_scope.cancel()
            assert client.resyncs >= 1
        nursery.cancel_scope.cancel()


@pytest.mark.slow
async def test_the_example_bot_plays_a_whole_match(autojump_clock) -> None:
    spec = importlib.util.spec_from_file_location("simple_bot", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    assert len(EXAMPLE.read_text().splitlines()) <= 40
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "host") as host:
            joined = await host.create_room("t", preset="official", options={"target_score": 100},
                                            seats=3)
            await host.add_bot(level="greedy")
            done = trio.Event()

            async def run_example() -> None:
                await example.main(joined.room, "127.0.0.1", port)
                done.set()

            nursery.start_soon(run_example)
            while True:  # wait until the example is seated and ready
                seats = host.seats
                if seats is not None and all(s["ready"] or s["seat"] == 0 for s in seats.seats) \
                        and all(s["kind"] != "empty" for s in seats.seats):
                    break
                await trio.sleep(0.1)
            await host.start()
            async with trio.open_nursery() as inner:
                inner.start_soon(partial(play, host, GreedyBot(), matches=1))
                with trio.fail_after(3600):
                    await done.wait()
                inner.cancel_scope.cancel()
        nursery.cancel_scope.cancel()


async def test_reconnect_resumes_the_seat(autojump_clock) -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "ann") as client:
            await start_against_a_greedy_bot(client)
            token = client.token
            await client.stream.aclose()  # the network drops
            kinds = []
            async for msg in client.messages():
                kinds.append(type(msg).__name__)
                if type(msg).__name__ == "Reconnected":
                    break
            assert "Disconnected" in kinds
            while client.seats is None or client.seats.seats[0]["state"] != "connected":
                await trio.sleep(0.1)
            assert client.token == token and client.seat == 0
            async with trio.open_nursery() as inner:
                inner.start_soon(partial(play, client, GreedyBot(), matches=1))
                await trio.sleep(1)
                reply = await client.request(pr.Sync())
                if reply.seq == client.seq:
                    assert normal(reply.view) == normal(client.mirror.to_dict())
                inner.cancel_scope.cancel()
        nursery.cancel_scope.cancel()


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["party", "house"])
async def test_fast_bots_are_refused_only_for_lost_races(preset: str, caplog, autojump_clock) -> None:
    """Bots acting at once on every settled table, for several matches: a refusal other
    than ``too_late`` (or ``cannot_catch``, a lost catch race) would mean a bot was judged
    against a table it never saw (e.g. it acted before the rest of an action's events)."""
    caplog.set_level(logging.DEBUG, logger="unolan.client.bot")
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        room = await nursery.start(partial(
            seat_bots, "127.0.0.1", port, strategy="random", count=1, preset=preset,
            options={"target_score": 200}, seats=4, matches=8))
        async with trio.open_nursery() as bots:
            for strategy in ["greedy", "counter", "greedy"]:
                bots.start_soon(partial(seat_bots, "127.0.0.1", port, strategy=strategy, count=1,
                                        room=room, matches=8))
        nursery.cancel_scope.cancel()
    codes = Counter(r.args[2] for r in caplog.records if "refused" in str(r.msg))
    assert set(codes) <= {"too_late", "cannot_catch"}, [r.getMessage() for r in caplog.records if "refused" in str(r.msg) and r.args[2] != "too_late"]


@pytest.mark.slow
async def test_a_player_and_the_bots_come_back_after_a_server_restart(tmp_path, thread_clock) -> None:
    db = tmp_path / "rooms.db"
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery, db_path=db)
        async with open_client("127.0.0.1", port, "ann", reconnect=False) as client:
            await client.create_room("t", preset="house", options={"target_score": 100}, seats=3)
            await client.add_bot(level="greedy")
            await client.add_bot(level="counter")
            await client.start()
            async with trio.open_nursery() as inner:
                inner.start_soon(partial(play, client, GreedyBot(), matches=1))
                while client.seq < 60:
                    await trio.sleep(0.05)
                inner.cancel_scope.cancel()
            token, room, seat = client.token, client.room, client.seat
            nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery, db_path=db)
        async with open_client("127.0.0.1", port, "ann") as client:
            joined = await client.resume(token, 0)
            assert (joined.room, joined.seat) == (room, seat)
            with trio.fail_after(600):  # the bots are relaunched and resume with their tokens
                while [s["state"] for s in client.seats.seats] != ["connected"] * 3:
                    await trio.sleep(0.01)
                assert await play(client, GreedyBot(), matches=1) == 1
        nursery.cancel_scope.cancel()


def test_rules_presets_exist() -> None:
    """The four presets a client offers, each its own rule set, named and written as asked."""
    rule_sets = [Rules.preset(name) for name in ["official", "house", "party", "all-wild"]]
    assert [rules.preset_name for rules in rule_sets] == list(PRESETS)
    assert all(Rules.parse(str(rules)) == rules for rules in rule_sets)
    options = {tuple(sorted(rules.to_dict().items() - {("preset", rules.preset_name)})) for rules in rule_sets}
    assert len(options) == 4


async def test_an_error_in_the_block_comes_out_as_itself(autojump_clock) -> None:
    """``open_client`` runs its reader in a nursery; an error raised in the caller's block
    is not wrapped in the nursery's ExceptionGroup, so a plain ``except`` catches it."""
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        try:
            async with open_client("127.0.0.1", port, "ann") as client:
                await client.join("k3f9")
        except ClientError as exc:
            assert exc.code == "no_such_room"
        else:
            raise AssertionError("the join was not refused")
        nursery.cancel_scope.cancel()


async def test_connecting_to_nothing_says_why_in_words() -> None:
    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(CannotConnect, match=f"nothing is listening on 127.0.0.1:{port}"):
        async with open_client("127.0.0.1", port, "ann"):
            pass


async def test_teams_from_a_rule_set_and_bots_that_say_so(autojump_clock) -> None:
    """A rule set's options (``Rules.parse('house teams=2').changes()``) create a room with
    two teams; bots seated by ``seat_bots`` show as bots (a person's seat does not); the
    first bot reports who won each round and the match."""
    rules = Rules.parse("house teams=2 target_score=60")
    lines: list[str] = []
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        room = await nursery.start(partial(
            seat_bots, "127.0.0.1", port, strategy="greedy", count=3, seats=4,
            preset=rules.preset_name, options=rules.changes(), matches=1, report=lines.append))
        async with open_client("127.0.0.1", port, "ann") as client:
            await client.join(room)
            while client.seats is None or sum(s["kind"] != "empty" for s in client.seats.seats) < 4:
                await trio.sleep(0.01)
            assert client.seats.rules["teams"] == 2
            flags = {s["seat"]: s["bot"] for s in client.seats.seats}
            assert flags.pop(client.seat) is False and all(flags.values())
            await client.ready()
            with trio.fail_after(600):
                assert await play(client, GreedyBot(), matches=1) == 1
                while not any(line.startswith(f"room {room}: match 1 won by") for line in lines):
                    await trio.sleep(0.1)
        nursery.cancel_scope.cancel()
    assert lines[0] == f"room {room}: match 1 started"
    assert any(line.startswith(f"room {room}: round 1 won by ") for line in lines)
    assert "final scores: team 1 (greedy1 and " in lines[-1]


async def test_bots_take_their_seats_in_the_order_they_are_named(autojump_clock) -> None:
    """uno bot --count 4: greedy1 at seat 0 to greedy4 at seat 3, as the history, the
    replays and the scores then name them (they joined at once, in any order, before)."""
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        room = await nursery.start(partial(seat_bots, "127.0.0.1", port, strategy="greedy", count=4))
        async with open_client("127.0.0.1", port, "eve") as watcher:
            await watcher.join(room, role="spectator")
            while watcher.seats is None or any(s["kind"] == "empty" for s in watcher.seats.seats):
                await trio.sleep(0.01)
            assert [s["name"] for s in watcher.seats.seats] == ["greedy1", "greedy2", "greedy3", "greedy4"]
        nursery.cancel_scope.cancel()


async def test_a_request_after_the_server_said_goodbye_is_a_lost_connection(autojump_clock) -> None:
    """A server that stops sends its fatal error; a request made afterwards (a bot's sync)
    is ConnectionLost, which the bots' runner reports in one line, not a protocol error."""
    from unolan.client.session import ConnectionLost

    stopping = trio.CancelScope()

    async def server(task_status=trio.TASK_STATUS_IGNORED) -> None:
        with stopping:
            await serve("127.0.0.1", 0, seed=7, task_status=task_status)

    raised = []
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server)
        with contextlib.suppress(ConnectionLost):  # its reader may end the block so too
            async with open_client("127.0.0.1", port, "ann") as client:
                stopping.cancel()  # the server stops: shutting_down, fatal
                with trio.fail_after(5):
                    while client.conn is not None and client.conn.state is not pr.State.CLOSED:
                        await trio.sleep(0.01)
                try:
                    await client.sync()
                except ConnectionLost as exc:
                    raised.append(exc)
    assert len(raised) == 1


async def test_the_host_removes_a_remote_bot_and_the_others_play_on(autojump_clock) -> None:
    """A seat played by a `uno bot` client (a program, by its hello) is a bot the host can
    remove between matches, as the lobby's `-` asks: the seat is freed, that bot's
    connection ends with `removed` (it does not come back) and says so in one line; the
    other bot stays seated. A person's seat is still no bot to remove (bad_seat)."""
    lines: list[str] = []
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "ann") as host:
            joined = await host.create_room("t", preset="house", seats=3)
            done = trio.Event()

            async def bots() -> None:
                await seat_bots("127.0.0.1", port, strategy="greedy", count=2, room=joined.room,
                                report=lines.append)
                done.set()

            nursery.start_soon(bots)
            while host.seats is None or sum(s["bot"] for s in host.seats.seats) < 2:
                await trio.sleep(0.01)
            with pytest.raises(ClientError) as refused:
                await host.remove_bot(seat=0)
            assert refused.value.code == "bad_seat"
            await host.remove_bot(seat=2)
            with trio.fail_after(30):
                while not any("removed" in line for line in lines):
                    await trio.sleep(0.01)
                await trio.sleep(5)  # long enough for a reconnect, were it to try one
            assert [s["kind"] for s in host.seats.seats] == ["human", "human", "empty"]
            removed = next(line for line in lines if "removed" in line)
            assert removed.endswith(f"the host removed this bot from room {joined.room}")
            assert not done.is_set()  # the other bot plays on
        nursery.cancel_scope.cancel()


async def test_the_client_offers_versions_2_to_4_and_plays_with_an_older_server(
        autojump_clock, monkeypatch: pytest.MonkeyPatch) -> None:
    """The client's hello offers every version it speaks; a server limited to version 2
    chooses 2 and the match is played (no nonce is sent: that server deals alone), and one
    limited to version 3 chooses 3 (an unseeded server: the fair deal, with nonces, and
    no deal found wrong). A server speaking only version 1 gets one line naming both
    sides' versions."""
    from unolan.protocol import connection

    assert pr.Connection(pr.CLIENT).versions == pr.CLIENT_VERSIONS == (2, 3, 4)
    for server_versions in ((1, 2), (1, 2, 3)):
        monkeypatch.setattr(connection, "SUPPORTED_VERSIONS", server_versions)
        async with trio.open_nursery() as nursery:
            port = await nursery.start(partial(serve, "127.0.0.1", 0, bot_launcher=partial(
                launch_bot, delay=0), bot_levels=tuple(BOT_LEVELS)))  # fair: no seed
            async with open_client("127.0.0.1", port, "ann") as client:
                assert client.welcome is not None and client.welcome.version == server_versions[-1]
                await start_against_a_greedy_bot(client)
                with trio.fail_after(600):
                    assert await play(client, GreedyBot(), matches=1) == 1
                assert client.verifier is not None
                assert bool(client.verifier.nonces) == (server_versions[-1] == 3)  # sent at v3 only
                assert all(v.ok for v in client.verifier.verdicts)
            nursery.cancel_scope.cancel()
    monkeypatch.setattr(connection, "SUPPORTED_VERSIONS", (1,))
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        with pytest.raises(CannotConnect) as refused:
            async with open_client("127.0.0.1", port, "ann"):
                pass
        assert str(refused.value) == (f"127.0.0.1:{port} speaks protocol 1; this uno speaks 2/3/4: "
                                      "update one of them")
        nursery.cancel_scope.cancel()


@pytest.mark.slow
async def test_bots_come_back_to_a_server_away_long_after_a_match_ended(tmp_path, thread_clock) -> None:
    """`uno bot`'s bots, their server stopped just after a match's last card and away for
    20 seconds (past the few seconds a client retries by default), take their seats
    back when it is up again and play the next match; uno bot says what happens."""
    from unolan.server import Server

    db = tmp_path / "rooms.db"
    with trio.socket.socket() as sock:
        await sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    first = trio.CancelScope()
    lines: list[str] = []

    async def server(scope: trio.CancelScope | None = None, task_status=trio.TASK_STATUS_IGNORED) -> None:
        with scope or trio.CancelScope():
            await Server(seed=7, db_path=db).run("127.0.0.1", port, task_status=task_status)

    async with trio.open_nursery() as nursery:
        before = await nursery.start(server, first)
        room_id = await nursery.start(partial(seat_bots, "127.0.0.1", port, strategy="greedy",
                                              count=2, options={"target_score": 30},
                                              report=lines.append))
        room = before.rooms[room_id]
        with trio.fail_after(60):
            while room.ledger.matches < 1 or room.started:  # the first match's last card
                await trio.sleep(0)
        first.cancel()
        await trio.sleep(20)
        after = await nursery.start(server)
        with trio.fail_after(120):
            while after.rooms[room_id].ledger.matches < 2 or after.rooms[room_id].started:
                await trio.sleep(0.05)
        nursery.cancel_scope.cancel()
    where = f"127.0.0.1:{port}"  # what uno bot says meanwhile
    assert (f"room {room_id}: the server is stopping; the bots take their seats back once {where} "
            "answers again (Ctrl-C stops them)") in lines and f"room {room_id}: back on {where}" in lines


async def test_a_client_hears_that_the_server_is_stopping(autojump_clock) -> None:
    """A host stopping its server (Ctrl-C) tells every client why before it closes: the
    library's Disconnected says it (not only that the connection closed)."""
    from unolan.client.session import Disconnected

    stopping = trio.CancelScope()

    async def server(task_status=trio.TASK_STATUS_IGNORED) -> None:
        with stopping:
            await serve("127.0.0.1", 0, seed=7, task_status=task_status)

    async with trio.open_nursery() as nursery:
        port = await nursery.start(server)
        async with open_client("127.0.0.1", port, "ann") as client:
            await client.create_room("t", seats=2)
            stopping.cancel()
            with trio.fail_after(5):
                async for msg in client.messages():
                    if isinstance(msg, Disconnected):
                        break
            assert (msg.reason, msg.said, msg.error) == ("the server is stopping",) * 2 + ("",)
            nursery.cancel_scope.cancel()
