"""What one seat may know: its own hand and the public table, nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .actions import Action
from .cards import Card, Color
from .rules import Rules

if TYPE_CHECKING:
    from .game import Game


def _stand_in(view: View) -> Game:
    """A game holding the view's own hand and placeholders for every hidden card."""
    from .game import Game

    game = Game.__new__(Game)
    game.rules = Rules.from_dict(view.rules)
    game.players = len(view.counts)
    game.seed = 0
    game.hands = [[Card.parse(c) for c in view.hand] if s == view.seat else [None] * n  # type: ignore[list-item]
                  for s, n in enumerate(view.counts)]
    game.discard = [Card.parse(view.top)]
    game.draw_pile = []
    game.color = Color(view.color) if view.color else None
    game.direction = view.direction
    game.turn = view.turn
    game.phase = view.phase
    game.pending = view.pending
    game.pending_cards = view.stack
    game.pending_pair = view.pair
    game.wd4_offender = (view.turn - view.direction) % game.players if view.challengeable else None
    game.wd4_bluff = False
    game.served = view.served
    game.reshuffles = 0 if view.opening else 1  # with one discard, what `opening` tells apart
    game.drawn = Card.parse(view.drawn) if view.drawn else None
    game.called = list(view.called)
    game.exposed = set(view.catchable)
    game.out = list(view.out)
    game.finished = []
    game.round, game.dealer, game.scores = view.round, view.dealer, list(view.scores)
    return game


@dataclass(frozen=True, slots=True)
class View:
    """A seat's view of the table (``seat`` is None for a spectator, with no hand)."""

    seat: int | None
    hand: tuple[str, ...]
    counts: tuple[int, ...]
    top: str
    color: str | None
    direction: int
    turn: int
    phase: str
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

    @classmethod
    def of(cls, game: Game, seat: int | None) -> View:
        mine = seat is not None and 0 <= seat < game.players
        drawn = game.drawn.text if game.drawn is not None and mine and seat == game.turn else None
        return cls(
            seat=seat if mine else None,
            hand=tuple(c.text for c in game.hands[seat]) if mine else (),
            counts=tuple(len(h) for h in game.hands),
            top=game.discard[-1].text,
            color=game.color.value if game.color else None,
            direction=game.direction,
            turn=game.turn,
            phase=game.phase,
            pending=game.pending,
            called=tuple(game.called),
            catchable=tuple(sorted(game.exposed)),
            scores=tuple(game.scores),
            draw_count=len(game.draw_pile),
            discard_count=len(game.discard),
            round=game.round,
            dealer=game.dealer,
            drawn=drawn,
            out=tuple(game.out),
            rules=game.rules.to_dict(),
            stack=game.pending_cards,
            pair=game.pending_pair,
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
            "phase": self.phase,
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

    def legal_actions(self) -> list[Action]:
        """What this seat may do now, judged by the engine's own rules from the view alone.

        Legality never depends on hidden cards (only on their counts), so a stand-in game
        with placeholder cards in the other hands answers exactly as the real one would.
        """
        if self.seat is None:
            return []
        return _stand_in(self).legal_actions(self.seat)
