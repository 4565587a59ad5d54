"""A fair deal on the server: the secret, the commitment, the nonces, the reveal.

A room whose shuffles are not seeded by the host deals each round from a seed the server
and every seat draw together (:mod:`unolan.engine.fairness` has the hashes): before the
round the server draws a secret and a salt and publishes their commitment; each seat
whose client speaks protocol version 3 is asked for a nonce; the round is dealt from the
hash of the secret and the nonces when all have come or the wait is over, and a seat that
sent none gets one the server draws (listed in the reveal's ``drawn``). After the round
the secret and salt are revealed. :class:`FairDeal` is one round's; the room holds the one
being collected and the one being played.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any

from unolan.engine.fairness import NONCE, commitment, round_seed


class FairDeal:
    """One round's fair deal: collecting nonces until :meth:`seal`, then dealt from
    :attr:`seed` until :meth:`reveal` tells everyone how."""

    def __init__(self, round: int, players: int, asked: Iterable[int], deadline: float) -> None:
        """``asked``: the seats whose clients send nonces; ``deadline``: when the deal
        stops waiting for them (Trio's clock)."""
        self.round = round
        self.secret = secrets.token_hex(32)
        self.salt = secrets.token_hex(32)
        self.commitment = commitment(self.secret, self.salt)
        self.nonces: list[str | None] = [None] * players
        self.asked = set(asked)
        self.deadline = deadline
        self.drawn: list[int] = []
        self.seed: str | None = None  # set by seal

    @classmethod
    def restored(cls, round: int, record: dict[str, Any]) -> FairDeal:
        """A deal dealt before a restart, from its record (:meth:`record`), to reveal."""
        deal = cls.__new__(cls)
        deal.round, deal.asked, deal.deadline = round, set(), 0.0
        deal.secret, deal.salt, deal.commitment = record["secret"], record["salt"], record["commitment"]
        deal.nonces, deal.drawn, deal.seed = list(record["nonces"]), list(record["drawn"]), record["seed"]
        return deal

    def announce(self) -> dict[str, Any]:
        """The ``commitment`` event's data."""
        return {"round": self.round, "commitment": self.commitment}

    def offer(self, seat: int | None, round: int, nonce: str) -> str | None:
        """A seat's nonce: None if taken, else why not (the ``bad_state`` message)."""
        if seat is None:
            return "a spectator sends no nonce"
        if self.seed is not None or round != self.round:
            return f"no nonce is asked for round {round} now"
        if self.nonces[seat] is not None:
            return f"seat {seat} has sent its nonce for round {round}"
        if not NONCE.fullmatch(nonce):  # the protocol checked it already
            return "a nonce is 1 to 64 letters, digits, '_' or '-'"
        self.nonces[seat] = nonce
        return None

    @property
    def complete(self) -> bool:
        """Every asked seat has sent its nonce: no need to wait on."""
        return all(self.nonces[seat] is not None for seat in self.asked)

    def seal(self) -> str:
        """Draw a nonce for every seat that sent none, and the round's seed from them."""
        for seat, nonce in enumerate(self.nonces):
            if nonce is None:
                self.nonces[seat] = "server-" + secrets.token_hex(8)
                self.drawn.append(seat)
        self.seed = round_seed(self.secret, [n for n in self.nonces if n is not None])
        return self.seed

    def record(self) -> dict[str, Any]:
        """What the history keeps of it now (the store's ``round_record``): the secret and
        salt from the start, so that a restarted server can still reveal them."""
        return {"commitment": self.commitment, "secret": self.secret, "salt": self.salt,
                "nonces": list(self.nonces) if self.seed else None,
                "drawn": list(self.drawn) if self.seed else None, "seed": self.seed}

    def reveal(self) -> dict[str, Any]:
        """The ``reveal`` event's data (after the round only: it gives the seed away)."""
        assert self.seed is not None, "a deal is revealed after it is dealt"
        return {"round": self.round, "secret": self.secret, "salt": self.salt,
                "nonces": list(self.nonces), "drawn": list(self.drawn), "seed": self.seed}


class Fairness:
    """A room's fair deals: the one collecting nonces, and the one being played.

    The room calls :meth:`begin` before a deal (and publishes :meth:`FairDeal.announce`),
    :meth:`offer` for each ``nonce``, :meth:`ready` to know whether the deal may stop
    waiting, :meth:`seal` to get the seed it deals from, and :meth:`round_over` after the
    round for the reveal to publish."""

    def __init__(self) -> None:
        self.collecting: FairDeal | None = None
        self.dealt: FairDeal | None = None

    def begin(self, round: int, players: int, asked: Iterable[int], deadline: float) -> FairDeal:
        self.collecting = FairDeal(round, players, asked, deadline)
        return self.collecting

    def offer(self, seat: int | None, round: int, nonce: str) -> str | None:
        if self.collecting is None:
            return f"no nonce is asked for round {round} now"
        return self.collecting.offer(seat, round, nonce)

    @property
    def deadline(self) -> float | None:
        """When the deal being collected stops waiting (None: none is)."""
        return self.collecting.deadline if self.collecting is not None else None

    def ready(self, now: float) -> bool:
        deal = self.collecting
        return deal is not None and (deal.complete or now >= deal.deadline)

    def seal(self) -> str:
        deal = self.collecting
        assert deal is not None, "no deal is being collected"
        self.collecting, self.dealt = None, deal
        return deal.seal()

    def round_over(self) -> FairDeal | None:
        """The deal of the round just ended, to reveal (None: it was not a fair one)."""
        deal, self.dealt = self.dealt, None
        return deal

    def clear(self) -> None:
        self.collecting = self.dealt = None
