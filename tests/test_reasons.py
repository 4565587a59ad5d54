"""The engine's reasons in the player's language: every reason the engine gives for a
refused action is read back by a pattern of unolan.client.reasons (so Chinese players see
what is wrong, not only the error code's words)."""

from __future__ import annotations

import contextlib
import random

import pytest
from random_play import random_action
from unolan.client import i18n
from unolan.client.reasons import REASONS, refusal_text, translate
from unolan.engine import (
    CallUno,
    Catch,
    Challenge,
    Color,
    Draw,
    Game,
    IllegalAction,
    Pass,
    Play,
    Rules,
    parse_position,
)


def tries(game: Game, seat: int) -> list[object]:
    """What a player might press: each held card alone (wilds with a color), the pairs of
    a number or symbol, a draw, a keep, a challenge, an UNO call, a catch of each seat."""
    hand = game.hands[seat]
    out: list[object] = []
    for card in dict.fromkeys(hand):
        color = Color.RED if card.is_wild and not game.rules.all_wild else None
        out.append(Play(seat, (card,), color))
        twins = [c for c in hand if c.kind is card.kind and c is not card]
        if twins:
            out.append(Play(seat, (card, twins[0])))
    out += [Draw(seat), Pass(seat), Challenge(seat), CallUno(seat)]
    out += [Catch(seat, target) for target in range(game.players)]
    return out


def reasons_met(rules: Rules, seed: int, steps: int) -> set[str]:
    game, rng, met = Game(rules, players=3, seed=seed), random.Random(seed), set()
    for _ in range(steps):
        if game.phase == "match_over":
            break
        for seat in range(game.players):
            for action in tries(game, seat):
                refused = game.refusal(action)  # type: ignore[arg-type]
                if refused is not None:
                    met.add(refused.reason)
        with contextlib.suppress(IllegalAction):  # a mistake random_action makes on purpose
            game.apply(random_action(game, rng))
    return met


@pytest.mark.parametrize("rules", ["house", "official", "party", "all-wild",
                                   "house stacking=same pair_beats_wd4=on", "house forced_play=on",
                                   "house seven_zero=on last_card_no_action=on"])
def test_every_reason_the_engine_gives_is_read_back(rules: str) -> None:
    met = set().union(*(reasons_met(Rules.parse(rules), seed, 80) for seed in range(3)))
    assert len(met) >= 5
    i18n.set_language("zh_Hant")
    unread = sorted(reason for reason in met if translate(reason) is None)
    assert unread == []


def test_a_reason_in_chinese_keeps_its_cards_seats_and_color() -> None:
    i18n.set_language("zh_Hant")
    game = parse_position("rules: official\nhand 0: G7 R5\nhand 1: B1 B2\nhand 2: Y1\ndiscard: R3\nturn: 0")
    refused = game.refusal(Play(0, (game.hands[0][0],)))
    assert refused is not None and refused.reason == "G7 does not match R3 on red"
    assert refusal_text(refused.code, refused.reason) == "G7 不能出在 R3（紅色）上"
    refused = game.refusal(Play(1, (game.hands[1][0],)))
    assert refused is not None
    assert refusal_text(refused.code, refused.reason, {0: "安"}.get) == "現在輪到安（這套規則不能搶）"
    assert refusal_text("misplay", "something a newer engine says") == "規則不允許這樣出牌"
    i18n.set_language("en")
    assert refusal_text(refused.code, refused.reason) == refused.reason


def test_every_pattern_has_its_words_in_every_language() -> None:
    for lang in ("zh_Hant", "zh_Hans"):
        i18n.set_language(lang)
        for _pattern, template in REASONS:
            assert i18n._(template) != template, (lang, template)


def test_a_color_the_cards_do_not_have() -> None:
    i18n.set_language("zh_Hans")
    game = parse_position("hand 0: R5 G7; hand 1: B1; discard: R3; turn: 0")
    refused = game.refusal(Play(0, (game.hands[0][0],), Color.BLUE))
    assert refused is not None and refused.reason == "B is not a color of the cards played"
    assert refusal_text(refused.code, refused.reason) == "B 不是所出牌的颜色"


def test_the_create_form_says_why_a_rule_set_is_refused_in_the_language() -> None:
    from unolan.client.tui.form import FIELDS, CreateForm

    i18n.set_language("zh_Hant")
    form = CreateForm(seats=3, options={"teams": 2})
    assert form.problem() == "3 位玩家無法分成 2 隊、每隊兩人以上、隊友相隔而坐"
    form.field_index = FIELDS.index("hand_size")
    assert form.typed("50") == "發牌張數可以是 1..20；不能是 50"  # the form's name for it
    form = CreateForm(seats=3, options={"rounds": 2})  # a match to a target score counts no rounds
    assert form.problem() == ("選項 rounds 只計籌碼賽或輪換搭檔賽的局數；這場比賽打到目標分數結束："
                              "rounds 請保持 0，收到 2")
    i18n.set_language("en")
    assert form.problem() == ("option rounds counts the rounds of a chips match or a partner rotation; "
                              "this match ends at its target score: leave rounds at 0, got 2")
    form = CreateForm(seats=3, options={"teams": 2})
    assert form.problem() == "3 players cannot sit as 2 teams of two or more, teammates alternately"
