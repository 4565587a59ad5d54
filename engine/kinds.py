"""Card kinds grouped by what playing them asks for: a target seat, or no action at all.

Their own module because the game (judging a play) and legal-action generation (listing
the plays) both ask these questions, and must agree.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cards import Kind

if TYPE_CHECKING:
    from .rules import Rules

_TARGETED = (Kind.WILD_TARGETED_DRAW_TWO, Kind.WILD_FORCED_SWAP)
_PLAIN_NUMBER = frozenset(Kind(str(n)) for n in range(10))
# The All Wild deck has no numbers: its plain Wild is the card with no action.
_PLAIN_ALL_WILD = frozenset({Kind.WILD})
# Kinds whose plays name a target seat, without and with seven_zero.
_TARGET_KINDS = {False: frozenset(_TARGETED), True: frozenset((*_TARGETED, Kind.N7))}


def _plain(rules: Rules) -> frozenset[Kind]:
    """The kinds with no action: numbers, or in the All Wild deck the plain Wild."""
    return _PLAIN_ALL_WILD if rules.all_wild else _PLAIN_NUMBER
