"""Card kinds grouped by what playing them asks for: a target seat, or no action at all.

Their own module because the game (judging a play) and legal-action generation (listing
the plays) both ask these questions, and must agree.
"""

from __future__ import annotations

from typing import Final

from .cards import N0, N7, NUMBER_KINDS, WILD, WILD_FORCED_SWAP, WILD_TARGETED_DRAW_TWO, Card, Kind
from .rules import Rules

_TARGETED: Final = (WILD_TARGETED_DRAW_TWO, WILD_FORCED_SWAP)
_PLAIN_NUMBER: Final = frozenset(NUMBER_KINDS)
# The All Wild deck has no numbers: its plain Wild is the card with no action.
_PLAIN_ALL_WILD: Final = frozenset({WILD})
# Kinds whose plays name a target seat, without and with seven_zero.
_TARGET_KINDS: Final = {False: frozenset(_TARGETED), True: frozenset((*_TARGETED, N7))}
# Kinds that, played, only pass the turn on, without and with seven_zero (whose 0 and 7 act).
_NO_EFFECT: Final = {False: frozenset((*NUMBER_KINDS, WILD)),
              True: frozenset((*NUMBER_KINDS, WILD)) - {N0, N7}}


def _plain(rules: Rules) -> frozenset[Kind]:
    """The kinds with no action: numbers, or in the All Wild deck the plain Wild."""
    return _PLAIN_ALL_WILD if rules.all_wild else _PLAIN_NUMBER


def _action_out(rules: Rules, hand: list[Card], cards: tuple[Card, ...]) -> bool:
    """Whether a play empties the hand with an action or wild card among its cards."""
    plain = _plain(rules)
    return len(cards) == len(hand) and any(c.kind not in plain for c in cards)
