"""The phases of a game: what the seat in turn is asked for next.

Their own module because the game, legal-action generation, the notation, the view and
every client read them. A :class:`Phase` is a string (``Phase.PLAY == "play"``), and its
value is what the wire and the position notation write.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final


class Phase(StrEnum):
    """``dealer_draw`` (the players have yet to draw for dealer) and ``dealt`` (the hands
    are dealt, the first card is not turned up yet) are the moments before a round's play:
    a live game passes through them within one action, and a position may stop there."""

    PLAY = "play"  # play a card or draw
    DRAWN = "drawn"  # play the card just drawn or pass
    COLOR = "color"  # name the color of a Wild turned up as the first card
    ROUND_OVER = "round_over"  # the winner deals the next round
    MATCH_OVER = "match_over"
    DEALER_DRAW = "dealer_draw"
    DEALT = "dealt"

    # Hashed as its text, in C: Enum's own hash is a Python method, and the phase is looked
    # up in sets (OVER, IN_PLAY) on every action.
    __hash__ = str.__hash__


# The members as plain names, for the engine's hot paths (a member looked up on the class
# costs several times a comparison).
PLAY: Final = Phase.PLAY
DRAWN: Final = Phase.DRAWN
COLOR: Final = Phase.COLOR
ROUND_OVER: Final = Phase.ROUND_OVER
MATCH_OVER: Final = Phase.MATCH_OVER
DEALER_DRAW: Final = Phase.DEALER_DRAW
DEALT: Final = Phase.DEALT

IN_PLAY: Final = frozenset({Phase.PLAY, Phase.DRAWN, Phase.COLOR})
"""The phases of a round being played: the seat in turn is asked for an action."""
OVER: Final = frozenset({Phase.ROUND_OVER, Phase.MATCH_OVER})
"""A round is over (and maybe the match): nobody plays until the next deal."""
