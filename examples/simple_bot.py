"""A whole UNO bot in under 40 lines.

Start a server (`uno host`), open a room with a free seat (`uno join` and create one),
then:  python examples/simple_bot.py ROOM [HOST] [PORT]
"""

import sys

import trio
from unolan.client import Bot, open_client, play
from unolan.engine import Play


class FirstCard(Bot):
    """Plays the first card it can, keeping wild cards for last; else draws."""

    def choose(self, view, legal):
        # `legal` is every move the rules allow this seat now, computed from its view.
        plays = [a for a in legal if isinstance(a, Play)]
        plays.sort(key=lambda p: p.cards[0].is_wild)  # colored cards first
        # No card to play: legal[0] is Draw (or Pass after drawing, or a color to name).
        return plays[0] if plays else legal[0]


async def main(room, host="127.0.0.1", port=7117, matches=1):
    async with open_client(host, int(port), name="firstcard") as client:
        await client.join(room)  # take a free seat in the room
        await client.ready()  # the host starts the match when everyone is ready
        # The runner does the rest: events, UNO calls, catching, reconnecting.
        await play(client, FirstCard(), matches=matches)


if __name__ == "__main__":
    trio.run(main, *sys.argv[1:])
