"""Rule sets as data: every option of RULES.md, its values and default, and the presets.

A :class:`Rules` is immutable and validated on construction. Its text form is a preset
name followed by the options that differ from that preset (``house stacking=same``), which
is also how rooms, positions and the CLI name a rule set.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from .errors import RulesError


@dataclass(frozen=True)
class Option:
    """One rule option: its name, the values it takes and a one-line meaning."""

    name: str
    default: Any
    meaning: str
    choices: tuple[str, ...] = ()
    low: int = 0
    high: int = 0
    invalid: tuple[int, ...] = ()  # numbers inside low..high the option does not take

    def parse(self, value: Any) -> Any:
        """Validate ``value`` (or its text form) and return it in canonical type."""
        if self.choices:
            if value in self.choices:
                return value
            raise RulesError(f"option {self.name} takes one of {', '.join(self.choices)}; got {value!r}")
        if isinstance(self.default, bool):
            if isinstance(value, bool):
                return value
            text = str(value).lower()
            if text in ("on", "true", "yes", "1"):
                return True
            if text in ("off", "false", "no", "0"):
                return False
            raise RulesError(f"option {self.name} takes on or off; got {value!r}")
        try:
            number = int(value)
        except (TypeError, ValueError):
            raise RulesError(f"option {self.name} takes a whole number; got {value!r}") from None
        if isinstance(value, bool) or not self.low <= number <= self.high or number in self.invalid:
            raise RulesError(f"option {self.name} takes {self.describe()}; got {value!r}")
        return number

    def format(self, value: Any) -> str:
        """A value as the rules documentation writes it (booleans as ``on`` / ``off``)."""
        return _fmt(value)

    def describe(self) -> str:
        if self.choices:
            return " | ".join(self.choices)
        if isinstance(self.default, bool):
            return "on | off"
        if self.invalid:
            ok = [n for n in range(self.low, self.high + 1) if n not in self.invalid]
            return f"{ok[0]} | {ok[1]}..{self.high}" if len(ok) > 2 else " | ".join(map(str, ok))
        return f"{self.low}..{self.high}"


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


OPTIONS: tuple[Option, ...] = (
    Option("deck", "classic", "which deck: the 108-card classic deck or the 112-card All Wild deck",
           choices=("classic", "all_wild")),
    Option("stacking", "progressive", "penalty cards may be stacked to pass the summed penalty on",
           choices=("off", "progressive", "same", "mixed")),
    Option("strict_after_penalty", False,
           "after a served penalty only the same color may follow: no symbol match, no Wild"),
    Option("deflect", False,
           "a Skip or Reverse of the Draw Two's color passes a pending Draw Two penalty on"),
    Option("pair_beats_wd4", False, "two same-colored Draw Twos played together answer a Wild Draw Four"),
    Option("multi_play", True, "several cards of one number or symbol may be played together"),
    Option("pair_single_effect", False, "cards played together act once, not once each"),
    Option("jump_in", True, "a card identical to the top discard may be played out of turn"),
    Option("seven_zero", False, "a 0 passes every hand along; a 7 swaps hands with a named player"),
    Option("misplay_penalty", False, "an illegal play (a failed jump-in too) costs 2 cards"),
    Option("false_uno_penalty", True, "calling UNO without holding one card costs the UNO penalty"),
    Option("last_card_no_action", False, "a player may not go out on an action or wild card "
           "(All Wild: on anything but a plain Wild)"),
    Option("draw_until_playable", False, "a player who draws keeps drawing until a card can be played"),
    Option("drawn_action_stays", False, "a drawn card may be played at once only if it has no action "
           "(a number; in the All Wild deck a plain Wild)"),
    Option("forced_play", False, "a drawn card that can be played is played at once"),
    Option("wd4_rule", "color", "when a Wild Draw Four is legal: no card of the current color, "
           "or no playable card at all", choices=("color", "any_playable")),
    Option("challenge", True, "the target of a Wild Draw Four may challenge it"),
    Option("elimination", False, "the round goes on until one player is left; finishing order ranks"),
    Option("mercy_limit", 0, "a player holding this many cards is out of the round (0: off)",
           low=0, high=108),
    Option("hand_size", 7, "cards dealt to each player", low=1, high=20),
    Option("target_score", 500, "the score that ends the match", low=1, high=100_000),
    Option("uno_penalty", 2, "cards drawn for a missed or false UNO call", low=0, high=10),
    Option("scoring", "winner_takes", "how rounds are scored",
           choices=("winner_takes", "penalty", "chips")),
    Option("rounds", 0, "rounds in a chips match (0: until the host ends it) or in a partner "
           "rotation match (0: one full rotation)", low=0, high=1000),
    Option("teams", 0, "number of teams, teammates seated alternately (0: no teams)", low=0, high=5,
           invalid=(1,)),
    Option("partner_rotation", False,
           "4 players: partners change every 4 rounds so each plays with each, 12 rounds a "
           "rotation; 8 players: two tables, 28 rounds; scores are per player"),
)
OPTION_BY_NAME = {o.name: o for o in OPTIONS}


@dataclass(frozen=True)
class _Values:
    """The values of a rule set, stored as given: :class:`Rules` checks them first."""

    preset_name: str = "house"
    deck: str = "classic"
    stacking: str = "progressive"
    strict_after_penalty: bool = False
    deflect: bool = False
    pair_beats_wd4: bool = False
    multi_play: bool = True
    pair_single_effect: bool = False
    jump_in: bool = True
    seven_zero: bool = False
    misplay_penalty: bool = False
    false_uno_penalty: bool = True
    last_card_no_action: bool = False
    draw_until_playable: bool = False
    drawn_action_stays: bool = False
    forced_play: bool = False
    wd4_rule: str = "color"
    challenge: bool = True
    elimination: bool = False
    mercy_limit: int = 0
    hand_size: int = 7
    target_score: int = 500
    uno_penalty: int = 2
    scoring: str = "winner_takes"
    rounds: int = 0
    teams: int = 0
    partner_rotation: bool = False


class Rules(_Values):
    """A validated rule set. Build from a preset with :meth:`preset` or :meth:`parse`."""

    all_wild: bool
    """The All Wild deck is played (``deck=all_wild``). Stored when built, not a property:
    the engine asks several times per action, and a property is a call each time."""

    def __init__(self, preset_name: str = "house", **options: Any) -> None:
        """The options by name; those not given take their defaults. Each value is checked
        as it was given, before it is stored: a compiled engine stores a bool given for a
        number as that number, which a check after storing could not tell any more."""
        unknown = options.keys() - OPTION_BY_NAME.keys()
        if unknown:
            raise RulesError(f"unknown option {min(unknown)!r}: expected one of {', '.join(OPTION_BY_NAME)}")
        if preset_name not in PRESETS_OPTIONS:
            raise RulesError(f"unknown preset {preset_name!r}: expected one of {', '.join(PRESETS_OPTIONS)}")
        values: dict[str, Any] = {"preset_name": preset_name}
        for option in OPTIONS:
            value = values[option.name] = options.get(option.name, _DEFAULTS[option.name])
            parsed = option.parse(value)
            if parsed != value or type(parsed) is not type(value):
                raise RulesError(f"option {option.name}: bad value {value!r}")
        mercy, hand_size = values["mercy_limit"], values["hand_size"]
        if mercy and mercy <= hand_size:
            raise RulesError(f"option mercy_limit must be 0 (off) or more than hand_size ({hand_size}); "
                             f"got {mercy}")
        rounds = values["rounds"]
        if rounds and not values["partner_rotation"]:  # only a rotation or a chips match counts them
            if values["elimination"]:
                raise RulesError("option rounds is not counted under elimination, whose match ends with its "
                                 f"first round: leave rounds at 0, got {rounds}")
            if values["scoring"] != "chips":
                raise RulesError("option rounds counts the rounds of a chips match or a partner rotation; "
                                 f"this match ends at its target score: leave rounds at 0, got {rounds}")
        if values["partner_rotation"] and values["teams"]:
            raise RulesError("partner_rotation makes its own pairs each round: leave teams at 0, "
                             f"got teams={values['teams']}")
        # Positionally, in the fields' order: compiled, ``**values`` would not reach them.
        super().__init__(*[values[name] for name in _DEFAULTS])
        object.__setattr__(self, "all_wild", self.deck == "all_wild")  # frozen: set as the fields are

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        """Pickled as its options (a compiled rule set has no instance dict to copy)."""
        return (Rules.from_dict, (self.to_dict(),))

    @classmethod
    def preset(cls, name: str, **options: Any) -> Rules:
        """A preset with any options set on top; unknown names and bad values raise."""
        name = name.replace("_", "-")
        if name not in PRESETS_OPTIONS:
            raise RulesError(f"unknown preset {name!r}: expected one of {', '.join(PRESETS_OPTIONS)}")
        return cls(preset_name=name, **(PRESETS_OPTIONS[name] | _parse_options(options)))

    @classmethod
    def parse(cls, text: str) -> Rules:
        """``house``, ``party stacking=same jump_in=off``; a bare ``name=value`` list means ``house``."""
        words = text.split()
        name = "house"
        if words and "=" not in words[0]:
            name = words.pop(0)
        options: dict[str, str] = {}
        for word in words:
            key, sep, value = word.partition("=")
            if not sep:
                raise RulesError(f"expected option=value, got {word!r}")
            options[key] = value
        return cls.preset(name, **options)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        data = dict(data)
        return cls.preset(str(data.pop("preset", "house")), **data)

    def to_dict(self) -> dict[str, Any]:
        """Every option with its value, plus the preset it was built from."""
        out: dict[str, Any] = {"preset": self.preset_name}
        for option in OPTIONS:
            out[option.name] = getattr(self, option.name)
        return out

    def changes(self) -> dict[str, Any]:
        """The options that differ from the preset."""
        base = PRESETS_OPTIONS[self.preset_name]
        return {o.name: getattr(self, o.name) for o in OPTIONS if getattr(self, o.name) != base[o.name]}

    def with_options(self, **options: Any) -> Rules:
        return replace(self, **_parse_options(options))

    def __str__(self) -> str:
        return " ".join([self.preset_name, *(f"{k}={_fmt(v)}" for k, v in self.changes().items())])


def _parse_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options by name, each validated and in canonical type; unknown names raise."""
    parsed = {}
    for key, value in options.items():
        option = OPTION_BY_NAME.get(key)
        if option is None:
            raise RulesError(f"unknown option {key!r}: expected one of {', '.join(OPTION_BY_NAME)}")
        parsed[key] = option.parse(value)
    return parsed


_OFFICIAL = {o.name: o.default for o in OPTIONS} | {
    "stacking": "off",
    "multi_play": False,
    "jump_in": False,
    "false_uno_penalty": False,
}
_HOUSE = _OFFICIAL | {
    "stacking": "progressive",
    "multi_play": True,
    "jump_in": True,
    "false_uno_penalty": True,
}
PRESETS_OPTIONS: dict[str, dict[str, Any]] = {
    "official": _OFFICIAL,
    "house": _HOUSE,
    "party": _HOUSE
    | {"seven_zero": True, "deflect": True, "pair_beats_wd4": True, "misplay_penalty": True},
    "all-wild": _OFFICIAL | {"deck": "all_wild"},
}
PRESETS: tuple[str, ...] = tuple(PRESETS_OPTIONS)
_DEFAULTS = {f.name: f.default for f in fields(_Values)}
assert _DEFAULTS.keys() == {"preset_name", *OPTION_BY_NAME}
