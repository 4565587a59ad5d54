"""Running a :class:`~unolan.client.bot.Bot` over the network.

:func:`play` drives one bot on a connected :class:`~unolan.client.session.Client`: it
shows the bot every event its seat sees, and whenever the table settles (no event
waiting) asks :func:`~unolan.client.bot.decide` for an action and sends it with the seq
it was decided on. A refused action (``too_late`` after a race, say) is simply decided
again on the newer table once its events arrive; any other refusal triggers a resync.

:func:`launch_bot` is the server's bot launcher (``serve(..., bot_launcher=launch_bot)``)
and :func:`main_bots` is ``uno bot``.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import trio
from unolan.protocol.events import ENGINE_EVENTS

from unolan import protocol as pr

from .bot import Bot, decide
from .i18n import N_, _, error_text, ngettext
from .session import (
    Client,
    ClientError,
    ConnectionLost,
    Disconnected,
    Reconnected,
    first_error,
    open_client,
)
from .strategies import STRATEGIES, make_bot
from .tables import Tables

# Told every event the bot's seat sees (kind, data), e.g. to print the match's progress.
EventHook = Callable[[str, Mapping[str, Any]], None]
# Told when the connection drops and when the seat is back on a new one.
ConnectionHook = Callable[[Disconnected | Reconnected], None]

log = logging.getLogger("unolan.client.bot")

# What a request raises while the connection is down (the reader takes the seat back).
_LOST = (ConnectionLost, trio.BrokenResourceError, trio.ClosedResourceError, OSError)


async def play(client: Client, bot: Bot, *, delay: float = 0.0, matches: int = 0,
               on_event: EventHook | None = None, on_connection: ConnectionHook | None = None,
               jump_in_delay: float | None = None) -> int:
    """Play ``bot`` in the client's seat until ``matches`` matches are over (0: until the
    connection ends). Returns the number of matches finished. ``on_event`` is told every
    room event the seat sees, ``on_connection`` when the connection drops and comes back.
    ``delay``: the think time from the table's last move to the bot's action, in turn or
    out of it; ``jump_in_delay`` (default ``delay``): the think time when the rules play
    jump-ins, where the next player's move ends everyone else's chance to jump in."""
    finished = 0
    sent_at: int | None = None  # the own table's seq our last action was decided on
    thinking: int | None = None  # the own table's seq the bot is thinking about
    think_until = 0.0
    alarm = _Alarm()  # when a decided action is sent: the end of its think time
    last: Any = None  # the last action sent
    async for msg in _batches(client, alarm):
        if isinstance(msg, pr.Event) and on_event is not None:
            on_event(msg.kind, msg.data)
        if isinstance(msg, pr.Event) and isinstance(client.mirror, Tables):
            mine = client.mirror.local(msg.kind, msg.data)  # the own table's, in its seats
            if mine is not None:
                bot.observe(msg.kind, mine)
            if msg.kind == "rotation_over":
                finished += 1
                if matches and finished >= matches:
                    return finished
        elif isinstance(msg, pr.Event) and msg.kind in ENGINE_EVENTS:
            bot.observe(msg.kind, msg.data)
            if msg.kind == "match_over":
                finished += 1
                if matches and finished >= matches:
                    return finished
        elif isinstance(msg, pr.Error):
            harmless = msg.code in _HARMLESS
            log.log(logging.DEBUG if harmless else logging.INFO, "%s: %s refused: %s %s",
                    client.name, last, msg.code, msg.message)
            if msg.code == "rate_limited":
                await trio.sleep(0.25)
                sent_at = None
            elif not harmless and client.view() is not None:
                # The mirror and the server disagree about what is legal: look again (a
                # server stopping says so too: the reader takes the seat back later).
                with contextlib.suppress(*_LOST):
                    await client.sync()
            # Else the table moved on and its news is on the way: decide again on it, not
            # again on the seq just refused (that would only be refused again).
        elif isinstance(msg, (Reconnected, pr.Snapshot)):
            sent_at = None
        if isinstance(msg, (Disconnected, Reconnected)) and on_connection is not None:
            on_connection(msg)
        if msg is not _SETTLED:
            continue
        view, moved = client.view(), _own_moved(client)
        alarm.at = math.inf
        if view is None or view.seat is None or moved == sent_at:
            continue
        # The think time runs from the own table's last move: at two tables, the other
        # table's events are read meanwhile but do not start it again.
        if moved != thinking:
            think = jump_in_delay if jump_in_delay is not None and view.rules.get("jump_in") else delay
            thinking, think_until = moved, trio.current_time() + think
        action = decide(bot, view)
        if action is None:
            continue
        if trio.current_time() < think_until:
            # Read on meanwhile: news decides again on the table it brings, and the end
            # of the think time comes back here as another settled moment.
            alarm.at = think_until
            continue
        sent_at, last = moved, action
        try:
            await client.act(action, wait=False)
        except _LOST:
            continue  # the reader resumes the seat; we decide again afterwards
    return finished


# Refusals that say only that the table moved on (a race lost), not that we misread it.
_HARMLESS = frozenset({"too_late", "not_started", "round_over", "match_over", "rate_limited",
                       "already_called", "cannot_catch"})
_SETTLED = object()  # marks "no more messages waiting right now"


def _own_moved(client: Client) -> int | None:
    """The seq at which the client's own table last moved (at one table: the room's)."""
    mirror = client.mirror
    return mirror.own_moved if isinstance(mirror, Tables) else client.seq


class _Alarm:
    """A time the reader of :func:`_batches` is woken at, set as it goes."""

    __slots__ = ("at",)

    def __init__(self) -> None:
        self.at = math.inf


async def _batches(client: Client, alarm: _Alarm) -> Any:
    """The client's messages, with a _SETTLED marker whenever none is waiting, and again
    when the ``alarm``'s time comes while none came (a bot's think time is over)."""
    while True:
        try:
            msg = client.next_message_nowait()
        except trio.WouldBlock:
            yield _SETTLED
            msg = await _next_until(client, alarm.at)
        except trio.EndOfChannel:
            return
        if msg is _GONE:
            return
        if msg is not None:
            yield msg


async def _next_until(client: Client, deadline: float) -> Any:
    """The next message; None if ``deadline`` comes first, _GONE once there are none."""
    with trio.move_on_at(deadline):
        try:
            return await client.next_message()
        except trio.EndOfChannel:
            return _GONE
    return None


_GONE = object()  # the connection's messages are over


BOT_LEVELS: dict[str, str] = {"basic": "greedy", **{name: name for name in STRATEGIES}}
"""The bot levels :func:`launch_bot` plays, each a strategy of
:data:`~unolan.client.strategies.STRATEGIES` (``basic``, the server's default, is greedy).
A server running these bots accepts these levels in ``add_bot`` (``serve(...,
bot_levels=BOT_LEVELS)``)."""


async def launch_bot(*, host: str, port: int, room: str, seat: int, token: str, name: str,
                     level: str = "basic", delay: float = 0.6, **_: Any) -> None:
    """The server's bot launcher: connect, take the reserved seat with its token, play
    until the room closes (or the server cancels it). ``level`` is one of
    :data:`BOT_LEVELS` (a level stored by an older server plays greedy).

    These bots sit at tables with people, and under jump-in rules they think twice as
    long: at ``delay`` the next bot played before a person had taken in the card, so a
    person never won a jump-in (and a bot's own jump-in comes no sooner either)."""
    strategy = BOT_LEVELS.get(level, "greedy")
    async with open_client(host, port, name, bot=True) as client:
        await client.resume(token, 0)
        await play(client, make_bot(strategy, seed=f"{room}/{seat}"), delay=delay,
                   jump_in_delay=2 * delay)


async def seat_bots(host: str, port: int, *, strategy: str, count: int, room: str | None = None,
                    name: str | None = None, password: str | None = None, preset: str = "house",
                    options: dict[str, Any] | None = None, seats: int = 0, delay: float = 0.0,
                    matches: int = 0, report: Callable[[str], None] | None = None,
                    keep_trying: bool = True,
                    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED) -> None:
    """Connect ``count`` bots. Without ``room`` the first creates a room (``seats`` seats,
    default ``count``) and starts each match once every seat is ready. The room id is
    reported through ``task_status``; ``report`` gets a line for each round and match
    the first bot sees end (who won, the scores).

    A bot whose connection drops takes its seat back once the server answers again,
    in a match or between two, however long that takes (``keep_trying=False``: it gives
    up after some seconds); one whose connection ends for good (its seat refused, or
    the server gone while it gave up) raises :class:`ConnectionLost`; refusals (no such
    room, a full room) raise :class:`ClientError`."""
    base = name or strategy
    seats = seats or count
    seated = [trio.Event() for _ in range(count)]  # each bot joins after the one before:
    room_id: list[str] = [room] if room else []  # the seats go in order, bot 1 in the first

    async def one(i: int) -> None:
        bot_name = base if count == 1 else f"{base}{i + 1}"
        async with open_client(host, port, bot_name, bot=True, keep_trying=keep_trying) as client:
            host_bot = room is None and i == 0
            if host_bot:
                opts = options or {}
                joined = await client.create_room(f"{base} bots", preset=preset, options=opts,
                                                  seats=seats, password=password)
                room_id.append(joined.room)
            else:
                if i:  # the bot before is in (the first: the room is there to join)
                    await seated[i - 1].wait()
                await client.join(room_id[0], password=password)
            seated[i].set()
            await client.ready()
            bot = make_bot(strategy, seed=None)
            hook = Progress(client, report) if report is not None and i == 0 else None
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_host_starts if host_bot else _keep_ready, client)
                finished = await play(client, bot, delay=delay, matches=matches, on_event=hook,
                                      on_connection=hook.connection if hook is not None else None)
                nursery.cancel_scope.cancel()
            if client.dismissed is not None and client.dismissed.code == "removed":
                if report is not None:
                    report(_("{name}: the host removed this bot from room {room}").format(
                        name=bot_name, room=room_id[0]))
                return  # the other bots play on
            if not matches or finished < matches:
                raise ConnectionLost(f"lost the connection to {host}:{port}: the server "
                                     "stopped or the network is down")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(one, 0)
        await seated[0].wait()
        task_status.started(room_id[0])
        for i in range(1, count):
            nursery.start_soon(one, i)


async def _host_starts(client: Client) -> None:
    """The hosting bot starts a match whenever the room is full, ready and idle."""
    while True:
        seats = client.seats
        if (seats is not None and not seats.started
                and all(s["kind"] != "empty"
                        and (s["ready"] or s["kind"] == "bot" or s["seat"] == seats.host)
                        for s in seats.seats)):
            try:
                await client.start()
            except ClientError as exc:
                if exc.code not in ("not_ready", "already_started"):
                    raise
            except _LOST:  # the reader takes the seat back; try again then
                pass
        await trio.sleep(0.5)


async def _keep_ready(client: Client) -> None:
    """Between matches the server clears every ready flag: set ours again."""
    while True:
        seats = client.seats
        if seats is not None and not seats.started and client.seat is not None:
            mine = next((s for s in seats.seats if s["seat"] == client.seat), None)
            if mine is not None and not mine["ready"]:
                with contextlib.suppress(ClientError, *_LOST):  # lost: again once back
                    await client.ready()
        await trio.sleep(0.5)


class Progress:
    """What ``uno bot`` prints while its bots play: a line when a match starts, and who
    won each round and each match, with the scores."""

    def __init__(self, client: Client, out: Callable[[str], None]) -> None:
        self.client = client
        self.out = out
        self.matches = 0

    def connection(self, msg: Disconnected | Reconnected) -> None:
        """The connection dropped (and why), or the bots are back."""
        room, where = self.client.room, f"{self.client.host}:{self.client.port}"
        if isinstance(msg, Disconnected):
            self.out(_("room {room}: {why}; the bots take their seats back once {where} answers "
                       "again (Ctrl-C stops them)").format(room=room, why=msg.said or msg.reason,
                                                           where=where))
        else:
            self.out(_("room {room}: back on {where}").format(room=room, where=where))

    def _name(self, seat: int | None) -> str:
        seats = self.client.seats
        entry = next((s for s in seats.seats if s["seat"] == seat), None) if seats else None
        if seat is None:
            return "nobody"
        return (entry or {}).get("name") or f"seat {seat}"

    def _scores(self, scores: Sequence[int]) -> str:
        seats = self.client.seats
        if seats is not None and len(scores) == len(seats.seats):
            return ", ".join(f"{self._name(i)} {score}" for i, score in enumerate(scores))
        seated = len(seats.seats) if seats is not None else 0  # teammates sit alternately
        return ", ".join(
            f"team {t + 1} ({' and '.join(self._name(i) for i in range(t, seated, len(scores)))})"
            f" {score}" for t, score in enumerate(scores))

    def __call__(self, kind: str, data: Mapping[str, Any]) -> None:
        room = self.client.room
        table = data.get("table")
        if kind == "round_started" and data.get("round") == 1 and not table:
            self.matches += 1
            self.out(f"room {room}: match {self.matches} started")
        elif kind == "round_over" and table is not None:  # a two-table room: its teams' scores
            self.out(f"room {room}: table {table + 1}, round {data.get('round', '?')} won by "
                     f"{self._name(data.get('winner'))} (+{data.get('points')})")
        elif kind == "rotation_round_over":
            self.out(f"room {room}: round {data.get('round')} over; totals: "
                     f"{self._scores(data.get('scores', ()))}")
        elif kind == "rotation_over":
            self.out(f"room {room}: match {self.matches} won by {self._name(data.get('champion'))}; "
                     f"final scores: {self._scores(data.get('scores', ()))}")
        elif kind == "round_over":
            self.out(f"room {room}: round {data.get('round', '?')} won by "
                     f"{self._name(data.get('winner'))} (+{data.get('points')}); "
                     f"scores: {self._scores(data.get('scores', ()))}")
        elif kind == "match_over":
            self.out(f"room {room}: match {self.matches} won by {self._name(data.get('winner'))}; "
                     f"final scores: {self._scores(data.get('scores', ()))}")


def _say(line: str) -> int:
    """One line for the person at the terminal; the exit status of a failed command."""
    print(f"uno bot: {line}", file=sys.stderr)
    return 1


def main_bots(host: str, port: int, args: argparse.Namespace, rules: Any) -> int:
    """``uno bot`` (``rules``: the checked rule set of a room the bots create)."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    where = f"{host}:{port}"

    def report(line: str) -> None:
        print(line, flush=True)

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            room = await nursery.start(lambda task_status: seat_bots(
                host, port, strategy=args.strategy, count=args.count, room=args.room,
                name=args.name, password=args.password, preset=rules.preset_name,
                options=rules.changes(), seats=args.seats, delay=args.delay,
                matches=args.matches, report=report, task_status=task_status))
            report(ngettext("{count} {strategy} bot in room {room} on {where}; Ctrl-C stops it",
                            "{count} {strategy} bots in room {room} on {where}; Ctrl-C stops them",
                            args.count).format(count=args.count, strategy=args.strategy, room=room,
                                               where=where))

    status = 0
    try:
        trio.run(main)
    except* KeyboardInterrupt:
        status = 130
    except* ClientError as group:
        status = status or _say(_refused(first_error(group), args.room, where))
    except* ConnectionLost as group:
        status = status or _say(str(first_error(group)))
    return status


def _refused(exc: BaseException, room: str | None, where: str) -> str:
    """A refusal of ``uno bot``'s requests, in words, with what to do."""
    assert isinstance(exc, ClientError)
    words = {
        "no_such_room": N_("there is no room {room!r} on {where}: `uno join {where}` lists the "
                           "rooms; without --room the bots open one"),
        "bad_password": N_("wrong password for room {room!r}: give it with --password"),
        "room_full": N_("room {room!r} has no free seat: try fewer bots (--count) or another room"),
        "already_started": N_("the match in room {room!r} has started: bots can take seats "
                              "between matches"),
    }.get(exc.code)
    if words is not None:
        return _(words).format(room=room, where=where)
    return _("the server refused: {reason}").format(reason=error_text(exc.code, exc.message)) + \
        f" ({exc.code})"
