"""The rules of the ``official`` preset, each as a position plus actions in the notation.

Positions list the draw pile top first; the discard pile bottom first, top last.
"""

from __future__ import annotations

import pytest
import scenario
from scenario import play
from unolan.engine import Card, Deal, Event, Game, IllegalAction, Rules, parse_actions


def hands(game: Game) -> list[str]:
    return [" ".join(c.text for c in h) for h in game.hands]


def refused(game: Game, action: str, code: str, reason: str = "") -> IllegalAction:
    """Apply an action that must be refused with ``code``; check that nothing changed and
    that the refusal names the action."""
    error = scenario.refused(game, action, code, reason)
    (parsed,) = parse_actions(action)
    assert str(parsed) in str(error)
    return error


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


OFFICIAL = "rules: official\n"


# -- matching -------------------------------------------------------------------


@pytest.mark.parametrize("card", ["R2", "G5", "W R", "W4 B"])
def test_a_card_matches_by_color_number_or_is_wild(card):
    game, _ = play(OFFICIAL + "hand 0: R2 G5 W W4 G7 G7\nhand 1: B1\ndiscard: R5", f"0 play {card}")
    assert game.top.text == card.split()[0]
    assert game.turn == 1


def test_a_card_matches_by_symbol():
    game, _ = play(OFFICIAL + "hand 0: GS G1\nhand 1: B1 B2\nhand 2: B3\ndiscard: RS", "0 play GS")
    assert game.color.value == "G"
    assert game.turn == 2  # the skip acts


def test_a_card_of_another_color_and_number_is_refused():
    game, _ = play(OFFICIAL + "hand 0: G7 G1\nhand 1: B1\ndiscard: R5")
    error = refused(game, "0 play G7", "misplay")
    assert "does not match" in error.reason
    refused(game, "0 play GS", "bad_play")  # not held
    game, _ = play(OFFICIAL + "hand 0: G7 G1\nhand 1: B1\ndiscard: RS")
    refused(game, "0 play G7", "misplay", "G7 does not match RS")  # a number does not match a symbol


def test_after_a_wild_only_the_named_color_or_a_wild_matches():
    game, _ = play(OFFICIAL + "hand 0: R5 G5 W\nhand 1: B1\ndiscard: R5 W\ncolor: G")
    refused(game, "0 play R5", "misplay", "R5 does not match W on green")
    assert {str(a) for a in game.legal_actions(0)} >= {"0 play G5", "0 play W R"}


def test_a_wild_names_the_next_color():
    game, events = play(OFFICIAL + "hand 0: W R1\nhand 1: B1 G2\ndiscard: R5", "0 play W B")
    assert game.color.value == "B"
    assert events[0].data == {"seat": 0, "cards": ["W"], "color": "B", "target": None,
                              "jump_in": False}
    refused(game, "1 play G2", "misplay", "G2 does not match W on blue")
    game, _ = play(OFFICIAL + "hand 0: W R1\nhand 1: B1\ndiscard: R5")
    refused(game, "0 play W", "bad_play")  # a wild needs a color
    refused(game, "0 play R1 G", "bad_play")  # a colored card names no other color


# -- Wild Draw Four and the challenge ------------------------------------------------


def test_wild_draw_four_without_the_current_color_is_fair():
    game, _events = play(OFFICIAL + "hand 0: W4 G5 B1\nhand 1: Y1\nhand 2: Y2\n"
                        "draw: R1 R2 R3 R4 R6 R7\ndiscard: R5", "0 play W4 B")
    assert game.pending == 4 and game.turn == 1
    assert "challengeable: 0 fair" in game.position()
    game.apply(parse_actions("1 draw")[0])
    assert hands(game)[1] == "Y1 R1 R2 R3 R4"
    assert game.turn == 2 and game.color.value == "B"


def test_wild_draw_four_can_be_played_as_a_bluff():
    game, _ = play(OFFICIAL + "hand 0: W4 R1 B1\nhand 1: Y1\nhand 2: Y2\ndiscard: R5")
    assert "0 play W4 G" in {str(a) for a in game.legal_actions(0)}
    game.apply(parse_actions("0 play W4 G")[0])
    assert "challengeable: 0 bluff" in game.position()


def test_wild_draw_four_with_only_a_same_number_card_is_fair():
    game, _ = play(OFFICIAL + "hand 0: W4 G5 W\nhand 1: Y1\ndiscard: R5", "0 play W4 G")
    assert "challengeable: 0 fair" in game.position()


CHALLENGE = OFFICIAL + """hand 0: W4 R1 B1
hand 1: Y1 Y2
hand 2: Y3
draw: G1 G2 G3 G4 G6 G7 G8
discard: R5
"""


def test_a_guilty_challenge_makes_the_offender_draw_four_and_the_challenger_plays_on():
    game, events = play(CHALLENGE, "0 play W4 G; 1 challenge")
    assert hands(game)[0] == "R1 B1 G1 G2 G3 G4"
    assert hands(game)[1] == "Y1 Y2"
    assert game.turn == 1 and game.color.value == "G" and game.pending == 0
    challenged = next(e for e in events if e.kind == "challenged")
    assert challenged.data == {"seat": 1, "target": 0, "guilty": True}
    assert challenged.private_to is None
    revealed = next(e for e in events if e.kind == "revealed")
    assert revealed.data == {"seat": 0, "challenger": 1, "cards": ["R1", "B1"]}
    assert revealed.private_to == 1  # the hand is shown to the challenger only
    assert [challenged.data_for(s) == challenged.data for s in (0, 1, 2, None)] == [True] * 4
    assert [revealed.data_for(s) for s in (0, 1, 2, None)] == [
        {"seat": 0, "challenger": 1}, revealed.data, {"seat": 0, "challenger": 1}, {"seat": 0, "challenger": 1}]


def test_an_innocent_challenge_costs_the_challenger_six_and_the_turn():
    game, events = play(CHALLENGE.replace("W4 R1 B1", "W4 G1 B1"), "0 play W4 B; 1 challenge")
    assert hands(game)[1] == "Y1 Y2 G1 G2 G3 G4 G6 G7"
    assert hands(game)[0] == "G1 B1"
    assert game.turn == 2 and game.color.value == "B"
    assert next(e for e in events if e.kind == "challenged").data["guilty"] is False
    assert next(e for e in events if e.kind == "revealed").private_to == 1


def test_only_the_target_of_a_wild_draw_four_may_challenge_and_only_then():
    game, _ = play(CHALLENGE, "0 play W4 G")
    refused(game, "2 challenge", "not_your_turn")
    game, _ = play(CHALLENGE.replace("W4 R1 B1", "R1 B1"), "0 play R1")
    refused(game, "1 challenge", "cannot_challenge")


def test_no_challenge_under_the_option_off():
    game, _ = play(CHALLENGE.replace("official", "official challenge=off"), "0 play W4 G")
    assert hands(game)[1] == "Y1 Y2 G1 G2 G3 G4"
    assert game.turn == 2


# -- drawing ---------------------------------------------------------------------


DRAWING = OFFICIAL + "hand 0: G3 B4\nhand 1: Y1\nhand 2: Y2\ndraw: {drawn} R9\ndiscard: R5\n"


def test_a_drawn_playable_card_may_be_played_at_once():
    game, _events = play(DRAWING.format(drawn="R7"), "0 draw")
    assert game.phase == "drawn" and game.turn == 0
    assert sorted(map(str, game.legal_actions(0))) == ["0 pass", "0 play R7"]
    refused(game, "0 play G3", "misplay", "after drawing you may play only R7")
    refused(game, "0 draw", "wrong_phase")
    game.apply(parse_actions("0 play R7")[0])
    assert game.top.text == "R7" and game.turn == 1


def test_a_drawn_playable_card_may_be_kept():
    game, events = play(DRAWING.format(drawn="R7"), "0 draw; 0 pass")
    assert hands(game)[0] == "G3 B4 R7" and game.turn == 1
    assert "passed" in kinds(events)


def test_a_drawn_card_that_cannot_be_played_ends_the_turn():
    game, _events = play(DRAWING.format(drawn="G7"), "0 draw")
    assert hands(game)[0] == "G3 B4 G7" and game.turn == 1 and game.phase == "play"


def test_a_player_may_draw_while_holding_a_playable_card_then_play_only_the_drawn_card():
    game, _ = play(DRAWING.format(drawn="R7").replace("G3 B4", "R3 B4"), "0 draw")
    refused(game, "0 play R3", "misplay", "after drawing you may play only R7")
    game.apply(parse_actions("0 play R7")[0])
    assert hands(game)[0] == "R3 B4"


def test_the_drawn_card_events_show_the_card_to_the_drawer_only():
    _, events = play(DRAWING.format(drawn="R7"), "0 draw")
    (drew,) = [e for e in events if e.kind == "drew"]  # one event, its cards private
    assert drew.private_to == 0 and drew.data["cards"] == ["R7"]
    for seat in (1, 2, None):
        assert drew.data_for(seat) == {"seat": 0, "count": 1, "reason": "draw"}
    assert drew.data_for(0) == drew.data


# -- action cards ----------------------------------------------------------------------


ACTION_TABLE = OFFICIAL + "hand 0: {card} R1\nhand 1: Y1\nhand 2: Y2\nhand 3: Y3\ndraw: G1 G2 G3\ndiscard: R5\n"


def test_skip():
    game, events = play(ACTION_TABLE.format(card="RS"), "0 play RS")
    assert game.turn == 2
    assert next(e for e in events if e.kind == "skipped").data == {"seat": 1}


def test_reverse():
    game, _ = play(ACTION_TABLE.format(card="RR"), "0 play RR")
    assert game.turn == 3 and game.direction == -1
    game.apply(parse_actions("3 draw")[0])
    assert game.turn == 2


def test_draw_two():
    game, _ = play(ACTION_TABLE.format(card="RD2"), "0 play RD2")
    assert hands(game)[1] == "Y1 G1 G2" and game.turn == 2 and game.pending == 0
    refused(game, "1 draw", "not_your_turn")


def test_no_stacking_in_official():
    game, _ = play(ACTION_TABLE.format(card="RD2").replace("Y1", "Y1 YD2"), "0 play RD2")
    assert hands(game)[1] == "Y1 YD2 G1 G2" and game.turn == 2


# -- two players --------------------------------------------------------------------


TWO = OFFICIAL + "hand 0: {card} R1 R2\nhand 1: Y1 Y2\ndraw: G1 G2 G3 G4 G6\ndiscard: R5\n"


@pytest.mark.parametrize("card", ["RS", "RR"])
def test_two_players_skip_and_reverse_give_the_turn_back(card):
    game, _ = play(TWO.format(card=card), f"0 play {card}")
    assert game.turn == 0 and game.direction == 1


def test_two_players_draw_two_gives_the_turn_back():
    game, _ = play(TWO.format(card="RD2"), "0 play RD2")
    assert hands(game)[1] == "Y1 Y2 G1 G2" and game.turn == 0


def test_two_players_wild_draw_four_gives_the_turn_back():
    game, _ = play(TWO.format(card="W4").replace("R1 R2", "G1 B2"), "0 play W4 B; 1 draw")
    assert len(game.hands[1]) == 6 and game.turn == 0


# -- UNO -----------------------------------------------------------------------------


UNO = OFFICIAL + "hand 0: R1 R2\nhand 1: Y1 Y2 R3\nhand 2: Y3 Y4 R4\ndraw: G1 G2 G3 G4 G6 G7\ndiscard: R5\n"


def test_uno_called_with_the_play():
    game, events = play(UNO, "0 play R1 uno")
    assert "uno" in kinds(events) and game.called[0]
    refused(game, "2 catch 0", "cannot_catch")


def test_uno_called_on_its_own():
    game, events = play(UNO, "0 play R1; 0 uno")
    assert kinds(events).count("uno") == 1
    refused(game, "2 catch 0", "cannot_catch")
    refused(game, "0 uno", "already_called")


def test_a_missed_uno_call_can_be_caught_for_two_cards():
    game, events = play(UNO, "0 play R1; 2 catch 0")
    assert hands(game)[0] == "R2 G1 G2"
    caught = next(e for e in events if e.kind == "caught")
    assert caught.data == {"seat": 2, "target": 0, "penalty": 2}
    assert game.turn == 1  # a catch is out of turn and does not move the turn


def test_the_player_in_turn_may_catch_too_but_not_themselves():
    game, _ = play(UNO, "0 play R1")
    refused(game, "0 catch 0", "bad_target")
    game.apply(parse_actions("1 catch 0")[0])
    assert len(game.hands[0]) == 3


def test_calling_late_before_being_caught_avoids_the_penalty():
    game, _ = play(UNO, "0 play R1; 1 play R3; 0 uno")
    assert len(game.hands[0]) == 1
    refused(game, "2 catch 0", "cannot_catch")


@pytest.mark.parametrize("next_action", ["1 play R3", "1 draw"])
def test_the_catch_window_closes_when_the_next_player_plays_or_draws(next_action):
    game, _ = play(UNO, f"0 play R1; {next_action}")
    refused(game, "2 catch 0", "cannot_catch")
    assert "0 uno" in {str(a) for a in game.legal_actions(0)}


def test_the_catch_window_stays_open_through_an_automatic_penalty_draw():
    game, _ = play(UNO.replace("R1 R2", "RD2 R2"), "0 play RD2")
    assert game.turn == 2 and len(game.hands[1]) == 5
    game.apply(parse_actions("2 catch 0")[0])
    assert len(game.hands[0]) == 3


def test_a_wrong_catch_is_refused():
    game, _ = play(UNO, "0 play R1 uno")
    refused(game, "1 catch 0", "cannot_catch")  # called
    refused(game, "1 catch 2", "cannot_catch")  # holds three cards
    refused(game, "1 catch 7", "bad_seat")  # no such seat


def test_a_false_call_is_refused_in_official():
    game, _ = play(UNO)
    refused(game, "1 uno", "false_uno")
    refused(game, "0 uno", "false_uno")


def test_a_false_call_riding_on_a_play_is_refused_in_official():
    game, _ = play(UNO.replace("R1 R2", "R1 R2 R6"))
    error = refused(game, "0 play R1 uno", "false_uno")
    assert "UNO" in error.reason
    assert "0 play R1 uno" not in {str(a) for a in game.legal_actions(0)}


def test_a_false_call_costs_two_cards_in_house():
    game, events = play(UNO.replace("official", "house"), "1 uno")
    assert hands(game)[1] == "Y1 Y2 R3 G1 G2"
    assert next(e for e in events if e.kind == "false_uno").data == {"seat": 1, "penalty": 2}
    game, events = play(UNO.replace("official", "house").replace("R1 R2", "R1 R2 R6"), "0 play R1 uno")
    assert hands(game)[0] == "R2 R6 G1 G2"


# -- going out and scoring -----------------------------------------------------------


def test_going_out_scores_the_other_hands_for_the_winner():
    game, events = play(OFFICIAL + "hand 0: R1\nhand 1: Y9 G0 BS\nhand 2: RR YD2 W W4\ndiscard: R5",
                        "0 play R1")
    assert game.phase == "round_over" and game.turn == 0
    result = game.outcome()
    assert result.winner == 0
    assert result.hand_points == (0, 9 + 0 + 20, 20 + 20 + 50 + 50)
    assert result.points == 169 and result.scores == (169, 0, 0)
    assert game.scores == [169, 0, 0]
    over = next(e for e in events if e.kind == "round_over")
    assert over.data["winner"] == 0 and over.data["points"] == 169
    refused(game, "1 draw", "round_over")


@pytest.mark.parametrize(("card", "drawn"), [("RD2", 2), ("W4 G", 4)])
def test_a_last_draw_card_still_hits_the_next_player_before_scoring(card, drawn):
    game, _ = play(OFFICIAL + "hand 0: " + card.split()[0] + "\nhand 1: Y9\nhand 2: Y1\n"
                   "draw: B1 B2 B3 B4 B5\ndiscard: R5", f"0 play {card}")
    assert game.phase == "round_over"
    assert len(game.hands[1]) == 1 + drawn
    assert game.outcome().points == 9 + 1 + sum(range(1, drawn + 1))


def test_the_match_ends_at_the_target_score():
    game, events = play(OFFICIAL + "scores: 480 490 0\nhand 0: R1\nhand 1: Y9 G9\nhand 2: W\n"
                        "discard: R5", "0 play R1")
    assert game.over and game.phase == "match_over"
    assert game.scores == [548, 490, 0]
    over = next(e for e in events if e.kind == "match_over").data
    assert over["winner"] == 0 and over["scores"] == [548, 490, 0]
    # the table's facts: nothing pending, nobody to catch, the match over
    assert (over["phase"], over["pending"], list(over["catchable"])) == ("match_over", 0, [])
    refused(game, "0 deal", "match_over")


def test_the_winner_deals_the_next_round():
    game, _ = play(OFFICIAL + "seed: 3\nhand 0: Y1\nhand 1: R1\nhand 2: W\ndiscard: R5\nturn: 1",
                    "1 play R1")
    assert game.phase == "round_over" and game.turn == 1
    assert [str(a) for a in game.legal_actions(1)] == ["1 deal"]
    assert game.legal_actions(0) == []
    refused(game, "0 deal", "wrong_phase")
    events = game.apply(parse_actions("1 deal")[0])
    assert game.round == 2 and game.dealer == 1 and game.scores == [0, 51, 0]
    assert all(len(h) == 7 for h in game.hands)
    started = events[0]
    assert started.kind == "round_started" and started.data["dealer"] == 1
    # the hand events go one to each seat
    assert [(e.data["seat"], e.private_to) for e in events if e.kind == "hand"] == [(0, 0), (1, 1), (2, 2)]
    assert sum(map(len, game.hands)) + len(game.draw_pile) + len(game.discard) == 108


def test_a_match_plays_rounds_to_the_target():
    """Several rounds: the winner deals, scores add up, the match ends at 500."""
    import random

    game = Game(Rules.preset("official"), 3, seed=11)
    rng = random.Random(0)
    rounds = 0
    while not game.over:
        seat = game.turn
        game.apply(rng.choice([a for a in game.legal_actions(seat) if a.seat == seat]))
        if game.phase in ("round_over", "match_over"):
            rounds += 1
            result = game.outcome()
            assert game.turn == result.winner
            assert sum(result.scores) == sum(r.points for r in game.results)
    assert rounds == len(game.results) > 1
    assert max(game.scores) >= 500
    assert game.results[-1].match_winner == game.scores.index(max(game.scores))
    assert [r.round for r in game.results] == list(range(1, rounds + 1))


# -- starting a round ------------------------------------------------------------------


def first_card_game(kind: str, players: int = 4) -> Game:
    """The first official game (by seed) whose first card is of ``kind``."""
    for seed in range(2000):
        game = Game(Rules.preset("official"), players, seed)
        first = next(e for e in game.start_events if e.kind == "first_card")
        card = first.data["card"]
        if (card if kind in ("W", "W4") else card[1:]) == kind:
            return game
    raise AssertionError(f"no seed turns up {kind}")


def test_the_first_card_is_never_a_wild_draw_four():
    for seed in range(300):
        game = Game(Rules.preset("official"), 4, seed)
        assert game.discard[0].text != "W4"


DEALT = OFFICIAL + "hand 0: R1 R2\nhand 1: G1 G2\nhand 2: B1 B2\nhand 3: Y1 Y2\nphase: dealt\ndealer: 3\n"


def test_a_wild_draw_four_turned_up_first_goes_back_and_another_is_turned():
    game, events = play(DEALT + "draw: W4 G5 R7 B8 Y9", "3 deal")
    assert game.discard[0].text != "W4" and game.phase == "play"
    left = ["W4", "G5", "R7", "B8", "Y9"]
    left.remove(game.top.text)
    assert sorted(c.text for c in game.draw_pile) == sorted(left)  # the W4 went back into the pile
    assert [e.kind for e in events] == ["first_card", "turn"]
    assert game.turn == 0 and game.round == 1


@pytest.mark.parametrize(("first", "turn", "direction", "phase", "drew"), [
    ("G5", 0, 1, "play", None),  # the player left of the dealer starts
    ("GS", 1, 1, "play", None),  # a Skip: the first player loses the turn
    ("GR", 2, -1, "play", None),  # a Reverse: the dealer's right starts
    ("GD2", 1, 1, "play", 0),  # a Draw Two: the first player draws 2 and loses the turn
    ("W", 0, 1, "color", None),  # a Wild: the first player names the color
])
def test_the_first_card_turned_up_acts(first, turn, direction, phase, drew):
    game, events = play(DEALT + f"draw: {first} R7 B8 Y9", "3 deal")
    assert game.top.text == first
    assert (game.turn, game.direction, game.phase) == (turn, direction, phase)
    assert [e.data["seat"] for e in events if e.kind == "drew"] == ([] if drew is None else [drew])
    assert game.opening  # no jump-in on its penalty
    refused(game, "3 deal", "wrong_phase")


def test_before_the_first_card_only_the_dealer_acts_and_only_to_turn_it_up():
    game, _ = play(DEALT + "draw: G5 R7")
    assert game.legal_actions(3) == [Deal(3)] and game.legal_actions(0) == []
    assert game.view(0).top is None and game.view(0).legal_actions() == []
    refused(game, "0 play R1", "wrong_phase")  # as every other action then, a play too
    refused(game, "0 draw", "wrong_phase")
    refused(game, "0 uno", "wrong_phase")
    refused(game, "1 deal", "wrong_phase")


def test_the_dealer_draw_of_a_position_decides_the_dealer_and_ties_redraw():
    position = OFFICIAL + "hand 0: -\nhand 1: -\nhand 2: -\nhand 3: -\nphase: dealer_draw\n"
    game, events = play(position + "draw: R9 GS B9 Y2 G5 B3 W", "0 deal")
    (draw,) = [e for e in events if e.kind == "dealer_draw"]
    # 9, action (0), 9, 2: seats 0 and 2 tie and redraw, 5 against 3
    assert draw.data == {"draws": [[0, "R9"], [1, "GS"], [2, "B9"], [3, "Y2"], [0, "G5"], [2, "B3"]],
                         "dealer": 0}
    assert game.dealer == 0 and game.round == 1 and game.turn in range(4)
    assert [e.kind for e in events[1:3]] == ["round_started", "hand"]
    assert all(len(h) in (7, 9) for h in game.hands)
    game, _ = play(position)
    assert game.round == 0 and game.legal_actions(0) == [Deal(0)] and game.legal_actions(1) == []
    refused(game, "1 deal", "wrong_phase")


def test_a_wild_first_lets_the_first_player_name_the_color():
    game = first_card_game("W")
    first = game.next_seat(game.dealer)
    assert game.phase == "color" and game.turn == first and game.color is None
    assert sorted(str(a) for a in game.legal_actions(first) if a.seat == first) == [
        f"{first} color {c}" for c in "BGRY"]
    refused(game, f"{first} draw", "wrong_phase")
    refused(game, f"{game.next_seat(first)} color G", "not_your_turn")
    events = game.apply(parse_actions(f"{first} color G")[0])
    assert game.color.value == "G" and game.turn == first and game.phase == "play"
    assert events[0].data == {"seat": first, "color": "G"}


def test_a_draw_two_first_makes_the_first_player_draw_two_and_lose_the_turn():
    game = first_card_game("D2")
    first = game.next_seat(game.dealer)
    assert len(game.hands[first]) == 9
    assert game.turn == game.next_seat(first) and game.pending == 0
    assert [(e.data["seat"], e.data["count"]) for e in game.start_events if e.kind == "drew"] == [(first, 2)]


def test_a_reverse_first_lets_the_dealers_right_start():
    game = first_card_game("R")
    assert game.direction == -1
    assert game.turn == (game.dealer - 1) % 4


def test_a_reverse_first_with_two_players_lets_the_dealer_start():
    game = first_card_game("R", players=2)
    assert game.turn == game.dealer and game.direction == 1


def test_a_skip_first_skips_the_first_player():
    game = first_card_game("S")
    assert game.turn == (game.dealer + 2) % 4
    assert any(e.kind == "skipped" for e in game.start_events)


def test_the_first_player_sits_left_of_the_dealer():
    game = first_card_game("5")
    assert game.turn == (game.dealer + 1) % 4 and game.phase == "play"


def test_the_dealer_is_chosen_by_draw_and_ties_redraw():
    ties = 0
    for seed in range(60):
        game = Game(Rules.preset("official"), 4, seed)
        (event,) = [e for e in game.start_events if e.kind == "dealer_draw"]
        draws = event.data["draws"]
        contenders = list(range(4))
        i = 0
        while len(contenders) > 1:
            batch = draws[i:i + len(contenders)]
            assert [s for s, _ in batch] == contenders  # only the tied players redraw
            i += len(contenders)
            values = {s: Card.parse(c).number or 0 for s, c in batch}
            best = max(values.values())
            contenders = [s for s in contenders if values[s] == best]
            ties += len(contenders) > 1
        assert i == len(draws)
        assert event.data["dealer"] == game.dealer == contenders[0]
        assert game.turn in range(4)
    assert ties > 0


def test_the_deal_gives_seven_cards_each_and_conserves_the_deck():
    for players in (2, 5, 10):
        game = Game(Rules.preset("official"), players, seed=2)
        assert all(len(h) in (7, 9) for h in game.hands)  # 9: a Draw Two turned up first
        assert sum(map(len, game.hands)) + len(game.draw_pile) + len(game.discard) == 108


# -- the draw pile ---------------------------------------------------------------------


def test_an_empty_draw_pile_is_made_of_the_discards_but_the_top():
    game, events = play(OFFICIAL + "hand 0: G1\nhand 1: Y1\ndraw: -\ndiscard: R1 R2 B3 R4", "0 draw")
    assert [e.data for e in events if e.kind == "reshuffled"] == [{"count": 3}]
    assert [c.text for c in game.discard] == ["R4"]
    assert len(game.hands[0]) == 2 and len(game.draw_pile) == 2
    assert sorted(c.text for c in [*game.draw_pile, game.hands[0][1]]) == ["B3", "R1", "R2"]
    assert "reshuffles: 1" in game.position()


def test_a_penalty_larger_than_the_draw_pile_reshuffles_midway():
    game, _ = play(OFFICIAL + "hand 0: RD2 R3\nhand 1: Y1\nhand 2: Y2\ndraw: G1\ndiscard: B1 R1",
                   "0 play RD2")
    assert len(game.hands[1]) == 3
    assert sum(map(len, game.hands)) + len(game.draw_pile) + len(game.discard) == 7


def test_with_both_piles_empty_a_draw_gets_nothing_and_play_goes_on():
    game, events = play(OFFICIAL + "hand 0: G1\nhand 1: Y1\ndraw: -\ndiscard: R4", "0 draw")
    assert hands(game)[0] == "G1" and game.turn == 1
    assert [e.data["count"] for e in events if e.kind == "drew"] == [0]
    game, _ = play(OFFICIAL + "hand 0: RD2 G1\nhand 1: Y1\nhand 2: Y2\ndraw: -\ndiscard: R4",
                   "0 play RD2")
    assert hands(game)[1] == "Y1 R4" and game.turn == 2  # R4 came back from the discards
    assert not game.draw_pile and [c.text for c in game.discard] == ["RD2"]


# -- out of turn and illegal actions ---------------------------------------------------


def test_out_of_turn_actions_are_judged_when_applied():
    game, _ = play(UNO)
    refused(game, "2 play R4", "not_your_turn")
    refused(game, "2 draw", "not_your_turn")
    game.apply(parse_actions("0 play R1")[0])
    game.apply(parse_actions("1 play R3")[0])
    game.apply(parse_actions("2 play R4")[0])  # now it is seat 2's turn
    assert game.top.text == "R4"


def test_an_illegal_action_names_action_reason_and_position_and_changes_nothing():
    game, _ = play(UNO)
    before = game.position()
    with pytest.raises(IllegalAction) as info:
        game.apply(parse_actions("0 play G7")[0])
    error = info.value
    assert str(error.action) == "0 play G7" and error.code == "bad_play"
    assert "do not hold" in error.reason
    assert error.position == before == game.position()
    assert str(error).startswith("illegal action 0 play G7: ")
    assert before in str(error)
    assert isinstance(error, ValueError)


def test_actions_for_seats_that_do_not_exist_are_refused():
    game, _ = play(UNO)
    refused(game, "9 draw", "bad_seat")
    refused(game, "9 uno", "bad_seat")
