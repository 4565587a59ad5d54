"""Helpers for tests written as a position plus actions in the notation."""

from __future__ import annotations

import pytest
from unolan.engine import Event, Game, IllegalAction, parse_actions, parse_position

DRAW = "draw: R1 R2 R3 R4 G1 G2 G3 G4 B1 B2 B3 B4\n"


def play(position: str, actions: str = "") -> tuple[Game, list[Event]]:
    """Parse a position, apply the actions; return the game and all their events."""
    game = parse_position(position)
    events: list[Event] = []
    for action in parse_actions(actions):
        events += game.apply(action)
    return game, events


def refused(game: Game, action: str, code: str, reason: str = "") -> IllegalAction:
    """Apply an action that must be refused with ``code`` (and a reason that says
    ``reason``, if given); check that nothing changed."""
    before = game.position()
    (parsed,) = parse_actions(action)
    with pytest.raises(IllegalAction) as info:
        game.apply(parsed)
    assert game.position() == before
    assert info.value.code == code, info.value
    assert reason in info.value.reason, info.value
    return info.value


def counts(game: Game) -> list[int]:
    return [len(h) for h in game.hands]


def legal(game: Game, seat: int) -> set[str]:
    """The seat's legal actions, leaving out UNO calls (alone or riding on a play)."""
    return {str(a) for a in game.legal_actions(seat) if not str(a).endswith("uno")}
