"""Built-in strategies. Each sees only its seat's view and the events its seat sees.

- ``random``: uniform over the legal actions; calls UNO, catches and jumps in by coin toss.
- ``greedy``: sheds points (action cards first, wilds last), names the color it holds
  most, always calls UNO and catches, jumps in when it can, challenges a Wild Draw Four
  when the odds of a bluff favour it.
- ``counter``: counts the cards it has seen, notes which colors each opponent lacks,
  keeps the color it can follow, saves wilds and action cards for when an opponent is
  close to going out and then attacks the leader; challenges by the odds and by what the
  offender's earlier challenges showed.

``STRATEGIES`` maps names to classes; :func:`make_bot` builds one by name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from math import comb
from typing import Any

from unolan.engine import (
    Action,
    Card,
    Challenge,
    ChooseColor,
    Color,
    Draw,
    Pass,
    Phase,
    Play,
    View,
)
from unolan.engine.cards import COLORS, Kind, all_wild_deck, classic_deck

from .bot import Bot, seat_of

_ATTACK = {Kind.SKIP, Kind.DRAW_TWO, Kind.WILD_DRAW_FOUR, Kind.WILD_SKIP, Kind.WILD_SKIP_TWO,
           Kind.WILD_DRAW_TWO, Kind.WILD_TARGETED_DRAW_TWO}
_SWAPS = {Kind.WILD_FORCED_SWAP, Kind.N7}


def hand_cards(view: View) -> list[Card]:
    return [Card.parse(c) for c in view.hand]


def color_counts(cards: list[Card]) -> Counter[Color]:
    return Counter(c.color for c in cards if c.color is not None)


def remaining(hand: list[Card], play: Play) -> list[Card]:
    rest = list(hand)
    for card in play.cards:
        rest.remove(card)
    return rest


def next_seat(view: View, seat: int, direction: int | None = None) -> int:
    n, d = len(view.counts), view.direction if direction is None else direction
    for _ in range(n):
        seat = (seat + d) % n
        if not view.out[seat]:
            return seat
    return seat


def opponents(view: View) -> list[int]:
    return [s for s in range(len(view.counts)) if s != view.seat and not view.out[s]]


class RandomBot(Bot):
    """Uniform over the legal actions, and a coin toss for every out-of-turn chance."""

    name = "random"

    def choose(self, view: View, legal: list[Action]) -> Action:
        return self.rng.choice(legal)

    def call_uno(self, view: View) -> bool:
        return self.rng.random() < 0.5

    def catch(self, view: View, target: int) -> bool:
        return self.rng.random() < 0.5

    def jump_in(self, view: View, plays: list[Play]) -> Play | None:
        return self.rng.choice([*plays, None])


class Tracking(Bot):
    """Shared bookkeeping from events: the color before the last card, challenge records."""

    def __init__(self, seed: int | str | None = None) -> None:
        super().__init__(seed)
        self.color: str | None = None
        self.color_before: str | None = None  # the color the last play was made on
        self.guilty: Counter[int] = Counter()  # seats caught bluffing a Wild Draw Four
        self.innocent: Counter[int] = Counter()

    def observe(self, kind: str, data: Mapping[str, Any]) -> None:
        if kind == "first_card":
            self.color = data["color"]
        elif kind == "played":
            self.color_before, self.color = self.color, data["color"]
        elif kind == "color_chosen":
            self.color = data["color"]
        elif kind == "challenged":
            (self.guilty if data["guilty"] else self.innocent)[data["target"]] += 1

    def bluff_odds(self, view: View, unseen_of_color: int, unseen: int) -> float:
        """The chance that the pending Wild Draw Four was played holding the old color."""
        offender = next_seat(view, seat_of(view), -view.direction)
        h = view.counts[offender]
        if unseen <= 0 or h <= 0:
            return 0.0
        h = min(h, unseen)
        return 1 - comb(unseen - unseen_of_color, h) / comb(unseen, h)


class GreedyBot(Tracking):
    """Sheds the most points it can, keeps wilds for last, names its strongest color."""

    name = "greedy"

    def best_color(self, cards: list[Card]) -> Color:
        counts = color_counts(cards)
        return max(COLORS, key=lambda c: (counts[c], -COLORS.index(c)))

    def target(self, view: View) -> int:
        return min(opponents(view), key=lambda s: (view.counts[s], s))

    def should_challenge(self, view: View) -> bool:
        if self.color_before is None:
            return False
        mine = sum(1 for c in hand_cards(view) if c.color and c.color.value == self.color_before)
        # A rough count: a fifth of the unseen cards are of that color.
        unseen = 108 - len(view.hand) - view.discard_count
        return self.bluff_odds(view, max(0, unseen // 4 - mine), unseen) > 1 / 3

    def play_key(self, view: View, hand: list[Card], play: Play) -> tuple[Any, ...]:
        first = play.cards[0]
        rest = remaining(hand, play)
        counts = color_counts(rest)
        color = play.color or first.color
        fits_target = play.target is None or play.target == self.target(view)
        return (
            fits_target,
            not first.is_wild or view.rules.get("deck") == "all_wild",
            play.target is None or first.kind is not Kind.WILD_FORCED_SWAP
            or view.counts[play.target] < len(rest),
            len(play.cards),
            sum(c.points for c in play.cards),
            counts[color] if color else 0,
        )

    def color_or_challenge(self, view: View, hand: list[Card], legal: list[Action]) -> Action | None:
        """Name the strongest color when asked; challenge a Wild Draw Four when it pays."""
        if view.phase is Phase.COLOR:
            return ChooseColor(seat_of(view), self.best_color(hand))
        if Challenge(seat_of(view)) in legal and self.should_challenge(view):
            return Challenge(seat_of(view))
        return None

    def choose(self, view: View, legal: list[Action]) -> Action:
        hand = hand_cards(view)
        if (forced := self.color_or_challenge(view, hand, legal)) is not None:
            return forced
        plays = [a for a in legal if isinstance(a, Play)]
        if view.phase is Phase.DRAWN:
            if plays and (not plays[0].cards[0].is_wild or len(hand) <= 3):
                return max(plays, key=lambda p: self.play_key(view, hand, p))
            return Pass(seat_of(view)) if Pass(seat_of(view)) in legal else plays[0]
        if plays:
            return max(plays, key=lambda p: self.play_key(view, hand, p))
        return Draw(seat_of(view))

    def jump_in(self, view: View, plays: list[Play]) -> Play | None:
        hand = hand_cards(view)
        return max(plays, key=lambda p: self.play_key(view, hand, p))


class CounterBot(GreedyBot):
    """Counts cards and colors; saves its weapons for an opponent about to go out."""

    name = "counter"

    def __init__(self, seed: int | str | None = None) -> None:
        super().__init__(seed)
        self.discards: Counter[str] = Counter()  # cards in the discard pile now
        self.void: dict[int, set[str]] = {}  # colors a seat probably lacks
        self.deck: Counter[str] = Counter()

    def observe(self, kind: str, data: Mapping[str, Any]) -> None:
        before = self.color
        super().observe(kind, data)
        if kind == "round_started":
            self.discards.clear()
            self.void.clear()
        elif kind == "first_card":
            self.discards[data["card"]] += 1
        elif kind == "played":
            self.discards.update(data["cards"])
            self.void.get(data["seat"], set()).difference_update(
                c[0] for c in data["cards"] if c[0] in "RYGB")
        elif kind == "reshuffled":
            self.discards.clear()  # only the top card stays; it is counted as unseen again
        elif kind == "drew" and data["reason"] == "draw" and before is not None:
            self.void.setdefault(data["seat"], set()).add(before)
        elif kind in ("swapped", "rotated", "hand"):
            self.void.clear()

    def unseen(self, view: View) -> Counter[str]:
        """Cards this seat has not seen: the deck less its hand and the discard pile."""
        if not self.deck:
            deck = all_wild_deck() if view.rules.get("deck") == "all_wild" else classic_deck()
            self.deck = Counter(c.text for c in deck)
        return self.deck - Counter(view.hand) - self.discards

    def should_challenge(self, view: View) -> bool:
        if self.color_before is None:
            return False
        pool = self.unseen(view)
        total = sum(pool.values())
        of_color = sum(n for card, n in pool.items() if card[0] == self.color_before and card[0] in "RYGB")
        offender = next_seat(view, seat_of(view), -view.direction)
        # How often this seat's Wild Draw Fours proved bluffs when challenged. The prior
        # (a quarter) trusts a seat until a challenge shows it bluffs: a wrong challenge
        # costs 2 cards more, and most players do not bluff.
        rate = (self.guilty[offender] + 0.5) / (self.guilty[offender] + self.innocent[offender] + 2)
        return self.bluff_odds(view, of_color, total) * rate > 1 / 3

    def danger(self, view: View) -> int | None:
        """The opponent closest to going out, if one holds two cards or fewer."""
        rivals = [s for s in opponents(view) if view.counts[s] <= 2]
        if not rivals:
            return None
        return min(rivals, key=lambda s: view.counts[s])

    def play_score(self, view: View, hand: list[Card], play: Play) -> float:
        seat = view.seat
        assert seat is not None
        first = play.cards[0]
        rest = remaining(hand, play)
        counts = color_counts(rest)
        all_wild = view.rules.get("deck") == "all_wild"
        nxt = next_seat(view, seat)
        threat = self.danger(view)
        score = 10.0 * len(play.cards)
        if not rest:
            return 1000.0
        color = play.color or first.color
        if color is not None:
            score += 4 * counts[color]
            if color.value in self.void.get(nxt, ()):
                score += 6
        if threat is not None:
            score += 0.3 * sum(c.points for c in play.cards)  # do not be caught holding points
            near = threat == nxt or view.counts[nxt] <= 2
            if first.kind in _ATTACK and near:
                score += 25 + 10 * first.penalty
            if first.kind is Kind.REVERSE and near and len(view.counts) > 2:
                score += 20
        else:
            if first.is_wild and not all_wild:
                score -= 30 + (10 if first.kind is Kind.WILD_DRAW_FOUR else 0)
            elif first.kind in _ATTACK:
                score -= 3  # keep a weapon unless it costs a turn
        if (first.kind is Kind.WILD_DRAW_FOUR and not all_wild and not view.pending
                and any(c.color is not None and c.color.value == view.color for c in rest)):
            score -= 100  # a bluff: never worth a challenge
        if play.target is not None:
            if first.kind in _SWAPS:
                score += 5 * (len(rest) - view.counts[play.target])
            else:  # a targeted draw: hit the leader
                score -= view.counts[play.target]
        return score

    def choose(self, view: View, legal: list[Action]) -> Action:
        hand = hand_cards(view)
        if (forced := self.color_or_challenge(view, hand, legal)) is not None:
            return forced
        plays = [a for a in legal if isinstance(a, Play)]
        if not plays:
            return Draw(seat_of(view)) if Draw(seat_of(view)) in legal else legal[0]
        best = max(plays, key=lambda p: self.play_score(view, hand, p))
        if view.phase is Phase.DRAWN and Pass(seat_of(view)) in legal:
            keep = best.cards[0].is_wild and view.rules.get("deck") != "all_wild"
            if keep and self.danger(view) is None and len(hand) > 2:
                return Pass(seat_of(view))
        return best

    def jump_in(self, view: View, plays: list[Play]) -> Play | None:
        hand = hand_cards(view)
        return max(plays, key=lambda p: self.play_score(view, hand, p))


STRATEGIES: dict[str, type[Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "counter": CounterBot,
}


def make_bot(strategy: str, seed: int | str | None = None) -> Bot:
    """A new bot of a named strategy (``KeyError`` names the known ones)."""
    try:
        cls = STRATEGIES[strategy]
    except KeyError:
        raise KeyError(f"unknown strategy {strategy!r}: expected one of {', '.join(STRATEGIES)}") from None
    return cls(seed)
