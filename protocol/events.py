"""Tables for the maps nested in messages: room event data (by kind) and snapshot views.

Each table maps a field to its checker. Validation keeps unknown extra fields (frozen and
bounded, never interpreted), and accepts event kinds it has no table for as generic data
(primitives only, bounded depth): a newer server may add fields and kinds without
breaking older clients. A known field that is missing or mistyped is an error.
"""

from __future__ import annotations

from typing import Any

from unolan.engine.events import EVENT_KINDS, EventKind
from unolan.engine.fairness import NONCE as NONCE_PATTERN
from unolan.engine.phases import Phase
from unolan.engine.rotation import PLAYERS as ROTATION_PLAYERS
from unolan.engine.rotation import TABLES

from . import fields as f
from .fields import Checker, FrozenDict

# Marks a field that may be absent (``drew.cards`` exists only in the drawer's copy).
OPTIONAL = "optional"
Table = dict[str, Checker | tuple[Checker, str]]

_seats = f.integers(0, f.MAX_SEATS - 1)
_scores = f.integers(-10_000_000, 10_000_000)
_flags = f.booleans()
_reason = f.text(0, 200)
_name = f.text(1, 32)
_opt_seat = f.seat_or_null
_opt_color = f.color_or_null
_phase = f.choice(*Phase)
_table = f.integer(0, TABLES - 1)
_table_seats = f.array(f.seat, 4, 4)
_totals = f.array(f.score, ROTATION_PLAYERS, ROTATION_PLAYERS)


_pair = f.array(lambda v: v, 2, 2)


def _draw_pair(value: Any) -> tuple[int, str]:
    seat, card = _pair(value)
    return (f.seat(seat), f.card(card))


# The checker of each field of engine event data, by name: a name means the same thing in
# every kind (``seat`` is a seat, ``cards`` a list of cards)...
ENGINE_FIELDS: dict[str, Checker] = {
    "seat": f.seat,
    "target": f.seat,
    "challenger": f.seat,
    "dealer": f.seat,
    "winner": _opt_seat,
    "tied": f.array(f.seat, 2, f.MAX_SEATS),  # the seats sharing the champion's total
    "tie_break": f.choice("lower_seat"),  # how that tie was settled (see engine.scoring)
    "seats": f.array(f.seat, 2, 2),
    "draws": f.array(_draw_pair, 0, 200),
    "round": f.integer(1, 1_000_000),
    "players": f.integer(2, f.MAX_SEATS),
    "hand_size": f.integer(1, 20),
    "card": f.card,
    "cards": f.cards(),
    "drawn": f.card,
    "hands": f.array(f.cards(), 0, f.MAX_SEATS),
    "color": _opt_color,
    "direction": f.direction,
    "phase": _phase,
    "count": f.count,
    "amount": f.count,
    "penalty": f.count,
    "pending": f.count,
    "stack": f.count,
    "draw_count": f.count,
    "points": f.score,
    "scores": _scores,
    "reason": _reason,
    "jump_in": f.boolean,
    "guilty": f.boolean,
    "called": _flags,
    "pair": f.boolean,
    "served": f.boolean,
    "challengeable": f.boolean,
    "opening": f.boolean,
    "catchable": _seats,
    "finished": _seats,  # finishing order (elimination)
}
# ...but where a kind narrows or widens it.
_OWN: dict[tuple[str, str], Checker] = {
    ("played", "cards"): f.cards(1),
    ("played", "target"): _opt_seat,
    ("color_chosen", "color"): f.color,
    ("hand", "called"): f.boolean,  # that seat's entry of ``called``
}
# Fields a server of protocol version 1 did not always send.
_V1_OPTIONAL: dict[str, tuple[str, ...]] = {
    "dealer_draw": ("dealer",),
    "round_over": ("round", "finished"),
}


def _engine_table(kind: str, spec: EventKind) -> Table:
    """A kind's wire table, from the engine's table of event kinds: private fields are
    optional (only the seat allowed to see them gets them), as are optional ones."""
    maybe = {*spec.private, *spec.optional, *_V1_OPTIONAL.get(kind, ())}
    table: Table = {}
    for name in spec.fields:
        check = _OWN.get((kind, name), ENGINE_FIELDS[name])
        table[name] = (check, OPTIONAL) if name in maybe else check
    table["table"] = (_table, OPTIONAL)  # in a two-table room (version 4): which table
    return table


# Engine events, one table per kind of the engine's EVENT_KINDS.
ENGINE_EVENTS: dict[str, Table] = {kind: _engine_table(kind, spec) for kind, spec in EVENT_KINDS.items()}

# Events the server adds to a room's stream (presence and chat). ``seat`` is null for a
# spectator.
SERVER_EVENTS: dict[str, Table] = {
    "chat": {"seat": _opt_seat, "name": _name, "text": f.text(1, 300)},
    "player_joined": {"seat": _opt_seat, "name": _name, "bot": f.boolean},
    "player_left": {"seat": _opt_seat, "name": _name},
    "connection": {"seat": f.seat, "state": f.choice("connected", "away", "autopilot")},
    "host": {"seat": f.seat},
    "timeout": {"seat": f.seat, "table": (_table, OPTIONAL)},  # the turn clock ran out: the server acts for the seat
    # The server cannot save the room's game: nothing is played until it can (``resumed``).
    "paused": {"reason": _reason},
    "resumed": {"reason": _reason},
}

# A fair deal (protocol version 3): the server's commitment before a round, and after it
# the secret, salt and nonces that made the round's seed (see unolan.engine.fairness).
_hex64 = f.text(64, 64, r"[0-9a-f]{64}")
NONCE = f.text(1, 64, NONCE_PATTERN.pattern)
FAIRNESS_EVENTS: dict[str, Table] = {
    "commitment": {"round": ENGINE_FIELDS["round"], "commitment": _hex64},
    "reveal": {"round": ENGINE_FIELDS["round"], "secret": _hex64, "salt": _hex64,
               "nonces": f.array(NONCE, 2, f.MAX_SEATS), "drawn": _seats, "seed": _hex64},
}

# One contender of a race, in the ``receipt`` that settles it: its seat, its place in the
# order of arrival (1: first), the seq it decided on, how many milliseconds after the
# first arrival it came, and what it got: ``won``, or the code of its refusal.
CONTENDER: Table = {
    "seat": f.seat,
    "order": f.integer(1, 64),
    "seq": f.seq,
    "after": f.integer(0, 3_600_000),
    "result": f.text(1, 40, r"[a-z][a-z0-9_]*"),
}


def _contender(value: Any) -> Any:
    return check_contender(value)  # defined below, with the other schemas


# A race settled: ``winner``'s action, applied at ``seq``, against every other contender.
RECEIPT_EVENTS: dict[str, Table] = {
    "receipt": {"winner": f.seat, "seq": f.seq, "contenders": f.array(_contender, 2, 64),
                "table": (_table, OPTIONAL)},
}

# A two-table room's own events (protocol version 4): a table seated for a block of
# rounds (its seats in table order), and after each round and the match the totals.
ROTATION_EVENTS: dict[str, Table] = {
    "table_seated": {"table": _table, "seats": _table_seats, "round": ENGINE_FIELDS["round"]},
    "rotation_round_over": {"round": ENGINE_FIELDS["round"], "points": _totals, "scores": _totals},
    "rotation_over": {"rounds": f.integer(1, 1_000_000), "scores": _totals, "champion": f.seat,
                      "tied": (ENGINE_FIELDS["tied"], OPTIONAL),
                      "tie_break": (ENGINE_FIELDS["tie_break"], OPTIONAL)},
}

EVENT_TABLES: dict[str, Table] = (ENGINE_EVENTS | SERVER_EVENTS | FAIRNESS_EVENTS | RECEIPT_EVENTS
                                  | ROTATION_EVENTS)
"""The table of every event kind's data on the wire, the engine's and the server's."""

# A seat's view of the table, as sent in ``snapshot``.
VIEW: Table = {
    "seat": _opt_seat,
    "hand": f.cards(),
    "counts": f.integers(0, f.MAX_CARDS),
    "top": f.nullable(f.card),
    "color": _opt_color,
    "direction": f.direction,
    "turn": _opt_seat,
    "phase": _phase,
    "pending": f.count,
    "called": _flags,
    "catchable": _seats,
    "scores": _scores,
    "draw_count": f.count,
    "discard_count": f.count,
    "round": f.integer(0, 1_000_000),
    "dealer": _opt_seat,
    "drawn": f.nullable(f.card),
    "out": _flags,
    "rules": f.scalar_map(),
    # Details of a pending penalty, for clients that judge legality themselves.
    "stack": (f.count, OPTIONAL),  # penalty cards making up ``pending``
    "pair": (f.boolean, OPTIONAL),  # the penalty came from a pair of Draw Twos
    "challengeable": (f.boolean, OPTIONAL),  # the pending Wild Draw Four may be challenged
    "served": (f.boolean, OPTIONAL),  # the top card's penalty has been drawn
    "opening": (f.boolean, OPTIONAL),  # the top card is the round's first card
}

# One table of a two-table room, in a ``snapshot``: its seats and what this member sees.
def _view(value: Any) -> Any:
    return check_view(value)  # defined below, with the other schemas


TABLE: Table = {"table": _table, "seats": _table_seats, "view": _view}

# A two-table room's match so far, in a ``snapshot``.
ROTATION: Table = {"round": ENGINE_FIELDS["round"], "rounds": f.integer(1, 1_000_000),
                   "scores": _totals,
                   # once the match is over, its rotation_over's champion (an older server: none)
                   "champion": (f.seat_or_null, OPTIONAL),
                   "tied": (ENGINE_FIELDS["tied"], OPTIONAL),  # as its rotation_over says
                   "tie_break": (ENGINE_FIELDS["tie_break"], OPTIONAL)}

# A one-table room's match once it is over, in a ``snapshot``: what its ``match_over`` said.
MATCH_END: Table = {name: ENGINE_EVENTS["match_over"][name]
                    for name in ("winner", "scores", "tied", "tie_break")}

# One seat in the ``seats`` message.
SEAT: Table = {
    "seat": f.seat,
    "name": f.nullable(_name),
    "kind": f.choice("empty", "human", "bot"),
    "ready": f.boolean,
    "state": f.choice("connected", "away", "autopilot", "empty"),
    "bot": (f.boolean, OPTIONAL),  # a program plays: a server bot, or a client that said so
}

# One room in the ``rooms`` list.
ROOM: Table = {
    "room": f.text(1, 32, r"[A-Za-z0-9_-]+"),
    "name": f.text(1, 40),
    "preset": f.text(1, 20),
    "seats": f.integer(2, f.MAX_SEATS),
    "players": f.integer(0, f.MAX_SEATS),
    "spectators": f.count,
    "started": f.boolean,
    "password": f.boolean,
    "tables": (f.integer(1, 2), OPTIONAL),  # since version 4; an older server's rooms have one
    "options": (f.scalar_map(), OPTIONAL),  # the options changed from the preset (an older server: none said)
}


def schema(what: str, table: Table) -> Checker:
    """The checker of a map described by ``table``: each field's checker, and whether it
    must be there. It returns a FrozenDict of the checked fields (lists become tuples,
    unknown keys are kept, frozen and bounded) or raises ``ValueError`` naming the field."""
    fields = tuple(
        (name, spec[0], False) if isinstance(spec, tuple) else (name, spec, True)
        for name, spec in table.items()
    )

    def check(value: Any) -> FrozenDict:
        if type(value) is not dict and type(value) is not FrozenDict:
            raise ValueError(f"{what}: expected a map, got {type(value).__name__}")
        out = {}
        name = ""
        try:
            for name, field, required in fields:
                if name in value:
                    out[name] = field(value[name])
                elif required:
                    raise ValueError("missing")
        except ValueError as exc:
            raise ValueError(f"{what}.{name}: {exc}") from None
        if len(out) != len(value):
            for key, item in value.items():
                if key not in out:
                    if type(key) is not str:
                        raise ValueError(f"{what}: map keys must be strings")
                    try:
                        out[key] = f.freeze(item, f.MAX_DEPTH - 2)
                    except ValueError as exc:
                        raise ValueError(f"{what}.{key[:40]}: {exc}") from None
        return FrozenDict(out)

    return check


EVENT_SCHEMAS: dict[str, Checker] = {kind: schema(kind, t) for kind, t in EVENT_TABLES.items()}
check_view = schema("view", VIEW)
check_contender = schema("contender", CONTENDER)
check_seat = schema("seat", SEAT)
check_room = schema("room", ROOM)
check_table = schema("table", TABLE)
check_rotation = schema("rotation", ROTATION)
check_match_end = schema("match", MATCH_END)


def check_event(kind: str, data: Any) -> FrozenDict:
    """Validate one event's data by its kind; a kind from a newer server stays generic."""
    check = EVENT_SCHEMAS.get(kind)
    if check is None:
        if type(data) is not dict and type(data) is not FrozenDict:
            raise ValueError(f"data: expected a map, got {type(data).__name__}")
        generic: FrozenDict = f.freeze(data, f.MAX_DEPTH - 1)
        return generic
    checked: FrozenDict = check(data)
    return checked
