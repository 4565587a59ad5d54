"""Announce a running server on the LAN: DNS-SD over multicast DNS, with python-zeroconf.

``uno host`` starts :func:`announce` beside the server. It registers one service of type
``_unolan._tcp.local.`` whose TXT record (:class:`unolan.protocol.lan.Announcement`)
carries the protocol versions, the server's name and how many rooms and players it has;
it keeps the counts current while rooms open and close, at most one update every
:data:`MIN_UPDATE_INTERVAL` seconds, and withdraws the service (goodbye packets) when it
is cancelled, as on Ctrl-C or SIGTERM.

Where: on the addresses the server listens on. A wildcard (``0.0.0.0``) means every LAN
interface of the machine. A server on loopback only (``127.0.0.1``, the default) is not
announced, and the log says so: nobody on the LAN could reach it, and an announcement
on the loopback interface alone does not stay there on Linux (a responder there hears
the LAN's queries whenever another one, Avahi say, listens on the LAN, and answers them
by unicast: seen between two network namespaces), so the LAN would list a 127.0.0.1 game.

Zeroconf runs its own thread and event loop; the server stays pure Trio. Its blocking
calls (probing for a unique name takes about a second and a half) run in Trio worker
threads, so the server loop never waits on the network for them. Every failure (no
multicast, no interface, a port it cannot bind) is one log line: the server goes on and
players join with its address.
"""

from __future__ import annotations

import getpass
import ipaddress
import logging
import re
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Protocol

import trio
from unolan.protocol.lan import SERVICE_TYPE, Announcement, clip_name
from zeroconf import Error as ZeroconfError
from zeroconf import IPVersion, ServiceInfo, Zeroconf

if TYPE_CHECKING:
    from .app import Server

log = logging.getLogger("unolan.server.announce")

POLL = 1.0  # how often the counts are read (a few dict lookups)
MIN_UPDATE_INTERVAL = 3.0  # at most one TXT update per this many seconds
TTL = 120  # seconds the records live in caches (host and service records alike)
WITHDRAW_TIMEOUT = 3.0

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def default_name() -> str:
    """``LOGIN on HOSTNAME``: what the list of LAN games shows when ``--name`` is not given."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    host = socket.gethostname().split(".")[0]
    return clip_name(f"{user} on {host}" if user else f"unolan on {host}")


def status(server: Server, name: str) -> Announcement:
    """The server's announcement now: its rooms, those still waiting, the people seated."""
    rooms = list(server.rooms.values())
    return Announcement(
        name=name,
        rooms=len(rooms),
        waiting=sum(not room.started for room in rooms),
        players=sum(room.roster.humans() for room in rooms),
    )


# -- where to announce -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Plan:
    """Where the service is announced (IPv4 interfaces, by address) and the addresses its
    record gives players to connect to."""

    interfaces: tuple[str, ...]
    addresses: tuple[str, ...]


def plan(listening: Iterable[str], machine: Iterable[str]) -> Plan | str:
    """Where to announce a server listening on ``listening`` (the bound addresses) on a
    machine whose interfaces have ``machine``; a string says why not.

    Multicast goes over IPv4 (IPv4 first); the record also lists IPv6 addresses the
    server listens on. A wildcard stands for every non-loopback address of its family
    (IPv6 link-local ones left out: they need a scope a record cannot carry); loopback
    addresses are never announced.
    """
    ours = sorted({ip for ip in _ips(machine) if not ip.is_loopback}, key=_order)
    addresses: list[IPAddress] = []
    for ip in _ips(listening):
        if ip.is_unspecified:
            addresses += [m for m in ours if m.version == ip.version
                          and not (m.version == 6 and m.is_link_local)]
        else:
            addresses.append(ip)
    addresses = sorted(set(addresses), key=_order)
    lan = [ip for ip in addresses if not ip.is_loopback]
    if addresses and not lan:
        return (f"it listens on {', '.join(map(str, addresses))}, this machine only "
                "(--host 0.0.0.0 serves and announces it on the LAN)")
    if not lan:
        return "this machine has no network address to announce"
    interfaces = [ip for ip in lan if ip.version == 4] or [ip for ip in ours if ip.version == 4]
    if not interfaces:
        return "announcing needs an IPv4 interface (multicast DNS over IPv6 is not done)"
    return Plan(tuple(str(ip) for ip in interfaces), tuple(str(ip) for ip in lan))


def _order(ip: IPAddress) -> tuple[int, bytes]:
    return ip.version, ip.packed


def _ips(texts: Iterable[str]) -> list[IPAddress]:
    out = []
    for text in texts:
        try:
            out.append(ipaddress.ip_address(text.partition("%")[0]))
        except ValueError:
            continue
    return out


def machine_addresses() -> list[str]:
    """Every IP address of this machine's interfaces (through ifaddr, zeroconf's own)."""
    import ifaddr

    return [ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            for adapter in ifaddr.get_adapters() for ip in adapter.ips]


async def listening_addresses(host: str, port: int) -> list[str]:
    """The addresses a server given ``host`` binds: the lookup trio's listeners make."""
    infos = await trio.socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                          flags=socket.AI_PASSIVE)
    return [str(sockaddr[0]) for *_, sockaddr in infos]


# -- the announcement --------------------------------------------------------------------


class Publisher(Protocol):
    """One service on the network: registered once, updated, withdrawn."""

    async def register(self, txt: dict[str, str]) -> str:
        """Announce; the instance name it got (renamed if another server had it)."""

    async def update(self, txt: dict[str, str]) -> None: ...

    async def withdraw(self) -> bool:
        """Say goodbye; False if nothing had been announced."""


class ZeroconfPublisher:
    """The service, announced by python-zeroconf on its own thread (see the module doc)."""

    def __init__(self, plan: Plan, port: int, name: str) -> None:
        self.plan, self.port, self.name = plan, port, clip_name(name)
        host = re.sub(r"[^a-z0-9-]+", "-", socket.gethostname().split(".")[0].lower()).strip("-")
        # A host name of our own (not the machine's): the OS's responder owns that one.
        self.server = f"{host[:40] or 'unolan'}-unolan-{port}.local."
        self.zeroconf: Zeroconf | None = None
        self.info: ServiceInfo | None = None

    async def open(self) -> None:
        # Made in a worker thread: with no asyncio loop there, zeroconf starts its own.
        self.zeroconf = await trio.to_thread.run_sync(partial(
            Zeroconf, interfaces=list(self.plan.interfaces), ip_version=IPVersion.V4Only))

    def _info(self, name: str, txt: dict[str, str]) -> ServiceInfo:
        return ServiceInfo(SERVICE_TYPE, f"{name}.{SERVICE_TYPE}", port=self.port,
                           properties=txt, server=self.server, host_ttl=TTL, other_ttl=TTL,
                           parsed_addresses=list(self.plan.addresses))

    async def register(self, txt: dict[str, str]) -> str:
        assert self.zeroconf is not None
        info = self._info(self.name, txt)
        await trio.to_thread.run_sync(partial(
            self.zeroconf.register_service, info, allow_name_change=True))
        self.info = info
        return self.instance

    @property
    def instance(self) -> str:
        assert self.info is not None
        return self.info.name[: -len(SERVICE_TYPE) - 1]

    async def update(self, txt: dict[str, str]) -> None:
        assert self.zeroconf is not None
        info = self._info(self.instance, txt)
        await trio.to_thread.run_sync(self.zeroconf.update_service, info)
        self.info = info

    async def withdraw(self) -> bool:
        """Goodbye packets (TTL 0) for the service, then zeroconf's threads stop; False if
        nothing was announced."""
        zeroconf, self.zeroconf = self.zeroconf, None
        if zeroconf is not None:
            await trio.to_thread.run_sync(zeroconf.close, abandon_on_cancel=True)
        return self.info is not None


async def keep_announced(publisher: Publisher, read: Callable[[], Announcement], where: str, *,
                         poll: float = POLL, min_interval: float = MIN_UPDATE_INTERVAL) -> None:
    """Register ``read()``'s announcement, then publish each change, at most one update per
    ``min_interval`` seconds (the latest counts win); runs until cancelled."""
    current = read()
    name = await publisher.register(current.to_txt())
    await trio.lowlevel.checkpoint_if_cancelled()  # stopped while probing: no "announced"
    log.info("announced on %s as %r: `uno join` lists it", where, name)
    last = trio.current_time()
    while True:
        await trio.sleep(poll)
        latest = read()
        if latest != current and trio.current_time() - last >= min_interval:
            await publisher.update(latest.to_txt())
            current, last = latest, trio.current_time()


async def announce(server: Server, host: str, name: str) -> None:
    """Announce ``server`` (listening on ``host``) on the LAN until cancelled, then
    withdraw it. Never raises for a network problem: it logs one line and returns."""
    errors = (OSError, RuntimeError, ZeroconfError)
    try:
        where = plan(await listening_addresses(host, server.port), machine_addresses())
    except OSError as exc:
        where = f"cannot list the addresses ({exc})"
    if isinstance(where, str):
        log.info("not announced on the LAN: %s", where)
        return
    scope = f"the LAN ({', '.join(where.addresses)})"
    publisher = ZeroconfPublisher(where, server.port, name)
    try:
        await publisher.open()
        await keep_announced(publisher, partial(status, server, name), scope)
    except errors as exc:
        log.warning("LAN announcement failed (%s); players join with the address",
                    str(exc) or type(exc).__name__)
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(WITHDRAW_TIMEOUT):
            try:
                if await publisher.withdraw():
                    log.info("LAN announcement withdrawn")
            except errors as exc:
                log.warning("LAN announcement not withdrawn cleanly: %s", exc)
