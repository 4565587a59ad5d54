"""`uno rules` and the notation document: the CLI a bug report is written with."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from unolan.engine import parse_position

from unolan.cli import main

DOCS = Path(__file__).resolve().parent.parent / "docs" / "notation.md"


def test_documented_example_position_parses_and_round_trips() -> None:
    text = re.search(r"```text\n(rules:.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert text is not None
    game = parse_position(text.group(1))
    assert game.rules.stacking == "same"
    assert [len(h) for h in game.hands] == [3, 2, 1]
    assert game.pending == 4 and game.wd4_offender == 0 and game.wd4_bluff
    assert parse_position(game.position()).position() == game.position()


def test_applies_actions_and_prints_events_and_position(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rules", "--position", "hand 0: R5 G7; hand 1: B1 B2; discard: R3; turn: 0",
                 "-a", "0 play R5 uno"])
    out = capsys.readouterr().out
    assert code == 0
    assert "[all] played seat=0 cards=[R5]" in out
    assert "[all] uno seat=0" in out
    assert "hand 0: G7" in out and "turn: 1" in out


def test_illegal_action_exits_1_with_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rules", "--position", "hand 0: R5; hand 1: B1; discard: G3; turn: 0",
                 "-a", "0 play R5"])
    err = capsys.readouterr().err
    assert code == 1
    assert "illegal action 0 play R5: R5 does not match G3" in err
    assert "hand 0: R5" in err


@pytest.mark.parametrize("position", ["hand 0: R5; discard: G3", "hand 0: R5; hand 1: Q9; discard: G3",
                                      "hand 0: R5; hand 1: B1", "hand 0: R5; hand 1: B1; discard: G3; colour: R"])
def test_malformed_position_exits_2(position: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--position", position]) == 2
    assert capsys.readouterr().err.startswith("uno rules: ")


def test_new_game_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    main(["rules", "--new", "--players", "5", "--seed", "11", "--quiet"])
    first = capsys.readouterr().out
    main(["rules", "--new", "--players", "5", "--seed", "11", "--quiet"])
    assert capsys.readouterr().out == first
    assert first.count("hand ") == 5


def test_options_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    from unolan.engine import OPTIONS

    assert main(["rules", "--options"]) == 0
    out = capsys.readouterr().out
    assert all(option.name in out for option in OPTIONS)


def test_help_for_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    from unolan.cli import build_parser

    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "rules" in commands
    for name in commands:
        with pytest.raises(SystemExit) as exit_info:
            main([name, "--help"])
        assert exit_info.value.code == 0
        assert f"usage: uno {name}" in capsys.readouterr().out


def test_no_jump_in_on_the_first_cards_penalty() -> None:
    """RULES.md: no one may stack on, deflect, or jump in on the first card's penalty."""
    from unolan.engine import IllegalAction, parse_action

    game = parse_position("rules: house\nhand 0: R1 R2\nhand 1: R3 R4\nhand 2: YD2 G5\n"
                          "draw: B1 B2 B3\ndiscard: YD2\nserved: yes\nturn: 1")
    assert game.opening
    assert not any("YD2" in str(a) for a in game.legal_actions(2))
    assert not any("YD2" in str(a) for a in game.view(2).legal_actions())
    with pytest.raises(IllegalAction, match="first card's penalty"):
        game.apply(parse_action("2 play YD2"))
    # once someone has played on it, an identical Draw Two may jump in as usual
    later = parse_position("rules: house\nhand 0: R1 R2\nhand 1: R3 R4\nhand 2: YD2 G5\n"
                           "draw: B1 B2 B3\ndiscard: Y4 YD2\nserved: yes\nturn: 1")
    assert not later.opening
    events = later.apply(parse_action("2 play YD2"))
    assert events[0].data["jump_in"] is True


def test_a_drawn_card_does_not_outlive_its_round() -> None:
    """A drawer knocked out by the mercy limit ends the round; the drawn card stays hidden."""
    from unolan.engine import parse_action

    game = parse_position("rules: house hand_size=3 mercy_limit=5\nhand 0: R3 G1 G2\n"
                          "hand 1: B1 B2\ndraw: Y1 Y2 Y3\ndiscard: R5\nturn: 0\n"
                          "phase: drawn\ndrawn: R3")
    game.apply(parse_action("0 uno"))  # a false call: +2 cards, 5 in hand, out by mercy
    assert game.phase in ("round_over", "match_over") and game.turn == 1
    assert game.view(1).drawn is None
