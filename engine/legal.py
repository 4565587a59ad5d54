"""What a seat may do now, and why it may not: legal actions and the judging of actions.

Its own module because it is a job of its own, apart from applying actions. Two tables
judge by this code: the :class:`~.game.Game`, which knows every card, and a seat's
:class:`~.view.View`, which knows its own hand and only the counts of the others (that is
all legality ever depends on). :class:`LegalActions` is a :class:`~.state.State` with these
queries, and both tables are one (a view's table holds its seat's hand alone and answers
the questions about the others from what the view says).

Actions are values: the actions that are the same every time (a seat's draw, the plays of
one card that name no target) are made once, at import, and shared.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Final

from .actions import Action, CallUno, Catch, Challenge, ChooseColor, Deal, Draw, Pass, Play
from .cards import (
    ALL_CARDS,
    COLOR_OF_CODE,
    COLORS,
    DRAW_TWO,
    REVERSE,
    SKIP,
    WILD_DRAW_FOUR,
    WILD_TARGETED_DRAW_TWO,
    Card,
    Color,
    Kind,
)
from .errors import IllegalAction, Reason
from .kinds import _TARGET_KINDS, _action_out, _of_kinds
from .notation import format_position
from .phases import (
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
from .state import State

_DEFLECTABLE: Final = (DRAW_TWO, SKIP, REVERSE)  # top cards of a pending Draw Two penalty
# The refusal code of each kind of fault of a play (see _check_play).
FAULT_CODES = {"rules": "misplay", "turn": "not_your_turn", "false_uno": "false_uno", "form": "bad_play",
               "choice": "bad_play", "target": "bad_target", "seat": "bad_seat",
               # no play now, whatever its cards: the codes every other action gets then
               "over": "round_over", "between": "wrong_phase", "out": "out"}
_CHOICES: Final = frozenset({"choice", "target", "seat"})  # faults of what a play names, not of its cards
# The public words of some misplays (see Reason): what was tried stays with its player.
_TOGETHER: Final = "those cards may not be played together"
_NO_ACTION_OUT: Final = Reason("you may not go out on an action or wild card", "that play may not go out")
# Sets of phases as bits of their codes (a phase is in one when ``bits >> code & 1``).
_BETWEEN_ROUNDS: Final = 1 << PHASE_ROUND_OVER | 1 << PHASE_DEALER_DRAW | 1 << PHASE_DEALT  # a Deal is the only action
_NO_PLAY: Final = OVER_BITS | _BETWEEN_ROUNDS  # no card may be played
Fault = tuple[str | Reason, str]  # (reason, code) of a refusal


class LegalActions(State):
    """Legal actions and the judging of actions: queries of a table's state.

    Of ``hands`` they read only the acting seat's own hand, of ``discard`` only its top
    card; the other seats are judged by ``_holds_one``, which a seat's view answers from
    the counts it knows.
    """

    __slots__ = ()

    def position(self) -> str:
        """The whole table in the position notation (hidden cards and all), as error
        messages quote it; a seat's view has none to quote."""
        return format_position(self)

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in and out of turn."""
        phase = self.phase_code
        if phase == PHASE_MATCH_OVER or not 0 <= seat < self.players:
            return []
        if _BETWEEN_ROUNDS >> phase & 1:
            return [_DEAL[seat]] if seat == self.turn else []
        if self.out[seat]:
            return []
        hand = self.hands[seat]
        out: list[Action] = []
        if len(hand) == 1 and not self.called[seat]:
            out.append(_CALL_UNO[seat])
        if self.catchable:
            called, catch = self.called, _CATCH[seat]
            for target in sorted(self.catchable):
                if target != seat and not called[target] and self._holds_one(target):
                    out.append(catch[target])
        if seat != self.turn:
            self._plays(seat, self._jump_groups(seat), out)
            return out
        if phase == PHASE_COLOR:
            out += _CHOOSE_COLOR[seat]
            return out
        if phase == PHASE_DRAWN:
            drawn = self.drawn
            assert drawn is not None
            self._plays(seat, [_ONE[drawn.code]], out)
            if not self.rules.forced_play:
                out.append(_PASS[seat])
            return out
        if self.pending:
            self._plays(seat, self._answer_groups(hand), out)
            out.append(_DRAW[seat])
            if self._challengeable():
                out.append(_CHALLENGE[seat])
            return out
        self._plays(seat, self._play_groups(hand), out)
        out.append(_DRAW[seat])
        return out

    # -- judging an action -----------------------------------------------------------

    def refusal(self, action: Action) -> IllegalAction | None:
        """Why ``action`` would be refused now, judged exactly as applying it judges it;
        None when it would be applied. A play of held cards that the rules refuse is a
        refusal (code ``misplay``) even when ``misplay_penalty`` makes applying it cost
        cards instead."""
        fault = self._fault(action)
        return None if fault is None else self._illegal(action, *fault)

    def play_refusal(self, seat: int, cards: tuple[Card, ...]) -> IllegalAction | None:
        """Why every play of ``cards`` by ``seat`` would be refused now, whichever color
        and target it named (None: one of them would be applied). The reason is that of a
        play whose choices fit its cards, so it is about the cards, not a missing choice."""
        first: tuple[Play, Fault] | None = None
        for color in (None, *COLORS):
            for target in (None, *range(self.players)):
                play = Play(seat, cards, color, target)
                fault = self._fault(play)
                if fault is None:
                    return None
                if self._check_play(play)[0] not in _CHOICES:  # the choices fit: the cards do not
                    return self._illegal(play, *fault)
                first = first or (play, fault)
        assert first is not None
        return self._illegal(first[0], *first[1])

    def _illegal(self, action: Action, reason: str | Reason, code: str = "illegal") -> IllegalAction:
        return IllegalAction(action, reason, self.position(), code)

    def _fault(self, action: Action) -> Fault | None:
        """The (reason, code) for which ``action`` would be refused, or None."""
        seat = action.seat
        if not 0 <= seat < self.players:
            return f"there is no seat {seat}", "bad_seat"
        if self.phase_code == PHASE_MATCH_OVER:
            return "the match is over", "match_over"
        match action:
            case Play():
                fault, reason, _ = self._check_play(action)
                return (reason, FAULT_CODES[fault]) if fault else None
            case Draw():
                return self._draw_fault(action)
            case Pass():
                return self._pass_fault(action)
            case Challenge():
                return self._challenge_fault(action)
            case CallUno():
                return self._uno_fault(action)
            case Catch():
                return self._catch_fault(action)
            case ChooseColor():
                return self._color_fault(action)
            case Deal():
                return self._deal_fault(action)

    def _turn_fault(self, action: Action, phase: int) -> Fault | None:
        """An in-turn action: the seat in turn, in ``phase`` (a phase of play, by its code)."""
        now = self.phase_code
        if now == phase and action.seat == self.turn:
            return None
        if OVER_BITS >> now & 1:
            return "the round is over", "round_over"
        if _BETWEEN_ROUNDS >> now & 1:
            return "the round has not started: it is dealt first", "wrong_phase"
        if action.seat != self.turn:
            return f"it is seat {self.turn}'s turn", "not_your_turn"
        return f"not possible in phase {PHASES[now]}", "wrong_phase"

    def _live_fault(self, action: Action) -> Fault | None:
        """An action any seat still in the round may take, in or out of turn."""
        if OVER_BITS >> self.phase_code & 1:
            return "the round is over", "round_over"
        if _BETWEEN_ROUNDS >> self.phase_code & 1:
            return "the round has not started: it is dealt first", "wrong_phase"
        if self.out[action.seat]:
            return "you are out of this round", "out"
        return None

    def _draw_fault(self, action: Draw) -> Fault | None:
        return self._turn_fault(action, PHASE_PLAY)

    def _pass_fault(self, action: Pass) -> Fault | None:
        fault = self._turn_fault(action, PHASE_DRAWN)
        if fault is None and self.rules.forced_play:
            return "forced play: the drawn card must be played", "forced_play"
        return fault

    def _challenge_fault(self, action: Challenge) -> Fault | None:
        fault = self._turn_fault(action, PHASE_PLAY)
        if fault is None and not self._challengeable():
            return "there is no Wild Draw Four to challenge", "cannot_challenge"
        return fault

    def _color_fault(self, action: ChooseColor) -> Fault | None:
        return self._turn_fault(action, PHASE_COLOR)

    def _uno_fault(self, action: CallUno) -> Fault | None:
        """A call holding one card, once; a false call is refused unless it costs a penalty."""
        fault = self._live_fault(action)
        if fault is None:
            if len(self.hands[action.seat]) == 1:
                if self.called[action.seat]:
                    return "UNO is already called", "already_called"
            elif not self.rules.false_uno_penalty:
                return "you do not hold one card", "false_uno"
        return fault

    def _catch_fault(self, action: Catch) -> Fault | None:
        fault = self._live_fault(action)
        if fault is not None:
            return fault
        target = action.target
        if not 0 <= target < self.players:
            return f"there is no seat {target}", "bad_seat"
        if target == action.seat:
            return "catch another seat", "bad_target"
        if target not in self.catchable or not self._holds_one(target) or self.called[target]:
            return f"seat {target} cannot be caught now", "cannot_catch"
        return None

    def _deal_fault(self, action: Deal) -> Fault | None:
        if not _BETWEEN_ROUNDS >> self.phase_code & 1 or action.seat != self.turn:
            return f"only seat {self.turn} may deal, between rounds", "wrong_phase"
        if action.seed is not None and self.phase_code == PHASE_DEALT:
            return "the hands are dealt: a seed comes with a shuffle, before it", "wrong_phase"
        return None

    # -- judging a play --------------------------------------------------------------

    def _playable(self) -> bytes:
        """Whether each card (by its code) may be played on the discard now with no penalty
        pending (1 or 0): the answers of :func:`_matches` for this table, looked up."""
        rules = self.rules
        if rules.all_wild:
            return _EVERY_CARD
        strict = self.served and rules.strict_after_penalty
        return _PLAYABLE[(strict * _TABLE_COLORS + self.color_code) * _CARDS + self.discard[-1].code]

    def _check_play(self, play: Play) -> tuple[str, str | Reason, bool]:
        """("", "", jump) when legal; (fault, reason, jump) when not, fault one of FAULT_CODES.

        A "rules" fault is a play of cards the player holds that the rules refuse (it may
        cost the misplay penalty); "over", "between" and "out" say no play is possible now
        (the round is over, not dealt yet, or the seat is out of it); a "form" fault is a
        malformed or impossible action, a "choice" fault a color that does not fit the
        cards, a "target" fault a target seat
        that does not (missing, needless, the player's own, out of the round) and a "seat"
        fault a target seat the table does not have.
        """
        seat, cards, rules, phase = play.seat, play.cards, self.rules, self.phase_code
        if _NO_PLAY >> phase & 1:
            if OVER_BITS >> phase & 1:
                return "over", "the round is over", False
            return "between", "the round has not started: it is dealt first", False
        if self.out[seat]:
            return "out", "you are out of this round", False
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
            if rules.all_wild or not (rules.multi_play or self._pair_on_four(cards)):
                return "form", "playing several cards at once is off", False
            if any(c.is_wild for c in cards):
                return "rules", Reason("wild cards cannot be played together", _TOGETHER), False
            if any(c.kind is not first.kind for c in cards):
                return "rules", Reason("cards played together must share a number or symbol",
                                       _TOGETHER), False
        # The color and target the play names must fit its cards.
        color, target = play.color, play.target
        if rules.all_wild:
            if color is not None:
                return "choice", "the All Wild deck has no colors to name", False
        elif first.is_wild:
            if color is None:
                return "choice", f"{first} needs a color", False
        elif color is not None and all(c.color is not color for c in cards):
            return "choice", f"{color.value} is not a color of the cards played", False
        if _of_kinds(_TARGET_KINDS[rules.seven_zero], first):
            if target is None:
                if first.kind is WILD_TARGETED_DRAW_TWO or len(cards) != len(hand):
                    return "target", f"{first} needs a target seat", False  # going out: no swap
            elif not 0 <= target < self.players:
                return "seat", f"there is no seat {target}", False
            elif target == seat or self.out[target]:
                return "target", f"seat {target} cannot be the target", False
        elif target is not None:
            return "target", f"{first} takes no target", False
        if play.uno and not rules.false_uno_penalty and len(hand) - len(cards) != 1:
            return "false_uno", "UNO may ride only on a play that leaves one card", False
        if seat != self.turn:
            fault, reason, jump = self._check_jump(play)
            if not fault and rules.last_card_no_action and _action_out(rules, hand, cards):
                return "rules", _NO_ACTION_OUT, False
            return fault, reason, jump
        if phase == PHASE_COLOR:
            return "form", "name the color first", False
        if phase == PHASE_DRAWN:
            if len(cards) != 1 or first is not self.drawn:
                return "rules", Reason(f"after drawing you may play only {self.drawn}, the card drawn",
                                       "after drawing you may play only the card drawn"), False
        elif self.pending:
            reason = self._check_answer(cards)
            if reason:
                return "rules", Reason(reason, "a penalty is pending: that play does not answer it"), False
        elif not self._playable()[first.code]:
            table = f"{self.discard[-1]} on {self._color_text()}"
            return "rules", Reason(f"{first} does not match {table}", f"that play does not match {table}"), False
        if rules.last_card_no_action and _action_out(rules, hand, cards):
            return "rules", _NO_ACTION_OUT, False
        return "", "", False

    def _check_jump(self, play: Play) -> tuple[str, str, bool]:
        if not self.rules.jump_in or self.rules.all_wild:
            return "turn", f"it is seat {self.turn}'s turn (these rules have no jump-ins)", False
        if self.phase_code not in (PHASE_PLAY, PHASE_DRAWN):
            return "form", "no jump-in now", False
        if self.pending:
            return "rules", "no jump-in while a penalty is pending", False
        top = self.discard[-1]
        if top.is_wild:
            return "rules", "no jump-in on a wild card", False
        if play.cards[0] is not top:
            return "rules", f"a jump-in needs a card identical to {top}", False
        if top.penalty and self.opening:
            return "rules", "no jump-in on the first card's penalty", False
        return "", "", True

    def _check_answer(self, cards: tuple[Card, ...]) -> str:
        """Whether ``cards`` may answer the pending penalty (stack or deflect)."""
        rules, top, first = self.rules, self.discard[-1], cards[0]
        # A pending penalty under a Skip or Reverse was deflected: it still ends in a Draw Two.
        if (rules.deflect and len(cards) == 1 and top.kind in _DEFLECTABLE
                and first.kind in (SKIP, REVERSE) and first.color_code == self.color_code):
            return ""
        if self._pair_on_four(cards):
            if first.color_code == self.color_code:
                return ""
            return f"a pair of Draw Twos on a Wild Draw Four must be {self._color_text()}"
        if rules.stacking == "off":
            return "a penalty is pending: draw it" + (" or challenge" if self._challengeable() else "")
        if first.penalty == 0:
            return f"a penalty is pending: only a penalty card may answer it, not {first}"
        if self.pair and rules.pair_beats_wd4 and len(cards) < 2 and first.kind is DRAW_TWO:
            return "a single Draw Two may not go on a pair of Draw Twos"
        mode, on_four = rules.stacking, top.kind is WILD_DRAW_FOUR
        if first.kind is WILD_DRAW_FOUR:
            if on_four or mode in ("progressive", "mixed"):
                return ""
            return "only a Wild Draw Four answers a Wild Draw Four" if on_four else \
                "a Wild Draw Four may not go on a Draw Two with stacking=same"
        # a Draw Two (or the All Wild Draw Two)
        if not on_four:
            return ""
        if mode == "mixed":
            if first.color_code == self.color_code or first.is_wild:
                return ""
            return f"a Draw Two on a Wild Draw Four must be {self._color_text()}"
        return "only a Wild Draw Four answers a Wild Draw Four"

    def _pair_on_four(self, cards: tuple[Card, ...]) -> bool:
        """pair_beats_wd4: two identical Draw Twos answering a pending Wild Draw Four."""
        return (self.rules.pair_beats_wd4 and self.pending > 0 and len(cards) == 2
                and cards[0] is cards[1] and cards[0].kind is DRAW_TWO
                and self.discard[-1].kind is WILD_DRAW_FOUR)

    def _color_text(self) -> str:
        return self.color.name.lower() if self.color else "no color"

    # -- listing plays ---------------------------------------------------------------

    def _jump_groups(self, seat: int) -> list[tuple[Card, ...]]:
        """The groups of cards ``seat`` may jump in with: the top card's twin (and under
        multi_play the others of its kind beside it)."""
        rules = self.rules
        if not rules.jump_in or rules.all_wild or self.pending or self.phase_code not in (PHASE_PLAY, PHASE_DRAWN):
            return []
        top, hand = self.discard[-1], self.hands[seat]
        if top.is_wild or top not in hand or (top.penalty and self.opening):
            return []
        return self._extend(_ONE[top.code], hand) if rules.multi_play else [_ONE[top.code]]

    def _play_groups(self, hand: list[Card]) -> list[tuple[Card, ...]]:
        """Each group of cards the hand may play on the discard, no penalty pending.

        Which cards were met and which kinds come twice are bits of an int (a card's bit
        is its ``code``, a kind's its ``kind_code``; there are fewer than 62 of each, so
        compiled they stay machine integers): each distinct card once, in hand order, with
        no list built or searched per listing."""
        playable = self._playable()
        rules = self.rules
        twins = 0  # multi_play: the kinds of which the hand holds more than one card
        if rules.multi_play and not rules.all_wild:
            kinds = 0
            for card in hand:
                bit = 1 << card.kind_code
                twins |= kinds & bit
                kinds |= bit
        groups: list[tuple[Card, ...]] = []
        met = 0  # the cards met so far
        for card in hand:
            code = card.code
            if met >> code & 1 or not playable[code]:
                continue
            met |= 1 << code
            if twins >> card.kind_code & 1 and not card.is_wild:
                groups += self._extend(_ONE[code], hand)
            else:  # what _extend gives for a card with none of its kind beside it
                groups.append(_ONE[code])
        return groups

    def _extend(self, start: tuple[Card, ...], hand: list[Card]) -> list[tuple[Card, ...]]:
        """``start`` plus every sub-multiset of the hand's other cards of the same kind."""
        first = start[0]
        rest = [c for c in hand if c.kind is first.kind and not c.is_wild]
        rest.remove(first)
        if len(rest) > 1:  # (a sort by key costs a key list and a call even for one card)
            rest.sort(key=_ORDER)
        # Each card of ``rest`` extends every group so far, but a card identical to the one
        # before it (sorted, twins are neighbours) only the groups that card made: any other
        # group with it added was already made with its twin. So no group comes twice, and
        # none is hashed to find out (a list, in a fixed order: every seeded bot's choice).
        groups, made = [start], [start]
        previous = None
        for card in rest:
            made = [group + _ONE[card.code] for group in (made if card is previous else groups)]
            groups += made
            previous = card
        if len(rest) > 1:  # with one card beside the start, the two groups are in order
            groups.sort(key=len)
        return groups

    def _answer_groups(self, hand: list[Card]) -> list[tuple[Card, ...]]:
        """Each group of cards the hand may answer the pending penalty with."""
        groups: list[tuple[Card, ...]] = []
        rules = self.rules
        multi = rules.multi_play and not rules.all_wild
        for card in hand:
            if not card.penalty and not (rules.deflect and card.kind in (SKIP, REVERSE)):
                continue  # _check_answer refuses every group this card starts
            one = _ONE[card.code]
            candidates = self._extend(one, hand) if multi and not card.is_wild else [one]
            if not multi and hand.count(card) > 1 and self._pair_on_four((card, card)):
                candidates = [(card,), (card, card)]
            for group in candidates:
                if group not in groups and not self._check_answer(group):
                    groups.append(group)
        return groups

    def _plays(self, seat: int, groups: list[tuple[Card, ...]], out: list[Action]) -> None:
        """Add the plays of these groups of cards to ``out``: each color and target a
        group may name, UNO or not."""
        if not groups:
            return
        rules, hand = self.rules, self.hands[seat]
        special, all_wild = _TARGET_KINDS[rules.seven_zero], rules.all_wild
        singles = _SINGLES[all_wild][len(hand) == 2][seat]
        last_card_rule = rules.last_card_no_action
        for cards in groups:
            if last_card_rule and _action_out(rules, hand, cards):
                continue
            first = cards[0]
            if _of_kinds(special, first):
                left = len(hand) - len(cards)
                targets: tuple[int | None, ...] = tuple(
                    s for s in range(self.players) if s != seat and not self.out[s])
                if left == 0 and first.kind is not WILD_TARGETED_DRAW_TWO:
                    targets = (None, *targets)  # going out on a 7 or a Forced Swap: no swap, no target
                out += _build_variants(seat, cards, targets, left == 1, all_wild)
            elif len(cards) == 1:
                out += singles[first.code]
            else:
                out += _build_variants(seat, cards, _NO_TARGET, len(hand) - len(cards) == 1, all_wild)


_NO_TARGET: Final[tuple[int | None, ...]] = (None,)
_NO_COLOR: Final[tuple[Color | None, ...]] = (None,)
# Each card as a group of one, by its code: made once, not a new tuple per listing (typed
# as any length: compiled, a tuple of fixed length is unboxed and boxed anew when used).
_ONE: Final[tuple[tuple[Card, ...], ...]] = tuple((card,) for card in ALL_CARDS)
_ORDER: Final = attrgetter("order")  # a card's place in the sort order
# The actions that are the same value every time, made once per seat (there are at most 10).
_SEATS: Final = range(10)
_DRAW: Final = tuple(Draw(s) for s in _SEATS)
_PASS: Final = tuple(Pass(s) for s in _SEATS)
_CHALLENGE: Final = tuple(Challenge(s) for s in _SEATS)
_CALL_UNO: Final = tuple(CallUno(s) for s in _SEATS)
_DEAL: Final = tuple(Deal(s) for s in _SEATS)
_CATCH: Final = tuple(tuple(Catch(s, t) for t in _SEATS) for s in _SEATS)
_CHOOSE_COLOR: Final = tuple(tuple(ChooseColor(s, c) for c in COLORS) for s in _SEATS)


def _build_variants(seat: int, cards: tuple[Card, ...], targets: tuple[int | None, ...],
                    uno: bool, all_wild: bool) -> list[Play]:
    """Every play of ``cards`` by ``seat``: each color it may name, each target, UNO or
    not. A list, added straight to the listing (no tuple copied from it per group)."""
    first = cards[0]
    if all_wild:
        colors = _NO_COLOR
    elif first.is_wild:
        colors = COLORS
    elif len(cards) > 1:  # each color of the cards once, in their order
        named: list[Color | None] = []
        for card in cards:
            if card.color not in named:
                named.append(card.color)
        colors = tuple(named)
    else:
        colors = _NO_COLOR
    plays: list[Play] = []
    for color in colors:
        for target in targets:
            plays.append(Play(seat, cards, color, target))
            if uno:
                plays.append(Play(seat, cards, color, target, True))
    return plays




def _matches(card: Card, color: Color | None, top_kind: Kind | None, strict: bool) -> bool:
    """The rule: whether ``card`` may be played, no penalty pending, on a discard whose color
    is ``color`` and whose top card is of ``top_kind`` (None: a wild); ``strict``: only its
    color may follow (strict_after_penalty, the penalty served). The All Wild deck has no
    rule: any card may be played."""
    if card.is_wild:
        return not strict
    return card.color is color or (not strict and card.kind is top_kind)


# Whether each card (by its code) may be played on each discard, by strictness, the
# discard's color code (cards.COLOR_OF_CODE) and its top card's code: the answers of
# ``_matches``, made once (one row per top card's kind), as bytes of 1 and 0. One flat
# tuple indexed by the three, not hashed: a row is one read, and a card's answer in it one
# byte read (compiled, neither boxes nor unboxes a bool).
_TABLE_COLORS: Final = len(COLOR_OF_CODE)  # the four colors and None
_CARDS: Final = len(ALL_CARDS)
_MATCHING: Final = {
    (color, kind, strict): bytes(_matches(c, color, kind, strict) for c in ALL_CARDS)
    for color in COLOR_OF_CODE for kind in (*Kind, None) for strict in (False, True)
}
_PLAYABLE: Final[tuple[bytes, ...]] = tuple(
    _MATCHING[color, None if top.is_wild else top.kind, strict]
    for strict in (False, True) for color in COLOR_OF_CODE for top in ALL_CARDS)
_EVERY_CARD: Final = bytes([1]) * _CARDS

# The plays of one card that name no target, by All Wild deck, UNO (the play leaves one
# card), seat and card's code: what ``_build_variants`` gives for them, made once and shared.
_SINGLES: Final[tuple[tuple[tuple[tuple[tuple[Play, ...], ...], ...], ...], ...]] = tuple(
    tuple(
        tuple(tuple(tuple(_build_variants(seat, (card,), _NO_TARGET, uno, all_wild)) for card in ALL_CARDS)
              for seat in _SEATS)
        for uno in (False, True))
    for all_wild in (False, True))
