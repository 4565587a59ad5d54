"""Card kinds grouped by what playing them asks for: a target seat, or no action at all.

Their own module because the game (judging a play) and legal-action generation (listing
the plays) both ask these questions, and must agree.
"""

from __future__ import annotations

from .cards import NUMBER_KINDS, Card, Kind
from .rules import Rules

_TARGETED = (Kind.WILD_TARGETED_DRAW_TWO, Kind.WILD_FORCED_SWAP)
_PLAIN_NUMBER = frozenset(NUMBER_KINDS)
# The All Wild deck has no numbers: its plain Wild is the card with no action.
_PLAIN_ALL_WILD = frozenset({Kind.WILD})
# Kinds whose plays name a target seat, without and with seven_zero.
_TARGET_KINDS = {False: frozenset(_TARGETED), True: frozenset((*_TARGETED, Kind.N7))}
# Kinds that, played, only pass the turn on, without and with seven_zero (whose 0 and 7 act).
_NO_EFFECT = {False: frozenset((*NUMBER_KINDS, Kind.WILD)),
              True: frozenset((*NUMBER_KINDS, Kind.WILD)) - {Kind.N0, Kind.N7}}


def _plain(rules: Rules) -> frozenset[Kind]:
    """The kinds with no action: numbers, or in the All Wild deck the plain Wild."""
    return _PLAIN_ALL_WILD if rules.all_wild else _PLAIN_NUMBER


def _action_out(rules: Rules, hand: list[Card], cards: tuple[Card, ...]) -> bool:
    """Whether a play empties the hand with an action or wild card among its cards."""
    plain = _plain(rules)
    return len(cards) == len(hand) and any(c.kind not in plain for c in cards)
