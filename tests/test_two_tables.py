"""A two-table room over real TCP: eight seats, partner rotation, both tables at once."""

from __future__ import annotations

import json
import random
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from test_hidden import audit_tables
from test_server import FAST, Audit, Raw, frame, running, seat_bots, settle
from unolan.server import Bot, Limits, Server
from unolan.server.eventlog import EventLog
from unolan.server.match import TwoTables

from unolan import engine as en
from unolan import protocol as pr

ROTATION = {"partner_rotation": True}


async def play_room(server: Server, frames: Audit | None = None, bots: list[Bot] | None = None,
                    tokens: list[str] | None = None, **options: Any) -> list[Bot]:
    """Eight bots in one two-table room (or back in it with ``tokens``), to the match's end."""
    create = pr.CreateRoom(name="two", seats=8, options={**ROTATION, **options})
    return await seat_bots(server, create, frames, tokens=tokens, bots=bots)


def check_frames(frames: Audit, bots: list[Bot]) -> int:
    """Every table event says its table; no seat gets the other table's hidden cards."""
    events = 0
    for bot in bots:
        seen = frames.frames[id(bot)]
        for msg in seen:
            if isinstance(msg, pr.Event) and msg.kind in en.EVENT_KINDS:
                assert msg.data.get("table") in (0, 1), msg
                events += 1
        audit_tables(seen, bot.seat)
    return events


async def test_eight_bots_play_a_short_rotation_at_both_tables() -> None:
    frames = Audit()
    async with running(seed=3) as server:
        bots = await play_room(server, frames, rounds=2)
        room = server.rooms["r1"]
    assert isinstance(room.match, TwoTables) and room.match.rotation.over
    assert all(b.matches == 1 for b in bots)  # the rotation's end is the match's
    assert len(room.match.rotation.history) == 2 and sum(b.actions for b in bots) > 16
    assert check_frames(frames, bots) > 200
    for bot in bots:
        kinds = [m.kind for m in frames.frames[id(bot)] if isinstance(m, pr.Event)]
        assert kinds.count("rotation_round_over") == 2 and kinds[-1] == "rotation_over"
        over = [m for m in frames.frames[id(bot)] if isinstance(m, pr.Event) and m.kind == "rotation_over"]
        assert list(over[0].data["scores"]) == room.match.rotation.scores and "table" not in over[0].data


@pytest.mark.slow
async def test_eight_bots_play_a_whole_cycle_of_28_rounds() -> None:
    frames = Audit()
    async with running(seed=4) as server:
        bots = await play_room(server, frames)
        room = server.rooms["r1"]
    assert isinstance(room.match, TwoTables) and room.match.rotation.over
    assert len(room.match.rotation.history) == 28
    outcome = room.match.rotation.outcome()
    assert outcome is not None and list(outcome.scores) == room.match.rotation.scores
    check_frames(frames, bots)
    seated = [m for m in frames.frames[id(bots[0])] if isinstance(m, pr.Event) and m.kind == "table_seated"]
    assert len(seated) == 2 * 7  # both tables at each of the 7 blocks


async def test_a_resume_mid_cycle_restores_both_tables(tmp_path: Path) -> None:
    db = tmp_path / "two.db"
    bots: list[Bot] = []
    async with trio.open_nursery() as outer:
        server = await outer.start(partial(Server(seed=8, limits=FAST, db_path=db).run, "127.0.0.1", 0))

        async def stop_mid_round() -> None:
            while "r1" not in server.rooms or server.rooms["r1"].actions < 60:
                await trio.sleep(0.001)
            outer.cancel_scope.cancel()  # the host stops, as a kill -9 would (write-ahead)

        outer.start_soon(stop_mid_round)
        await play_room(server, bots=bots, rounds=3)
    before = {b.seat: b.token for b in bots}
    assert None not in before and len(before) == 8
    async with running(seed=8, db_path=db) as server:
        room = server.rooms["r1"]
        assert room.started and isinstance(room.match, TwoTables)
        match = room.match.rotation
        assert 0 < room.actions <= 60 + 8 and not match.over
        # a seat back in: both tables in its snapshot, its own as its seat, the other hidden
        ann = await Raw.connect(server.port, "ann")
        seat = 5
        await ann.send(pr.Resume(token=before[seat], seq=0))  # type: ignore[arg-type]
        snap = await ann.expect("snapshot")
        assert isinstance(snap, pr.Snapshot) and snap.tables is not None and snap.rotation is not None
        own, local = match.locate(seat)
        for table in snap.tables:
            game = match.tables[table["table"]][1]
            assert tuple(table["seats"]) == match.seats_at(table["table"])
            if table["table"] == own:
                assert table["view"]["seat"] == local
                assert list(table["view"]["hand"]) == [c.text for c in game.hands[local]]
            else:
                assert table["view"]["seat"] is None and not table["view"]["hand"]
            assert list(table["view"]["counts"]) == [len(h) for h in game.hands]
        assert snap.view == snap.tables[own]["view"]
        assert snap.rotation["round"] == match.round and list(snap.rotation["scores"]) == match.scores
        await ann.stream.aclose()
        # and the match plays on to its end from there
        tokens = [before[i] for i in range(8)]
        await trio.sleep(0.1)
        await play_room(server, tokens=tokens)  # type: ignore[arg-type]
        assert room.match.rotation is match and match.over and len(match.history) == 3


async def test_the_round_under_way_at_a_restart_is_revealed_at_its_end_at_both_tables(tmp_path: Path) -> None:
    """An unseeded two-table room stops mid-round; restored, it reveals that round at its
    end as a one-table room does, and both tables were dealt from the seed revealed."""
    from unolan.server import history
    from unolan.server.replay import Replay

    db = tmp_path / "two.db"
    bots: list[Bot] = []
    quick = Limits(**{**FAST.__dict__, "nonce_wait": 0.3})
    async with trio.open_nursery() as outer:
        server = await outer.start(partial(Server(seed=None, limits=quick, db_path=db).run, "127.0.0.1", 0))

        async def stop_mid_round() -> None:
            while "r1" not in server.rooms or server.rooms["r1"].actions < 20:
                await trio.sleep(0.001)
            outer.cancel_scope.cancel()

        outer.start_soon(stop_mid_round)
        await play_room(server, bots=bots, rounds=2)
    tokens = [b.token for b in sorted(bots, key=lambda b: b.seat)]
    frames = Audit()
    async with running(quick, seed=None, db_path=db) as server:
        room = server.rooms["r1"]
        assert isinstance(room.match, TwoTables) and not room.match.rotation.round_over
        restored = room.match.rotation.round
        deal = room.ledger.fair.dealt
        assert deal is not None and deal.round == restored
        seeds = [game.seed for _, game in room.match.rotation.tables]
        await play_room(server, frames, tokens=tokens)  # type: ignore[arg-type]
        assert room.match.rotation.over
        with trio.fail_after(5):  # kept once its last races are over
            while not history.list_matches(reader := history.open_history(db)):
                await trio.sleep(0.05)
    reveals = [m for m in next(iter(frames.frames.values()))
               if isinstance(m, pr.Event) and m.kind == "reveal"]
    revealed = next(m.data for m in reveals if m.data["round"] == restored)
    assert en.commitment(revealed["secret"], revealed["salt"]) == deal.commitment
    assert en.round_seed(revealed["secret"], list(revealed["nonces"])) == revealed["seed"]
    assert seeds == [f"{revealed['seed']}/table {t}" for t in range(2)]
    # The match cut by the stop is kept whole once over: it replays, across the restart,
    # to the room's totals, and its rounds' deals are kept with it.
    (kept,) = history.list_matches(reader)
    match = history.load_match(reader, kept.id)
    assert Replay(match).final.outcome()[1] == room.match.rotation.scores == kept.scores
    assert [r["round"] for r in match.rounds] == [1, 2]


async def test_a_seat_back_after_a_restart_restarts_its_own_tables_turn_clock_only(
        tmp_path: Path, thread_clock: trio.abc.Clock) -> None:
    """After a restore every turn waits for its player; one coming back has the turn
    timer of its table start again from then, while the other table's runs on."""
    from test_server import table

    db = tmp_path / "two.db"
    limits = Limits(deal_pause=0.0, autopilot_delay=0.5, restore_grace=15, grace=600, heartbeat=3600)
    async with running(limits, seed=4, db_path=db) as server:
        clients, room_id = await table(server, 8, timer=30, **ROTATION)
        tokens = [c.token for c in clients]
        await settle(*clients)
    async with running(limits, seed=4, db_path=db) as server:
        room = server.rooms[room_id]
        assert isinstance(room.match, TwoTables)
        match, actions = room.match.rotation, room.actions
        assert all(clock.pilot is not None for clock in room.turns.values())  # held for their players
        back: list[Raw] = []
        times = {}
        for table_ in (1, 0):  # table 1's player first, table 0's six seconds later
            await trio.sleep(3 if table_ else 6)
            seats, game = match.tables[table_]
            client = await Raw.connect(server.port, f"again{table_}")
            resumed = await client.reply(pr.Resume(token=tokens[seats[game.turn]], seq=room.seq, id=1))
            assert resumed.TYPE == "joined"
            times[table_] = trio.current_time()
            back.append(client)
        for table_, at in times.items():  # each table's timer runs from its own player's return
            assert room.turns[table_].turn == pytest.approx(at + 30, abs=0.5), table_
        assert room.actions == actions  # nobody played meanwhile: the clocks are the ones timed
        for client in back:
            await client.aclose()


async def test_a_two_table_room_needs_eight_or_four_seats_and_a_version_4_client() -> None:
    async with running() as server:
        host = await Raw.connect(server.port, "ann")
        await host.send_bytes(frame({"type": "create_room", "name": "t", "seats": 6,
                                     "options": ROTATION, "id": 9}))
        bad = await host.expect("error", id=9)
        assert bad.code == "bad_message" and "4 players at one table or 8 at two, not 6" in bad.message  # type: ignore[attr-defined]
        await host.send(pr.CreateRoom(name="t", seats=8, options=ROTATION, id=1))
        joined = await host.expect("joined")
        listing = await host.reply(pr.ListRooms(id=5))
        assert [r["tables"] for r in listing.rooms] == [2]  # type: ignore[attr-defined]
        old = Raw(await trio.open_tcp_stream("127.0.0.1", server.port))
        old.conn = pr.Connection(pr.CLIENT, versions=(3,))
        await old.stream.send_all(old.conn.hello("old"))
        await old.expect("welcome")
        refused = await old.reply(pr.Join(room=joined.room, id=2))  # type: ignore[attr-defined]
        assert refused.code == "needs_version" and "version 4" in refused.message  # type: ignore[attr-defined]
        refused = await old.reply(pr.CreateRoom(name="t", seats=8, options=ROTATION, id=3))
        assert refused.code == "needs_version" and len(server.rooms) == 1  # type: ignore[attr-defined]
        # a version 3 client still plays a room of one table
        assert (await old.reply(pr.CreateRoom(name="t", seats=4, options=ROTATION, id=4))).TYPE == "joined"


def test_one_table_moving_makes_no_action_at_the_other_too_late() -> None:
    log = EventLog(64)
    game = en.Game(en.Rules(), 2, seed=1)
    log.add(game.start_events, 2, table=0)
    decided = log.seq
    log.add([en.Event("passed", {"seat": 1, "table": 1}), en.Event("turn", {"seat": 0, "table": 1})], 2, table=1)
    assert not log.too_late(decided, 0) and log.too_late(decided, 1)
    log.table_moved()  # a new match: every table
    assert log.too_late(decided, 0)


# -- the client library -------------------------------------------------------------------


@pytest.mark.parametrize("seat", [3, None])
def test_the_clients_tables_fold_both_tables_as_the_room_shows_them(seat: int | None) -> None:
    """Fed a rotation's events as the room sends them to a seat (or a spectator), each
    table's mirror equals that table's view from the engine after every action."""

    from unolan.client.tables import Tables
    from unolan.server.match import on_wire, play

    rules = en.Rules.preset("house", partner_rotation=True, rounds=5)
    rotation = en.TwoTableRotation(rules, seed="fold")
    tables = Tables(seat, rules.to_dict(), seq=0)
    seq = 0

    def tell(events: list[en.TableEvent]) -> None:
        nonlocal seq
        for event in map(on_wire, events):
            seq += 1
            assert tables.feed(seq, event.kind, event.data_for(seat))

    tell(rotation.start_events)
    rng, checked = random.Random(1), 0
    while not rotation.over:
        if rotation.round_over:
            tell(play(rotation, en.Deal(0)))
        else:
            seats, game = rng.choice([t for t in rotation.tables if t[1].phase != "round_over"])
            tell(rotation.apply(rng.choice(rotation.legal_actions(seats[game.turn]))))
        for t in range(2):
            view = rotation.table_view(t, seat).to_dict()
            assert tables.mirrors[t].to_dict() == view
            checked += 1
        if seat is not None:  # its own table's actions go out in the room's seats
            assert seat in rotation.seats_at(tables.own)
            for action in tables.view().legal_actions():
                assert tables.to_global(action) in rotation.legal_actions(seat) or type(action) is en.Deal
    assert tables.scores == rotation.scores and checked > 200


async def test_the_client_librarys_bots_play_a_two_table_room() -> None:
    from unolan.client.runner import seat_bots

    lines: list[str] = []
    async with running(seed=6) as server:
        with trio.fail_after(60):
            await seat_bots("127.0.0.1", server.port, strategy="greedy", count=8, seats=8,
                            options={**ROTATION, "rounds": 2}, matches=1, report=lines.append)
        room = server.rooms["r1"]
        assert isinstance(room.match, TwoTables) and room.match.rotation.over
    assert sum("round 1 over; totals" in line for line in lines) == 1
    assert lines[-1].startswith("room r1: match 1 won by") and "final scores" in lines[-1]


async def test_a_seat_that_leaves_is_played_by_the_server_at_its_table() -> None:
    """The host seats seven of the server's bots, starts and leaves: its seat goes on
    autopilot at whichever table it sits, and both tables play the match out."""
    async with running(seed=9) as server:
        host = await Raw.connect(server.port, "ann")
        await host.reply(pr.CreateRoom(name="t", seats=8, options={**ROTATION, "rounds": 1}, id=1))
        for i in range(7):
            assert (await host.reply(pr.AddBot(id=10 + i))).TYPE == "ok"
        assert (await host.reply(pr.Start(id=20))).TYPE == "ok"
        await host.expect("event", kind="turn")
        room = server.rooms["r1"]
        assert isinstance(room.match, TwoTables)
        elsewhere = room.match.rotation.seats_at(1 - room.match.rotation.locate(0)[0])[0]
        refused = await host.reply(pr.Catch(seq=room.seq, target=elsewhere, id=30))
        assert refused.code == "bad_target" and "not at this table" in refused.message  # type: ignore[attr-defined]
        for target in (8, 9):  # a seat the room does not have, as at one table
            refused = await host.reply(pr.Catch(seq=room.seq, target=target, id=31))
            while refused.code == "too_late":  # type: ignore[attr-defined]  # the bots played on meanwhile
                refused = await host.reply(pr.Catch(seq=room.seq, target=target, id=31))
            assert refused.code == "bad_seat" and f"no seat {target}" in refused.message  # type: ignore[attr-defined]
        assert (await host.reply(pr.Leave(id=21))).TYPE == "ok"
        assert room.kind is TwoTables and room.roster.seats[0].piloted
        with trio.fail_after(30):
            while room.started:
                await trio.sleep(0.01)
        assert room.match is not None and room.match.rotation.over and len(room.match.rotation.history) == 1


async def test_neither_table_waits_while_the_other_plays(autojump_clock: object) -> None:
    """The server's bots think 1.2 s (these rules play jump-ins) and its autopilot 0.5 s
    from their own table's turn: the other table's steady stream of events does not put
    them off. Measured by a spectator: the longest time from a table's ``turn`` to that
    table's next event."""
    from unolan.client.runner import BOT_LEVELS, launch_bot

    async with running(Limits(), seed=11, bot_launcher=launch_bot,
                       bot_levels=tuple(BOT_LEVELS)) as server:
        host = await Raw.connect(server.port, "ann")
        await host.reply(pr.CreateRoom(name="t", seats=8, options={**ROTATION, "rounds": 1}, id=1))
        for i in range(7):
            assert (await host.reply(pr.AddBot(id=10 + i))).TYPE == "ok"
        watcher = await Raw.connect(server.port, "eve")
        assert (await watcher.reply(pr.Join(room="r1", role="spectator", id=2))).TYPE == "joined"
        assert (await host.reply(pr.Start(id=20))).TYPE == "ok"
        assert (await host.reply(pr.Leave(id=21))).TYPE == "ok"  # seat 0: the autopilot's
        waits: list[float] = []
        turned: dict[int, float] = {}
        others = 0  # events of the other table while one waited
        with trio.fail_after(3000):
            while True:
                msg = await watcher.recv(timeout=600)
                assert msg is not None
                if not isinstance(msg, pr.Event):
                    continue
                if msg.kind == "rotation_over":
                    break
                table, now = msg.data.get("table"), trio.current_time()
                if table is None:
                    continue
                if turned.get(1 - table) is not None:
                    others += 1
                if table in turned:
                    waits.append(now - turned.pop(table))
                if msg.kind == "turn" and msg.data["phase"] in ("play", "drawn", "color"):
                    turned[table] = now
    assert len(waits) > 40 and others > 40  # both tables played at once
    assert max(waits) < 1.3, sorted(waits)[-5:]


def test_every_round_of_both_tables_deals_again_from_its_seed_as_the_page_says() -> None:
    """Round ``R`` with seed ``SEED`` deals table ``T`` as a one-table game of seed
    ``SEED/table T`` deals its round ``k`` (``k``: the round within its block of 4, from
    1), so its shuffle is ``SEED/table T/k/deal/0``; round 1 (the match's seed) as well."""
    from unolan.engine.fairness import deal_batch
    from unolan.engine.rotation import localize, table_rules

    rules = en.Rules.preset("house", partner_rotation=True, rounds=6)
    rotation = en.TwoTableRotation(rules, seed="s1")
    events, seed, checked = list(rotation.start_events), "s1", 0
    rng = random.Random(5)
    while True:
        k = (rotation.round - 1) % 4 + 1
        for table, (seats, game) in enumerate(rotation.tables):
            assert (game.seed, game.round) == (f"{seed}/table {table}", k)
            mine = [e.event for e in events if e.table == table and e.event.kind != "table_seated"]
            start = localize(dict(next(e.data for e in mine if e.kind == "round_started")), seats)
            expected = deal_batch(table_rules(rules), 4, f"{seed}/table {table}", k,
                                  start["dealer"], start["scores"])
            again = [(e.kind, {**e.data, **({"round": rotation.round} if "round" in e.data else {})})
                     for e in expected]
            seen = [(e.kind, localize(dict(e.data), seats)) for e in mine[:len(expected)]]
            assert json.loads(json.dumps(again)) == json.loads(json.dumps(seen))
            checked += 1
        while not rotation.round_over:
            seats, game = next(t for t in rotation.tables if t[1].phase != "round_over")
            rotation.apply(rng.choice(rotation.legal_actions(seats[game.turn])))
        if rotation.over:
            break
        seed = f"s{rotation.round + 1}"
        events = rotation.next_round(seed)
    assert checked == 12


async def test_the_reference_client_verifies_both_tables_of_a_fair_two_table_round(
        autojump_clock: object) -> None:
    """An unseeded server deals fair: a member checks each round at both tables against
    the reveal, from round 1 on; the same deal told with another dealer fails."""
    from unolan.client.runner import BOT_LEVELS, launch_bot, play
    from unolan.client.session import open_client
    from unolan.client.strategies import GreedyBot
    from unolan.client.verify import DealVerifier

    seen: list[tuple[str, Any]] = []
    async with running(seed=None, bot_launcher=partial(launch_bot, delay=0),
                       bot_levels=tuple(BOT_LEVELS)) as server, \
            open_client("127.0.0.1", server.port, "ann") as client:
        await client.create_room("t", seats=8, options={**ROTATION, "rounds": 2})
        for _ in range(7):
            await client.add_bot()
        await client.start()
        with trio.fail_after(600):
            assert await play(client, GreedyBot(), matches=1,
                              on_event=lambda k, d: seen.append((k, d))) == 1
        verifier = client.verifier
        assert verifier is not None and verifier.seat == 0
        with trio.fail_after(10):
            while len(verifier.verdicts) < 2:  # the last reveal comes after the match's end
                await trio.sleep(0.01)
        assert [(v.round, v.status) for v in verifier.verdicts] == [(1, "verified"), (2, "verified")]
        assert {t for _, t in verifier.table_deals} == {0, 1}
    # the events the seat saw, told again: round 1 verifies; with the other table's first
    # dealer moved one seat on, it fails
    for tamper in (False, True):
        again = DealVerifier(0, verifier.rules)
        for nonce_round, nonce in verifier.nonces.items():
            again.sent_nonce(nonce_round, nonce)
        for kind, data in seen:
            seats = verifier.seats_at.get(data.get("table", -1), ())
            if tamper and kind == "round_started" and data["round"] == 1 and 0 not in seats:
                data = {**data, "dealer": seats[(seats.index(data["dealer"]) + 1) % 4]}
            again.feed(kind, data)
        assert again.verdicts[0].status == ("failed" if tamper else "verified"), again.verdicts[0]


async def test_a_tables_turn_timer_runs_from_its_own_turn(autojump_clock: object) -> None:
    """A player who does nothing at one table times out ``timer`` seconds after each of
    their turns, however busy the other table is (then the autopilot plays them)."""
    from unolan.client.runner import BOT_LEVELS, launch_bot

    async with running(Limits(), seed=12, bot_launcher=launch_bot,
                       bot_levels=tuple(BOT_LEVELS)) as server:
        host = await Raw.connect(server.port, "ann")
        await host.reply(pr.CreateRoom(name="t", seats=8, timer=5,
                                       options={**ROTATION, "rounds": 1}, id=1))
        for i in range(7):
            assert (await host.reply(pr.AddBot(id=10 + i))).TYPE == "ok"
        assert (await host.reply(pr.Start(id=20))).TYPE == "ok"
        first = await host.expect("event", kind="turn")
        room = server.rooms["r1"]
        assert isinstance(room.match, TwoTables)
        own = room.match.rotation.locate(0)[0]
        turned = trio.current_time() if first.data["seat"] == 0 else None  # type: ignore[attr-defined]
        waits: list[float] = []
        others = 0
        with trio.fail_after(3000):
            while len(waits) < 2:  # two timeouts in a row: the autopilot takes over
                msg = await host.recv(timeout=600)
                assert msg is not None
                if not isinstance(msg, pr.Event):
                    continue
                if msg.kind == "turn" and msg.data["seat"] == 0 and turned is None:
                    turned = trio.current_time()
                elif msg.kind == "timeout" and msg.data["seat"] == 0:
                    assert turned is not None
                    waits.append(trio.current_time() - turned)
                    turned = None
                elif turned is not None and msg.data.get("table") not in (None, own):
                    others += 1  # the other table played on meanwhile
    assert others > 10 and all(abs(w - 5) < 0.1 for w in waits), (others, waits)


# -- the match history ----------------------------------------------------------------------


async def test_a_two_table_match_is_kept_listed_replayed_verified_audited_and_counted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real two-table match of a fair (unseeded) room: ann (the client library, keeping
    what she saw) and seven bots. uno history lists it, the replay hears every event she
    heard and ends at the room's totals, uno verify checks both tables' deals of each
    round from her record, uno audit prints its receipts by table, uno stats counts all 8."""
    from unolan.client.runner import play
    from unolan.client.session import open_client
    from unolan.client.strategies import GreedyBot
    from unolan.client.verify import MatchRecord
    from unolan.server import history
    from unolan.server.replay import Replay

    from unolan.cli import main
    from unolan.replay import ReplayState

    db, record = tmp_path / "s.db", tmp_path / "ann.jsonl"
    quick = Limits(**{**FAST.__dict__, "nonce_wait": 0.3})
    heard: list[tuple[str, Any]] = []
    async with running(quick, seed=None, db_path=db) as server, \
            open_client("127.0.0.1", server.port, "ann") as client:
        client.record = MatchRecord(record)
        joined = await client.create_room("big", seats=8, options={**ROTATION, "rounds": 2})

        async def bot(i: int) -> None:
            stream = await trio.open_tcp_stream("127.0.0.1", server.port)
            await Bot(stream, name=f"bot{i}", join=joined.room).run(stop_after_match=True)

        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for i in range(1, 8):
                    nursery.start_soon(bot, i)
                while sum(s.ready for s in server.rooms[joined.room].roster.seats) < 7:
                    await trio.sleep(0.01)
                await client.start()
                await play(client, GreedyBot(), matches=1, on_event=lambda k, d: heard.append((k, d)))
            room = server.rooms[joined.room]
            assert isinstance(room.match, TwoTables) and room.match.rotation.over
            while not history.list_matches(reader := history.open_history(db)):
                await trio.sleep(0.05)
            while sum(k == "reveal" for k, _ in heard) < 2 and client.verifier is not None \
                    and len(client.verifier.verdicts) < 2:
                await trio.sleep(0.02)
        outcome = room.match.rotation.outcome()
    assert outcome is not None
    (kept,) = history.list_matches(reader)
    assert len(kept.seats) == 8 and kept.scores == list(outcome.scores) and kept.winner == outcome.champion
    match = history.load_match(reader, kept.id)
    assert sorted({r["round"] for r in match.rounds}) == [1, 2] and all(r["seed"] for r in match.rounds)
    # the replay: every event ann heard, told again in her seat's view, to the same totals
    replay = Replay(match)
    assert replay.two_tables and replay.final.outcome()[1] == room.match.rotation.scores
    kinds = {*en.EVENT_KINDS, *en.rotation.ROTATION_KINDS}
    again = [(e.kind, json.loads(json.dumps(e.data_for(0)))) for step in replay.steps for e in step.events]
    assert [(k, json.loads(json.dumps(d))) for k, d in heard if k in kinds] == again
    screen = ReplayState(replay, seat=0)
    screen.to(replay.round_starts()[1])  # round 2's deal: both tables dealt, each said by its mark
    lines = [text for _, text in screen.lines()]
    assert any(line.startswith("  table 1 · ") for line in lines)  # numbered from 1, as people read them
    assert any(line.startswith("  table 2 · ") for line in lines)
    assert not any(line.startswith("  table 0 · ") for line in lines)
    assert [line[:9] for line in lines if line.startswith(" table ") and " · seats " in line] == [
        " table 1 ", " table 2 "]
    # the commands
    assert main(["history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert kept.id in out and "r1        ann, bot" in out and f"won by {kept.seats[kept.winner].name}" in out
    assert main(["replay", kept.id, "--export", "--db", str(db)]) == 0
    export = capsys.readouterr().out
    assert export.count("#   table 1 (seats") == export.count("#   table 2 (seats") == 2  # as people read them
    assert "#   table 0 " not in export  # (a position's seed, SEED/table 0, is the deal's own text)
    tables = [line.partition("): ")[2] for line in export.splitlines() if line.startswith("#   table ")]
    assert len(tables) == 4 and all(len(en.parse_position(text).hands) == 4 for text in tables)  # read back
    every = ReplayState(replay)  # every hand: both tables' positions
    shown = [text for _, text in every.lines()]
    assert sum(t.startswith(("# table 1: seats", "# table 2: seats")) for t in shown) == 2
    assert not any(t.startswith("# table 0") for t in shown)
    assert len([line for line in export.splitlines() if not line.startswith("#")]) == len(match.actions)
    assert main(["verify", str(record)]) == 0
    out = capsys.readouterr().out
    assert "round 1: deal verified" in out and "round 2: deal verified" in out
    assert main(["stats", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines()[1:] if line.strip()]
    assert len(rows) == 8 and all(line.split()[-5] == "1" for line in rows)  # one match each
    assert main(["audit", joined.room, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    receipts = history.room_receipts(reader, joined.room)  # each race at its table, under the match
    assert all(mid == kept.id and data["table"] in (0, 1) for mid, _, data in receipts)
    assert out.count(" won (table ") == len(receipts) and (receipts or "no race receipts" in out)
    assert all(f"seq {seq}: seat {data['winner']} ({kept.seats[data['winner']].name}) won (table "
               f"{data['table'] + 1})" in out for _, seq, data in receipts) and "(table 0)" not in out
    names = [s.name for s in kept.seats]  # every seat named, a bot gone after the match too
    assert all(f"seat {data['winner']} ({names[data['winner']]}) won" in out for _, _, data in receipts)
