"""What docs/rules.md and docs/protocol.md say about the edges a bot author asks about, as
the engine and a real server do it: who moves first after each first card, the dealer
draw's ties, the text that seeds a reshuffle (and a mercy shuffle), the code of an action
sent between rounds or matches, and the code of a malformed card or nonce."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest
from test_server import FAST, Raw, frame, running, staged
from unolan.engine import (
    Card,
    Game,
    IllegalAction,
    Kind,
    Phase,
    Rules,
    classic_deck,
    parse_action,
    parse_position,
)

from unolan import protocol as pr

DOCS = Path(__file__).resolve().parent.parent / "docs"
HOUSE = Rules.preset("house")
NUMBERS = {Kind(str(n)) for n in range(10)}


def first_card(game: Game) -> Card:
    return Card.parse(next(e.data["card"] for e in game.start_events if e.kind == "first_card"))


def expected_first(kind: Kind, dealer: int, players: int) -> tuple[int, Phase]:
    """docs/rules.md's table: who moves first after the first card, in which phase."""
    left = (dealer + 1) % players
    if kind in NUMBERS:
        return left, Phase.PLAY
    if kind in (Kind.SKIP, Kind.DRAW_TWO):
        return (left + 1) % players, Phase.PLAY
    if kind is Kind.REVERSE:
        return (dealer if players == 2 else (dealer - 1) % players), Phase.PLAY
    assert kind is Kind.WILD
    return left, Phase.COLOR


def test_who_moves_first_after_each_first_card() -> None:
    seen: set[tuple[int, Kind]] = set()
    for players in (2, 3, 4):
        for seed in range(400):
            game = Game(HOUSE, players, seed)
            kind = first_card(game).kind
            assert kind is not Kind.WILD_DRAW_FOUR
            kind = Kind.N0 if kind in NUMBERS else kind
            seen.add((players, kind))
            turn, phase = expected_first(kind, game.dealer, players)
            assert (game.turn, game.phase) == (turn, phase), (players, seed, kind)
            kinds = [e.kind for e in game.start_events]
            if kind is Kind.DRAW_TWO:
                drew = next(e for e in game.start_events if e.kind == "drew")
                assert drew.data["seat"] == (game.dealer + 1) % players and drew.data["count"] == 2
                assert drew.data["reason"] == "first_card"
            if kind is Kind.REVERSE:
                assert ("reversed" in kinds) == (players > 2) and ("skipped" in kinds) == (players == 2)
                assert game.direction == (1 if players == 2 else -1)
            if kind is Kind.WILD:  # the dealer's left names the color, then plays
                game.apply(parse_action(f"{turn} color G"))
                assert (game.turn, game.phase) == (turn, Phase.PLAY)
    for players in (2, 3, 4):
        assert {k for p, k in seen if p == players} >= {Kind.N0, Kind.SKIP, Kind.REVERSE, Kind.DRAW_TWO}
    assert (3, Kind.WILD) in seen or (2, Kind.WILD) in seen
    text = (DOCS / "rules.md").read_text()
    for card in ("a number", "Skip", "Reverse", "Draw Two", "Wild", "Wild Draw Four"):
        assert re.search(rf"^\| {card} \|", text, re.M), card


def test_a_wild_draw_four_turned_up_goes_back_and_the_pile_is_shuffled_as_the_page_says() -> None:
    """``SEED/1/deal/0`` deals; a Wild Draw Four on top goes back and ``SEED/1/first/t``
    shuffles the pile for the t-th try; the card then turned up acts as any first card."""
    checked = 0
    for seed in range(3000):
        deck = classic_deck()
        random.Random(f"{seed}/1/deal/0").shuffle(deck)
        pile = deck[:len(deck) - 7 * 3]
        if pile[-1].kind is not Kind.WILD_DRAW_FOUR:
            continue
        tries = 0
        while pile[-1].kind is Kind.WILD_DRAW_FOUR:
            tries += 1
            random.Random(f"{seed}/1/first/{tries}").shuffle(pile)
        game = Game(HOUSE, 3, seed)
        assert first_card(game) == pile[-1]
        kind = Kind.N0 if pile[-1].kind in NUMBERS else pile[-1].kind
        assert (game.turn, game.phase) == expected_first(kind, game.dealer, 3)
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_the_dealer_draw_ties_draw_again_in_seat_order() -> None:
    """From a classic deck shuffled by ``SEED/dealer``, seat 0 first; the seats tied for the
    highest number draw again, lowest seat first; the highest deals."""
    ties = 0
    for seed in range(300):
        deck = classic_deck()
        random.Random(f"{seed}/dealer").shuffle(deck)
        draws, contenders = [], [0, 1, 2, 3]
        while len(contenders) > 1:
            values = {}
            for seat in contenders:
                card = deck.pop()
                draws.append([seat, card.text])
                values[seat] = card.number or 0
            best = max(values.values())
            contenders = [s for s in contenders if values[s] == best]
        event = Game(HOUSE, 4, seed).start_events[0]
        assert event.kind == "dealer_draw"
        assert [list(d) for d in event.data["draws"]] == draws and event.data["dealer"] == contenders[0]
        ties += len(draws) > 4
    assert ties >= 10


@pytest.mark.parametrize("reshuffles", [0, 1])
def test_a_reshuffle_is_seeded_by_the_seed_the_round_and_its_count(reshuffles: int) -> None:
    game = parse_position(f"seed: 7; round: 2; reshuffles: {reshuffles}; hand 0: R5 G7; hand 1: B1 B2;"
                          " draw: G2; discard: Y3 R3 G4 B9 R9; turn: 0; pending: 2; stack: 1")
    events = game.apply(parse_action("0 draw"))
    cards = [Card.parse(c) for c in ("Y3", "R3", "G4", "B9")]  # all but the top, bottom first
    random.Random(f"7/2/reshuffle/{reshuffles + 1}").shuffle(cards)
    pile = [*cards, Card.parse("G2")]  # under what is left; the end is the top
    (reshuffled,) = [e for e in events if e.kind == "reshuffled"]
    assert reshuffled.data["count"] == 4
    drew = next(e for e in events if e.kind == "drew")
    assert list(drew.data["cards"]) == [pile[-1].text, pile[-2].text]
    assert game.draw_pile == pile[:-2]


def test_a_hand_knocked_out_by_the_mercy_limit_is_shuffled_in_by_its_seat() -> None:
    game = parse_position("rules: house mercy_limit=9; seed: 5; round: 3; hand 0: R1; "
                          "hand 1: B1 B2 B3 B4 B5 B6 B7 B8; hand 2: G1 G2; draw: Y1 Y2 Y3; "
                          "discard: R9; turn: 1")
    game.apply(parse_action("1 draw"))
    hand = ["B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "Y1"]  # with the card drawn
    pile = [Card.parse(c) for c in (*hand, "Y3", "Y2")]  # under what is left
    random.Random("5/3/mercy/1").shuffle(pile)
    assert game.out[1] and game.draw_pile == pile


def test_an_action_between_rounds_is_round_over_a_play_too_and_from_a_seat_out_it_is_out() -> None:
    """Every game action after the round's end gets ``round_over`` (a play used to get
    ``bad_play``); a play from a seat out of the round gets ``out``, as a call does."""
    game = parse_position("hand 0: R5; hand 1: B1 B2; hand 2: G1 G2; discard: R3; turn: 0")
    game.apply(parse_action("0 play R5"))
    assert game.phase is Phase.ROUND_OVER
    for action in ("1 play B1", "1 draw", "1 pass", "1 uno", "1 catch 2", "1 challenge", "1 color R"):
        with pytest.raises(IllegalAction) as refused:
            game.apply(parse_action(action))
        assert refused.value.code == "round_over", action
    game = parse_position("rules: house mercy_limit=9; hand 0: R5 R6; hand 1: B1 B2; hand 2: -; out: 2;"
                          " discard: R3; turn: 0")
    for action in ("2 play R3", "2 uno"):
        with pytest.raises(IllegalAction) as refused:
            game.apply(parse_action(action))
        assert refused.value.code == "out", action


async def test_the_server_refuses_outside_a_round_as_the_page_says() -> None:
    """Before a match: not_started. Between rounds: round_over on the latest seq, too_late
    on an older one. After match_over: not_started (too_late on an older seq)."""
    async with running(dataclasses.replace(FAST, deal_pause=60.0)) as server:
        host = await Raw.connect(server.port, "host")
        await host.reply(pr.CreateRoom(name="t", seats=2, id=1))
        assert (await host.reply(pr.Play(seq=0, cards=("R5",), id=2))).code == "not_started"  # type: ignore[attr-defined]
        clients, room = await staged(server, 2, "hand 0: R5; hand 1: B1 B2; discard: R3; turn: 0")
        a, b = clients
        before = room.seq
        assert (await a.reply(pr.Play(seq=before, cards=("R5",), id=3))).TYPE == "ok"
        await b.expect("event", kind="round_over")
        late = await b.reply(pr.Play(seq=before, cards=("B1",), id=4))
        assert late.code == "too_late"  # type: ignore[attr-defined]
        between = await b.reply(pr.Play(seq=room.seq, cards=("B1",), id=5))
        assert between.code == "round_over"  # type: ignore[attr-defined]
        assert (await b.reply(pr.Draw(seq=room.seq, id=6))).code == "round_over"  # type: ignore[attr-defined]
        clients, room = await staged(server, 2, "hand 0: R5; hand 1: B1 B2; discard: R3; turn: 0;"
                                                " scores: 499 0")
        a, b = clients
        before = room.seq
        assert (await a.reply(pr.Play(seq=before, cards=("R5",), id=3))).TYPE == "ok"
        await b.expect("event", kind="match_over")
        assert (await b.reply(pr.Play(seq=before, cards=("B1",), id=4))).code == "too_late"  # type: ignore[attr-defined]
        assert (await b.reply(pr.Play(seq=room.seq, cards=("B1",), id=5))).code == "not_started"  # type: ignore[attr-defined]


async def test_a_malformed_card_or_nonce_is_a_bad_message_a_card_not_held_bad_play() -> None:
    async with running() as server:
        clients, room = await staged(server, 2, "hand 0: R5 R6; hand 1: B1 B2; discard: R3; turn: 0")
        a = clients[0]
        for cards in (["R10"], ["r5"], [5]):
            await a.send_bytes(frame({"type": "play", "seq": room.seq, "cards": cards, "id": 7}))
            refused = await a.expect("error", id=7)
            assert refused.code == "bad_message" and not refused.fatal, cards  # type: ignore[attr-defined]
        not_held = await a.reply(pr.Play(seq=room.seq, cards=("WX",), id=8))
        assert not_held.code == "bad_play"  # type: ignore[attr-defined]
        for nonce in ("bad nonce!", "x" * 65, "", 7):
            await a.send_bytes(frame({"type": "nonce", "round": 2, "nonce": nonce, "id": 9}))
            assert (await a.expect("error", id=9)).code == "bad_message", nonce  # type: ignore[attr-defined]
        unasked = await a.reply(pr.Nonce(round=2, nonce="ok", id=10))
        assert unasked.code == "bad_state"  # type: ignore[attr-defined]
        assert (await a.reply(pr.Play(seq=room.seq, cards=("R5",), id=11))).TYPE == "ok"  # still playing

