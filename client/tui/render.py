"""Render callables: each reads :class:`UIState` and returns prompt_toolkit formatted text.

They are pure functions of the state (plus the clock the state carries), so tests call
them directly and compare plain text; every card is shown with a text label (``[R5]``)
as well as its color, so the table reads the same on a monochrome terminal. Text is
measured in terminal cells with prompt_toolkit's own width function (a CJK character
takes two, a combining accent none), so names never shift the columns; those that get
the width they are drawn at (``header``, ``log``, ``chat``) fit and wrap by words, never
inside a card label.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth
from unolan.client.i18n import N_, _, display_name, language, next_language, ngettext, rule_word
from unolan.engine import Phase, Play, Rules, RulesError

from . import cards, table
from . import form as create
from .canvas import Canvas, cut, fit, width_of, wrap, wrapped
from .controller import multi_leads
from .state import (
    COLOR_NAMES,
    UIState,
    card_label,
    card_name,
    card_style,
    color_word,
    penalty_words,
    team_members,
    tie_words,
    winners,
)
from .table import PRESENCE_WORDS, team_word

Fragments = StyleAndTextTuples


# -- measuring text in terminal cells ----------------------------------------------------


KEYS_HELP: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("table", N_("At the table"), [
        ("← → h l", N_("move along your hand")),
        ("1-9 0", N_("pick card 1-9 (0: the tenth); the same digit again: the card ten on")),
        ("Enter", N_("play it (or the marked cards)")),
        ("Space", N_("mark a card: play several")),
        ("d", N_("draw (or take the penalty)")),
        ("k", N_("keep the card just drawn")),
        ("c", N_("challenge a Wild Draw Four")),
        ("u", N_("call UNO: on 1 card at once, on 2 cards with your next play")),
        ("x", N_("catch a missed UNO call")),
        ("j", N_("jump in: the identical card")),
        ("r y g b", N_("color picker (or 1-4): the colors it offers")),
        ("0-9 ↑↓", N_("seat picker, Enter chooses")),
        ("s", N_("scoreboard")),
        ("t", N_("chat (Enter sends)")),
        ("b", N_("back from autopilot")),
        ("Esc", N_("close / unmark")),
        ("Enter Esc", N_("match over: room/lobby")),
    ]),
    ("start", N_("Finding a game"), [
        ("↑↓ Enter", N_("choose a LAN game, join it")),
        ("a", N_("type an address instead")),
        ("r", N_("search the LAN again")),
    ]),
    ("lobby", N_("In the lobby"), [
        ("↑ ↓", N_("choose a room")),
        ("Enter", N_("join it as a player")),
        ("s", N_("spectate it")),
        ("r", N_("refresh the rooms")),
        ("c", N_("create a room: ↑ ↓ field, ← → value, e edits the name, the password or a number,"
                 " Enter creates it")),
        ("b -", N_("in a room: add/remove bot")),
        ("Space", N_("in a room: ready or not")),
        ("Enter", N_("in a room: start (host)")),
        ("Esc", N_("in a room: leave")),
    ]),
    ("any", N_("Anywhere"), [
        ("?", N_("this help (Esc closes)")),
        ("Ctrl-C", N_("quit (q in the lobby)")),
    ]),
]


STATUS_WORDS = {"connected": N_("connected"), "connecting": N_("connecting"),
                "reconnecting": N_("reconnecting"), "offline": N_("offline")}
_STATUS_STYLE = {"connected": "class:status.ok", "connecting": "class:status.wait",
                 "reconnecting": "class:status.bad", "offline": "class:status.bad"}


def deal_mark(state: UIState) -> list[tuple[str, str]]:
    """A mark for the deals checked: ✓ while the last one held, a loud alarm for good once
    one did not."""
    failed = [r for r, status in state.deals.items() if status == "failed"]
    if failed:
        return [("class:header.alarm", " ⚠ " + _("ROUND {round} WAS NOT DEALT FAIRLY").format(
            round=failed[-1]) + " ")]
    if state.deals and state.deals[max(state.deals)] == "verified":
        return [("class:header.fair", "✓ " + _("fair deal") + " ")]
    return []


def header(state: UIState, width: int = 80) -> Fragments:
    """The top line; the connection's status is never lost: where the line is too long
    the address, the fairness warning, the rules and round, and the room's name give way
    to it, in that order (cut, or left out): while reconnecting, which room it is for."""
    parts: list[tuple[int, str, str]] = [(9, "class:header.title", " unolan ")]  # (give way: 0 first)
    room = state.room
    if room:
        parts.append((3, "class:header", f" {cut(str(room.get('name', state.room_id)), 24)} "))
    if state.view is not None:
        preset = state.view.rules.get("preset", "")
        parts.append((2, "class:header", "· " + _("{preset} · round {round}").format(
            preset=rule_word(preset), round=state.view.round) + " "))
        parts += [(1, style, text) for style, text in deal_mark(state)]
    if state.address and sum(get_cwidth(t) for *_, t in parts) + get_cwidth(state.address) + 40 <= width:
        parts.append((0, "class:header", f"· {state.address} "))
    detail = state.status_detail if state.status != "connected" else ""
    status = "● " + _(STATUS_WORDS.get(state.status, state.status)) + (f": {detail}" if detail else "")
    keys = "   " + _("? keys")
    keys = keys if width - get_cwidth(parts[0][2] + "· " + keys) >= 12 else ""
    need = get_cwidth("· " + status + keys)
    for rank in range(4):
        for i, (r, style, text) in enumerate(parts):
            excess = sum(get_cwidth(t) for *_, t in parts) + need - width
            if r == rank and excess > 0:
                keep = get_cwidth(text) - excess
                parts[i] = (r, style, cut(text.rstrip(), keep - 1) + " " if keep >= 6 else "")
    fragments: Fragments = [(style, text) for _rank, style, text in parts if text]
    fragments.append(("class:header", "· "))
    left = width - width_of(fragments) - get_cwidth(keys)
    fragments.append((_STATUS_STYLE.get(state.status, ""), cut(status, max(left, 1))))
    if keys:
        fragments.append(("class:header", keys))
    return fragments


def rules_text(rules: object) -> str:
    """A rule set as its preset (in the reader's language, as the header names it) and
    the options that differ from it (``house stacking=same``)."""
    if not isinstance(rules, dict):
        return ""
    try:
        preset, *options = str(Rules.from_dict(dict(rules))).split(" ")
    except (RulesError, TypeError, ValueError):  # options from a newer server
        preset, options = str(rules.get("preset", "")), []
    return " ".join([rule_word(preset), *options])


def listed_rules(room: Mapping[str, Any]) -> str:
    """A listed room's rules (``rooms``): its preset and the options it changed."""
    return rules_text({"preset": room.get("preset", ""), **room.get("options", {})})


def match_rules(state: UIState) -> object:
    """The rules the match is played by: the room's where they rotate partners over two
    tables (each table's own game plays by rules the rotation sets itself: two teams, no
    target), else the table's."""
    v = state.view
    room = (state.room or {}).get("rules")
    if v is None:
        return room
    if isinstance(room, dict) and room.get("partner_rotation") and not v.rules.get("partner_rotation"):
        return room  # the rotation is the room's, not the table's: two tables
    return v.rules


# -- the table ------------------------------------------------------------------------


def players(state: UIState, width: int = 54, height: int = 16) -> Fragments:
    """The table pane: the other seats around the pile, this player at the bottom."""
    return table.picture(state, width, height, pile_info(state), pile_info(state, brief=True))


def standings(state: UIState, width: int = 54) -> Fragments:
    """The match so far, for a tall table pane: each seat's (or team's) total, and who
    won the last round."""
    v = state.view
    assert v is not None
    out: Fragments = [("class:pane.title", " " + _("Scores") + "\n")]
    for unit, total in enumerate(v.scores):
        who = (_(" and ").join(state.name_of(s) for s in team_members(v, unit))
               if len(v.scores) < len(v.counts) else state.name_of(unit))
        label = f"{team_word(unit)} {who}" if len(v.scores) < len(v.counts) else who
        out.append(("class:score", f" {fit(label, max(width - 12, 10))} {total:>6}\n"))
    other = state.other_table
    if other is not None and other.totals:  # partner rotation: each player's total, both tables
        out.append(("class:pane.title", " " + totals_title(state) + "\n"))
        out.extend(("class:score", f" {fit(name, max(width - 12, 10))} {total:>6}\n")
                   for name, total in other.totals)
    result = state.round_result
    if result is not None and v.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER):
        line = round_line(state, result, ended=False) + " · " + _("s shows it")
        out.extend(("class:hint", f" {part}\n") for part in wrap(line, max(width - 2, 10)))
    return out


def totals_title(state: UIState) -> str:
    """The rotation totals' title, with the last round they count: a round ended at one
    table counts once the other ends it too, so they may be a round behind the table's."""
    if state.totals_round:
        return _("Rotation totals after round {round}, both tables").format(round=state.totals_round)
    return _("Rotation totals, both tables")


def pile_info(state: UIState, brief: bool = False) -> list[Fragments]:
    """The lines under the pile: the direction of play, the pending penalty, the turn's
    clock and the rules (the pile's count is on the picture); ``brief``: the penalty as
    its count alone (what it is stays on the hint line), for a table short of rows."""
    v = state.view
    assert v is not None
    out: list[Fragments] = [[("class:direction", _("↻ clockwise") if v.direction == 1 else
                              _("↺ counter-clockwise"))]]
    if v.pending:
        penalty = (ngettext("{count} card", "{count} cards", v.pending).format(count=v.pending)
                   if brief else penalty_words(v))
        out.append([("class:pending", _("Pending: {penalty} for {who}").format(
            penalty=penalty, who=state.name_of(v.turn)))])
    left = state.seconds_left()
    if left is not None and v.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER):
        style = "class:timer.low" if left <= 5 else "class:timer"
        out.append([(style, "⏱ " + _("{seconds}s for {who}").format(
            seconds=f"{left:>3}", who=state.name_of(v.turn)))])
    rules = rules_text(match_rules(state))
    if rules:
        out.append([("class:hint", _("Rules:") + " " + rules)])
    return out


def table_info(state: UIState) -> Fragments:
    """The table in lines of words, for a reader that takes lines (plain mode): the top
    card, the direction and the draw pile, then the rest of what is under the pile."""
    v = state.view
    assert v is not None
    if v.top is None:  # the dealer is being drawn for: no pile yet
        return [("", _("Top") + " —\n")]
    out: Fragments = [("", _("Top") + " "), (card_style(v.top) + " class:card.top", card_label(v.top))]
    if v.color:
        out.append((f"class:card.{COLOR_NAMES[v.color]}", f" {color_word(v.color)}"))
    direction, *rest = pile_info(state)
    out += [("", "   "), *direction, ("", "   " + _("draw pile {count}").format(count=v.draw_count) + "\n")]
    for line in rest:
        out += [*line, ("", "\n")]
    return out


def banners(state: UIState) -> Fragments:
    """The prompts that are races: shown the moment they become possible."""
    v = state.view
    if v is None or v.seat is None:
        return []
    out: Fragments = []

    def add(style: str, text: str) -> None:
        if out:
            out.append(("", " "))
        out.append((style, f" {text} "))

    if state.my_presence == "autopilot":
        add("class:banner.uno", _("The server plays for you (autopilot): press b to take your seat back"))
    jumps = state.jump_ins()
    if jumps:
        add("class:banner.jump", "⚡ " + _("JUMP IN: j plays your {card}").format(
            card=card_label(jumps[0].cards[0].text)))
    for target in state.catchable():
        add("class:banner.catch", "⚠ " + _("CATCH {who}: press x!").format(who=state.name_of(target)))
    if state.can_call_uno():
        add("class:banner.uno", "☝ " + _("ONE CARD: press u to call UNO!"))
    elif state.uno_armed and state.my_turn and state.play_leaves_one():
        add("class:banner.uno", _("UNO will be called with this play"))  # a play to one card is open
    elif state.uno_armed:
        add("class:banner.uno", _("UNO will be called with your next play that leaves you one card"))
    elif state.my_turn and len(v.hand) == 2 and state.play_leaves_one():
        add("class:banner.uno", _("2 cards: press u, then play, to call UNO"))
    return out  # (a Wild Draw Four on you: its keys are the hint line's, said once)


MIN_WIDTH, MIN_HEIGHT = 80, 24  # the smallest terminal the table is laid out for
TABLE_ROWS = 16  # lines the rest of the table keeps at the least when the hand is drawn as faces
LARGE_FROM = 30  # ... and when it is drawn as large faces


@dataclass(frozen=True, slots=True)
class FaceSize:
    """How a hand's faces are drawn: ``width`` cells, ``height`` lines, and the lines a
    row of them takes (the playable stand one line up, the number keys go under)."""

    width: int
    height: int

    @property
    def row(self) -> int:
        return self.height + 2

    def per_row(self, width: int) -> int:
        return max(1, (width - 1) // (self.width + cards.SMALL_GAP))

    def lines(self, count: int, width: int) -> int:
        return -(-count // self.per_row(width)) * self.row


LARGE_FACES, SMALL_FACES = FaceSize(cards.LARGE_WIDTH, 5), FaceSize(cards.SMALL_WIDTH, 3)


def hand_height(state: UIState, width: int, height: int) -> int:
    """The lines the hand takes in a table of ``width`` x ``height``: rows of faces
    (large ones on a large terminal) where the rest keeps its room, else the compact line
    of labels (``1[R5] 2[G7]``) wrapped to the width."""
    held = state.hand() if state.view is not None and state.view.seat is not None else []
    if not held:
        return 1
    for size, rest in ((LARGE_FACES, LARGE_FROM), (SMALL_FACES, TABLE_ROWS)):
        if height - size.lines(len(held), width) >= rest:
            return size.lines(len(held), width)
    return len(_label_lines(state, held, width))


def hand(state: UIState, width: int = 80, height: int = 0) -> Fragments:
    """The hand: card faces in rows with the number keys under them (the playable
    raised, the marked flagged with ``*``, the cursor's reversed) where ``height`` has
    room for them, else a line of labels."""
    v = state.view
    if v is None:
        return []
    if v.seat is None:
        return [("class:hint", " " + _("Spectating: you see the table, not the hands."))]
    held = state.hand()
    if not held:
        return [("class:hint", " " + _("(no cards)"))]
    size = next((s for s in (LARGE_FACES, SMALL_FACES) if height >= s.lines(len(held), width)), None)
    if size is None:
        out: Fragments = []
        for i, line in enumerate(_label_lines(state, held, width)):
            out += [("", "\n")] * bool(i) + line
        return out
    canvas = Canvas(width, size.lines(len(held), width))
    per_row = size.per_row(width)
    for i, (text, style, raised) in enumerate(_card_styles(state, held)):
        row, col = divmod(i, per_row)
        x, y = 1 + col * (size.width + cards.SMALL_GAP), row * size.row
        canvas.block(x, y + (0 if raised else 1), cards.small(text, style, i in state.marked, size.width))
        number = f"{(i + 1) % 10}"  # the 13th: 3 pressed twice
        middle = x + size.width // 2
        if i == state.cursor:
            canvas.put(middle - 1, y + size.row - 1, [("class:cursor", f"▲{number}")])
        else:
            canvas.put(middle, y + size.row - 1, [("class:number", number)])
    return canvas.fragments()


def _card_styles(state: UIState, held: list[str]) -> list[tuple[str, str, bool]]:
    """Each card of the hand with its style and whether it is playable now (alone, or
    after another card in one multi-play): the engine's legal plays say so."""
    plays = [a for a in state.legal() if isinstance(a, Play)]
    alone = {a.cards[0].text for a in plays if len(a.cards) == 1}  # playable by itself
    along = {c.text for a in plays for c in a.cards[1:]} - alone  # only after another card
    out = []
    for i, text in enumerate(held):
        style = card_style(text)
        if text in alone:
            style += " class:playable"
        elif text in along:
            style += " class:playable.along"
        else:
            style += " class:unplayable"
        if i in state.marked:
            style += " class:marked"
        if i == state.cursor:
            style += " class:cursor"
        out.append((text, style, text in alone or text in along))
    return out


def _label_lines(state: UIState, held: list[str], width: int) -> list[Fragments]:
    """The compact hand: ``Hand ↑1[R2] 2[G5] …`` in lines of at most ``width`` cells; a
    card playable now has ``↑`` before its number, as its face would stand a line up."""
    lines: list[Fragments] = [[("class:label", " " + _("Hand") + " ")]]
    used = width_of(lines[0])
    for i, (text, style, raised) in enumerate(_card_styles(state, held)):
        label = ("*" if i in state.marked else "") + card_label(text)
        number = ("↑" if raised else "") + f"{(i + 1) % 10}"
        w = get_cwidth(number) + get_cwidth(label) + 1
        if used + w > width and used > 1:
            lines.append([("", " ")])
            used = 1
        lines[-1] += [("class:number", number), (style, label), ("", " ")]
        used += w
    return lines


def hint(state: UIState, width: int = 80) -> Fragments:
    """What to do now, in one line of ``width`` cells: where it is too long, the card
    under the cursor's words go first, then whole keys from the end (never a key cut)."""
    line = _hint(state)
    if not line or width_of(line) <= width:
        return line
    brief = _hint(state, brief=True)
    groups = "".join(text for _style, text, *_rest in brief).split(" · ")
    while len(groups) > 2 and get_cwidth(" · ".join(groups)) > width:
        del groups[-2]  # the key line keeps its last key (? keys)
    return [(brief[0][0], cut(" · ".join(groups), width))]


def _hint(state: UIState, brief: bool = False) -> Fragments:
    """The hint line; ``brief``: without the words on the card under the cursor, and a
    pending penalty as its count alone."""
    v = state.view
    if v is None:
        return []
    cards = state.hand()
    chosen = cards[state.cursor] if 0 <= state.cursor < len(cards) else None
    about = f"{card_label(chosen)} {card_name(chosen)} · " if chosen and not brief else ""
    if chosen and not brief and v.seat is not None and state.my_turn:
        leads = multi_leads(state.legal(), chosen)
        if leads and not any(cards[i] in leads for i in state.marked if i < len(cards)):  # else done
            about = _("{card} {name}, only after {lead}").format(
                card=card_label(chosen), name=card_name(chosen), lead=card_label(leads[0])) + " · "
    if v.phase is Phase.MATCH_OVER:
        if v.seat is None:
            return [("class:hint", " " + _("The match is over: Esc back to the lobby · s scoreboard"))]
        return [("class:hint", " " + _("The match is over: Enter back to the room · Esc to the lobby"
                                       " · s scoreboard"))]
    if v.phase is Phase.ROUND_OVER:
        other = state.other_table
        if other is not None and other.turn is not None and other.round == v.round:
            # Both tables end a round before either is dealt the next (or the match ends).
            return [("class:hint", " " + _("Round over: table {table} is still playing it"
                                           " · s scoreboard").format(table=other.table + 1))]
        return [("class:hint", " " + _("Round over: the next round is dealt in a moment · s scoreboard"))]
    if v.seat is None:
        return [("class:hint", " " + _("{who}'s turn · you are watching · Esc leaves").format(
            who=state.name_of(v.turn)))]
    if state.sent is not None:
        return [("class:hint", f" {about}" + _("sent, waiting for the table…"))]
    if not state.my_turn:
        return [("class:hint", f" {about}" + _("{who}'s turn · ? keys").format(who=state.name_of(v.turn)))]
    if v.phase is Phase.COLOR:
        return [("class:hint.turn", " " + _("Your turn: choose the color of the first card"))]
    if v.phase is Phase.DRAWN:
        return [("class:hint.turn", " " + _("You drew {card}: Enter plays it · k keeps it").format(
            card=card_label(v.drawn or "?")))]
    if v.pending:
        extra = " · " + _("c challenge") if v.challengeable else ""
        # Brief: the count alone (what the cards are is written under the pile), so that
        # the keys fit an 80-column line.
        penalty = (ngettext("{count} card", "{count} cards", v.pending).format(count=v.pending)
                   if brief else penalty_words(v))
        if any(isinstance(a, Play) for a in state.legal()):
            return [("class:hint.turn", " " + _(
                "{penalty} on you: d draws them · Enter stacks a penalty card").format(
                    penalty=penalty) + extra)]
        return [("class:hint.turn", " " + _("{penalty} on you: d draws them").format(
            penalty=penalty) + extra)]
    return [("class:hint.turn", " " + _("Your turn: {about}Enter play · Space mark · d draw · ? keys").format(
        about=about))]


def log(state: UIState, width: int = 40) -> Fragments:
    out: Fragments = [("class:pane.title", " " + _("Log") + "\n")]
    for text, style in list(state.log)[-150:]:  # a tall pane shows more of it
        for line in wrap(text, max(width - 1, 8)):
            out.append((f"class:log.{style}" if style else "class:log", f" {line}\n"))
    out.append(("[SetCursorPosition]", ""))
    return out


def chat(state: UIState, width: int = 40) -> Fragments:
    out: Fragments = [("class:pane.title", " " + _("Chat (t)") + "\n")]
    for who, text in list(state.chat)[-20:]:
        name = f"{cut(who, 16)}: "
        lines = wrap(text, max(width - 1, 20), start=get_cwidth(name))
        out.append(("class:chat.name", f" {name}"))
        out += [("class:chat", f"{' ' if i else ''}{line}\n") for i, line in enumerate(lines)]
    out.append(("[SetCursorPosition]", ""))
    return out


NOTICE_LINES = 3  # the most lines the notices take under the table


def notices(state: UIState, width: int = 80) -> Fragments:
    """The last two notices, wrapped by words to ``width`` (a long one is read whole)."""
    lines = [(f"class:notice.{notice.style}", f" {line}") for notice in state.current_notices()[-2:]
             for line in wrap(notice.text, max(width - 1, 20))]
    out: Fragments = []
    for style, line in lines[-NOTICE_LINES:]:
        out += [("", "\n")] * bool(out) + [(style, line)]
    return out


# -- overlays ---------------------------------------------------------------------------


PICKER_WIDTH = 42  # the picker's box, inside its frame


def picker(state: UIState) -> Fragments:
    p = state.picker
    if p is None:
        return []
    v = state.view
    out: Fragments = [("class:overlay.title", f" {line}\n") for line in wrap(p.title, PICKER_WIDTH - 1)]
    out.append(("", "\n"))
    for i, option in enumerate(p.options):
        sel = " class:cursor" if i == p.cursor else ""
        if p.kind.names_color:
            name = COLOR_NAMES[option]
            out.append((f"class:card.{name}{sel}", f"  {option.lower()}  {fit(color_word(option), 8)}\n"))
        else:
            count = v.counts[option] if v is not None else 0
            cards = ngettext("{count} card", "{count} cards", count).format(count=f"{count:>3}")
            out.append(("class:overlay" + sel,
                        f"  {option}  {fit(state.name_of(option), 16)} {cards}\n"))
    keys = " ".join(o.lower() for o in p.options) if p.kind.names_color else _("seat number")
    out.append(("class:overlay.hint", "\n " + _("{keys} or ↑ ↓ Enter · Esc cancel").format(keys=keys)))
    return out


HelpLine = tuple[str, str]  # (key, meaning); no key: a section's title; both empty: a gap
HELP_COLUMN = 40  # the table's keys beside the rest from two such columns up
HELP_WIDTH = 100  # the most the help takes (its two columns share it)


def help_lines(part: str) -> list[HelpLine]:
    """One column of the help: the ``table`` keys, or ``any`` (the language is switched
    there, so it comes first) and the lobby's."""
    out: list[HelpLine] = []
    sections = sorted(KEYS_HELP, key=lambda s: s[0] != "any")
    for section, title, keys in sections:
        if (section == "table") != (part == "table"):
            continue
        out.append(("", _(title)))
        out += [(key, _(meaning)) for key, meaning in keys]
        if section == "any":  # the language, switched here
            out.append(("L", _("language: {now} → {next}").format(
                now=display_name(language()), next=display_name(next_language()))))
        out.append(("", ""))
    return out


def help_page(state: UIState, width: int = 80) -> Fragments:
    """The help overlay in ``width`` cells: the table's keys beside the rest when two
    columns fit, else one under the other, each meaning wrapped beside its key; scrolled
    by ``state.help_scroll`` lines (↑ ↓) when it is taller than the screen."""
    parts = [help_lines("table"), help_lines("lobby")]
    key_width = 1 + max(get_cwidth(key) for part in parts for key, _meaning in part)
    two = width >= 2 * HELP_COLUMN - 2
    column = (width - 2) // 2 if two else width  # (the right column keeps a cell off the frame)
    # (each a cell narrower: a gap between the two, and the frame's border kept clear)
    columns = [_help_column(parts[0], key_width, column - 1),
               _help_column(parts[1], key_width, (width - column if two else width) - 1)]
    if two:
        rows = [[*(left if left else [("class:overlay", " " * column)]), *other]
                for left, other in _zip(_pad(columns[0], column), columns[1])]
    else:
        rows = columns[0] + columns[1]
    top = max(0, min(state.help_scroll, len(rows) - 1))
    out: Fragments = []
    for row in rows[top:]:
        out += row
        out.append(("class:overlay", "\n"))
    return out


def help_height(width: int) -> int:
    """How many lines the help takes at ``width`` (the most ↑ ↓ can scroll)."""
    return sum(1 for fragment in help_page(UIState(), width) if fragment[1] == "\n")


def _help_column(lines: list[HelpLine], key_width: int, width: int) -> list[Fragments]:
    rows: list[Fragments] = []
    for key, meaning in lines:
        if not key:
            rows.append([("class:overlay.section", f" {cut(meaning, width - 1)}")] if meaning else [])
            continue
        first, *more = wrap(meaning, max(width - key_width - 1, 8), indent=0)
        rows.append([("class:overlay.key", f" {fit(key, key_width)}"), ("class:overlay", first)])
        rows += [[("class:overlay", " " * (key_width + 1) + line)] for line in more]
    return rows


def _pad(rows: list[Fragments], width: int) -> list[Fragments]:
    """Each row filled to ``width`` cells (the left column of two)."""
    out = []
    for row in rows:
        used = sum(get_cwidth(text) for _style, text, *_rest in row)
        out.append([*row, ("class:overlay", " " * max(0, width - used))] if row else [])
    return out


def _zip(left: list[Fragments], right: list[Fragments]) -> list[tuple[Fragments, Fragments]]:
    n = max(len(left), len(right))
    return [(left[i] if i < len(left) else [], right[i] if i < len(right) else []) for i in range(n)]


def help_title() -> str:
    """The help overlay's frame title."""
    return _("Keys — ↑ ↓ scroll · Esc or ? closes")


def round_line(state: UIState, result: dict[str, object], ended: bool) -> str:
    """``Round 2: bob won +40`` (``Last round (2): ...`` once the next one is dealt)."""
    number = result.get("round", "")
    title = (_("Round {round}") if ended else _("Last round ({round})")).format(round=number)
    winner = result.get("winner")
    return _("{title}: {winner} won +{points}").format(
        title=title, winner=state.name_of(winner if isinstance(winner, int) else None),
        points=result.get("points"))


SCOREBOARD_WIDTH = 74  # the scoreboard's box, inside its frame
HAND_COLUMN = 20  # the fewest cells the hands left keep beside a long name


def scoreboard(state: UIState, width: int = SCOREBOARD_WIDTH) -> Fragments:
    """The last round's result with every hand left (wrapped, never cut), or the match's
    (``width``: the box's, inside its frame; plain mode's lines are as long as need be)."""
    v = state.view
    out: Fragments = []
    result, match = state.round_result, state.match_result
    if match is not None:  # (wrapped: a long name is read whole)
        out.extend(("class:overlay.title", f" {line}\n") for line in wrap(_("{winner} won the match!").format(
            winner=winners(match, state.name_of)), width - 2))
        tie = tie_words(match, state.name_of)
        if tie:  # partners level at the end: how the engine settled it
            out.extend(("class:overlay", f" {line}\n") for line in wrap(tie, width - 2))
    if result is not None:
        ended = v is not None and v.phase in (Phase.ROUND_OVER, Phase.MATCH_OVER)
        out.append(("class:overlay.title", f" {round_line(state, result, ended)}\n\n"))
    else:
        out.append(("class:overlay.title", " " + _("Scores") + "\n\n"))
    scores = list((match or result or {}).get("scores") or (v.scores if v else ()))
    hands = list((result or {}).get("hands") or ())
    rows: list[tuple[str, str, str, int | None]] = []  # number, name, score, seat (its hand)
    if v is not None and len(scores) < len(v.counts):  # a score per team: its members beneath
        for team, score in enumerate(scores):
            members = team_members(v, team)
            rows.append((team_word(team), _(" and ").join(state.name_of(m) for m in members), str(score), None))
            rows += [(f"  {member}", state.name_of(member), "", member) for member in members]
    else:
        rows += [(str(i), state.name_of(i), str(score), i) for i, score in enumerate(scores)]
    # The names' column: as wide as the longest name, the hands keeping HAND_COLUMN at least.
    name_w = max(17, min(max((get_cwidth(name) for _n, name, *_r in rows), default=0),
                         width - 19 - HAND_COLUMN))
    hand_w = width - 19 - name_w
    seat, player, total, left = _("seat"), _("player"), _("total"), _("left in hand")
    total = " " * max(0, 7 - get_cwidth(total)) + cut(total, 7)  # over the numbers, right-aligned
    out.append(("class:overlay.section", f"  {fit(seat, 5)}{fit(player, name_w + 1)}{total}   {left}\n"))
    for number, name, score, at in rows:
        held = " ".join(card_label(c) for c in hands[at]) if at is not None and at < len(hands) else ""
        first, *more = wrap(held, hand_w, indent=0)
        out.append(("class:overlay", f"  {fit(number, 5)}{fit(name, name_w)} {score:>7}   {first}\n"))
        out.extend(("class:overlay", " " * (name_w + 18) + f"{line}\n") for line in more)
    other = state.other_table
    if other is not None and other.totals:  # partner rotation: the points are each player's
        out.append(("class:overlay.section", "\n  " + totals_title(state) + "\n"))
        board = " · ".join(f"{name} {total}" for name, total in other.totals)
        out.extend(("class:overlay", f"  {line}\n") for line in key_lines(board, 70))
    if v is not None and v.phase is Phase.MATCH_OVER:
        keys = _("s closes · Esc to the lobby") if v.seat is None else \
            _("s closes · Enter back to the room · Esc to the lobby")
    else:
        keys = _("s or Esc closes")
    out.append(("class:overlay.hint", f"\n {keys}"))
    return out


# -- the lobby --------------------------------------------------------------------------


def lobby(state: UIState, width: int = 80) -> Fragments:
    if state.form is not None:
        return create_form(state)
    if state.room is not None:
        return room(state, width)
    out: Fragments = [("class:pane.title", " " + _("Rooms on {address}").format(
        address=state.address or _("the server")) + "\n\n")]
    if state.status != "connected":
        out += connecting(state, width)
    elif not state.rooms:
        out.append(("class:hint", " " + _("No rooms yet. Press c to create one.") + "\n"))
    for i, r in enumerate(state.rooms):
        sel = "class:cursor" if i == state.room_cursor else ""
        flags = ((" " + _("two tables") if r.get("tables", 1) > 1 else "")
                 + (" " + _("started") if r.get("started") else "") + (" 🔒" if r.get("password") else ""))
        people = _("{players}/{seats} players, {spectators} watching").format(
            players=r.get("players", 0), seats=r.get("seats", 0), spectators=r.get("spectators", 0))
        changed = listed_rules(r).partition(" ")[2]  # the preset has its column
        line = (f" {'▶' if sel else ' '} {fit(r['name'], 24)} {fit(rule_word(r.get('preset', '')), 9)}"
                f" {people}{flags}" + (f" · {changed}" if changed else ""))
        out.append((sel, cut(line, width) + "\n"))
    return out


def lobby_keys(state: UIState, width: int = 80) -> Fragments:
    """The lobby's key line under whichever lobby screen is open, wrapped between keys
    (never inside one) so it is whole at any width; it never scrolls away."""
    if state.form is not None:
        keys = _("↑ ↓ field · ← → value · e edits the name, the password or a number"
                 " · Enter create · Esc cancel")
    elif state.room is not None:
        if state.my_seat is None:
            keys = _("You are watching. t chat · Esc leave · ? keys")
        elif state.room.get("host") == state.my_seat:
            keys = _("b add bot · - remove bot · Enter start · Space ready · t chat · Esc leave · ? keys")
        else:
            keys = _("Space ready · t chat · Esc leave · ? keys")
    else:
        keys = _("↑ ↓ choose · Enter join · s spectate · c create · r refresh · ? keys · q quit")
        if state.from_start:
            keys += " · " + _("Esc back to the games on the LAN")
    return [("class:hint", f" {line}\n") for line in key_lines(keys, width - 1)]


def key_lines(keys: str, width: int) -> list[str]:
    """A key line (``a this · b that``) in lines of at most ``width`` cells, broken
    between its keys only (a key wider than a line is wrapped by words)."""
    lines: list[str] = []
    for group in keys.split(" · "):
        if lines and get_cwidth(lines[-1]) + 3 + get_cwidth(group) <= width:
            lines[-1] += " · " + group
        else:
            lines.extend(wrap(group, width, indent=0))
    return lines


def connecting(state: UIState, width: int = 80) -> Fragments:
    """Not connected: what is being tried, since when, and why the last try failed; each
    wrapped by words to ``width``."""
    where = state.address or _("the server")
    waited = int(state.clock() - state.connect_started)
    lines: list[tuple[str, str]] = []
    if state.status == "connecting" and not state.last_failure:
        text = _("Connecting to {where}…").format(where=where)
        if waited >= 2:
            text += " " + _("no answer yet after {seconds} s.").format(seconds=waited)
        lines.append(("class:hint", text))
    else:
        lines.append(("class:notice.error", _("Not connected to {where}: still trying"
                                              " (attempt {attempt}).").format(
                                                  where=where, attempt=state.attempts + 1)))
        if state.last_failure:
            lines.append(("class:hint", _("Why: {reason}").format(reason=state.last_failure)))
    lines.append(("class:hint", _("The rooms show up here once the server answers; q quits.")))
    return wrapped(lines, width)


def create_form(state: UIState) -> Fragments:
    """Every field with its value (← →) and the preset's default; the window scrolls to
    the field under the cursor, whose meaning is shown beneath it."""
    f = state.form
    assert f is not None
    out: Fragments = [("class:pane.title", " " + _("Create a room")),
                      ("class:hint", "   " + _("rules:") + f" {cut(str(_form_rules(f)), 44)}\n\n")]
    problem = f.problem()
    for i, name in enumerate(create.FIELDS):
        sel = i == f.field_index
        value = f.value(name)
        if name in ("name", "password"):
            text = (f" {'▶' if sel else ' '} {fit(create.label(name), 22)} "
                    f"{cut(create.shown(name, value), 30)}   " + _("(e edits)"))
        else:
            shown = f"‹ {create.shown(name, value)} ›"
            default = ""
            if name not in create.ROOM_FIELDS:
                was = f"{rule_word(f.preset)}: {create.shown(name, f.default(name))}"
                default = _("changed; {default}").format(default=was) if name in f.options else was
            text = f" {'▶' if sel else ' '} {fit(create.label(name), 22)} {fit(shown, 20)} {default}"
        style = "class:cursor" if sel else ("class:label" if name in f.options else "")
        if sel:
            out.append(("[SetCursorPosition]", ""))
        out.append((style, text + "\n"))
        if sel:
            for line in wrap(create.meaning(name), 74, indent=0):
                out.append(("class:hint", f"      {line}\n"))
            if problem:  # beside the field being changed, where the eye is
                out.append(("class:notice.error", f"      ⚠ {problem}\n"))
    return out


def _form_rules(f: create.CreateForm) -> str:
    try:
        return str(Rules.preset(f.preset, **f.options))
    except RulesError:
        return " ".join([f.preset, *(f"{k}={create.shown(k, v)}" for k, v in f.options.items())])


def room(state: UIState, width: int = 80, said: Callable[[object], str] = rules_text) -> Fragments:
    """The room's seats; its title and rules (as ``said`` puts them) wrapped by words to
    ``width`` cells."""
    r = state.room
    assert r is not None
    rules = said(r.get("rules"))
    timer = "  " + _("timer {seconds}s").format(seconds=r.get("timer")) if r.get("timer") else ""
    title = " " + _("Room {name}").format(name=r.get("name")) + f"  ({r.get('room')})"
    first, *more = wrap(f"{rules}{timer}", max(width - 1, 20), indent=3, start=get_cwidth(title) + 2)
    out: Fragments = [("class:pane.title", title), ("class:label", f"  {first}\n")]
    out += [("class:label", f"{line}\n") for line in more]
    out.append(("", "\n"))
    for entry in r.get("seats", ()):
        seat = entry["seat"]
        if entry.get("kind") == "empty":
            out.append(("class:hint", f"   {seat}  " + _("(empty)") + "\n"))
            continue
        bot = entry.get("kind") == "bot" or entry.get("bot")
        state_word = PRESENCE_WORDS.get(str(entry.get("state")), str(entry.get("state")))
        tags = [_(tag) for tag, shown in (
            (N_("you"), seat == state.my_seat), (N_("bot"), bot), (N_("host"), seat == r.get("host")),
            (N_("ready") if entry.get("ready") or bot else N_("not ready"), True),
            (state_word, entry.get("state") not in (None, "connected"))) if shown]
        out.append(("", f"   {seat}  {fit(entry.get('name') or '?', 16)}  {' · '.join(tags)}\n"))
    out.append(("", "\n   " + _("{count} watching").format(count=r.get("spectators", 0)) + "\n"))
    return out
