"""Helpers for the properties of random legal play."""

from __future__ import annotations

import random

from unolan.engine import CallUno, Color, Deal, Game, Play, parse_position


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


def random_action(game: Game, rng: random.Random):
    """A random action: mostly a legal one of the seat in turn, sometimes any seat's
    reaction, now and then a mistake (a false UNO call, a play of a random held card)."""
    if game.phase == "round_over":
        return Deal(game.turn)
    if rng.random() < 0.1:  # a mistake: a false UNO call or a misplay (maybe penalised)
        seat = rng.randrange(game.players)
        hand = game.hands[seat]
        if rng.random() < 0.5 or not hand:
            return CallUno(seat)
        card = rng.choice(hand)
        return Play(seat, (card,), None if not card.is_wild or game.rules.all_wild else Color.RED)
    seats = list(range(game.players))
    rng.shuffle(seats)
    if rng.random() < 0.75:  # mostly the seat in turn; sometimes a reaction from anyone
        seats.insert(0, game.turn)
    for seat in seats:
        legal = game.legal_actions(seat)
        if legal:
            return rng.choice(legal)
    raise AssertionError("nobody can act")
