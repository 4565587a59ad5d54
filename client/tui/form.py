"""The lobby's create-room form: the room's name, preset, seats and timer, and every rule
option, each with the values ←/→ step through and the preset's default beside it.

The options and their values come from the engine's table (``unolan.engine.OPTIONS``), so
the form offers exactly what a rule set takes; a number can also be typed. The form
keeps only the options that differ from the preset, which is what a room is created
with (``create_room``'s ``options``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from unolan.client.i18n import N_, _, rule_word
from unolan.client.reasons import said
from unolan.engine import OPTIONS, PRESETS, Option, Rules, RulesError, check_match

ROOM_FIELDS = ("name", "preset", "seats", "timer", "password")  # the room's own; the rest are options
PASSWORD_LENGTH = 64  # create_room's and join's bound
OPTION_BY_NAME = {o.name: o for o in OPTIONS}
TIMERS = (0, 15, 30, 45, 60, 90, 120)
# Numbers with a wide range step through these (any other can be typed with e).
LADDERS: dict[str, tuple[int, ...]] = {
    "mercy_limit": (0, 15, 20, 25, 30, 40, 50),
    "target_score": (100, 150, 200, 250, 300, 500, 750, 1000, 2000),
    "rounds": (0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 50, 100),
}
FIELDS: tuple[str, ...] = ROOM_FIELDS + tuple(o.name for o in OPTIONS)
# The room's own numbers, read as the options' are (the bounds of create_room).
ROOM_NUMBERS = {
    "seats": Option("seats", 4, N_("players at the table, bots included"), low=2, high=10),
    "timer": Option("timer", 0, N_("seconds a player has for a turn before the server plays "
                                   "for them (0: no timer)"), low=0, high=3600),
}


@dataclass(slots=True)
class CreateForm:
    """What the form holds: the room's settings and the options changed from the preset."""

    name: str = "table"
    preset: str = "house"
    seats: int = 4
    timer: int = 0
    password: str = ""  # none: anyone may join
    options: dict[str, Any] = field(default_factory=dict)
    field_index: int = 0

    @property
    def field(self) -> str:
        return FIELDS[self.field_index]

    def default(self, name: str) -> Any:
        """The preset's value of option ``name``."""
        return getattr(_preset(self.preset), name)

    def value(self, name: str) -> Any:
        if name in ROOM_FIELDS:
            return getattr(self, name)
        return self.options.get(name, self.default(name))

    def set(self, name: str, value: Any) -> None:
        """Set a field; an option set to the preset's value is no longer a change."""
        if name in ROOM_FIELDS:
            setattr(self, name, value)
            if name == "preset":
                self.options = {k: v for k, v in self.options.items() if v != self.default(k)}
        elif value == self.default(name):
            self.options.pop(name, None)
        else:
            self.options[name] = value

    def step(self, delta: int) -> None:
        """←/→: the field's previous or next value."""
        name = self.field
        values = choices(name)
        if not values:
            return
        current = self.value(name)
        if current in values:
            index = (values.index(current) + delta) % len(values)
        else:  # a typed number between the steps
            ahead = [i for i, v in enumerate(values) if (v > current if delta > 0 else v < current)]
            index = (ahead[0] if delta > 0 else ahead[-1]) if ahead else 0
        self.set(name, values[index])

    def typed(self, text: str) -> str | None:
        """A number typed for the field under the cursor; the reason it is refused, or None."""
        name = self.field
        option = OPTION_BY_NAME.get(name) or ROOM_NUMBERS.get(name)
        if option is None or not numeric(option):
            return _("{field} is chosen with ← →, not typed").format(field=label(name))
        try:
            self.set(name, option.parse(text.strip()))
        except RulesError:  # said with the form's name for it (the engine's is its notation)
            return _("{field} takes {values}; not {typed}").format(
                field=label(name), values=option.describe(), typed=text.strip()[:20])
        return None

    def problem(self) -> str | None:
        """Why the server would refuse this room (the rules, or the rules with its seats)."""
        try:
            check_match(Rules.preset(self.preset, **self.options), self.seats)
        except ValueError as exc:
            return said(str(exc))
        return None

    def request(self) -> dict[str, Any]:
        """The ``create_room`` fields."""
        return {"name": self.name, "preset": self.preset, "seats": self.seats,
                "timer": self.timer, "options": dict(self.options),
                "password": self.password or None}


@cache
def _preset(name: str) -> Rules:
    return Rules.preset(name)


def numeric(option: Option) -> bool:
    return not option.choices and not isinstance(option.default, bool)


def typable(name: str) -> bool:
    """Whether field ``name`` takes a typed value (the name, or a number)."""
    option = OPTION_BY_NAME.get(name) or ROOM_NUMBERS.get(name)
    return name in ("name", "password") or (option is not None and numeric(option))


def choices(name: str) -> tuple[Any, ...]:
    """The values ←/→ step through for field ``name`` (none for the name)."""
    if name == "preset":
        return PRESETS
    if name == "seats":
        return tuple(range(2, 11))
    if name == "timer":
        return TIMERS
    option = OPTION_BY_NAME.get(name)
    if option is None:
        return ()
    if option.choices:
        return option.choices
    if isinstance(option.default, bool):
        return (False, True)
    if name in LADDERS:
        return LADDERS[name]
    return tuple(n for n in range(option.low, option.high + 1) if n not in option.invalid)


def label(name: str) -> str:
    """A field's name in the player's language (the engine's option name, ``stacking``,
    is its English; the catalogs hold each, see ``python -m unolan.client.catalogs``)."""
    return _(name.replace("_", " "))


def shown(name: str, value: Any) -> str:
    """A value as the form shows it (on/off as the rules documentation writes them; a
    choice's word in the player's language)."""
    if isinstance(value, bool):
        return _("on") if value else _("off")
    if name == "timer":
        return _("{seconds}s per turn").format(seconds=value) if value else _("none")
    if name == "name":
        return str(value)
    if name == "password":  # never shown: someone may be watching the screen
        return "•" * len(value) if value else _("none")
    if isinstance(value, str):
        return rule_word(value)
    return str(value)


ROOM_MEANINGS = {
    "name": N_("the room's name in the lobby (e edits it)"),
    "preset": N_("the rule set the options below start from"),
    "password": N_("players must give it to join or watch (e sets it; empty: none)"),
}


def meaning(name: str) -> str:
    """What field ``name`` means, in the player's language (an option's meaning is the
    engine's English, which the catalogs translate)."""
    option = OPTION_BY_NAME.get(name) or ROOM_NUMBERS.get(name)
    return _(option.meaning if option is not None else ROOM_MEANINGS[name])
