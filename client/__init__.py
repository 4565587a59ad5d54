"""The client side: a Trio library for bots and tools, the built-in bots and the arena.

- :class:`Bot` (override ``choose``) and :func:`decide`: the bot interface;
- :mod:`unolan.client.strategies`: ``random``, ``greedy``, ``counter``;
- :class:`Mirror`: a seat's table rebuilt from events (``mirror.view().legal_actions()``);
- :mod:`unolan.client.arena`: offline tournaments.
"""

from .bot import Bot, decide
from .mirror import Mirror, SeqGap
from .strategies import STRATEGIES, make_bot

__all__ = ["STRATEGIES", "Bot", "Mirror", "SeqGap", "decide", "make_bot"]
