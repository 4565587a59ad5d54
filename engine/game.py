"""The game state machine: one match of UNO, round after round.

A :class:`Game` is a pure function of ``(rules, players, seed, actions)``: chance comes
only from ``random.Random`` instances seeded from ``seed`` and a counter, so a position
plus its seed fully determines what follows. :meth:`Game.apply` validates an action,
changes the state and returns the events (their private fields and what each kind means
are in :data:`~.events.EVENT_KINDS`; every batch ends with an event that carries the facts
of the table, :meth:`Game._facts`); an illegal action raises :class:`IllegalAction` and
changes nothing. The fold of those events into a seat's view is :mod:`.fold`.

Speed: bots and simulations call :meth:`Game.legal_actions` and :meth:`Game.apply` for
every action, so the usual cases each take one short path: a single card played in turn
with no penalty pending (judged and resolved inline, see ``_apply_play``), a plain draw,
and the plays of a turn with no penalty pending (per-seat tables of ready-made ``Play``
values, see ``_plays`` in :mod:`.legal`). A short path does exactly what the general code
does for its case; anything out of the ordinary falls through to the general code.
Shuffles are ``random.Random.shuffle``'s, reproduced step for step but quicker
(:mod:`.shuffle`). Legal-action generation and the judging of actions live in
:mod:`.legal`, a mixin the game and a view's table inherit.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from . import schedule
from .actions import Action, CallUno, Catch, Challenge, ChooseColor, Deal, Draw, Pass, Play
from .cards import COLORS, Card, Color, Kind, all_wild_deck, classic_deck
from .events import Event, TurnEvent, closing_data
from .kinds import _PLAIN_NUMBER, _TARGET_KINDS, _plain
from .legal import _FAULT_CODES, LegalActions
from .phases import COLOR, DEALER_DRAW, DEALT, DRAWN, MATCH_OVER, PLAY, ROUND_OVER
from .rules import Rules
from .scoring import RoundResult, score_round
from .shuffle import _exact_shuffle, _shuffle, _shuffle_step
from .view import View

_SKIPS = {Kind.SKIP: 1, Kind.WILD_SKIP: 1, Kind.WILD_SKIP_TWO: 2}
_REVERSES = (Kind.REVERSE, Kind.WILD_REVERSE)
_NO_EFFECT = _PLAIN_NUMBER | {Kind.WILD}  # played, they only pass the turn on (but seven_zero's 0 and 7)
_COLOR_TEXT: dict[Color | None, str | None] = {None: None, **{c: c.value for c in COLORS}}
_UNPLAYED = frozenset({MATCH_OVER, DEALER_DRAW, DEALT})  # no action but a Deal (or none at all)
# The facts' ``called`` when nobody has called UNO, by table size: one shared value, as the
# facts of most actions are (tuples, so that sharing them is safe).
_NO_CALLS = tuple((False,) * n for n in range(11))


class Game(LegalActions):
    """One match. Build with ``Game(rules, players, seed)``; the first round is dealt."""

    # Slots: the state is read and written many times per action, and slot access is the
    # quickest Python has. Every attribute of the state is named here.
    __slots__ = (
        "called", "color", "dealer", "direction", "discard", "draw_pile", "drawn", "exposed",
        "finished", "hands", "mercy_points", "out", "pending", "pending_cards", "pending_pair",
        "phase", "players", "reshuffles", "results", "round", "rules", "scores", "seed", "served",
        "start_events", "turn", "wd4_bluff", "wd4_offender",
    )

    rules: Rules
    players: int
    seed: int | str
    hands: list[list[Card]]
    draw_pile: list[Card]  # the top of the pile is the *end* of the list
    discard: list[Card]  # the top card is the end of the list
    color: Color | None
    direction: int
    turn: int
    phase: str
    pending: int  # cards owed by the seat in turn (stacked penalties)
    pending_cards: int  # how many penalty cards make up ``pending``
    pending_pair: bool  # the last penalty was a pair of Draw Twos (pair_beats_wd4)
    wd4_offender: int | None  # who played the Wild Draw Four that may be challenged
    wd4_bluff: bool  # whether that Wild Draw Four broke wd4_rule
    served: bool  # the top penalty card's penalty has been drawn
    drawn: Card | None  # the card just drawn, which may be played now
    called: list[bool]  # the seat has called UNO for its current one-card hand
    exposed: set[int]  # seats that may be caught now
    out: list[bool]  # out of the round (elimination finish or mercy)
    finished: list[int]  # finishing order under elimination
    mercy_points: int
    reshuffles: int
    round: int
    dealer: int
    scores: list[int]
    results: list[RoundResult]
    start_events: list[Event]  # the events of setting up the match and dealing round 1

    def __init__(self, rules: Rules | None = None, players: int = 4, seed: int | str = 0) -> None:
        if not 2 <= players <= 10:
            raise ValueError(f"UNO is played by 2 to 10 players, not {players}")
        self.rules = rules or Rules()
        self.players = players
        self.seed = seed
        check_table(self.rules, players)
        units = self.rules.teams if self.rules.teams else players
        self.scores = [0] * units
        self.results = []
        self.round = 0
        self.start_events = []
        self.dealer = self._choose_dealer(self.start_events, self._dealer_deck())
        self.start_events += self._start_round()
        self._settle(self.start_events)

    # -- queries -------------------------------------------------------------------

    @property
    def top(self) -> Card:
        return self.discard[-1]

    @property
    def opening(self) -> bool:
        """The top card is the round's first card: nobody has played on it yet."""
        return len(self.discard) == 1 and self.reshuffles == 0

    @property
    def active(self) -> int:
        return self.players - self.out.count(True)

    @property
    def over(self) -> bool:
        return self.phase == MATCH_OVER

    def team_of(self, seat: int) -> int:
        """A seat's team this round: seated alternately, rotating partners, or itself alone."""
        if self.rules.partner_rotation:
            return schedule.team_of(seat, max(self.round, 1), self.players)
        return seat % self.rules.teams if self.rules.teams else seat

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places on in the direction of play, passing seats that are out."""
        n, d, out = self.players, self.direction, self.out
        for _ in range(steps):
            seat = (seat + d) % n
            while out[seat]:
                seat = (seat + d) % n
        return seat

    def position(self) -> str:
        from .notation import format_position

        return format_position(self)

    def view(self, seat: int | None) -> View:
        """Exactly what ``seat`` may know (``None``: a spectator)."""
        return View.of(self, seat)

    def outcome(self) -> RoundResult | None:
        """The last round's result, once a round is over."""
        return self.results[-1] if self.phase in (ROUND_OVER, MATCH_OVER) and self.results else None

    def _holds_one(self, seat: int) -> bool:
        return len(self.hands[seat]) == 1

    # -- applying actions ----------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Apply a legal action and return its events; raise IllegalAction otherwise."""
        seat = action.seat
        cls = action.__class__
        if not 0 <= seat < self.players or (self.phase in _UNPLAYED
                                             and (cls is not Deal or self.phase == MATCH_OVER)):
            raise self._illegal(action, *self._fault(action))  # type: ignore[misc]
        events: list[Event] = []
        if cls is Play:
            self._apply_play(action, events)  # type: ignore[arg-type]
        elif cls is Draw:
            self._apply_draw(action, events)  # type: ignore[arg-type]
        else:
            _HANDLERS[cls](self, action, events)
        phase = self.phase
        if phase != ROUND_OVER and phase != MATCH_OVER:
            out = self.out
            if out[self.turn] or out.count(True) >= self.players - 1:
                self._settle(events)
            else:  # what _settle does when nobody left
                events.append(self._turn_event())
        return events

    def _refuse(self, action: Action, fault: tuple[str, str] | None) -> None:
        if fault is not None:
            raise self._illegal(action, *fault)

    def _facts(self) -> tuple[Any, ...]:
        """What every closing event carries, as the values of ``events.CLOSING_FIELDS``:
        the seat in turn and the public facts that say what each seat may do now."""
        exposed, called = self.exposed, self.called
        return (
            self.turn,
            self.direction,
            self.phase,
            self.pending,
            self.pending_cards,  # stack
            self.pending_pair,  # pair
            self.served,
            self.wd4_offender is not None and self._challengeable(),  # mostly None
            tuple(sorted(exposed)) if exposed else (),  # catchable
            self.reshuffles == 0 and len(self.discard) == 1,  # self.opening, inline
            tuple(called) if True in called else _NO_CALLS[self.players],
        )

    def _turn_event(self) -> TurnEvent:
        """The event that closes an action's events while the round goes on: the facts,
        and in phase drawn the card the seat in turn just drew and may play (its own)."""
        return TurnEvent(self._facts(), self.drawn.text if self.phase == DRAWN else None)  # type: ignore[union-attr]

    def _apply_deal(self, action: Deal, events: list[Event]) -> None:
        self._refuse(action, self._deal_fault(action))
        if self.phase == DEALT:  # the hands are dealt: turn up the first card
            self._turn_up_first_card(events)
            return
        if self.phase == DEALER_DRAW:  # the players draw for dealer from the draw pile
            pile = self.draw_pile
            self.dealer = self._choose_dealer(events, lambda: pile.pop() if pile else None)
        else:
            self.dealer = action.seat
        events += self._start_round()

    def _apply_color(self, action: ChooseColor, events: list[Event]) -> None:
        self._refuse(action, self._color_fault(action))
        self.color = action.color
        self.phase = PLAY
        events.append(Event("color_chosen", {"seat": action.seat, "color": action.color.value}))

    def _apply_draw(self, action: Draw, events: list[Event]) -> None:
        seat = action.seat
        if seat != self.turn or self.phase != PLAY:
            self._refuse(action, self._draw_fault(action))
        if self.exposed:
            self.exposed.clear()
        if self.pending:
            amount = self._serve_penalty()
            self._give(seat, amount, "penalty", events)
            self._advance(self.next_seat(seat))
            return
        rules, pile = self.rules, self.draw_pile
        if pile and not rules.draw_until_playable and not rules.mercy_limit:
            # The usual draw: _draw_for_turn and _give for one card from a pile that has it.
            card = pile.pop()
            self.hands[seat].append(card)
            self.called[seat] = False
            events.append(Event("drew", {"seat": seat, "count": 1, "reason": "draw", "cards": [card.text]}))
            if self.matches_top(card) and (not rules.drawn_action_stays or card.kind in _plain(rules)):
                self.drawn = card
                self.phase = DRAWN
            else:
                self._advance(self.next_seat(seat))
            return
        self._draw_for_turn(seat, events)

    def _draw_for_turn(self, seat: int, events: list[Event]) -> None:
        """A voluntary draw: one card (draw_until_playable: until one may be played at
        once; drawn_action_stays: one with no action), which may then be played."""
        rules = self.rules
        stays = _plain(rules) if rules.drawn_action_stays else None
        while True:
            cards = self._give(seat, 1, "draw", events)
            if not cards or self.out[seat]:
                break
            card = cards[0]
            if self.matches_top(card) and (stays is None or card.kind in stays):
                self.drawn = card
                self.phase = DRAWN
                return
            if not rules.draw_until_playable:
                break
        self._advance(self.next_seat(seat))

    def _apply_pass(self, action: Pass, events: list[Event]) -> None:
        self._refuse(action, self._pass_fault(action))
        events.append(Event("passed", {"seat": action.seat}))
        self._advance(self.next_seat(action.seat))

    def _apply_challenge(self, action: Challenge, events: list[Event]) -> None:
        self._refuse(action, self._challenge_fault(action))
        seat, offender = action.seat, self.wd4_offender
        assert offender is not None
        self.exposed.clear()
        guilty = self.wd4_bluff
        events.append(Event("challenged", {"seat": seat, "target": offender, "guilty": guilty}))
        events.append(Event("revealed", {"seat": offender, "challenger": seat,
                                         "cards": _texts(self.hands[offender])}))
        amount = self._serve_penalty()
        if guilty:
            self._give(offender, amount, "challenge", events)
            self._advance(seat)
        else:
            self._give(seat, amount + 2, "challenge", events)
            self._advance(self.next_seat(seat))

    def _apply_uno(self, action: CallUno, events: list[Event]) -> None:
        seat = action.seat
        self._refuse(action, self._uno_fault(action))
        if len(self.hands[seat]) == 1:
            self.called[seat] = True
            self.exposed.discard(seat)
            events.append(Event("uno", {"seat": seat}))
            return
        penalty = self.rules.uno_penalty
        events.append(Event("false_uno", {"seat": seat, "penalty": penalty}))
        self._give(seat, penalty, "false_uno", events)

    def _apply_catch(self, action: Catch, events: list[Event]) -> None:
        self._refuse(action, self._catch_fault(action))
        target = action.target
        self.exposed.discard(target)
        penalty = self.rules.uno_penalty
        events.append(Event("caught", {"seat": action.seat, "target": target, "penalty": penalty}))
        self._give(target, penalty, "caught", events)

    def _apply_play(self, action: Play, events: list[Event]) -> None:
        seat, cards = action.seat, action.cards
        phase = self.phase
        if (len(cards) == 1 and seat == self.turn and not self.pending
                and (phase == PLAY or (phase == DRAWN and cards[0] is self.drawn))):
            # The usual play: one card, in turn, no penalty pending. Judge it here as
            # _check_play would; anything short of a plain legal play takes the long way.
            card, hand, rules = cards[0], self.hands[seat], self.rules
            kind = card.kind
            if (card in hand and action.target is None and not self.out[seat]
                    and kind not in _TARGET_KINDS[rules.seven_zero]
                    and (not action.uno or rules.false_uno_penalty or len(hand) == 2)
                    and not (rules.last_card_no_action and len(hand) == 1 and kind not in _plain(rules))):
                color = action.color
                strict = self.served and rules.strict_after_penalty
                if rules.all_wild:
                    ok = color is None
                elif card.is_wild:
                    ok = color is not None and (not strict or phase == DRAWN)
                else:
                    top = self.discard[-1]
                    ok = (color is None or color is card.color) and (
                        card.color is self.color or phase == DRAWN
                        or not (strict or top.is_wild or kind is not top.kind))
                    color = card.color
                if ok:
                    self._play_one(action, card, hand, color, events)
                    return
        fault, reason, jump = self._check_play(action)
        if fault == "rules" and self.rules.misplay_penalty:
            penalty = 2
            events.append(Event("misplay", {"seat": action.seat, "penalty": penalty, "reason": reason}))
            self._give(action.seat, penalty, "misplay", events)
            return
        if fault:
            raise self._illegal(action, reason, _FAULT_CODES.get(fault, "bad_play"))
        self.exposed.clear()
        if jump:
            self._advance(seat)
        self._resolve_play(action, jump, events)

    # -- the challenge -------------------------------------------------------------

    def _challengeable(self) -> bool:
        """Whether the seat in turn may challenge the Wild Draw Four on top."""
        return (
            self.rules.challenge
            and not self.rules.all_wild
            and self.pending > 0
            and self.pending_cards == 1
            and self.discard[-1].kind is Kind.WILD_DRAW_FOUR
            and self.wd4_offender is not None
        )

    # -- resolving a play ----------------------------------------------------------

    def _play_one(self, play: Play, card: Card, hand: list[Card], color: Color | None,
                  events: list[Event]) -> None:
        """_resolve_play for the usual play (see _apply_play), which names no target."""
        seat, kind = play.seat, card.kind
        if self.exposed:
            self.exposed.clear()
        bluff = kind is Kind.WILD_DRAW_FOUR and not self.rules.all_wild and self._breaks_wd4_rule(seat, card)
        hand.remove(card)
        self.discard.append(card)
        self.drawn = None
        self.served = False
        self.phase = PLAY
        self.color = color
        events.append(Event("played", {"seat": seat, "cards": [card.text], "color": _COLOR_TEXT[color],
                                       "target": None, "jump_in": False}))
        left = len(hand)
        if left == 1 or play.uno:
            self._after_hand_shrinks(seat, play.uno, events)
        # _effect's commonest cases, unrolled: no effect, a Skip, a Reverse.
        n, out = self.players, self.out
        if not left or (kind is Kind.N0 and self.rules.seven_zero):
            self._effect(play, kind, 1, False, bluff, not left, events)
            return
        if kind in _NO_EFFECT:
            pass
        elif (kind is Kind.SKIP or kind is Kind.REVERSE) and out.count(True) <= n - 2:
            if kind is Kind.REVERSE and out.count(True) < n - 2:
                self.direction = -self.direction
                events.append(Event("reversed", {"direction": self.direction}))
            else:  # skip one seat (a Reverse acts so with two players left)
                d = self.direction
                seat = (seat + d) % n
                while out[seat]:
                    seat = (seat + d) % n
                events.append(Event("skipped", {"seat": seat}))
        else:
            self._effect(play, kind, 1, False, bluff, False, events)
            return
        d = self.direction
        seat = (seat + d) % n
        while out[seat]:
            seat = (seat + d) % n
        self.turn = seat  # phase and drawn are already as _advance leaves them

    def _resolve_play(self, play: Play, jump: bool, events: list[Event]) -> None:
        seat, cards, rules = play.seat, play.cards, self.rules
        hand = self.hands[seat]
        first = cards[0]
        answering = self.pending > 0
        bluff = False
        if first.kind is Kind.WILD_DRAW_FOUR and not rules.all_wild:
            bluff = self._breaks_wd4_rule(seat, first)
        for card in cards:
            hand.remove(card)
        self.discard += cards
        self.drawn = None
        self.served = False
        self.phase = PLAY
        if rules.all_wild:
            self.color = None
        elif first.is_wild or play.color is not None:
            self.color = play.color
        else:
            self.color = cards[-1].color
        events.append(Event("played", {
            "seat": seat, "cards": _texts(cards), "color": _COLOR_TEXT[self.color],
            "target": play.target, "jump_in": jump,
        }))
        self._after_hand_shrinks(seat, play.uno, events)
        times = 1 if rules.pair_single_effect else len(cards)
        self._effect(play, first.kind, times, answering, bluff, not hand, events)

    def _effect(self, play: Play, kind: Kind, times: int, answering: bool, bluff: bool,
                going_out: bool, events: list[Event]) -> None:
        """What the cards just played do (``times`` over), then going out if the hand is empty."""
        seat, rules = play.seat, self.rules
        if play.cards[0].penalty:
            self._play_penalty(play, times, answering, bluff, events)
        elif answering:  # a deflect: a Skip or Reverse of the Draw Two's color
            self._deflect(seat, kind, events)
        elif kind in _SKIPS:
            self._skip_from(seat, _SKIPS[kind] * times, events)
        elif kind in _REVERSES:
            if self.active == 2:
                self._skip_from(seat, times, events)
            else:
                if times % 2:
                    self.direction = -self.direction
                    events.append(Event("reversed", {"direction": self.direction}))
                self._advance(self.next_seat(seat))
        elif kind is Kind.WILD_TARGETED_DRAW_TWO:
            assert play.target is not None
            self._give(play.target, 2, "targeted", events)
            self._advance(self.next_seat(seat))
        elif going_out:  # going out on a 7, a 0 or a Forced Swap: no swap
            self._advance(self.next_seat(seat))
        elif kind is Kind.WILD_FORCED_SWAP or (rules.seven_zero and kind is Kind.N7):
            assert play.target is not None
            self._swap(seat, play.target, events)
            self._advance(self.next_seat(seat))
        elif rules.seven_zero and kind is Kind.N0:
            for _ in range(times):
                self._rotate(events)
            self._advance(self.next_seat(seat))
        else:
            self._advance(self.next_seat(seat))
        if going_out:
            self._go_out(seat, events)

    def _go_out(self, seat: int, events: list[Event]) -> None:
        """A seat played its last card: it wins the round, or under elimination finishes."""
        if self.rules.elimination:
            self.out[seat] = True
            self.finished.append(seat)
            self.exposed.discard(seat)
            events.append(Event("out", {"seat": seat, "reason": "finished", "count": 0}))
            return
        if self.pending:  # a last Draw Two or Wild Draw Four still hits before scoring
            amount, self.pending = self.pending, 0
            self._give(self.turn, amount, "penalty", events)
        self._end_round(seat, events)

    def _breaks_wd4_rule(self, seat: int, card: Card) -> bool:
        """Whether playing this Wild Draw Four now breaks wd4_rule (a bluff)."""
        others = list(self.hands[seat])
        others.remove(card)
        if self.pending:
            return False  # stacked on a penalty: the rule is about ordinary play
        if self.rules.wd4_rule == "color":
            return any(c.color is self.color for c in others if not c.is_wild)
        return any(self.matches_top(c) for c in others if not c.is_wild)

    def _play_penalty(self, play: Play, times: int, answering: bool, bluff: bool,
                      events: list[Event]) -> None:
        seat, first = play.seat, play.cards[0]
        if not answering:
            self.pending = self.pending_cards = 0
        self.pending += first.penalty * times
        self.pending_cards += len(play.cards)
        self.pending_pair = len(play.cards) == 2 and first.kind is Kind.DRAW_TWO
        is_four = first.kind is Kind.WILD_DRAW_FOUR and not self.rules.all_wild
        self.wd4_offender = seat if is_four and self.pending_cards == 1 else None
        self.wd4_bluff = bluff
        target = self.next_seat(seat)
        events.append(self._penalty_event(target))
        if self._target_may_answer(first):
            self._advance(target)
            return
        amount = self._serve_penalty()
        self._give(target, amount, "penalty", events)
        self._advance(self.next_seat(target))

    def _target_may_answer(self, card: Card) -> bool:
        """Whether the rules ever let the target of this penalty do anything but draw."""
        rules = self.rules
        if rules.stacking != "off":
            return True
        if card.kind is Kind.DRAW_TWO and rules.deflect:
            return True
        if card.kind is Kind.WILD_DRAW_FOUR and rules.pair_beats_wd4 and not rules.all_wild:
            return True
        return self._challengeable()

    def _deflect(self, seat: int, kind: Kind, events: list[Event]) -> None:
        if self.active == 2:
            owner = self.next_seat(seat)
        elif kind is Kind.SKIP:
            skipped = self.next_seat(seat)
            events.append(Event("skipped", {"seat": skipped}))
            owner = self.next_seat(skipped)
        else:
            self.direction = -self.direction
            events.append(Event("reversed", {"direction": self.direction}))
            owner = self.next_seat(seat)
        events.append(self._penalty_event(owner))
        self._advance(owner)

    def _penalty_event(self, owner: int) -> Event:
        """The penalty now pending, owed by ``owner``, and whether they may challenge it."""
        return Event("penalty", {"seat": owner, "amount": self.pending, "stack": self.pending_cards,
                                 "pair": self.pending_pair, "challengeable": self._challengeable()})

    def _skip_from(self, seat: int, skips: int, events: list[Event]) -> None:
        """Skip ``skips`` players after ``seat``; skipping every other player (the most
        there is to skip: the player is never skipped) gives the player another turn."""
        nxt = seat
        for _ in range(min(skips, self.active - 1)):
            nxt = self.next_seat(nxt)
            events.append(Event("skipped", {"seat": nxt}))
        self._advance(self.next_seat(nxt))

    def _serve_penalty(self) -> int:
        """Take the pending penalty off the table to be drawn; return its card count."""
        self.served = True
        return self._drop_penalty()

    def _drop_penalty(self) -> int:
        """Clear the pending penalty and all that goes with it; return its card count."""
        amount = self.pending
        self.pending = self.pending_cards = 0
        self.pending_pair = False
        self.wd4_offender = None
        return amount

    # -- hands ---------------------------------------------------------------------

    def _give(self, seat: int, count: int, reason: str, events: list[Event]) -> list[Card]:
        """Deal ``count`` cards from the draw pile to ``seat``; as many as there are."""
        pile = self.draw_pile
        if len(pile) < count:
            self._reshuffle(events)
        if count == 1 and pile:
            cards = [pile.pop()]
        else:
            n = min(count, len(pile))
            cards = pile[:-n - 1:-1] if n else []  # the top n cards, top first, as if popped
            del pile[len(pile) - n:]
        hand = self.hands[seat]
        hand += cards
        if cards:
            self.called[seat] = False
            self.exposed.discard(seat)
        events.append(Event("drew", {"seat": seat, "count": len(cards), "reason": reason,
                                     "cards": [c.text for c in cards]}))
        limit = self.rules.mercy_limit
        if limit and len(hand) >= limit and not self.out[seat]:
            self._mercy_out(seat, events)
        return cards

    def _reshuffle(self, events: list[Event]) -> None:
        """Shuffle the discards but the top card under the draw pile."""
        if len(self.discard) <= 1:
            return
        cards = self.discard[:-1]
        del self.discard[:-1]
        self.reshuffles += 1
        _shuffle(self._rng("reshuffle", self.reshuffles), cards)
        self.draw_pile[:0] = cards
        events.append(Event("reshuffled", {"count": len(cards)}))

    def _after_hand_shrinks(self, seat: int, calls_uno: bool, events: list[Event]) -> None:
        left = len(self.hands[seat])
        if left == 1:
            if calls_uno:
                self.called[seat] = True
                events.append(Event("uno", {"seat": seat}))
            else:
                self.called[seat] = False
                self.exposed.add(seat)
        elif calls_uno and left > 1 and self.rules.false_uno_penalty:
            penalty = self.rules.uno_penalty
            events.append(Event("false_uno", {"seat": seat, "penalty": penalty}))
            self._give(seat, penalty, "false_uno", events)

    def _swap(self, a: int, b: int, events: list[Event]) -> None:
        hands, called = self.hands, self.called
        hands[a], hands[b] = hands[b], hands[a]
        called[a], called[b] = called[b], called[a]
        events.append(Event("swapped", {"seats": [a, b]}))
        self._hands_moved((a, b), events)

    def _rotate(self, events: list[Event]) -> None:
        """Every hand passes to the next seat in the direction of play."""
        seats = [s for s in range(self.players) if not self.out[s]]
        if self.direction < 0:
            seats.reverse()
        old_hands = [self.hands[s] for s in seats]
        old_called = [self.called[s] for s in seats]
        for i, s in enumerate(seats):
            self.hands[s] = old_hands[i - 1]
            self.called[s] = old_called[i - 1]
        events.append(Event("rotated", {"direction": self.direction}))
        self._hands_moved(seats, events)

    def _hands_moved(self, seats: tuple[int, ...] | list[int], events: list[Event]) -> None:
        """UNO state follows the hand; each new holder learns its hand."""
        self.exposed.difference_update(seats)
        for s in seats:
            hand = self.hands[s]
            if len(hand) == 1 and not self.called[s]:
                self.exposed.add(s)
            events.append(_hand_event(s, hand, self.called[s]))

    def _mercy_out(self, seat: int, events: list[Event]) -> None:
        """The seat is out of the round; its hand goes back into the draw pile."""
        cards = self.hands[seat]
        self.mercy_points += sum(c.points for c in cards)
        self.hands[seat] = []
        self.out[seat] = True
        self.exposed.discard(seat)
        self.draw_pile[:0] = cards
        _shuffle(self._rng("mercy", seat), self.draw_pile)
        events.append(Event("out", {"seat": seat, "reason": "mercy", "count": len(cards)}))

    # -- turn flow -----------------------------------------------------------------

    def _advance(self, seat: int) -> None:
        self.turn = seat
        self.phase = PLAY
        self.drawn = None

    def _settle(self, events: list[Event]) -> None:
        """After an action: end a round with one player left, move a turn off a seat that left."""
        if self.active <= 1:
            last = next((s for s in range(self.players) if not self.out[s]), self.turn)
            if self.rules.elimination:
                self.finished.append(last)
                last = self.finished[0]
            self._end_round(last, events)
            return
        if self.out[self.turn]:  # knocked out in turn (mercy): a penalty it owed lapses
            self._drop_penalty()
            self._advance(self.next_seat(self.turn))
        events.append(self._turn_event())

    def _end_round(self, winner: int, events: list[Event]) -> None:
        """Score the round; the winner deals the next one (or the match is over)."""
        result = score_round(self, winner)
        self.results.append(result)
        self.scores = list(result.scores)
        self.turn = winner
        self.drawn = None  # a drawn card's choice ends with the round (it must not reach the dealer's view)
        self.exposed.clear()
        self._drop_penalty()
        self.phase = ROUND_OVER
        events.append(Event("round_over", result.to_data() | closing_data(self._facts())))
        if result.match_over:
            self.phase = MATCH_OVER
            events.append(Event("match_over", {"winner": result.match_winner,
                                               "scores": list(self.scores),
                                               **closing_data(self._facts())}))

    # -- starting rounds -----------------------------------------------------------

    def _rng(self, purpose: str, n: int = 0) -> random.Random:
        return random.Random(f"{self.seed}/{self.round}/{purpose}/{n}")

    def _dealer_deck(self) -> Callable[[], Card | None]:
        """The cards the players draw for dealer at a match's start: the top of a deck
        shuffled as ``random.Random(...).shuffle`` would, but only as far as the cards
        drawn (a Fisher-Yates shuffle settles the top card first)."""
        deck = classic_deck()
        rng = random.Random(f"{self.seed}/dealer")
        stepped = _exact_shuffle()
        if not stepped:
            rng.shuffle(deck)
        left = len(deck)

        def draw() -> Card | None:
            nonlocal left
            if not left:
                return None
            left -= 1
            if stepped:
                _shuffle_step(rng, deck, left)
            return deck[left]

        return draw

    def _choose_dealer(self, events: list[Event], draw: Callable[[], Card | None]) -> int:
        """Each player draws; the highest number deals (actions and wilds count 0); ties
        redraw. ``draw`` gives the next card, None when there is none left."""
        contenders = list(range(self.players))
        draws: list[list[object]] = []
        out_of_cards = False
        while len(contenders) > 1 and not out_of_cards:
            values = {}
            for seat in contenders:
                card = draw()
                if card is None:
                    out_of_cards = True
                    break
                draws.append([seat, card.text])
                values[seat] = card.number or 0
            if values:  # those who drew the best card draw again; those left without one are out
                best = max(values.values())
                contenders = [s for s in contenders if values.get(s) == best]
        dealer = contenders[0]
        events.append(Event("dealer_draw", {"draws": draws, "dealer": dealer}))
        return dealer

    def _start_round(self) -> list[Event]:
        """Deal a round and turn up its first card."""
        events = self._deal()
        self._turn_up_first_card(events)
        return events

    def _deal(self) -> list[Event]:
        """Shuffle a fresh deck and deal the hands; the dealer is to turn up the first card."""
        self.round += 1
        rules, n = self.rules, self.players
        deck = all_wild_deck() if rules.all_wild else classic_deck()
        _shuffle(self._rng("deal"), deck)
        # Deal one card at a time from the top, starting left of the dealer: the k-th card
        # popped goes to the seat k places after the dealer (mod n).
        cut = len(deck) - rules.hand_size * n
        dealt = deck[:cut - 1:-1] if cut else deck[::-1]
        del deck[cut:]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for k in range(n):
            hands[(self.dealer + 1 + k) % n] = dealt[k::n]
        self.hands = hands
        self.draw_pile = deck
        self.discard = []
        self.direction = 1
        self.pending = self.pending_cards = 0
        self.pending_pair = self.served = self.wd4_bluff = False
        self.wd4_offender = None
        self.drawn = None
        self.called = [False] * n
        self.exposed = set()
        self.out = [False] * n
        self.finished = []
        self.mercy_points = 0
        self.reshuffles = 0
        self.color = None
        self.turn = self.dealer
        self.phase = DEALT
        events = [Event("round_started", {"round": self.round, "dealer": self.dealer, "players": n,
                                          "hand_size": rules.hand_size, "scores": list(self.scores),
                                          "draw_count": len(deck)})]
        events += [_hand_event(s, self.hands[s], False) for s in range(n)]
        return events

    def _turn_up_first_card(self, events: list[Event]) -> None:
        """The dealer turns up the first card (a Wild Draw Four, or in the All Wild deck
        any card but a plain Wild, goes back and the pile is shuffled), and it acts."""
        pile, tries = self.draw_pile, 0
        keep = Kind.WILD if self.rules.all_wild else None

        def usable(card: Card) -> bool:
            return card.kind is keep if keep else card.kind is not Kind.WILD_DRAW_FOUR

        # No usable card left in the pile: the top card is taken, with no effect.
        anything = not any(usable(c) for c in pile)
        while True:
            card = pile.pop()
            if usable(card) or anything:
                break
            pile.append(card)
            tries += 1
            _shuffle(self._rng("first", tries), pile)
        self.discard.append(card)
        self.color = card.color
        events.append(Event("first_card", {"card": card.text, "color": _COLOR_TEXT[card.color]}))
        first = self.next_seat(self.dealer)
        self.phase = PLAY
        self.turn = first
        kind = card.kind
        if kind is Kind.WILD and not self.rules.all_wild:
            self.phase = COLOR
        elif kind is Kind.DRAW_TWO:
            self._give(first, 2, "first_card", events)
            self.served = True
            self.turn = self.next_seat(first)
        elif kind is Kind.SKIP:
            events.append(Event("skipped", {"seat": first}))
            self.turn = self.next_seat(first)
        elif kind is Kind.REVERSE:
            if self.players == 2:  # two players: the Reverse acts as a Skip
                events.append(Event("skipped", {"seat": first}))
                self.turn = self.dealer
            else:  # the player on the dealer's right starts
                self.direction = -1
                events.append(Event("reversed", {"direction": -1}))
                self.turn = self.next_seat(self.dealer)


def check_table(rules: Rules, players: int) -> None:
    """Raise ValueError when a rule set cannot be played by this many players."""
    if rules.teams and (players % rules.teams or players // rules.teams < 2):
        raise ValueError(f"{players} players cannot sit as {rules.teams} teams of two or more, "
                         "teammates alternately")
    if rules.partner_rotation and players != 4:
        hint = (": 8 players play two tables of 4, one game per table (see engine.schedule)"
                if players == 8 else "")
        raise ValueError(f"partner rotation at one table needs 4 players, not {players}{hint}")
    deck = 112 if rules.all_wild else 108
    if players * rules.hand_size > deck - 5:
        raise ValueError(f"{players} hands of {rules.hand_size} leave too few of the {deck} cards "
                         "to turn up a first card")


def _texts(cards: list[Card] | tuple[Card, ...]) -> list[str]:
    return [c.text for c in cards]


def _hand_event(seat: int, hand: list[Card], called: bool) -> Event:
    """A seat's whole hand, after a deal or a swap: its count (and whether its UNO call
    stands) for everyone, the cards for that seat alone."""
    return Event("hand", {"seat": seat, "count": len(hand), "called": called, "cards": _texts(hand)})


_HANDLERS = {
    Play: Game._apply_play,
    Draw: Game._apply_draw,
    Pass: Game._apply_pass,
    Challenge: Game._apply_challenge,
    CallUno: Game._apply_uno,
    Catch: Game._apply_catch,
    ChooseColor: Game._apply_color,
    Deal: Game._apply_deal,
}
