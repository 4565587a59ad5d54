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

    # Hashed as its text, in C: Enum's own hash is a Python method, and readers of a table
    # look its phase up in sets (OVER, IN_PLAY) on every action (the engine, in bits of codes).
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

PHASES: Final[tuple[Phase, ...]] = tuple(Phase)
"""Each phase by its code, its place in Phase: a state holds the code (``State.phase_code``,
read as ``State.phase``), so that the engine compares small ints and tests a set of phases
as bits of an int, where a member would be hashed."""
PHASE_CODES: Final[dict[Phase, int]] = {phase: code for code, phase in enumerate(PHASES)}

# The codes by name, for the engine's hot paths: each phase's place in Phase, in order.
PHASE_PLAY: Final = 0
PHASE_DRAWN: Final = 1
PHASE_COLOR: Final = 2
PHASE_ROUND_OVER: Final = 3
PHASE_MATCH_OVER: Final = 4
PHASE_DEALER_DRAW: Final = 5
PHASE_DEALT: Final = 6
if PHASES != (PLAY, DRAWN, COLOR, ROUND_OVER, MATCH_OVER, DEALER_DRAW, DEALT):
    raise AssertionError("the phase codes above must follow the order of Phase")

IN_PLAY: Final = frozenset({Phase.PLAY, Phase.DRAWN, Phase.COLOR})
"""The phases of a round being played: the seat in turn is asked for an action."""
OVER: Final = frozenset({Phase.ROUND_OVER, Phase.MATCH_OVER})
"""A round is over (and maybe the match): nobody plays until the next deal."""
OVER_BITS: Final = 1 << PHASE_ROUND_OVER | 1 << PHASE_MATCH_OVER
"""OVER as bits of the phases' codes: ``OVER_BITS >> code & 1``."""
