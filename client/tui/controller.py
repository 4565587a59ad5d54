"""What each key does, as plain methods over :class:`UIState` (no prompt_toolkit here).

Every game action the controller sends is one of ``View.legal_actions()``: the UI never
offers an illegal move. When a choice is missing (the color of a wild, the target of a
seven or a targeted card, which of two players to catch) a picker opens first; when the
key cannot do anything now, a message says why instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from unolan.client.i18n import _
from unolan.engine import (
    Action,
    CallUno,
    Card,
    Catch,
    Challenge,
    ChooseColor,
    Color,
    Draw,
    Pass,
    Phase,
    Play,
)

from .form import FIELDS, PASSWORD_LENGTH, CreateForm, label, typable
from .state import (
    Act,
    Ask,
    Choice,
    Command,
    Picker,
    Request,
    Say,
    UIState,
    card_label,
    clean_text,
    color_word,
)


class Controller:
    def __init__(self, state: UIState, send: Callable[[Command], None]) -> None:
        self.state = state
        self._send = send

    def send(self, command: Command) -> None:
        if isinstance(command, Act):  # only a game action waits for the table's answer
            self.state.sent = command
        self._send(command)

    def act(self, action: Action) -> None:
        if isinstance(action, Play):  # an armed UNO call rides on the play (or not) and is spent
            self.state.uno_armed = False
        self.state.show_scores = False  # playing on: the last round's scores make way
        self.send(Act(action))

    # -- choosing cards ---------------------------------------------------------------

    def move(self, step: int) -> None:
        n = len(self.state.hand())
        if n:
            self.state.cursor = (self.state.cursor + step) % n

    def select(self, number: int) -> None:
        """Number keys: 1..9 pick that card, 0 the tenth; the same digit again goes ten
        cards on (3, 3: the 13th), round to the first again after the last."""
        s, n = self.state, len(self.state.hand())
        index = 9 if number == 0 else number - 1
        if index >= n:
            s.notify(_("there is no card {number}").format(number=number))
        elif s.cursor % 10 == index and s.cursor + 10 < n:
            s.cursor += 10
        else:
            s.cursor = index

    def toggle_mark(self) -> None:
        s = self.state
        if not s.hand():
            return
        if s.cursor in s.marked:
            s.marked.remove(s.cursor)
        else:
            s.marked.append(s.cursor)
        s.drop_notices("play")  # why the last choice could not be played: a new choice now

    def _chosen(self) -> list[str]:
        s, hand = self.state, self.state.hand()
        if s.marked:
            return [hand[i] for i in s.marked if i < len(hand)]
        return [hand[s.cursor]] if 0 <= s.cursor < len(hand) else []

    # -- playing ----------------------------------------------------------------------

    def play(self) -> None:
        """Enter: play the marked cards (or the one under the cursor)."""
        s = self.state
        if s.view is not None and s.view.phase is Phase.MATCH_OVER:
            self.after_match(to_lobby=False)
            return
        if s.view is None or s.view.seat is None:
            s.notify(_("you are watching: spectators do not play"))
            return
        chosen = self._chosen()
        if not chosen:
            return
        want = Counter(chosen)
        plays = [a for a in s.legal() if isinstance(a, Play)
                 and Counter(c.text for c in a.cards) == want]
        if not plays:
            s.notify(self._why_not(chosen), topic="play")
            return
        first = [a for a in plays if a.cards[0].text == chosen[0]]
        self._finish(first or plays)

    def jump_in(self) -> None:
        """j: play the card identical to the top discard, out of turn."""
        s, v = self.state, self.state.view
        jumps = s.jump_ins()
        if not jumps:
            if v is None or v.seat is None or v.top is None:
                s.notify(_("no jump-in: you are not at a table in play"))
            elif s.my_turn:
                s.notify(_("it is your turn: just play (Enter)"))
            elif v.top in v.hand:  # held, yet refused: the engine says why
                s.notify(_("no jump-in: {reason}").format(
                    reason=s.refusal(Play(v.seat, (Card.parse(v.top),)))))
            else:
                s.notify(_("no jump-in: you need a card identical to {card}").format(card=card_label(v.top)))
            return
        single = [a for a in jumps if len(a.cards) == 1]
        self._finish(single or jumps)

    def offer(self, plays: Sequence[Play]) -> None:
        """Play one of ``plays`` (legal plays of the same cards), asking first for a color
        or a target they leave open, as Enter does (the plain mode's numbered plays)."""
        self._finish(plays)

    def _finish(self, plays: Sequence[Play]) -> None:
        """Narrow the candidate plays by color, then target, then UNO; ask when needed."""
        s = self.state
        colors = list(dict.fromkeys(a.color for a in plays if isinstance(a, Play)))
        if len(colors) > 1:
            cards = plays[0].cards
            title = (_("Choose a color") if cards[0].is_wild else
                     _("{cards}: which color continues?").format(
                         cards=" ".join(card_label(c.text) for c in cards)))
            s.picker = Picker(Choice.COLOR, [c.value for c in colors if c], plays, title)
            return
        targets = list(dict.fromkeys(a.target for a in plays if isinstance(a, Play)))
        if len(targets) > 1:
            s.picker = Picker(Choice.SEAT, [t for t in targets if t is not None], plays,
                              _("Choose a player for {card}").format(card=card_label(plays[0].cards[0].text)))
            return
        unos = [a for a in plays if isinstance(a, Play) and a.uno]
        plain = [a for a in plays if not (isinstance(a, Play) and a.uno)]
        action = unos[0] if (s.uno_armed and unos) or not plain else plain[0]
        s.picker = None
        s.marked = []
        self.act(action)

    def _why_not(self, chosen: list[str]) -> str:
        """Why no legal play is made of the chosen cards: out of turn, whose turn it is
        (or the jump-in open to this seat); in turn, or out of turn with the top card's
        twin, the engine's reason."""
        s, v = self.state, self.state.view
        assert v is not None and v.seat is not None
        if v.turn != v.seat and v.phase not in (Phase.ROUND_OVER, Phase.MATCH_OVER) and chosen[0] != v.top:
            if s.jump_ins():
                return _("not your turn: only a jump-in with {card} (j)").format(
                    card=card_label(v.top or "?"))
            return _("not your turn: it is {who}'s turn").format(who=s.name_of(v.turn))
        if len(chosen) == 1 and (leads := multi_leads(s.legal(), chosen[0])):
            lead = _(" or ").join(card_label(c) for c in leads)
            return _("{card} cannot be played alone, only after {lead} in one play: mark both "
                     "with Space, then Enter").format(card=card_label(chosen[0]), lead=lead)
        reason = s.play_refusal(tuple(Card.parse(c) for c in chosen)) or _(_("not possible now"))
        return reason + (_(" — or keep it (k)") if v.phase is Phase.DRAWN else "")

    def _act_if(self, kind: type) -> bool:
        """Send this seat's legal action of ``kind``, if it has one now."""
        action = self.state.can(kind)
        if action is not None:
            self.act(action)
        return action is not None

    def draw(self) -> None:
        s = self.state
        if self._act_if(Draw):
            return
        if s.can(Pass) is not None:
            s.notify(_("you already drew: play it (Enter) or keep it (k)"))
        else:
            s.notify(self._not_now())

    def keep(self) -> None:
        if not self._act_if(Pass):
            self.state.notify(_("nothing to keep: k keeps a card you just drew"))

    def challenge(self) -> None:
        if not self._act_if(Challenge):
            self.state.notify(_("nothing to challenge: only a Wild Draw Four aimed at you"))

    def uno(self) -> None:
        """u: call UNO on one card. On two (or with a play to one now) the call is armed
        and rides on the next play that leaves one card, in turn or as a jump-in. Any
        other call is the engine's to judge: refused (its reason is shown), or under
        ``false_uno_penalty`` taken as a false call, sent only when u is pressed again."""
        s, v = self.state, self.state.view
        if self._act_if(CallUno):
            return
        if v is None or v.seat is None:
            s.notify(_("you are watching: spectators do not play"))
            return
        plays = [a for a in s.legal() if isinstance(a, Play) and a.uno]
        if plays or len(v.hand) == 2:
            s.uno_armed = not s.uno_armed  # the banner says so while it is armed
            if not s.uno_armed:
                s.notify(_("UNO call cancelled"), "info", 3, topic="uno")
            return
        call = CallUno(v.seat)
        refused = s.refusal(call)
        if refused:
            s.notify(_("no UNO call now: {reason}").format(reason=refused), topic="uno")
        elif s.false_call is v:  # pressed again on the same table: the player means it
            s.false_call = None
            self.act(call)
        else:
            s.false_call = v
            s.notify(_("You hold {count} cards: a call now is a false UNO and costs {penalty} "
                       "cards. Press u again to call anyway").format(
                           count=len(v.hand), penalty=v.rules.get("uno_penalty", "?")), topic="uno")

    def catch(self) -> None:
        s = self.state
        catches = [a for a in s.legal() if isinstance(a, Catch)]
        if not catches:
            s.notify(_("nobody to catch: only a player on one card who has not called UNO"))
        elif len(catches) == 1:
            self.act(catches[0])
        else:
            s.picker = Picker(Choice.CATCH, [a.target for a in catches], catches, _("Catch whom?"))

    def _not_now(self) -> str:
        v = self.state.view
        if v is None:
            return _("no game yet")
        if v.turn != v.seat:
            return _("not your turn: it is {who}'s turn").format(who=self.state.name_of(v.turn))
        if v.phase is Phase.COLOR:
            return _("choose the color of the first card first")
        return _("not possible now")

    def first_color(self) -> None:
        """When a Wild is turned up first, the first player names the color."""
        s = self.state
        choices = [a for a in s.legal() if isinstance(a, ChooseColor)]
        if choices and s.picker is None:
            s.picker = Picker(Choice.FIRST_COLOR, [a.color.value for a in choices], choices,
                              _("The first card is a Wild: choose its color"))

    # -- pickers ------------------------------------------------------------------------

    def pick(self, value: object = None) -> None:
        """Choose ``value`` (or the option under the picker's cursor)."""
        s, p = self.state, self.state.picker
        if p is None:
            return
        if value is None:
            value = p.options[p.cursor]
        if value not in p.options:
            shown = color_word(str(value)) if p.kind.names_color else value
            s.notify(_("{value} is not one of the choices").format(value=shown))
            return
        if p.kind is Choice.COLOR:
            color = Color(value)
            self._finish([a for a in p.plays if isinstance(a, Play) and a.color is color])
        elif p.kind is Choice.SEAT:
            self._finish([a for a in p.plays if isinstance(a, Play) and a.target == value])
        else:  # catch, first_color
            s.picker = None
            for a in p.plays:
                if (isinstance(a, Catch) and a.target == value) or (
                        isinstance(a, ChooseColor) and a.color.value == value):
                    self.act(a)
                    return

    def pick_move(self, step: int) -> None:
        p = self.state.picker
        if p is not None and p.options:
            p.cursor = (p.cursor + step) % len(p.options)

    def cancel(self) -> None:
        s = self.state
        if s.help_open:
            s.help_open = False
        elif s.picker is not None:
            s.picker = None
        elif s.marked:
            s.marked = []
        elif s.show_scores and s.view is not None and s.view.phase is not Phase.MATCH_OVER:
            s.show_scores = False  # as its footer says (after the match, Esc is to the lobby)
        elif s.view is not None and s.view.seat is None:
            self.leave()  # a spectator: back to the lobby, match or not
        elif s.view is not None and s.view.phase is Phase.MATCH_OVER:
            self.after_match(to_lobby=True)
        s.uno_armed = False

    # -- chat and the input line -------------------------------------------------------

    def submit_input(self, text: str) -> None:
        s = self.state
        mode, s.input_mode = s.input_mode, None
        text = clean_text(text)  # pasted text may hold terminal escape sequences
        if mode == "chat" and text:
            self.send(Say(text[:300]))
        elif mode == "room_name" and text and s.form is not None:
            s.form.name = text[:40]
        elif mode == "room_password" and s.form is not None:  # empty: no password
            s.form.password = text[:PASSWORD_LENGTH]
        elif mode == "join_password" and s.joining is not None:
            if text:
                request = s.joining
                self.send(Request(request.kind, {**request.params, "password": text[:PASSWORD_LENGTH]}))
            else:
                s.joining = None
        elif mode == "form_value" and text and s.form is not None:
            self.form_set(text)

    # -- autopilot and the match's end ----------------------------------------------------

    def take_back(self) -> None:
        """b: after missed turns the server plays for us; say we are here again."""
        s = self.state
        if s.view is None or s.view.seat is None or s.my_presence != "autopilot":
            s.notify(_("b takes your seat back when the server plays for you (autopilot)"), "info")
            return
        self.send(Request(Ask.READY, {"ready": True}))

    def after_match(self, to_lobby: bool) -> None:
        """After the match: back to the room (players), or out to the lobby."""
        s = self.state
        if s.view is None or s.view.phase is not Phase.MATCH_OVER:
            return
        if to_lobby or s.view.seat is None:
            self.leave()
        else:
            s.leave_match()

    # -- lobby --------------------------------------------------------------------------

    def refresh_rooms(self) -> None:
        self.send(Request(Ask.LIST_ROOMS))

    def room_move(self, step: int) -> None:
        s = self.state
        if s.rooms:
            s.room_cursor = (s.room_cursor + step) % len(s.rooms)

    def join_room(self, role: str = "player") -> None:
        s = self.state
        if not s.rooms:
            s.notify(_("no rooms yet: create one (c)"))
            return
        room = s.rooms[min(s.room_cursor, len(s.rooms) - 1)]
        if role == "player" and room.get("started"):
            s.notify(_("that game has started: spectate it (s)"))
            return
        request = Request(Ask.JOIN, {"room": room["room"], "role": role})
        if room.get("password"):  # asked first; sent with the join
            s.ask_password(request)
        else:
            self.send(request)

    def open_form(self) -> None:
        self.state.form = CreateForm(name=_("{name}'s table").format(name=self.state.name)[:40])

    def close_form(self) -> None:
        """Back to the lobby, no room created."""
        self.state.form = None

    def form_move(self, step: int) -> None:
        f = self.state.form
        if f is not None:
            f.field_index = (f.field_index + step) % len(FIELDS)

    def form_change(self, step: int) -> None:
        if self.state.form is not None:
            self.state.form.step(step)

    def form_edit(self) -> str | None:
        """e: the input line for the room's name, or for the number under the cursor
        (the input mode to open, None when the field is chosen with ← →)."""
        f = self.state.form
        if f is None:
            return None
        if not typable(f.field):
            self.state.notify(_("{field} is chosen with ← →").format(field=label(f.field)), "info")
            return None
        return {"name": "room_name", "password": "room_password"}.get(f.field, "form_value")

    def form_set(self, text: str) -> None:
        f = self.state.form
        problem = f.typed(text) if f is not None else None
        if problem:
            self.state.notify(problem)

    def create_room(self) -> None:
        s, f = self.state, self.state.form
        if f is None:
            return
        problem = f.problem()
        if problem:
            s.notify(_("Not created: {problem}.").format(problem=problem), topic="create")
            return
        self.send(Request(Ask.CREATE_ROOM, f.request()))
        s.form = None

    def add_bot(self) -> None:
        self.send(Request(Ask.ADD_BOT))

    def remove_bot(self) -> None:
        s = self.state
        bots = sorted(s.bots)
        if not bots:
            s.notify(_("no bot to remove"))
            return
        self.send(Request(Ask.REMOVE_BOT, {"seat": bots[-1]}))

    def ready(self) -> None:
        s = self.state
        me = s.my_seat
        if me is None:
            s.notify(_("you are watching: spectators do not sit at the table"), "info")
            return
        ready = False
        for entry in (s.room or {}).get("seats", ()):
            if entry["seat"] == me:
                ready = bool(entry.get("ready"))
        self.send(Request(Ask.READY, {"ready": not ready}))

    def start(self) -> None:
        s = self.state
        if s.room is not None and s.room.get("host") not in (None, s.my_seat):
            s.notify(_("only the host starts the game"))
            return
        self.send(Request(Ask.START))

    def leave(self) -> None:
        self.send(Request(Ask.LEAVE))
        self.state.forget_room()


def multi_leads(legal: list[Action], card: str) -> list[str]:
    """The cards a multi-play must start with to take ``card`` along, when ``card``
    cannot be played alone (else none)."""
    plays = [a for a in legal if isinstance(a, Play)]
    if any(len(a.cards) == 1 and a.cards[0].text == card for a in plays):
        return []
    return list(dict.fromkeys(a.cards[0].text for a in plays
                              if len(a.cards) > 1 and card in (c.text for c in a.cards[1:])))
