"""Hidden information, including in words: every frame every seat and a spectator receive
over whole matches, strings too, names only cards that audience may know.

What an audience may know is worked out from the game itself (replayed from the stored
seed and actions), not from the events' fields: a seat knows every hand it has held, the
cards face up (the discard pile, the dealer draw), the hands a challenge showed it, and
every hand at a round's end; a spectator the same but hands. A frame is checked against
what its audience knew after the action whose events carry its seq. The players are
unruly on purpose: they misplay, challenge, swap and rotate hands.
"""

from __future__ import annotations

import bisect
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from test_server import Audit, running
from test_storage import load
from unolan.protocol.actions import to_message
from unolan.server import Bot, Limits

from unolan import engine as en
from unolan import protocol as pr

LIMITS = Limits(deal_pause=0.0, autopilot_delay=0.0, request_rate=1e6, request_burst=1e6,
                heartbeat=3600)
_WORD = re.compile(r"[A-Za-z0-9]+")


def cards_named(value: Any) -> Iterator[str]:
    """Every card a frame names: a string that is a card, or a word of a longer one."""
    if isinstance(value, str):
        for word in _WORD.findall(value):
            try:
                if en.Card.parse(word).text == word:
                    yield word
            except ValueError:
                pass
    elif isinstance(value, dict):
        for key, item in value.items():
            if key != "token":  # a random secret: its letters may spell a card ("YR_...")
                yield from cards_named(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from cards_named(item)


class Knowledge:
    """What each audience (seats, then the spectators) may know after each stored action."""

    def __init__(self, rules: en.Rules, players: int, seed: int | str, actions: list[str],
                 seqs: list[int]) -> None:
        game = en.Game(rules, players, seed=seed)
        audiences: list[int | None] = [*range(players), None]
        known = [set[str]() for _ in audiences]
        for event in game.start_events:  # the dealer draw, face up for everyone
            for k in known:
                k |= set(cards_named(event.public_data()))
        self.seqs = seqs
        self.after: list[list[frozenset[str]]] = []
        self.counts = {"misplay": 0, "challenge": 0, "swapped": 0, "rotated": 0}
        self._see(game, known, audiences)
        for text in actions:
            action = en.parse_action(text)
            if isinstance(action, en.Challenge) and game.wd4_offender is not None:
                known[action.seat] |= {c.text for c in game.hands[game.wd4_offender]}
            before = [sorted(c.text for c in hand) for hand in game.hands]
            if isinstance(action, en.Play):
                for card in action.cards:
                    if card.text in before[action.seat]:
                        before[action.seat].remove(card.text)
            for event in game.apply(action):
                if event.kind == "dealer_draw":  # the cards drawn for the deal, face up
                    for k in known:
                        k |= set(cards_named(event.public_data()))
                if event.kind in self.counts:
                    self.counts[event.kind] += 1
            self.counts["challenge"] += isinstance(action, en.Challenge)
            for seat, hand in _passed_through(before, game):
                known[seat] |= set(hand)
            self._see(game, known, audiences)

    def _see(self, game: en.Game, known: list[set[str]], audiences: list[int | None]) -> None:
        table = {c.text for c in game.discard}
        if game.phase in ("round_over", "match_over"):
            table |= {c.text for hand in game.hands for c in hand}
        for i, who in enumerate(audiences):
            known[i] |= table
            if who is not None:
                known[i] |= {c.text for c in game.hands[who]}
        self.after.append([frozenset(k) for k in known])

    def at(self, seq: int, audience: int) -> frozenset[str]:
        """What the audience knew once the action whose events hold ``seq`` was applied."""
        n = bisect.bisect_left(self.seqs, seq)  # actions before it: the frame is of action n
        return self.after[min(n + 1, len(self.after) - 1)][audience]


def _passed_through(before: list[list[str]], game: en.Game) -> list[tuple[int, list[str]]]:
    """The hands a seat held for a moment inside one action: when hands move along more
    than one seat at once (two 0s played together under seven-zero), each seat holds
    every hand on the way before it keeps the last one."""
    after = [sorted(c.text for c in hand) for hand in game.hands]
    n = len(after)
    for shift in range(2, n):
        step = shift * game.direction
        if all(after[s] == before[(s - step) % n] for s in range(n)) and after != before:
            return [(s, before[(s - k * game.direction) % n]) for s in range(n)
                    for k in range(1, shift)]
    return []


def audit(frames: list[pr.Message], knowledge: Knowledge, audience: int) -> int:
    """Fail on a frame naming a card its audience may not know; count the cards checked."""
    checked = 0
    seq = 0
    for msg in frames:
        seq = getattr(msg, "seq", seq)
        allowed = knowledge.at(seq, audience)
        for card in cards_named(msg.to_wire()):
            checked += 1
            assert card in allowed, f"{msg.TYPE} at seq {seq} names {card} to audience {audience}: {msg}"
    return checked


def audit_tables(frames: list[pr.Message], seat: int | None) -> int:
    """A two-table room's frames to ``seat`` (None: a spectator): every private field
    they hold is that seat's own, whichever table the event is of, and a snapshot shows
    the seat its own table's hand alone (the other table as a spectator sees it). Two
    tables play two decks, so a card's name cannot tell which table's it is: the check
    is of who each hidden field belongs to. The number of hidden fields checked."""
    checked = 0
    for msg in frames:
        if isinstance(msg, pr.Event) and msg.kind in en.EVENT_KINDS:
            spec = en.EVENT_KINDS[msg.kind]
            for name in spec.private:
                if name in msg.data:
                    checked += 1
                    assert msg.data[spec.to] == seat, f"{msg.kind} {name} of seat {msg.data[spec.to]} sent to {seat}"
        elif isinstance(msg, pr.Snapshot) and msg.tables is not None:
            for table in msg.tables:
                view = table["view"]
                if seat in table["seats"]:
                    assert view["seat"] == table["seats"].index(seat)
                else:
                    checked += 1
                    assert view["seat"] is None and not view["hand"] and view["drawn"] is None, msg
    return checked


class Unruly(Bot):
    """A bot that now and then plays a card the rules may refuse (a misplay under
    ``misplay_penalty``) and challenges every Wild Draw Four it may."""

    def __init__(self, *args: Any, rng: random.Random, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.rng = rng

    async def decide(self, view: en.View, seq: int, seats: Any = None) -> None:
        if view.seat is None or view.phase in ("round_over", "match_over"):
            return
        legal = view.legal_actions()
        challenge = next((a for a in legal if isinstance(a, en.Challenge)), None)
        if challenge is not None:
            self.acted = seq
            await self.send(to_message(challenge, seq))
            return
        if (view.turn == view.seat and view.phase in ("play", "drawn") and view.hand
                and self.retries == 0 and self.rng.random() < 0.3):
            card = en.Card.parse(self.rng.choice(view.hand))
            color = None if view.rules.get("deck") == "all_wild" else \
                self.rng.choice(list(en.Color)) if card.is_wild else None
            target = None
            if card.kind in (en.Kind.WILD_TARGETED_DRAW_TWO, en.Kind.WILD_FORCED_SWAP) or (
                    view.rules.get("seven_zero") and card.text.endswith("7")):
                target = (view.seat + 1) % len(view.counts)
            self.acted = seq
            await self.send(to_message(en.Play(view.seat, (card,), color, target), seq))
            return
        await super().decide(view, seq)


async def play_match(server: Any, preset: str, seed: int, **options: Any) -> tuple[list[Bot], Audit]:
    recorder = Audit()
    rng = random.Random(seed)
    bots: list[Bot] = []

    async def one(i: int, **kw: Any) -> None:
        stream = await trio.open_tcp_stream("127.0.0.1", server.port)
        bot = Unruly(stream, name=f"p{i}", observer=recorder, rng=rng, **kw)
        bots.append(bot)
        await bot.run(stop_after_match=True)

    room = f"r{server._room_counter + 1}"
    create = pr.CreateRoom(name="audit", seats=4, preset=preset, options=options)
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: one(0, create=create))
            while room not in server.rooms:
                await trio.sleep(0.001)
            for i in range(1, 4):
                nursery.start_soon(lambda i=i: one(i, join=room))
            nursery.start_soon(lambda: one(4, join=room, spectate=True))
    return bots, recorder


@pytest.mark.parametrize("preset", ["official", "house", "party", "all-wild"])
async def test_no_frame_names_a_card_its_audience_may_not_know(preset: str, tmp_path: Path) -> None:
    db = tmp_path / "audit.db"
    async with running(LIMITS, seed=17, db_path=db) as server:
        bots, recorder = await play_match(server, preset, seed=17,
                                          target_score=1000 if preset == "all-wild" else 250)
    (record,) = (await load(db)).rooms
    rules = en.Rules.from_dict(record.rules)
    knowledge = Knowledge(rules, 4, record.match_seed, record.actions, record.action_seqs)
    checked = 0
    for bot in bots:
        audience = 4 if bot.seat is None else bot.seat
        checked += audit(recorder.frames[id(bot)], knowledge, audience)
    assert checked > 300
    counts = knowledge.counts
    if preset == "party":  # seven-zero and misplay_penalty: swaps, rotations, misplays
        assert counts["misplay"] and counts["swapped"] and counts["rotated"], counts
    if preset in ("official", "house", "party"):
        assert counts["challenge"], counts
    if preset == "all-wild":
        assert counts["swapped"], counts


def test_the_audit_catches_a_card_named_in_words() -> None:
    """A misplay's words naming the drawn card (as they once did) fail the audit."""
    game = en.parse_position("rules: party; hand 0: R1 G2; hand 1: B1 B2; draw: B9 Y7 Y8;"
                             " discard: B5; turn: 0")
    knowledge = Knowledge.__new__(Knowledge)
    knowledge.seqs = [10]
    hands = [frozenset({"R1", "G2", "Y9"}), frozenset({"B1", "B2"})]
    knowledge.after = [[*hands, frozenset({"B5"})]] * 2
    leak = pr.Event(seq=10, kind="misplay", data={
        "seat": 0, "penalty": 2, "reason": "after drawing only the drawn card Y9 may be played"})
    assert audit([leak], knowledge, 0) == 1  # its own card: fine
    with pytest.raises(AssertionError, match="names Y9"):
        audit([leak], knowledge, 1)
    # the engine's words now: the drawn card stays with its player
    game.apply(en.Draw(0))
    drawn = game.drawn
    assert drawn is not None
    events = game.apply(en.Play(0, (en.Card.parse("R1"),)))
    (misplay,) = [e for e in events if e.kind == "misplay"]
    assert drawn.text not in misplay.data["reason"] and "R1" not in misplay.data["reason"]
    with pytest.raises(en.IllegalAction, match=drawn.text):  # its player is told precisely
        game2 = en.parse_position("rules: official; hand 0: R1 G2; hand 1: B1 B2;"
                                  " draw: B9 Y7 Y8; discard: B5; turn: 0")
        game2.apply(en.Draw(0))
        game2.apply(en.Play(0, (en.Card.parse("R1"),)))
