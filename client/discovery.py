"""Find unolan servers on the LAN: browse DNS-SD over multicast DNS with python-zeroconf.

:func:`browse` runs in any Trio run, the TUI's too, where Trio is a guest on
prompt_toolkit's asyncio loop: zeroconf never touches that loop. It is created in a Trio
worker thread (no asyncio loop there, so it starts its own loop thread); its browser
thread hands each change to Trio with the run's token (``run_sync_soon``: it never
blocks the thread and is safe from it); resolving a service (a blocking call, answered
from zeroconf's cache when the announcement carried everything, as ours does) runs in
worker threads. So neither the UI nor the Trio tasks ever wait on the network.

:class:`Games` turns resolved services into :class:`Game` rows; it does no I/O, so the
browse result handling is tested without a network. A machine where multicast DNS cannot
start (no interface, a socket it cannot bind) raises :class:`DiscoveryUnavailable`; a
network that drops multicast finds nothing within the browse time: either way the
caller says "no games found; give an address" instead of waiting.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Protocol

import trio
from unolan.client.i18n import _
from unolan.protocol import CLIENT_VERSIONS
from unolan.protocol.lan import BROWSE_SECONDS, SERVICE_TYPE, Announcement, clip_name
from zeroconf import Error as ZeroconfError
from zeroconf import InterfaceChoice, IPVersion, ServiceBrowser, ServiceStateChange, Zeroconf

log = logging.getLogger("unolan.client.discovery")

MAX_GAMES = 64  # services kept from one browse (a LAN flooding names gets no more)
RESOLVE_MS = 1500  # a service whose records do not arrive within this is skipped
CLOSE_TIMEOUT = 2.0

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class DiscoveryUnavailable(Exception):
    """Multicast DNS cannot run on this machine (no interface, a socket it cannot bind)."""


@dataclass(frozen=True, slots=True)
class Game:
    """A server found on the LAN: what its announcement says, and where to connect."""

    key: str  # the DNS-SD instance name: one per server on the network
    name: str
    host: str  # the address chosen to connect to (see pick_address)
    port: int
    rooms: int | None
    waiting: int | None
    players: int | None
    versions: tuple[int, ...]

    @property
    def address(self) -> str:
        """``HOST:PORT``, as ``uno join`` takes it (``[v6]:PORT`` for IPv6)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @property
    def joinable(self) -> bool:
        """Whether this client speaks one of the server's protocol versions."""
        return not set(self.versions).isdisjoint(CLIENT_VERSIONS)


class Resolved(Protocol):
    """A resolved DNS-SD service, as zeroconf's ``ServiceInfo`` gives it."""

    port: int | None

    @property
    def properties(self) -> dict[bytes, bytes | None]: ...

    def parsed_scoped_addresses(self) -> list[str]: ...


def pick_address(addresses: Iterable[str], networks: Sequence[Network] = ()) -> str | None:
    """The address to connect to: one on a network this machine is on first (a server
    with several interfaces lists them all), then IPv4 before IPv6, loopback last."""
    def rank(text: str) -> tuple[bool, bool, bool]:
        ip = ipaddress.ip_address(text.partition("%")[0])
        return (not any(ip in net for net in networks if net.version == ip.version),
                ip.version != 4, ip.is_loopback)

    usable = []
    for text in addresses:
        with contextlib.suppress(ValueError):
            rank(text)
            usable.append(text)
    return min(usable, key=rank, default=None)


def local_networks() -> list[Network]:
    """The networks this machine's interfaces are on (through ifaddr, zeroconf's own)."""
    import ifaddr

    nets: list[Network] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            address = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            with contextlib.suppress(ValueError):
                nets.append(ipaddress.ip_network(f"{address}/{ip.network_prefix}", strict=False))
    return nets


class Games:
    """The games a browse has found, in a stable order (joinable first, then by name).

    Fed by the browser (``found`` for a resolved service, ``lost`` for one withdrawn or
    expired); each returns whether the list changed. No I/O.
    """

    def __init__(self, networks: Sequence[Network] = (), limit: int = MAX_GAMES) -> None:
        self.networks = networks
        self.limit = limit
        self._games: dict[str, Game] = {}

    def found(self, instance: str, service: Resolved) -> bool:
        """A service resolved: add or refresh its game; one that cannot be joined at any
        address or whose record says nothing usable is dropped."""
        key = instance.removesuffix("." + SERVICE_TYPE)
        try:
            announced = Announcement.from_txt(service.properties)
        except ValueError as exc:
            log.debug("%s: not an unolan announcement: %s", key, exc)
            return self.lost(instance)
        host = pick_address(service.parsed_scoped_addresses(), self.networks)
        if host is None or not service.port:
            return self.lost(instance)
        if key not in self._games and len(self._games) >= self.limit:
            return False
        game = Game(key=key, name=announced.name or clip_name(key), host=host, port=service.port,
                    rooms=announced.rooms, waiting=announced.waiting, players=announced.players,
                    versions=announced.versions)
        changed = self._games.get(key) != game
        self._games[key] = game
        return changed

    def lost(self, instance: str) -> bool:
        return self._games.pop(instance.removesuffix("." + SERVICE_TYPE), None) is not None

    def list(self) -> list[Game]:
        return sorted(self._games.values(),
                      key=lambda g: (not g.joinable, g.name.casefold(), g.address, g.key))


async def browse(changed: Callable[[list[Game]], None], *,
                 task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
    """Browse the LAN until cancelled, calling ``changed`` with the whole list after each
    change. ``nursery.start`` returns once the browser runs; raises
    :class:`DiscoveryUnavailable` if multicast DNS cannot start here."""
    games = Games(local_networks())
    token = trio.lowlevel.current_trio_token()
    send, receive = trio.open_memory_channel[tuple[str, bool]](4 * MAX_GAMES)
    present: set[str] = set()  # names the latest browser event says are there
    limiter = trio.CapacityLimiter(4)

    def on_change(zeroconf: Zeroconf, service_type: str, name: str,
                  state_change: ServiceStateChange) -> None:
        """On zeroconf's browser thread: hand the change to Trio, never wait."""
        event = (name, state_change is not ServiceStateChange.Removed)

        def deliver() -> None:
            with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError):
                send.send_nowait(event)  # full: a burst beyond any real LAN; dropped

        with contextlib.suppress(trio.RunFinishedError):
            token.run_sync_soon(deliver)

    async def resolve(name: str) -> None:
        info = await trio.to_thread.run_sync(zeroconf.get_service_info, SERVICE_TYPE, name,
                                             RESOLVE_MS, limiter=limiter, abandon_on_cancel=True)
        if info is not None and name in present and games.found(name, info):
            changed(games.list())

    zeroconf = await _open()
    try:
        await trio.to_thread.run_sync(partial(ServiceBrowser, zeroconf, SERVICE_TYPE,
                                              handlers=[on_change]))
        task_status.started()
        async with trio.open_nursery() as nursery:
            async for name, there in receive:
                if there:
                    present.add(name)
                    nursery.start_soon(resolve, name)
                else:
                    present.discard(name)
                    if games.lost(name):
                        changed(games.list())
    finally:
        send.close()  # a change zeroconf reports from now on is dropped
        with trio.CancelScope(shield=True), trio.move_on_after(CLOSE_TIMEOUT):
            await trio.to_thread.run_sync(zeroconf.close, abandon_on_cancel=True)


async def _open() -> Zeroconf:
    try:
        # In a worker thread: with no asyncio loop there, zeroconf starts its own thread
        # (in the TUI this thread's loop is prompt_toolkit's, which zeroconf must not use).
        return await trio.to_thread.run_sync(partial(
            Zeroconf, interfaces=InterfaceChoice.All, ip_version=IPVersion.V4Only))
    except (OSError, RuntimeError, ZeroconfError) as exc:
        raise DiscoveryUnavailable(_("multicast DNS cannot start here ({problem})").format(
            problem=str(exc) or type(exc).__name__)) from None


async def find_games(seconds: float = BROWSE_SECONDS) -> list[Game]:
    """Browse for ``seconds`` and return what was found (``uno join --list``)."""
    found: list[Game] = []

    def keep(games: list[Game]) -> None:
        found[:] = games

    with trio.move_on_after(seconds):
        await browse(keep)
    return found
