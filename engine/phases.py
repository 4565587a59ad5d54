"""The phases of a game: what the seat in turn is asked for next.

Their own module because the game, legal-action generation and the notation read them.
``dealer_draw`` (the players have yet to draw for dealer) and ``dealt`` (the hands are
dealt, the first card is not turned up yet) are the moments before a round's play: a
live game passes through them within one action, and a position may stop there.
"""

PLAY, DRAWN, COLOR, ROUND_OVER, MATCH_OVER = "play", "drawn", "color", "round_over", "match_over"
DEALER_DRAW, DEALT = "dealer_draw", "dealt"
PHASES = (PLAY, DRAWN, COLOR, ROUND_OVER, MATCH_OVER, DEALER_DRAW, DEALT)
