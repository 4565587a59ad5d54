"""Render callables: each reads :class:`UIState` and returns prompt_toolkit formatted text.

They are pure functions of the state (plus the clock the state carries), so tests call
them directly and compare plain text; every card is shown with a text label (``[R5]``)
as well as its color, so the table reads the same on a monochrome terminal.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples
from unolan.engine import Phase, Play

from .controller import FORM_FIELDS, form_value
from .state import COLOR_NAMES, UIState, card_label, card_name, card_style

Fragments = StyleAndTextTuples

KEYS_HELP: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("table", "At the table", [
        ("← → h l", "move along your hand"),
        ("1-9 0", "pick card 1-9 (0: the tenth)"),
        ("Enter", "play it (or the marked cards)"),
        ("Space", "mark a card: play several"),
        ("d", "draw (or take the penalty)"),
        ("k", "keep the card just drawn"),
        ("c", "challenge a Wild Draw Four"),
        ("u", "call UNO (on 2 cards: with"),
        ("", "  the next play)"),
        ("x", "catch a missed UNO call"),
        ("j", "jump in: the identical card"),
        ("r y g b", "color picker (or 1-4)"),
        ("0-9 ↑↓", "seat picker, Enter chooses"),
        ("s", "scoreboard"),
        ("t", "chat (Enter sends)"),
        ("Esc", "close / unmark"),
    ]),
    ("start", "Finding a game", [
        ("↑↓ Enter", "choose a LAN game, join it"),
        ("a", "type an address instead"),
        ("r", "search the LAN again"),
    ]),
    ("lobby", "In the lobby", [
        ("↑ ↓", "choose a room"),
        ("Enter", "join it as a player"),
        ("s", "spectate it"),
        ("r", "refresh the rooms"),
        ("c", "create a room: ↑ ↓ field,"),
        ("", "  ← → value, e name, Enter"),
        ("b -", "in a room: add/remove bot"),
        ("Space", "in a room: ready or not"),
        ("Enter", "in a room: start (host)"),
        ("Esc", "in a room: leave"),
    ]),
    ("any", "Anywhere", [
        ("?", "this help (Esc closes)"),
        ("Ctrl-C", "quit (q in the lobby)"),
    ]),
]


def _status(state: UIState) -> Fragments:
    style = {"connected": "class:status.ok", "connecting": "class:status.wait",
             "reconnecting": "class:status.bad", "offline": "class:status.bad"}
    detail = state.status_detail if state.status != "connected" else ""
    text = state.status + (f": {detail}" if detail else "")
    return [(style.get(state.status, ""), f"● {text}")]


def header(state: UIState) -> Fragments:
    out: Fragments = [("class:header.title", " unolan ")]
    room = state.room
    if room:
        out.append(("class:header", f" {room.get('name', state.room_id)} "))
    if state.view is not None:
        preset = state.view.rules.get("preset", "")
        out.append(("class:header", f"· {preset} · round {state.view.round} "))
    if state.address:
        out.append(("class:header", f"· {state.address} "))
    out.append(("class:header", "· "))
    out += _status(state)
    out.append(("class:header", "   ? keys"))
    return out


# -- the table ------------------------------------------------------------------------


def players(state: UIState) -> Fragments:
    v = state.view
    if v is None:
        return []
    out: Fragments = []
    catchable = set(state.catchable()) | set(v.catchable)
    rules_teams = v.rules.get("teams") or 0
    for seat, count in enumerate(v.counts):
        turn = seat == v.turn and v.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER)
        mine = seat == v.seat
        row = "class:turn" if turn else ""
        out.append(("class:turn.marker" if turn else "", "▶ " if turn else "  "))
        name = state.name_of(seat) if not mine else f"{state.names.get(seat, state.name)} (you)"
        out.append((row + (" class:me" if mine else ""), f"{seat} {name[:13]:<13} "))
        out.append(("class:tag", f"{'bot' if seat in state.bots else '':<4}"))
        out.append((row, f"{count:>3} card{'s' if count != 1 else ' '}"))
        score = v.scores[seat % len(v.scores)] if not rules_teams else v.scores[seat % rules_teams]
        out.append(("class:score", f" {score:>4}p"))
        if v.out[seat]:
            out.append(("class:tag", "  out"))
        elif count == 1 and v.called[seat]:
            out.append(("class:flag.uno", "  UNO!"))
        elif seat in catchable and count == 1:
            out.append(("class:flag.catch", " NO UNO!"))
        presence = state.presence.get(seat, "connected")
        if presence != "connected":
            out.append(("class:flag.away", f" {presence}"))
        out.append(("", "\n"))
    out.append(("", "\n"))
    out += table_info(state)
    return out


def table_info(state: UIState) -> Fragments:
    v = state.view
    assert v is not None
    out: Fragments = [("", " Top "), (card_style(v.top) + " class:card.top", card_label(v.top))]
    if v.color:
        out.append((f"class:card.{COLOR_NAMES[v.color]}", f" {COLOR_NAMES[v.color]}"))
    out.append(("", f"   {'↻ clockwise' if v.direction == 1 else '↺ counter-clockwise'}"))
    out.append(("", f"   draw pile {v.draw_count}\n"))
    if v.pending:
        out.append(("class:pending", f" Pending +{v.pending} for {state.name_of(v.turn)}"))
        if v.challengeable:
            out.append(("class:pending", " · challengeable"))
        out.append(("", "\n"))
    left = state.seconds_left()
    if left is not None and v.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER):
        style = "class:timer.low" if left <= 5 else "class:timer"
        out.append((style, f" ⏱ {left:>3}s for {state.name_of(v.turn)}\n"))
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

    jumps = state.jump_ins()
    if jumps:
        add("class:banner.jump", f"⚡ JUMP IN: j plays your {card_label(jumps[0].cards[0].text)}")
    for target in state.catchable():
        add("class:banner.catch", f"⚠ CATCH {state.name_of(target)}: press x!")
    if state.can_call_uno():
        add("class:banner.uno", "☝ ONE CARD: press u to call UNO!")
    elif state.uno_armed:
        add("class:banner.uno", "UNO will be called with this play")
    elif state.my_turn and len(v.hand) == 2 and any(
            isinstance(a, Play) and a.uno for a in state.legal()):
        add("class:banner.uno", "2 cards: press u, then play, to call UNO")
    if v.challengeable and state.my_turn and v.pending:
        add("class:banner.challenge", f"Wild Draw Four on you: c challenge · d draw {v.pending}")
    return out


def hand(state: UIState) -> Fragments:
    v = state.view
    if v is None:
        return []
    if v.seat is None:
        return [("class:hint", " Spectating: you see the table, not the hands.")]
    cards = state.hand()
    if not cards:
        return [("class:hint", " (no cards)")]
    playable = {c.text for a in state.legal() if isinstance(a, Play) for c in a.cards}
    out: Fragments = [("class:label", " Hand ")]
    for i, text in enumerate(cards):
        number = f"{(i + 1) % 10}" if i < 10 else " "
        style = card_style(text)
        if text in playable:
            style += " class:playable"
        else:
            style += " class:unplayable"
        if i in state.marked:
            style += " class:marked"
        if i == state.cursor:
            style += " class:cursor"
        mark = "*" if i in state.marked else ""
        out.append(("class:number", number))
        out.append((style, f"{mark}{card_label(text)}"))
        out.append(("", " "))
    return out


def hint(state: UIState) -> Fragments:
    v = state.view
    if v is None:
        return []
    cards = state.hand()
    chosen = cards[state.cursor] if 0 <= state.cursor < len(cards) else None
    about = f"{card_label(chosen)} {card_name(chosen)} · " if chosen else ""
    if v.phase is Phase.MATCH_OVER:
        return [("class:hint", " The match is over. s scoreboard · Ctrl-C quit")]
    if v.phase is Phase.ROUND_OVER:
        return [("class:hint", " Round over: the next round is dealt in a moment · s scoreboard")]
    if v.seat is None:
        return [("class:hint", f" {state.name_of(v.turn)}'s turn")]
    if state.sent is not None:
        return [("class:hint", f" {about}sent, waiting for the table…")]
    if not state.my_turn:
        return [("class:hint", f" {about}{state.name_of(v.turn)}'s turn · ? keys")]
    if v.phase is Phase.COLOR:
        return [("class:hint.turn", " Your turn: choose the color of the first card")]
    if v.phase is Phase.DRAWN:
        return [("class:hint.turn",
                 f" You drew {card_label(v.drawn or '?')}: Enter plays it · k keeps it")]
    if v.pending:
        extra = " · c challenge" if v.challengeable else ""
        return [("class:hint.turn",
                 f" +{v.pending} on you: d draws them · Enter stacks a penalty card{extra}")]
    return [("class:hint.turn", f" Your turn: {about}Enter play · Space mark · d draw · ? keys")]


def log(state: UIState) -> Fragments:
    out: Fragments = [("class:pane.title", " Log\n")]
    for text, style in list(state.log)[-60:]:
        out.append((f"class:log.{style}" if style else "class:log", f" {text}\n"))
    out.append(("[SetCursorPosition]", ""))
    return out


def chat(state: UIState) -> Fragments:
    out: Fragments = [("class:pane.title", " Chat (t)\n")]
    for who, text in list(state.chat)[-20:]:
        out.append(("class:chat.name", f" {who}: "))
        out.append(("class:chat", f"{text}\n"))
    out.append(("[SetCursorPosition]", ""))
    return out


def notices(state: UIState) -> Fragments:
    out: Fragments = []
    for notice in state.current_notices()[-2:]:
        if out:
            out.append(("", "\n"))
        out.append((f"class:notice.{notice.style}", f" {notice.text}"))
    return out


# -- overlays ---------------------------------------------------------------------------


def picker(state: UIState) -> Fragments:
    p = state.picker
    if p is None:
        return []
    v = state.view
    out: Fragments = [("class:overlay.title", f" {p.title}\n\n")]
    for i, option in enumerate(p.options):
        sel = " class:cursor" if i == p.cursor else ""
        if p.kind in ("color", "first_color"):
            name = COLOR_NAMES[option]
            out.append((f"class:card.{name}{sel}", f"  {option.lower()}  {name:<8}\n"))
        else:
            count = v.counts[option] if v is not None else 0
            out.append(("class:overlay" + sel,
                        f"  {option}  {state.name_of(option):<16} {count:>3} cards\n"))
    keys = "r y g b" if p.kind in ("color", "first_color") else "seat number"
    out.append(("class:overlay.hint", f"\n {keys} or ↑ ↓ Enter · Esc cancel"))
    return out


def help_text(state: UIState, part: str = "table") -> Fragments:
    """One column of the help overlay: ``table`` keys, or ``lobby`` plus ``any``."""
    out: Fragments = []
    for section, title, keys in KEYS_HELP:
        if (section == "table") != (part == "table"):
            continue
        out.append(("class:overlay.section", f" {title}\n"))
        for key, meaning in keys:
            out.append(("class:overlay.key", f" {key:<9}"))
            out.append(("class:overlay", f"{meaning}\n"))
        out.append(("class:overlay", "\n"))
    return out


def scoreboard(state: UIState) -> Fragments:
    v = state.view
    out: Fragments = []
    result, match = state.round_result, state.match_result
    if match is not None:
        out.append(("class:overlay.title", f" {state.name_of(match.get('winner'))} won the match!\n"))
    if result is not None:
        out.append(("class:overlay.title",
                     f" Round {result.get('round', '')}: {state.name_of(result.get('winner'))}"
                     f" won +{result.get('points')}\n\n"))
    else:
        out.append(("class:overlay.title", " Scores\n\n"))
    scores = list((match or result or {}).get("scores") or (v.scores if v else ()))
    hands = list((result or {}).get("hands") or ())
    out.append(("class:overlay.section", f"  {'seat':<5}{'player':<18}{'total':>7}   left in hand\n"))
    for i, score in enumerate(scores):
        left = " ".join(card_label(c) for c in hands[i]) if i < len(hands) else ""
        out.append(("class:overlay", f"  {i:<5}{state.name_of(i)[:17]:<18}{score:>7}   {left[:40]}\n"))
    out.append(("class:overlay.hint", "\n s or Esc closes"))
    return out


# -- the lobby --------------------------------------------------------------------------


def lobby(state: UIState) -> Fragments:
    if state.form is not None:
        return create_form(state)
    if state.room is not None:
        return room(state)
    out: Fragments = [("class:pane.title", f" Rooms on {state.address or 'the server'}\n\n")]
    if state.status != "connected":
        out.append(("class:hint", f" {state.status}…\n"))
    if not state.rooms:
        out.append(("class:hint", " No rooms yet. Press c to create one.\n"))
    for i, r in enumerate(state.rooms):
        sel = "class:cursor" if i == state.room_cursor else ""
        flags = (" started" if r.get("started") else "") + (" 🔒" if r.get("password") else "")
        out.append((sel, f" {'▶' if sel else ' '} {r['name'][:24]:<24} {r.get('preset', ''):<9}"
                         f" {r.get('players', 0)}/{r.get('seats', 0)} players"
                         f" {r.get('spectators', 0)} watching{flags}\n"))
    out.append(("class:hint", "\n ↑ ↓ choose · Enter join · s spectate · c create · r refresh"
                              " · ? keys · q quit"))
    return out


def create_form(state: UIState) -> Fragments:
    f = state.form
    assert f is not None
    out: Fragments = [("class:pane.title", " Create a room\n\n"),
                      ("", f"   name          {f.name}   (e edits)\n")]
    for i, (name, _) in enumerate(FORM_FIELDS):
        sel = i == f.field_index
        value = form_value(f, name)
        shown = value
        if value is True or value is False:
            shown = "on" if value else "off"
        elif name == "timer":
            shown = f"{value}s per turn" if value else "none"
        out.append(("class:cursor" if sel else "",
                    f" {'▶' if sel else ' '} {name.replace('_', ' '):<13} ‹ {shown} ›\n"))
    out.append(("class:hint", "\n ↑ ↓ field · ← → value · e name · Enter create · Esc cancel"))
    return out


def room(state: UIState) -> Fragments:
    r = state.room
    assert r is not None
    rules = r.get("rules") or {}
    preset = rules.get("preset", "") if isinstance(rules, dict) else ""
    out: Fragments = [("class:pane.title", f" Room {r.get('name')}  ({r.get('room')})  {preset}"
                                            f"{'  timer ' + str(r.get('timer')) + 's' if r.get('timer') else ''}\n\n")]
    for entry in r.get("seats", ()):
        seat = entry["seat"]
        host = " host" if seat == r.get("host") else ""
        me = " (you)" if seat == state.my_seat else ""
        if entry.get("kind") == "empty":
            out.append(("class:hint", f"   {seat}  (empty)\n"))
            continue
        ready = "ready" if entry.get("ready") or entry.get("kind") == "bot" else "not ready"
        out.append(("", f"   {seat}  {(entry.get('name') or '?')[:18]:<18}{me:<6} "
                        f"{entry.get('kind'):<6} {ready:<10} {entry.get('state', '')}{host}\n"))
    out.append(("", f"\n   {r.get('spectators', 0)} watching\n"))
    host = r.get("host") == state.my_seat
    keys = "b add bot · - remove bot · Enter start · " if host else ""
    out.append(("class:hint", f"\n {keys}Space ready · t chat · Esc leave · ? keys"))
    return out
