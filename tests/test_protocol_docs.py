"""docs/protocol.md and the code cannot drift: every example is checked both ways.

Every example decodes as the message it shows and encodes back to the same map; the
examples marked as coming from a game are what the engine emits in that position; the
page's tables (event kinds, budgets, refusal codes, draw reasons) are the code's own; and
what the page promises a server does, a real server does.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from unolan.client import BOT_LEVELS, launch_bot, make_bot, open_client, play
from unolan.engine import (
    EVENT_KINDS,
    FACTS,
    IllegalAction,
    Play,
    Rules,
    parse_actions,
    parse_position,
)
from unolan.engine.rules import OPTION_BY_NAME
from unolan.protocol import (
    CLIENT,
    ERROR_CODES,
    MESSAGE_TYPES,
    SERVER,
    Connection,
    CreateRoom,
    Event,
    Hello,
    decode_body,
    decode_message,
    encode_frame,
)
from unolan.protocol import EVENT_TABLES as WIRE_KINDS
from unolan.server import Limits, serve
from unolan.server.session import SERVER_NAME

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
TEXT = DOC.read_text()
EXAMPLE = re.compile(
    r"<!-- example: ([a-z_/]+)(?: #([a-z0-9-]+))?"  # what it is, and a label
    r"(?: \| ([^\n|]+) \| ([^\n|]+) \| seen by (\w+))? -->"  # from a game: position | actions | member
    r"\n```json\n(.*?)\n```", re.S)


@dataclass(frozen=True)
class Example:
    name: str  # message type, or event/KIND
    label: str | None
    data: dict[str, Any]
    position: str | None = None
    actions: str | None = None
    member: int | None = None


def doc_examples() -> list[Example]:
    """Every ``<!-- example: NAME [#LABEL] [| POSITION | ACTIONS | seen by SEAT] -->`` block."""
    return [Example(name, label or None, json.loads(body), position, actions,
                    None if member in ("", "spectator") else int(member))
            for name, label, position, actions, member, body in EXAMPLE.findall(TEXT)]


EXAMPLES = doc_examples()


def labelled(name: str, label: str | None = None) -> dict[str, Any]:
    (example,) = [e for e in EXAMPLES if e.name == name and e.label == label]
    return example.data


def table(marker: str) -> list[list[str]]:
    """The rows of the table after ``<!-- marker -->`` (cells stripped, header left out)."""
    lines = TEXT[TEXT.index(f"<!-- {marker} -->"):].splitlines()[1:]
    rows = []
    for line in lines[2:]:
        line = line.strip()  # a table inside a list item is indented
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def names(cell: str) -> list[str]:
    return re.findall(r"`([a-z_0-9]+)`", cell)


def test_every_marker_is_followed_by_an_example() -> None:
    markers = re.findall(r"<!-- example: ", TEXT)
    assert len(markers) == len(EXAMPLES) > 60


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.name}#{e.label}" if e.label else e.name
                                                   for e in EXAMPLES])
def test_example_decodes_and_re_encodes_to_the_same_map(example: Example) -> None:
    data = example.data
    type_name, _, kind = example.name.partition("/")
    assert data["type"] == type_name
    if kind and kind != "future_kind":
        assert data["kind"] == kind
    if kind in EVENT_KINDS:  # an engine event shows the fields of its kind (and its table) and no other
        assert set(data["data"]) <= {*EVENT_KINDS[kind].fields, "table"}, example
    # Through real frame bytes, as a peer would send it.
    msg = decode_message(decode_body(encode_frame(data)[4:]))
    assert type(msg) is MESSAGE_TYPES[type_name]
    wire = json.loads(json.dumps(msg.to_wire()))
    # An example may leave out fields with a default; the reference code sends them.
    assert {k: wire[k] for k in data} == data
    assert all(msg.FIELDS[[f[0] for f in msg.FIELDS].index(k)][2] == wire[k]  # type: ignore[attr-defined]
               for k in set(wire) - set(data))


def test_every_message_type_and_event_kind_has_an_example() -> None:
    names_ = {e.name for e in EXAMPLES}
    assert set(MESSAGE_TYPES) <= {n.partition("/")[0] for n in names_}
    kinds = {e.data["kind"] for e in EXAMPLES if e.name.startswith("event/")}
    assert set(WIRE_KINDS) <= kinds
    assert kinds - set(WIRE_KINDS) == {"fireworks"}  # the one generic example


@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.position],
                         ids=[f"{e.name}#{e.label}" for e in EXAMPLES if e.position])
def test_examples_from_a_game_are_what_the_engine_emits(example: Example) -> None:
    game = parse_position(example.position.replace("; ", "\n"))
    *before, last = parse_actions(example.actions)
    for action in before:
        game.apply(action)
    kind = example.data["kind"]
    seen = [e.data_for(example.member) for e in game.apply(last) if e.kind == kind]
    assert example.data["data"] in json.loads(json.dumps(seen)), seen


def test_the_table_of_event_kinds_is_the_engines() -> None:
    rows = table("event-kinds")
    assert [names(row[0])[0] for row in rows] == list(EVENT_KINDS)
    for kind_cell, fields, private, moves, closes in rows:
        kind = names(kind_cell)[0]
        spec = EVENT_KINDS[kind]
        shown = names(fields) + (list(FACTS) if "the facts" in fields else [])
        assert sorted(shown) == sorted(spec.fields), kind
        assert names(private) == ([*spec.private, spec.to] if spec.private else []), kind
        assert (moves == "yes", closes == "yes") == (spec.moves, spec.closes), kind


LEGAL_PLAYS = table("legal-plays")


@pytest.mark.parametrize("row", LEGAL_PLAYS, ids=[f"{r[0].strip('`')}: {r[1]}" for r in LEGAL_PLAYS])
def test_each_documented_play_gets_the_engines_code(row: list[str]) -> None:
    """Each row of the legal plays: the option it names is a real one, and the engine
    applies the action (`ok`) or refuses it with the code shown, and judging an action
    and listing the legal actions agree with it."""
    option, situation, position, action, code = (cell.strip("`") for cell in row)
    assert option == "—" or option in OPTION_BY_NAME, option
    game = parse_position(position)
    (parsed,) = parse_actions(action)
    # The list names the color a multi-play continues in, which a play may leave out (the last card's).
    named = replace(parsed, color=parsed.cards[-1].color) if (
        isinstance(parsed, Play) and len(parsed.cards) > 1 and parsed.color is None) else parsed
    listed = named in game.legal_actions(parsed.seat)
    refusal = game.refusal(parsed)
    kinds: list[str] = []
    try:
        kinds = [e.kind for e in game.apply(parsed)]
    except IllegalAction as exc:
        assert exc.code == code, (situation, exc.reason)
    else:
        assert code == "ok", (situation, kinds)
    assert (refusal is None) == (code == "ok" and "misplay" not in kinds), situation
    # A play the rules punish (a misplay, a false UNO) is applied, never offered.
    assert listed == (code == "ok" and not {"misplay", "false_uno"} & set(kinds)), situation


def test_the_legal_plays_cover_every_rule_of_playing_cards() -> None:
    """Every option that decides whether a card may be played has rows, refused and applied."""
    shown: dict[str, set[str]] = {}
    for option, *_, code in LEGAL_PLAYS:
        shown.setdefault(option.strip("`"), set()).add("ok" if code == "`ok`" else "refused")
    for option in ("—", "strict_after_penalty", "multi_play", "stacking", "deflect", "pair_beats_wd4",
                   "jump_in", "seven_zero", "forced_play", "last_card_no_action", "deck",
                   "false_uno_penalty"):
        assert shown.get(option) == {"ok", "refused"}, option
    codes = {row[4].strip("`") for row in LEGAL_PLAYS}
    assert codes >= {"ok", "bad_play", "misplay", "not_your_turn", "bad_target", "bad_seat",
                     "forced_play", "wrong_phase", "false_uno", "cannot_challenge"}


def test_the_stacking_modes_table_is_the_engines() -> None:
    """What each ``stacking`` mode lets answer a Draw Two and a Wild Draw Four (green named)."""
    described = {"nothing": set(), "a Draw Two": {"GD2", "RD2"}, "a Wild Draw Four": {"W4"},
                 "a Draw Two of the named color": {"GD2"}}
    tops = {"on a Draw Two": "discard: R5 RD2; pending: 2", "on a Wild Draw Four": "discard: R5 W4; color: G; pending: 4"}
    rows = table("stacking-modes")
    assert [names(row[0])[0] for row in rows] == list(OPTION_BY_NAME["stacking"].choices)
    for row in rows:
        mode = names(row[0])[0]
        for top, cell in zip(tops, row[1:], strict=True):
            expected = set().union(*(described[part.strip()] for part in cell.split(",")))
            game = parse_position(f"rules: house stacking={mode}; hand 0: GD2 RD2 W4 R1; hand 1: B1; {tops[top]}")
            answers = {card for card in ("GD2", "RD2", "W4")
                       if game.refusal(parse_actions(f"0 play {card}{' B' if card == 'W4' else ''}")[0]) is None}
            assert answers == expected, (mode, top)


def test_the_reasons_for_drawing_are_the_engines() -> None:
    from unolan.engine import game

    source = Path(game.__file__).read_text()
    used = set(re.findall(r'_give\([^)]*?"([a-z_]+)"', source)) | set(
        re.findall(r'"drew", \{[^}]*"reason": "([a-z_]+)"', source))
    assert {names(row[0])[0] for row in table("drew-reasons")} == used


def test_option_words_mean_the_same_rules() -> None:
    plain = next(e.data for e in EXAMPLES if e.name == "create_room" and e.label is None)
    words = labelled("create_room", "option-words")
    rules = [CreateRoom.from_wire(m).rules() for m in (plain, words)]  # type: ignore[attr-defined]
    assert rules[0] == rules[1]
    # The preset all-wild is the official rules with the deck all_wild.
    assert Rules.preset("official", deck="all_wild").to_dict() | {"preset": "all-wild"} == \
        Rules.preset("all-wild").to_dict()


def test_error_code_table_matches_the_code() -> None:
    rows = re.findall(r"^\| `([a-z_]+)` \| (yes|no) \| (.*?) \|$", TEXT[TEXT.index("<!-- error-codes -->"):], re.M)
    assert len(rows) == len({code for code, _, _ in rows})  # each code once
    assert {code: (fatal == "yes", meaning) for code, fatal, meaning in rows} == ERROR_CODES


def test_each_heading_once_and_the_welcome_names_the_real_server() -> None:
    headings = re.findall(r"^#+ (.*)$", TEXT, re.M)
    assert len(headings) == len(set(headings))
    assert labelled("welcome")["server"] == SERVER_NAME


def test_hex_frame_example_is_the_real_encoding() -> None:
    match = re.search(r"<!-- frame: hello -->\n```text\n(.*?)\n```", TEXT)
    assert match
    expected = encode_frame(Hello(versions=(2, 3, 4), name="ann").to_wire())
    assert bytes.fromhex(match.group(1)) == expected


def test_documented_generic_event_is_accepted() -> None:
    data = next(e.data for e in EXAMPLES if e.name == "event/future_kind")
    msg = Event.from_wire(data)
    assert msg.data["colors"] == ("R", "G")


# -- what the page promises a server does -------------------------------------------------


class Wire:
    """A client speaking raw frames, as a bot from this page would."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream, self.buffer = stream, b""

    @classmethod
    async def open(cls, port: int, name: str, versions: tuple[int, ...] = (2,)) -> Wire:
        wire = cls(await trio.open_tcp_stream("127.0.0.1", port))
        await wire.send(type="hello", versions=list(versions), name=name)
        assert (await wire.receive())["type"] == "welcome"
        return wire

    async def send(self, **message: Any) -> None:
        body = msgpack.packb(message)
        await self.stream.send_all(len(body).to_bytes(4, "big") + body)

    async def receive(self) -> dict[str, Any]:
        with trio.fail_after(10):
            while len(self.buffer) < 4 or len(self.buffer) < 4 + int.from_bytes(self.buffer[:4], "big"):
                chunk = await self.stream.receive_some(65536)
                assert chunk, "the server closed the connection"
                self.buffer += chunk
        size = int.from_bytes(self.buffer[:4], "big")
        message, self.buffer = msgpack.unpackb(self.buffer[4:4 + size]), self.buffer[4 + size:]
        return message if message["type"] != "ping" else await self.receive()

    async def reply(self, id: int) -> dict[str, Any]:
        while (message := await self.receive()).get("id") != id:
            pass
        return message

    async def closing_event(self) -> dict[str, Any]:
        while not ((m := await self.receive())["type"] == "event" and m["kind"] in ("turn", "round_over")):
            pass
        return m


async def start_server(nursery: trio.Nursery, **limits: Any) -> int:
    return await nursery.start(partial(
        serve, "127.0.0.1", 0, seed=3, bot_launcher=partial(launch_bot, delay=0),
        bot_levels=tuple(BOT_LEVELS), limits=Limits(deal_pause=0, **limits)))


async def test_the_server_answers_as_the_page_says() -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery, max_strikes=3)
        host = await Wire.open(port, "ann")
        await host.send(**labelled("create_room", "minimal"))  # only a name
        joined = await host.reply(2)
        assert joined["type"] == "joined" and joined["seat"] == 0
        # The rooms listing has the fields shown, one table here.
        await host.send(type="list_rooms", id=1)
        (room,) = (await host.reply(1))["rooms"]
        (shown,) = next(e.data for e in EXAMPLES if e.name == "rooms")["rooms"]
        assert room.keys() == shown.keys() and room["tables"] == 1
        # An unknown bot level, refused as shown.
        await host.send(**labelled("add_bot", "bad-level"))
        assert await host.reply(7) == labelled("error", "unknown-level")
        # A request of a newer protocol, more often than the strikes allow: no strike.
        newer = labelled("error", "newer-request")
        for _ in range(6):
            await host.send(type="rematch", id=newer["id"])
            assert await host.reply(newer["id"]) == newer
        # A table for two: the host, and a player driven by this test.
        await host.send(type="leave", id=3)
        await host.reply(3)
        await host.send(type="create_room", name="two", seats=2, id=4)
        joined = await host.reply(4)
        other = await Wire.open(port, "bob")
        await other.send(type="join", room=joined["room"], id=1)
        assert (await other.reply(1))["type"] == "joined"
        await other.send(type="ready", ready=True, id=2)
        await other.reply(2)
        # The host starts without being ready.
        await host.send(**next(e.data for e in EXAMPLES if e.name == "start"))
        assert (await host.reply(6))["type"] == "ok"
        wires = (host, other)
        while True:  # play on until the host's turn in phase play: draw with an id
            turn = await host.closing_event()
            seat = turn["data"]["seat"]
            if seat == 0 and turn["data"]["phase"] == "play":
                break
            mover = wires[seat]
            if mover is other:
                await other.closing_event()  # other's copy of the same event
            phase = turn["data"]["phase"]
            action = {"play": {"type": "draw"}, "drawn": {"type": "pass"},
                      "color": {"type": "choose_color", "color": "R"}}[phase]
            await mover.send(seq=turn["seq"], **action)
        ahead = labelled("error", "seq-ahead")
        await host.send(type="draw", seq=turn["seq"] + 7, id=ahead["id"])
        refused = await host.reply(ahead["id"])
        assert refused["code"] == ahead["code"]
        assert re.fullmatch(ahead["message"].replace("60", r"\d+").replace("(53)", r"\(\d+\)"), refused["message"])
        # ok comes before the action's events.
        await host.send(type="draw", seq=turn["seq"], id=40)
        after = [await host.receive() for _ in range(2)]
        assert (after[0]["type"], after[0]["id"]) == ("ok", 40)
        assert (after[1]["type"], after[1]["kind"]) == ("event", "drew") and after[1]["seq"] == turn["seq"] + 1
        # Acting again on the table the draw moved: too late, in the words shown.
        moved = await host.closing_event()
        late = next(e.data for e in EXAMPLES if e.name == "error" and e.data["code"] == "too_late")
        await host.send(type="draw", seq=turn["seq"], id=late["id"])
        refused = await host.reply(late["id"])
        assert refused["code"] == "too_late"
        assert refused["message"] == late["message"].replace("54", str(moved["seq"]))
        # A spectator joining the match: joined, its own arrival, seats, then a snapshot.
        watcher = await Wire.open(port, "eve")
        await watcher.send(type="join", room=joined["room"], role="spectator", id=1)
        got = [await watcher.receive() for _ in range(4)]
        assert [(m["type"], m.get("kind")) for m in got] == [
            ("joined", None), ("event", "player_joined"), ("seats", None), ("snapshot", None)]
        assert [m["seq"] for m in got] == [got[0]["seq"]] + [got[0]["seq"] + 1] * 3
        assert got[3]["view"]["seat"] is None
        nursery.cancel_scope.cancel()


async def test_the_handshake_and_version_examples_are_real_frames() -> None:
    """The hello shown gets the welcome shown; a client of no common version gets the
    unsupported_version shown; a version 3 client gets the needs_version shown."""
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        ann = Wire(await trio.open_tcp_stream("127.0.0.1", port))
        await ann.send(**labelled("hello"))
        welcome, shown_welcome = await ann.receive(), labelled("welcome")
        # The server's id is drawn per server (kept in its database): a string, not the example's.
        assert isinstance(welcome.pop("server_id"), str) and shown_welcome.pop("server_id")
        assert welcome == shown_welcome
        future = Wire(await trio.open_tcp_stream("127.0.0.1", port))
        await future.send(type="hello", versions=[5], name="zed")
        assert await future.receive() == next(e.data for e in EXAMPLES if e.name == "error"
                                              and e.data["code"] == "unsupported_version")
        await ann.send(**labelled("create_room", "two-tables"))
        room = (await ann.reply(2))["room"]
        old = await Wire.open(port, "bob", versions=(3,))
        shown = labelled("error", "needs-version")
        await old.send(type="join", room=room, id=shown["id"])
        assert await old.reply(shown["id"]) == shown
        nursery.cancel_scope.cancel()


async def test_after_a_match_the_room_is_back_in_its_lobby_and_plays_again() -> None:
    async with trio.open_nursery() as nursery:
        port = await start_server(nursery)
        async with open_client("127.0.0.1", port, "ann") as ann, \
                open_client("127.0.0.1", port, "bob") as bob:
            joined = await ann.create_room("t", preset="house", seats=2,
                                           options={"target_score": 1, "hand_size": 2})
            await bob.join(joined.room)
            await bob.ready()
            await ann.start()
            async with trio.open_nursery() as players:
                players.start_soon(partial(play, ann, make_bot("greedy", seed=1), matches=1))
                players.start_soon(partial(play, bob, make_bot("greedy", seed=2), matches=1))
            with trio.fail_after(10):
                while ann.seats is None or ann.seats.started or bob.seats is None or bob.seats.started:
                    await trio.sleep(0.01)
            for client in (ann, bob):
                assert [s["ready"] for s in client.seats.seats] == [False, False]  # type: ignore[union-attr]
            await bob.ready()
            await ann.start()  # the same room, a new match, its scores from zero
            with trio.fail_after(10):
                while (view := ann.view()) is None or view.round != 1 or any(view.scores):
                    await trio.sleep(0.01)
        nursery.cancel_scope.cancel()


def test_a_server_speaks_versions_1_to_3_too_and_a_client_offers_versions_2_to_4() -> None:
    old, server = Connection(CLIENT, versions=(1,)), Connection(SERVER)
    server.receive_data(old.hello("old"))
    server.next_event()
    old.receive_data(server.welcome("srv"))
    assert old.next_event().version == 1  # type: ignore[attr-defined]
    assert Connection(CLIENT).versions == (2, 3, 4) and Connection(SERVER).versions == (1, 2, 3, 4)
    assert '"versions": [2, 3, 4]' in TEXT  # as the page says the reference client offers


def test_the_budgets_table_gives_the_servers_numbers() -> None:
    """Each row names the server's Limits fields and states their values, in order."""
    from unolan.server import Limits

    text = DOC.read_text()
    table = text[text.index("<!-- budgets -->"):].split("\n\n", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")][2:]
    assert len(rows) >= 15
    limits = Limits()
    for _, fields, value, _ in rows:
        names = re.findall(r"`([a-z_]+)`", fields)
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", value)]
        assert names and numbers[:len(names)] == [getattr(limits, n) for n in names], (fields, value)


# -- two tables ----------------------------------------------------------------------------


def two_table_match() -> tuple[Any, list[Any]]:
    """The match the two-table examples come from: seed ``doc``, one round, the seat in
    turn at the first table still playing plays a card (chosen by a seeded random
    generator) or else does what it may; every event as the room sends it."""
    from unolan.server.match import on_wire

    from unolan import engine as en

    rotation = en.TwoTableRotation(Rules.preset("house", partner_rotation=True, rounds=1), seed="doc")
    rng = random.Random("doc")
    events = [on_wire(e) for e in rotation.start_events]
    while not rotation.over:
        seats, game = next((s, g) for s, g in rotation.tables if g.phase != "round_over")
        legal = rotation.legal_actions(seats[game.turn])
        plays = [a for a in legal if type(a) is Play]
        events += [on_wire(e) for e in rotation.apply(rng.choice(plays or legal))]
    return rotation, events


def test_the_two_table_examples_are_what_a_two_table_room_sends() -> None:
    _, events = two_table_match()
    seen = json.loads(json.dumps([{"kind": e.kind, "data": e.data_for(0)} for e in events]))
    shown = [e for e in EXAMPLES if e.label == "two-tables" and e.name.startswith("event/")]
    assert len(shown) == 4
    for example in shown:
        assert {"kind": example.data["kind"], "data": example.data["data"]} in seen, example
    from unolan import engine as en

    start = en.TwoTableRotation(Rules.preset("house", partner_rotation=True, rounds=1), seed="doc")
    snapshot = labelled("snapshot", "two-tables")
    views = [start.table_view(t, 0).to_dict() for t in range(2)]
    assert snapshot["tables"] == json.loads(json.dumps(
        [{"table": t, "seats": list(start.seats_at(t)), "view": v} for t, v in enumerate(views)]))
    assert snapshot["view"] == snapshot["tables"][0]["view"]
    created = CreateRoom.from_wire(labelled("create_room", "two-tables"))  # type: ignore[attr-defined]
    assert en.two_tables(created.rules(), created.seats)


def test_the_seat_spaces_of_a_two_table_room_are_the_engines() -> None:
    """The fields the page says name room seats are those the rotation maps to room seats."""
    from unolan.engine.rotation import _SEAT_KEYS, _SEAT_LIST_KEYS

    row = next(line for line in TEXT.splitlines()
               if line.strip().startswith("| a table's events: `seat`"))
    named = set(re.findall(r"`([a-z_]+)`", row.rsplit("|", 2)[0]))
    assert {*_SEAT_KEYS, *_SEAT_LIST_KEYS, "draws"} <= named
    assert row.rstrip().endswith("| room |")
