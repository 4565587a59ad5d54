"""Checking the deal: every round a member saw, against the server's commitment and reveal.

A server of protocol version 3 publishes a ``commitment`` before each round, asks every
seat for a ``nonce``, and after the round sends a ``reveal`` (the secret, its salt, the
nonces and the seed). :class:`DealVerifier` hears a member's events in order and, at each
reveal, checks that the secret is the one committed to, that the seed is the hash of the
secret and the nonces, that this seat's own nonce was used (or the server said it drew
one; a seat whose nonce this client does not know it sent, as one taken back by a new
client, cannot check the round), and that dealing the round again from the seed with the engine gives exactly the
deal this member saw (its own hand, the first card, the counts, the draw for dealer).

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
        self.verdicts: list[Verdict] = []
        self._batch: list[tuple[str, Any]] | None = None

    def set_rules(self, rules: Mapping[str, Any]) -> None:
        self.rules = plain(rules)

    def lost_track(self) -> None:
        """Events were missed (the table was reloaded from a snapshot): a deal seen in part
        is not a deal seen."""
        self._batch = None

    def sent_nonce(self, round: int, nonce: str) -> None:
        """The server took this seat's ``nonce`` for ``round`` (answered ``ok``): the
        reveal must list it. A nonce refused or never answered is not known to be used."""
        self.nonces[round] = nonce

    def feed(self, kind: str, data: Mapping[str, Any]) -> Verdict | None:
        """One event as this member received it; a :class:`Verdict` at a ``reveal``."""
        if kind == "commitment":
            self.commitments[data["round"]] = data["commitment"]
        elif kind == "dealer_draw" or (kind == "round_started" and not (
                self._batch and self._batch[0][0] == "dealer_draw")):
            self._batch = []  # a deal begins (a batch left open was cut short: dropped)
        if self._batch is not None and kind in en.EVENT_KINDS:
            self._batch.append((kind, plain(data)))
            if en.EVENT_KINDS[kind].closes:
                batch, self._batch = self._batch, None
                start = next((d for k, d in batch if k == "round_started"), None)
                if start is not None:
                    self.deals[start["round"]] = batch
        if kind == "reveal":
            verdict = self.check(data)
            self.verdicts.append(verdict)
            return verdict
        return None

    def check(self, reveal: Mapping[str, Any]) -> Verdict:
        """Judge one round's reveal against what was committed and dealt."""
        rnd = reveal["round"]
        secret, salt, seed = reveal["secret"], reveal["salt"], reveal["seed"]
        nonces, drawn = list(reveal["nonces"]), list(reveal["drawn"])
        committed = self.commitments.get(rnd)
        if committed is None:
            return Verdict(rnd, UNCHECKED, N_("the commitment came before you joined"))
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
        seen = self.deals.get(rnd)
        if seen is None:
            return Verdict(rnd, UNCHECKED, N_("you did not see this round's deal"))
        return self._check_deal(rnd, seed, seen)

    def _check_deal(self, rnd: int, seed: str, seen: list[tuple[str, Any]]) -> Verdict:
        start = next(d for k, d in seen if k == "round_started")
        try:
            rules = en.Rules.from_dict(dict(self.rules))
            events = deal_batch(rules, start["players"], seed, rnd, start["dealer"], start["scores"])
        except (ValueError, KeyError, en.RulesError) as exc:
            return Verdict(rnd, UNCHECKED, N_("the deal cannot be replayed here: {problem}"),
                           {"problem": str(exc)})
        expected = [(e.kind, plain(e.data_for(self.seat))) for e in events]
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
