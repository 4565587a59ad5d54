"""A local mirror of the table, kept from the events one seat sees.

The server owns the game; a client only hears its events. :class:`Mirror` replays those
events the way the engine produced them, so that after every action its
:meth:`~Mirror.view` equals the server's ``game.view(seat)`` field for field, and
``mirror.view().legal_actions()`` answers what the seat may do without asking anyone.

Events arrive with the room's sequence number. :meth:`Mirror.feed` checks continuity and
raises :class:`SeqGap` when something was missed; the owner then asks for a snapshot and
calls :meth:`Mirror.load`, which replaces the whole table.

The mirror knows nothing about sockets: tests feed it a :class:`~unolan.engine.Game`'s
events directly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any

from unolan.engine import Card, Rules, View, all_wild_deck, classic_deck
from unolan.engine.cards import Kind
from unolan.protocol import ENGINE_EVENTS

DECK_SIZE = {"classic": len(classic_deck()), "all_wild": len(all_wild_deck())}
# The events that close one action's events (or a deal's): the table is whole again.
_CLOSING = frozenset({"turn", "round_over", "match_over"})
# The only card whose penalty may be challenged.
_FOUR = Kind.WILD_DRAW_FOUR.value


class SeqGap(Exception):
    """An event's ``seq`` is not the one after the last seen: events were missed."""

    def __init__(self, expected: int, got: int) -> None:
        super().__init__(f"expected event seq {expected}, got {got}: resync from a snapshot")
        self.expected = expected
        self.got = got


class Mirror:
    """One seat's table (``seat`` None: a spectator), rebuilt from events.

    Public state (read it, do not write it): ``hand`` (list of card texts, the engine's
    order), ``counts``, ``top``, ``color``, ``direction``, ``turn``, ``phase``, ``pending``,
    ``called``, ``catchable`` (a set), ``scores``, ``draw_count``, ``discard_count``,
    ``round``, ``dealer``, ``drawn``, ``out``, ``stack``, ``pair``, ``served``, ``rules``
    (a dict) and ``seq`` (the last event's sequence number, or None).
    """

    def __init__(self, seat: int | None, rules: Rules | Mapping[str, Any] | None = None) -> None:
        self.seat = seat
        self.rules: dict[str, Any] = {}
        self._rules: Rules | None = None
        if rules is not None:
            self.set_rules(rules)
        self.seq: int | None = None
        # Between actions: the last engine event closed one (a turn, a round's end) or a
        # snapshot was loaded. In the middle of an action's events the table is half-drawn.
        self.settled = False
        self.players = 0
        self.started = False  # a round has been dealt (the table exists)
        self.hand: list[str] = []
        self.counts: list[int] = []
        self.top: str | None = None
        self.color: str | None = None
        self.direction = 1
        self.turn = 0
        self.phase = "play"
        self.pending = 0
        self.called: list[bool] = []
        self.catchable: set[int] = set()
        self.scores: list[int] = []
        self.draw_count = 0
        self.discard_count = 0
        self.round = 0
        self.dealer = 0
        self.drawn: str | None = None
        self.out: list[bool] = []
        self.stack = 0
        self.pair = False
        self.served = self.opening = False
        # Within one action's events (reset by ``turn``): what the engine knew but did not say.
        self._in_play = False  # a card was played in this action
        self._auto_serve = False  # the penalty just played is drawn at once
        self._last_drawn: str | None = None  # the last card this seat drew for its turn

    # -- set-up --------------------------------------------------------------------

    def set_rules(self, rules: Rules | Mapping[str, Any]) -> None:
        if isinstance(rules, Rules):
            self._rules = rules
        else:
            self._rules = Rules.from_dict(dict(rules))
        self.rules = self._rules.to_dict()

    @classmethod
    def from_view(cls, view: View | Mapping[str, Any], seq: int | None = None) -> Mirror:
        """A mirror holding a snapshot's view."""
        data = view.to_dict() if isinstance(view, View) else view
        mirror = cls(data["seat"], data["rules"])
        mirror.load(data, seq)
        return mirror

    def load(self, view: View | Mapping[str, Any], seq: int | None = None) -> None:
        """Replace the whole table with a snapshot's view (taken as of ``seq``)."""
        data = view.to_dict() if isinstance(view, View) else dict(view)
        self.seat = data["seat"]
        self.set_rules(data["rules"])
        self.hand = list(data["hand"])
        self.counts = list(data["counts"])
        self.players = len(self.counts)
        self.top = data["top"]
        self.color = data["color"]
        self.direction = data["direction"]
        self.turn = data["turn"] if data["turn"] is not None else 0
        self.phase = data["phase"]
        self.pending = data["pending"]
        self.called = list(data["called"])
        self.catchable = set(data["catchable"])
        self.scores = list(data["scores"])
        self.draw_count = data["draw_count"]
        self.discard_count = data["discard_count"]
        self.round = data["round"]
        self.dealer = data["dealer"] if data["dealer"] is not None else 0
        self.drawn = data["drawn"]
        self.out = list(data["out"])
        self.stack = data.get("stack", 0)
        self.pair = data.get("pair", False)
        self.served = data.get("served", False)
        self.opening = data.get("opening", False)
        self.started = self.top is not None and self.round > 0
        self._in_play = self._auto_serve = False
        self._last_drawn = self.drawn
        if seq is not None:
            self.seq = seq
        self.settled = self.started

    # -- reading -------------------------------------------------------------------

    @property
    def challengeable(self) -> bool:
        r = self._rules
        return bool(
            r is not None and r.challenge and not r.all_wild and self.pending > 0
            and self.stack == 1 and self.top == _FOUR
        )

    @property
    def my_turn(self) -> bool:
        return self.started and self.seat is not None and self.turn == self.seat

    def _as_view(self) -> View:
        """The table as a :class:`View`, whether or not a round has been dealt."""
        values = {field.name: getattr(self, field.name) for field in fields(View)}
        values["catchable"] = sorted(self.catchable)
        values["rules"] = dict(self.rules)  # the view's own copy, as off the wire
        return View.from_dict(values)

    def to_dict(self) -> dict[str, Any]:
        """The same map as the engine's ``game.view(seat).to_dict()``."""
        return self._as_view().to_dict()

    def view(self) -> View:
        """The table as an engine :class:`View` (``view.legal_actions()`` works on it)."""
        if not self.started or self.top is None:
            raise RuntimeError("no round has been dealt yet")
        return self._as_view()

    # -- events --------------------------------------------------------------------

    def feed(self, seq: int, kind: str, data: Mapping[str, Any]) -> bool:
        """Apply one room event with its ``seq``. False: an old event, ignored.

        Raises :class:`SeqGap` (and applies nothing) unless ``seq`` is exactly one more
        than the last: the server sends every member every seq (an event whose private
        fields are not for this seat comes without them), so any gap means events were
        missed and the table must be reloaded from a snapshot.
        """
        if self.seq is not None:
            if seq <= self.seq:
                return False
            if seq != self.seq + 1:
                raise SeqGap(self.seq + 1, seq)
        self.apply(kind, data)
        self.seq = seq
        return True

    def apply(self, kind: str, data: Mapping[str, Any]) -> None:
        """Apply one event (engine kinds change the table; any other kind is ignored).

        Every engine event but the one that closes an action's events (``turn``,
        ``round_over``, ``match_over``) leaves the table unsettled, including those that
        change nothing the mirror keeps (``passed``, ``skipped``, ``revealed``): the
        rest of that action's events is still on its way.
        """
        if kind not in ENGINE_EVENTS:
            return
        handler = getattr(self, "_on_" + kind, None)
        if handler is not None:
            handler(data)
        self.settled = kind in _CLOSING

    def _units(self) -> int:
        teams = self.rules.get("teams", 0)
        return teams or self.players

    def _on_dealer_draw(self, data: Mapping[str, Any]) -> None:
        self.scores = []  # a new match: the scores start again
        if "dealer" in data:
            self.dealer = data["dealer"]

    def _on_round_started(self, data: Mapping[str, Any]) -> None:
        n, size = data["players"], data["hand_size"]
        self.players = n
        self.started = True
        self.round = data["round"]
        self.dealer = data["dealer"]
        if len(self.scores) != self._units():
            self.scores = [0] * self._units()
        self.hand = []
        self.counts = [size] * n
        self.top = None
        self.color = None
        self.direction = 1
        self.turn = self.dealer
        self.phase = "play"
        self.pending = self.stack = 0
        self.pair = self.served = False
        self.drawn = self._last_drawn = None
        self.called = [False] * n
        self.catchable = set()
        self.out = [False] * n
        self.discard_count = 0
        deck = DECK_SIZE.get(self.rules.get("deck", "classic"), 108)
        self.draw_count = deck - n * size

    def _on_hand(self, data: Mapping[str, Any]) -> None:
        seat = data["seat"]
        if "cards" not in data:  # another seat's hand, its cards left out
            return
        if seat == self.seat:
            self.hand = list(data["cards"])
        if 0 <= seat < len(self.counts):
            self.counts[seat] = len(data["cards"])

    def _on_first_card(self, data: Mapping[str, Any]) -> None:
        self.top = data["card"]
        self.color = data["color"]
        self.discard_count = 1
        self.draw_count -= 1
        self.served = Card.parse(self.top).kind is Kind.DRAW_TWO
        self.opening = True

    def _on_turn(self, data: Mapping[str, Any]) -> None:
        self.turn = data["seat"]
        self.direction = data["direction"]
        self.phase = data["phase"]
        self.pending = data["pending"]
        mine = self.seat is not None and self.turn == self.seat
        self.drawn = self._last_drawn if self.phase == "drawn" and mine else None
        self._in_play = self._auto_serve = False

    def _on_played(self, data: Mapping[str, Any]) -> None:
        seat, cards = data["seat"], list(data["cards"])
        answering = self.pending > 0
        self.catchable.clear()
        self.counts[seat] -= len(cards)
        if seat == self.seat:
            for card in cards:
                self.hand.remove(card)
        self.discard_count += len(cards)
        self.top = cards[-1]
        self.color = data["color"]
        self.served = self.opening = False
        self.drawn = None
        self._in_play = True
        if self.counts[seat] == 1:  # an "uno" event follows if the play called it
            self.called[seat] = False
            self.catchable.add(seat)
        first = Card.parse(cards[0])
        if first.penalty:
            rules = self._rules
            assert rules is not None, "the mirror needs the rules"
            times = 1 if rules.pair_single_effect else len(cards)
            if not answering:
                self.pending = self.stack = 0
            self.pending += first.penalty * times
            self.stack += len(cards)
            self.pair = len(cards) == 2 and first.kind is Kind.DRAW_TWO
            may_answer = (
                rules.stacking != "off"
                or (first.kind is Kind.DRAW_TWO and rules.deflect)
                or self.challengeable
            )
            self._auto_serve = not may_answer

    def _serve(self) -> None:
        self.pending = self.stack = 0
        self.pair = False
        self.served = True

    def _on_penalty(self, data: Mapping[str, Any]) -> None:
        self.pending = data["amount"]

    def _on_drew(self, data: Mapping[str, Any]) -> None:
        seat, count, reason = data["seat"], data["count"], data["reason"]
        if reason == "draw":
            self.catchable.clear()
        elif reason == "penalty":
            if not self._in_play:  # the seat in turn took the pending penalty
                self.catchable.clear()
                self._serve()
            elif self._auto_serve:  # the penalty just played could not be answered
                self._auto_serve = False
                self._serve()
            else:  # the last card was a penalty card: drawn before scoring
                self.pending = 0
        self.counts[seat] += count
        self.draw_count -= count
        if count:
            self.called[seat] = False
            self.catchable.discard(seat)
        cards = data.get("cards")
        if seat == self.seat and cards is not None:
            self.hand += cards
            if reason == "draw" and cards:
                self._last_drawn = cards[-1]

    def _on_reshuffled(self, data: Mapping[str, Any]) -> None:
        self.draw_count += data["count"]
        self.discard_count = 1

    def _on_color_chosen(self, data: Mapping[str, Any]) -> None:
        self.color = data["color"]

    def _on_reversed(self, data: Mapping[str, Any]) -> None:
        self.direction = data["direction"]

    def _on_challenged(self, data: Mapping[str, Any]) -> None:
        self.catchable.clear()
        self._serve()

    def _on_uno(self, data: Mapping[str, Any]) -> None:
        self.called[data["seat"]] = True
        self.catchable.discard(data["seat"])

    def _on_caught(self, data: Mapping[str, Any]) -> None:
        self.catchable.discard(data["target"])

    def _hands_moved(self, seats: list[int]) -> None:
        self.catchable.difference_update(seats)
        for s in seats:
            if self.counts[s] == 1 and not self.called[s]:
                self.catchable.add(s)

    def _on_swapped(self, data: Mapping[str, Any]) -> None:
        a, b = data["seats"]
        self.counts[a], self.counts[b] = self.counts[b], self.counts[a]
        self.called[a], self.called[b] = self.called[b], self.called[a]
        self._hands_moved([a, b])

    def _on_rotated(self, data: Mapping[str, Any]) -> None:
        seats = [s for s in range(self.players) if not self.out[s]]
        if self.direction < 0:
            seats.reverse()
        counts = [self.counts[s] for s in seats]
        called = [self.called[s] for s in seats]
        for i, s in enumerate(seats):
            self.counts[s] = counts[i - 1]
            self.called[s] = called[i - 1]
        self._hands_moved(seats)

    def _on_out(self, data: Mapping[str, Any]) -> None:
        seat = data["seat"]
        if data["reason"] == "mercy":
            self.draw_count += self.counts[seat]
            self.counts[seat] = 0
            if seat == self.seat:
                self.hand = []
        self.out[seat] = True
        self.catchable.discard(seat)

    def _on_round_over(self, data: Mapping[str, Any]) -> None:
        winner = data["winner"]
        if winner is not None:
            if winner != self.turn:
                self.drawn = None
            self.turn = winner
        self.scores = list(data["scores"])
        self.catchable.clear()
        self.pending = 0
        self.phase = "round_over"
        self._in_play = self._auto_serve = False

    def _on_match_over(self, data: Mapping[str, Any]) -> None:
        self.scores = list(data["scores"])
        self.phase = "match_over"
