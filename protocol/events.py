"""Tables for the maps nested in messages: room event data (by kind) and snapshot views.

Each table maps a field to its checker. Validation keeps unknown extra fields (frozen and
bounded, never interpreted), and accepts event kinds it has no table for as generic data
(primitives only, bounded depth): a newer server may add fields and kinds without
breaking older clients. A known field that is missing or mistyped is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import fields as f
from .fastpath import MISSING, build, compile_fields
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
_phase = f.text(1, 32, r"[a-z][a-z0-9_]*", known=("play", "drawn", "color", "round_over", "match_over"))


_pair = f.array(lambda v: v, 2, 2)


def _draw_pair(value: Any) -> tuple[int, str]:
    seat, card = _pair(value)
    return (f.seat(seat), f.card(card))


# Engine events (their audience is the engine's business; the wire format is the same).
ENGINE_EVENTS: dict[str, Table] = {
    "round_started": {
        "round": f.integer(1, 1_000_000),
        "dealer": f.seat,
        "players": f.integer(2, f.MAX_SEATS),
        "hand_size": f.integer(1, 20),
    },
    "dealer_draw": {"draws": f.array(_draw_pair, 0, 200), "dealer": (f.seat, OPTIONAL)},
    # Private fields (``cards`` of hand, drew, revealed) are present only in the copy sent
    # to the seat allowed to see them; everyone else gets the event without them.
    "hand": {"seat": f.seat, "cards": (f.cards(), OPTIONAL)},
    "first_card": {"card": f.card, "color": _opt_color},
    "turn": {
        "seat": f.seat,
        "direction": f.direction,
        "phase": _phase,
        "pending": f.count,
    },
    "played": {
        "seat": f.seat,
        "cards": f.cards(1),
        "color": _opt_color,
        "target": _opt_seat,
        "jump_in": f.boolean,
    },
    "drew": {
        "seat": f.seat,
        "count": f.count,
        "reason": _reason,
        "cards": (f.cards(), OPTIONAL),
    },
    "passed": {"seat": f.seat},
    "color_chosen": {"seat": f.seat, "color": f.color},
    "skipped": {"seat": f.seat},
    "reversed": {"direction": f.direction},
    "penalty": {"seat": f.seat, "amount": f.count},
    "challenged": {"seat": f.seat, "target": f.seat, "guilty": f.boolean},
    "revealed": {"seat": f.seat, "cards": (f.cards(), OPTIONAL)},
    "uno": {"seat": f.seat},
    "caught": {"seat": f.seat, "target": f.seat, "penalty": f.count},
    "false_uno": {"seat": f.seat, "penalty": f.count},
    "swapped": {"seats": f.array(f.seat, 2, 2)},
    "rotated": {"direction": f.direction},
    "reshuffled": {"count": f.count},
    "misplay": {"seat": f.seat, "penalty": f.count, "reason": _reason},
    "out": {"seat": f.seat, "reason": _reason},
    "round_over": {
        "winner": _opt_seat,
        "points": f.score,
        "scores": _scores,
        "hands": f.array(f.cards(), 0, f.MAX_SEATS),
        "round": (f.integer(1, 1_000_000), OPTIONAL),
        "finished": (_seats, OPTIONAL),  # finishing order (elimination)
    },
    "match_over": {"winner": _opt_seat, "scores": _scores},
}

# Events the server adds to a room's stream (presence and chat). ``seat`` is null for a
# spectator.
SERVER_EVENTS: dict[str, Table] = {
    "chat": {"seat": _opt_seat, "name": _name, "text": f.text(1, 300)},
    "player_joined": {"seat": _opt_seat, "name": _name, "bot": f.boolean},
    "player_left": {"seat": _opt_seat, "name": _name},
    "connection": {"seat": f.seat, "state": f.choice("connected", "away", "autopilot")},
    "host": {"seat": f.seat},
    # The server cannot save the room's game: nothing is played until it can (``resumed``).
    "paused": {"reason": _reason},
    "resumed": {"reason": _reason},
}

EVENT_KINDS: dict[str, Table] = ENGINE_EVENTS | SERVER_EVENTS

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

# One seat in the ``seats`` message.
SEAT: Table = {
    "seat": f.seat,
    "name": f.nullable(_name),
    "kind": f.choice("empty", "human", "bot"),
    "ready": f.boolean,
    "state": f.choice("connected", "away", "autopilot", "empty"),
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
}


class Schema:
    """A table compiled for checking; unknown keys are kept, frozen and bounded."""

    __slots__ = ("check", "fields", "what")

    def __init__(self, what: str, table: Table) -> None:
        self.what = what
        self.fields = tuple(
            (name, spec[0], False) if isinstance(spec, tuple) else (name, spec, True)
            for name, spec in table.items()
        )
        self.check = self._compile()

    def _compile(self) -> Callable[[Any], FrozenDict]:
        """The compiled fast path (see ``fastpath``): a valid, canonical map is copied
        into a FrozenDict as it is; anything else goes to :meth:`explain`."""
        ns: dict[str, Any] = {"_slow": self.explain, "_frozen": FrozenDict, "_set": dict.__setitem__}

        def accept(converted: list[tuple[int, str]]) -> list[str]:
            lines = ["out = _frozen(value)"]
            for i, key in converted:  # a checker's normalised value replaces the original
                guard = "" if self.fields[i][2] else f"if v{i} is not _MISSING: "
                lines.append(f"{guard}_set(out, {key!r}, v{i})")
            return [*lines, "return out"]

        fields = ((name, check, req, MISSING) for name, check, req in self.fields)
        is_map = ["if type(value) is not dict and type(value) is not _frozen:", "    return _slow(value)"]
        code = compile_fields("check", fields, "value", accept, ns, prelude=is_map)
        return build(code, "check", ns, self.what)

    def __call__(self, value: Any) -> FrozenDict:
        """Validate ``value``: a FrozenDict of the checked fields, or ``ValueError``."""
        return self.check(value)

    def explain(self, value: Any) -> FrozenDict:
        """The general path: field by field, normalising (lists to tuples, unknown keys
        frozen), with a precise error."""
        what = self.what
        if type(value) is not dict and type(value) is not FrozenDict:
            raise ValueError(f"{what}: expected a map, got {type(value).__name__}")
        out = {}
        for name, check, required in self.fields:
            if name in value:
                try:
                    out[name] = check(value[name])
                except ValueError as exc:
                    raise ValueError(f"{what}.{name}: {exc}") from None
            elif required:
                raise ValueError(f"{what}: missing {name}")
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


EVENT_SCHEMAS: dict[str, Schema] = {kind: Schema(kind, t) for kind, t in EVENT_KINDS.items()}
# The compiled checks themselves, for callers on the hot path (one call fewer).
EVENT_CHECKS = {kind: schema.check for kind, schema in EVENT_SCHEMAS.items()}
check_view = Schema("view", VIEW)
check_seat = Schema("seat", SEAT)
check_room = Schema("room", ROOM)


def check_event(kind: str, data: Any) -> FrozenDict:
    """Validate one event's data by its kind; a kind from a newer server stays generic."""
    check = EVENT_CHECKS.get(kind)
    if check is None:
        if type(data) is not dict and type(data) is not FrozenDict:
            raise ValueError(f"data: expected a map, got {type(data).__name__}")
        return f.freeze(data, f.MAX_DEPTH - 1)
    return check(data)
