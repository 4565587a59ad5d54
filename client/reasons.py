"""The engine's reasons for refusing an action, in the player's language.

The engine stays free of translation: its reasons are English (``G7 does not match R3 on
red``), sent as they are in an error's ``message`` and read by the UI from
``View.refusal``. Each pattern here reads one of them back into its parts (cards, seats,
a color) and a catalog template says it again in the current language; a reason no
pattern reads (a newer engine's) is shown as its error code's words instead
(:func:`unolan.client.i18n.error_text`). tests/test_reasons.py makes the engine give each
reason and checks the pattern reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .i18n import ENGLISH, N_, _, error_text, language

# The parts of a reason: cards in the notation, seats as "seat N", a color by its name.
_PARTS = {
    "card": r"(?P<card>[RYGB](?:\d|S|R|D2)|W|W4|WR|WS|WS2|WD2|WT2|WX)",
    "seat": r"seat (?P<seat>\d+)",
    "color": r"(?P<color>red|yellow|green|blue|no color)",
    "letter": r"(?P<letter>[RYGB])",
    "phase": r"(?P<phase>\w+)",
    # a rule set that cannot be played, a value an option does not take
    "players": r"(?P<players>\d+)", "teams": r"(?P<teams>\d+)", "size": r"(?P<size>\d+)",
    "deck": r"(?P<deck>\d+)", "option": r"(?P<option>\w+)", "values": r"(?P<values>.+?)",
    "got": r"(?P<got>.+)",
}
_PARTS["top"] = _PARTS["card"].replace("?P<card>", "?P<top>")


def _pattern(text: str) -> re.Pattern[str]:
    """The engine's reason ``text`` (its words, with ``{card}``, ``{seat}``... for its
    parts) as a pattern that reads the parts back."""
    return re.compile("".join(_PARTS[piece[1:-1]] if piece.startswith("{") else re.escape(piece)
                              for piece in re.split(r"(\{\w+\})", text) if piece))


# The reasons whose English the catalogs translate as they are written...
_SAID_AS_IS = (
    N_("{card} does not match {top} on {color}"),
    N_("it is {seat}'s turn"),
    N_("it is {seat}'s turn (these rules have no jump-ins)"),
    N_("after drawing you may play only {card}, the card drawn"),
    N_("a penalty is pending: draw it"),
    N_("a penalty is pending: draw it or challenge"),
    N_("a penalty is pending: only a penalty card may answer it, not {card}"),
    N_("only a Wild Draw Four answers a Wild Draw Four"),
    N_("a Wild Draw Four may not go on a Draw Two with stacking=same"),
    N_("a Draw Two on a Wild Draw Four must be {color}"),
    N_("a pair of Draw Twos on a Wild Draw Four must be {color}"),
    N_("a single Draw Two may not go on a pair of Draw Twos"),
    N_("a jump-in needs a card identical to {top}"),
    N_("no jump-in while a penalty is pending"),
    N_("no jump-in on a wild card"),
    N_("no jump-in on the first card's penalty"),
    N_("no jump-in now"),
    N_("wild cards cannot be played together"),
    N_("cards played together must share a number or symbol"),
    N_("playing several cards at once is off"),
    N_("you may not go out on an action or wild card"),
    N_("you do not hold {card}"),
    N_("you do not hold {card} twice"),
    N_("{card} needs a color"),
    N_("{card} needs a target seat"),
    N_("{seat} cannot be the target"),
    N_("{seat} cannot be caught now"),
    N_("catch another seat"),
    N_("name the color first"),
    N_("UNO may ride only on a play that leaves one card"),
    N_("you do not hold one card"),
    N_("UNO is already called"),
    N_("there is no Wild Draw Four to challenge"),
    N_("forced play: the drawn card must be played"),
    N_("you are out of this round"),
    N_("the round is over"),
    N_("the match is over"),
    N_("the round has not started: it is dealt first"),
    N_("there is no {seat}"),
    N_("only {seat} may deal, between rounds"),
    N_("a play needs at least one card"),
    N_("{card} takes no target"),
    N_("the All Wild deck has no colors to name"),
    N_("{letter} is not a color of the cards played"),
    # Not refusals of an action: why a rule set is refused (the create-room form says so).
    N_("option {option} takes one of {values}; got {got}"),
    N_("option {option} takes on or off; got {got}"),
    N_("option {option} takes a whole number; got {got}"),
    N_("option {option} takes {values}; got {got}"),
    N_("{players} players cannot sit as {teams} teams of two or more, teammates alternately"),
    N_("partner rotation at one table needs 4 players, not {players}"),
    N_("partner rotation is played by 4 players at one table or 8 at two, not {players}"),
    N_("{players} hands of {size} leave too few of the {deck} cards to turn up a first card"),
    N_("option mercy_limit must be 0 (off) or more than hand_size ({size}); got {got}"),
    N_("partner_rotation makes its own pairs each round: leave teams at 0, got teams={got}"),
    N_("option rounds counts the rounds of a chips match or a partner rotation; this match ends "
       "at its target score: leave rounds at 0, got {got}"),
    N_("option rounds is not counted under elimination, whose match ends with its first round: "
       "leave rounds at 0, got {got}"),
)
# ... and those said in other words.
_SAID_OTHERWISE = (
    ("not possible in phase {phase}", N_("not possible at this point of the turn")),
    ("partner rotation at one table needs 4 players, not {players}: 8 players play two tables "
     "of 4, one game per table (see engine.schedule)",
     N_("partner rotation at one table needs 4 players, not {players}")),
)
REASONS: tuple[tuple[re.Pattern[str], str], ...] = (
    *((_pattern(text), text) for text in _SAID_AS_IS),
    *((_pattern(text), words) for text, words in _SAID_OTHERWISE),
)
# The engine's colors as words (the catalogs translate them).
COLORS = {"red": N_("red"), "yellow": N_("yellow"), "green": N_("green"), "blue": N_("blue"),
          "no color": N_("no color")}


def said(text: str) -> str:
    """An engine's message (a refusal's reason, why a rule set is refused) in the player's
    language, or as it is when no pattern reads it."""
    return translate(text) or text


def translate(reason: str, name_of: Callable[[int], str] | None = None) -> str | None:
    """``reason`` in the current language, seats by ``name_of`` (else "seat N"); None when
    no pattern reads it."""
    for pattern, template in REASONS:
        match = pattern.fullmatch(reason)
        if match is None:
            continue
        values = match.groupdict()
        if values.get("color"):
            values["color"] = _(COLORS[values["color"]])
        if values.get("seat"):
            seat = int(values["seat"])
            values["seat"] = name_of(seat) if name_of else _("seat {seat}").format(seat=seat)
        return _(template).format(**values)
    return None


def refusal_text(code: str, message: str, name_of: Callable[[int], str] | None = None) -> str:
    """A refusal (an error's code and English message, or the engine's code and reason) in
    the player's language: in English the message itself; else the message read back by a
    pattern, or the code's words."""
    if language() != ENGLISH and message:
        said = translate(message, name_of)
        if said is not None:
            return said
    return error_text(code, message)
