"""The client side: a Trio library for bots and tools, the built-in bots and the arena.

- :func:`open_client` / :class:`Client`: connect, handshake, lobby requests (errors raise
  :class:`ClientError` with the protocol's code), room messages, a :class:`Mirror` of the
  table kept from events (resynced from a snapshot on a gap), resume with the token;
- :class:`Bot` (override ``choose``), :func:`decide`, and :func:`play` to run a bot on a
  client; :func:`launch_bot` is the server's bot launcher, at the :data:`BOT_LEVELS`;
- :mod:`unolan.client.strategies`: ``random``, ``greedy``, ``counter``;
- :mod:`unolan.client.arena`: offline tournaments;
- :mod:`unolan.client.verify`: every deal checked against the server's commitment
  (:class:`DealVerifier`, a :class:`Verdict` per round; ``uno verify`` for a saved match).
"""

from unolan.protocol import to_message

from .bot import Bot, decide
from .mirror import Mirror, SeqGap
from .runner import BOT_LEVELS, launch_bot, play, seat_bots
from .session import (
    Client,
    ClientError,
    ConnectionLost,
    Disconnected,
    Reconnected,
    open_client,
)
from .strategies import STRATEGIES, make_bot
from .verify import DealVerifier, MatchRecord, Verdict, verify_record

__all__ = [
    "BOT_LEVELS",
    "STRATEGIES",
    "Bot",
    "Client",
    "ClientError",
    "ConnectionLost",
    "DealVerifier",
    "Disconnected",
    "MatchRecord",
    "Mirror",
    "Reconnected",
    "SeqGap",
    "Verdict",
    "decide",
    "launch_bot",
    "make_bot",
    "open_client",
    "play",
    "seat_bots",
    "to_message",
    "verify_record",
]
