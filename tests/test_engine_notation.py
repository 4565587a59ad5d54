"""The text notation of cards, actions and positions: print, parse, print is identical."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unolan.engine import (
    Card,
    Game,
    NotationError,
    Rules,
    format_cards,
    format_position,
    parse_action,
    parse_actions,
    parse_cards,
    parse_position,
)
from unolan.engine.cards import ALL_CARDS, all_wild_deck, classic_deck


def test_every_card_round_trips():
    for card in ALL_CARDS:
        assert Card.parse(card.text) is card
        assert Card.parse(card.text.lower()) is card
        assert str(card) == card.text


def test_card_values():
    assert Card.parse("R5").points == 5 and Card.parse("R5").number == 5
    assert Card.parse("G0").points == 0
    assert [Card.parse(t).points for t in ("BS", "YR", "RD2")] == [20, 20, 20]
    assert [Card.parse(t).points for t in ("W", "W4", "WX", "WS2")] == [50, 50, 50, 50]


def test_the_decks():
    classic = classic_deck()
    assert len(classic) == 108
    assert sum(c.text == "R0" for c in classic) == 1
    assert sum(c.text == "R7" for c in classic) == 2
    assert sum(c.text == "BD2" for c in classic) == 2
    assert sum(c.text == "W" for c in classic) == sum(c.text == "W4" for c in classic) == 4
    wild = all_wild_deck()
    assert len(wild) == 112 and all(c.is_wild for c in wild)


@pytest.mark.parametrize("text", ["X5", "R", "R10", "GW", "W5", "", "RD3", "B-1"])
def test_bad_cards_are_notation_errors(text):
    with pytest.raises(NotationError):
        Card.parse(text)


def test_card_lists():
    assert format_cards(parse_cards("R5, G7 W4")) == "R5 G7 W4"
    assert parse_cards("-") == [] and format_cards([]) == "-"


ACTIONS = [
    "1 play R5",
    "1 play W4 G",
    "1 play R5 G5 B5 G uno",
    "1 play R7 @3",
    "2 play WT2 @0",
    "1 play R1 uno",
    "1 draw",
    "1 pass",
    "1 challenge",
    "1 uno",
    "1 catch 2",
    "1 color G",
    "0 deal",
    "9 play W Y",
]


@pytest.mark.parametrize("text", ACTIONS)
def test_actions_round_trip(text):
    action = parse_action(text)
    assert str(action) == text
    assert parse_action(str(action)) == action


def test_action_lists_take_semicolons_and_comments():
    actions = parse_actions("0 play R5; 1 draw  # no match\n\n1 pass")
    assert [str(a) for a in actions] == ["0 play R5", "1 draw", "1 pass"]


@pytest.mark.parametrize("text", [
    "play R5", "x play R5", "1 play", "1 fly", "1 draw 2", "1 catch", "1 catch x",
    "1 color Q", "1 play R5 @x", "1 play Q9", "-1 draw", "1",
])
def test_bad_actions_are_notation_errors(text):
    with pytest.raises(NotationError):
        parse_action(text)


POSITIONS = [
    "rules: official\nhand 0: R5 G7\nhand 1: W\ndraw: B1 B2\ndiscard: Y3 R4\nturn: 0",
    "rules: house stacking=same\nseed: 12\nround: 3\ndealer: 0\nscores: 10 0 50\n"
    "hand 0: R5\nhand 1: YD2\nhand 2: W4 W4\ndraw: -\ndiscard: Y3 W4\ncolor: G\nturn: 1\n"
    "direction: ccw\npending: 4\nchallengeable: 2 bluff\nuno: 0",
    "rules: official\nhand 0: R5 G7\nhand 1: R1\ndraw: B1\ndiscard: R4\nturn: 0\nphase: drawn\n"
    "drawn: G7\ncatchable: 1",
    "rules: house\nhand 0: R5\nhand 1: R1\ndraw: -\ndiscard: BD2\nturn: 1\nserved: yes\nreshuffles: 2",
    "rules: all-wild\nhand 0: WX\nhand 1: WS2\ndraw: W\ndiscard: W\ncolor: -\nturn: 1",
]


@pytest.mark.parametrize("text", POSITIONS)
def test_positions_round_trip(text):
    game = parse_position(text)
    printed = format_position(game)
    assert parse_position(printed).position() == printed
    assert printed == game.position()


def test_a_position_fits_on_one_line():
    game = parse_position("hand 0: R5; hand 1: G5; discard: R1")
    assert game.rules == Rules.preset("house") and game.turn == 0 and game.dealer == 1
    assert [c.text for c in game.hands[1]] == ["G5"]


@pytest.mark.parametrize("text", [
    "hand 0: R5\ndiscard: R1",  # one hand
    "hand 0: R5\nhand 2: R5\ndiscard: R1",  # a gap
    "hand 0: R5\nhand 1: R5",  # no discard
    "hand 0: R5\nhand 1: R5\ndiscard: -",
    "hand 0: R5\nhand 1: R5\ndiscard: W",  # a wild top card needs a color
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nturn: 5",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\ndirection: up",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nphase: sleeping",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nphase: drawn",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nmoon: full",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\ndiscard: R2",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nrules: nonsense",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nrules: house stacking=sideways",
    "hand 0: R5\nhand 1: X5\ndiscard: R1",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nuno: 7",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nscores: 1 2 3",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nturn: x",
    "hand 0: R5\nhand 1: R5\ndiscard: R1\nserved: maybe",
    "just words",
])
def test_bad_positions_are_notation_errors(text):
    with pytest.raises(NotationError):
        parse_position(text)


def test_a_wild_turned_up_first_waiting_for_its_color_round_trips():
    for seed in range(500):
        game = Game(Rules.preset("official"), 3, seed)
        if game.phase == "color":
            break
    else:
        raise AssertionError("no Wild turned up first")
    text = game.position()
    assert parse_position(text).position() == text


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["official", "house", "party", "all-wild"]), st.integers(2, 10),
       st.integers(0, 10**6))
def test_new_games_round_trip(preset, players, seed):
    game = Game(Rules.preset(preset), players, seed)
    text = game.position()
    assert format_position(parse_position(text)) == text
