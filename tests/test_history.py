"""Match history: kept with its rules, seats, fair deals, actions and receipts; a cap the
host sets; uno history, stats, replay (and its export) and audit read it back."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio
from unolan.client.tui.state import card_name
from unolan.server import history
from unolan.server.replay import Replay, player_stats
from unolan.server.store import RoomRecord, Store
from unolan.server.words import cells

from unolan import engine as en
from unolan.cli import main

RULES = en.Rules.preset("house", target_score=200)
SECRET, SALT = "c" * 64, "d" * 64


def play_fair_match(seed: int) -> tuple[list[str], list[tuple[int, dict[str, Any]]], en.Game, str]:
    """A whole match by random legal play, each round dealt from a fair seed."""
    rng = random.Random(seed)
    seeds = [en.round_seed(SECRET, [f"m{seed}r{r}s{s}" for s in range(3)]) for r in range(1, 60)]
    game, actions, rounds = en.Game(RULES, 3, seeds[0]), [], []
    rounds.append((1, {"commitment": en.commitment(SECRET, SALT), "secret": SECRET, "salt": SALT,
                       "nonces": [f"m{seed}r1s{s}" for s in range(3)], "drawn": [], "seed": seeds[0]}))
    while not game.over:
        if game.phase is en.Phase.ROUND_OVER:
            action: en.Action = en.Deal(game.turn, seeds[game.round])
            rounds.append((game.round + 1, {"commitment": en.commitment(SECRET, SALT)}))
        else:
            action = rng.choice([a for s in range(3) for a in game.legal_actions(s)])
        game.apply(action)
        actions.append(str(action))
    return actions, rounds, game, seeds[0]


def kept(room: str, seed: int | str, game: en.Game, names: list[str]) -> history.KeptMatch:
    return history.KeptMatch(
        history.match_id(room, seed), room, "Friday", RULES.to_dict(),
        [history.SeatInfo(n, n.startswith("bot")) for n in names], seed,
        history.now().isoformat(timespec="seconds"), game.outcome().match_winner,  # type: ignore[union-attr]
        list(game.scores))


async def store_matches(db: Path, count: int, keep: history.Keep | None = None) -> list[tuple[list[str], en.Game, str]]:
    played = []
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db, keep=keep).run)
        store.save_room(RoomRecord("k3f9", "Friday", "house", RULES.to_dict(), 3, 0, None, 0, None,
                                   0, None, 0))
        for match in range(1, count + 1):
            actions, rounds, game, seed = play_fair_match(match)
            store.start_match("k3f9", match, seed, 0)
            for n, action in enumerate(actions):
                store.action("k3f9", match, n, action, n + 10)
            for rnd, data in rounds:
                store.round_record("k3f9", match, rnd, data)
            store.receipt("k3f9", match, 40, {"winner": 1, "seq": 41, "contenders": [
                {"seat": 1, "order": 1, "seq": 39, "after": 0, "result": "won"},
                {"seat": 2, "order": 2, "seq": 39, "after": 3, "result": "too_late"}]})
            store.finished(kept("k3f9", seed, game, ["ann", "bot-greedy", "cy"]), match)
            played.append((actions, game, seed))
        await store.flush()
        nursery.cancel_scope.cancel()
    return played


async def test_a_kept_match_replays_to_the_same_game_and_its_deals_are_kept(tmp_path: Path) -> None:
    db = tmp_path / "server.db"
    ((actions, game, seed),) = await store_matches(db, 1)
    reader = history.open_history(db)
    (listed,) = history.list_matches(reader)
    match = history.load_match(reader, listed.id[:4])  # the start of an id is enough
    assert match.actions == actions and match.seed == seed and match.scores == game.scores
    assert [r["round"] for r in match.rounds] == list(range(1, game.round + 1))
    assert match.rounds[0]["nonces"] == ["m1r1s0", "m1r1s1", "m1r1s2"]
    replay = Replay(match)
    assert replay.final.position() == game.position()
    assert len(replay.round_starts()) == game.round
    assert oct(history.history_path(db).stat().st_mode & 0o777) == "0o600"


async def test_a_match_kept_after_the_next_began_copies_its_own_actions(tmp_path: Path) -> None:
    """The store copies a finished match's actions from where it knows the match began in
    its log: another room's rows, the room's next match begun before the keep, and a
    restart (which knows no beginnings: the whole log is read) change nothing."""
    db = tmp_path / "server.db"
    (first, _, game1, seed1), (second, _, game2, seed2) = play_fair_match(1), play_fair_match(2)
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        for rid in ("k3f9", "other"):
            store.save_room(RoomRecord(rid, "Friday", "house", RULES.to_dict(), 3, 0, None, 0, None,
                                       0, None, 0))
        store.start_match("k3f9", 1, seed1, 0)
        store.start_match("other", 1, 9, 0)
        for n, action in enumerate(first):
            store.action("other", 1, n, "0 draw", n + 10)
            store.action("k3f9", 1, n, action, n + 10)
            if n % 7 == 0:
                await store.flush()  # rows of several transactions
        store.start_match("k3f9", 2, seed2, 500)
        store.action("k3f9", 2, 0, second[0], 501)  # the next match began...
        store.finished(kept("k3f9", seed1, game1, ["ann", "bot-greedy", "cy"]), 1)  # ...then the keep
        await store.flush()
        nursery.cancel_scope.cancel()
    async with trio.open_nursery() as nursery:  # restarted: the store knows no beginnings
        store = await nursery.start(Store(db).run)
        for n, action in enumerate(second[1:], 1):
            store.action("k3f9", 2, n, action, n + 501)
        store.finished(kept("k3f9", seed2, game2, ["ann", "bot-greedy", "cy"]), 2)
        await store.flush()
        nursery.cancel_scope.cancel()
    reader = history.open_history(db)
    kept_ids = {m.seed: m.id for m in history.list_matches(reader)}
    assert history.load_match(reader, kept_ids[seed1]).actions == first
    assert history.load_match(reader, kept_ids[seed2]).actions == second


async def test_the_cap_keeps_the_newest_matches_and_zero_keeps_none(tmp_path: Path) -> None:
    await store_matches(tmp_path / "a.db", 3, history.Keep(matches=2))
    reader = history.open_history(tmp_path / "a.db")
    assert len(history.list_matches(reader)) == 2
    assert reader.execute("SELECT COUNT(DISTINCT id) FROM rounds").fetchone()[0] == 2
    await store_matches(tmp_path / "b.db", 1, history.Keep(matches=0))
    reader = history.open_history(tmp_path / "b.db")
    assert history.list_matches(reader) == [] and reader.execute("SELECT COUNT(*) FROM actions").fetchone()[0] == 0


async def test_reading_the_history_writes_nothing_and_leaves_no_files_behind(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "server.db"
    await store_matches(db, 1)
    path = history.history_path(db)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["history", "--db", str(db)]) == 0 and "k3f9" in capsys.readouterr().out
    reader = history.open_history(db)
    with pytest.raises(sqlite3.OperationalError):
        reader.execute("DELETE FROM matches")
    assert len(history.list_matches(reader)) == 1
    reader.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no -wal, no -shm
    assert not path.with_name(path.name + "-wal").exists()


async def test_the_commands_print_history_stats_audit_and_an_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "server.db"
    played = await store_matches(db, 2)
    assert main(["history", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert out.count("k3f9") == 2 and "ann, bot-greedy*, cy" in out
    assert main(["stats", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    stats = {s.name: s for s in player_stats(history.load_match(history.open_history(db), m.id)
                                             for m in history.list_matches(history.open_history(db)))}
    assert sum(s.wins for s in stats.values()) == 2 and all(s.matches == 2 for s in stats.values())
    caught = sum(1 for actions, _, _ in played for a in actions if " catch " in a)
    assert sum(s.caught for s in stats.values()) == sum(s.missed for s in stats.values()) == caught
    assert "bot-greedy (bot, room k3f9)" in out and "ann" in out
    assert main(["audit", "k3f9", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    # Seats are named (the kept match's names) and a refusal's code has its words beside it.
    assert ": seat 1 (bot-greedy) won" in out
    assert "1. seat 1 (bot-greedy): won (arrived first), decided on seq 39, +0 ms" in out
    assert "2. seat 2 (cy): too_late (Too late: the table had moved on), decided on seq 39, +3 ms" in out
    mid = history.match_id("k3f9", played[0][2])
    assert main(["replay", mid, "--export", "--db", str(db)]) == 0
    export = capsys.readouterr().out
    # The export is the match for uno rules: run whole, it ends where the match ended.
    (tmp_path / "m.txt").write_text(export)
    assert main(["rules", "--new", "--rules", str(RULES), "--players", "3", "--seed", str(played[0][2]),
                 "--actions-file", str(tmp_path / "m.txt"), "--quiet"]) == 0
    assert capsys.readouterr().out.strip() == played[0][1].position().strip()
    # A round's table pasted into uno rules --position is that moment.
    first = next(line for line in export.splitlines() if line.startswith("#   "))
    assert en.parse_position(first[4:].replace("; ", "\n")).round == 1


async def test_replay_prints_its_steps_without_a_terminal_and_refuses_with_its_own_usage(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`uno replay --plain` prints each round's steps as lines (a seat's view with --seat);
    without a terminal and without --plain it says what to add; an unknown option is
    refused with replay's usage, not the top-level one."""
    db = tmp_path / "server.db"
    ((actions, game, _seed),) = await store_matches(db, 1)
    mid = history.list_matches(history.open_history(db))[0].id
    assert main(["replay", mid, "--plain", "--seat", "1", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"match {mid} · room k3f9 (Friday)")
    assert [line for line in lines if line.startswith("round ")] == [
        f"round {n}" for n in range(1, game.round + 1)]
    assert sum(line.startswith("> ") for line in lines) == len(actions) + 1  # and the first deal
    assert any(line.startswith("  your hand: [") for line in lines) and not any(
        line.startswith("  ann's hand: [") for line in lines)
    hand = next(line for line in lines if line.startswith("  your hand: ["))
    first = hand.split(": ", 1)[1].split(", ")[0]  # "[R5] red 5": each card in words too
    assert first == f"{first.split(' ')[0]} {card_name(first.split(' ')[0][1:-1])}", hand
    assert main(["replay", mid, "--db", str(db)]) == 2  # stdin and stdout are not a terminal here
    assert "or add --plain to print every step on stdout" in capsys.readouterr().err
    with pytest.raises(SystemExit) as refused:
        main(["replay", mid, "--bogus", "--db", str(db)])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert err == "uno replay: unrecognized arguments: --bogus (see 'uno replay --help')\n"


async def test_audit_names_the_seats_of_a_match_under_way(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A receipt of a match not yet over names its seats from what the room kept with it."""
    db = tmp_path / "server.db"
    async with trio.open_nursery() as nursery:
        store = await nursery.start(Store(db).run)
        store.save_room(RoomRecord("r1", "Friday", "house", RULES.to_dict(), 3, 0, None, 0, None,
                                   0, None, 0))
        store.start_match("r1", 1, 5, 0)
        store.receipt("r1", 1, 7, {"winner": 0, "seq": 8, "names": ["ann", "bot-1", None], "contenders": [
            {"seat": 0, "order": 1, "seq": 6, "after": 0, "result": "won"},
            {"seat": 2, "order": 2, "seq": 6, "after": 12, "result": "cannot_catch"}]})
        await store.flush()
        nursery.cancel_scope.cancel()
    assert main(["audit", "r1", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "match (under way) seq 7: seat 0 (ann) won" in out
    assert "2. seat 2: cannot_catch (that player cannot be caught now), decided on seq 6, +12 ms" in out


def test_stats_keep_same_named_bots_of_two_rooms_apart_and_a_person_together() -> None:
    """bot-1 of room a and bot-1 of room b are two bots; ann in both rooms is one player."""
    actions, _, game, seed = play_fair_match(3)
    first, second = kept("a", seed, game, ["ann", "bot-1", "cy"]), kept("b", seed, game, ["ann", "bot-1", "dee"])
    first.actions = second.actions = actions
    rows = {(s.name, s.room): s for s in player_stats([first, second])}
    assert set(rows) == {("ann", None), ("bot-1", "a"), ("bot-1", "b"), ("cy", None), ("dee", None)}
    assert rows[("ann", None)].matches == 2 and rows[("bot-1", "a")].matches == 1
    assert rows[("bot-1", "a")].wins == rows[("bot-1", "b")].wins == (game.outcome().match_winner == 1)  # type: ignore[union-attr]


async def test_the_commands_say_what_is_wrong_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "--db", str(tmp_path / "none.db")]) == 1
    assert "no match history" in capsys.readouterr().err
    await store_matches(tmp_path / "s.db", 1)
    assert main(["replay", "zzzz", "--db", str(tmp_path / "s.db")]) == 1
    assert "no kept match has the id 'zzzz'" in capsys.readouterr().err
    # A room the history does not know is an error; one it knows with no race is not.
    assert main(["audit", "r9", "--db", str(tmp_path / "s.db")]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line == "uno audit: the match history has no room 'r9': uno history lists the rooms of the kept matches"
    with sqlite3.connect(history.history_path(tmp_path / "s.db")) as writer:
        writer.execute("DELETE FROM receipts")
    assert main(["audit", "k3f9", "--db", str(tmp_path / "s.db")]) == 0
    assert capsys.readouterr().out == "no race receipts for room k3f9\n"


async def test_the_commands_speak_the_chosen_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Headings and lines in zh-Hant, the columns still in place (wide words are measured
    in terminal cells); names, ids and scores as they are."""
    db = tmp_path / "server.db"
    await store_matches(db, 1)
    assert main(["history", "--db", str(db), "--lang", "zh-Hant"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.startswith("比賽") and header.endswith("座位（* 是電腦玩家）和分數")
    assert cells(header[:header.index("房間")]) == row.index("k3f9")
    assert "  ann, bot-greedy*, cy：" in row and "贏" in row and "won by" not in row
    assert main(["stats", "--db", str(db), "--lang", "zh-Hant"]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split() == ["玩家", "場數", "勝場", "平均分數", "漏喊", "UNO", "抓到"]
    assert len(rows) == 3 and {cells(line) for line in rows} == {cells(header)}
    assert any(line.startswith("bot-greedy（電腦，房間 k3f9）") for line in rows)
    assert main(["audit", "k3f9", "--db", str(db), "--lang", "zh-Hant"]) == 0
    out = capsys.readouterr().out
    assert "：座位 1（bot-greedy） 搶先" in out
    assert "  2. 座位 2（cy）：too_late（太遲了：牌局已經往下走了），依據 seq 39，+3 毫秒" in out
    assert main(["history", "--db", str(tmp_path / "none.db"), "--lang", "zh-Hans"]) == 1
    assert capsys.readouterr().err.startswith(f"uno history: {tmp_path / 'none.history.db'} 没有比赛记录：")


def test_the_replay_viewer_steps_rounds_and_views() -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from unolan.replay import ALL, ReplayState, run_app

    actions, _, game, seed = play_fair_match(5)
    match = kept("r", seed, game, ["a", "b", "c"])
    match.actions = actions
    state = ReplayState(Replay(match))
    with create_pipe_input() as pipe:
        pipe.send_text("nn]v")  # two steps, the next round, seat 0's view
        pipe.send_text("q")
        run_app(state, input=pipe, output=DummyOutput())
    assert state.step == state.starts[1] and state.seat == 0
    text = "\n".join(line for _, line in state.lines())
    hand = " ".join(c.text for c in en.parse_position(state.replay.steps[state.step].position).hands[0])
    assert f"hand: {hand}" in text and "hand 1:" not in text  # one seat's view hides the others
    state.seat = ALL
    assert "hand 1:" in "\n".join(line for _, line in state.lines())
    state.round(1)
    assert state.step == 0


def test_the_replay_viewer_says_every_event_in_the_logs_words() -> None:
    """One line per event, in the words of the table's log (no engine dump such as
    'turn seat=1 direction=1 ...'); a seat's view names that seat "you" and hides the
    other hands."""
    from unolan.replay import ALL, ReplayState

    actions, _, game, seed = play_fair_match(5)
    match = kept("r", seed, game, ["ann", "bob", "cy"])
    match.actions = actions
    for seat in (ALL, 1):
        state = ReplayState(Replay(match), seat=seat)
        for step in range(0, state.last + 1, 7):
            state.to(step)
            lines = [line for style, line in state.lines() if not style and line.startswith("  ")]
            assert len(lines) == len(state.replay.steps[step].events)
            assert not [line for line in lines if "=" in line or "no words for" in line], step
    state = ReplayState(Replay(match), seat=ALL)
    text = "\n".join(line for _, line in state.lines())
    assert "draw for dealer: ann [" in text and "bob's hand: [" in text and "'s turn" in text
    state.seat = 1
    text = "\n".join(line for _, line in state.lines())
    assert "your hand: [" in text and "ann holds 7 cards" in text and "ann's hand" not in text


def test_the_replay_viewer_speaks_the_players_language() -> None:
    """Its words are translated; the table in the notation and the actions stay as written."""
    from unolan.client import i18n

    from unolan.replay import ALL, ReplayState

    actions, _, game, seed = play_fair_match(5)
    match = kept("r", seed, game, ["a", "b", "c"])
    match.actions = actions
    state = ReplayState(Replay(match), seat=1)
    state.move(3)
    i18n.set_language("zh_Hant")
    text = "\n".join(line for _, line in state.lines())
    hand = " ".join(c.text for c in en.parse_position(state.replay.steps[state.step].position).hands[1])
    assert f"手牌：{hand}" in text and "座位 1 的視角" in text and "第 3/" in text
    assert f"> {state.replay.steps[3].action}" in text and "q 離開" in text
    assert "hand" not in text and "step" not in text
    state.seat = ALL
    i18n.set_language("zh_Hans")
    text = "\n".join(line for _, line in state.lines())
    assert "所有手牌" in text and "hand 1:" in text  # the position is notation


def test_a_history_of_another_program_is_refused(tmp_path: Path) -> None:
    path = history.history_path(tmp_path / "x.db")
    sqlite3.connect(path).execute("CREATE TABLE other (a)")
    with pytest.raises(history.HistoryError, match="cannot read"):
        history.open_history(tmp_path / "x.db")
