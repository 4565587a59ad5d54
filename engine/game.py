"""The game state machine: one match of UNO, round after round.

A :class:`Game` is a pure function of ``(rules, players, seed, actions)``: chance comes
only from ``random.Random`` instances seeded from ``seed`` and a counter, so a position
plus its seed fully determines what follows. :meth:`Game.apply` validates an action,
changes the state and returns the events, each with its audience; an illegal action
raises :class:`IllegalAction` and changes nothing.

Speed: bots and simulations call :meth:`Game.legal_actions` and :meth:`Game.apply` for
every action, so the usual cases each take one short path: a single card played in turn
with no penalty pending (judged and resolved inline, see ``_apply_play``), a plain draw,
and the plays of a turn with no penalty pending (per-seat tables of ready-made ``Play``
values, see ``_plays`` in :mod:`.legal`). A short path does exactly what the general code
does for its case; anything out of the ordinary falls through to the general code.
Shuffles are ``random.Random.shuffle``'s, reproduced step for step but quicker
(:mod:`.shuffle`). Legal-action generation lives in :mod:`.legal`, a mixin the game
inherits.
"""

from __future__ import annotations

import random

from . import schedule
from .actions import Action, CallUno, Catch, Challenge, ChooseColor, Deal, Draw, Pass, Play
from .cards import COLORS, Card, Color, Kind, all_wild_deck, classic_deck
from .errors import IllegalAction, Reason, public_reason
from .events import Event
from .kinds import _PLAIN_NUMBER, _TARGET_KINDS, _action_out, _plain
from .legal import LegalActions
from .phases import COLOR, DRAWN, MATCH_OVER, PLAY, ROUND_OVER
from .rules import Rules
from .scoring import RoundResult, score_round
from .shuffle import _exact_shuffle, _shuffle, _shuffle_step
from .view import View

_SKIPS = {Kind.SKIP: 1, Kind.WILD_SKIP: 1, Kind.WILD_SKIP_TWO: 2}
_REVERSES = (Kind.REVERSE, Kind.WILD_REVERSE)
_DEFLECTABLE = (Kind.DRAW_TWO, Kind.SKIP, Kind.REVERSE)  # top cards of a pending Draw Two penalty
_NO_EFFECT = _PLAIN_NUMBER | {Kind.WILD}  # played, they only pass the turn on (but seven_zero's 0 and 7)
_COLOR_TEXT: dict[Color | None, str | None] = {None: None, **{c: c.value for c in COLORS}}
_FAULT_CODES = {"rules": "misplay", "turn": "not_your_turn", "false_uno": "false_uno"}  # else "bad_play"
# The public words of some misplays (see Reason): what was tried stays with its player.
_TOGETHER = "those cards may not be played together"
_NO_ACTION_OUT = Reason("you may not go out on an action or wild card", "that play may not go out")


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
        self.dealer = self._choose_dealer(self.start_events)
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

    def matches_top(self, card: Card) -> bool:
        """Whether a card may be played on the discard with no penalty pending."""
        if self.rules.all_wild:
            return True
        strict = self.served and self.rules.strict_after_penalty
        if card.is_wild:
            return not strict
        if card.color is self.color:
            return True
        top = self.discard[-1]
        return not strict and not top.is_wild and card.kind is top.kind

    # -- applying actions ----------------------------------------------------------

    def apply(self, action: Action) -> list[Event]:
        """Apply a legal action and return its events; raise IllegalAction otherwise."""
        seat = action.seat
        if not 0 <= seat < self.players:
            raise self._illegal(action, f"there is no seat {seat}", "bad_seat")
        if self.phase == MATCH_OVER:
            raise self._illegal(action, "the match is over", "match_over")
        cls = action.__class__
        events: list[Event] = []
        if cls is Play:
            self._apply_play(action, events)  # type: ignore[arg-type]
        elif cls is Draw:
            self._apply_draw(action, events)  # type: ignore[arg-type]
        else:
            _HANDLERS[cls](self, action, events)
        phase = self.phase
        if phase != ROUND_OVER and phase != MATCH_OVER:
            out, turn = self.out, self.turn
            if out[turn] or out.count(True) >= self.players - 1:
                self._settle(events)
            else:  # what _settle does when nobody left
                events.append(Event("turn", {"seat": turn, "direction": self.direction,
                                             "phase": phase, "pending": self.pending}))
        return events

    def _illegal(self, action: Action, reason: str, code: str = "illegal") -> IllegalAction:
        return IllegalAction(action, reason, self.position(), code)

    def _require_turn(self, action: Action, *phases: str) -> None:
        if self.phase in (ROUND_OVER, MATCH_OVER):
            raise self._illegal(action, "the round is over", "round_over")
        if action.seat != self.turn:
            raise self._illegal(action, f"it is seat {self.turn}'s turn", "not_your_turn")
        if self.phase not in phases:
            raise self._illegal(action, f"not possible in phase {self.phase}", "wrong_phase")

    def _apply_deal(self, action: Deal, events: list[Event]) -> None:
        if self.phase != ROUND_OVER or action.seat != self.turn:
            raise self._illegal(action, f"only seat {self.turn} may deal, after a round", "wrong_phase")
        self.dealer = action.seat
        events += self._start_round()

    def _apply_color(self, action: ChooseColor, events: list[Event]) -> None:
        self._require_turn(action, COLOR)
        self.color = action.color
        self.phase = PLAY
        events.append(Event("color_chosen", {"seat": action.seat, "color": action.color.value}))

    def _apply_draw(self, action: Draw, events: list[Event]) -> None:
        seat = action.seat
        if seat != self.turn or self.phase != PLAY:
            self._require_turn(action, PLAY)
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
            events.append(Event("drew", {"seat": seat, "count": 1, "reason": "draw"}, None, seat))
            events.append(Event("drew", {"seat": seat, "count": 1, "reason": "draw", "cards": [card.text]},
                                seat))
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
        self._require_turn(action, DRAWN)
        if self.rules.forced_play:
            raise self._illegal(action, "forced play: the drawn card must be played", "forced_play")
        events.append(Event("passed", {"seat": action.seat}))
        self._advance(self.next_seat(action.seat))

    def _apply_challenge(self, action: Challenge, events: list[Event]) -> None:
        self._require_turn(action, PLAY)
        if not self._challengeable():
            raise self._illegal(action, "there is no Wild Draw Four to challenge", "cannot_challenge")
        seat, offender = action.seat, self.wd4_offender
        assert offender is not None
        self.exposed.clear()
        guilty = self.wd4_bluff
        events.append(Event("challenged", {"seat": seat, "target": offender, "guilty": guilty}))
        events.append(Event("revealed", {"seat": offender, "cards": _texts(self.hands[offender])},
                            only=seat))
        amount = self._serve_penalty()
        if guilty:
            self._give(offender, amount, "challenge", events)
            self._advance(seat)
        else:
            self._give(seat, amount + 2, "challenge", events)
            self._advance(self.next_seat(seat))

    def _apply_uno(self, action: CallUno, events: list[Event]) -> None:
        seat = action.seat
        self._require_live(action)
        if len(self.hands[seat]) == 1:
            if self.called[seat]:
                raise self._illegal(action, "UNO is already called", "already_called")
            self.called[seat] = True
            self.exposed.discard(seat)
            events.append(Event("uno", {"seat": seat}))
            return
        if not self.rules.false_uno_penalty:
            raise self._illegal(action, "you do not hold one card", "false_uno")
        penalty = self.rules.uno_penalty
        events.append(Event("false_uno", {"seat": seat, "penalty": penalty}))
        self._give(seat, penalty, "false_uno", events)

    def _apply_catch(self, action: Catch, events: list[Event]) -> None:
        self._require_live(action)
        target = action.target
        if not 0 <= target < self.players or target == action.seat:
            raise self._illegal(action, "catch another seat", "bad_target")
        if target not in self.exposed or len(self.hands[target]) != 1 or self.called[target]:
            raise self._illegal(action, f"seat {target} cannot be caught now", "cannot_catch")
        self.exposed.discard(target)
        penalty = self.rules.uno_penalty
        events.append(Event("caught", {"seat": action.seat, "target": target, "penalty": penalty}))
        self._give(target, penalty, "caught", events)

    def _require_live(self, action: Action) -> None:
        if self.phase in (ROUND_OVER, MATCH_OVER):
            raise self._illegal(action, "the round is over", "round_over")
        if self.out[action.seat]:
            raise self._illegal(action, "you are out of this round", "out")

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
            events.append(Event("misplay", {"seat": action.seat, "penalty": penalty,
                                            "reason": public_reason(reason)}))
            self._give(action.seat, penalty, "misplay", events)
            return
        if fault:
            raise self._illegal(action, reason, _FAULT_CODES.get(fault, "bad_play"))
        self.exposed.clear()
        if jump:
            self._advance(seat)
        self._resolve_play(action, jump, events)

    # -- validating a play ---------------------------------------------------------

    def _check_play(self, play: Play) -> tuple[str, str, bool]:
        """("", "", jump) when legal; (fault, reason, jump) when not, fault one of _FAULT_CODES.

        A "rules" fault is a play of cards the player holds that the rules refuse (it may
        cost the misplay penalty); a "form" fault is a malformed or impossible action.
        """
        seat, cards, rules = play.seat, play.cards, self.rules
        if self.phase in (ROUND_OVER, MATCH_OVER):
            return "form", "the round is over", False
        if self.out[seat]:
            return "form", "you are out of this round", False
        if not cards:
            return "form", "a play needs at least one card", False
        hand = self.hands[seat]
        first = cards[0]
        if len(cards) == 1:
            if first not in hand:
                return "form", f"you do not hold {first}", False
        else:
            for card in dict.fromkeys(cards):
                if cards.count(card) > hand.count(card):
                    return "form", f"you do not hold {card}" + (" twice" if hand.count(card) else ""), False
        if len(cards) > 1:
            if rules.all_wild or not (rules.multi_play or self._pair_on_four(cards)):
                return "form", "playing several cards at once is off", False
            if any(c.is_wild for c in cards):
                return "rules", Reason("wild cards cannot be played together", _TOGETHER), False
            if any(c.kind is not first.kind for c in cards):
                return "rules", Reason("cards played together must share a number or symbol",
                                       _TOGETHER), False
        fault = self._check_choices(play)
        if fault:
            return "form", fault, False
        if play.uno and not rules.false_uno_penalty and len(hand) - len(cards) != 1:
            return "false_uno", "UNO may ride only on a play that leaves one card", False
        if seat != self.turn:
            fault, reason, jump = self._check_jump(play)
            if not fault and rules.last_card_no_action and _action_out(rules, hand, cards):
                return "rules", _NO_ACTION_OUT, False
            return fault, reason, jump
        if self.phase == COLOR:
            return "form", "name the color first", False
        if self.phase == DRAWN:
            if len(cards) != 1 or first is not self.drawn:
                return "rules", Reason(f"after drawing only the drawn card {self.drawn} may be played",
                                       "after drawing only the drawn card may be played"), False
        elif self.pending:
            reason = self._check_answer(cards)
            if reason:
                return "rules", Reason(reason, "a penalty is pending: that play does not answer it"), False
        elif not self.matches_top(first):
            table = f"{self.top} on {self._color_text()}"
            return "rules", Reason(f"{first} does not match {table}",
                                   f"that play does not match {table}"), False
        if rules.last_card_no_action and _action_out(rules, hand, cards):
            return "rules", _NO_ACTION_OUT, False
        return "", "", False

    def _check_choices(self, play: Play) -> str:
        """The color and target a play names must fit its cards."""
        cards, color, target = play.cards, play.color, play.target
        first = cards[0]
        if self.rules.all_wild:
            if color is not None:
                return "the All Wild deck has no colors to name"
        elif first.is_wild:
            if color is None:
                return f"{first} needs a color"
        elif color is not None and all(c.color is not color for c in cards):
            return f"{color.value} is not a color of the cards played"
        if first.kind in _TARGET_KINDS[self.rules.seven_zero]:
            if target is None:
                swap_out = first.kind is not Kind.WILD_TARGETED_DRAW_TWO and \
                    len(cards) == len(self.hands[play.seat])
                return "" if swap_out else f"{first} needs a target seat"  # going out: no swap
            if not 0 <= target < self.players or target == play.seat or self.out[target]:
                return f"seat {target} cannot be the target"
        elif target is not None:
            return f"{first} takes no target"
        return ""

    def _check_jump(self, play: Play) -> tuple[str, str, bool]:
        if not self.rules.jump_in or self.rules.all_wild:
            return "turn", f"it is seat {self.turn}'s turn", False
        if self.phase not in (PLAY, DRAWN):
            return "form", "no jump-in now", False
        if self.pending:
            return "rules", "no jump-in while a penalty is pending", False
        top = self.discard[-1]
        if top.is_wild or play.cards[0] is not top:
            return "rules", f"a jump-in needs a card identical to {top}", False
        if top.penalty and self.opening:
            return "rules", "no jump-in on the first card's penalty", False
        return "", "", True

    def _check_answer(self, cards: tuple[Card, ...]) -> str:
        """Whether ``cards`` may answer the pending penalty (stack or deflect)."""
        rules, top, first = self.rules, self.discard[-1], cards[0]
        # A pending penalty under a Skip or Reverse was deflected: it still ends in a Draw Two.
        if (rules.deflect and len(cards) == 1 and top.kind in _DEFLECTABLE
                and first.kind in (Kind.SKIP, Kind.REVERSE) and first.color is self.color):
            return ""
        if self._pair_on_four(cards):
            if first.color is self.color:
                return ""
            return f"a pair of Draw Twos on a Wild Draw Four must be {self._color_text()}"
        if rules.stacking == "off":
            return "a penalty is pending: draw it" + (" or challenge" if self._challengeable() else "")
        if first.penalty == 0:
            return f"a penalty is pending: only a penalty card may answer it, not {first}"
        if self.pending_pair and rules.pair_beats_wd4 and len(cards) < 2 and first.kind is Kind.DRAW_TWO:
            return "a single Draw Two may not go on a pair of Draw Twos"
        mode, on_four = rules.stacking, top.kind is Kind.WILD_DRAW_FOUR
        if first.kind is Kind.WILD_DRAW_FOUR:
            if on_four or mode in ("progressive", "mixed"):
                return ""
            return "only a Wild Draw Four answers a Wild Draw Four" if on_four else \
                "a Wild Draw Four may not go on a Draw Two with stacking=same"
        # a Draw Two (or the All Wild Draw Two)
        if not on_four:
            return ""
        if mode == "mixed":
            if first.color is self.color or first.is_wild:
                return ""
            return f"a Draw Two on a Wild Draw Four must be {self._color_text()}"
        return "only a Wild Draw Four answers a Wild Draw Four"

    def _pair_on_four(self, cards: tuple[Card, ...]) -> bool:
        """pair_beats_wd4: two identical Draw Twos answering a pending Wild Draw Four."""
        return (self.rules.pair_beats_wd4 and self.pending > 0 and len(cards) == 2
                and cards[0] is cards[1] and cards[0].kind is Kind.DRAW_TWO
                and self.discard[-1].kind is Kind.WILD_DRAW_FOUR)

    def _challengeable(self) -> bool:
        return (
            self.rules.challenge
            and not self.rules.all_wild
            and self.pending > 0
            and self.pending_cards == 1
            and self.discard[-1].kind is Kind.WILD_DRAW_FOUR
            and self.wd4_offender is not None
        )

    def _color_text(self) -> str:
        return self.color.value if self.color else "no color"

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
            events.append(Event("out", {"seat": seat, "reason": "finished"}))
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
        events.append(Event("penalty", {"seat": target, "amount": self.pending}))
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
        events.append(Event("penalty", {"seat": owner, "amount": self.pending}))
        self._advance(owner)

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
        events.append(Event("drew", {"seat": seat, "count": len(cards), "reason": reason}, None, seat))
        events.append(Event("drew", {"seat": seat, "count": len(cards), "reason": reason,
                                     "cards": [c.text for c in cards]}, seat))
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
            events.append(Event("hand", {"seat": s, "cards": _texts(hand)}, only=s))

    def _mercy_out(self, seat: int, events: list[Event]) -> None:
        cards = self.hands[seat]
        self.mercy_points += sum(c.points for c in cards)
        self.hands[seat] = []
        self.out[seat] = True
        self.exposed.discard(seat)
        self.draw_pile[:0] = cards
        _shuffle(self._rng("mercy", seat), self.draw_pile)
        events.append(Event("out", {"seat": seat, "reason": "mercy"}))

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
        events.append(Event("turn", {"seat": self.turn, "direction": self.direction,
                                     "phase": self.phase, "pending": self.pending}))

    def _end_round(self, winner: int, events: list[Event]) -> None:
        result = score_round(self, winner)
        self.results.append(result)
        self.scores = list(result.scores)
        events.append(Event("round_over", result.to_data()))
        self.turn = winner
        self.drawn = None  # a drawn card's choice ends with the round (it must not reach the dealer's view)
        self.exposed.clear()
        self.pending = 0
        if result.match_over:
            self.phase = MATCH_OVER
            events.append(Event("match_over", {"winner": result.match_winner,
                                               "scores": list(self.scores)}))
        else:
            self.phase = ROUND_OVER

    # -- starting rounds -----------------------------------------------------------

    def _rng(self, purpose: str, n: int = 0) -> random.Random:
        return random.Random(f"{self.seed}/{self.round}/{purpose}/{n}")

    def _choose_dealer(self, events: list[Event]) -> int:
        """Each player draws; the highest number deals (actions and wilds count 0); ties redraw.

        The deck is shuffled as ``random.Random(...).shuffle`` would, but only as far as
        the cards drawn: a Fisher-Yates shuffle settles the top card first.
        """
        deck = classic_deck()
        rng = random.Random(f"{self.seed}/dealer")
        stepped = _exact_shuffle()
        if not stepped:
            rng.shuffle(deck)
        left = len(deck)
        contenders = list(range(self.players))
        draws: list[list[object]] = []
        while len(contenders) > 1 and left:
            values = {}
            for seat in contenders:
                if not left:
                    break
                left -= 1
                if stepped:
                    _shuffle_step(rng, deck, left)
                card = deck[left]
                draws.append([seat, card.text])
                values[seat] = card.number or 0
            best = max(values.values())
            contenders = [s for s in contenders if values.get(s) == best]
        dealer = contenders[0]
        events.append(Event("dealer_draw", {"draws": draws, "dealer": dealer}))
        return dealer

    def _start_round(self) -> list[Event]:
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
        events = [Event("round_started", {"round": self.round, "dealer": self.dealer,
                                          "players": n, "hand_size": rules.hand_size})]
        events += [Event("hand", {"seat": s, "cards": _texts(self.hands[s])}, only=s) for s in range(n)]
        self._turn_up_first_card(events)
        return events

    def _turn_up_first_card(self, events: list[Event]) -> None:
        pile, tries = self.draw_pile, 0
        keep = Kind.WILD if self.rules.all_wild else None
        # All Wild with no plain Wild left in the pile: the top card is taken, with no effect.
        anything = keep is not None and all(c.kind is not keep for c in pile)
        while True:
            card = pile.pop()
            usable = card.kind is keep if keep else card.kind is not Kind.WILD_DRAW_FOUR
            if usable or anything:
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
