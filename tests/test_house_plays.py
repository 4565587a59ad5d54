"""House rules about what may be played and when: `multi_play`, `pair_single_effect`,
`jump_in`, `seven_zero`, `misplay_penalty`, `false_uno_penalty`, `last_card_no_action`,
`draw_until_playable`, `drawn_action_stays`, `forced_play`, `wd4_rule`, `challenge`
(RULES.md). Each test is a position plus actions in the notation.
"""

from __future__ import annotations

import pytest
from scenario import DRAW, counts, legal, play, refused
from unolan.engine import parse_actions, parse_position

FOUR = "hand 1: B1 B2\nhand 2: Y1 Y2\nhand 3: G1 G2\n" + DRAW


# -- multi_play ---------------------------------------------------------------------------


def test_multi_play_cards_of_one_number_go_down_in_order_and_the_player_names_the_color():
    game, events = play("rules: house\nhand 0: R5 G5 B5 Y9\n" + FOUR + "discard: R3",
                        "0 play R5 G5 B5 G")
    assert [c.text for c in game.discard] == ["R3", "R5", "G5", "B5"]
    assert game.color.value == "G" and game.turn == 1
    assert events[0].data["cards"] == ["R5", "G5", "B5"]


def test_multi_play_the_color_defaults_to_the_last_card_and_must_be_among_the_cards():
    game, _ = play("rules: house\nhand 0: R5 G5 Y9\n" + FOUR + "discard: R3", "0 play R5 G5")
    assert game.color.value == "G"
    game = parse_position("rules: house\nhand 0: R5 G5 Y9\n" + FOUR + "discard: R3")
    refused(game, "0 play R5 G5 B", "bad_play", "not a color of the cards played")


def test_multi_play_the_first_card_must_be_playable():
    game = parse_position("rules: house\nhand 0: G5 R5 Y9\n" + FOUR + "discard: R3")
    refused(game, "0 play G5 R5", "misplay", "G5 does not match R3")


@pytest.mark.parametrize(("cards", "reason"), [("R5 W", "wild cards cannot be played together"),
                                              ("R5 R6", "must share a number or symbol"),
                                              ("W W", "wild cards cannot be played together")])
def test_multi_play_only_colored_cards_of_one_number_or_symbol(cards, reason):
    game = parse_position("rules: house\nhand 0: R5 R6 W W Y9\n" + FOUR + "discard: R3")
    refused(game, f"0 play {cards} R", "misplay", reason)


def test_multi_play_is_off_in_official():
    game = parse_position("rules: official\nhand 0: R5 G5 Y9\n" + FOUR + "discard: R3")
    refused(game, "0 play R5 G5", "bad_play", "playing several cards at once is off")
    assert not any(" G5" in a for a in legal(game, 0) if "R5" in a)


def test_two_skips_skip_two_players():
    game, events = play("rules: house\nhand 0: RS GS Y9\n" + FOUR + "discard: R3", "0 play RS GS")
    assert [e.data["seat"] for e in events if e.kind == "skipped"] == [1, 2]
    assert game.turn == 3


def test_two_reverses_cancel():
    game, _ = play("rules: house\nhand 0: RR GR Y9\n" + FOUR + "discard: R3", "0 play RR GR")
    assert game.direction == 1 and game.turn == 1


def test_three_reverses_reverse():
    game, _ = play("rules: house\nhand 0: RR GR BR Y9\n" + FOUR + "discard: R3", "0 play RR GR BR")
    assert game.direction == -1 and game.turn == 3


def test_two_draw_twos_make_the_next_player_owe_four():
    game, _ = play("rules: official multi_play=on\nhand 0: RD2 GD2 Y9\n" + FOUR + "discard: R3",
                   "0 play RD2 GD2")
    assert counts(game)[1] == 6 and game.turn == 2


@pytest.mark.parametrize(("cards", "turn", "direction"), [
    ("RS GS", 2, 1),  # the pair skips one player
    ("RR GR", 3, -1),  # the pair reverses once
])
def test_pair_single_effect_the_cards_act_once(cards, turn, direction):
    game, _ = play("rules: house pair_single_effect=on\nhand 0: RS GS RR GR Y9\n" + FOUR
                   + "discard: R3", f"0 play {cards}")
    assert (game.turn, game.direction) == (turn, direction)


def test_skips_never_skip_the_player_who_played_them():
    # Three players, three Skips: both others are skipped and the player goes again.
    game, events = play("rules: house\nhand 0: RS GS BS Y9\nhand 1: B1\nhand 2: Y1\n" + DRAW
                        + "discard: R3", "0 play RS GS BS")
    assert game.turn == 0
    assert [e.data["seat"] for e in events if e.kind == "skipped"] == [1, 2]


def test_multi_play_is_never_in_the_all_wild_deck():
    game = parse_position("rules: all-wild multi_play=on\nhand 0: W W WS\nhand 1: W\ndiscard: W")
    refused(game, "0 play W W", "bad_play", "playing several cards at once is off")


# -- jump_in ------------------------------------------------------------------------------


def test_jump_in_with_an_identical_card_play_continues_from_the_jumper():
    game, events = play("rules: house\nhand 0: R1\nhand 1: B1 B2\nhand 2: R5 Y2\nhand 3: G1 G2\n"
                        + DRAW + "discard: R5\nturn: 1", "2 play R5")
    assert game.turn == 3 and counts(game) == [1, 2, 1, 2]
    assert events[0].data["jump_in"] is True


def test_jump_in_needs_the_same_color_and_symbol():
    game = parse_position("rules: house\nhand 0: R1\nhand 1: B1\nhand 2: G5 Y2\nhand 3: G1\n"
                          "discard: R5\nturn: 1")
    refused(game, "2 play G5", "misplay", "a jump-in needs a card identical to R5")


def test_jump_in_is_off_in_official():
    game = parse_position("rules: official\nhand 0: R1\nhand 1: B1\nhand 2: R5 Y2\nhand 3: G1\n"
                          "discard: R5\nturn: 1")
    assert "it is seat 1's turn" in refused(game, "2 play R5", "not_your_turn").reason
    assert "2 play R5" not in legal(game, 2)


def test_no_jump_in_on_a_wild():
    game = parse_position("rules: house\nhand 0: R1\nhand 1: B1\nhand 2: W Y2\nhand 3: G1\n"
                          "discard: W\ncolor: R\nturn: 1")
    refused(game, "2 play W R", "misplay", "no jump-in on a wild card")


def test_a_jumped_in_skip_skips_the_player_after_the_jumper():
    game, _ = play("rules: house\nhand 0: R1\nhand 1: B1 B2\nhand 2: RS Y2\nhand 3: G1 G2\n"
                   + DRAW + "discard: RS\nturn: 3", "2 play RS")
    assert game.turn == 0


def test_no_jump_in_while_a_penalty_is_pending():
    game = parse_position("rules: house\nhand 0: R1\nhand 1: B1\nhand 2: RD2 Y2\nhand 3: G1\n"
                          "discard: RD2\npending: 2\nturn: 3")
    refused(game, "2 play RD2", "misplay", "no jump-in while a penalty is pending")


def test_jump_in_on_a_served_draw_two_the_player_after_the_jumper_draws_two():
    game, _ = play("rules: house stacking=off\nhand 0: R1 R2\nhand 1: B1 B2\nhand 2: RD2 Y2\n"
                   "hand 3: G1 G2\n" + DRAW + "discard: R4 RD2\nserved: yes\nturn: 1", "2 play RD2")
    assert counts(game) == [2, 2, 1, 4] and game.turn == 0


def test_jump_in_during_a_multi_play_on_its_top_card():
    # Seat 0 plays R5 G5 (green on top); seat 2 holds the other G5 and jumps in.
    game, _ = play("rules: house\nhand 0: R5 G5 Y9\nhand 1: B1 B2\nhand 2: G5 Y2\nhand 3: G1 G2\n"
                   + DRAW + "discard: R3", "0 play R5 G5; 2 play G5")
    assert game.turn == 3 and game.top.text == "G5"


def test_a_jump_in_may_itself_be_a_multi_play():
    game, _ = play("rules: house\nhand 0: R1\nhand 1: B1 B2\nhand 2: R5 B5 Y2\nhand 3: G1 G2\n"
                   + DRAW + "discard: R5\nturn: 1", "2 play R5 B5 B")
    assert game.color.value == "B" and game.turn == 3
    # ... but its first card must be the identical one.
    game = parse_position("rules: house\nhand 0: R1\nhand 1: B1\nhand 2: R5 B5 Y2\nhand 3: G1\n"
                          "discard: R5\nturn: 1")
    refused(game, "2 play B5 R5", "misplay", "a jump-in needs a card identical to R5")


def test_jump_in_while_the_player_in_turn_holds_a_drawn_card():
    game, _ = play("rules: house\nhand 0: R1\nhand 1: B1 R7\nhand 2: R5 Y2\nhand 3: G1\n" + DRAW
                   + "discard: R5\nturn: 1\nphase: drawn\ndrawn: R7", "2 play R5")
    assert game.turn == 3 and game.phase == "play" and game.drawn is None


def test_a_late_play_after_a_jump_in_is_refused():
    game, _ = play("rules: house\nhand 0: R1\nhand 1: R6 B2\nhand 2: R5 Y2\nhand 3: G1 G2\n"
                   + DRAW + "discard: R5\nturn: 1", "2 play R5")
    refused(game, "1 play R6", "misplay", "a jump-in needs")  # seat 1's turn was taken: out of turn


# -- seven_zero ---------------------------------------------------------------------------

SZ = "rules: house seven_zero=on\n"


def test_a_seven_swaps_hands_with_a_named_player():
    game, _ = play(SZ + "hand 0: R7 R1 R2\nhand 1: B1\nhand 2: Y1 Y2 Y3 Y4\n" + DRAW + "discard: R3",
                   "0 play R7 @2")
    assert [[c.text for c in h] for h in game.hands] == [["Y1", "Y2", "Y3", "Y4"], ["B1"], ["R1", "R2"]]
    assert game.turn == 1


def test_a_seven_needs_a_target_and_takes_no_self_target():
    """A target that does not fit is bad_target; one the table does not have, bad_seat."""
    game = parse_position(SZ + "hand 0: R7 R1 R2\nhand 1: B1\ndiscard: R3")
    refused(game, "0 play R7", "bad_target", "R7 needs a target seat")
    refused(game, "0 play R7 @0", "bad_target", "seat 0 cannot be the target")
    refused(game, "0 play R7 @5", "bad_seat", "there is no seat 5")
    refused(game, "0 play R1 @1", "bad_target", "R1 takes no target")


def test_a_zero_passes_every_hand_along_the_direction_of_play():
    game, _ = play(SZ + "hand 0: R0 R1\nhand 1: B1\nhand 2: Y1 Y2\nhand 3: G1 G2 G3\n" + DRAW
                   + "discard: R3", "0 play R0")
    assert [[c.text for c in h] for h in game.hands] == [["G1", "G2", "G3"], ["R1"], ["B1"], ["Y1", "Y2"]]
    game, _ = play(SZ + "hand 0: R0 R1\nhand 1: B1\nhand 2: Y1 Y2\nhand 3: G1 G2 G3\n" + DRAW
                   + "discard: R3\ndirection: ccw", "0 play R0")
    assert [[c.text for c in h] for h in game.hands] == [["B1"], ["Y1", "Y2"], ["G1", "G2", "G3"], ["R1"]]


def test_without_seven_zero_a_seven_is_a_number():
    game, _ = play("rules: house\nhand 0: R7 R1\nhand 1: B1\n" + DRAW + "discard: R3", "0 play R7")
    assert counts(game) == [1, 1]


@pytest.mark.parametrize("card", ["R7", "R0"])
def test_going_out_on_a_seven_or_zero_ends_the_round_with_no_swap(card):
    game, events = play(SZ + f"hand 0: {card}\nhand 1: B1 B2\nhand 2: Y1\n" + DRAW + "discard: R3",
                        f"0 play {card}")
    assert game.phase == "round_over" and game.outcome().winner == 0
    assert not any(e.kind in ("swapped", "rotated") for e in events)
    # the 7 may name a target out of habit; it still swaps nothing
    if card == "R7":
        game, events = play(SZ + "hand 0: R7\nhand 1: B1 B2\nhand 2: Y1\n" + DRAW + "discard: R3",
                            "0 play R7 @1")
        assert game.phase == "round_over" and not any(e.kind == "swapped" for e in events)


def test_a_called_hand_stays_called_when_swapped():
    # Seat 2 holds one card and has called; seat 0's 7 takes that hand: no one may catch seat 0.
    game, _ = play(SZ + "hand 0: R7 R1 R2\nhand 1: B1 B2\nhand 2: Y1\n" + DRAW
                   + "discard: R3\nuno: 2", "0 play R7 @2")
    assert game.called[0] and counts(game) == [1, 2, 2]
    assert "1 catch 0" not in legal(game, 1)


def test_an_uncalled_one_card_hand_can_be_caught_from_its_new_holder():
    game, _ = play(SZ + "hand 0: R7 R1 R2\nhand 1: B1 B2\nhand 2: Y1\n" + DRAW
                   + "discard: R3\ncatchable: 2", "0 play R7 @2")
    assert not game.called[0] and 0 in game.catchable
    game.apply(parse_actions("1 catch 0")[0])
    assert counts(game)[0] == 3


def test_the_new_holder_may_call_before_being_caught():
    game, _ = play(SZ + "hand 0: R7 R1 R2\nhand 1: B1 B2\nhand 2: Y1\n" + DRAW
                   + "discard: R3", "0 play R7 @2; 0 uno")
    assert game.called[0]
    refused(game, "1 catch 0", "cannot_catch")


# -- misplay_penalty ----------------------------------------------------------------------


def test_misplay_costs_two_cards_the_card_stays_and_the_turn_stays():
    game, events = play("rules: house misplay_penalty=on\nhand 0: G7 R1\nhand 1: B1\n" + DRAW
                        + "discard: R5", "0 play G7")
    assert counts(game) == [4, 1] and game.turn == 0
    assert "G7" in [c.text for c in game.hands[0]]
    assert events[0].kind == "misplay"


def test_without_misplay_penalty_an_illegal_play_is_refused():
    game = parse_position("rules: house\nhand 0: G7 R1\nhand 1: B1\n" + DRAW + "discard: R5")
    refused(game, "0 play G7", "misplay", "G7 does not match R5")


def test_a_failed_jump_in_costs_two_cards():
    game, _ = play("rules: house misplay_penalty=on\nhand 0: R1\nhand 1: B1\nhand 2: G5 Y2\n"
                   "hand 3: G1\n" + DRAW + "discard: R5\nturn: 1", "2 play G5")
    assert counts(game) == [1, 1, 4, 1] and game.turn == 1


def test_a_card_not_held_is_refused_not_penalised():
    game = parse_position("rules: house misplay_penalty=on\nhand 0: R1\nhand 1: B1\n" + DRAW
                          + "discard: R5")
    refused(game, "0 play R9", "bad_play", "you do not hold R9")


# -- UNO calls ----------------------------------------------------------------------------


def test_a_false_uno_call_costs_the_penalty_in_house():
    game, events = play("rules: house\nhand 0: R1 R2 R3\nhand 1: B1\n" + DRAW + "discard: R5",
                        "0 uno")
    assert counts(game)[0] == 5 and events[0].kind == "false_uno"


def test_a_false_uno_call_is_refused_in_official():
    game = parse_position("rules: official\nhand 0: R1 R2 R3\nhand 1: B1\n" + DRAW + "discard: R5")
    refused(game, "0 uno", "false_uno")


def test_uno_penalty_sets_the_cards_drawn_when_caught():
    game, _ = play("rules: house uno_penalty=4\nhand 0: R1 R2\nhand 1: B1 B2\n" + DRAW
                   + "discard: R5", "0 play R1; 1 catch 0")
    assert counts(game)[0] == 5


def test_the_catch_window_closes_when_the_next_player_plays():
    game, _ = play("rules: house\nhand 0: R1 R2\nhand 1: R7 B2\nhand 2: Y1 Y2\n" + DRAW
                   + "discard: R5", "0 play R1; 1 play R7")
    refused(game, "2 catch 0", "cannot_catch")


# -- last_card_no_action ------------------------------------------------------------------


@pytest.mark.parametrize("card", ["RS", "W R", "RD2"])
def test_last_card_no_action_the_player_must_draw_instead(card):
    game = parse_position(f"rules: house last_card_no_action=on\nhand 0: {card.split()[0]}\n"
                          "hand 1: B1\nhand 2: Y1\n" + DRAW + "discard: R5")
    refused(game, f"0 play {card}", "misplay", "you may not go out on an action or wild card")
    assert legal(game, 0) == {"0 draw"}


def test_last_card_no_action_a_number_may_go_out():
    game, _ = play("rules: house last_card_no_action=on\nhand 0: R7\nhand 1: B1\n" + DRAW
                   + "discard: R5", "0 play R7")
    assert game.phase == "round_over"


def test_last_card_no_action_applies_to_multi_play_and_jump_ins():
    game = parse_position("rules: house last_card_no_action=on\nhand 0: RS GS\nhand 1: B1\n"
                          "hand 2: Y1\n" + DRAW + "discard: R5")
    refused(game, "0 play RS GS", "misplay", "you may not go out on an action or wild card")
    game = parse_position("rules: house last_card_no_action=on\nhand 0: R1\nhand 1: B1\n"
                          "hand 2: RS\n" + DRAW + "discard: RS\nturn: 1")
    refused(game, "2 play RS", "misplay", "you may not go out on an action or wild card")
    assert not any("play" in a for a in legal(game, 2))


def test_last_card_no_action_off_an_action_may_go_out():
    game, _ = play("rules: house\nhand 0: RS\nhand 1: B1\nhand 2: Y1\n" + DRAW + "discard: R5",
                   "0 play RS")
    assert game.phase == "round_over"


# -- drawing ------------------------------------------------------------------------------


def test_a_playable_drawn_card_may_be_played_at_once_or_kept():
    base = "rules: official\nhand 0: B9\nhand 1: B1\ndraw: R7 G1\ndiscard: R5"
    game, _ = play(base, "0 draw")
    assert game.phase == "drawn" and legal(game, 0) == {"0 play R7", "0 pass"}
    game.apply(parse_actions("0 play R7")[0])
    assert game.turn == 1
    game, _ = play(base, "0 draw; 0 pass")
    assert game.turn == 1 and counts(game) == [2, 1]


def test_an_unplayable_drawn_card_ends_the_turn():
    game, _ = play("rules: official\nhand 0: B9\nhand 1: B1\ndraw: G1 R7\ndiscard: R5", "0 draw")
    assert game.turn == 1 and counts(game) == [2, 1]


def test_after_drawing_on_purpose_only_the_drawn_card_may_be_played():
    game, _ = play("rules: official\nhand 0: R9 B9\nhand 1: B1\ndraw: R7 G1\ndiscard: R5", "0 draw")
    refused(game, "0 play R9", "misplay", "after drawing you may play only R7")


def test_draw_until_playable_keeps_drawing():
    game, _ = play("rules: official draw_until_playable=on\nhand 0: B9\nhand 1: B1\n"
                   "draw: G1 G2 R7 G3\ndiscard: R5", "0 draw")
    assert counts(game)[0] == 4 and game.drawn.text == "R7" and game.phase == "drawn"
    game.apply(parse_actions("0 pass")[0])  # it may be kept
    assert game.turn == 1


def test_draw_until_playable_stops_when_the_pile_is_empty():
    game, _ = play("rules: official draw_until_playable=on\nhand 0: B9\nhand 1: B1\n"
                   "draw: G1 G2\ndiscard: R5", "0 draw")
    assert counts(game)[0] == 3 and game.turn == 1


@pytest.mark.parametrize(("drawn", "playable"), [("R7", True), ("RS", False), ("W", False)])
def test_drawn_action_stays(drawn, playable):
    game, _ = play(f"rules: official drawn_action_stays=on\nhand 0: B9\nhand 1: B1\ndraw: {drawn}\n"
                   "discard: R5", "0 draw")
    assert (game.phase == "drawn") is playable
    assert game.turn == (0 if playable else 1)


def test_forced_play_the_drawn_playable_card_must_be_played():
    game, _ = play("rules: official forced_play=on\nhand 0: B9\nhand 1: B1\ndraw: R7\n"
                   "discard: R5", "0 draw")
    refused(game, "0 pass", "forced_play")
    assert legal(game, 0) == {"0 play R7"}


# -- wd4_rule and the challenge -----------------------------------------------------------


@pytest.mark.parametrize(("rule", "hand", "guilty"), [
    ("color", "W4 R1 B9", True),  # holds red: the current color
    ("color", "W4 B5 B9", False),  # only the same number: allowed under `color`
    ("any_playable", "W4 B5 B9", True),  # but B5 could be played on R5
    ("any_playable", "W4 W B9", False),  # other wild cards never count
    ("color", "W4 W B9", False),
])
def test_wd4_rule_decides_a_challenge(rule, hand, guilty):
    game, events = play(f"rules: official wd4_rule={rule}\nhand 0: {hand}\nhand 1: G1 G2\n"
                        "hand 2: Y1\n" + DRAW + "discard: R5", "0 play W4 G; 1 challenge")
    (challenged,) = [e for e in events if e.kind == "challenged"]
    assert challenged.data["guilty"] is guilty
    if guilty:
        assert counts(game)[:2] == [6, 2] and game.turn == 1 and game.color.value == "G"
    else:
        assert counts(game)[:2] == [2, 8] and game.turn == 2


def test_a_bluff_is_allowed_without_a_challenge():
    game, _ = play("rules: official\nhand 0: W4 R1 R2\nhand 1: G1 G2\nhand 2: Y1\n" + DRAW
                   + "discard: R5", "0 play W4 G; 1 draw")
    assert counts(game)[:2] == [2, 6] and game.turn == 2


def test_the_challenged_hand_is_shown_to_the_challenger_only():
    _, events = play("rules: official\nhand 0: W4 R1 R2\nhand 1: G1 G2\nhand 2: Y1\n" + DRAW
                     + "discard: R5", "0 play W4 G; 1 challenge")
    (revealed,) = [e for e in events if e.kind == "revealed"]
    assert revealed.private_to == 1 and revealed.data["cards"] == ["R1", "R2"]
    assert [("cards" in revealed.data_for(s)) for s in (0, 1, 2, None)] == [False, True, False, False]


def test_challenge_off_the_penalty_is_drawn_at_once():
    game, _ = play("rules: official challenge=off\nhand 0: W4 R1 R2\nhand 1: G1 G2\nhand 2: Y1\n"
                   + DRAW + "discard: R5", "0 play W4 G")
    assert counts(game)[1] == 6 and game.turn == 2


def test_two_zeros_pass_the_hands_twice_and_two_sevens_swap_once():
    game, _ = play(SZ + "hand 0: R0 G0 R1\nhand 1: B1\nhand 2: Y1 Y2\nhand 3: G1 G2 G3\n" + DRAW
                   + "discard: R3", "0 play R0 G0")
    assert [[c.text for c in h] for h in game.hands] == [["Y1", "Y2"], ["G1", "G2", "G3"], ["R1"], ["B1"]]
    game, _ = play(SZ + "hand 0: R7 G7 R1\nhand 1: B1\nhand 2: Y1 Y2\n" + DRAW + "discard: R3",
                   "0 play R7 G7 @2")
    assert [[c.text for c in h] for h in game.hands] == [["Y1", "Y2"], ["B1"], ["R1"]]


def test_a_zero_passes_hands_only_among_players_still_in_the_round():
    game, _ = play(SZ.replace("on\n", "on elimination=on\n") + "hand 0: R0 R1\nhand 1: -\n"
                   "hand 2: Y1 Y2\nhand 3: G1 G2 G3\n" + DRAW + "discard: R3\nout: 1\nfinished: 1",
                   "0 play R0")
    assert [[c.text for c in h] for h in game.hands] == [["G1", "G2", "G3"], [], ["R1"], ["Y1", "Y2"]]


def test_draw_until_playable_with_drawn_action_stays_draws_until_a_card_it_may_play():
    game, _ = play("rules: official draw_until_playable=on drawn_action_stays=on\nhand 0: B9\n"
                   "hand 1: B1\ndraw: G1 RS W R7 G3\ndiscard: R5", "0 draw")
    assert counts(game)[0] == 5 and game.drawn.text == "R7" and legal(game, 0) == {"0 play R7", "0 pass"}
