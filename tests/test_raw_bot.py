"""A bot written from docs/protocol.md alone (a socket and msgpack) plays a whole match."""

from __future__ import annotations

import importlib.util
from functools import partial
from pathlib import Path

import trio
from unolan.client import BOT_LEVELS, launch_bot
from unolan.engine import EVENT_KINDS
from unolan.server import serve

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "raw_bot.py"


def load_example():
    spec = importlib.util.spec_from_file_location("raw_bot", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_decide_follows_the_matching_rules() -> None:
    bot = load_example()
    view = {"hand": ["G7", "R2", "W4"], "top": "R5", "color": "R", "phase": "play",
            "pending": 0, "drawn": None}
    assert bot.decide(view) == {"type": "play", "cards": ["R2"], "uno": False}
    view["hand"] = ["G7", "W4"]
    assert bot.decide(view) == {"type": "play", "cards": ["W4"], "uno": True, "color": "G"}
    assert bot.decide({**view, "pending": 4})["type"] == "draw"
    assert bot.decide({**view, "phase": "drawn", "drawn": "B9"}) == {"type": "pass"}


def test_the_kinds_it_waits_for_are_those_that_move_the_table() -> None:
    """Copied from the page's table, as a bot in another language would: still the engine's."""
    assert {kind for kind, spec in EVENT_KINDS.items() if spec.moves} == load_example().MOVES


async def test_the_raw_bot_plays_a_whole_match_against_a_server_bot() -> None:
    bot = load_example()
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve, "127.0.0.1", 0, seed=5, db_path=None,
                                           bot_launcher=partial(launch_bot, delay=0),
                                           bot_levels=tuple(BOT_LEVELS)))
        with trio.fail_after(120):
            scores = await trio.to_thread.run_sync(bot.main, "127.0.0.1", port)
        nursery.cancel_scope.cancel()
    assert len(scores) == 2 and max(scores) >= 100
