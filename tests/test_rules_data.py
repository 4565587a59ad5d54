"""Rule sets as data: every option of the rules spec with its values and default,
validated, serialisable, settable on top of any preset; docs/rules.md matches the code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unolan.engine import OPTIONS, PRESETS, Rules, RulesError
from unolan.engine.rules import OPTION_BY_NAME, PRESETS_OPTIONS

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"

# Every option the rules spec names, with the default it gives (the `house` preset's value).
SPEC_DEFAULTS: dict[str, Any] = {
    "deck": "classic",
    "stacking": "progressive",
    "strict_after_penalty": False,
    "deflect": False,
    "pair_beats_wd4": False,
    "multi_play": True,
    "pair_single_effect": False,
    "jump_in": True,
    "seven_zero": False,
    "misplay_penalty": False,
    "false_uno_penalty": True,
    "last_card_no_action": False,
    "draw_until_playable": False,
    "drawn_action_stays": False,
    "forced_play": False,
    "wd4_rule": "color",
    "challenge": True,
    "elimination": False,
    "mercy_limit": 0,
    "hand_size": 7,
    "target_score": 500,
    "uno_penalty": 2,
    "scoring": "winner_takes",
    "rounds": 0,
    "teams": 0,
    "partner_rotation": False,
}
SPEC_CHOICES = {
    "deck": ("classic", "all_wild"),
    "stacking": ("off", "progressive", "same", "mixed"),
    "wd4_rule": ("color", "any_playable"),
    "scoring": ("winner_takes", "penalty", "chips"),
}


def test_every_option_of_the_spec_is_there_with_its_default():
    assert {o.name: o.default for o in OPTIONS} == SPEC_DEFAULTS
    for name, choices in SPEC_CHOICES.items():
        assert OPTION_BY_NAME[name].choices == choices
    assert Rules().to_dict() == {"preset": "house", **SPEC_DEFAULTS}


def test_the_presets():
    assert PRESETS == ("official", "house", "party", "all-wild")
    official = Rules.preset("official")
    assert (official.stacking, official.multi_play, official.jump_in, official.seven_zero,
            official.challenge, official.false_uno_penalty) == ("off", False, False, False, True, False)
    house = Rules.preset("house")
    assert (house.stacking, house.multi_play, house.jump_in, house.false_uno_penalty) == \
        ("progressive", True, True, True)
    party = Rules.preset("party")
    assert party.changes() == {}
    assert {k: v for k, v in party.to_dict().items() if v != house.to_dict()[k]} == {
        "preset": "party", "seven_zero": True, "deflect": True, "pair_beats_wd4": True,
        "misplay_penalty": True}
    wild = Rules.preset("all-wild")
    assert wild.all_wild and wild.to_dict() | {"preset": "official", "deck": "classic"} == \
        official.to_dict()
    assert Rules.preset("all_wild") == wild


@pytest.mark.parametrize(("text", "words"), [
    ("house bogus=1", ["unknown option 'bogus'", "stacking", "partner_rotation"]),
    ("house stacking=sometimes", ["stacking", "off, progressive, same, mixed", "sometimes"]),
    ("house jump_in=maybe", ["jump_in", "on or off"]),
    ("house hand_size=0", ["hand_size", "1..20"]),
    ("house hand_size=seven", ["hand_size", "whole number"]),
    ("house teams=1", ["teams", "0 | 2..5"]),
    ("house wd4_rule=never", ["color, any_playable"]),
    ("house scoring=golf", ["winner_takes, penalty, chips"]),
    ("tournament", ["unknown preset", "official, house, party, all-wild"]),
    ("house stacking", ["option=value"]),
    ("house mercy_limit=7", ["mercy_limit", "hand_size"]),
    ("house partner_rotation=on teams=2", ["partner_rotation", "teams"]),
    ("official rounds=1", ["rounds", "chips", "target score", "got 1"]),
    ("house scoring=chips elimination=on rounds=3", ["rounds", "elimination", "first round"]),
])
def test_unknown_options_and_bad_values_name_the_valid_ones(text, words):
    with pytest.raises(RulesError) as info:
        Rules.parse(text)
    for word in words:
        assert word in str(info.value)


def test_bad_values_are_refused_however_the_rules_are_built():
    with pytest.raises(RulesError):
        Rules(stacking="sometimes")
    with pytest.raises(RulesError):
        Rules(hand_size=True)  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        Rules.preset("house").with_options(nonsense=1)
    with pytest.raises(RulesError):
        Rules.from_dict({"preset": "house", "teams": 9})
    assert isinstance(RulesError("x"), ValueError)


def test_rounds_is_taken_where_a_match_counts_its_rounds():
    assert Rules.parse("house scoring=chips rounds=3").rounds == 3
    assert Rules.parse("house partner_rotation=on rounds=6").rounds == 6
    assert Rules.parse("official rounds=0").rounds == 0


@st.composite
def rule_sets(draw) -> Rules:
    options: dict[str, Any] = {}
    for option in OPTIONS:
        if option.choices:
            value: Any = draw(st.sampled_from(option.choices))
        elif isinstance(option.default, bool):
            value = draw(st.booleans())
        else:
            value = draw(st.integers(option.low, min(option.high, 60)))
            if value in option.invalid:
                value = option.low
        if draw(st.booleans()):
            options[option.name] = value
    if options.get("mercy_limit", 0) and options["mercy_limit"] <= options.get("hand_size", 7):
        del options["mercy_limit"]
    if options.get("partner_rotation"):
        options["teams"] = 0
    preset = draw(st.sampled_from(PRESETS))
    if not counts_rounds(Rules.preset(preset).to_dict() | options):
        options.pop("rounds", None)
    return Rules.preset(preset, **options)


def counts_rounds(options: dict[str, Any]) -> bool:
    """Whether a match of these options counts its rounds (else ``rounds`` is refused)."""
    return options["partner_rotation"] or (options["scoring"] == "chips" and not options["elimination"])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(rule_sets())
def test_any_option_on_top_of_any_preset_round_trips_as_text_and_as_data(rules):
    assert Rules.parse(str(rules)) == rules
    assert Rules.from_dict(rules.to_dict()) == rules
    data = rules.to_dict()
    assert all(isinstance(v, (str, int, bool)) for v in data.values())
    for name, value in rules.changes().items():
        assert f"{name}=" in str(rules)
        assert PRESETS_OPTIONS[rules.preset_name][name] != value


def test_text_values_in_every_accepted_spelling():
    assert Rules.parse("official jump_in=on seven_zero=yes multi_play=1").jump_in
    assert not Rules.parse("house jump_in=off").jump_in
    assert Rules.parse("stacking=same").preset_name == "house"
    assert str(Rules.parse("party stacking=same teams=2")) == "party stacking=same teams=2"
    assert str(Rules()) == "house"


# -- docs/rules.md ------------------------------------------------------------------------


def _doc_rows(heading: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    section = text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        if line.startswith("| `"):
            rows.append([cell.strip() for cell in line.strip().strip("|").split(" | ")])
    return rows


def _doc_values(option) -> str:
    if option.choices:
        return ", ".join(f"`{c}`" for c in option.choices)
    if isinstance(option.default, bool):
        return "`on`, `off`"
    ok = [n for n in range(option.low, option.high + 1) if n not in option.invalid]
    spans = [f"`{ok[0]}`"] if ok[1] != ok[0] + 1 else []
    rest = ok[1:] if spans else ok
    return ", ".join([*spans, f"`{rest[0]}`–`{rest[-1]}`"])


def _doc_default(option) -> str:
    value = option.default
    return f"`{'on' if value else 'off'}`" if isinstance(value, bool) else f"`{value}`"


def test_the_document_lists_every_option_with_its_values_and_default():
    rows = _doc_rows("Options")
    assert [re.sub("`", "", r[0]) for r in rows] == [o.name for o in OPTIONS]
    for row, option in zip(rows, OPTIONS, strict=True):
        assert row[1] == _doc_values(option), option.name
        assert row[2] == _doc_default(option), option.name
        assert row[3], option.name


def test_the_document_lists_every_preset_with_its_differences_from_house():
    rows = _doc_rows("Presets")
    assert [r[0].strip("`") for r in rows] == list(PRESETS)
    house = PRESETS_OPTIONS["house"]
    for row in rows:
        preset = PRESETS_OPTIONS[row[0].strip("`")]
        differs = {k: v for k, v in preset.items() if v != house[k]}
        expected = " ".join(f"{k}={'on' if v is True else 'off' if v is False else v}"
                            for k, v in differs.items())
        assert row[2].strip("`") == (expected or "—"), row[0]
