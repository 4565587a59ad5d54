"""A batch of events (:class:`Events`) reads as the sequence of events it records."""

from __future__ import annotations

from collections.abc import Sequence

from unolan.engine import Event, Events, Game, Rules


def test_a_batch_reads_as_the_list_of_its_events() -> None:
    game = Game(Rules.preset("official"), 4, seed=3)
    events = game.apply(game.legal_actions(game.turn)[0])
    assert isinstance(events, Events) and isinstance(events, Sequence)
    made = list(events)
    assert len(events) == len(made) >= 2 and all(type(e) is Event for e in made)
    assert [events[i] for i in range(len(events))] == made and events[-1] is made[-1]
    assert events[1:] == made[1:]
    assert events == made and made == events and events != made[:-1]
    closing = events[-1]
    assert closing.kind == "turn" and closing.data["seat"] == game.turn
    assert closing.data["called"] == (False,) * 4  # the state's own tuple, in every closing event
    # An event made from a record is equal to the one built from its map.
    assert closing == Event("turn", dict(closing.data))


def test_the_start_events_are_a_batch_too() -> None:
    game = Game(Rules.preset("house"), 3, seed=5)
    kinds = [e.kind for e in game.start_events]
    assert kinds[0] == "dealer_draw" and kinds[-1] == "turn" and kinds.count("hand") == 3
    assert repr(game.start_events).startswith("Events([Event(kind='dealer_draw'")
