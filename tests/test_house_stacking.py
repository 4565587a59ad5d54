"""Penalty stacking and its companions: `stacking`, `strict_after_penalty`, `deflect`,
`pair_beats_wd4` (RULES.md, "Stacking penalties"). Each test is a position plus actions.

Positions list the draw pile top first and the discard pile bottom first, top last.
"""

from __future__ import annotations

import pytest
from scenario import DRAW, counts, play, refused
from unolan.engine import parse_actions, parse_position

# -- stacking=off -----------------------------------------------------------------------


def test_stacking_off_the_target_draws_at_once_and_loses_the_turn():
    game, _ = play("rules: official\nhand 0: RD2 R1\nhand 1: GD2 B1\nhand 2: Y1 Y2\n" + DRAW
                   + "discard: R5", "0 play RD2")
    assert counts(game) == [1, 4, 2]
    assert game.turn == 2 and game.pending == 0
    assert game.served


def test_stacking_off_a_draw_two_cannot_answer_a_pending_one():
    game = parse_position("rules: house stacking=off deflect=on\nhand 0: R1\nhand 1: GD2 B1\n"
                          "discard: RD2\npending: 2\nturn: 1")
    assert "draw it" in refused(game, "1 play GD2", "misplay").reason


# -- stacking=progressive (house) -------------------------------------------------------


def test_progressive_three_draw_twos_in_a_row_the_fourth_player_draws_six():
    game, _ = play("rules: house\nhand 0: RD2 R1\nhand 1: GD2 G1\nhand 2: BD2 B1\nhand 3: Y1\n"
                   + DRAW + "discard: R5", "0 play RD2; 1 play GD2; 2 play BD2; 3 draw")
    assert counts(game) == [1, 1, 1, 7]
    assert game.turn == 0 and game.pending == 0


def test_progressive_a_wild_draw_four_goes_on_a_draw_two():
    game, _ = play("rules: house\nhand 0: W4 R1\nhand 1: G1\nhand 2: B1\n" + DRAW
                   + "discard: RD2\npending: 2\nturn: 0", "0 play W4 G")
    assert game.turn == 1 and game.pending == 6 and game.stack == 2


def test_progressive_a_draw_two_may_not_go_on_a_wild_draw_four():
    game = parse_position("rules: house\nhand 0: R1\nhand 1: GD2 G1\ndiscard: W4\ncolor: G\n"
                          "pending: 4\nturn: 1")
    assert "Wild Draw Four" in refused(game, "1 play GD2", "misplay").reason


def test_a_wild_may_not_be_played_while_a_penalty_is_pending():
    game = parse_position("rules: house stacking=mixed\nhand 0: R1\nhand 1: W G1\n"
                          "discard: RD2\npending: 2\nturn: 1")
    refused(game, "1 play W R", "misplay", "only a penalty card may answer it")
    assert {str(a) for a in game.legal_actions(1)} == {"1 draw"}


def test_after_a_served_penalty_the_top_card_is_ordinary_again():
    # A Draw Two of another color matches by symbol and starts a new penalty.
    game, _ = play("rules: house\nhand 0: GD2 G1\nhand 1: B1 B2\nhand 2: Y1\n" + DRAW
                   + "discard: RD2\nserved: yes", "0 play GD2")
    assert game.turn == 1 and game.pending == 2 and not game.served
    # After a served Wild Draw Four the named color matches.
    game, _ = play("rules: house\nhand 0: G7 R1\nhand 1: B1\n" + DRAW
                   + "discard: W4\ncolor: G\nserved: yes", "0 play G7")
    assert game.top.text == "G7" and game.turn == 1


def test_served_draw_two_is_not_stacked_on_by_the_next_player():
    game, _ = play("rules: house\nhand 0: RD2 R1\nhand 1: B1 B2\nhand 2: GD2 Y1\n" + DRAW
                   + "discard: R5", "0 play RD2; 1 draw")
    assert game.turn == 2 and game.pending == 0
    game.apply(parse_actions("2 play GD2")[0])  # a new penalty, not a stack of 4
    assert game.pending == 2 and game.turn == 0


# -- stacking=same ----------------------------------------------------------------------


def test_same_like_on_like_only():
    base = "rules: house stacking=same\nhand 0: R1\nhand 1: GD2 W4 G1\nhand 2: B1\n" + DRAW
    game, _ = play(base + "discard: RD2\npending: 2\nturn: 1", "1 play GD2")
    assert game.pending == 4 and game.turn == 2
    game = parse_position(base + "discard: RD2\npending: 2\nturn: 1")
    assert "stacking=same" in refused(game, "1 play W4 G", "misplay").reason
    game, _ = play(base + "discard: W4\ncolor: G\npending: 4\nturn: 1", "1 play W4 R")
    assert game.pending == 8 and game.turn == 2
    game = parse_position(base + "discard: W4\ncolor: G\npending: 4\nturn: 1")
    refused(game, "1 play GD2", "misplay", "only a Wild Draw Four answers a Wild Draw Four")


# -- stacking=mixed ---------------------------------------------------------------------


def test_mixed_a_draw_two_on_a_wild_draw_four_must_be_of_the_named_color():
    base = "rules: house stacking=mixed\nhand 0: R1\nhand 1: GD2 RD2 G1\nhand 2: B1\n" + DRAW
    game = parse_position(base + "discard: W4\ncolor: G\npending: 4\nturn: 1")
    assert "must be green" in refused(game, "1 play RD2", "misplay").reason
    game.apply(parse_actions("1 play GD2")[0])
    assert game.pending == 6 and game.turn == 2


def test_mixed_any_penalty_on_any():
    game, _ = play("rules: house stacking=mixed\nhand 0: R1\nhand 1: W4 G1\nhand 2: B1\n" + DRAW
                   + "discard: RD2\npending: 2\nturn: 1", "1 play W4 B")
    assert game.pending == 6


# -- stacking with two players ----------------------------------------------------------


def test_stacking_with_two_players_the_turn_returns_to_the_one_who_did_not_draw():
    game, _ = play("rules: house\nhand 0: RD2 R1\nhand 1: GD2 G1\n" + DRAW + "discard: R5",
                   "0 play RD2; 1 play GD2")
    assert game.turn == 0 and game.pending == 4
    game.apply(parse_actions("0 draw")[0])
    assert counts(game) == [5, 1] and game.turn == 1


# -- multi-play stacking ----------------------------------------------------------------


def test_two_draw_twos_played_together_on_a_pending_penalty_add_four():
    game, _ = play("rules: house\nhand 0: R1\nhand 1: GD2 BD2 G1\nhand 2: B1\n" + DRAW
                   + "discard: RD2\npending: 2\nturn: 1", "1 play GD2 BD2 G")
    assert game.pending == 6 and game.stack == 3 and game.color.value == "G"


def test_pair_single_effect_two_draw_twos_add_two():
    game, _ = play("rules: house pair_single_effect=on\nhand 0: RD2 GD2 R1\nhand 1: B1\n"
                   "hand 2: Y1\n" + DRAW + "discard: R5", "0 play RD2 GD2")
    assert game.pending == 2 and game.turn == 1


# -- strict_after_penalty ---------------------------------------------------------------


@pytest.mark.parametrize(("strict", "card", "ok"), [
    ("off", "R5", True), ("off", "GD2", True), ("off", "W G", True),
    ("on", "R5", True), ("on", "RS", True), ("on", "GD2", False), ("on", "W G", False),
])
def test_strict_after_penalty_only_the_same_color_follows(strict, card, ok):
    game = parse_position(f"rules: house strict_after_penalty={strict}\nhand 0: R5 RS GD2 W G1\n"
                          "hand 1: B1\nhand 2: Y1\n" + DRAW + "discard: RD2\nserved: yes")
    if ok:
        game.apply(parse_actions(f"0 play {card}")[0])
        assert game.top.text == card.split()[0]
    else:
        refused(game, f"0 play {card}", "misplay", "does not match RD2")


def test_strict_after_a_wild_draw_four_only_the_named_color():
    game = parse_position("rules: house strict_after_penalty=on\nhand 0: G5 W\nhand 1: B1\n"
                          "discard: W4\ncolor: G\nserved: yes")
    assert {str(a) for a in game.legal_actions(0)} == {"0 play G5", "0 play G5 uno", "0 draw"}


# -- deflect ----------------------------------------------------------------------------

DEFLECT = "rules: house deflect=on\nhand 0: R1 R2\nhand 1: RS RR GS G1\nhand 2: B1 B2\nhand 3: Y1 Y2\n"


def test_deflect_with_a_skip_the_player_after_is_skipped_and_the_next_owes():
    game, events = play(DEFLECT + DRAW + "discard: RD2\npending: 2\nturn: 1", "1 play RS")
    assert game.turn == 3 and game.pending == 2
    assert [e.data["seat"] for e in events if e.kind == "skipped"] == [2]
    game.apply(parse_actions("3 draw")[0])
    assert counts(game) == [2, 3, 2, 4] and game.turn == 0


def test_deflect_with_a_reverse_the_player_of_the_draw_two_owes_it():
    game, _ = play(DEFLECT + DRAW + "discard: RD2\npending: 2\nturn: 1", "1 play RR")
    assert game.direction == -1 and game.turn == 0 and game.pending == 2


def test_deflect_needs_the_draw_twos_color():
    game = parse_position(DEFLECT + "discard: RD2\npending: 2\nturn: 1")
    refused(game, "1 play GS", "misplay", "only a penalty card may answer it")


def test_deflect_is_off_by_default():
    game = parse_position(DEFLECT.replace(" deflect=on", "") + "discard: RD2\npending: 2\nturn: 1")
    refused(game, "1 play RS", "misplay", "only a penalty card may answer it")


def test_deflect_works_without_stacking():
    game, _ = play("rules: official deflect=on\nhand 0: RD2 R1\nhand 1: RS G1\nhand 2: B1 B2\n"
                   + DRAW + "discard: R5", "0 play RD2")
    assert game.turn == 1 and game.pending == 2  # not served: seat 1 may deflect
    game.apply(parse_actions("1 play RS")[0])
    assert game.turn == 0 and game.pending == 2  # seat 2 skipped; seat 0 owes it


def test_deflect_a_stacked_penalty_passes_the_whole_sum():
    game, _ = play(DEFLECT + DRAW + "discard: RD2 GD2\ncolor: G\npending: 4\nstack: 2\nturn: 1",
                   "1 play GS")
    assert game.turn == 3 and game.pending == 4


def test_a_deflected_penalty_may_be_deflected_or_stacked_again():
    game, _ = play("rules: house deflect=on\nhand 0: R1\nhand 1: RS G1\nhand 2: B1\n"
                   "hand 3: RR BD2 Y1\n" + DRAW + "discard: RD2\npending: 2\nturn: 1", "1 play RS")
    assert game.turn == 3
    legal = {str(a) for a in game.legal_actions(3)}
    assert {"3 play RR", "3 play BD2", "3 draw"} <= legal
    game.apply(parse_actions("3 play RR")[0])  # reverses: seat 2 owes it now
    assert game.turn == 2 and game.pending == 2 and game.direction == -1


@pytest.mark.parametrize("card", ["RS", "RR"])
def test_deflect_with_two_players_sends_it_back(card):
    game, _ = play("rules: house deflect=on\nhand 0: R1 R2\nhand 1: RS RR G1\n" + DRAW
                   + "discard: RD2\npending: 2\nturn: 1", f"1 play {card}")
    assert game.turn == 0 and game.pending == 2


# -- pair_beats_wd4 ---------------------------------------------------------------------

PAIR = "hand 0: R1\nhand 1: GD2 GD2 RD2 RD2 G1\nhand 2: B1\n" + DRAW


def test_a_pair_of_draw_twos_of_the_named_color_goes_on_a_wild_draw_four():
    game, _ = play("rules: house pair_beats_wd4=on\n" + PAIR
                   + "discard: W4\ncolor: G\npending: 4\nturn: 1", "1 play GD2 GD2")
    assert game.pending == 8 and game.turn == 2 and game.pair


def test_a_pair_of_another_color_does_not():
    game = parse_position("rules: house pair_beats_wd4=on\n" + PAIR
                          + "discard: W4\ncolor: G\npending: 4\nturn: 1")
    assert "must be green" in refused(game, "1 play RD2 RD2", "misplay").reason
    refused(game, "1 play GD2", "misplay", "only a Wild Draw Four")  # a single one: progressive stacking refuses it


def test_without_pair_beats_wd4_a_pair_does_not_answer_a_wild_draw_four():
    game = parse_position("rules: house\n" + PAIR + "discard: W4\ncolor: G\npending: 4\nturn: 1")
    refused(game, "1 play GD2 GD2", "misplay", "only a Wild Draw Four answers a Wild Draw Four")


def test_pair_beats_wd4_works_without_stacking_or_multi_play():
    game, _ = play("rules: official pair_beats_wd4=on\n" + PAIR.replace("hand 0: R1", "hand 0: W4 R1")
                   + "discard: R5", "0 play W4 G")
    assert game.turn == 1 and game.pending == 4  # not served: seat 1 may answer with a pair
    assert "1 play GD2 GD2 G" in {str(a) for a in game.legal_actions(1)}
    game.apply(parse_actions("1 play GD2 GD2")[0])
    assert counts(game)[2] == 9 and game.turn == 0  # no stacking: seat 2 draws the 8 at once


def test_a_single_draw_two_may_not_go_on_a_pair_but_a_wild_draw_four_may():
    base = "rules: house pair_beats_wd4=on\nhand 0: R1\nhand 1: BD2 W4 G1\nhand 2: B1\n" + DRAW
    game = parse_position(base + "discard: RD2 GD2\ncolor: G\npending: 4\nstack: 2\npair: yes\nturn: 1")
    assert "single Draw Two" in refused(game, "1 play BD2", "misplay").reason
    game.apply(parse_actions("1 play W4 B")[0])
    assert game.pending == 8 and not game.pair


# -- the challenge and stacking -----------------------------------------------------------


def test_no_challenge_on_a_stacked_wild_draw_four():
    game, _ = play("rules: house\nhand 0: W4 R1 R2\nhand 1: W4 G1 G2\nhand 2: B1 B2\n" + DRAW
                   + "discard: R5", "0 play W4 G")
    assert "1 challenge" in {str(a) for a in game.legal_actions(1)}
    game.apply(parse_actions("1 play W4 B")[0])
    assert game.pending == 8
    assert "2 challenge" not in {str(a) for a in game.legal_actions(2)}
    refused(game, "2 challenge", "cannot_challenge")


def test_all_wild_draw_twos_stack_when_stacking_is_set_on_the_all_wild_preset():
    game, _ = play("rules: all-wild stacking=progressive\nhand 0: WD2 W\nhand 1: WD2 W\nhand 2: W W\n"
                   + DRAW + "discard: W", "0 play WD2; 1 play WD2; 2 draw")
    assert counts(game) == [1, 1, 6] and game.turn == 0
