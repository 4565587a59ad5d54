"""Shuffles: ``random.Random.shuffle``'s, reproduced step for step but quicker.

Their own module because they are a self-contained speed-up of the standard library,
checked against it at import; the game only calls them.
"""

from __future__ import annotations

import random
from typing import Final

from .cards import _CLASSIC, Card


def _shuffle(rng: random.Random, cards: list[Card]) -> None:
    """``rng.shuffle(cards)``, exactly: the same swaps and the same draws from ``rng``."""
    if _exact_shuffle():
        _fisher_yates(rng, cards)
    else:
        rng.shuffle(cards)


def _fisher_yates(rng: random.Random, cards: list[Card]) -> None:
    """What ``random.Random.shuffle`` does, about twice as fast: it calls a Python method
    per card for the random index, this loop draws the bits itself."""
    getrandbits = rng.getrandbits
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _shuffle_step(rng: random.Random, cards: list[Card], i: int) -> None:
    """One step of the shuffle: the one that settles ``cards[i]`` (for i from the top down)."""
    if i > 0:
        n = i + 1
        k = n.bit_length()
        j = rng.getrandbits(k)
        while j >= n:
            j = rng.getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _same_as_random_shuffle() -> bool:
    """Whether :func:`_fisher_yates` and the steps match this Python's ``Random.shuffle``."""
    cards = list(_CLASSIC)
    mine, theirs = list(cards), list(cards)
    _fisher_yates(random.Random("check"), mine)
    random.Random("check").shuffle(theirs)
    stepped, rng = list(cards), random.Random("check")
    for i in range(len(stepped) - 1, -1, -1):
        _shuffle_step(rng, stepped, i)
    return mine == theirs == stepped


_STANDARD_SHUFFLE: Final = random.Random.shuffle
_SAME_AS_STANDARD: Final = _same_as_random_shuffle()


def _exact_shuffle() -> bool:
    """Whether shuffling may bypass ``random.Random.shuffle``: when this Python's shuffle
    is the one reproduced here and nobody has replaced it (a test may stub it)."""
    return _SAME_AS_STANDARD and random.Random.shuffle is _STANDARD_SHUFFLE
