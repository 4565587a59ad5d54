"""The stand-in's choices (server/policy.py): the autopilot and the built-in bot."""

from __future__ import annotations

from unolan.server.policy import choose, on_timeout

from unolan import engine as en


def legal_for(position: str, seat: int = 0) -> tuple[list[en.Action], list[en.Card]]:
    game = en.parse_position(position)
    return game.legal_actions(seat), game.hands[seat]


def test_a_wild_draw_four_only_when_nothing_else_fits() -> None:
    """Beside a card of the color in play a Wild Draw Four would be a bluff that a
    challenge punishes: the stand-in plays the other card."""
    actions, hand = legal_for("rules: official; hand 0: W4 R1 G2; hand 1: Y1 Y2; discard: R5")
    action = choose(actions, hand, turn=True)
    assert isinstance(action, en.Play) and action.cards[0].text == "R1"
    actions, hand = legal_for("rules: official; hand 0: W4 G2 G3; hand 1: Y1 Y2; discard: R5")
    action = choose(actions, hand, turn=True)
    assert isinstance(action, en.Play) and action.cards[0].text == "W4"  # the only play: honest


def test_a_turn_timeout_draws_in_play_and_passes_after_drawing() -> None:
    actions, hand = legal_for("rules: official; hand 0: R1 G2; hand 1: Y1 Y2; discard: R5")
    assert isinstance(on_timeout(en.Phase.PLAY, actions, hand), en.Draw)
    game = en.parse_position("rules: official; hand 0: G1 G2; hand 1: Y1 Y2; draw: R7 B1; discard: R5")
    game.apply(en.Draw(0))  # R7 fits: the turn waits in phase drawn
    assert game.phase is en.Phase.DRAWN
    assert isinstance(on_timeout(game.phase, game.legal_actions(0), game.hands[0]), en.Pass)
