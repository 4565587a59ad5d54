"""The bot interface and the built-in strategies, offline on the engine."""

from __future__ import annotations

import pytest
from unolan.client.arena import play_match
from unolan.client.bot import Bot, decide
from unolan.client.strategies import STRATEGIES, CounterBot, GreedyBot, make_bot
from unolan.engine import CallUno, Catch, Game, Play, Rules, parse_position

PRESETS = ["official", "house", "party", "all-wild"]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", [2, 3, 6])
def test_every_strategy_finishes_matches(preset: str, players: int) -> None:
    rules = Rules.preset(preset, target_score=100)
    names = list(STRATEGIES)
    for seed in range(3):
        lineup = [names[(i + seed) % len(names)] for i in range(players)]
        result = play_match(lineup, rules, seed=f"t{seed}")
        assert result.winner is not None and result.rounds >= 1


def test_decide_adds_the_uno_call_and_reacts_out_of_turn() -> None:
    game = parse_position("rules: house; hand 0: R5 R6; hand 1: B1 B2 B3; hand 2: G1 G2; "
                          "discard: R3; turn: 0")
    bot = GreedyBot(seed=1)
    action = decide(bot, game.view(0), game.legal_actions(0))
    assert isinstance(action, Play) and action.uno  # going down to one card: UNO rides along

    class Forgetful(GreedyBot):
        def call_uno(self, view):
            return False

    game.apply(decide(Forgetful(), game.view(0)))
    assert game.catchable == {0}
    # Seat 2, out of turn, catches; seat 0 itself would rather call late.
    assert decide(GreedyBot(), game.view(2)) == Catch(2, 0)
    assert decide(GreedyBot(), game.view(0)) == CallUno(0)


def test_a_bot_that_chooses_an_illegal_action_is_told() -> None:
    class Cheat(Bot):
        def choose(self, view, legal):
            return Play(view.seat, (), None)

    game = Game(Rules.preset("official"), players=2, seed=3)
    with pytest.raises(ValueError, match="not legal"):
        decide(Cheat(), game.view(game.turn))


def test_a_minimal_bot_only_overrides_choose() -> None:
    class Drawer(Bot):
        def choose(self, view, legal):
            plays = [a for a in legal if isinstance(a, Play)]
            return plays[0] if plays else legal[0]

    game = Game(Rules.preset("house"), players=3, seed=4)
    action = decide(Drawer(), game.view(game.turn))
    assert action in game.legal_actions(game.turn)
    other = (game.turn + 1) % 3
    assert decide(Drawer(), game.view(other)) is None  # out of turn: no jump-in by default


def test_greedy_names_its_strongest_color_and_keeps_wilds() -> None:
    game = parse_position("rules: official; hand 0: W R1 B2 B7 B9; hand 1: G1 G2; discard: B5; turn: 0")
    action = decide(GreedyBot(), game.view(0))
    assert isinstance(action, Play) and not action.cards[0].is_wild
    game = parse_position("rules: official; hand 0: W G2 G7 G9; hand 1: G1 G2; discard: R5; turn: 0")
    action = decide(GreedyBot(), game.view(0))
    assert isinstance(action, Play) and action.cards[0].is_wild and action.color.value == "G"


def test_counter_never_bluffs_a_wild_draw_four_and_attacks_the_leader() -> None:
    game = parse_position("rules: official; hand 0: W4 R1 B2; hand 1: G1; hand 2: Y1 Y2 Y3; "
                          "discard: R5; turn: 0")
    action = decide(CounterBot(), game.view(0))
    assert isinstance(action, Play) and action.cards[0].text == "R1"
    game = parse_position("rules: official; hand 0: GS G1 B2; hand 1: G3; hand 2: Y1 Y2 Y3; "
                          "discard: G5; turn: 0")
    action = decide(CounterBot(), game.view(0))
    assert isinstance(action, Play) and action.cards[0].text == "GS"  # skip the seat about to win


def test_make_bot_names_the_known_strategies() -> None:
    assert isinstance(make_bot("counter"), CounterBot)
    with pytest.raises(KeyError, match="random, greedy, counter"):
        make_bot("clever")
