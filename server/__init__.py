"""The game server: lobby and rooms over TCP, one Trio task per room.

>>> import trio
>>> from unolan.server import serve
>>> async def main():
...     async with trio.open_nursery() as nursery:
...         port = await nursery.start(serve, "127.0.0.1", 0)
...         nursery.cancel_scope.cancel()

``uno host`` runs :func:`serve` on port :data:`DEFAULT_PORT` (7117).
"""

from .app import BotLauncher, Server, serve
from .bot import Bot, run_bot
from .eventlog import TABLE_EVENTS
from .limits import DEFAULT_PORT, Limits
from .room import Room
from .session import Session

__all__ = [
    "DEFAULT_PORT",
    "TABLE_EVENTS",
    "Bot",
    "BotLauncher",
    "Limits",
    "Room",
    "Server",
    "Session",
    "run_bot",
    "serve",
]
