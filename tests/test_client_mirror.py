"""The client's mirror: the engine's fold (see test_fold.py) plus the room's seq numbers.

A mirror fed the events one seat sees equals the engine's view after every action, and
repairs nothing itself: any gap in ``seq`` is a :class:`SeqGap`, and a snapshot replaces
the whole table.
"""

from __future__ import annotations

import contextlib
import random

import pytest
from random_play import random_action
from unolan.client.mirror import Mirror, SeqGap
from unolan.engine import Game, IllegalAction, Rules


def test_feed_checks_sequence_continuity() -> None:
    rules = Rules.preset("house")
    game = Game(rules, players=3, seed=1)
    events = game.start_events
    mirror = Mirror(0, rules)
    mirror.feed(1, events[0].kind, events[0].data)
    assert mirror.feed(1, events[0].kind, events[0].data) is False  # a duplicate is ignored
    with pytest.raises(SeqGap) as info:
        mirror.feed(3, events[1].kind, events[1].data)
    assert info.value.expected == 2
    # A snapshot replaces everything and sets the sequence number.
    mirror.load(game.view(0).to_dict(), seq=10)
    assert mirror.to_dict() == game.view(0).to_dict() and mirror.seq == 10


def test_feed_tolerates_no_gap_at_all() -> None:
    """Every member sees every seq, so a seq skipped even after an event whose follower
    is private (``challenged``, ``swapped``, ``rotated``, ``round_started``) is a gap."""
    rules = Rules.preset("house")
    for kind, data in [("challenged", {"seat": 1, "target": 0, "guilty": False}),
                       ("swapped", {"seats": [0, 1]}), ("rotated", {"direction": 1}),
                       ("round_started", {"round": 1, "dealer": 0, "players": 3, "hand_size": 7,
                                          "scores": [0, 0, 0], "draw_count": 86})]:
        mirror = Mirror.from_view(Game(rules, players=3, seed=2).view(2), seq=5)
        mirror.feed(6, kind, data)
        with pytest.raises(SeqGap) as info:
            mirror.feed(8, "turn", {"seat": 0, "direction": 1, "phase": "play", "pending": 0})
        assert (info.value.expected, info.value.got) == (7, 8)


def test_private_events_come_without_their_cards_to_others() -> None:
    """A ``hand`` or ``revealed`` for another seat arrives without ``cards``: the mirror
    takes it as a seq (no gap) and leaves the table as it is."""
    rules = Rules.preset("house")
    game = Game(rules, players=3, seed=4)
    mirror = Mirror.from_view(game.view(2), seq=10)
    before = mirror.to_dict()
    assert mirror.feed(11, "hand", {"seat": 0, "count": len(game.hands[0]), "called": False})
    assert mirror.feed(12, "revealed", {"seat": 1, "challenger": 0})
    assert mirror.to_dict() == before and mirror.seq == 12


def test_mirror_from_view_then_events() -> None:
    rules = Rules.preset("house")
    game = Game(rules, players=4, seed=5)
    rng = random.Random(5)
    while game.round < 2 or game.phase != "play":
        with contextlib.suppress(IllegalAction):
            game.apply(random_action(game, rng))
    mirror = Mirror.from_view(game.view(2))
    for _ in range(200):
        if game.over:
            break
        try:
            events = game.apply(random_action(game, rng))
        except IllegalAction:
            continue
        for event in events:
            mirror.apply(event.kind, event.data_for(2))
        assert mirror.to_dict() == game.view(2).to_dict()
