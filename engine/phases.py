"""The phases of a game: what the seat in turn is asked for next.

Their own module because the game and legal-action generation both read them.
"""

PLAY, DRAWN, COLOR, ROUND_OVER, MATCH_OVER = "play", "drawn", "color", "round_over", "match_over"
PHASES = (PLAY, DRAWN, COLOR, ROUND_OVER, MATCH_OVER)
