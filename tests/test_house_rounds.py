"""Rounds, matches and the All Wild deck: `elimination`, `mercy_limit`, `hand_size`,
`target_score`, `scoring`, `rounds`, `teams`, `partner_rotation`, `deck` (RULES.md).
Each test is a position plus actions in the notation.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from scenario import DRAW, counts, legal, play, refused
from unolan.engine import (
    Card,
    Deal,
    Game,
    Kind,
    Rules,
    parse_actions,
    parse_position,
    schedule,
)
from unolan.engine.cards import ALL_WILD_COUNTS, all_wild_deck

# -- two players --------------------------------------------------------------------------


def test_two_players_a_reverse_acts_as_a_skip():
    game, _ = play("rules: official\nhand 0: RR R1\nhand 1: B1\n" + DRAW + "discard: R5", "0 play RR")
    assert game.turn == 0


def test_two_players_after_a_draw_two_the_turn_returns():
    game, _ = play("rules: official\nhand 0: RD2 R1\nhand 1: B1\n" + DRAW + "discard: R5",
                   "0 play RD2")
    assert game.turn == 0 and counts(game) == [1, 3]


# -- elimination --------------------------------------------------------------------------

ELIM = "rules: house elimination=on\n"


def test_elimination_the_round_goes_on_until_one_player_is_left():
    game, _ = play(ELIM + "hand 0: R1\nhand 1: R2 R6\nhand 2: R3 Y7 Y8\n" + DRAW + "discard: R5",
                        "0 play R1")
    assert game.phase == "play" and game.out == [True, False, False] and game.finished == [0]
    assert game.turn == 1
    game.apply(parse_actions("1 play R2")[0])
    game.apply(parse_actions("2 play R3")[0])
    game.apply(parse_actions("1 play R6")[0])  # seat 1 finishes second; seat 2 is last
    assert game.phase == "match_over"
    result = game.outcome()
    assert result.finished == (0, 1, 2) and result.winner == 0
    assert game.scores == [0, 0, 0]  # no points are scored


def test_elimination_down_to_two_players_two_player_rules_apply():
    game, _ = play(ELIM + "hand 0: R1\nhand 1: RR B5\nhand 2: Y7 Y8\n" + DRAW + "discard: R5",
                   "0 play R1; 1 play RR")
    assert game.turn == 1  # the Reverse acts as a Skip between the two left


def test_elimination_finished_players_are_passed_over():
    game, _ = play(ELIM + "hand 0: R2 B1\nhand 1: R1\nhand 2: Y7 R8\nhand 3: R9 G5\n" + DRAW
                   + "discard: R5\nturn: 1", "1 play R1; 2 play R8; 3 play R9")
    assert game.turn == 0
    game.apply(parse_actions("0 play R2")[0])
    assert game.turn == 2  # seat 1 is out


# -- mercy_limit --------------------------------------------------------------------------

MERCY = "rules: house mercy_limit=8 hand_size=5\n"


def test_mercy_a_player_reaching_the_limit_is_out_and_their_cards_go_into_the_draw_pile():
    game, events = play(MERCY + "hand 0: RD2 R9\nhand 1: B1 B2 B3 B4 B5 B6\nhand 2: Y1 Y2\n" + DRAW
                        + "discard: R5\nstack: 0", "0 play RD2; 1 draw")
    assert game.out == [False, True, False] and counts(game)[1] == 0
    assert len(game.draw_pile) == 12 - 2 + 8
    assert game.turn == 2
    assert any(e.kind == "out" and e.data["reason"] == "mercy" for e in events)


def test_mercy_knocks_out_the_player_in_turn_and_the_turn_moves_on():
    game, _ = play("rules: house mercy_limit=8 hand_size=5 misplay_penalty=on\n"
                   "hand 0: G7 R1 R2 R3 R4 R5 R6\nhand 1: B1\nhand 2: Y1 Y2\n" + DRAW
                   + "discard: B9\nturn: 0", "0 play G7")
    assert game.out[0] and game.turn == 1 and game.phase == "play"


def test_mercy_the_last_player_left_wins_the_round():
    game, _ = play(MERCY + "hand 0: RD2 R9\nhand 1: B1 B2 B3 B4 B5 B6\n" + DRAW
                   + "discard: R5", "0 play RD2; 1 draw")
    assert game.phase == "round_over"
    result = game.outcome()
    assert result.winner == 0
    assert result.points == (1 + 2 + 3 + 4 + 5 + 6) + (1 + 2)  # the knocked-out hand scores


def test_mercy_off_by_default():
    assert Rules().mercy_limit == 0


# -- hand_size ----------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 5, 7, 10])
def test_hand_size_deals_that_many(size):
    game = Game(Rules.preset("house", hand_size=size), players=10 if size <= 10 else 4, seed=3)
    dealt = sum(counts(game)) + len(game.draw_pile) + len(game.discard)
    assert dealt == 108
    assert max(counts(game)) >= size


def test_a_deal_that_does_not_fit_the_deck_is_refused():
    with pytest.raises(ValueError, match="too few"):
        Game(Rules.preset("house", hand_size=20), players=10)


# -- scoring ------------------------------------------------------------------------------


def test_winner_takes_scores_every_other_hand():
    game, _ = play("rules: house\nhand 0: R1\nhand 1: B5 W\nhand 2: YS\n" + DRAW + "discard: R5",
                   "0 play R1")
    assert game.scores == [75, 0, 0] and game.phase == "round_over"


def test_target_score_ends_the_match_highest_wins():
    game, _ = play("rules: house target_score=100\nscores: 30 90 0\nhand 0: R1\nhand 1: B5 W\n"
                   "hand 2: YS\n" + DRAW + "discard: R5", "0 play R1")
    assert game.phase == "match_over" and game.outcome().match_winner == 0
    game, _ = play("rules: house\nscores: 30 90 0\nhand 0: R1\nhand 1: B5 W\nhand 2: YS\n" + DRAW
                   + "discard: R5", "0 play R1")
    assert game.phase == "round_over"


def test_penalty_scoring_each_loser_adds_their_own_hand_bust_at_the_target_and_lowest_wins():
    game, _ = play("rules: house scoring=penalty target_score=100\nscores: 10 40 60\n"
                   "hand 0: R1\nhand 1: B5 W\nhand 2: YS\n" + DRAW + "discard: R5", "0 play R1")
    assert game.scores == [10, 95, 80] and game.phase == "round_over"
    game, _ = play("rules: house scoring=penalty target_score=90\nscores: 10 40 60\n"
                   "hand 0: R1\nhand 1: B5 W\nhand 2: YS\n" + DRAW + "discard: R5", "0 play R1")
    assert game.phase == "match_over" and game.outcome().match_winner == 0


def test_chips_each_loser_pays_the_winner_and_the_match_runs_rounds():
    game, _ = play("rules: house scoring=chips rounds=2\nhand 0: R1\nhand 1: B5 W\nhand 2: YS\n"
                   + DRAW + "discard: R5", "0 play R1")
    assert game.scores == [75, -55, -20] and game.phase == "round_over"
    game, _ = play("rules: house scoring=chips rounds=2\nround: 2\nscores: 5 -5 0\nhand 0: R1\n"
                   "hand 1: B5\nhand 2: Y1\n" + DRAW + "discard: R5", "0 play R1")
    assert game.scores == [11, -10, -1] and game.phase == "match_over"
    assert game.outcome().match_winner == 0


def test_chips_without_rounds_goes_on_until_the_host_ends_it():
    game, _ = play("rules: house scoring=chips\nround: 50\nhand 0: R1\nhand 1: B5\n" + DRAW
                   + "discard: R5", "0 play R1")
    assert game.phase == "round_over"


# -- teams --------------------------------------------------------------------------------

TEAMS = "hand 0: R1\nhand 1: B5\nhand 2: W\nhand 3: Y7\n" + DRAW + "discard: R5"


def test_teams_are_seated_alternately():
    game = Game(Rules.preset("house", teams=2), players=6)
    assert [game.team_of(s) for s in range(6)] == [0, 1, 0, 1, 0, 1]
    game = Game(Rules.preset("house", teams=3), players=6)
    assert [game.team_of(s) for s in range(6)] == [0, 1, 2, 0, 1, 2]


@pytest.mark.parametrize(("teams", "players"), [(2, 5), (3, 4), (5, 8), (2, 2)])
def test_teams_need_equal_teams_of_two_or_more(teams, players):
    with pytest.raises(ValueError, match="teams"):
        Game(Rules.preset("house", teams=teams), players=players)


def test_teams_winner_takes_the_winning_team_scores_the_other_teams_hands():
    game, _ = play("rules: house teams=2\n" + TEAMS, "0 play R1")
    assert game.scores == [5 + 7, 0]  # the teammate's Wild does not count


def test_teams_penalty_each_team_adds_its_members_hands():
    game, _ = play("rules: house teams=2 scoring=penalty\n" + TEAMS, "0 play R1")
    assert game.scores == [50, 5 + 7]


# -- partner rotation ---------------------------------------------------------------------


@pytest.mark.parametrize("players", [4, 8])
def test_the_rotation_pairs_everyone_with_everyone_four_rounds_each(players):
    rounds = schedule.schedule(players)
    assert len(rounds) == schedule.cycle_length(players) == {4: 12, 8: 28}[players]
    together: Counter[tuple[int, int]] = Counter()
    for tables in rounds:
        seats = [s for table in tables for pair in table for s in pair]
        assert sorted(seats) == list(range(players))
        assert len(tables) == players // 4
        together.update(pair for table in tables for pair in table)
    assert set(together) == set(itertools.combinations(range(players), 2))
    assert set(together.values()) == {4}


def test_partners_stay_four_rounds_in_a_row_and_the_first_block_sits_alternately():
    assert [schedule.partner_of(0, r) for r in range(1, 13)] == [2] * 4 + [1] * 4 + [3] * 4
    assert schedule.partner_of(0, 13) == 2  # the next cycle starts again


def test_table_seats_put_partners_opposite():
    for tables in schedule.schedule(8):
        for table in tables:
            seats = schedule.table_seats(table)
            (a, b), (c, d) = table
            assert {seats[0], seats[2]} == {a, b} and {seats[1], seats[3]} == {c, d}


def test_partner_rotation_drives_the_teams_of_each_round():
    game = parse_position("rules: house partner_rotation=on\nround: 5\n" + TEAMS)
    assert [game.team_of(s) for s in range(4)] == [0, 0, 1, 1]
    game.apply(parse_actions("0 play R1")[0])
    assert game.scores == [50 + 7, 50 + 7, 0, 0]  # per player: both partners score
    assert game.phase == "round_over"


def test_partner_rotation_ends_after_a_cycle_cumulative_scores_name_the_champion():
    game, _ = play("rules: house partner_rotation=on\nround: 12\nscores: 0 100 30 30\n" + TEAMS,
                   "0 play R1")
    # round 12: partners 0+3 and 1+2
    assert game.scores == [5 + 50, 100, 30, 30 + 5 + 50]
    assert game.phase == "match_over" and game.outcome().match_winner == 1


def test_partner_rotation_with_rounds_sets_the_match_length():
    game, _ = play("rules: house partner_rotation=on rounds=2\nround: 2\n" + TEAMS, "0 play R1")
    assert game.phase == "match_over"


def test_partner_rotation_needs_four_players_at_one_table():
    with pytest.raises(ValueError, match="two tables"):
        Game(Rules.preset("house", partner_rotation=True), players=8)
    with pytest.raises(ValueError, match="4 players"):
        Game(Rules.preset("house", partner_rotation=True), players=5)


def test_partner_rotation_plays_a_whole_cycle():
    game = Game(Rules.preset("house", partner_rotation=True, target_score=1), players=4, seed=1)
    for _ in range(20_000):
        if game.over:
            break
        seat = game.turn
        actions = game.legal_actions(seat)
        plays = [a for a in actions if type(a).__name__ in ("Play", "Deal", "ChooseColor")]
        game.apply((plays or actions)[0])
    assert game.over and game.round == 12


# -- the All Wild deck --------------------------------------------------------------------

AW = "rules: all-wild\n"


def test_the_all_wild_deck_has_112_cards_counted_in_one_table():
    deck = all_wild_deck()
    assert len(deck) == sum(ALL_WILD_COUNTS.values()) == 112
    assert Counter(c.kind for c in deck) == ALL_WILD_COUNTS
    assert all(c.is_wild and c.points == 50 for c in deck)


@pytest.mark.parametrize("seed", range(30))
def test_all_wild_the_first_card_is_a_plain_wild(seed):
    game = Game(Rules.preset("all-wild"), players=4, seed=seed)
    assert game.top.kind is Kind.WILD and game.phase == "play"
    assert game.turn == game.next_seat(game.dealer)


def test_all_wild_any_card_plays_on_any_and_one_card_per_play():
    game = parse_position(AW + "hand 0: WS W\nhand 1: W\ndiscard: WD2")
    assert legal(game, 0) == {"0 play WS", "0 play W", "0 draw"}
    refused(game, "0 play W R", "bad_play", "the All Wild deck has no colors to name")


def test_all_wild_skip_two_skips_two_and_acts_as_a_skip_with_two_players():
    game, _ = play(AW + "hand 0: WS2 W\nhand 1: W\nhand 2: W\nhand 3: W\ndiscard: W", "0 play WS2")
    assert game.turn == 3
    game, _ = play(AW + "hand 0: WS2 W\nhand 1: W\ndiscard: W", "0 play WS2")
    assert game.turn == 0


def test_all_wild_targeted_draw_two_the_named_player_draws_and_the_turn_passes_normally():
    game, _ = play(AW + "hand 0: WT2 W\nhand 1: W\nhand 2: W\nhand 3: W\n" + DRAW + "discard: W",
                   "0 play WT2 @2")
    assert counts(game) == [1, 1, 3, 1] and game.turn == 1
    game = parse_position(AW + "hand 0: WT2 W\nhand 1: W\ndiscard: W")
    refused(game, "0 play WT2", "bad_target", "WT2 needs a target seat")


def test_all_wild_forced_swap_swaps_whole_hands():
    game, _ = play(AW + "hand 0: WX W W\nhand 1: W\nhand 2: WS WS WS WS\n" + DRAW + "discard: W",
                   "0 play WX @2")
    assert [[c.text for c in h] for h in game.hands] == [["WS"] * 4, ["W"], ["W", "W"]]
    assert game.turn == 1


def test_a_forced_swap_that_leaves_someone_on_one_card_uncalled_can_be_caught():
    game, _ = play(AW + "hand 0: WX W\nhand 1: W W\nhand 2: WS WS WS\n" + DRAW + "discard: W",
                   "0 play WX @2")
    assert counts(game) == [3, 2, 1] and 2 in game.catchable
    game.apply(parse_actions("1 catch 2")[0])
    assert counts(game)[2] == 3


def test_a_forced_swap_with_uno_called_the_hand_stays_called():
    game, _ = play(AW + "hand 0: WX W\nhand 1: W W\nhand 2: WS WS WS\n" + DRAW + "discard: W",
                   "0 play WX @2 uno")
    assert game.called[2] and not game.called[0]
    refused(game, "1 catch 2", "cannot_catch")


@pytest.mark.parametrize(("card", "turn", "direction", "drawn"), [
    ("WR", 3, -1, 0), ("WS", 2, 1, 0), ("WD2", 2, 1, 2), ("W4", 2, 1, 4), ("W", 1, 1, 0),
])
def test_all_wild_kinds(card, turn, direction, drawn):
    game, _ = play(AW + f"hand 0: {card} W\nhand 1: W\nhand 2: W\nhand 3: W\n" + DRAW + "discard: W",
                   f"0 play {card}")
    assert (game.turn, game.direction, counts(game)[1] - 1) == (turn, direction, drawn)


def test_all_wild_has_no_challenge():
    game = parse_position("rules: all-wild challenge=on stacking=progressive\nhand 0: W\n"
                          "hand 1: W W\ndiscard: W4\npending: 4\nchallengeable: 0 bluff\nturn: 1")
    assert "1 challenge" not in legal(game, 1)
    refused(game, "1 challenge", "cannot_challenge")


def test_all_wild_forced_swap_as_the_last_card_ends_the_round_with_no_swap():
    game, events = play(AW + "hand 0: WX\nhand 1: W W\n" + DRAW + "discard: W", "0 play WX")
    assert game.phase == "round_over" and not any(e.kind == "swapped" for e in events)


def test_mercy_a_penalty_owed_by_a_knocked_out_player_lapses():
    game, _ = play("rules: house mercy_limit=8 hand_size=5 misplay_penalty=on\n"
                   "hand 0: G7 R1 R2 R3 R4 R5\nhand 1: B1 B2\nhand 2: Y1 Y2\n" + DRAW
                   + "discard: BD2\npending: 2\nturn: 0", "0 play G7")
    assert game.out[0] and game.turn == 1 and game.pending == 0
    assert legal(game, 1) >= {"1 draw"} and game.phase == "play"


def test_elimination_going_out_on_a_draw_two_the_next_player_still_owes_it():
    game, _ = play("rules: house elimination=on\nhand 0: RD2\nhand 1: B1 B2\nhand 2: Y1 Y2\n" + DRAW
                   + "discard: R5", "0 play RD2")
    assert game.out[0] and game.turn == 1 and game.pending == 2  # may stack or draw
    game.apply(parse_actions("1 draw")[0])
    assert counts(game)[1] == 4 and game.turn == 2


def test_all_wild_with_no_plain_wild_left_to_turn_up_the_top_card_is_taken():
    # Every plain Wild is in the hands: the dealer turns up the top card of the draw pile,
    # a Wild Skip, which then has no effect.
    game = parse_position("rules: all-wild\nhand 0: W W W\nhand 1: W W W\ndraw: WS WD2 WR\n"
                          "phase: dealt\ndealer: 1")
    game.apply(Deal(1))
    assert game.top is Card.parse("WS") and game.phase == "play" and len(game.draw_pile) == 2
    assert game.turn == game.next_seat(game.dealer)  # no effect: the first player starts
