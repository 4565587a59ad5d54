"""The fold: a seat's view of the table, kept from the events that seat receives.

A member of a room hears the engine's events as :meth:`Event.data_for` gives them to it
(private fields only in its own copy). :class:`ViewFold` applies them one by one, so that
after every batch (the events of one action, closed by an event whose kind ``closes``)
its :meth:`~ViewFold.view` equals the engine's ``game.view(seat)`` field for field.

It knows no rule: the events carry the facts. A closing event states what each seat may
do (:data:`~.events.FACTS`), and the other events state what moved — cards played or
drawn, a seat's new hand, the draw pile refilled — so the fold only copies and counts.
It lives here, beside the code that emits the events, so that the two change together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from .events import EVENT_KINDS, FACTS
from .phases import PLAY, Phase
from .rules import Rules
from .view import View

# The view's fields a snapshot may leave out, with the view's defaults.
_OPTIONAL_VIEW = {"stack": 0, "pair": False, "challengeable": False, "served": False, "opening": False}


# The client library's mirror is a fold of its own (a Python class): a compiled class
# refuses interpreted subclasses unless it says it takes them.
@mypyc_attr(allow_interpreted_subclasses=True)
class ViewFold:
    """One seat's table (``seat`` None: a spectator), rebuilt from events.

    Public state (read it, do not write it): the fields of :class:`~.view.View` —
    ``hand`` (card texts, the engine's order), ``counts``, ``top``, ``color``,
    ``direction``, ``turn``, ``phase``, ``pending``, ``called``, ``catchable``,
    ``scores``, ``draw_count``, ``discard_count``, ``round``, ``dealer``, ``drawn``,
    ``out``, ``stack``, ``pair``, ``challengeable``, ``served``, ``opening``, ``rules``
    (a dict) — plus ``started`` (a round has been dealt) and ``settled`` (the last
    event closed a batch, or a view was loaded: the table is whole).
    """

    def __init__(self, seat: int | None, rules: Rules | Mapping[str, Any] | None = None) -> None:
        self.seat = seat
        self.rules: dict[str, Any] = {}
        if rules is not None:
            self.set_rules(rules)
        self.started = False
        self.settled = False
        self.hand: list[str] = []
        self.counts: list[int] = []
        self.top: str | None = None
        self.color: str | None = None
        self.direction = 1
        self.turn = 0
        self.phase = PLAY
        self.pending = self.stack = 0
        self.pair = self.challengeable = self.served = self.opening = False
        self.called: list[bool] = []
        self.catchable: list[int] = []
        self.scores: list[int] = []
        self.draw_count = self.discard_count = 0
        self.round = self.dealer = 0
        self.drawn: str | None = None
        self.out: list[bool] = []

    def set_rules(self, rules: Rules | Mapping[str, Any]) -> None:
        """The room's rules (the view carries them; the fold needs no rule of them)."""
        self.rules = rules.to_dict() if isinstance(rules, Rules) else Rules.from_dict(dict(rules)).to_dict()

    def load(self, view: View | Mapping[str, Any]) -> None:
        """Replace the whole table with a view (a snapshot's)."""
        data = view.to_dict() if isinstance(view, View) else view
        self.seat = data["seat"]
        self.set_rules(data["rules"])
        for name in ("hand", "counts", "called", "catchable", "scores", "out"):
            setattr(self, name, list(data[name]))
        for name in ("top", "color", "direction", "pending", "draw_count", "discard_count", "round",
                     "drawn"):
            setattr(self, name, data[name])
        self.phase = Phase(data["phase"])
        self.turn = data["turn"] if data["turn"] is not None else 0
        self.dealer = data["dealer"] if data["dealer"] is not None else 0
        for name, default in _OPTIONAL_VIEW.items():
            setattr(self, name, data.get(name, default))
        self.started = self.round > 0
        self.settled = self.started

    def view(self) -> View:
        """The table as an engine :class:`~.view.View` (``legal_actions()`` works on it)."""
        return View(
            seat=self.seat, hand=tuple(self.hand), counts=tuple(self.counts), top=self.top,
            color=self.color, direction=self.direction, turn=self.turn, phase=self.phase,
            pending=self.pending, called=tuple(self.called), catchable=tuple(self.catchable),
            scores=tuple(self.scores), draw_count=self.draw_count, discard_count=self.discard_count,
            round=self.round, dealer=self.dealer, drawn=self.drawn, out=tuple(self.out),
            rules=dict(self.rules), stack=self.stack, pair=self.pair,
            challengeable=self.challengeable, served=self.served, opening=self.opening,
        )

    def apply(self, kind: str, data: Mapping[str, Any]) -> None:
        """Apply one event as this member received it. A kind that is not the engine's
        (chat, presence) changes nothing; any engine kind but a closing one leaves the
        table unsettled, the rest of its batch being on its way."""
        spec = EVENT_KINDS.get(kind)
        if spec is None:
            return
        match kind:
            case "dealer_draw":
                self._dealer_draw(data)
            case "round_started":
                self._round_started(data)
            case "hand":
                self._hand(data)
            case "first_card":
                self._first_card(data)
            case "played":
                self._played(data)
            case "drew":
                self._drew(data)
            case "reshuffled":
                self._reshuffled(data)
            case "color_chosen":
                self._color_chosen(data)
            case "reversed":
                self._reversed(data)
            case "out":
                self._out(data)
            case "turn":
                self._turn(data)
            case "round_over" | "match_over":  # the same facts
                self._round_over(data)
        self.settled = spec.closes

    # -- one method per kind that changes the table ----------------------------------

    def _dealer_draw(self, data: Mapping[str, Any]) -> None:
        self.dealer = data.get("dealer", self.dealer)

    def _round_started(self, data: Mapping[str, Any]) -> None:
        n = data["players"]
        self.started = True
        self.round, self.dealer = data["round"], data["dealer"]
        self.scores = list(data["scores"])
        self.draw_count, self.discard_count = data["draw_count"], 0
        self.hand, self.counts = [], [0] * n  # the hand events follow
        self.top = self.color = self.drawn = None  # the first card follows
        self.called, self.out = [False] * n, [False] * n  # a new round: nobody out

    def _hand(self, data: Mapping[str, Any]) -> None:
        seat = data["seat"]
        self.counts[seat] = data["count"]
        self.called[seat] = data["called"]
        if "cards" in data:  # this member's own hand
            self.hand = list(data["cards"])

    def _first_card(self, data: Mapping[str, Any]) -> None:
        self.top, self.color = data["card"], data["color"]
        self.discard_count = 1
        self.draw_count -= 1

    def _played(self, data: Mapping[str, Any]) -> None:
        seat, cards = data["seat"], data["cards"]
        self.counts[seat] -= len(cards)
        if seat == self.seat:
            for card in cards:
                self.hand.remove(card)
        self.discard_count += len(cards)
        self.top, self.color = cards[-1], data["color"]

    def _drew(self, data: Mapping[str, Any]) -> None:
        count = data["count"]
        self.counts[data["seat"]] += count
        self.draw_count -= count
        if "cards" in data:  # this member drew them
            self.hand += data["cards"]

    def _reshuffled(self, data: Mapping[str, Any]) -> None:
        self.draw_count += data["count"]
        self.discard_count -= data["count"]

    def _color_chosen(self, data: Mapping[str, Any]) -> None:
        self.color = data["color"]

    def _reversed(self, data: Mapping[str, Any]) -> None:
        self.direction = data["direction"]

    def _out(self, data: Mapping[str, Any]) -> None:
        """Out of the round; ``count`` cards (its whole hand) went back to the draw pile."""
        seat, count = data["seat"], data["count"]
        self.out[seat] = True
        self.counts[seat] -= count
        self.draw_count += count
        if seat == self.seat and count:
            self.hand = []

    def _turn(self, data: Mapping[str, Any]) -> None:
        """Any closing event: the seat in turn and the facts; the card drawn, if ours."""
        self.turn = data["seat"]
        for name in FACTS:
            value = data[name]
            if name == "phase":  # a Phase from the first: compiled, the attribute takes no str
                value = Phase(value)
            elif isinstance(value, (list, tuple)):
                value = list(value)
            setattr(self, name, value)
        self.drawn = data.get("drawn")

    def _round_over(self, data: Mapping[str, Any]) -> None:
        self.scores = list(data["scores"])
        self._turn(data)
