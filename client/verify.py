"""Checking the deal: every round a member saw, against the server's commitment and reveal.

A server of protocol version 3 publishes a ``commitment`` before each round, asks every
seat for a ``nonce``, and after the round sends a ``reveal`` (the secret, its salt, the
nonces and the seed). :class:`DealVerifier` hears a member's events in order and, at each
reveal, checks that the secret is the one committed to, that the seed is the hash of the
secret and the nonces, that this seat's own nonce was used (or the server said it drew
one; a seat whose nonce this client does not know it sent, as one taken back by a new
client, cannot check the round), and that dealing the round again from the seed with the
engine gives exactly the deal this member saw (its own hand, the first card, the counts,
the draw for dealer). In a two-table room it checks each table's deal, as a one-table game
of seed ``SEED/table T`` deals that round of its block, in the table's own seats.

A :class:`MatchRecord` keeps what a member saw in a file (JSON lines), so that ``uno verify
FILE`` checks it again offline with the same verifier.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from unolan.engine.fairness import commitment, deal_batch, round_seed
from unolan.engine.rotation import Seats, localize, table_rules
from unolan.engine.schedule import ROUNDS_PER_PARTNER

from unolan import engine as en

from .i18n import N_, _

VERIFIED, FAILED, UNCHECKED = "verified", "failed", "unchecked"


@dataclass(frozen=True)
class Verdict:
    """What the check of one round's deal found: ``status`` is ``verified``, ``failed``
    (the reason says what did not hold: the server cheated or is broken) or ``unchecked``
    (the reason says what this member missed, e.g. it joined after the commitment).

    The reason is kept as its English template ``why`` (marked for the catalogs) and the
    ``values`` it is filled with, so that a player reads it in their own language
    (:meth:`reason_text`) while :attr:`reason` stays English for scripts and logs."""

    round: int
    status: str
    why: str = ""
    values: dict[str, str] = field(default_factory=dict, hash=False)

    @property
    def ok(self) -> bool:
        return self.status == VERIFIED

    @property
    def reason(self) -> str:
        """Why, in English."""
        return self.why.format(**self.values)

    def reason_text(self) -> str:
        """Why, in the player's language."""
        return _(self.why).format(**self.values) if self.why else ""

    def __str__(self) -> str:
        """The verdict as ``uno verify`` prints it, in the player's language."""
        words = {VERIFIED: N_("round {round}: deal verified"),
                 FAILED: N_("round {round}: deal FAILED: {reason}"),
                 UNCHECKED: N_("round {round}: deal UNCHECKED: {reason}")}
        return _(words.get(self.status, words[UNCHECKED])).format(
            round=self.round, reason=self.reason_text())


def plain(value: Any) -> Any:
    """Event data as JSON has it (maps as dicts, sequences as lists), to compare copies."""
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


class DealVerifier:
    """One member's check of every deal (``seat`` None: a spectator, who sees no hand but
    checks the rest). Feed it every room event in order with :meth:`feed`."""

    def __init__(self, seat: int | None, rules: Mapping[str, Any] | None = None) -> None:
        self.seat = seat
        self.rules: dict[str, Any] = dict(rules) if rules else {}
        self.commitments: dict[int, str] = {}
        self.nonces: dict[int, str] = {}  # the nonce this seat sent, by round
        self.deals: dict[int, list[tuple[str, Any]]] = {}  # the deal batch seen, by round
        # A two-table room: each table's room seats (in table order) and its deal batch,
        # in those seats, by (round, table).
        self.seats_at: dict[int, Seats] = {}
        self.table_deals: dict[tuple[int, int], list[tuple[str, Any]]] = {}
        self.verdicts: list[Verdict] = []
        self._batches: dict[int | None, list[tuple[str, Any]] | None] = {}  # by table (None: one)

    def set_rules(self, rules: Mapping[str, Any]) -> None:
        self.rules = plain(rules)

    def lost_track(self) -> None:
        """Events were missed (the table was reloaded from a snapshot): a deal seen in part
        is not a deal seen."""
        self._batches.clear()

    def sent_nonce(self, round: int, nonce: str) -> None:
        """The server took this seat's ``nonce`` for ``round`` (answered ``ok``): the
        reveal must list it. A nonce refused or never answered is not known to be used."""
        self.nonces[round] = nonce

    def feed(self, kind: str, data: Mapping[str, Any]) -> Verdict | None:
        """One event as this member received it; a :class:`Verdict` at a ``reveal``."""
        table = data.get("table")
        if kind == "commitment":
            self.commitments[data["round"]] = data["commitment"]
        elif kind == "table_seated":
            a, b, c, d = data["seats"]
            self.seats_at[data["table"]] = (a, b, c, d)
        elif kind in en.EVENT_KINDS and table is None:
            self._collect(None, kind, plain(data))
        elif kind in en.EVENT_KINDS and table in self.seats_at:  # in the table's own seats
            local = {k: v for k, v in plain(data).items() if k != "table"}
            self._collect(table, kind, localize(local, self.seats_at[table]))
        if kind == "reveal":
            verdict = self.check(data)
            self.verdicts.append(verdict)
            return verdict
        return None

    def _collect(self, table: int | None, kind: str, data: dict[str, Any]) -> None:
        """Keep one table's deal batch, from its first event to the one that closes it."""
        batch = self._batches.get(table)
        if kind == "dealer_draw" or (kind == "round_started" and not (
                batch and batch[0][0] == "dealer_draw")):
            batch = self._batches[table] = []  # a deal begins (a batch left open was cut short)
        if batch is None:
            return
        batch.append((kind, data))
        if en.EVENT_KINDS[kind].closes:
            self._batches[table] = None
            start = next((d for k, d in batch if k == "round_started"), None)
            if start is None:
                return
            if table is None:
                self.deals[start["round"]] = batch
            else:
                self.table_deals[(start["round"], table)] = batch

    def check(self, reveal: Mapping[str, Any]) -> Verdict:
        """Judge one round's reveal against what was committed and dealt."""
        rnd = reveal["round"]
        secret, salt, seed = reveal["secret"], reveal["salt"], reveal["seed"]
        nonces, drawn = list(reveal["nonces"]), list(reveal["drawn"])
        committed = self.commitments.get(rnd)
        if committed is None:
            return Verdict(rnd, UNCHECKED, N_("this client did not see the round's commitment: it came before the client joined or rejoined"))
        if commitment(secret, salt) != committed:
            return Verdict(rnd, FAILED, N_("the secret revealed is not the one committed to"))
        try:
            derived = round_seed(secret, nonces)
        except ValueError as exc:
            return Verdict(rnd, FAILED, N_("a nonce revealed cannot be hashed: {problem}"),
                           {"problem": str(exc)})
        if derived != seed:
            return Verdict(rnd, FAILED, N_("the seed is not the hash of the secret and the nonces"))
        mine = self.nonces.get(rnd)
        if self.seat is not None and self.seat not in drawn:
            if mine is None:  # sent by an earlier connection, or its answer never came
                return Verdict(rnd, UNCHECKED, N_("this client does not know the nonce your "
                                                  "seat sent for this round"))
            if self.seat >= len(nonces) or nonces[self.seat] != mine:
                return Verdict(rnd, FAILED, N_("your nonce was left out of the seed"))
        tables = sorted(t for r, t in self.table_deals if r == rnd)
        if tables:
            return self._check_tables(rnd, seed, tables)
        seen = self.deals.get(rnd)
        if seen is None:
            return Verdict(rnd, UNCHECKED, N_("you did not see this round's deal"))
        return self._check_deal(rnd, seed, seen, self.seat)

    def _check_tables(self, rnd: int, seed: str, tables: list[int]) -> Verdict:
        """A two-table round: each table is dealt as a one-table game of seed
        ``SEED/table T`` deals its round within the block (see docs/protocol.md)."""
        try:
            rules = table_rules(en.Rules.from_dict(dict(self.rules)))
        except (ValueError, KeyError, en.RulesError) as exc:
            return Verdict(rnd, UNCHECKED, N_("the deal cannot be replayed here: {problem}"),
                           {"problem": str(exc)})
        for table in tables:
            seats = self.seats_at[table]
            verdict = self._check_deal(rnd, f"{seed}/table {table}", self.table_deals[(rnd, table)],
                                       seats.index(self.seat) if self.seat in seats else None,
                                       rules=rules, game_round=(rnd - 1) % ROUNDS_PER_PARTNER + 1)
            if not verdict.ok:
                return verdict
        return Verdict(rnd, VERIFIED)

    def _check_deal(self, rnd: int, seed: str, seen: list[tuple[str, Any]], seat: int | None, *,
                    rules: en.Rules | None = None, game_round: int | None = None) -> Verdict:
        """Deal round ``rnd`` again from ``seed`` and compare (a two-table room's table:
        its ``rules``, the ``game_round`` its game deals, ``seat`` in its seats)."""
        start = next(d for k, d in seen if k == "round_started")
        try:
            rules = rules or en.Rules.from_dict(dict(self.rules))
            events = deal_batch(rules, start["players"], seed, game_round or rnd, start["dealer"],
                                start["scores"])
        except (ValueError, KeyError, en.RulesError) as exc:
            return Verdict(rnd, UNCHECKED, N_("the deal cannot be replayed here: {problem}"),
                           {"problem": str(exc)})
        # Its events say the match's round (a two-table room's: the rotation's).
        expected = [(e.kind, plain({**e.data_for(seat), **({"round": rnd} if "round" in e.data else {})}))
                    for e in events]
        if expected != seen:
            diff = next((i for i, (a, b) in enumerate(zip(expected, seen, strict=False)) if a != b),
                        min(len(expected), len(seen)))
            if diff >= len(seen):  # what was seen is all as expected, but the deal went on
                return Verdict(rnd, FAILED, N_("the cards dealt do not follow from the seed (the "
                                               "deal ended early)"))
            return Verdict(rnd, FAILED, N_("the cards dealt do not follow from the seed ({what} "
                                           "differs)"), {"what": seen[diff][0]})
        return Verdict(rnd, VERIFIED)


# -- a match as a member saw it, on disk ----------------------------------------------


class MatchRecord:
    """Appends what a member saw to a file, one JSON object a line: ``{"seat": S}`` when
    it takes a seat, ``{"rules": {...}}``, ``{"nonce": N, "round": R}`` for each nonce the
    server took (answered ``ok``) and ``{"seq": Q, "kind": K, "data": {...}}`` for each event."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: TextIO = self.path.open("a", encoding="utf-8")

    def write(self, entry: dict[str, Any]) -> None:
        self._file.write(json.dumps(plain(entry)) + "\n")
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def read_record(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            raise ValueError(_("line {number} is not JSON").format(number=number)) from None
        if not isinstance(entry, dict):
            raise ValueError(_("line {number} is not a JSON object").format(number=number))
        yield entry


def verify_record(lines: Iterable[str]) -> list[Verdict]:
    """Every round's verdict over a saved match (see :class:`MatchRecord`); ``ValueError``
    names a line that cannot be read."""
    verifier = DealVerifier(None)
    for entry in read_record(lines):
        if "seat" in entry and "kind" not in entry:
            verifier.seat = entry["seat"]
        elif "rules" in entry:
            verifier.set_rules(entry["rules"])
        elif "nonce" in entry:
            verifier.sent_nonce(entry["round"], entry["nonce"])
        elif "kind" in entry:
            try:
                verifier.feed(entry["kind"], entry.get("data") or {})
            except (KeyError, TypeError, IndexError):
                raise ValueError(_("an event {kind!r} lacks what it should hold").format(
                    kind=entry["kind"])) from None
    return verifier.verdicts
