"""A table's turn clock on its own: when the turn timer and the autopilot are due."""

from __future__ import annotations

from typing import Any

from unolan.server.clock import Due, TurnClock
from unolan.server.seats import Seat

PRESENT: Any = object()  # a connection playing the seat (the clock only asks whether there is one)


def seat(present: bool = True, held_until: float | None = None) -> Seat:
    return Seat(2, kind="human", name="ann", member=PRESENT if present else None, held_until=held_until)


def test_a_player_in_turn_times_out_at_the_timer_and_not_before() -> None:
    clock, ann = TurnClock(timer=30, think=1), seat()
    clock.time(ann, "play", 7, now=100)
    assert clock.turn == 130 and clock.pilot is None
    assert clock.due(ann, 129.9) is None
    clock.time(ann, "play", 7, now=120)  # the same turn: its clock runs on
    assert clock.turn == 130
    assert clock.due(ann, 130) is Due.TIMEOUT and clock.turn is None
    assert clock.due(ann, 200) is None  # once


def test_a_new_turn_of_the_same_seat_is_timed_afresh() -> None:
    clock, ann = TurnClock(timer=30, think=1), seat()
    clock.time(ann, "play", 7, now=100)
    clock.time(ann, "drawn", 7, now=110)  # drew: a turn of its own
    assert clock.turn == 140
    clock.time(ann, "drawn", 9, now=115)  # the table moved (a jump-in): timed again
    assert clock.turn == 145


def test_without_a_timer_a_player_is_never_timed_out() -> None:
    clock, ann = TurnClock(timer=0, think=1), seat()
    clock.time(ann, "play", 1, now=0)
    assert clock.turn is None and clock.due(ann, 10_000) is None


def test_a_seat_nobody_plays_is_played_after_the_think_time() -> None:
    clock, away = TurnClock(timer=30, think=1.5), seat(present=False)
    clock.time(away, "play", 1, now=10)
    assert clock.pilot == 11.5 and clock.turn is None
    assert clock.due(away, 11.4) is None
    assert clock.due(away, 11.5) is Due.AUTOPILOT and clock.pilot is None


def test_a_player_who_drops_in_turn_is_played_after_the_think_time_from_then() -> None:
    clock, ann = TurnClock(timer=30, think=2), seat()
    clock.time(ann, "play", 1, now=0)
    ann.member = None
    assert clock.due(ann, 5) is None and clock.pilot == 7 and clock.turn is None
    assert clock.due(ann, 7) is Due.AUTOPILOT


def test_a_player_back_before_the_autopilot_moves_gets_the_timer_again() -> None:
    clock, ann = TurnClock(timer=30, think=2), seat(present=False)
    clock.time(ann, "play", 1, now=0)
    ann.member = PRESENT
    assert clock.due(ann, 2) is None and clock.turn == 32  # the server does not play for them
    assert clock.due(ann, 32) is Due.TIMEOUT


def test_a_restored_seat_waits_for_its_owner_before_the_autopilot_plays() -> None:
    clock, held = TurnClock(timer=0, think=1), seat(present=False, held_until=60)
    clock.time(held, "play", 1, now=10)
    assert clock.pilot == 60
    assert clock.due(held, 59) is None and clock.due(held, 60) is Due.AUTOPILOT
