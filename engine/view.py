"""What one seat may know: its own hand and the public table, nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import Action
from .cards import Card, Color
from .errors import IllegalAction
from .legal import LegalActions
from .phases import Phase
from .rules import Rules
from .state import State, team_of


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view of the table (``seat`` is None for a spectator, with no hand)."""

    seat: int | None
    hand: tuple[str, ...]
    counts: tuple[int, ...]
    top: str | None  # None before the first card is turned up
    color: str | None
    direction: int
    turn: int
    phase: Phase
    pending: int
    called: tuple[bool, ...]
    catchable: tuple[int, ...]
    scores: tuple[int, ...]
    draw_count: int
    discard_count: int
    round: int
    dealer: int
    drawn: str | None
    out: tuple[bool, ...]
    rules: dict[str, Any]
    stack: int = 0  # penalty cards making up ``pending``
    pair: bool = False  # the pending penalty came from a pair of Draw Twos
    challengeable: bool = False  # the pending Wild Draw Four may be challenged
    served: bool = False  # the top card's penalty has been drawn
    opening: bool = False  # the top card is the round's first card (no jump-in on its penalty)

    def __post_init__(self) -> None:
        if type(self.phase) is not Phase:  # a view built from plain values: the phase's text
            object.__setattr__(self, "phase", Phase(self.phase))

    @classmethod
    def of(cls, game: State, seat: int | None) -> View:
        if seat is not None and not 0 <= seat < game.players:
            seat = None  # no such seat: a spectator
        drawn = game.drawn.text if game.drawn is not None and seat == game.turn else None
        return cls(
            seat=seat,
            hand=() if seat is None else tuple(c.text for c in game.hands[seat]),
            counts=tuple(len(h) for h in game.hands),
            top=game.discard[-1].text if game.discard else None,
            color=game.color.value if game.color else None,
            direction=game.direction,
            turn=game.turn,
            phase=game.phase,
            pending=game.pending,
            called=game.called,
            catchable=tuple(sorted(game.catchable)),
            scores=tuple(game.scores),
            draw_count=len(game.draw_pile),
            discard_count=len(game.discard),
            round=game.round,
            dealer=game.dealer,
            drawn=drawn,
            out=tuple(game.out),
            rules=game.rules.to_dict(),
            stack=game.stack,
            pair=game.pair,
            challengeable=game._challengeable(),
            served=game.served,
            opening=game.opening,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain values only, ready for the wire."""
        return {
            "seat": self.seat,
            "hand": list(self.hand),
            "counts": list(self.counts),
            "top": self.top,
            "color": self.color,
            "direction": self.direction,
            "turn": self.turn,
            "phase": self.phase.value,
            "pending": self.pending,
            "called": list(self.called),
            "catchable": list(self.catchable),
            "scores": list(self.scores),
            "draw_count": self.draw_count,
            "discard_count": self.discard_count,
            "round": self.round,
            "dealer": self.dealer,
            "drawn": self.drawn,
            "out": list(self.out),
            "rules": dict(self.rules),
            "stack": self.stack,
            "pair": self.pair,
            "challengeable": self.challengeable,
            "served": self.served,
            "opening": self.opening,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> View:
        """Rebuild a view from :meth:`to_dict`'s output (e.g. a snapshot off the wire)."""
        values = dict(data)
        for key in ("hand", "counts", "called", "catchable", "scores", "out"):
            values[key] = tuple(values[key])
        return cls(**values)

    def team_of(self, seat: int) -> int | None:
        """``seat``'s team this round, as the game seats them (None: the rules have no teams)."""
        rules = Rules.from_dict(self.rules)
        if not (rules.teams or rules.partner_rotation):
            return None
        return team_of(rules, seat, self.round, len(self.counts))

    def legal_actions(self) -> list[Action]:
        """What this seat may do now, judged by the engine's own rules from the view alone
        (legality never depends on hidden cards, only on how many each seat holds)."""
        if self.seat is None:
            return []
        return _ViewTable(self).legal_actions(self.seat)

    def refusal(self, action: Action) -> IllegalAction | None:
        """Why this seat's ``action`` would be refused now, as the game would say it;
        None when it would be applied."""
        if action.seat != self.seat:
            raise ValueError(f"a view of seat {self.seat} judges only its own actions, not {action}")
        return _ViewTable(self).refusal(action)

    def play_refusal(self, cards: tuple[Card, ...]) -> IllegalAction | None:
        """Why every play of ``cards`` by this seat would be refused now, whatever color
        and target it named; None when one of them would be applied."""
        if self.seat is None:
            raise ValueError("a spectator plays no cards")
        return _ViewTable(self).play_refusal(self.seat, cards)


class _ViewTable(LegalActions):
    """A view's table as the judging code reads it: the seat's own hand, and for every
    other seat only what the view says (counts, calls, who may be caught)."""

    __slots__ = ("challengeable", "counts", "view_opening")

    counts: tuple[int, ...]
    challengeable: bool
    view_opening: bool

    def __init__(self, view: View) -> None:
        n = len(view.counts)
        own = [Card.parse(c) for c in view.hand]
        super().__init__(
            Rules.from_dict(view.rules), n,
            hands=[own if s == view.seat else [] for s in range(n)],
            discard=[Card.parse(view.top)] if view.top else [],
            color=Color(view.color) if view.color else None,
            turn=view.turn, phase=view.phase, pending=view.pending, stack=view.stack,
            pair=view.pair, served=view.served,
            drawn=Card.parse(view.drawn) if view.drawn else None,
            called=tuple(view.called), catchable=set(view.catchable), out=list(view.out),
        )
        self.counts = view.counts
        self.challengeable = view.challengeable
        self.view_opening = view.opening

    @property
    def opening(self) -> bool:
        return self.view_opening  # the view says it

    def _challengeable(self) -> bool:
        return self.challengeable

    def _holds_one(self, seat: int) -> bool:
        return self.counts[seat] == 1

    def position(self) -> str:
        """A view has no position to quote: the hidden cards are not in it."""
        return ""
