"""Run the UI: prompt_toolkit owns the asyncio loop; Trio networking runs as its guest.

One thread, no locks. ``trio.lowlevel.start_guest_run`` drives Trio from the asyncio
loop; network tasks write into the :class:`UIState` and call ``app.invalidate()``; keys
put commands on a Trio memory channel (through the Trio token, so the send happens inside
Trio). Ctrl-C is a key binding: it cancels the guest's root cancel scope and exits the
app; we then wait for the guest's ``done_callback`` so Trio finishes before asyncio does,
and the terminal is restored by prompt_toolkit on the way out. ``kill`` (SIGTERM) and a
closed terminal (SIGHUP) leave the same way, so the terminal is never left raw.

An error that stops the networking side comes out of :func:`run` as it is (an
``ExceptionGroup`` when it left a nursery), once the terminal is restored.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import trio
from unolan.client.i18n import _

from .app import build_app
from .bell import Bell
from .controller import Controller
from .state import Command, UIState

# The networking side: reads commands, writes the state, calls ``invalidate``.
Network = Callable[[UIState, trio.MemoryReceiveChannel[Command], Callable[[], None]], Awaitable[Any]]


# Signals that end the UI as Ctrl-C does (the exit status is 128 + the signal's number).
QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def run(state: UIState, network: Network, *, bell: bool = False, **app_kwargs: Any) -> int:
    """Run the UI until the player quits (or the networking side fails); the exit status.
    ``bell``: ring the terminal's bell when the table wants something of the player."""
    return asyncio.run(run_async(state, network, bell=bell, **app_kwargs))


async def run_async(state: UIState, network: Network, *, bell: bool = False, **app_kwargs: Any) -> int:
    loop = asyncio.get_running_loop()
    done: asyncio.Future[Any] = loop.create_future()
    started: asyncio.Future[tuple[trio.lowlevel.TrioToken, trio.CancelScope]] = loop.create_future()
    send_channel, receive_channel = trio.open_memory_channel[Command](256)

    def send(command: Command) -> None:
        if not started.done() or done.done():
            state.notify(_("not connected yet"))
            return
        token, _scope = started.result()

        def put() -> None:
            try:
                send_channel.send_nowait(command)
            except trio.WouldBlock:
                state.notify(_("too many keys at once: slow down"))
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                state.notify(_("the connection is closed"))

        try:
            token.run_sync_soon(put)
        except trio.RunFinishedError:
            state.notify(_("the connection is closed"))

    def quit_guest() -> None:
        if started.done() and not done.done():
            token, scope = started.result()
            with contextlib.suppress(trio.RunFinishedError):
                token.run_sync_soon(scope.cancel)

    controller = Controller(state, send)
    app = build_app(state, controller, on_quit=quit_guest, **app_kwargs)
    signalled: list[int] = []

    def on_signal(signum: int) -> None:
        signalled.append(signum)
        state.quitting = True
        quit_guest()
        if app.is_running and app.future is not None and not app.future.done():
            app.exit(result=128 + signum)

    ringer = Bell() if bell else None

    def invalidate() -> None:
        if ringer is not None and ringer.ring(state):
            app.output.bell()
        app.invalidate()

    async def guest_main() -> Any:
        with trio.CancelScope() as scope:
            started.set_result((trio.lowlevel.current_trio_token(), scope))
            return await network(state, receive_channel, invalidate)
        return None

    def guest_done(outcome: Any) -> None:
        if not done.done():
            done.set_result(outcome)
        # The network side ended on its own (an error, or the server said bye): leave.
        if app.is_running and app.future is not None and not app.future.done() and not state.quitting:
            app.exit(result=0 if _ok(outcome) else 1)

    trio.lowlevel.start_guest_run(
        guest_main,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        done_callback=guest_done,
        host_uses_signal_set_wakeup_fd=True,
    )
    for signum in QUIT_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        status = await app.run_async()
    except OSError:
        if signal.SIGHUP not in signalled:
            raise
        status = 128 + signal.SIGHUP  # the terminal is gone: nothing left to restore
    finally:
        for signum in QUIT_SIGNALS:
            loop.remove_signal_handler(signum)
        quit_guest()
        outcome = await done
    if not _ok(outcome):
        raise outcome.error
    return int(status or state.exit_status())


def _ok(outcome: Any) -> bool:
    return getattr(outcome, "error", None) is None
