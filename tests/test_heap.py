"""The server gives the memory it freed back to the system now and then (see
``server/heap.py`` for why): on a timer, in a worker thread, and not at all when told
not to or where the C library cannot."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest
import trio
from test_server import running
from unolan.server import Limits, heap


def noting() -> tuple[Callable[[], object], trio.MemoryReceiveChannel[None]]:
    """A trim that tells the test it ran (from its worker thread) and a channel to hear it."""
    send, receive = trio.open_memory_channel[None](10)
    return lambda: trio.from_thread.run_sync(send.send_nowait, None), receive


async def times_of(receive: trio.MemoryReceiveChannel[None], count: int) -> list[float]:
    start, times = trio.current_time(), []
    for _ in range(count):
        await receive.receive()
        times.append(round(trio.current_time() - start, 3))
    return times


async def test_the_trim_runs_every_period_in_a_thread(autojump_clock: trio.abc.Clock) -> None:
    trim, receive = noting()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(heap.trim_now_and_then, 10.0, trim)
        assert await times_of(receive, 3) == [10.0, 20.0, 30.0]
        nursery.cancel_scope.cancel()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc_trim")
def test_the_system_trim_is_glibc_s_malloc_trim() -> None:
    trim = heap.system_trim()
    assert trim is not None and trim() in (0, 1)  # 1: memory was given back


async def test_the_server_trims_on_its_limit_s_period(
        autojump_clock: trio.abc.Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    trim, receive = noting()
    monkeypatch.setattr("unolan.server.app.system_trim", lambda: trim)
    async with running(Limits(heap_trim=5.0, heartbeat=3600)):
        first, second = await times_of(receive, 2)
    # Not to the millisecond: the server's own timers let the clock jump on while the
    # worker thread runs. Never sooner than the period, though.
    assert first >= 5.0 and second - first >= 5.0


async def test_a_server_told_not_to_never_trims(
        autojump_clock: trio.abc.Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    trim, receive = noting()
    monkeypatch.setattr("unolan.server.app.system_trim", lambda: trim)
    async with running(Limits(heap_trim=0, heartbeat=3600)):
        await trio.sleep(60)
    with pytest.raises(trio.WouldBlock):
        receive.receive_nowait()
