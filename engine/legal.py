"""Legal-action generation: every action a seat may take now (``Game.legal_actions``).

Its own module because it is a job of its own, apart from applying actions: bots and
simulations call it for every action, so it keeps per-seat tables of ready-made actions
and caches of plays. :class:`LegalActions` is a mixin that :class:`~.game.Game`
inherits (a method of the game itself, so the hot path costs no extra call); it reads
the game's state and its ``matches_top``, ``opening``, ``_check_answer``,
``_pair_on_four`` and ``_challengeable``.
"""

from __future__ import annotations

from collections.abc import Iterator

from .actions import Action, CallUno, Catch, Challenge, ChooseColor, Deal, Draw, Pass, Play
from .cards import ALL_CARDS, COLORS, SORT_KEY, Card, Color, Kind
from .kinds import _TARGET_KINDS, _action_out
from .phases import COLOR, DRAWN, MATCH_OVER, PLAY, ROUND_OVER


class LegalActions:
    """The legal-action methods of :class:`~.game.Game` (a mixin: the state is the game's)."""

    __slots__ = ()

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now, in and out of turn."""
        phase = self.phase
        if phase == MATCH_OVER or not 0 <= seat < self.players:
            return []
        if phase == ROUND_OVER:
            return [_DEAL[seat]] if seat == self.turn else []
        if self.out[seat]:
            return []
        hand = self.hands[seat]
        out: list[Action] = []
        if len(hand) == 1 and not self.called[seat]:
            out.append(_CALL_UNO[seat])
        if self.exposed:
            hands, called, catch = self.hands, self.called, _CATCH[seat]
            for target in sorted(self.exposed):
                if target != seat and len(hands[target]) == 1 and not called[target]:
                    out.append(catch[target])
        if seat != self.turn:
            out += self._legal_jumps(seat)
            return out
        if phase == COLOR:
            out += _CHOOSE_COLOR[seat]
            return out
        if phase == DRAWN:
            drawn = self.drawn
            assert drawn is not None
            if len(hand) > 1 and drawn.kind not in _TARGET_KINDS[self.rules.seven_zero]:
                singles = _SINGLES[self.rules.all_wild][len(hand) == 2][seat]
                plays = singles.get(drawn)
                if plays is None:
                    plays = singles[drawn] = self._variants(seat, (drawn,))
                out += plays
            else:
                out += self._variants(seat, (drawn,))
            if not self.rules.forced_play:
                out.append(_PASS[seat])
            return out
        if self.pending:
            for group in self._answer_groups(hand):
                out += self._variants(seat, group)
            out.append(_DRAW[seat])
            if self._challengeable():
                out.append(_CHALLENGE[seat])
            return out
        self._plays(seat, hand, out)
        out.append(_DRAW[seat])
        return out

    def _plays(self, seat: int, hand: list[Card], out: list[Action]) -> None:
        """Add the plays of a turn with no penalty pending: what ``_play_groups`` and
        ``_variants`` give, with one short path for the usual single card."""
        rules = self.rules
        if len(hand) < 2:  # going out: last-card rules and "no target" plays
            for group in self._play_groups(hand):
                out += self._variants(seat, group)
            return
        all_wild = rules.all_wild
        multi = rules.multi_play and not all_wild
        special = _TARGET_KINDS[rules.seven_zero]
        singles = _SINGLES[all_wild][len(hand) == 2][seat]
        if all_wild:
            strict = False
            color = top_kind = None
        else:
            strict = self.served and rules.strict_after_penalty
            color = self.color
            top = self.discard[-1]
            top_kind = None if top.is_wild else top.kind
        kinds = [c.kind for c in hand] if multi else None
        for card in dict.fromkeys(hand):  # each distinct card once, in hand order
            if all_wild:
                pass
            elif card.is_wild:
                if strict:
                    continue
            elif card.color is not color and (strict or card.kind is not top_kind):
                continue
            kind = card.kind
            if kind in special:
                if kinds is not None and not card.is_wild and kinds.count(kind) > 1:
                    for group in self._extend((card,), hand):
                        out += self._variants(seat, group)
                else:
                    out += self._variants(seat, (card,))
            elif kinds is not None and not card.is_wild and (same := kinds.count(kind)) > 1:
                # Several cards of this kind: the groups of _extend. Their plays depend only
                # on the seat, the card, the colors of the cards of its kind (a number in
                # base 3: at most two of a color), how many other cards stay in hand when
                # all of them are played (0, 1 or more: UNO and going out) and the rules.
                colors = sum([_COLOR_DIGIT[c] for c in hand if c.kind is kind])
                key = (seat, card, colors, min(len(hand) - same, 2), rules.last_card_no_action)
                plays = _GROUPS.get(key)
                if plays is None:
                    if len(_GROUPS) >= _VARIANTS_LIMIT:
                        _GROUPS.clear()
                    plays = _GROUPS[key] = tuple(
                        play for group in self._extend((card,), hand) for play in self._variants(seat, group))
                out += plays
            else:
                plays = singles.get(card)
                if plays is None:
                    plays = singles[card] = _build_variants(seat, (card,), _NO_TARGET, len(hand) == 2,
                                                            all_wild)
                out += plays

    def _legal_jumps(self, seat: int) -> Iterator[Action]:
        rules = self.rules
        if not rules.jump_in or rules.all_wild or self.pending or self.phase not in (PLAY, DRAWN):
            return
        top = self.discard[-1]
        if top.is_wild or top not in self.hands[seat] or (top.penalty and self.opening):
            return
        groups = [(top,)]
        if rules.multi_play:
            groups = list(self._extend((top,), self.hands[seat]))
        for group in groups:
            yield from self._variants(seat, group)

    def _play_groups(self, hand: list[Card]) -> Iterator[tuple[Card, ...]]:
        multi = self.rules.multi_play and not self.rules.all_wild
        matches = self.matches_top
        for card in dict.fromkeys(hand):  # each distinct card once, in hand order
            if not matches(card):
                continue
            if multi and not card.is_wild:
                yield from self._extend((card,), hand)
            else:
                yield (card,)

    def _extend(self, start: tuple[Card, ...], hand: list[Card]) -> Iterator[tuple[Card, ...]]:
        """``start`` plus every sub-multiset of the hand's other cards of the same kind."""
        rest = list(hand)
        rest.remove(start[0])
        same = sorted((c for c in rest if c.kind is start[0].kind and not c.is_wild), key=SORT_KEY.__getitem__)
        # A list, not a set: cards hash by identity, so a set's order would differ between
        # processes and so would legal_actions (and every seeded bot's choice).
        groups, seen = [start], {start}
        for card in same:
            for group in groups[:]:
                longer = (*group, card)
                if longer not in seen:
                    seen.add(longer)
                    groups.append(longer)
        yield from sorted(groups, key=len)

    def _answer_groups(self, hand: list[Card]) -> Iterator[tuple[Card, ...]]:
        seen: set[tuple[Card, ...]] = set()
        rules = self.rules
        multi = rules.multi_play and not rules.all_wild
        for card in hand:
            if not card.penalty and not (rules.deflect and card.kind in (Kind.SKIP, Kind.REVERSE)):
                continue  # _check_answer refuses every group this card starts
            candidates = self._extend((card,), hand) if multi and not card.is_wild else [(card,)]
            if not multi and hand.count(card) > 1 and self._pair_on_four((card, card)):
                candidates = [(card,), (card, card)]
            for group in candidates:
                if group not in seen and not self._check_answer(group):
                    seen.add(group)
                    yield group

    def _variants(self, seat: int, cards: tuple[Card, ...]) -> tuple[Play, ...]:
        """The plays of one group of cards: each color and target it may name, UNO or not."""
        first, rules = cards[0], self.rules
        if first.kind in _TARGET_KINDS[rules.seven_zero]:
            targets: tuple[int | None, ...] = tuple(
                s for s in range(self.players) if s != seat and not self.out[s])
        else:
            targets = _NO_TARGET
        hand = self.hands[seat]
        left = len(hand) - len(cards)
        if left == 0 and first.kind is not Kind.WILD_TARGETED_DRAW_TWO and targets != _NO_TARGET:
            targets = (None, *targets)  # going out on a 7 or a Forced Swap: no swap, no target
        if rules.last_card_no_action and _action_out(rules, hand, cards):
            return ()
        # Plays are values: the same request always gives the same (shared) tuple of them.
        key = (seat, cards, targets, left == 1, rules.all_wild)
        plays = _VARIANTS.get(key)
        if plays is None:
            if len(_VARIANTS) >= _VARIANTS_LIMIT:
                _VARIANTS.clear()
            plays = _VARIANTS[key] = _build_variants(*key)
        return plays


_NO_TARGET: tuple[int | None, ...] = (None,)
# The actions that are the same value every time, made once per seat (there are at most 10).
_SEATS = range(10)
_DRAW = tuple(Draw(s) for s in _SEATS)
_PASS = tuple(Pass(s) for s in _SEATS)
_CHALLENGE = tuple(Challenge(s) for s in _SEATS)
_CALL_UNO = tuple(CallUno(s) for s in _SEATS)
_DEAL = tuple(Deal(s) for s in _SEATS)
_CATCH = tuple(tuple(Catch(s, t) for t in _SEATS) for s in _SEATS)
_CHOOSE_COLOR = tuple(tuple(ChooseColor(s, c) for c in COLORS) for s in _SEATS)
# The plays of one card not going out and naming no target, by All Wild deck, leaves
# one card, seat and card: what ``_variants`` gives for them, looked up quicker.
_SINGLES: tuple[tuple[tuple[dict[Card, tuple[Play, ...]], ...], ...], ...] = tuple(
    tuple(tuple({} for _ in _SEATS) for _uno in (False, True)) for _all_wild in (False, True))
# The plays of a card with others of its kind in hand under multi_play (see _plays).
_GROUPS: dict[tuple[object, ...], tuple[Play, ...]] = {}
_COLOR_DIGIT = {c: 3 ** COLORS.index(c.color) for c in ALL_CARDS if c.color is not None}
_VARIANTS: dict[tuple[object, ...], tuple[Play, ...]] = {}
_VARIANTS_LIMIT = 50_000


def _build_variants(seat: int, cards: tuple[Card, ...], targets: tuple[int | None, ...],
                    uno: bool, all_wild: bool) -> tuple[Play, ...]:
    first = cards[0]
    if all_wild:
        colors: tuple[Color | None, ...] = (None,)
    elif first.is_wild:
        colors = COLORS
    elif len(cards) > 1:
        colors = tuple(dict.fromkeys(c.color for c in cards))
    else:
        colors = (None,)
    plays: list[Play] = []
    for color in colors:
        for target in targets:
            plays.append(Play(seat, cards, color, target))
            if uno:
                plays.append(Play(seat, cards, color, target, True))
    return tuple(plays)
