"""A room's ledger on its own: the fair deal it commits to and reveals, the receipts of its
races and the match it keeps, told to an audience and written to a store that only
notes what it is given (no room, socket or database)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from test_audience import Listener
from unolan.engine.fairness import commitment, round_seed
from unolan.server.audience import Audience
from unolan.server.clock import NEVER
from unolan.server.eventlog import EventLog
from unolan.server.ledger import Ledger
from unolan.server.roster import Roster
from unolan.server.seats import Watcher


class Notes:
    """A store that notes each call the ledger makes, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        return lambda *args: self.calls.append((name, args))

    def named(self, name: str) -> list[tuple[Any, ...]]:
        return [args for called, args in self.calls if called == name]


@dataclass
class Over:
    """A match as the ledger reads one after a round."""

    over: bool
    round: int = 1
    scores: list[int] = field(default_factory=lambda: [0, 12])

    def outcome(self) -> tuple[int, list[int]]:
        return 0, self.scores


def ledger_of(seats: int) -> tuple[Ledger, Audience, Notes, Listener]:
    """A ledger of a room of bots, a spectator listening."""
    roster = Roster(seats)
    for seat in roster.seats:
        roster.seat_bot(seat, "basic")
    watcher = Listener([])
    roster.spectators[watcher] = Watcher("key", "eve")  # type: ignore[index]
    notes = Notes()
    audience = Audience("r1", roster, EventLog(64), notes)  # type: ignore[arg-type]
    ledger = Ledger("r1", "the room", {"preset": "official"}, roster, audience, notes,  # type: ignore[arg-type]
                    race_window=0.5)
    return ledger, audience, notes, watcher


def test_a_round_is_committed_to_dealt_from_every_nonce_and_revealed() -> None:
    ledger, audience, notes, watcher = ledger_of(2)
    assert ledger.begin() == 1 and ledger.begin() == 2  # a match's number, counted by the room
    ledger.collect(1, deadline=5.0)
    assert ledger.deadlines(collecting=True)[0] == 5.0
    assert ledger.deadlines(collecting=False)[0] is None
    (deal,) = [args for args in notes.named("round_record")]
    assert deal[:3] == ("r1", 2, 1) and deal[3]["seed"] is None  # the secret is kept before the deal
    seed = ledger.seed_for(1, now=1.0)
    assert seed == round_seed(deal[3]["secret"], ledger.fair.dealt.nonces)  # type: ignore[union-attr]
    assert ledger.fair.dealt.drawn == [0, 1]  # type: ignore[union-attr]  # bots send none: drawn
    ledger.dealt(seed)
    assert notes.named("start_match") == [("r1", 2, seed, audience.events.seq)]
    ledger.round_over(Over(over=False), now=2.0, pause=3.0)  # type: ignore[arg-type]
    assert [f["kind"] for f in watcher.frames] == ["commitment", "reveal", "commitment"]
    reveal = watcher.frames[1]["data"]
    assert commitment(reveal["secret"], reveal["salt"]) == deal[3]["commitment"] and reveal["seed"] == seed
    assert ledger.fair.collecting is not None and ledger.fair.collecting.round == 2
    assert ledger.fair.deadline == 5.0


def test_a_raced_action_gets_its_receipt_and_the_match_is_kept_after_its_last_race() -> None:
    ledger, _, notes, watcher = ledger_of(2)
    ledger.begin()
    ledger.dealt("seed-1")
    ledger.races.won(0, decided=3, seq=5, now=10.0)
    ledger.races.lost(1, decided=3, code="too_late", now=10.1)
    ledger.round_over(Over(over=True), now=10.2, pause=3.0)  # type: ignore[arg-type]
    assert ledger.kept is not None and notes.named("match_ended") == [("r1", ledger.ended)]
    assert not notes.named("finished")  # its last race is not over yet
    assert ledger.deadlines(collecting=False)[1:] == [10.5, 10.5]
    ledger.receipts(10.4)
    assert not notes.named("receipt")
    ledger.receipts(10.5)
    (receipt,) = notes.named("receipt")
    assert [f["data"] for f in watcher.frames if f["kind"] == "receipt"] == [
        {k: v for k, v in receipt[3].items() if k != "names"}]  # the names are the history's
    assert receipt[3]["winner"] == 0 and receipt[3]["names"] == ["bot-0", "bot-1"]
    assert [(c["seat"], c["result"]) for c in receipt[3]["contenders"]] == [(0, "won"), (1, "too_late")]
    (kept,) = notes.named("finished")
    assert kept[0].seed == "seed-1" and kept[0].winner == 0 and kept[0].scores == [0, 12] and kept[1] == 1
    assert ledger.kept is None
    ledger.receipts(NEVER)
    assert len(notes.named("finished")) == 1  # kept once
