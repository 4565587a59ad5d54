"""What one seat may know: its own hand and the public table, nothing else."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game


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
        }
