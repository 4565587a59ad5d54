"""Card kinds grouped by what playing them asks for: a target seat, or no action at all.

Their own module because the game (judging a play) and legal-action generation (listing
the plays) both ask these questions, and must agree.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .cards import N0, N7, NUMBER_KINDS, WILD, WILD_FORCED_SWAP, WILD_TARGETED_DRAW_TWO, Card, Kind
from .rules import Rules

_KINDS: Final = tuple(Kind)


def _bits(kinds: Iterable[Kind]) -> int:
    """A set of kinds as an int with the bit of each one's code (``Card.kind_code``) set:
    asked by :func:`_of_kinds` with a shift, where a set of enum members is hashed."""
    bits = 0
    for kind in kinds:
        bits |= 1 << _KINDS.index(kind)
    return bits


def _of_kinds(bits: int, card: Card) -> bool:
    """Whether ``card``'s kind is among the kinds of ``bits`` (made by :func:`_bits`)."""
    return bits >> card.kind_code & 1 == 1


_TARGETED: Final = (WILD_TARGETED_DRAW_TWO, WILD_FORCED_SWAP)
_PLAIN_NUMBER: Final = _bits(NUMBER_KINDS)
# The All Wild deck has no numbers: its plain Wild is the card with no action.
_PLAIN_ALL_WILD: Final = _bits((WILD,))
# Kinds whose plays name a target seat, without and with seven_zero (indexed by the option).
_TARGET_KINDS: Final[tuple[int, ...]] = (_bits(_TARGETED), _bits((*_TARGETED, N7)))
# Kinds that, played, only pass the turn on, without and with seven_zero (whose 0 and 7 act).
_NO_EFFECT: Final[tuple[int, ...]] = (_bits((*NUMBER_KINDS, WILD)),
                                      _bits(k for k in (*NUMBER_KINDS, WILD) if k not in (N0, N7)))


def _plain(rules: Rules) -> int:
    """The kinds with no action (as :func:`_bits`): numbers, or in the All Wild deck the
    plain Wild."""
    return _PLAIN_ALL_WILD if rules.all_wild else _PLAIN_NUMBER


def _action_out(rules: Rules, hand: list[Card], cards: tuple[Card, ...]) -> bool:
    """Whether a play empties the hand with an action or wild card among its cards."""
    plain = _plain(rules)
    return len(cards) == len(hand) and any(not _of_kinds(plain, c) for c in cards)
