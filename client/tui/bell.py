"""The optional terminal bell (``--bell``): it rings when the table starts to want
something of this player, so one can look away between turns.

It rings on the moment each of these begins, never again while it lasts:

- this player's turn;
- this player may be caught (one card left and UNO not called: call it now);
- another player may be caught by this one.

Each moment is read from the same :class:`UIState` queries the screen's banners use (the
engine's legal actions), so the bell knows no rule of its own. The full-screen UI and the
plain mode both ask :meth:`Bell.ring` after each change of the table.
"""

from __future__ import annotations

from unolan.engine import Phase

from .state import UIState

BELL = "\a"


def moments(state: UIState) -> frozenset[tuple[str, int]]:
    """What the table wants of this player now (each a reason to ring when it begins)."""
    view = state.view
    if view is None or view.seat is None or view.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER):
        return frozenset()
    now = {("catch", target) for target in state.catchable()}
    if state.my_turn:
        now.add(("turn", view.round))
    if state.can_call_uno():  # one card, not called: anyone may catch us
        now.add(("uno", view.round))
    return frozenset(now)


class Bell:
    """Rings (returns True) when a moment begins that was not there at the last look."""

    def __init__(self) -> None:
        self._before: frozenset[tuple[str, int]] = frozenset()

    def ring(self, state: UIState) -> bool:
        now = moments(state)
        begun = now - self._before
        self._before = now
        return bool(begun)
