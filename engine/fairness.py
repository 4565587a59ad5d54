"""A deal nobody can stack: the hashes that bind a round's seed, and the deal it gives.

Before a round the server commits to a secret (:func:`commitment`, published before any
nonce is asked for), every seat sends a nonce, and the round is shuffled from a hash of
the secret and all the nonces (:func:`round_seed`): the server cannot pick the seed after
seeing the nonces, and no player can pick it without the secret. After the round the
server reveals the secret and its salt; anyone then checks both hashes and deals the
round again (:func:`deal_batch`) to compare with the cards they were dealt.

The bytes, for verifiers in other languages: SHA-256 of UTF-8 text, written as 64
lower-case hex digits; ``commitment = SHA-256(secret ":" salt)`` and
``seed = SHA-256(secret ":" nonce_0 ":" nonce_1 ... ":" nonce_n-1)``, the nonces in seat
order. A nonce is 1 to 64 of ``A-Z a-z 0-9 _ -`` (never ``:``, so the text is unambiguous).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from .actions import Deal
from .events import Event
from .game import Game
from .phases import ROUND_OVER
from .rules import Rules

NONCE = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a nonce may be: short, printable, without the separator ``:``."""


def _sha256(*parts: str) -> str:
    return hashlib.sha256(":".join(parts).encode()).hexdigest()


def commitment(secret: str, salt: str) -> str:
    """What the server publishes before a round: it binds the secret without showing it."""
    return _sha256(secret, salt)


def round_seed(secret: str, nonces: Sequence[str]) -> str:
    """The round's seed: the secret and every seat's nonce, in seat order."""
    for nonce in nonces:
        if not NONCE.fullmatch(nonce):
            raise ValueError(f"a nonce is 1 to 64 letters, digits, '_' or '-', not {nonce[:70]!r}")
    return _sha256(secret, *nonces)


def deal_batch(rules: Rules, players: int, seed: int | str, round: int, dealer: int = 0,
               scores: Sequence[int] | None = None) -> list[Event]:
    """The events of dealing ``round`` from ``seed``, closing event included: for round 1
    the match's start (the draw for dealer, then the deal); for a later round the deal of
    ``dealer`` (the last round's winner), ``scores`` being the match's so far. Chance comes
    from the seed alone, so these are the events a fair server sent, private fields and all
    (:meth:`Event.data_for` cuts a seat's copy)."""
    if round == 1:
        return list(Game(rules, players, seed).start_events)
    # Built by Game itself (not State.__init__ run on a bare Game.__new__: compiled, that
    # left the fields' first values alive for good, a dozen lists per fair deal).
    at = {"rules": rules, "players": players, "seed": seed, "phase": ROUND_OVER,
          "round": round - 1, "turn": dealer, "dealer": dealer}
    if scores is not None:
        at["scores"] = list(scores)
    return list(Game(at=at).apply(Deal(dealer, seed)))
