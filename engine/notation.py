"""The position notation: a whole table as text, one ``key: value`` per line.

Lines may also be separated by ``;`` so a position fits on a command line. Keys after
``hand 0`` … name the hands. Only ``hand N`` lines and ``discard`` are required; every
other key has a default, and the printer leaves out keys at their default, so printing
and parsing round-trip. See docs/notation.md for the full description.

Every moment of a round can be written, the ones before its play too: ``phase:
dealer_draw`` (a match about to start: the players draw for dealer from ``draw``) and
``phase: dealt`` (the hands are dealt; the dealer, in turn, turns up the first card from
``draw``). Both have an empty discard pile.

The notation writes and reads a :class:`~.state.State`: :func:`read_position` gives the
fields a state is built from, and :func:`~.game.parse_position` builds the game at them.
"""

from __future__ import annotations

from typing import Any

from .actions import read_seed
from .cards import Card, Color, format_cards, parse_cards
from .errors import NotationError
from .phases import COLOR, DEALER_DRAW, DEALT, DRAWN, PLAY, Phase
from .rules import Rules
from .state import State

_BOOL = {"yes": True, "no": False}


def _seats(text: str) -> list[int]:
    text = text.strip()
    if text in ("", "-"):
        return []
    try:
        return [int(t) for t in text.replace(",", " ").split()]
    except ValueError:
        raise NotationError(f"expected seat numbers, got {text!r}") from None


def _fmt_seats(seats: list[int]) -> str:
    return " ".join(map(str, seats)) if seats else "-"


def _int(key: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise NotationError(f"{key}: expected a whole number, got {text!r}") from None


def read_position(text: str) -> dict[str, Any]:
    """The fields of the :class:`~.state.State` a position writes down, by name; raise
    NotationError naming the faulty line."""
    fields: dict[str, str] = {}
    lines = [part for raw in text.splitlines() for part in raw.split("#", 1)[0].split(";")]
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise NotationError(f"expected 'key: value', got {line!r}")
        key = " ".join(key.lower().split())
        if key in fields:
            raise NotationError(f"{key!r} is given twice")
        fields[key] = value.strip()
    try:
        return _read(fields)
    except NotationError:
        raise
    except ValueError as exc:  # rules errors and the like
        raise NotationError(str(exc)) from None


def _read(fields: dict[str, str]) -> dict[str, Any]:
    take = fields.pop
    hand_keys = sorted((k for k in fields if k.startswith("hand ")), key=lambda k: _int(k, k[5:]))
    players = len(hand_keys)
    if not 2 <= players <= 10:
        raise NotationError(f"a position needs 2 to 10 'hand N' lines, got {players}")
    if [k[5:] for k in hand_keys] != [str(i) for i in range(players)]:
        raise NotationError("hands must be numbered hand 0, hand 1, ... with no gaps")
    rules = Rules.parse(take("rules", "house"))
    seed = read_seed(take("seed", "0"))
    hands = [parse_cards(take(k)) for k in hand_keys]
    try:
        phase = Phase(take("phase", PLAY))
    except ValueError:
        raise NotationError(f"phase: expected one of {', '.join(Phase)}") from None
    before_play = phase in (DEALER_DRAW, DEALT)
    if "discard" not in fields and not before_play:
        raise NotationError("a position needs a 'discard' line (bottom first, top last)")
    discard = parse_cards(take("discard", "-"))
    if not discard and not before_play:
        raise NotationError("the discard pile needs at least its top card")
    if discard and before_play:
        raise NotationError(f"in phase {phase} no card is turned up yet: discard: -")
    draw_pile = parse_cards(take("draw", "-"))[::-1]
    if phase is DEALT and not draw_pile:
        raise NotationError("in phase dealt the first card is turned up from the draw pile: it needs cards")
    top = discard[-1] if discard else None
    color_text = take("color", top.color.value if top is not None and top.color else "-")
    color = None if color_text == "-" else Color.parse(color_text)
    direction = {"cw": 1, "ccw": -1}.get(take("direction", "cw"), 0)
    if not direction:
        raise NotationError("direction: expected cw or ccw")
    dealer = _int("dealer", take("dealer", str(players - 1)))
    turn = _int("turn", take("turn", _default_turn(phase, dealer)))
    if color is None and top is not None and top.is_wild and not rules.all_wild and phase is not COLOR:
        raise NotationError("a wild top card needs a 'color' line (unless in phase color)")
    pending = _int("pending", take("pending", "0"))
    stack = _int("stack", take("stack", "1" if pending else "0"))
    pair = _flag(take("pair", "no"), "pair")
    offender = take("challengeable", "-")
    wd4_offender = None if offender == "-" else _int("challengeable", offender.split()[0])
    wd4_bluff = offender.endswith("bluff")
    served = _flag(take("served", "no"), "served")
    drawn_text = take("drawn", "-")
    drawn = None if drawn_text == "-" else Card.parse(drawn_text)
    called = _seats(take("uno", "-"))
    catchable = _seats(take("catchable", "-"))
    outs = _seats(take("out", "-"))
    finished = _seats(take("finished", "-"))
    mercy_points = _int("mercy_points", take("mercy_points", "0"))
    reshuffles = _int("reshuffles", take("reshuffles", "0"))
    round_number = _int("round", take("round", _default_round(phase)))
    units = rules.teams or players
    scores = [_int("scores", s) for s in take("scores", " ".join(["0"] * units)).split()]
    if len(scores) != units:
        raise NotationError(f"scores: expected {units} numbers")
    if fields:
        raise NotationError(f"unknown key(s): {', '.join(fields)}")
    for name, seat in (("turn", turn), ("dealer", dealer)):
        if not 0 <= seat < players:
            raise NotationError(f"{name}: no seat {seat}")
    if any(not 0 <= s < players for s in [*called, *catchable, *outs, *finished]):
        raise NotationError("a seat list names a seat that does not exist")
    if phase is DRAWN and drawn is None:
        raise NotationError("phase drawn needs a 'drawn' card")
    return {
        "rules": rules, "players": players, "seed": seed, "hands": hands, "draw_pile": draw_pile,
        "discard": discard, "color": color, "direction": direction, "turn": turn, "phase": phase,
        "pending": pending, "stack": stack, "pair": pair, "wd4_offender": wd4_offender,
        "wd4_bluff": wd4_bluff, "served": served, "drawn": drawn,
        "called": tuple(s in called for s in range(players)), "catchable": set(catchable),
        "out": [s in outs for s in range(players)], "finished": finished,
        "mercy_points": mercy_points, "reshuffles": reshuffles, "round": round_number,
        "dealer": dealer, "scores": scores,
    }


def _default_turn(phase: Phase, dealer: int) -> str:
    """Seat 0, but in phase dealt the dealer (who turns up the first card)."""
    return str(dealer) if phase is DEALT else "0"


def _default_round(phase: Phase) -> str:
    """Round 1, but before the first deal of a match (phase dealer_draw) round 0."""
    return "0" if phase is DEALER_DRAW else "1"


def _flag(text: str, key: str) -> bool:
    if text not in _BOOL:
        raise NotationError(f"{key}: expected yes or no, got {text!r}")
    return _BOOL[text]


def format_position(game: State) -> str:
    """The position as text; ``parse_position`` gives back an equal game."""
    lines = [f"rules: {game.rules}"]
    if game.seed != 0:
        lines.append(f"seed: {game.seed}")
    if str(game.round) != _default_round(game.phase):
        lines.append(f"round: {game.round}")
    if game.dealer != game.players - 1:
        lines.append(f"dealer: {game.dealer}")
    if any(game.scores):
        lines.append("scores: " + " ".join(map(str, game.scores)))
    lines += [f"hand {i}: {format_cards(h)}" for i, h in enumerate(game.hands)]
    lines.append(f"draw: {format_cards(game.draw_pile[::-1])}")
    lines.append(f"discard: {format_cards(game.discard)}")
    top_color = game.discard[-1].color if game.discard else None
    if game.color is not top_color:
        lines.append(f"color: {game.color.value if game.color else '-'}")
    lines.append(f"turn: {game.turn}")
    if game.direction < 0:
        lines.append("direction: ccw")
    if game.phase is not PLAY:
        lines.append(f"phase: {game.phase}")
    if game.pending:
        lines.append(f"pending: {game.pending}")
        if game.stack != 1:
            lines.append(f"stack: {game.stack}")
    elif game.stack:
        lines.append(f"stack: {game.stack}")
    if game.pair:
        lines.append("pair: yes")
    if game.wd4_offender is not None:
        lines.append(f"challengeable: {game.wd4_offender} {'bluff' if game.wd4_bluff else 'fair'}")
    if game.served:
        lines.append("served: yes")
    if game.drawn is not None:
        lines.append(f"drawn: {game.drawn}")
    optional = (
        ("uno", [s for s in range(game.players) if game.called[s]]),
        ("catchable", sorted(game.catchable)),
        ("out", [s for s in range(game.players) if game.out[s]]),
        ("finished", game.finished),
    )
    lines += [f"{key}: {_fmt_seats(seats)}" for key, seats in optional if seats]
    if game.mercy_points:
        lines.append(f"mercy_points: {game.mercy_points}")
    if game.reshuffles:
        lines.append(f"reshuffles: {game.reshuffles}")
    return "\n".join(lines)
