"""Memory the server has freed goes back to the system, now and then.

A server that plays for hours frees as much as it allocates: frames, events, the
store's rows. glibc's allocator keeps freed memory in its heaps for reuse and gives back
only the free space at a heap's top, so the process's resident size creeps up with
the time played, not with what it holds. Measured with ``bench/server.py`` (100 clients,
a minute of play), this creep took the resident size per client from about 25 KiB to 68
with the database and to 41 without, for the same number of live objects. With
``malloc_trim`` every few seconds it stayed at 29 and 16. Most of the creep came from
each read allocating 64 KiB and shrinking it; reads now share one buffer
(:mod:`.session`), and the trim gives back what other frees leave.
``malloc_trim(0)`` also returns the free pages inside a heap. It runs in a worker thread,
so the event loop does not wait for it. Where the C library has no ``malloc_trim`` (not
glibc), nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

import trio


def system_trim() -> Callable[[], object] | None:
    """The C library's ``malloc_trim(0)``, or None where there is none."""
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


async def trim_now_and_then(every: float, trim: Callable[[], object]) -> None:
    """Call ``trim`` every ``every`` seconds, for ever, in a worker thread."""
    while True:
        await trio.sleep(every)
        await trio.to_thread.run_sync(trim)
