"""The client's mirror of the table equals the engine's view after every action.

Games are driven by random legal actions from every seat (in and out of turn), under
each preset and the options that move cards in unusual ways; each seat's mirror (and a
spectator's) is fed only the events that seat may see.
"""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from unolan.client.mirror import Mirror, SeqGap
from unolan.engine import CallUno, Color, Deal, Game, IllegalAction, Play, Rules

VARIANTS = [
    ("official", {}),
    ("house", {}),
    ("party", {}),
    ("all-wild", {}),
    ("house", {"stacking": "mixed", "draw_until_playable": True}),
    ("house", {"stacking": "same", "strict_after_penalty": True, "drawn_action_stays": True}),
    ("party", {"pair_single_effect": True, "forced_play": True, "last_card_no_action": True}),
    ("house", {"elimination": True, "hand_size": 3}),
    ("house", {"mercy_limit": 12, "hand_size": 5}),
    ("official", {"wd4_rule": "any_playable", "uno_penalty": 4}),
    ("official", {"teams": 2, "scoring": "penalty"}),
    ("house", {"scoring": "chips", "rounds": 3}),
    ("official", {"challenge": False, "deflect": True}),
]


def random_action(game: Game, rng: random.Random):
    if game.phase == "round_over":
        return Deal(game.turn)
    if rng.random() < 0.03:  # a mistake: a false UNO call or a misplay (maybe penalised)
        seat = rng.randrange(game.players)
        hand = game.hands[seat]
        if rng.random() < 0.5 or not hand:
            return CallUno(seat)
        card = rng.choice(hand)
        return Play(seat, (card,), None if not card.is_wild or game.rules.all_wild else Color.RED)
    seats = list(range(game.players))
    rng.shuffle(seats)
    # Mostly the seat in turn; sometimes a reaction from anyone (jump-in, catch, UNO).
    if rng.random() < 0.75:
        seats.insert(0, game.turn)
    for seat in seats:
        legal = game.legal_actions(seat)
        if legal:
            return rng.choice(legal)
    raise AssertionError("nobody can act")


def check_game(preset: str, options: dict, players: int, seed: int, steps: int = 400) -> None:
    rules = Rules.preset(preset, target_score=150, **options)
    if rules.teams and (players % rules.teams or players < 2 * rules.teams):
        players = rules.teams * 2
    game = Game(rules, players=players, seed=seed)
    seats: list[int | None] = [*range(players), None]
    mirrors = {s: Mirror(s, rules) for s in seats}
    seq = 0

    def feed(events) -> None:
        nonlocal seq
        for event in events:
            seq += 1
            for s, mirror in mirrors.items():
                if event.visible_to(s):
                    mirror.apply(event.kind, event.data)

    def compare(after: str) -> None:
        for s, mirror in mirrors.items():
            assert mirror.to_dict() == game.view(s).to_dict(), f"seat {s} after {after}"

    feed(game.start_events)
    compare("the deal")
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        action = random_action(game, rng)
        try:
            events = game.apply(action)
        except IllegalAction:
            continue
        feed(events)
        compare(str(action))
        s = game.turn
        if game.phase not in ("round_over", "match_over"):
            mine = mirrors[s].view().legal_actions()
            assert sorted(map(str, mine)) == sorted(map(str, game.legal_actions(s)))


@pytest.mark.parametrize(("preset", "options"), VARIANTS, ids=lambda v: str(v))
@pytest.mark.parametrize("players", [2, 3, 5])
def test_mirror_matches_engine_view(preset: str, options: dict, players: int) -> None:
    for seed in range(4):
        check_game(preset, options, players, seed)


@settings(max_examples=40, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    players=st.integers(2, 8),
    seed=st.integers(0, 2**32),
)
def test_mirror_matches_engine_view_property(variant, players: int, seed: int) -> None:
    check_game(*variant, players, seed, steps=250)


def test_feed_checks_sequence_continuity() -> None:
    rules = Rules.preset("house")
    game = Game(rules, players=3, seed=1)
    events = [e for e in game.start_events if e.visible_to(0)]
    mirror = Mirror(0, rules)
    mirror.feed(1, events[0].kind, events[0].data)
    assert mirror.feed(1, events[0].kind, events[0].data) is False  # a duplicate is ignored
    with pytest.raises(SeqGap) as info:
        mirror.feed(3, events[1].kind, events[1].data)
    assert info.value.expected == 2
    # A snapshot replaces everything and sets the sequence number.
    mirror.load(game.view(0).to_dict(), seq=10)
    assert mirror.to_dict() == game.view(0).to_dict() and mirror.seq == 10


def test_feed_tolerates_no_gap_at_all() -> None:
    """Every member sees every seq, so a seq skipped even after an event whose follower
    is private (``challenged``, ``swapped``, ``rotated``, ``round_started``) is a gap."""
    rules = Rules.preset("house")
    for kind, data in [("challenged", {"seat": 1, "target": 0, "guilty": False}),
                       ("swapped", {"seats": [0, 1]}), ("rotated", {"direction": 1}),
                       ("round_started", {"round": 1, "dealer": 0, "players": 3, "hand_size": 7})]:
        mirror = Mirror.from_view(Game(rules, players=3, seed=2).view(2), seq=5)
        mirror.feed(6, kind, data)
        with pytest.raises(SeqGap) as info:
            mirror.feed(8, "turn", {"seat": 0, "direction": 1, "phase": "play", "pending": 0})
        assert (info.value.expected, info.value.got) == (7, 8)


def test_private_events_come_without_their_cards_to_others() -> None:
    """A ``hand`` or ``revealed`` for another seat arrives without ``cards``: the mirror
    takes it as a seq (no gap) and leaves the table as it is."""
    rules = Rules.preset("house")
    game = Game(rules, players=3, seed=4)
    mirror = Mirror.from_view(game.view(2), seq=10)
    before = mirror.to_dict()
    assert mirror.feed(11, "hand", {"seat": 0})
    assert mirror.feed(12, "revealed", {"seat": 1})
    assert mirror.to_dict() == before and mirror.seq == 12


def test_mirror_from_view_then_events() -> None:
    rules = Rules.preset("house")
    game = Game(rules, players=4, seed=5)
    rng = random.Random(5)
    while game.round < 2 or game.phase != "play":
        with contextlib.suppress(IllegalAction):
            game.apply(random_action(game, rng))
    mirror = Mirror.from_view(game.view(2))
    for _ in range(200):
        if game.over:
            break
        try:
            events = game.apply(random_action(game, rng))
        except IllegalAction:
            continue
        for event in events:
            if event.visible_to(2):
                mirror.apply(event.kind, event.data)
        assert mirror.to_dict() == game.view(2).to_dict()
