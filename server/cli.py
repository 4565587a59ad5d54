"""``uno host``: run the game server until Ctrl-C."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from functools import partial

import trio

from .app import BotLauncher, serve
from .limits import DEFAULT_PORT

EPILOG = f"""\
examples:
  uno host                         serve on this machine only, port {DEFAULT_PORT}
  uno host --host 0.0.0.0          serve the whole LAN (all interfaces)
  uno host --port 8000 --seed 42   another port; reproducible shuffles (demos, tests)

Ctrl-C stops the server; connected clients are told it is shutting down.
"""


def add_parser(subparsers: argparse._SubParsersAction, bot_launcher: BotLauncher | None = None) -> None:
    """Register ``uno host``; ``bot_launcher`` runs the bots a room's host adds (the app
    shell passes the client library's; without one the server's built-in bot plays)."""
    parser = subparsers.add_parser(
        "host",
        help="run a game server (lobby, rooms, bots) for players on this machine or the LAN",
        description="Run the UNO game server. Players connect with `uno play`; bots "
        "and scripts speak the protocol in docs/protocol.md.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="N",
                        help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="seed every shuffle from N (reproducible demos and tests only)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log every connection")
    parser.set_defaults(run=partial(run, bot_launcher=bot_launcher))


def run(args: argparse.Namespace, bot_launcher: BotLauncher | None = None) -> int:
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("unolan.server")

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                start = partial(serve, seed=args.seed, bot_launcher=bot_launcher)
                port = await nursery.start(start, args.host, args.port)
                log.info("uno server on %s:%d%s", args.host, port,
                         " (this machine only; --host 0.0.0.0 for the LAN)"
                         if args.host in ("127.0.0.1", "localhost", "::1") else "")
                async for signum in signals:
                    log.info("%s: stopping", signal.Signals(signum).name)
                    nursery.cancel_scope.cancel()
                    break

    try:
        trio.run(main)
    except OSError as exc:
        log.error("cannot serve on %s:%d: %s", args.host, args.port, exc)
        return 1
    return 0
