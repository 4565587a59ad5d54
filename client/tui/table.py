"""The table as a picture: the other seats around the pile, this player at the bottom.

Seats sit in the order play goes clockwise from this player: up the left side, along the
top, down the right side. Each seat is a tile: its number and name, a fan of card backs
with the count, and its flags (bot, away, autopilot, UNO!, a catch mark, out; a team's
tag and who is this player's partner). The pile's top card is a large face in its color,
beside the draw pile and its count; under them the direction, the pending penalty and the
turn's clock. The picture is laid out for the size it is drawn at: tiles of three lines
where they fit, two where not; a larger card face where the pane is tall.

What each seat may do comes from the engine's view and the legal actions it gives (the
seats this player may catch, the pending penalty, the challenge): nothing is worked out
here. Running :mod:`motion` effects are drawn last, over the picture, at their seats.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth
from unolan.client.i18n import N_, _, ngettext
from unolan.engine import Phase

from . import cards
from .canvas import Canvas, cut, fit, width_of, wrap
from .motion import FLIGHT, Effect, Kind
from .state import UIState, card_label, card_style

Fragments = StyleAndTextTuples


class Box(NamedTuple):
    """A rectangle of cells: what a thing on the table takes."""

    x: int
    y: int
    w: int
    h: int

    def meets(self, other: Box) -> bool:
        return (self.x < other.x + other.w and other.x < self.x + self.w
                and self.y < other.y + other.h and other.y < self.y + self.h)

    def inside(self, canvas: Canvas) -> bool:
        return self.x >= 0 and self.y >= 0 and self.x + self.w <= canvas.width and self.y + self.h <= canvas.height


@dataclass(frozen=True, slots=True)
class Place:
    """Where a seat's tile is drawn (its top-left cell)."""

    x: int
    y: int


@dataclass(frozen=True, slots=True)
class Arrangement:
    tile_w: int
    tile_h: int
    band: int  # rows taken by the top tiles (with their gap)
    places: dict[int, Place]
    center: tuple[int, int, int, int]  # x, y, width, height of the pile's area


def clockwise(state: UIState) -> list[int]:
    """The other seats in the order play goes clockwise from this one (every seat for a
    spectator)."""
    v = state.view
    assert v is not None
    n = len(v.counts)
    if v.seat is None:
        return list(range(n))
    return [(v.seat + i) % n for i in range(1, n)]


def arrange(seats: list[int], width: int, height: int) -> Arrangement:
    """The tiles around the pile for a pane of ``width`` x ``height`` (its last row is
    this player's); three-line tiles if they fit, else two-line ones."""
    k = len(seats)
    rows = height - 1
    best: Arrangement | None = None
    for tile_h in (3, 2):
        tile_w = max(14, min(26, (width - 22) // 2))  # the pile keeps 20 cells between
        per_row = max(1, (width + 1) // (tile_w + 1))
        for top_rows in (1, 2, 3):
            band = top_rows * (tile_h + 1)
            side_h = rows - band
            cap = max(0, (side_h + 1) // (tile_h + 1))
            side = min(cap, (k - 1) // 2) if k >= 3 else 0
            top = k - 2 * side
            if top > per_row * top_rows:
                continue
            places: dict[int, Place] = {}
            slots = [_slot(j, side, band, side_h, tile_h, rows) for j in range(side)]
            for i, seat in enumerate(seats[:side]):  # up the left side: the first seat lowest
                places[seat] = Place(0, slots[side - 1 - i])
            along = seats[side:side + top]
            for i, seat in enumerate(along):  # along the top, left to right
                row, col = divmod(i, per_row)
                in_row = min(per_row, len(along) - row * per_row)
                left = (width - in_row * (tile_w + 1) + 1) // 2
                places[seat] = Place(left + col * (tile_w + 1), row * (tile_h + 1))
            for i, seat in enumerate(seats[side + top:]):  # down the right side
                places[seat] = Place(width - tile_w, slots[i])
            x0 = tile_w + 1 if side else 0
            band_used = band if top else 0
            center = (x0, band_used, width - 2 * x0, rows - band_used)
            arrangement = Arrangement(tile_w, tile_h, band_used, places, center)
            if center[3] >= 7 or tile_h == 2:
                return arrangement
            best = best or arrangement  # three-line tiles squeeze the pile: try two-line ones
            break
    return best or Arrangement(14, 2, 0, {}, (0, 0, width, rows))


def _slot(j: int, side: int, band: int, side_h: int, tile_h: int, rows: int) -> int:
    """The row of a side's ``j``-th tile of ``side``: spread along the side's height, never
    closer than a line to the next."""
    spread = band + (2 * j + 1) * side_h // (2 * side) - tile_h // 2
    return min(max(spread, band + j * (tile_h + 1)), rows - (side - j) * (tile_h + 1))


def tile(state: UIState, seat: int, width: int, height: int, catchable: set[int]) -> list[Fragments]:
    """One seat's tile: ``height`` lines of ``width`` cells."""
    v = state.view
    assert v is not None
    turn = seat == v.turn and v.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER)
    row = "class:turn" if turn else "class:seat"
    count = v.counts[seat]
    team = v.team_of(seat)
    tags: list[tuple[str, str]] = []
    partner = (team is not None and v.seat is not None and seat != v.seat
               and team == v.team_of(v.seat))
    if team is not None:
        tags.append((f"class:team.t{team % 2}", team_word(team) + ("♥" if partner and height < 3 else "")))
    if seat in state.bots:
        tags.append(("class:tag", _("bot")))
    presence = state.presence.get(seat, "connected")
    away = ("class:flag.away", _(PRESENCE_WORDS.get(presence, presence))) if presence != "connected" else None
    if away and height < 3:
        tags.append(away)
    head = ("▶ " if turn else "  ") + f"{seat} "
    whole = state.name_of(seat)
    moved: list[tuple[str, str]] = []  # the name comes before its tags: those that crowd it
    while len(tags) > (1 if team is not None and height < 3 else 0) and (  # go to the third
            get_cwidth(head + whole) + sum(get_cwidth(" " + t) for _s, t in tags) > width):  # line
        moved.insert(0, tags.pop())  # (a two-line tile keeps only the team's)
    tag_text = "".join(" " + text for _s, text in tags)
    name = cut(whole, max(width - get_cwidth(head) - get_cwidth(tag_text), 3))
    first: Fragments = [("class:turn.marker" if turn else "", head[:2]), (row, head[2:] + name)]
    first += [(style, " " + text) for style, text in tags]
    flag = seat_flag(state, seat, catchable)
    count_text = " " + ngettext("{count} card", "{count} cards", count).format(count=count)
    flag_width = get_cwidth(flag[1]) + 1 if flag else 0
    # The flag beside the count where the fan keeps a card, else first on the next line
    # (a two-line tile: in place of the fan).
    beside = flag is not None and (width - get_cwidth(count_text) - flag_width - 2 >= 1 or height < 3)
    room = width - get_cwidth(count_text) - (flag_width if beside else 0) - 2
    second: Fragments = [("", "  "), ("class:back", cards.fan(count, room)), ("", count_text)]
    if flag and beside:
        second += [("", " "), flag]
    if flag and beside and width_of(second) > width:
        second = [("", " "), flag, ("", count_text)]
    lines = [first, second]
    if height >= 3:
        third: Fragments = [("", "  ")]
        if flag and not beside:
            third += [flag, ("", " ")]
        score = ("class:score", _("{score}p").format(score=score_of(state, seat)))
        said = [*moved, *([away] if away else [])]
        if partner and team is not None:  # the word where it fits, else the team's mark
            word = _("partner") if width_of(third) + sum(get_cwidth(t) + 1 for _s, t in (
                *said, score)) + get_cwidth(_("partner")) + 1 <= width else "♥"
            third += [(f"class:team.t{team % 2}", word), ("", " ")]
        for tag in said:
            third += [tag, ("", " ")]
        third.append(score)
        lines.append(third)
    return [_fitted(line, width) for line in lines]


def _fitted(line: Fragments, width: int) -> Fragments:
    """A line cut to ``width`` cells (fragment by fragment)."""
    out: Fragments = []
    used = 0
    for style, text, *_rest in line:
        w = get_cwidth(text)
        if used + w > width:
            text = cut(text, width - used)
            w = get_cwidth(text)
        if w:
            out.append((style, text))
        used += w
        if used >= width:
            break
    return out


def seat_flag(state: UIState, seat: int, catchable: set[int]) -> tuple[str, str] | None:
    """A seat's loudest flag: out, UNO! called, or a mark that it may be caught now."""
    v = state.view
    assert v is not None
    if v.out[seat]:
        return ("class:tag", _("out"))
    if v.counts[seat] == 1 and v.called[seat]:
        return ("class:flag.uno", _("UNO!"))
    if seat in catchable and v.counts[seat] == 1:
        return ("class:flag.catch", _("NO UNO!"))
    return None


def score_of(state: UIState, seat: int) -> int:
    v = state.view
    assert v is not None
    team = v.team_of(seat)
    return int(v.scores[team if team is not None and len(v.scores) < len(v.counts) else seat])


def team_word(team: int) -> str:
    """A team as the screen names it (``T1``: the team of seat 0)."""
    return _("T{team}").format(team=team + 1)


PRESENCE_WORDS = {"away": N_("away"), "autopilot": N_("autopilot"), "connected": N_("connected")}


def own_line(state: UIState, width: int, catchable: set[int]) -> Fragments:
    """This player's seat, the bottom of the table: ``▶ 0 ann (you) · 4 cards · 12p``."""
    v = state.view
    assert v is not None
    if v.seat is None:
        return [("class:hint", " " + _("you are watching"))]
    return seat_line(state, v.seat, width, catchable)


def seat_line(state: UIState, seat: int, width: int, catchable: set[int]) -> Fragments:
    """A seat in one line of words (``▶ 1 bob · bot · 3 cards · 0p · UNO!``): this player's
    own at the bottom of the table, and every seat where the table is read as lines."""
    v = state.view
    assert v is not None
    mine = seat == v.seat
    turn = seat == v.turn and v.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER)
    row = ("class:turn " if turn else "") + ("class:me" if mine else "class:seat")
    parts: Fragments = [("class:turn.marker" if turn else "", "▶ " if turn else "  ")]
    count = v.counts[seat]
    rest: Fragments = []
    if seat in state.bots:
        rest.append(("class:tag", " · " + _("bot")))
    rest += [("", " · " + ngettext("{count} card", "{count} cards", count).format(count=count)),
             ("class:score", " · " + _("{score}p").format(score=score_of(state, seat)))]
    team = v.team_of(seat)
    if team is not None:
        partners = [s for s in range(len(v.counts)) if s != seat and v.team_of(s) == team]
        rest.append((f"class:team.t{team % 2}", " · " + team_word(team)))
        if partners and mine:
            rest.append((f"class:team.t{team % 2}", " " + _("partner: {names}").format(
                names=_(" and ").join(state.name_of(s) for s in partners))))
    flag = seat_flag(state, seat, catchable)
    if flag:
        rest += [("", " "), flag]
    presence = state.presence.get(seat, "connected")
    if presence != "connected":
        rest.append(("class:flag.away", " " + _(PRESENCE_WORDS.get(presence, presence))))
    if mine:
        you = _("{name} (you)")
        room = width - 2 - get_cwidth(f"{seat} ") - width_of(rest) - get_cwidth(you.format(name=""))
        name = you.format(name=cut(state.names.get(seat, state.name), max(room, 4)))
    else:
        name = state.name_of(seat)
    parts.append((row, f"{seat} {name}"))
    return _fitted(parts + rest, width)


def picture(state: UIState, width: int, height: int, info: list[Fragments],
            brief: list[Fragments] | None = None) -> Fragments:
    """The table in ``width`` x ``height`` cells; ``info``: the lines under the pile (the
    direction, the penalty, the clock, the rules), each wrapped to the pile's area; when
    they are more than its rows hold, the first (the direction) stands beside the pile, or
    the pile rises into the spacer row under the top seats, or ``brief`` (the same lines,
    shorter) stands for them. Nothing flying covers them."""
    v = state.view
    if v is None or width < 20 or height < 6:
        return []
    canvas = Canvas(width, height)
    catchable = set(state.catchable()) | set(v.catchable)
    seats = clockwise(state)
    layout = arrange(seats, width, height)
    # Every tile as wide as the narrowest (a tile at the right edge keeps off the border),
    # so that the same hand is drawn alike at every seat.
    tile_w = min([layout.tile_w, *(width - 1 - place.x for place in layout.places.values())])
    tiles = [(place, tile(state, seat, tile_w, layout.tile_h, catchable)) for seat, place in layout.places.items()]
    for place, tile_lines in tiles:
        canvas.block(place.x, place.y, tile_lines)
    canvas.put(0, height - 1, own_line(state, width, catchable))

    now = state.clock()
    effects = state.motion.active(now)
    _cx, cy, _cw, ch = layout.center
    pile = place_pile(layout.center, info)
    shorter = [line for line, short in zip(info, brief or info, strict=True) if line != short]
    if brief is not None and not all(_shown_whole(line, pile, cy + ch) for line in shorter):
        pile = place_pile(layout.center, brief)
    card_w, card_h, pile_x, pile_y = pile.card_w, pile.card_h, pile.x, pile.y
    flying = [e for e in effects if e.kind is Kind.FLIGHT and now - e.start < FLIGHT]
    landed = [e for e in effects if e.kind is Kind.FLIGHT and now - e.start >= FLIGHT]
    if v.top is not None:
        face = cards.large(v.top, v.color, card_w, card_h, extra="class:flash" if landed else "")
        canvas.block(pile_x, pile_y, face)
    else:  # the dealer is being drawn for: no pile yet
        canvas.put(pile_x, pile_y + 1, [("class:hint", "—")])
    draw_pile = cards.back_pile(v.draw_count)
    canvas.block(pile_x + card_w + 1, pile_y + card_h // 2 - 1, draw_pile)

    home = Place(2, height - 1)
    taken: list[Box] = []  # what a card on its way never covers: it goes where the table is bare
    if flying:
        taken += [Box(place.x, place.y + i, width_of(line), 1) for place, tile_lines in tiles
                  for i, line in enumerate(tile_lines)]
        taken += [Box(pile_x, pile_y, card_w, card_h),
                  Box(pile_x + card_w + 1, pile_y + card_h // 2 - 1, width_of(draw_pile[1]), len(draw_pile)),
                  Box(0, height - 1, width, 1)]  # the own line
        taken += [Box(pile_x, y, width_of(line), 1) for y, line in enumerate(pile.under, pile_y + card_h)]
        if pile.beside:
            taken.append(Box(pile.beside, pile_y + card_h - 1, width_of(info[0]), 1))
    for effect in effects:
        where = layout.places.get(effect.seat) if effect.seat is not None else None
        if effect.seat is not None and effect.seat == v.seat:
            where = home
        if effect.kind is Kind.FLIGHT and effect in flying and where is not None:
            _draw_flight(canvas, effect, now, where, Place(pile_x + 2, pile_y + 1), taken)
    # The lines under the pile over any card on its way: they are read, the card only seen.
    if pile.beside:
        canvas.put(pile.beside, pile_y + card_h - 1, info[0])
    for y, line in enumerate(pile.under, pile_y + card_h):
        if y >= cy + ch:
            break
        canvas.put(pile_x, y, line)
    for effect in effects:
        where = layout.places.get(effect.seat) if effect.seat is not None else None
        if effect.seat is not None and effect.seat == v.seat:
            where = home
        if effect.kind is Kind.BANNER and where is home:
            _own_banner(canvas, effect, own_line(state, width, catchable), where.y)
        elif effect.kind is Kind.BANNER and where is not None:  # the tile's lines under its name
            lines = banner_lines(effect.text, layout.tile_w, layout.tile_h - 1)
            canvas.block(where.x, where.y + 1, [[(effect.style, fit(f" {line} ", layout.tile_w))]
                                                for line in lines])
    return canvas.fragments()


def banner_lines(text: str, width: int, rows: int) -> list[str]:
    """A banner's words in at most ``rows`` lines of a tile ``width`` cells wide (a cell
    of room each side); where they need more, the last line is cut with an ellipsis."""
    lines = list(wrap(text, width - 2, indent=0))
    if len(lines) > rows:
        lines = [*lines[:rows - 1], cut(" ".join(lines[rows - 1:]), width - 2)]
    return lines


def _own_banner(canvas: Canvas, effect: Effect, mine: Fragments, y: int) -> None:
    """A banner on this player's line: beside it where it fits, else over what follows
    the name (the count, the score), never over the name."""
    text = f" {effect.text} "
    named = width_of(mine[:2])  # the turn's marker, the seat and the name
    if width_of(mine) + 1 + get_cwidth(text) <= canvas.width:
        canvas.put(width_of(mine) + 1, y, [(effect.style, text)])
        return
    shown = cut(text, canvas.width - named - 1)  # the rest of the line gives way, whole
    canvas.put(named + 1, y, [(effect.style, shown), ("", " " * (canvas.width - named - 1 - get_cwidth(shown)))])


class PilePlace(NamedTuple):
    """Where the pile goes in the table's center: its face's size and top left corner,
    the lines under it, and the column where the first info line stands beside the
    face's foot instead (0: it is under the face with the others)."""

    card_w: int
    card_h: int
    x: int
    y: int
    under: list[Fragments]
    beside: int


def place_pile(center: tuple[int, int, int, int], info: list[Fragments]) -> PilePlace:
    """The largest face that leaves room for the info lines, once wrapped (two passes:
    sized for the entries, then for the lines they wrap to). Short of rows, in turn: the
    first line (the direction) stands beside the face's foot, the pile rises into the
    spacer row under the top seats, the wrapped lines go unindented."""
    cx, cy, cw, ch = center
    rows = len(info)
    for _pass in range(2):
        room = ch - rows
        card_w, card_h = (17, 11) if room >= 15 and cw >= 40 else (13, 9) if room >= 11 and cw >= 30 else (9, 5)
        x = cx + max(0, (cw - card_w - 1 - 9) // 2)
        under = _info_lines(info, cx + cw - x)
        rows = len(under)
    beside = x + card_w + 1  # right of the face, under the draw pile: a free row
    below = info
    if card_h + rows > ch and info and width_of(info[0]) <= cx + cw - beside:
        below = info[1:]
        under = _info_lines(below, cx + cw - x)
    else:
        beside = 0
    rise = card_h + len(under) > ch and cy > 0
    if card_h + len(under) > ch + rise:
        under = _info_lines(below, cx + cw - x, indent=0)
    top = cy - 1 if rise else cy
    return PilePlace(card_w, card_h, x, top + max(0, (ch - card_h - len(under)) // 2), under, beside)


def _shown_whole(line: Fragments, pile: PilePlace, bottom: int) -> bool:
    """Whether the words of info ``line`` are all on the rows above ``bottom``."""
    rows = pile.under[:max(0, bottom - pile.y - pile.card_h)]
    shown = "".join(text for row in rows for _style, text, *_rest in row).replace(" ", "")
    return "".join(text for _style, text, *_rest in line).replace(" ", "") in shown


def _info_lines(info: list[Fragments], room: int, indent: int = 2) -> list[Fragments]:
    """The lines under the pile: each entry wrapped to ``room`` cells (words kept whole),
    in the style it begins with, its next lines indented by ``indent`` where its words fit."""
    out: list[Fragments] = []
    for line in info:
        text = "".join(text for _style, text, *_rest in line)
        longest = max((get_cwidth(word) for word in text.split(" ")), default=0)
        out += [[(line[0][0], part)] if line else []
                for part in wrap(text, room, indent=indent if longest <= room - indent else 0)]
    return out


def _draw_flight(canvas: Canvas, effect: Effect, now: float, start: Place, end: Place,
                 taken: list[Box]) -> None:
    """The card on its way from its seat to the pile: a small face where the table is
    bare enough, else the card's label on one line, else nothing this frame. Drawn over a
    tile, the pile or a line of text, it broke a name or a frame."""
    p = min(max((now - effect.start) / FLIGHT, 0.0), 1.0)
    x = round(start.x + (end.x - start.x) * p)
    y = round(start.y + (end.y - start.y) * p)
    style = f"{card_style(effect.text)} class:face class:flying"
    face = cards.small(effect.text, style, False)
    label = card_label(effect.text)
    chip: list[Fragments] = [[(style, label)]]
    shapes = [(face, Box(x, y, cards.SMALL_WIDTH, len(face)))]
    shapes += [(chip, Box(x, y + dy, get_cwidth(label), 1)) for dy in (1, 0, 2)]
    for shape, box in shapes:
        if box.inside(canvas) and not any(box.meets(other) for other in taken):
            canvas.block(box.x, box.y, shape)
            return
