"""A view says each seat's team as the game seats them (View.team_of): the TUI shows
teams from it and keeps no copy of the rule."""

from __future__ import annotations

import pytest

from unolan import engine as en


@pytest.mark.parametrize("rules", ["house teams=2", "official partner_rotation=on", "house"])
def test_a_view_seats_the_teams_as_the_game_does(rules: str) -> None:
    game = en.Game(en.Rules.parse(rules), 4, seed=3)
    for _ in range(3):  # partners rotate from round to round
        for seat in (0, 2, None):
            view = game.view(seat)
            expected = [game.team_of(s) for s in range(4)] if "teams" in rules or "rotation" in rules \
                else [None] * 4
            assert [view.team_of(s) for s in range(4)] == expected
        for _ in range(2000):  # the seat in turn plays on: a card, else a draw, a pass, a color
            if game.phase is en.Phase.ROUND_OVER:
                break
            legal = game.legal_actions(game.turn)
            game.apply(next((a for kind in (en.Play, en.ChooseColor, en.Draw, en.Pass)
                             for a in legal if isinstance(a, kind)), legal[0]))
        assert game.phase is en.Phase.ROUND_OVER
        game.apply(en.Deal(game.turn))
