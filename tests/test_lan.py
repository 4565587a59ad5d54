"""Finding games on the LAN, without a network: the TXT record, where a server is
announced, the announcement's updates, the browser's results, and the start screen.

The real thing, multicast DNS between two network namespaces, is test_lan_netns.py.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import pytest
import trio
from prompt_toolkit.application.current import create_app_session, set_app
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_tui import Table
from test_tui_net import Watch
from unolan.client import discovery, open_client
from unolan.client.discovery import DiscoveryUnavailable, Game, Games, pick_address
from unolan.client.tui.app import build_app
from unolan.client.tui.cli import list_games
from unolan.client.tui.controller import Controller
from unolan.client.tui.start import NOT_FOUND, find_then_join
from unolan.client.tui.start_screen import StartScreen
from unolan.client.tui.state import Command, Connect, Request, Rescan, UIState
from unolan.protocol.lan import SERVICE_TYPE, Announcement, clip_name
from unolan.server import announce
from unolan.server.announce import Plan, keep_announced, plan
from unolan.server.app import Server, serve
from zeroconf import ServiceInfo

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"


def txt_bytes(txt: dict[str, str]) -> dict[bytes, bytes | None]:
    return {k.encode(): v.encode() for k, v in txt.items()}


# -- the TXT record ------------------------------------------------------------------------


def test_txt_record_round_trips_with_txtvers_first() -> None:
    sent = Announcement("Friday UNO", (1,), rooms=2, waiting=1, players=5)
    txt = sent.to_txt()
    assert next(iter(txt)) == "txtvers" and txt["txtvers"] == "1"
    assert txt == {"txtvers": "1", "protovers": "1", "name": "Friday UNO", "rooms": "2",
                   "waiting": "1", "players": "5"}
    assert Announcement.from_txt(txt_bytes(txt)) == sent


def test_txt_record_as_zeroconf_carries_it() -> None:
    """Through zeroconf's own TXT encoding (the bytes on the wire) and back."""
    sent = Announcement("Ann's table — 週五", (1, 2), rooms=0, waiting=0, players=0)
    info = ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}", port=7117, properties=sent.to_txt())
    again = ServiceInfo(SERVICE_TYPE, f"x.{SERVICE_TYPE}", properties=info.text)  # raw bytes
    assert Announcement.from_txt(again.properties) == sent


def test_txt_record_reading_is_lenient_where_rfc6763_says() -> None:
    props = {b"TXTVERS": b"1", b"ProtoVers": b"1", b"protovers": b"9", b"NAME": b"bob",
             b"rooms": b"3", b"waiting": None, b"players": b"-1", b"future": b"whatever"}
    got = Announcement.from_txt(props)
    # keys are case-insensitive, the first of repeated keys wins, unknown keys are ignored
    assert got == Announcement("bob", (1,), rooms=3, waiting=None, players=None)


@pytest.mark.parametrize("count", [b"", b"x", b" 3", b"+3", b"3.0", "٣".encode(), b"99999999"])
def test_a_count_that_cannot_be_believed_is_unknown(count: bytes) -> None:
    got = Announcement.from_txt({b"protovers": b"1", b"rooms": count})
    assert got.rooms is None and got.players is None


@pytest.mark.parametrize("versions", [None, b"", b"one", b"0", b"1,,2", b"-1"])
def test_a_record_without_a_readable_protocol_version_is_refused(versions: bytes | None) -> None:
    props: dict[bytes, bytes | None] = {b"txtvers": b"1", b"name": b"x"}
    if versions is not None:
        props[b"protovers"] = versions
    with pytest.raises(ValueError, match="protovers"):
        Announcement.from_txt(props)


def test_names_are_printable_and_fit_one_dns_label() -> None:
    assert clip_name("  a\tb\nc  ") == "a b c"
    long = clip_name("週" * 40)  # 3 bytes each: cut at a character, not inside one
    assert long == "週" * 21 and len(long.encode()) == 63
    assert clip_name("\x00\x01") == "unolan"
    assert Announcement.from_txt({b"protovers": b"1", b"name": b"\xff\xfebad"}).name == "��bad"


def test_the_documented_txt_record_is_what_a_server_sends() -> None:
    text = DOC.read_text()
    block = re.search(r"<!-- txt: example -->\n```text\n(.*?)\n```", text, re.S)
    assert block
    pairs = dict(line.split("=", 1) for line in block.group(1).splitlines())
    documented = Announcement("Friday UNO", rooms=2, waiting=1, players=5)  # the versions a server speaks
    assert list(pairs.items()) == list(documented.to_txt().items())
    section = text[text.index("## Finding servers on the LAN"):text.index("<!-- txt: example -->")]
    assert re.findall(r"^\| `([a-z]+)` \|", section, re.M) == list(documented.to_txt())


# -- where a server is announced -------------------------------------------------------------

MACHINE = ["127.0.0.1", "::1", "192.168.1.20", "10.8.0.3", "fe80::1%2", "fd00::5"]


def test_a_wildcard_server_is_announced_on_every_lan_interface() -> None:
    assert plan(["0.0.0.0"], MACHINE) == Plan(("10.8.0.3", "192.168.1.20"),
                                              ("10.8.0.3", "192.168.1.20"))
    # "" binds both families; IPv6 link-local addresses need a scope: left out
    assert plan(["0.0.0.0", "::"], MACHINE) == Plan(("10.8.0.3", "192.168.1.20"),
                                                    ("10.8.0.3", "192.168.1.20", "fd00::5"))


def test_a_loopback_server_is_not_announced_and_the_plan_says_why() -> None:
    assert plan(["127.0.0.1"], MACHINE) == (
        "it listens on 127.0.0.1, this machine only (--host 0.0.0.0 serves and announces it"
        " on the LAN)")
    assert "it listens on 127.0.0.1, ::1, this machine only" in str(plan(["::1", "127.0.0.1"],
                                                                          MACHINE))


def test_a_server_on_one_address_is_announced_there() -> None:
    assert plan(["192.168.1.20"], MACHINE) == Plan(("192.168.1.20",), ("192.168.1.20",))
    # IPv6 only: multicast still goes over the machine's IPv4 interfaces
    assert plan(["fd00::5"], MACHINE) == Plan(("10.8.0.3", "192.168.1.20"), ("fd00::5",))


def test_where_there_is_nothing_to_announce_the_plan_says_why() -> None:
    assert plan(["0.0.0.0"], ["127.0.0.1"]) == "this machine has no network address to announce"
    assert "IPv4" in str(plan(["fd00::5"], ["127.0.0.1", "fd00::5"]))


# -- the announcement: registered, kept current without flooding, withdrawn -------------------


class FakePublisher:
    def __init__(self) -> None:
        self.calls: list[tuple[float, str, dict[str, str] | None]] = []

    async def open(self) -> None:
        self.calls.append((trio.current_time(), "open", None))

    async def register(self, txt: dict[str, str]) -> str:
        self.calls.append((trio.current_time(), "register", txt))
        return "Friday UNO-2"

    async def update(self, txt: dict[str, str]) -> None:
        self.calls.append((trio.current_time(), "update", txt))

    async def withdraw(self) -> bool:
        self.calls.append((trio.current_time(), "withdraw", None))
        return True


async def test_room_changes_are_published_at_most_once_per_interval(autojump_clock: object) -> None:
    publisher = FakePublisher()
    rooms = [0]

    def read() -> Announcement:
        return Announcement("Friday UNO", rooms=rooms[0], waiting=rooms[0], players=0)

    async def churn() -> None:  # a room opens or closes every 0.25 s for 10 s
        for i in range(40):
            await trio.sleep(0.25)
            rooms[0] = i % 5
        rooms[0] = 7

    start = trio.current_time()
    with trio.move_on_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(churn)
            await keep_announced(publisher, read, "the LAN", poll=1, min_interval=3)
    kinds = [kind for _, kind, _ in publisher.calls]
    assert kinds[0] == "register" and set(kinds[1:]) == {"update"}
    times = [t - start for t, _, _ in publisher.calls]
    assert all(b - a >= 3 for a, b in itertools.pairwise(times))
    assert 3 <= len(times) - 1 <= 20 / 3 + 1  # updates came, but never more than one per 3 s
    assert publisher.calls[-1][2] == read().to_txt()  # the latest counts were published
    # after the churn stopped, nothing more was sent
    assert times[-1] <= 10 + 3 + 1


async def test_announce_withdraws_on_cancel_and_logs_each_step(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        autojump_clock: object) -> None:
    publisher = FakePublisher()
    monkeypatch.setattr(announce, "ZeroconfPublisher", lambda *args: publisher)
    monkeypatch.setattr(announce, "machine_addresses", lambda: ["127.0.0.1", "192.0.2.5"])
    caplog.set_level(logging.INFO, "unolan.server.announce")
    with trio.move_on_after(5):
        await announce.announce(_FakeServer(), "0.0.0.0", "Friday UNO")  # type: ignore[arg-type]
    assert [kind for _, kind, _ in publisher.calls] == ["open", "register", "withdraw"]
    assert publisher.calls[1][2] == Announcement("Friday UNO").to_txt()
    text = caplog.text
    assert "announced on the LAN (192.0.2.5) as 'Friday UNO-2'" in text
    assert "LAN announcement withdrawn" in text


async def test_stopped_while_probing_it_withdraws_and_never_says_announced(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        autojump_clock: object) -> None:
    class Probing(FakePublisher):
        async def register(self, txt: dict[str, str]) -> str:
            with trio.CancelScope(shield=True):  # like the worker thread: not interruptible
                await trio.sleep(1.5)
            return await super().register(txt)

    publisher = Probing()
    monkeypatch.setattr(announce, "ZeroconfPublisher", lambda *args: publisher)
    monkeypatch.setattr(announce, "machine_addresses", lambda: ["192.0.2.5"])
    caplog.set_level(logging.INFO, "unolan.server.announce")
    with trio.move_on_after(0.5):  # Ctrl-C half a second after the start
        await announce.announce(_FakeServer(), "0.0.0.0", "x")  # type: ignore[arg-type]
    assert [kind for _, kind, _ in publisher.calls] == ["open", "register", "withdraw"]
    assert "announced on" not in caplog.text and "LAN announcement withdrawn" in caplog.text


async def test_a_server_on_loopback_is_not_announced_and_the_log_says_so(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def never(*args: object) -> None:
        raise AssertionError("no announcement for a loopback server")

    monkeypatch.setattr(announce, "ZeroconfPublisher", never)
    caplog.set_level(logging.INFO, "unolan.server.announce")
    await announce.announce(_FakeServer(), "127.0.0.1", "x")  # type: ignore[arg-type]
    assert caplog.messages == ["not announced on the LAN: it listens on 127.0.0.1, this machine"
                               " only (--host 0.0.0.0 serves and announces it on the LAN)"]


async def test_a_network_without_multicast_costs_the_server_one_log_line(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    def no_multicast(*args: object, **kwargs: object) -> None:
        raise OSError(19, "No such device")

    monkeypatch.setattr(announce, "Zeroconf", no_multicast)
    monkeypatch.setattr(announce, "machine_addresses", lambda: ["192.0.2.5"])
    caplog.set_level(logging.INFO, "unolan.server.announce")
    await announce.announce(_FakeServer(), "0.0.0.0", "x")  # type: ignore[arg-type]
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and not lines[0].exc_info
    assert "LAN announcement failed ([Errno 19] No such device)" in lines[0].getMessage()
    assert "withdrawn" not in caplog.text


async def test_the_announcement_counts_rooms_waiting_rooms_and_people() -> None:
    async with trio.open_nursery() as nursery:
        server = await nursery.start(Server().run, "127.0.0.1", 0)
        async with open_client("127.0.0.1", server.port, "ann") as ann:
            await ann.create_room("t", seats=3)
            await ann.add_bot()
            async with open_client("127.0.0.1", server.port, "bob") as bob:
                await bob.create_room("u", seats=2)
                assert announce.status(server, "n") == Announcement("n", rooms=2, waiting=2,
                                                                     players=2)
        nursery.cancel_scope.cancel()


class _FakeServer:
    def __init__(self) -> None:
        self.port = 7117
        self.rooms: dict[str, object] = {}


# -- what a browser found ------------------------------------------------------------------


def service(instance: str, addresses: list[str], port: int = 7117, **txt: str) -> ServiceInfo:
    """A resolved service as zeroconf gives it; a TXT value "-" leaves that key out."""
    record = {"txtvers": "1", "protovers": "1,2,3", "name": instance, "rooms": "1", "players": "2"}
    record.update(txt)
    return ServiceInfo(SERVICE_TYPE, f"{instance}.{SERVICE_TYPE}", port=port,
                       properties={k: v for k, v in record.items() if v != "-"},
                       parsed_addresses=addresses)


def test_games_are_listed_in_a_stable_order_and_follow_changes() -> None:
    games = Games()
    assert games.found(f"zed.{SERVICE_TYPE}", service("zed", ["10.0.0.9"]))
    assert games.found(f"Amy.{SERVICE_TYPE}", service("Amy", ["10.0.0.7"], port=8000))
    assert not games.found(f"zed.{SERVICE_TYPE}", service("zed", ["10.0.0.9"]))  # the same
    assert [(g.name, g.address, g.rooms, g.players) for g in games.list()] == [
        ("Amy", "10.0.0.7:8000", 1, 2), ("zed", "10.0.0.9:7117", 1, 2)]
    assert games.found(f"zed.{SERVICE_TYPE}", service("zed", ["10.0.0.9"], rooms="4"))
    assert games.list()[1].rooms == 4
    assert games.lost(f"Amy.{SERVICE_TYPE}") and not games.lost(f"Amy.{SERVICE_TYPE}")
    assert [g.key for g in games.list()] == ["zed"]


def test_games_we_cannot_join_are_listed_last_and_broken_records_not_at_all() -> None:
    games = Games()
    games.found(f"new.{SERVICE_TYPE}", service("new", ["10.0.0.1"], protovers="7"))
    games.found(f"old.{SERVICE_TYPE}", service("old", ["10.0.0.2"]))
    assert [(g.name, g.joinable) for g in games.list()] == [("old", True), ("new", False)]
    games.found(f"v1.{SERVICE_TYPE}", service("v1", ["10.0.0.5"], protovers="1"))
    assert not next(g for g in games.list() if g.name == "v1").joinable  # this client speaks 2 and 3
    assert not games.found(f"odd.{SERVICE_TYPE}", service("odd", ["10.0.0.3"], protovers="-"))
    assert not games.found(f"far.{SERVICE_TYPE}", service("far", []))
    assert games.found(f"new.{SERVICE_TYPE}", service("new", ["10.0.0.1"], protovers="x"))
    assert [g.name for g in games.list()] == ["old", "v1"]  # its record broke: it is gone
    nameless = service("anon", ["10.0.0.4"], name="-")
    games.found(f"anon.{SERVICE_TYPE}", nameless)
    assert "anon" in [g.name for g in games.list()]  # the instance name stands in


def test_a_lan_flooding_names_gets_no_more_than_the_limit() -> None:
    games = Games(limit=3)
    for i in range(10):
        games.found(f"g{i}.{SERVICE_TYPE}", service(f"g{i}", [f"10.0.0.{i + 1}"]))
    assert [g.name for g in games.list()] == ["g0", "g1", "g2"]
    assert games.found(f"g1.{SERVICE_TYPE}", service("g1", ["10.0.0.2"], rooms="9"))


def test_the_address_chosen_is_on_our_network_then_ipv4_first() -> None:
    import ipaddress

    ours = [ipaddress.ip_network("192.168.1.0/24"), ipaddress.ip_network("fd00::/64")]
    assert pick_address(["172.17.0.1", "192.168.1.20"], ours) == "192.168.1.20"
    assert pick_address(["fd00::20", "172.17.0.1"], ours) == "fd00::20"
    assert pick_address(["fd01::20", "172.17.0.1"], ours) == "172.17.0.1"
    assert pick_address(["127.0.0.1", "10.1.1.1"]) == "10.1.1.1"
    assert pick_address(["nonsense", "127.0.0.1"]) == "127.0.0.1"
    assert pick_address([]) is None
    game = Game("k", "n", "fd00::20", 7117, 0, 0, 0, (1, 2, 3))
    assert game.address == "[fd00::20]:7117"


async def test_where_multicast_dns_cannot_start_browsing_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def no_interfaces(*args: object, **kwargs: object) -> None:
        raise RuntimeError("No interfaces to listen on")

    monkeypatch.setattr(discovery, "Zeroconf", no_interfaces)
    with pytest.raises(DiscoveryUnavailable, match="No interfaces to listen on"):
        await discovery.find_games(0.5)


def test_join_list_without_multicast_is_one_line_and_status_1(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def no_interfaces(*args: object, **kwargs: object) -> None:
        raise OSError(99, "Cannot assign requested address")

    monkeypatch.setattr(discovery, "Zeroconf", no_interfaces)
    assert list_games(0.5) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "no games found; give an address: uno join HOST[:PORT]" in err


def test_join_list_prints_a_tab_separated_line_per_joinable_game(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    found = [Game("a", "Friday UNO", "10.0.0.7", 7117, 2, 1, None, (1, 2, 3)),
             Game("b", "future", "10.0.0.8", 7117, 0, 0, 0, (9,))]

    async def find_games(seconds: float) -> list[Game]:
        return found

    monkeypatch.setattr(discovery, "find_games", find_games)
    assert list_games(1) == 0
    out, err = capsys.readouterr()
    assert out == "10.0.0.7:7117\tFriday UNO\t2\t?\n"
    assert "future at 10.0.0.8:7117 speaks protocol 9" in err
    found.pop(0)
    assert list_games(1) == 1
    assert "no games found on the LAN" in capsys.readouterr().err


def test_join_arguments() -> None:
    from unolan.cli import build_parser

    parse = build_parser().parse_args
    assert parse(["join"]).address is None and not parse(["join"]).list
    assert parse(["join", "10.0.0.7:8000"]).address == ("10.0.0.7", 8000)
    assert parse(["join", "--list", "--wait", "0.5"]).wait == 0.5
    with pytest.raises(SystemExit):
        parse(["join", "--list", "--wait", "0"])
    from unolan.client.tui.cli import run_join

    assert run_join(parse(["join", "10.0.0.7", "--list"])) == 2
    assert parse(["host", "--no-announce", "--name", "x"]).no_announce


# -- the start screen -----------------------------------------------------------------------

GAMES = [Game("Amy", "Amy", "10.0.0.7", 8000, 2, 1, 3, (1, 2, 3)),
         Game("zed", "zed", "10.0.0.9", 7117, 0, 0, 0, (1, 2, 3)),
         Game("new", "new", "10.0.0.10", 7117, None, None, None, (9,))]


@contextmanager
def start_screen(games: list[Game]) -> Iterator[Table]:
    """The start screen in a real application, as test_tui's table() and lobby() make them."""
    state = UIState(name="ann")
    state.start = StartScreen()
    state.start.show(list(games))
    sent: list[Command] = []
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        app = build_app(state, Controller(state, sent.append))
        app.timeoutlen = None  # no multi-key timeout task: keys are processed synchronously
        with set_app(app):
            yield Table(None, state, sent, app, 0)  # type: ignore[arg-type]  # no engine game


def test_start_screen_lists_the_games_and_joins_one_with_enter() -> None:
    with start_screen(GAMES) as t:
        screen = t.screen()
        assert "Games on the LAN" in screen
        assert re.search(r"▶ Amy +10\.0\.0\.7:8000 +2 \(1 waiting\) +3", screen)
        assert re.search(r"  new +10\.0\.0\.10:7117 +needs protocol 9\n", screen)
        t.press("down", "enter")
        assert t.sent == [Connect("10.0.0.9", 7117)]
        assert "Joining 10.0.0.9:7117" in t.screen()
        t.press("up", "enter", "r")  # once joining, the keys wait
        assert t.sent == [Connect("10.0.0.9", 7117)] and "joining" in t.screen()


def test_start_screen_refuses_a_game_it_cannot_speak_to_and_searches_again() -> None:
    with start_screen(GAMES) as t:
        t.press("up", "enter")
        assert t.sent == []
        assert "new speaks protocol 9; this uno speaks 2/3/4: update one of them" in t.screen()
        t.press("r")
        assert t.sent == [Rescan()] and t.state.start is not None and t.state.start.games == []
        assert "Searching the LAN" in t.screen()


def test_start_screen_takes_a_typed_address() -> None:
    with start_screen([]) as t:
        t.state.start.searching = False  # type: ignore[union-attr]
        assert f"{NOT_FOUND}." in t.screen()
        t.press("enter")
        assert t.sent == [] and "no game to join: give an address (a)" in t.screen()
        t.press("a")
        assert t.state.input_mode == "address"
        t.app.current_buffer.insert_text("10.0.0.9:70000")
        t.app.current_buffer.validate_and_handle()
        words = " ".join(t.screen().split())  # wrapped at spaces, read whole
        assert t.sent == [] and "a port is a number from 1 to 65535" in words
        t.press("a")
        t.app.current_buffer.insert_text(" 10.0.0.9:8000 ")
        t.app.current_buffer.validate_and_handle()
        assert t.sent == [Connect("10.0.0.9", 8000)]


def test_start_screen_keeps_the_cursor_on_its_game_as_the_list_changes() -> None:
    screen = StartScreen()
    screen.show(GAMES[:2])
    screen.cursor = 1
    screen.show([Game("b", "bea", "10.0.0.8", 7117, 0, 0, 0, (1, 2, 3)), *GAMES[:2]])
    assert screen.selected() == GAMES[1]
    screen.show([GAMES[0]])
    assert screen.selected() == GAMES[0]


class Keys(Watch):
    """``invalidate`` that wakes waiters, plus the keys' channel."""

    def __init__(self) -> None:
        super().__init__()
        self.send, self.receive = trio.open_memory_channel[Command](16)


async def test_find_then_join_browses_until_chosen_then_plays_on_that_server() -> None:
    browses: list[str] = []

    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0))
        here = Game("here", "here", "127.0.0.1", port, 0, 0, 0, (1, 2, 3))

        async def browse(changed: object) -> None:
            browses.append("start")
            changed([here])  # type: ignore[operator]
            await trio.sleep_forever()

        state, keys = UIState(name="ann"), Keys()
        state.start = StartScreen()
        nursery.start_soon(partial(find_then_join, state, keys.receive, keys, name="ann",
                                   browse=browse))
        await keys.until(lambda: state.start and state.start.games)
        await keys.send.send(Request("list_rooms"))  # not connected yet: a notice
        await keys.until(lambda: state.current_notices())
        assert "choose a game" in state.current_notices()[0].text
        await keys.send.send(Rescan())
        await keys.until(lambda: len(browses) == 2)
        await keys.send.send(Connect("127.0.0.1", port))
        await keys.until(lambda: state.start is None and state.status == "connected")
        assert state.address == f"127.0.0.1:{port}"
        await keys.send.send(Request("create_room", {"name": "t"}))
        await keys.until(lambda: state.room_id is not None)
        nursery.cancel_scope.cancel()


async def test_find_then_join_without_multicast_asks_for_an_address() -> None:
    async def browse(changed: object) -> None:
        raise DiscoveryUnavailable("multicast DNS cannot start here (No interfaces)")

    state, keys = UIState(name="ann"), Keys()
    state.start = StartScreen()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(partial(find_then_join, state, keys.receive, keys, name="ann",
                                   browse=browse))
        await keys.until(lambda: state.start and state.start.problem)
        assert not state.start.searching  # type: ignore[union-attr]
        nursery.cancel_scope.cancel()
