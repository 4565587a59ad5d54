"""A simple, sensible way to choose an action: the autopilot's and the built-in bot's.

Shed the most points first (several cards at once when allowed), call UNO when a play
leaves one card, name the color held most, never challenge, draw when nothing fits.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from unolan.engine import Action, CallUno, Card, Catch, ChooseColor, Draw, Pass, Phase, Play


def _colors(hand: Iterable[Card]) -> Counter[str]:
    return Counter(c.color.value for c in hand if c.color is not None)


def choose(actions: Sequence[Action], hand: Sequence[Card], turn: bool) -> Action | None:
    """The action to take from ``actions`` (a seat's legal actions), or None to wait.

    Out of turn (``turn`` false) this only calls UNO or catches; it never jumps in.
    """
    for action in actions:
        if isinstance(action, CallUno):
            return action
    for action in actions:
        if isinstance(action, Catch):
            return action
    if not turn:
        return None
    plays = [a for a in actions if isinstance(a, Play)]
    if plays:
        def score(play: Play) -> tuple[int, int, int, int, int]:
            rest = list(hand)
            for card in play.cards:
                if card in rest:
                    rest.remove(card)
            held = _colors(rest)
            color_fit = held[play.color.value] if play.color is not None else 0
            return (int(not rest), sum(c.points for c in play.cards), int(play.uno), color_fit,
                    -int(play.target or 0))

        return max(plays, key=score)
    held = _colors(hand)
    colors = [a for a in actions if isinstance(a, ChooseColor)]
    if colors:
        return max(colors, key=lambda a: held[a.color.value])
    for kind in (Pass, Draw):
        for action in actions:
            if isinstance(action, kind):
                return action
    return None


def on_timeout(phase: Phase, actions: Sequence[Action], hand: Sequence[Card]) -> Action | None:
    """A seat's turn clock ran out: draw (taking any penalty), or pass after drawing, or
    else (a color to name, say) what :func:`choose` would do."""
    wanted = {Phase.PLAY: Draw, Phase.DRAWN: Pass}.get(phase)
    if wanted is not None:
        for action in actions:
            if isinstance(action, wanted):
                return action
    return choose(actions, hand, turn=True)
