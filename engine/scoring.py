"""Scoring a round and deciding a match, for each scoring mode and with teams."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .game import Game


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What a round came to. ``scores`` are per team when the rules have teams."""

    round: int
    winner: int
    points: int
    hand_points: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    scores: tuple[int, ...]
    finished: tuple[int, ...]
    match_over: bool
    match_winner: int | None

    def to_data(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "winner": self.winner,
            "points": self.points,
            "scores": list(self.scores),
            "hands": [list(h) for h in self.hands],
            "finished": list(self.finished),
        }


def score_round(game: Game, winner: int) -> RoundResult:
    """Score the round ``winner`` won, under the game's scoring mode."""
    rules, team = game.rules, game.team_of
    hand_points = tuple(sum(c.points for c in hand) for hand in game.hands)
    scores = list(game.scores)
    mine = team(winner)
    losers = [s for s in range(game.players) if team(s) != mine]
    points = 0
    match_over = False
    best: int | None = None
    if rules.elimination:
        match_over, best = True, mine  # finishing order ranks; no points are scored
    elif rules.scoring == "winner_takes":
        points = sum(hand_points[s] for s in losers) + game.mercy_points
        scores[mine] += points
        if max(scores) >= rules.target_score:
            match_over, best = True, scores.index(max(scores))
    elif rules.scoring == "penalty":
        for s in range(game.players):
            scores[team(s)] += hand_points[s]
        points = sum(hand_points)
        if max(scores) >= rules.target_score:
            match_over, best = True, scores.index(min(scores))
    else:  # chips: each loser pays the winner its hand's points
        for s in losers:
            scores[team(s)] -= hand_points[s]
        points = sum(hand_points[s] for s in losers)
        scores[mine] += points
        if rules.rounds and game.round >= rules.rounds:
            match_over, best = True, scores.index(max(scores))
    return RoundResult(
        round=game.round,
        winner=winner,
        points=points,
        hand_points=hand_points,
        hands=tuple(tuple(c.text for c in hand) for hand in game.hands),
        scores=tuple(scores),
        finished=tuple(game.finished),
        match_over=match_over,
        match_winner=best,
    )
