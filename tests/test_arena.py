"""The offline arena: significance of the strategies' order, reproducibility, the CLI."""

from __future__ import annotations

import argparse

import pytest
from unolan.client.arena import binomial_sf, head_to_head, lineup_for, run_tournament, wilson
from unolan.client.cli import add_parser
from unolan.engine import Rules


@pytest.mark.slow
def test_greedy_beats_random_significantly() -> None:
    tour = run_tournament(["greedy", "random"], 60, Rules.preset("house", target_score=200),
                          players=4, seed=1)
    _won, decided, share, p = head_to_head(tour, "greedy")
    assert share == 0.5 and decided == 60
    assert p < 1e-6
    greedy, rand = tour.standings()
    assert greedy.strategy == "greedy" and greedy.interval[0] > rand.interval[1]


@pytest.mark.slow
def test_counter_beats_greedy_significantly() -> None:
    # 1500 two-a-side matches to 200 points under the house rules: counter wins about 55%.
    tour = run_tournament(["counter", "greedy"], 1500, Rules.preset("house", target_score=200),
                          players=4, seed=11, jobs=2)
    won, decided, share, p = head_to_head(tour, "counter")
    assert decided == 1500 and share == 0.5
    assert won / decided > 0.52 and p < 0.01, (won, decided, p)


@pytest.mark.slow
def test_results_do_not_depend_on_the_number_of_processes() -> None:
    rules = Rules.preset("party", target_score=100)
    one = run_tournament(["counter", "greedy", "random"], 12, rules, players=3, seed="x")
    two = run_tournament(["counter", "greedy", "random"], 12, rules, players=3, seed="x", jobs=2)
    assert one.results == two.results
    other = run_tournament(["counter", "greedy", "random"], 12, rules, players=3, seed="y")
    assert other.results != one.results


def test_seats_rotate() -> None:
    assert [lineup_for(["a", "b", "c"], 4, g) for g in range(3)] == [
        ("a", "b", "c", "a"), ("b", "c", "a", "b"), ("c", "a", "b", "c")]


def test_statistics() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.404, abs=1e-3) and hi == pytest.approx(0.596, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    assert binomial_sf(10, 10, 0.5) == pytest.approx(1 / 1024)
    assert binomial_sf(0, 10, 0.5) == 1.0
    assert binomial_sf(1538, 3000, 0.5) == pytest.approx(0.0854, abs=1e-3)


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="uno")
    add_parser(parser.add_subparsers())
    args = parser.parse_args(argv)
    return args.run(args)


def test_arena_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(["arena", "--strategies", "greedy,random", "--games", "8", "--rules",
                    "official", "--players", "2", "--target", "100", "--seed", "3"])
    out = capsys.readouterr().out
    assert code == 0
    assert "95% interval" in out and "greedy" in out and "random" in out
    assert "one-sided binomial p" in out
    code = run_cli(["arena", "--strategies", "greedy,clever", "--games", "1"])
    assert code == 2


def test_commands_have_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ("arena", "bot"):
        with pytest.raises(SystemExit):
            run_cli([command, "--help"])
        assert "--strateg" in capsys.readouterr().out


def test_arena_plays_eight_players_partner_rotation_at_two_tables(capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(["arena", "--strategies", "greedy,random", "--games", "2", "--rules",
                    "house partner_rotation=on rounds=4", "--players", "8", "--seed", "2"])
    assert code == 0 and "greedy" in capsys.readouterr().out
    tour = run_tournament(["greedy", "random"], 2, Rules.preset("house", partner_rotation=True, rounds=4),
                          players=8, seed="z")
    assert all(r.winner is not None and r.rounds == 4 and len(r.scores) == 8 for r in tour.results)
    assert all(r.scores[r.winner] == max(r.scores) for r in tour.results if r.winner is not None)
