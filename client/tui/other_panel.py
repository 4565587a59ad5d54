"""The other table of a two-table room drawn as its panel: two lines under the player's
own table (the data is :class:`~.other_table.OtherTable`, on ``UIState.other_table``)."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples
from unolan.client.i18n import _

from .canvas import cut
from .state import COLOR_NAMES, UIState, card_label, card_style, color_word


def panel(state: UIState, width: int) -> StyleAndTextTuples:
    """Two lines: the other table's top card and round, then its players and how many
    cards each holds (the first line ends by saying so: a bare number read as a score)."""
    other = state.other_table
    if other is None:
        return []
    over = None
    if other.waits_for is not None:  # the next round is dealt at both tables at once
        over = _("round over: waits for table {table}").format(table=other.waits_for + 1)
    elif other.turn is None:  # its round is over, and the own table's too
        over = _("round over")
    out: StyleAndTextTuples
    if over is not None:
        out = [("class:hint", _("table {table} · round {round}").format(
            table=other.table + 1, round=other.round) + " · " + over)]
    else:
        out = [("class:hint", _("table {table} · round {round} · top ").format(
            table=other.table + 1, round=other.round))]
        if other.top is not None:
            out.append((card_style(other.top), card_label(other.top)))
        if other.color:  # as the own table says it: a wild's named color is seen here alone
            out.append((f"class:card.{COLOR_NAMES[other.color]}", " " + color_word(other.color)))
    out.append(("class:hint", " · " + _("cards in hand:") + "\n"))  # the numbers below
    room = max(4, width // 4 - 5)
    for i, (name, count) in enumerate(zip(other.names, other.counts, strict=True)):
        turn = i == other.turn
        out.append(("class:turn" if turn else "", ("▶" if turn else " ") + f"{cut(name, room)} {count}  "))
    return out
