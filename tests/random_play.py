"""Helpers for the properties of random legal play."""

from __future__ import annotations

from unolan.engine import Game, parse_position


def deck_size(game: Game) -> int:
    return 112 if game.rules.all_wild else 108


def card_count(game: Game) -> int:
    """Every card on the table: the hands, the draw pile and the discard pile."""
    return sum(map(len, game.hands)) + len(game.draw_pile) + len(game.discard)


def every_legal_action_applies(game: Game) -> None:
    """Each legal action of each seat applies to a copy of the position and keeps every card."""
    text = game.position()
    for seat in range(game.players):
        for legal in game.legal_actions(seat):
            copy = parse_position(text)
            copy.apply(legal)
            assert card_count(copy) == card_count(game)
