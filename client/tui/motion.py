"""Motion that tells the story: a played card flies from its seat to the pile and the
pile flashes; a jump-in, an UNO call, a catch, a challenge and a penalty each get a short
banner at the seat it happened to.

An :class:`Effect` is a fact with a start time, nothing more: the table's picture asks
which effects are running *now* (``Motion.active(now)``) and draws them where the seats
are, so motion never holds input or the game back, and tests drive the clock by hand.
Without motion (``--no-motion``) nothing flies or flashes; the banners still show, still,
for as long as they would have (they say what happened, at the seat it happened to).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from unolan.client.i18n import _

FLIGHT = 0.3  # seconds a played card takes from its seat to the pile
FLASH = 0.5  # seconds the pile flashes once it has landed
BANNER = 0.9  # seconds a banner stays at its seat
FRAME = 0.04  # seconds between two frames while something moves


class Kind(enum.Enum):
    FLIGHT = enum.auto()  # a card on its way to the pile, then the pile's flash
    BANNER = enum.auto()  # words at a seat


@dataclass(frozen=True, slots=True)
class Effect:
    kind: Kind
    seat: int | None
    text: str  # the card's notation (a flight) or the banner's words
    style: str  # the banner's style class
    start: float

    @property
    def length(self) -> float:
        return FLIGHT + FLASH if self.kind is Kind.FLIGHT else BANNER

    def progress(self, now: float) -> float:
        """How far along it is, from 0 to 1."""
        return min(max((now - self.start) / self.length, 0.0), 1.0)


@dataclass(slots=True)
class Motion:
    """The effects running on a table; ``moving``: whether cards fly and the pile flashes."""

    moving: bool = True
    effects: list[Effect] = field(default_factory=list)

    def on_event(self, kind: str, data: dict[str, Any], now: float) -> None:
        """A room event, as the table's story: what to show, and where."""
        seat = data.get("seat")

        def banner(where: Any, text: str, style: str) -> None:
            self.effects.append(Effect(Kind.BANNER, where, text, style, now))

        match kind:
            case "played":
                cards = list(data.get("cards") or ())
                if self.moving and cards:
                    self.effects.append(Effect(Kind.FLIGHT, seat, str(cards[-1]), "", now))
                if data.get("jump_in"):
                    banner(seat, _("JUMP IN!"), "class:banner.jump")
            case "uno":
                banner(seat, _("UNO!"), "class:banner.uno")
            case "caught":
                banner(data.get("target"), _("CAUGHT +{penalty}").format(penalty=data.get("penalty")),
                       "class:banner.catch")
            case "false_uno":
                banner(seat, _("false UNO +{penalty}").format(penalty=data.get("penalty")),
                       "class:banner.catch")
            case "challenged":
                text = _("challenge: guilty!") if data.get("guilty") else _("challenge: innocent")
                banner(data.get("target"), text, "class:banner.challenge")
            case "penalty":
                banner(seat, "+{amount}".format(amount=data.get("amount")), "class:banner.catch")
            case "round_started":
                self.effects.clear()  # a new deal: nothing of the last round is still moving

    def active(self, now: float) -> list[Effect]:
        """The effects still running at ``now`` (the finished ones are forgotten)."""
        self.effects = [e for e in self.effects if now < e.start + e.length]
        return list(self.effects)

    def next_frame(self, now: float) -> float | None:
        """Seconds until the screen must be drawn again (None: nothing runs): a frame soon
        while a card flies, else when the next thing changes (a card lands, the pile's
        flash or a banner ends); in between the picture stands still and costs nothing."""
        running = self.active(now)
        if any(e.kind is Kind.FLIGHT and now - e.start < FLIGHT for e in running):
            return FRAME
        return min((e.start + e.length - now for e in running), default=None)
