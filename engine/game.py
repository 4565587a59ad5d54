"""The game state machine: one match of UNO, round after round.

A :class:`Game` is a pure function of ``(rules, players, seed, actions)``: chance comes
only from ``random.Random`` instances seeded from ``seed`` and a counter, so a position
plus its seed fully determines what follows. Its state is a :class:`~.state.State`.
:meth:`Game.apply` validates an action, changes the state and returns the events, an
:class:`~.events.Events` sequence made from the records the machine keeps (their
private fields and what each kind means are in :data:`~.events.EVENT_KINDS`; every batch
ends with an event that carries the facts of the table, :meth:`Game._facts`); an illegal
action raises :class:`IllegalAction` and changes nothing. The fold of those events into a
seat's view is :mod:`.fold`. Legal-action generation and the judging of actions live in
:mod:`.legal`, which the game and a view's table both inherit.

Every action takes one path, the general one: a play is judged by ``_check_play`` and
done by ``_apply_play`` whatever the play. Shuffles are
``random.Random.shuffle``'s, reproduced step for step but quicker (:mod:`.shuffle`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, Final

from .actions import Action, CallUno, Catch, Challenge, ChooseColor, Deal, Draw, Pass, Play
from .cards import (
    COLOR_OF_CODE,
    DRAW_TWO,
    N0,
    NO_COLOR,
    REVERSE,
    SKIP,
    WILD,
    WILD_DRAW_FOUR,
    WILD_REVERSE,
    WILD_SKIP,
    WILD_SKIP_TWO,
    WILD_TARGETED_DRAW_TWO,
    Card,
    Kind,
    all_wild_deck,
    classic_deck,
)
from .errors import public_reason
from .events import Event, Events, Record, closing_data
from .kinds import _NO_EFFECT, _of_kinds, _plain
from .legal import FAULT_CODES, LegalActions
from .notation import read_position
from .phases import (
    DEALT,
    OVER_BITS,
    PHASE_COLOR,
    PHASE_DEALER_DRAW,
    PHASE_DEALT,
    PHASE_DRAWN,
    PHASE_MATCH_OVER,
    PHASE_PLAY,
    PHASE_ROUND_OVER,
    PHASES,
)
from .rules import Rules
from .scoring import RoundResult, score_round, tie_data
from .shuffle import _exact_shuffle, _shuffle, _shuffle_step
from .state import State
from .view import View

_SKIPS: Final = {SKIP: 1, WILD_SKIP: 1, WILD_SKIP_TWO: 2}
_REVERSES: Final = frozenset({REVERSE, WILD_REVERSE})
_COLOR_TEXT: Final[tuple[str | None, ...]] = tuple(None if c is None else c.value for c in COLOR_OF_CODE)  # by code
_PHASE_TEXT: Final[tuple[str, ...]] = tuple(phase.value for phase in PHASES)  # by code


class Game(LegalActions):
    """One match. Build with ``Game(rules, players, seed)``; the first round is dealt.
    :func:`parse_position` builds one at any moment of a round."""

    __slots__ = ("results", "start_events")

    results: list[RoundResult]  # every round's result, in order
    start_events: Events  # the events of setting up the match and dealing round 1

    def __init__(self, rules: Rules | None = None, players: int = 4, seed: int | str = 0, *,
                 at: dict[str, Any] | None = None) -> None:
        """``at``: instead, the fields of a state to start at (a position's, read by
        :func:`parse_position`); its history starts there."""
        self.results = []
        self.start_events = Events([])
        if at is not None:
            super().__init__(at["rules"], at["players"])
            for name, value in at.items():  # not __init__(**at): compiled, that loses them
                setattr(self, name, value)
            return
        if not 2 <= players <= 10:
            raise ValueError(f"UNO is played by 2 to 10 players, not {players}")
        rules = rules or Rules()
        check_table(rules, players)
        super().__init__(rules, players, seed)  # a match about to start
        events: list[Record | Event] = []
        self.dealer = self._choose_dealer(events, self._dealer_deck())
        events += self._start_round()
        self._settle(events)
        self.start_events = Events(events)

    # -- queries -------------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.phase_code == PHASE_MATCH_OVER

    def view(self, seat: int | None) -> View:
        """Exactly what ``seat`` may know (``None``: a spectator)."""
        return View.of(self, seat)

    def outcome(self) -> RoundResult | None:
        """The last round's result, once a round is over."""
        return self.results[-1] if OVER_BITS >> self.phase_code & 1 and self.results else None

    def match_end(self) -> dict[str, Any] | None:
        """The match's end as its ``match_over`` event says it (the winner, the scores and
        a partner rotation's tie), for whoever comes back after it; None while it goes on."""
        if self.phase_code != PHASE_MATCH_OVER or not self.results:
            return None
        winner = self.results[-1].match_winner
        tie = tie_data(self.scores, winner) if self.rules.partner_rotation and winner is not None else {}
        return {"winner": winner, "scores": list(self.scores), **tie}

    # -- applying actions ----------------------------------------------------------

    def apply(self, action: Action) -> Events:
        """Apply a legal action and return its events; raise IllegalAction otherwise."""
        if (not 0 <= action.seat < self.players or self.phase_code == PHASE_MATCH_OVER) and (
                fault := self._fault(action)):
            raise self._illegal(action, *fault)  # no such seat, or no match to play
        events: list[Record | Event] = []  # made Events when read (Events)
        match action:
            case Play():
                self._apply_play(action, events)
            case Draw():
                self._apply_draw(action, events)
            case Pass():
                self._apply_pass(action, events)
            case Challenge():
                self._apply_challenge(action, events)
            case CallUno():
                self._apply_uno(action, events)
            case Catch():
                self._apply_catch(action, events)
            case ChooseColor():
                self._apply_color(action, events)
            case Deal():
                self._apply_deal(action, events)
        if not OVER_BITS >> self.phase_code & 1:
            self._settle(events)
        return Events(events)

    def _facts(self, kind: str) -> Record:
        """The record of a closing event of ``kind`` with what every closing event carries,
        the values of ``events.CLOSING_FIELDS``: the seat in turn and the public facts that
        say what each seat may do now (the rest of a kind's fields follow them)."""
        return (
            kind,
            self.turn,
            self.direction,
            _PHASE_TEXT[self.phase_code],  # the plain string (an enum's attribute costs more)
            self.pending,
            self.stack,
            self.pair,
            self.served,
            self.wd4_offender is not None and self._challengeable(),  # mostly None: no call
            tuple(sorted(self.catchable)) if self.catchable else (),
            len(self.discard) == 1 and self.reshuffles == 0,  # opening, without a property's call
            self.called,  # a tuple, replaced on a change: shared, not copied
        )

    def _apply_deal(self, action: Deal, events: list[Record | Event]) -> None:
        if fault := self._deal_fault(action):
            raise self._illegal(action, *fault)
        if self.phase_code == PHASE_DEALT:  # the hands are dealt: turn up the first card
            self._turn_up_first_card(events)
            return
        if action.seed is not None:  # this round's shuffles, and the later ones, from it
            self.seed = action.seed
        if self.phase_code == PHASE_DEALER_DRAW:  # the players draw for dealer from the draw pile
            pile = self.draw_pile
            self.dealer = self._choose_dealer(events, lambda: pile.pop() if pile else None)
        else:
            self.dealer = action.seat
        events += self._start_round()

    def _apply_color(self, action: ChooseColor, events: list[Record | Event]) -> None:
        if fault := self._color_fault(action):
            raise self._illegal(action, *fault)
        self.color = action.color
        self.phase_code = PHASE_PLAY
        events.append(("color_chosen", action.seat, action.color.value))

    def _apply_draw(self, action: Draw, events: list[Record | Event]) -> None:
        """Take the pending penalty, or draw for the turn: one card (draw_until_playable:
        until one may be played at once; drawn_action_stays: one with no action), which
        may then be played."""
        if fault := self._draw_fault(action):
            raise self._illegal(action, *fault)
        seat, rules = action.seat, self.rules
        if self.catchable:  # a draw closes the window to catch anyone
            self.catchable.clear()
        if self.pending:
            amount = self._serve_penalty()
            self._give(seat, amount, "penalty", events)
            self._advance(self.next_seat(seat))
            return
        playable = self._playable()
        stays = _plain(rules) if rules.drawn_action_stays else None
        while True:
            cards = self._give(seat, 1, "draw", events)
            if not cards or self.out[seat]:
                break
            card = cards[0]
            if playable[card.code] and (stays is None or _of_kinds(stays, card)):
                self.drawn = card
                self.phase_code = PHASE_DRAWN
                return
            if not rules.draw_until_playable:
                break
        self._advance(self.next_seat(seat))

    def _apply_pass(self, action: Pass, events: list[Record | Event]) -> None:
        if fault := self._pass_fault(action):
            raise self._illegal(action, *fault)
        events.append(("passed", action.seat))
        self._advance(self.next_seat(action.seat))

    def _apply_challenge(self, action: Challenge, events: list[Record | Event]) -> None:
        if fault := self._challenge_fault(action):
            raise self._illegal(action, *fault)
        seat, offender = action.seat, self.wd4_offender
        assert offender is not None
        self.catchable.clear()
        guilty = self.wd4_bluff
        events.append(("challenged", seat, offender, guilty))
        events.append(("revealed", offender, seat, list(self.hands[offender])))
        amount = self._serve_penalty()
        if guilty:
            self._give(offender, amount, "challenge", events)
            self._advance(seat)
        else:
            self._give(seat, amount + 2, "challenge", events)
            self._advance(self.next_seat(seat))

    def _apply_uno(self, action: CallUno, events: list[Record | Event]) -> None:
        seat = action.seat
        if fault := self._uno_fault(action):
            raise self._illegal(action, *fault)
        if len(self.hands[seat]) == 1:
            self._set_called(seat, True)
            self.catchable.discard(seat)
            events.append(("uno", seat))
            return
        penalty = self.rules.uno_penalty
        events.append(("false_uno", seat, penalty))
        self._give(seat, penalty, "false_uno", events)

    def _apply_catch(self, action: Catch, events: list[Record | Event]) -> None:
        if fault := self._catch_fault(action):
            raise self._illegal(action, *fault)
        target = action.target
        self.catchable.discard(target)
        penalty = self.rules.uno_penalty
        events.append(("caught", action.seat, target, penalty))
        self._give(target, penalty, "caught", events)

    def _apply_play(self, play: Play, events: list[Record | Event]) -> None:
        """Judge a play (``_check_play``) and do what its cards do."""
        seat, cards, rules = play.seat, play.cards, self.rules
        fault, reason, jump = self._check_play(play)
        if fault:
            if fault != "rules" or not rules.misplay_penalty:
                raise self._illegal(play, reason, FAULT_CODES[fault])
            penalty = 2  # a misplay: the cards stay in hand
            events.append(("misplay", seat, penalty, public_reason(reason)))
            self._give(seat, penalty, "misplay", events)
            return
        if self.catchable:  # a play closes the window to catch anyone
            self.catchable.clear()
        if jump:  # the turn jumps to this seat
            self.turn = seat
        hand = self.hands[seat]
        first = cards[0]
        kind = first.kind
        answering = self.pending > 0
        bluff = kind is WILD_DRAW_FOUR and not rules.all_wild and self._breaks_wd4_rule(seat, first)
        for card in cards:
            hand.remove(card)
        self.discard += cards
        self.drawn = None  # the turn moves on, phase play: as _advance leaves it
        self.served = False
        self.phase_code = PHASE_PLAY
        if rules.all_wild:
            self.color_code = NO_COLOR
        elif first.is_wild or play.color is not None:
            self.color = play.color
        else:
            self.color_code = cards[-1].color_code
        events.append(("played", seat, cards, _COLOR_TEXT[self.color_code], play.target, jump))
        left = len(hand)
        if left == 1:  # UNO: called with the play, or the seat may be caught
            self._set_called(seat, play.uno)
            if play.uno:
                events.append(("uno", seat))
            else:
                self.catchable.add(seat)
        elif play.uno and left > 1 and rules.false_uno_penalty:
            penalty = rules.uno_penalty
            events.append(("false_uno", seat, penalty))
            self._give(seat, penalty, "false_uno", events)
        times = 1 if rules.pair_single_effect else len(cards)
        if first.penalty:
            self._play_penalty(play, times, answering, bluff, events)
        elif answering:  # a deflect: a Skip or Reverse of the Draw Two's color
            self._deflect(seat, kind, events)
        elif _of_kinds(_NO_EFFECT[rules.seven_zero], first):
            self.turn = self.next_seat(seat)
        else:
            self._act(play, kind, times, not left, events)
        if not left:
            self._go_out(seat, events)

    def _act(self, play: Play, kind: Kind, times: int, going_out: bool, events: list[Record | Event]) -> None:
        """What an action card just played does (``times`` over), but a penalty's."""
        seat = play.seat
        if kind in _SKIPS:
            self._skip_from(seat, _SKIPS[kind] * times, events)
        elif kind in _REVERSES:
            if self.active == 2:
                self._skip_from(seat, times, events)
            else:
                if times % 2:
                    self.direction = -self.direction
                    events.append(("reversed", self.direction))
                self._advance(self.next_seat(seat))
        elif kind is WILD_TARGETED_DRAW_TWO:
            assert play.target is not None
            self._give(play.target, 2, "targeted", events)
            self._advance(self.next_seat(seat))
        elif going_out:  # going out on a 7, a 0 or a Forced Swap: no swap
            self._advance(self.next_seat(seat))
        elif kind is N0:  # seven_zero: every hand passes on
            for _ in range(times):
                self._rotate(events)
            self._advance(self.next_seat(seat))
        else:  # a Forced Swap, or seven_zero's 7
            assert play.target is not None
            self._swap(seat, play.target, events)
            self._advance(self.next_seat(seat))

    def _go_out(self, seat: int, events: list[Record | Event]) -> None:
        """A seat played its last card: it wins the round, or under elimination finishes."""
        if self.rules.elimination:
            self.out[seat] = True
            self.finished.append(seat)
            self.catchable.discard(seat)
            events.append(("out", seat, "finished", 0))
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
            color = self.color_code
            return any(c.color_code == color for c in others if not c.is_wild)
        playable = self._playable()
        return any(playable[c.code] for c in others if not c.is_wild)

    def _play_penalty(self, play: Play, times: int, answering: bool, bluff: bool,
                      events: list[Record | Event]) -> None:
        seat, first = play.seat, play.cards[0]
        if not answering:
            self.pending = self.stack = 0
        self.pending += first.penalty * times
        self.stack += len(play.cards)
        self.pair = len(play.cards) == 2 and first.kind is DRAW_TWO
        is_four = first.kind is WILD_DRAW_FOUR and not self.rules.all_wild
        self.wd4_offender = seat if is_four and self.stack == 1 else None
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
        if card.kind is DRAW_TWO and rules.deflect:
            return True
        if card.kind is WILD_DRAW_FOUR and rules.pair_beats_wd4 and not rules.all_wild:
            return True
        return self._challengeable()

    def _deflect(self, seat: int, kind: Kind, events: list[Record | Event]) -> None:
        if self.active == 2:
            owner = self.next_seat(seat)
        elif kind is SKIP:
            skipped = self.next_seat(seat)
            events.append(("skipped", skipped))
            owner = self.next_seat(skipped)
        else:
            self.direction = -self.direction
            events.append(("reversed", self.direction))
            owner = self.next_seat(seat)
        events.append(self._penalty_event(owner))
        self._advance(owner)

    def _penalty_event(self, owner: int) -> Record:
        """The penalty now pending, owed by ``owner``, and whether they may challenge it."""
        return ("penalty", owner, self.pending, self.stack, self.pair, self._challengeable())

    def _skip_from(self, seat: int, skips: int, events: list[Record | Event]) -> None:
        """Skip ``skips`` players after ``seat``; skipping every other player (the most
        there is to skip: the player is never skipped) gives the player another turn."""
        nxt = seat
        for _ in range(min(skips, self.active - 1)):
            nxt = self.next_seat(nxt)
            events.append(("skipped", nxt))
        self._advance(self.next_seat(nxt))

    def _serve_penalty(self) -> int:
        """Take the pending penalty off the table to be drawn; return its card count."""
        self.served = True
        return self._drop_penalty()

    def _drop_penalty(self) -> int:
        """Clear the pending penalty and all that goes with it; return its card count."""
        amount = self.pending
        self.pending = self.stack = 0
        self.pair = False
        self.wd4_offender = None
        return amount

    # -- hands ---------------------------------------------------------------------

    def _give(self, seat: int, count: int, reason: str, events: list[Record | Event]) -> list[Card]:
        """Deal ``count`` cards from the draw pile to ``seat``; as many as there are."""
        pile = self.draw_pile
        if len(pile) < count:
            self._reshuffle(events)
        if count == 1 and pile:  # the usual draw: slicing one card costs twice a pop
            cards = [pile.pop()]
        else:
            n = min(count, len(pile))
            cards = pile[:-n - 1:-1] if n else []  # the top n cards, top first, as if popped
            del pile[len(pile) - n:]
        hand = self.hands[seat]
        hand += cards
        if cards:
            self._set_called(seat, False)
            self.catchable.discard(seat)
        events.append(("drew", seat, len(cards), reason, cards))
        limit = self.rules.mercy_limit
        if limit and len(hand) >= limit and not self.out[seat]:
            self._mercy_out(seat, events)
        return cards

    def _reshuffle(self, events: list[Record | Event]) -> None:
        """Shuffle the discards but the top card under the draw pile."""
        if len(self.discard) <= 1:
            return
        cards = self.discard[:-1]
        del self.discard[:-1]
        self.reshuffles += 1
        _shuffle(self._rng("reshuffle", self.reshuffles), cards)
        self.draw_pile[:0] = cards
        events.append(("reshuffled", len(cards)))

    def _swap(self, a: int, b: int, events: list[Record | Event]) -> None:
        hands, called = self.hands, list(self.called)
        hands[a], hands[b] = hands[b], hands[a]
        called[a], called[b] = called[b], called[a]
        self.called = tuple(called)
        events.append(("swapped", [a, b]))
        self._hands_moved((a, b), events)

    def _rotate(self, events: list[Record | Event]) -> None:
        """Every hand passes to the next seat in the direction of play."""
        seats = [s for s in range(self.players) if not self.out[s]]
        if self.direction < 0:
            seats.reverse()
        old_hands = [self.hands[s] for s in seats]
        old_called, called = [self.called[s] for s in seats], list(self.called)
        for i, s in enumerate(seats):
            self.hands[s] = old_hands[i - 1]
            called[s] = old_called[i - 1]
        self.called = tuple(called)
        events.append(("rotated", self.direction))
        self._hands_moved(seats, events)

    def _hands_moved(self, seats: tuple[int, ...] | list[int], events: list[Record | Event]) -> None:
        """UNO state follows the hand; each new holder learns its hand."""
        self.catchable.difference_update(seats)
        for s in seats:
            hand = self.hands[s]
            if len(hand) == 1 and not self.called[s]:
                self.catchable.add(s)
            events.append(_hand_event(s, hand, self.called[s]))

    def _mercy_out(self, seat: int, events: list[Record | Event]) -> None:
        """The seat is out of the round; its hand goes back into the draw pile."""
        cards = self.hands[seat]
        self.mercy_points += sum(c.points for c in cards)
        self.hands[seat] = []
        self.out[seat] = True
        self.catchable.discard(seat)
        self.draw_pile[:0] = cards
        _shuffle(self._rng("mercy", seat), self.draw_pile)
        events.append(("out", seat, "mercy", len(cards)))

    # -- turn flow -----------------------------------------------------------------

    def _advance(self, seat: int) -> None:
        self.turn = seat
        self.phase_code = PHASE_PLAY
        self.drawn = None

    def _settle(self, events: list[Record | Event]) -> None:
        """After an action: end a round with one player left, move a turn off a seat that
        left; close the batch with the turn event (in phase drawn it names the card the seat
        in turn just drew and may play, its own)."""
        out = self.out
        if self.active <= 1:  # one seat left in the round
            last = next((s for s in range(self.players) if not out[s]), self.turn)
            if self.rules.elimination:
                self.finished.append(last)
                last = self.finished[0]
            self._end_round(last, events)
            return
        if out[self.turn]:  # knocked out in turn (mercy): a penalty it owed lapses
            self._drop_penalty()
            self._advance(self.next_seat(self.turn))
        facts, drawn = self._facts("turn"), self.drawn
        events.append(facts if drawn is None or self.phase_code != PHASE_DRAWN else (*facts, drawn))

    def _end_round(self, winner: int, events: list[Record | Event]) -> None:
        """Score the round; the winner deals the next one (or the match is over)."""
        result = score_round(self, winner)
        self.results.append(result)
        self.scores = list(result.scores)
        self.turn = winner
        self.drawn = None  # a drawn card's choice ends with the round (it must not reach the dealer's view)
        self.catchable.clear()
        self._drop_penalty()
        self.phase_code = PHASE_ROUND_OVER
        events.append(Event("round_over", closing_data(result.to_data(), self._facts("round_over"))))
        if result.match_over:
            self.phase_code = PHASE_MATCH_OVER
            end = self.match_end()
            assert end is not None
            events.append(Event("match_over", closing_data(end, self._facts("match_over"))))

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

    def _choose_dealer(self, events: list[Record | Event], draw: Callable[[], Card | None]) -> int:
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

    def _start_round(self) -> list[Record | Event]:
        """Deal a round and turn up its first card."""
        events = self._deal()
        self._turn_up_first_card(events)
        return events

    def _deal(self) -> list[Record | Event]:
        """Shuffle a fresh deck and deal the hands; the dealer is to turn up the first card."""
        self.round += 1
        rules, n, dealer = self.rules, self.players, self.dealer
        deck = all_wild_deck() if rules.all_wild else classic_deck()
        _shuffle(self._rng("deal"), deck)
        # Deal one card at a time from the top, starting left of the dealer: the k-th card
        # popped goes to the seat k places after the dealer (mod n).
        cut = len(deck) - rules.hand_size * n
        dealt = deck[:cut - 1:-1] if cut else deck[::-1]
        del deck[cut:]
        hands: list[list[Card]] = [[] for _ in range(n)]
        for k in range(n):
            hands[(dealer + 1 + k) % n] = dealt[k::n]
        # Every other field of the round as at a match's start: nothing pending, nobody out.
        # Taken from a fresh state, not by running State.__init__ again on this one: compiled,
        # an __init__ takes every field for unset and would leak the values it replaces
        # (about a dozen lists per round, which every full garbage collection then walked).
        fresh = State(rules, n, self.seed, hands=hands, draw_pile=deck, turn=dealer,
                      phase=DEALT, round=self.round, dealer=dealer, scores=self.scores)
        self._take(fresh)
        events: list[Record | Event] = [("round_started", self.round, self.dealer, n, rules.hand_size,
                                         list(self.scores), len(deck))]
        events += [_hand_event(s, self.hands[s], False) for s in range(n)]
        return events

    def _turn_up_first_card(self, events: list[Record | Event]) -> None:
        """The dealer turns up the first card (a Wild Draw Four, or in the All Wild deck
        any card but a plain Wild, goes back and the pile is shuffled), and it acts."""
        pile, tries = self.draw_pile, 0
        keep = WILD if self.rules.all_wild else None

        def usable(card: Card) -> bool:
            return card.kind is keep if keep else card.kind is not WILD_DRAW_FOUR

        anything: bool | None = None  # no usable card in the pile: the top card is taken, with no effect
        while True:
            card = pile.pop()
            if usable(card):
                break
            if anything is None:  # asked once, when first needed (the card just taken is not usable)
                anything = not any(usable(c) for c in pile)
            if anything:
                break
            pile.append(card)
            tries += 1
            _shuffle(self._rng("first", tries), pile)
        self.discard.append(card)
        self.color_code = card.color_code
        events.append(("first_card", card, _COLOR_TEXT[card.color_code]))
        first = self.next_seat(self.dealer)
        self.phase_code = PHASE_PLAY
        self.turn = first
        kind = card.kind
        if kind is WILD and not self.rules.all_wild:
            self.phase_code = PHASE_COLOR
        elif kind is DRAW_TWO:
            self._give(first, 2, "first_card", events)
            self.served = True
            self.turn = self.next_seat(first)
        elif kind is SKIP:
            events.append(("skipped", first))
            self.turn = self.next_seat(first)
        elif kind is REVERSE:
            if self.players == 2:  # two players: the Reverse acts as a Skip
                events.append(("skipped", first))
                self.turn = self.dealer
            else:  # the player on the dealer's right starts
                self.direction = -1
                events.append(("reversed", -1))
                self.turn = self.next_seat(self.dealer)


def parse_position(text: str) -> Game:
    """The game at a position written in the notation (see :mod:`.notation`); raise
    NotationError naming the faulty line. Its history starts there."""
    return Game(at=read_position(text))


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


def _hand_event(seat: int, hand: list[Card], called: bool) -> Record:
    """A seat's whole hand, after a deal or a swap: its count (and whether its UNO call
    stands) for everyone, the cards for that seat alone."""
    return ("hand", seat, len(hand), called, list(hand))

