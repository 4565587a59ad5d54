"""The rules of UNO as a pure, deterministic state machine (no I/O, no clock).

>>> from unolan.engine import Game, Rules
>>> game = Game(Rules.preset("official"), players=4, seed=7)
>>> action = game.legal_actions(game.turn)[0]
>>> events = game.apply(action)  # Events: a sequence of Event, each made when first read

The same source runs as pure Python or compiled by mypyc (``UNOLAN_COMPILE=1`` when
installing, see README.md); :data:`COMPILED` says which this is.
"""

from importlib.machinery import EXTENSION_SUFFIXES

from . import game as _game
from .actions import (
    Action,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    Deal,
    Draw,
    Pass,
    Play,
    parse_action,
    parse_actions,
)
from .cards import Card, Color, Kind, all_wild_deck, classic_deck, format_cards, parse_cards
from .errors import IllegalAction, NotationError, RulesError
from .events import EVENT_KINDS, FACTS, Event, EventKind, Events
from .fairness import commitment, deal_batch, round_seed
from .fold import ViewFold
from .game import Game, check_table, parse_position
from .notation import format_position
from .phases import Phase
from .rotation import (
    ROTATION_KINDS,
    RotationOutcome,
    TableEvent,
    TwoTableRotation,
    check_match,
    two_tables,
)
from .rules import OPTIONS, PRESETS, Option, Rules
from .scoring import RoundResult
from .view import View

COMPILED: bool = (_game.__file__ or "").endswith(tuple(EXTENSION_SUFFIXES))
"""Whether this engine is compiled (its modules are C extensions built by mypyc)."""

__all__ = [
    "COMPILED",
    "EVENT_KINDS",
    "FACTS",
    "OPTIONS",
    "PRESETS",
    "ROTATION_KINDS",
    "Action",
    "CallUno",
    "Card",
    "Catch",
    "Challenge",
    "ChooseColor",
    "Color",
    "Deal",
    "Draw",
    "Event",
    "EventKind",
    "Events",
    "Game",
    "IllegalAction",
    "Kind",
    "NotationError",
    "Option",
    "Pass",
    "Phase",
    "Play",
    "RotationOutcome",
    "RoundResult",
    "Rules",
    "RulesError",
    "TableEvent",
    "TwoTableRotation",
    "View",
    "ViewFold",
    "all_wild_deck",
    "check_match",
    "check_table",
    "classic_deck",
    "commitment",
    "deal_batch",
    "format_cards",
    "format_position",
    "parse_action",
    "parse_actions",
    "parse_cards",
    "parse_position",
    "round_seed",
    "two_tables",
]
