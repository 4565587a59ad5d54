"""The bot interface: override :meth:`Bot.choose`; the runner does everything else.

A bot sees only what its seat sees: an engine :class:`~unolan.engine.View` and the
legal actions computed from it. The same bot plays over the network
(:mod:`unolan.client.runner`) and offline in the arena (:mod:`unolan.client.arena`).

::

    from unolan.client import Bot

    class FirstCard(Bot):
        def choose(self, view, legal):
            return legal[0]          # legal holds Play/Draw/Pass/ChooseColor/Challenge

Optional hooks, each with a sensible default:

- :meth:`Bot.call_uno` — call UNO when going down to one card (default: always);
- :meth:`Bot.catch` — catch a seat that forgot to call UNO (default: always);
- :meth:`Bot.jump_in` — play an identical card out of turn (default: never);
- :meth:`Bot.observe` — every event the seat sees, e.g. for counting cards.

:func:`decide` is the one place that turns a view into the bot's next action, for the
network runner and the arena alike.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from unolan.engine import Action, CallUno, Catch, Deal, Phase, Play, View


class Bot:
    """Base class: one method to override, :meth:`choose`."""

    #: The name a bot plays under when none is given.
    name = "bot"

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: View, legal: list[Action]) -> Action:
        """Pick one of ``legal`` (it is this seat's turn).

        ``legal`` holds :class:`Play` (without ``uno``: the runner adds the call when
        :meth:`call_uno` says so), :class:`Draw`, :class:`Pass`, :class:`ChooseColor` and
        :class:`Challenge`, as the phase allows.
        """
        raise NotImplementedError

    def call_uno(self, view: View) -> bool:
        """Whether to call UNO on going down to one card (asked before each such play)."""
        return True

    def catch(self, view: View, target: int) -> bool:
        """Whether to catch ``target``, who holds one card and has not called UNO."""
        return True

    def jump_in(self, view: View, plays: list[Play]) -> Play | None:
        """Out of turn: play one of ``plays`` (identical to the top card), or None."""
        return None

    def observe(self, kind: str, data: Mapping[str, Any]) -> None:
        """Every event this seat sees, in order (``kind`` and its data)."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"



def seat_of(view: View) -> int:
    """The seat a bot plays: a bot's view is always a seat's, never a spectator's."""
    assert view.seat is not None, "a spectator's view has no seat to play"
    return view.seat

def _plain(actions: Sequence[Action]) -> list[Action]:
    """The actions without the UNO flag on plays (duplicates dropped, order kept)."""
    out: dict[Action, None] = {}
    for action in actions:
        if isinstance(action, Play) and action.uno:
            action = Play(action.seat, action.cards, action.color, action.target)
        out[action] = None
    return list(out)


def _with_uno(bot: Bot, view: View, action: Action) -> Action:
    if (isinstance(action, Play) and not action.uno
            and len(view.hand) - len(action.cards) == 1 and bot.call_uno(view)):
        return Play(action.seat, action.cards, action.color, action.target, True)
    return action


def decide(bot: Bot, view: View, legal: Sequence[Action] | None = None) -> Action | None:
    """The bot's next action in this position, or None if it does nothing now.

    In order: call UNO on its own uncalled last card, catch someone, then its turn
    (:meth:`Bot.choose`) or, out of turn, a jump-in. A play that leaves one card calls
    UNO if :meth:`Bot.call_uno` agrees. After a round the winner deals.
    """
    if legal is None:
        legal = view.legal_actions()
    if not legal:
        return None
    seat = seat_of(view)
    if view.phase is Phase.ROUND_OVER:
        return Deal(seat) if Deal(seat) in legal else None
    own: list[Action] = []
    for action in legal:
        if isinstance(action, CallUno):
            if bot.call_uno(view):
                return action
        elif isinstance(action, Catch):
            if bot.catch(view, action.target):
                return action
        else:
            own.append(action)
    if not own:
        return None
    if view.turn == seat:
        choices = _plain(own)
        action = bot.choose(view, choices)
        if action not in choices and action not in own:
            raise ValueError(f"{bot!r} chose {action}, which is not legal now")
        return _with_uno(bot, view, action)
    plays = [a for a in _plain(own) if isinstance(a, Play)]
    if plays:
        play = bot.jump_in(view, plays)
        if play is not None:
            if play not in plays and play not in own:
                raise ValueError(f"{bot!r} jumped in with {play}, which is not legal now")
            return _with_uno(bot, view, play)
    return None


__all__ = ["Bot", "decide"]
