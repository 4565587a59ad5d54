"""The state of a match at one moment: every field, declared and built in one place.

A :class:`~.game.Game` is a :class:`State` with the machine that changes it; the position
notation (:mod:`.notation`) writes a state down and reads one back, scoring reads one,
and a seat's :class:`~.view.View` is cut from one. None of them needs the machine, so
they import this module and the machine imports them.
"""

from __future__ import annotations

from typing import Final

from . import schedule
from .cards import COLOR_CODES, COLOR_OF_CODE, WILD_DRAW_FOUR, Card, Color
from .phases import DEALER_DRAW, PHASE_CODES, PHASES, Phase
from .rules import Rules


def team_of(rules: Rules, seat: int, round: int, players: int) -> int:
    """``seat``'s team in ``round``: teammates seated alternately under ``teams``, pairs
    that rotate each round under ``partner_rotation``, else the seat alone."""
    if rules.partner_rotation:
        return schedule.team_of(seat, max(round, 1), players)
    return seat % rules.teams if rules.teams else seat

FIELDS: Final = (
    "called", "catchable", "color_code", "dealer", "direction", "discard", "draw_pile", "drawn",
    "finished", "hands", "mercy_points", "out", "pair", "pending", "phase_code", "players",
    "reshuffles", "round", "rules", "scores", "seed", "served", "stack", "turn",
    "wd4_bluff", "wd4_offender",
)
"""Every field of a state, by name (its slots; a compiled class keeps no ``__slots__``)."""


class State:
    """Everything a match is at one moment; built with every field at once.

    Built with only ``rules``, ``players`` and ``seed`` it is a match about to start (phase
    ``dealer_draw``, round 0, no cards anywhere). The queries here read the state and
    change nothing.
    """

    # Slots: the state is read and written many times per action, and slot access is the
    # quickest Python has.
    __slots__ = FIELDS

    rules: Rules
    players: int
    seed: int | str  # every shuffle is seeded from it (with the round and a purpose)
    hands: list[list[Card]]
    draw_pile: list[Card]  # the top of the pile is the *end* of the list
    discard: list[Card]  # the top card is the end of the list
    color_code: int  # the color to match, by its code (cards.COLOR_CODES): read as ``color``
    direction: int  # 1 clockwise, -1 counter-clockwise
    turn: int  # the seat asked for an action (after a round: its winner, who deals)
    phase_code: int  # the phase, by its code (phases.PHASE_CODES): read as ``phase``
    pending: int  # cards owed by the seat in turn (stacked penalties)
    stack: int  # how many penalty cards make up ``pending``
    pair: bool  # the last penalty was a pair of Draw Twos (pair_beats_wd4)
    wd4_offender: int | None  # who played the Wild Draw Four that may be challenged
    wd4_bluff: bool  # whether that Wild Draw Four broke wd4_rule
    served: bool  # the top penalty card's penalty has been drawn
    drawn: Card | None  # the card just drawn, which may be played now
    called: tuple[bool, ...]  # the seat has called UNO for its current one-card hand (replaced
    # on a change, never changed in place: every closing event shares it as it is)
    catchable: set[int]  # seats that may be caught now (one card, no call)
    out: list[bool]  # out of the round (elimination finish or mercy)
    finished: list[int]  # finishing order under elimination
    mercy_points: int  # points of the hands the mercy limit knocked out
    reshuffles: int  # times the discards were reshuffled this round
    round: int
    dealer: int
    scores: list[int]  # per team when the rules have teams

    def __init__(
        self,
        rules: Rules,
        players: int,
        seed: int | str = 0,
        *,
        hands: list[list[Card]] | None = None,
        draw_pile: list[Card] | None = None,
        discard: list[Card] | None = None,
        color: Color | None = None,
        direction: int = 1,
        turn: int = 0,
        phase: Phase = DEALER_DRAW,
        pending: int = 0,
        stack: int = 0,
        pair: bool = False,
        wd4_offender: int | None = None,
        wd4_bluff: bool = False,
        served: bool = False,
        drawn: Card | None = None,
        called: tuple[bool, ...] | None = None,
        catchable: set[int] | None = None,
        out: list[bool] | None = None,
        finished: list[int] | None = None,
        mercy_points: int = 0,
        reshuffles: int = 0,
        round: int = 0,
        dealer: int = 0,
        scores: list[int] | None = None,
    ) -> None:
        self.rules = rules
        self.players = players
        self.seed = seed
        self.hands = [[] for _ in range(players)] if hands is None else hands
        self.draw_pile = [] if draw_pile is None else draw_pile
        self.discard = [] if discard is None else discard
        self.color_code = COLOR_CODES[color]
        self.direction = direction
        self.turn = turn
        self.phase_code = PHASE_CODES[phase]
        self.pending = pending
        self.stack = stack
        self.pair = pair
        self.wd4_offender = wd4_offender
        self.wd4_bluff = wd4_bluff
        self.served = served
        self.drawn = drawn
        self.called = (False,) * players if called is None else called
        self.catchable = set() if catchable is None else catchable
        self.out = [False] * players if out is None else out
        self.finished = [] if finished is None else finished
        self.mercy_points = mercy_points
        self.reshuffles = reshuffles
        self.round = round
        self.dealer = dealer
        self.scores = [0] * (rules.teams or players) if scores is None else scores

    def _take(self, other: State) -> None:
        """Become ``other``: take each of its fields (every name of FIELDS, a store each;
        by name, compiled, each field would cost a lookup of its name twice)."""
        self.called = other.called
        self.catchable = other.catchable
        self.color_code = other.color_code
        self.dealer = other.dealer
        self.direction = other.direction
        self.discard = other.discard
        self.draw_pile = other.draw_pile
        self.drawn = other.drawn
        self.finished = other.finished
        self.hands = other.hands
        self.mercy_points = other.mercy_points
        self.out = other.out
        self.pair = other.pair
        self.pending = other.pending
        self.phase_code = other.phase_code
        self.players = other.players
        self.reshuffles = other.reshuffles
        self.round = other.round
        self.rules = other.rules
        self.scores = other.scores
        self.seed = other.seed
        self.served = other.served
        self.stack = other.stack
        self.turn = other.turn
        self.wd4_bluff = other.wd4_bluff
        self.wd4_offender = other.wd4_offender

    @property
    def color(self) -> Color | None:
        """The color to match (None: any, in the All Wild deck)."""
        return COLOR_OF_CODE[self.color_code]

    @color.setter
    def color(self, color: Color | None) -> None:
        self.color_code = COLOR_CODES[color]

    @property
    def phase(self) -> Phase:
        """What the seat in turn is asked for next."""
        return PHASES[self.phase_code]

    @phase.setter
    def phase(self, phase: Phase) -> None:
        self.phase_code = PHASE_CODES[phase]

    @property
    def top(self) -> Card:
        return self.discard[-1]

    @property
    def opening(self) -> bool:
        """The top card is the round's first card: nobody has played on it yet."""
        return len(self.discard) == 1 and self.reshuffles == 0

    @property
    def active(self) -> int:
        """How many seats are still in the round (counted by a loop: ``out.count(True)``
        compares each False with True by a call)."""
        active = self.players
        for out in self.out:
            if out:
                active -= 1
        return active

    def team_of(self, seat: int) -> int:
        """A seat's team this round: seated alternately, rotating partners, or itself alone."""
        return team_of(self.rules, seat, self.round, self.players)

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` places on in the direction of play, passing seats that are out."""
        n, d, out = self.players, self.direction, self.out
        while steps:
            seat = (seat + d) % n
            while out[seat]:
                seat = (seat + d) % n
            steps -= 1
        return seat

    def _challengeable(self) -> bool:
        """Whether the seat in turn may challenge the Wild Draw Four on top."""
        return (
            self.rules.challenge
            and not self.rules.all_wild
            and self.pending > 0
            and self.stack == 1
            and self.discard[-1].kind is WILD_DRAW_FOUR
            and self.wd4_offender is not None
        )

    def _set_called(self, seat: int, called: bool) -> None:
        """Record whether ``seat`` has called UNO: a new tuple, and only on a change."""
        old = self.called
        if old[seat] != called:
            self.called = (*old[:seat], called, *old[seat + 1:])

    def _holds_one(self, seat: int) -> bool:
        return len(self.hands[seat]) == 1
