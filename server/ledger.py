"""What a room tells and keeps of how its matches were played, beyond the play itself.

Each round's fair deal (:mod:`.fairness`): the commitment before the deal, the seats'
nonces, the reveal after the round; each race's receipt (:mod:`.receipts`); each match
over, kept in the history once its last races are settled (:mod:`.history`). The ledger
knows which of the room's matches is on and from what seed; it speaks through the room's
audience and writes to the store. The room tells it what happened: a match begun or
dealt, a round over, a race won or lost, the time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from unolan import protocol as pr

from .clock import NEVER
from .fairness import FairDeal, Fairness
from .history import KeptMatch, kept_match
from .receipts import Races

if TYPE_CHECKING:
    from .audience import Audience
    from .match import Match
    from .roster import Roster
    from .store import RoomRecord, Store


class Ledger:
    """One room's: its matches counted, the fair deals, the races, the match to keep."""

    def __init__(self, room_id: str, name: str, rules: dict[str, Any], roster: Roster,
                 audience: Audience, store: Store | None, race_window: float) -> None:
        self.room_id = room_id
        self.name = name
        self.rules = rules
        self.roster = roster
        self.audience = audience
        self.store = store
        self.matches = 0  # the matches begun in the room (the store numbers them so)
        self.match_seed: int | str | None = None  # the current match's (None: none dealt)
        self.ended: str | None = None  # when the current match ended, as the history says it
        self.fair = Fairness()  # the deal collecting nonces, and the one being played
        self.races = Races(race_window)
        self.kept: tuple[KeptMatch, int] | None = None  # a match over, kept once its races end

    def deadlines(self, collecting: bool) -> list[float | None]:
        """When the ledger has something to do: the fair deal's wait (``collecting``: the
        room waits for it to deal), a race's receipt, a match over to keep."""
        return [self.fair.deadline if collecting else None,
                self.races.deadline, self.races.settles if self.kept else None]

    # -- a match -----------------------------------------------------------------------

    def begin(self) -> int:
        """A match begins: the last one's races end now (it is kept before the next one).
        The new match's number."""
        self.receipts(NEVER)
        self.matches += 1
        return self.matches

    def dealt(self, seed: int | str) -> None:
        """The match's first round is dealt from ``seed``."""
        self.match_seed, self.ended = seed, None
        if self.store is not None:
            self.store.start_match(self.room_id, self.matches, seed, self.audience.events.seq)

    def round_over(self, match: Match, now: float, pause: float) -> None:
        """After a round: reveal how it was dealt and commit to the next one's deal (dealt
        ``pause`` from ``now``), or, the match over, have it kept."""
        over = match.over
        deal = self.fair.round_over()
        if deal is not None:
            self.audience.public("reveal", deal.reveal())
            if not over:
                self.collect(match.round + 1, now + pause)
        if over:
            self.fair.clear()
            if self.store is not None and self.match_seed is not None:
                kept = self._kept(match)
                self.kept, self.ended = (kept, self.matches), kept.ended
                self.store.match_ended(self.room_id, kept.ended)  # with the last action

    def _kept(self, match: Match) -> KeptMatch:
        """What the history keeps of ``match``, just over."""
        assert self.match_seed is not None
        winner, scores = match.outcome()
        seats = [(s.name, s.kind == "bot" or s.program) for s in self.roster.seats]
        return kept_match(self.room_id, self.name, self.rules, seats, self.match_seed, winner, scores,
                          self.ended)

    # -- the fair deal -----------------------------------------------------------------

    def collect(self, round: int, deadline: float) -> None:
        """Publish the commitment to ``round``'s deal and ask the seats whose clients
        speak version 3 for their nonces, until ``deadline``."""
        seats = self.roster.seats
        asked = [s.index for s in seats if s.member is not None and not s.piloted
                 and (s.member.version or 0) >= pr.FAIR_DEAL_VERSION]
        deal = self.fair.begin(round, len(seats), asked, deadline)
        self.audience.public("commitment", deal.announce())
        if self.store is not None:
            self.store.round_record(self.room_id, self.matches, round, deal.record())

    def seed_for(self, round: int, now: float) -> str:
        """The seed of ``round``, about to be dealt. A deal nobody was asked about (after
        a restart) is fair all the same: the server draws every nonce, and says so."""
        deal = self.fair.collecting
        if deal is None:
            self.collect(round, now)
            deal = self.fair.collecting
            assert deal is not None
        seed = self.fair.seal()
        if self.store is not None:
            self.store.round_record(self.room_id, self.matches, deal.round, deal.record())
        return seed

    # -- the races ---------------------------------------------------------------------

    def receipts(self, now: float) -> None:
        """The receipts of the races over by ``now``; then a match just over goes to the
        history, its last race's receipt with it (the race for its last card, say)."""
        for data in self.races.due(now):
            self.audience.public("receipt", data)
            if self.store is not None:
                # The history keeps the seats' names beside it: uno audit names them.
                names = [s.name for s in self.roster.seats]
                self.store.receipt(self.room_id, self.matches, self.audience.events.seq,
                                   {**data, "names": names})
        if self.kept is not None and self.races.settled(now):
            match, self.kept = self.kept, None
            if self.store is not None:
                self.store.finished(*match)

    # -- after a restart ---------------------------------------------------------------

    def restore(self, record: RoomRecord, match: Match | None) -> None:
        """Which match the stored room was on, from what seed, and when it ended; and
        ``match``, that match replayed (None: none was dealt). One that was over is kept
        in the history now: the server may have stopped before its last races settled,
        when it is kept (with the time it ended, kept with its last action; a file of an
        older server has none: now). One that plays on keeps the fair deal of its round
        under way, to reveal at its end as any round's is: if its record has its seed and
        the table was dealt from it (a seeded or unfair round, say dealt by the host's
        seed, is not)."""
        self.matches, self.match_seed, self.ended = record.matches, record.match_seed, record.ended
        if match is None:
            return
        if match.over:
            if self.store is not None:
                self.store.finished(self._kept(match), self.matches)
            return
        if match.round_over:
            return
        dealt = next((r for r in record.rounds if r["round"] == match.round and r["seed"]), None)
        if dealt is not None and match.dealt_from(dealt["seed"]):
            self.fair.dealt = FairDeal.restored(match.round, dealt)
