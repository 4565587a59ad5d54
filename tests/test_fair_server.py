"""A fair deal, race receipts and match history, against a real server over TCP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio
from test_server import FAST, Raw, running, settle, staged, wire
from unolan.client import open_client, play
from unolan.client.strategies import make_bot
from unolan.client.verify import (
    FAILED,
    UNCHECKED,
    VERIFIED,
    MatchRecord,
    read_record,
    verify_record,
)
from unolan.server import history
from unolan.server.fairness import FairDeal
from unolan.server.replay import Replay

from unolan import engine as en
from unolan import protocol as pr

QUICK = FAST.__class__(**{**FAST.__dict__, "nonce_wait": 0.3, "deal_pause": 0.3})
SHORT = {"target_score": 60}


async def fair_match(server: Any, records: Path, players: int = 3) -> list[Any]:
    """``players`` client-library bots play one whole match in an unseeded room, each
    keeping what it saw in ``records``/seat N.jsonl; their clients, once every reveal is in
    (``client.seen``: the (kind, data) of every event, from the record)."""
    clients: list[Any] = []
    async with trio.open_nursery() as outer:
        for i in range(players):
            clients.append(await outer.start(_open, server.port, f"b{i}", records / f"{i}.jsonl"))
        joined = await clients[0].create_room("fair", preset="house", seats=players, options=SHORT)
        for client in clients[1:]:
            await client.join(joined.room)
            await client.ready()
        async with trio.open_nursery() as games:
            for client in clients:
                games.start_soon(lambda c=client: play(c, make_bot("greedy"), matches=1))
            await clients[0].start()
        with trio.fail_after(5):
            while True:
                for client in clients:
                    client.seen = [(e["kind"], e["data"]) for e in read_record(
                        (records / f"{client.seat}.jsonl").read_text().splitlines()) if "kind" in e]
                if all(sum(k == "round_over" for k, _ in c.seen) == sum(k == "reveal" for k, _ in c.seen)
                       for c in clients):
                    break
                await trio.sleep(0.02)
        outer.cancel_scope.cancel()
    return clients


async def _open(port: int, name: str, record: Path,
                task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    async with open_client("127.0.0.1", port, name, bot=True) as client:
        client.record = MatchRecord(record)
        task_status.started(client)
        await trio.sleep_forever()


@pytest.mark.slow
async def test_every_round_of_a_fair_match_is_verified_by_every_player(tmp_path: Path) -> None:
    async with running(QUICK, seed=None) as server:
        clients = await fair_match(server, tmp_path)
    rounds = None
    for client in clients:
        verdicts = client.verifier.verdicts
        assert verdicts and all(v.status == VERIFIED for v in verdicts), verdicts
        assert rounds in (None, len(verdicts))
        rounds = len(verdicts)
        # uno verify FILE says the same of what the player kept.
        again = verify_record((tmp_path / f"{client.seat}.jsonl").read_text().splitlines())
        assert again == verdicts
        # Each round's commitment comes before its deal, its reveal only after its end.
        at = {(kind, data.get("round")): i for i, (kind, data) in reversed(list(enumerate(client.seen)))}
        for verdict in verdicts:
            r = verdict.round
            assert at["commitment", r] < at["round_started", r] < at["round_over", r] < at["reveal", r]


async def test_a_server_dealing_from_another_seed_than_committed_is_caught(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    honest = FairDeal.seal

    def cheat(self: FairDeal) -> str:
        honest(self)  # the reveal tells the honest story...
        return "a seed the server liked better"  # ...but the deal comes from this

    monkeypatch.setattr(FairDeal, "seal", cheat)
    async with running(QUICK, seed=None) as server:
        clients = await fair_match(server, tmp_path, players=2)
    for client in clients:
        assert client.verifier.verdicts[0].status == FAILED
        assert "do not follow from the seed" in client.verifier.verdicts[0].reason


async def test_a_seat_that_sends_no_nonce_gets_one_drawn_and_an_old_client_is_not_waited_for() -> None:
    async with running(QUICK, seed=None) as server:
        host = await Raw.connect(server.port, "host")  # speaks version 3, sends no nonce
        joined = await host.reply(pr.CreateRoom(name="t", seats=3, id=1))
        old = await Raw.connect(server.port, "old", hello=False)
        old.conn = pr.Connection(pr.CLIENT, versions=(2,))
        await old.stream.send_all(old.conn.hello("old"))
        await old.expect("welcome")
        await old.reply(pr.Join(room=joined.room, id=1))  # type: ignore[attr-defined]
        await old.reply(pr.Ready(id=2))
        await host.reply(pr.AddBot(id=3))
        started = trio.current_time()
        await host.reply(pr.Start(id=4))
        commit = await host.expect("event", kind="commitment")
        await host.expect("event", kind="round_started")
        assert trio.current_time() - started >= QUICK.nonce_wait * 0.9  # it waited for the host
        # A nonce after the deal is refused, and changes nothing.
        late = await host.reply(pr.Nonce(round=1, nonce="late", id=5))
        assert late.TYPE == "error" and late.code == "bad_state"  # type: ignore[attr-defined]
        # The old client saw every seq, the new kinds among them, as generic events.
        await old.expect("event", kind="round_started")
        assert any(m.TYPE == "event" and m.kind == "commitment" for m in old.seen)  # type: ignore[attr-defined]
        room = server.rooms[joined.room]  # type: ignore[attr-defined]
        deal = room.ledger.fair.dealt
        assert sorted(deal.drawn) == [0, 1] and deal.nonces[2] is not None  # the bot sent its own
        assert commit.data["commitment"] == deal.commitment  # type: ignore[attr-defined]
        for c in (host, old):
            await c.aclose()


async def test_a_k_way_race_ends_with_one_receipt_every_member_sees() -> None:
    """Three seats jump in with the same card on the same seq: the first is applied, the
    two others lose, and everyone gets the receipt with the arrival order."""
    position = ("rules: house; hand 0: R1 B2; hand 1: R5 G1; hand 2: R5 G2; hand 3: R5 G3; "
                "discard: R5; turn: 0").replace("; ", "\n")
    async with running(QUICK) as server:
        clients, _ = await staged(server, 4, position)
        seq = clients[0].seq
        for c in clients[1:]:
            await c.send(pr.Play(seq=seq, cards=("R5",), id=7))
        receipts = [await c.expect("event", kind="receipt") for c in clients]
        data = wire(receipts[0].data)  # type: ignore[attr-defined]
        assert all(wire(r.data) == data for r in receipts)  # type: ignore[attr-defined]
        assert [c["order"] for c in data["contenders"]] == [1, 2, 3]
        assert {c["seat"] for c in data["contenders"]} == {1, 2, 3}
        assert [c["result"] for c in data["contenders"]] == ["won", "too_late", "too_late"]
        assert all(c["seq"] == seq for c in data["contenders"])
        assert data["contenders"][0]["seat"] == data["winner"]
        afters = [c["after"] for c in data["contenders"]]
        assert afters == sorted(afters) and afters[0] == 0
        await settle(*clients)


@pytest.mark.slow
async def test_a_kept_match_replays_event_by_event_as_the_players_heard_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    async with running(QUICK, seed=None, db_path=db) as server:
        clients = await fair_match(server, tmp_path)
        with trio.fail_after(5):  # kept once its last race is over (race_window)
            while not history.list_matches(reader := history.open_history(db)):
                await trio.sleep(0.05)
    (kept,) = history.list_matches(reader)
    match = history.load_match(reader, kept.id)
    assert [r["seed"] for r in match.rounds if r["seed"]] and len(match.rounds) >= 1
    replay = Replay(match)
    for seat, client in enumerate(clients):
        heard = [(kind, data) for kind, data in client.seen if kind in en.EVENT_KINDS]
        again = [(e.kind, json.loads(json.dumps(e.data_for(seat))))
                 for step in replay.steps for e in step.events]
        assert heard == again


async def test_the_round_under_way_at_a_restart_is_revealed_at_its_end(tmp_path: Path) -> None:
    from test_server import _act_legally, table

    db = tmp_path / "s.db"
    limits = QUICK.__class__(**{**QUICK.__dict__, "autopilot_delay": 600, "grace": 600,
                                "heartbeat": 3600, "deal_pause": 0.0})
    async with running(limits, seed=None, db_path=db) as server:
        clients, room_id = await table(server, 2, "house", target_score=30)
        room = server.rooms[room_id]
        (committed,) = [m.data["commitment"] for m in clients[0].seen  # type: ignore[attr-defined]
                        if m.TYPE == "event" and m.kind == "commitment"]  # type: ignore[attr-defined]
        await _act_legally(room, clients, 3)
        await settle(*clients)
        tokens, seq = [c.token for c in clients], room.seq
        # under way (a draw may leave it waiting for the drawn card's play: ``drawn``)
        assert room.match.game.phase not in (en.Phase.ROUND_OVER, en.Phase.MATCH_OVER) and room.match.game.round == 1
    async with running(limits, seed=None, db_path=db) as server:
        room = server.rooms[room_id]
        assert room.ledger.fair.dealt is not None and room.ledger.fair.dealt.commitment == committed
        clients = []
        for i, token in enumerate(tokens):
            c = await Raw.connect(server.port, f"p{i}")
            await c.reply(pr.Resume(token=token, seq=seq, id=1))
            clients.append(c)
        with trio.fail_after(30):
            while room.match.game.round == 1 and room.match.game.phase not in ("round_over", "match_over"):
                await _act_legally(room, clients, 1)
        reveal = await clients[0].expect("event", kind="reveal")
        data = wire(reveal.data)  # type: ignore[attr-defined]
        assert data["round"] == 1 and en.commitment(data["secret"], data["salt"]) == committed
        assert en.round_seed(data["secret"], data["nonces"]) == data["seed"]
        assert data["drawn"] == [0, 1]  # hand-driven clients send no nonce: drawn, and said so
        await settle(*clients)


async def first_verdict(client: Any) -> Any:
    """Play the client's seat (greedy) until its first round's deal is judged."""
    async with trio.open_nursery() as games:
        games.start_soon(lambda: play(client, make_bot("greedy"), matches=1))
        with trio.fail_after(20):
            while client.verifier is None or not client.verifier.verdicts:
                await trio.sleep(0.01)
        games.cancel_scope.cancel()
    return client.verifier.verdicts[0]


async def test_a_seat_taken_back_by_a_new_client_mid_round_is_never_told_the_deal_was_unfair(
        tmp_path: Path) -> None:
    """A player's client stops mid-round (no bye); a new client (a restarted ``uno join``)
    resumes the seat with the token from seq 0. The replayed commitment makes it send a
    nonce the server refuses (the seat sent one already): it does not know the nonce its
    seat sent, so the round could not be checked, and is never called unfair."""
    limits = QUICK.__class__(**{**QUICK.__dict__, "autopilot_delay": 600, "grace": 600})
    async with running(limits, seed=None) as server:
        async with open_client("127.0.0.1", server.port, "ann", reconnect=False) as first:
            await first.create_room("fair", preset="house", seats=2, options=SHORT)
            await first.add_bot()
            await first.start()
            with trio.fail_after(5):
                while first.view() is None:
                    await trio.sleep(0.01)
            assert first.verifier is not None and 1 in first.verifier.nonces  # taken by the server
            token = first.token
            first.closed = True  # killed: no bye
            await trio.aclose_forcefully(first.stream)
        async with open_client("127.0.0.1", server.port, "ann") as again:
            await again.resume(token, 0)
            verdict = await first_verdict(again)
        assert verdict.round == 1 and verdict.status == UNCHECKED, verdict


async def test_a_program_that_connects_anew_checks_the_round_under_way_at_a_restart(tmp_path: Path) -> None:
    """A two-table room stops in round 1. The player's program connects anew (as the
    terminal UI does once the library's reconnecting gave up) and takes its seat back,
    naming the client it played with: the round committed and dealt before the stop is
    verified at its end (a restored room does not commit to it again: a client that
    starts afresh cannot check it)."""
    db = tmp_path / "two.db"
    limits = QUICK.__class__(**{**QUICK.__dict__, "deal_pause": 0.0})
    async with (running(limits, seed=None, db_path=db) as server,
                open_client("127.0.0.1", server.port, "ann", reconnect=False) as before):
        await before.create_room("two", preset="house", seats=8,
                                 options={"partner_rotation": True, "rounds": 2})
        for _ in range(7):
            await before.add_bot()
        await before.start()
        async with trio.open_nursery() as games:
            games.start_soon(lambda: play(before, make_bot("greedy"), matches=1))
            with trio.fail_after(10):
                while before.seq < 40:
                    await trio.sleep(0.01)
            games.cancel_scope.cancel()
        assert before.verifier is not None and not before.verifier.verdicts
        assert set(before.verifier.commitments) == {1}
    async with (running(limits, seed=None, db_path=db) as server,
                open_client("127.0.0.1", server.port, "ann") as again):
        await again.resume(before.token, 0, previous=before)  # type: ignore[arg-type]
        verdict = await first_verdict(again)
    assert (verdict.round, verdict.status) == (1, VERIFIED), verdict
