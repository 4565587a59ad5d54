"""Who sits where, who hosts and whom a token resumes: a room's roster on its own, without
a room, a socket or a clock."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from unolan.server.roster import Roster
from unolan.server.seats import Seat, Watcher
from unolan.server.store import SeatRecord


@dataclass(eq=False)
class Person:
    """A connection as the roster reads one: its name, whether a program plays, its seat."""

    name: str
    bot: bool = False
    seat: int | None = None


def seated(roster: Roster, name: str, *, creator: bool = False) -> Person:
    person = Person(name)
    seat = roster.free_seat()
    assert seat is not None
    roster.sit(seat, person, roster.name_for(name), f"key-{name}", creator=creator)  # type: ignore[arg-type]
    person.seat = seat.index
    return person


def test_a_taken_name_gets_a_number_and_still_fits() -> None:
    roster = Roster(4)
    seated(roster, "ann")
    seated(roster, "ann")
    roster.watch(Person("x"), "w", roster.name_for("ann"))  # type: ignore[arg-type]
    assert [s.name for s in roster.seats[:2]] == ["ann", "ann (2)"]
    assert roster.watchers["w"].name == "ann (3)"
    long = "n" * 32
    seated(roster, long)
    assert roster.name_for(long) == "n" * 28 + " (2)"


def test_the_creator_hosts_and_otherwise_the_first_to_sit() -> None:
    roster = Roster(3)
    seat = roster.free_seat()
    assert seat is not None and roster.sit(seat, Person("ann", seat=0), "ann", "k", creator=False)  # type: ignore[arg-type]
    assert roster.host == 0
    assert not roster.sit(roster.seats[2], Person("cy", seat=2), "cy", "k2", creator=False)  # type: ignore[arg-type]
    roster.clear(roster.seats[2])
    seated(roster, "bob", creator=True)
    assert roster.host == 1
    seated(roster, "cat")
    assert roster.host == 1


def test_the_host_passes_to_the_first_connected_person_or_to_nobody() -> None:
    roster = Roster(4)
    ann = seated(roster, "ann")
    bob = seated(roster, "bob")
    seated(roster, "cat")
    roster.seat_bot(roster.seats[3], "basic")
    assert not roster.hand_over_host(2)  # cat did not host: nothing changes
    roster.away(ann, until=10.0)
    roster.away(bob, until=10.0)
    assert roster.hand_over_host(0) and roster.host == 2  # bob is away too: cat, not the bot
    roster.seats[2].member = None
    assert not roster.hand_over_host(2) and roster.host is None
    assert roster.claim_host(roster.seats[1])  # a person back in a room nobody hosts
    assert roster.host == 1
    assert not roster.claim_host(roster.seats[3])


def test_a_connection_replaced_on_its_seat_plays_none() -> None:
    roster = Roster(2)
    ann = seated(roster, "ann")
    seat = roster.seats[0]
    seat.autopilot, seat.timeouts = True, 3
    again = Person("anna", seat=0)
    assert roster.reseat(seat, again) is ann  # type: ignore[arg-type]
    assert roster.seat_of(ann) is None and roster.seat_of(again) is seat  # type: ignore[arg-type]
    assert seat.name == "anna" and not seat.autopilot and seat.timeouts == 0
    assert roster.reseat(seat, again) is None  # type: ignore[arg-type]


def test_a_token_resumes_its_seat_or_its_spectator_and_nothing_else() -> None:
    roster = Roster(2)
    seated(roster, "ann")
    eve = Person("eve")
    watcher = roster.watch(eve, "w-key", "eve")  # type: ignore[arg-type]
    assert roster.resumable("key-ann") is roster.seats[0]
    assert roster.resumable("w-key") is watcher
    assert roster.resumable("nobody") is None
    assert sorted(roster.tokens()) == ["key-ann", "w-key"]
    back = Person("eve2")
    assert roster.rewatch(watcher, back) is eve  # type: ignore[arg-type]
    assert list(roster.spectators) == [back] and watcher.member is back


def test_why_the_host_may_not_start() -> None:
    roster = Roster(3)
    seated(roster, "ann")
    bob = seated(roster, "bob")
    assert roster.not_ready() == "seat 2 is empty: wait for a player or add a bot"
    roster.seat_bot(roster.seats[2], "basic")
    assert roster.not_ready() == "seat 1 is not ready"  # the host (seat 0) need not say so
    roster.away(bob, until=5.0)
    assert roster.not_ready() is None  # the server plays a seat nobody does
    roster.seats[1].member, roster.seats[1].ready = bob, True  # type: ignore[assignment]
    assert roster.not_ready() is None


def test_a_grace_runs_out_once_and_only_for_the_absent() -> None:
    roster = Roster(2)
    ann = seated(roster, "ann")
    seated(roster, "bob")
    eve = Person("eve")
    roster.watch(eve, "w", "eve")  # type: ignore[arg-type]
    assert isinstance(roster.away(ann, until=10.0), Seat)
    assert isinstance(roster.away(eve, until=12.0), Watcher)
    roster.seats[1].grace_until = 10.0  # bob is connected: his grace ends and nothing else
    assert roster.deadlines() == [10.0, 10.0, 12.0]
    assert roster.expired(9.0) == ([], [])
    watchers, seats = roster.expired(12.0)
    assert [w.token_hash for w in watchers] == ["w"] and seats == [roster.seats[0]]
    assert roster.expired(20.0) == ([], []) and not roster.watchers


def test_after_a_match_the_bots_are_ready_and_the_left_seats_are_returned() -> None:
    roster = Roster(3)
    seated(roster, "ann")
    seated(roster, "bob")
    roster.seat_bot(roster.seats[2], "basic")
    roster.seats[0].ready, roster.seats[0].autopilot = True, True
    roster.seats[1].member, roster.seats[1].abandoned = None, True
    roster.seats[2].ready = False
    assert roster.back_to_lobby() == [roster.seats[1]]
    assert [s.ready for s in roster.seats] == [False, False, True]
    assert not roster.seats[0].autopilot
    roster.clear(roster.seats[1])
    assert roster.seats[1].kind == "empty" and roster.free_seat() is roster.seats[1]
    assert roster.free_seat(2) is None and roster.free_seat(9) is None


def test_a_restored_roster_waits_for_its_tokens_and_refuses_a_seat_that_does_not_fit() -> None:
    roster = Roster(3)
    records = [SeatRecord(0, "human", "ann", None, "k0", True, False),
               SeatRecord(1, "bot", "bot-1", "basic", "k1", True, False),
               SeatRecord(2, "human", "cat", None, None, False, False)]  # she left the match
    roster.restore(records, [("w", "eve")], host=0, grace_until=30.0, held_until=20.0)
    assert roster.records() == records and roster.spectator_records() == [("w", "eve")]
    assert [s.held_until for s in roster.seats] == [20.0, None, None]
    assert roster.seats[2].abandoned and roster.seats[2].state == "autopilot"
    assert roster.bot_token("k1") and not roster.bot_token("k0")
    with pytest.raises(ValueError, match="seat 5"):
        Roster(3).restore([SeatRecord(5, "human", "x", None, "k", False, False)], [], None, 0.0, 0.0)
