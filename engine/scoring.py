"""Scoring a round and deciding a match, for each scoring mode and with teams."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from .schedule import cycle_length
from .state import State


@dataclass(slots=True, unsafe_hash=True)
class RoundResult:
    """What a round came to. ``scores`` are per team when the rules have teams.

    Immutable by convention, as actions and events are: one is made every round, and a
    frozen dataclass's ``__init__`` (Python even when compiled, one ``object.__setattr__``
    per field) costs several times this one, which stores its fields straight."""

    round: int
    winner: int
    points: int
    hand_points: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    scores: tuple[int, ...]
    finished: tuple[int, ...]
    match_over: bool
    match_winner: int | None

    def __init__(self, round: int, winner: int, points: int, hand_points: tuple[int, ...],
                 hands: tuple[tuple[str, ...], ...], scores: tuple[int, ...], finished: tuple[int, ...],
                 match_over: bool, match_winner: int | None) -> None:
        self.round = round
        self.winner = winner
        self.points = points
        self.hand_points = hand_points
        self.hands = hands
        self.scores = scores
        self.finished = finished
        self.match_over = match_over
        self.match_winner = match_winner

    def __reduce__(self) -> tuple[type[RoundResult], tuple[object, ...]]:
        """Pickled as the call that builds it, as actions are (compiled, an object is not
        restored field by field)."""
        return (RoundResult, (self.round, self.winner, self.points, self.hand_points, self.hands,
                              self.scores, self.finished, self.match_over, self.match_winner))

    def to_data(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "winner": self.winner,
            "points": self.points,
            "scores": list(self.scores),
            "hands": [list(h) for h in self.hands],
            "finished": list(self.finished),
        }


def score_round(game: State, winner: int) -> RoundResult:
    """Score the round ``winner`` won, under the game's scoring mode."""
    rules = game.rules
    hand_points = tuple([sum([c.points for c in hand]) for hand in game.hands])
    scores = list(game.scores)
    mine = game.team_of(winner)
    losers = [s for s in range(game.players) if game.team_of(s) != mine]
    rotation = rules.partner_rotation  # teams change per round; scores stay per player

    points = 0
    match_over = False
    best: int | None = None
    if rules.elimination:
        match_over, best = True, mine  # finishing order ranks; no points are scored
    elif rules.scoring == "winner_takes":
        points = sum([hand_points[s] for s in losers]) + game.mercy_points
        _credit(game, scores, mine, points)
        if not rotation and max(scores) >= rules.target_score:
            match_over, best = True, scores.index(max(scores))
    elif rules.scoring == "penalty":
        for s in range(game.players):
            _credit(game, scores, game.team_of(s), hand_points[s])
        points = sum(hand_points)
        if not rotation and max(scores) >= rules.target_score:
            match_over, best = True, scores.index(min(scores))
    else:  # chips: each loser pays the winner its hand's points
        for s in losers:
            _credit(game, scores, game.team_of(s), -hand_points[s])
        points = sum([hand_points[s] for s in losers])
        _credit(game, scores, mine, points)
        if not rotation and rules.rounds and game.round >= rules.rounds:
            match_over, best = True, scores.index(max(scores))
    if rotation and not rules.elimination and game.round >= (rules.rounds or cycle_length(game.players)):
        # a full rotation (or ``rounds`` rounds) is played; cumulative scores name the champion
        pick = min if rules.scoring == "penalty" else max
        match_over, best = True, scores.index(pick(scores))
    return RoundResult(
        round=game.round,
        winner=winner,
        points=points,
        hand_points=hand_points,
        hands=tuple([tuple([c.text for c in hand]) for hand in game.hands]),
        scores=tuple(scores),
        finished=tuple(game.finished),
        match_over=match_over,
        match_winner=best,
    )


TIE_BREAK: Final = "lower_seat"
"""How a tie for a partner rotation's champion is settled: of the seats sharing the best
total, the lowest (``scores.index`` finds it first). The match's end says so (``tie_break``)."""


def tie_data(scores: Sequence[int], winner: int) -> dict[str, Any]:
    """A partner rotation's end, when its champion shares its total: every seat that does
    (``tied``, in seat order) and how the tie was settled (``tie_break``); else nothing."""
    tied = [seat for seat, total in enumerate(scores) if total == scores[winner]]
    return {"tied": tied, "tie_break": TIE_BREAK} if len(tied) > 1 else {}


def _credit(game: State, scores: list[int], unit: int, amount: int) -> None:
    """Add to a team's score, or under partner rotation to each of its members'. A
    function of its own, not a closure of score_round's: compiled, a closure is an object
    made on every call."""
    if game.rules.partner_rotation:
        for s in range(game.players):
            if game.team_of(s) == unit:
                scores[s] += amount
    else:
        scores[unit] += amount
