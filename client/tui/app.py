"""The full-screen prompt_toolkit application: layout tree, key bindings, style.

The layout is declarative and every window's content is a render callable over the
:class:`UIState`; key bindings call :class:`Controller` methods, gated by filters on the
state (which screen, whether a picker, the help or the input line is open).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.cache import SimpleCache
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, Filter
from prompt_toolkit.formatted_text import AnyFormattedText, StyleAndTextTuples, to_formatted_text
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    Container,
    DynamicContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    ScrollOffsets,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl, UIContent
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.processors import BeforeInput, ConditionalProcessor, PasswordProcessor
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.widgets import Frame
from unolan.client import i18n

from . import other_panel, render, start, themes
from .controller import Controller
from .form import label
from .state import Back, UIState


def _text(fn: Callable[[UIState], AnyFormattedText], state: UIState, **kw: Any) -> FormattedTextControl:
    return FormattedTextControl(lambda: fn(state), **kw)


class FittedText(FormattedTextControl):
    """Formatted text made for the width it is drawn at: the render callable gets that
    width, so it can fit a line or wrap by words (prompt_toolkit wraps by characters)."""

    def __init__(self, fn: Callable[[UIState, int], StyleAndTextTuples], state: UIState,
                 **kw: Any) -> None:
        self.width, self.height = 80, 0
        self._fitted: SimpleCache[tuple[int, int, int], StyleAndTextTuples] = SimpleCache(maxsize=4)
        super().__init__(lambda: fn(state, self.width), **kw)

    def _get_formatted_text_cached(self) -> StyleAndTextTuples:
        # Once per render and size (the base class keeps it per render only).
        return self._fitted.get((get_app().render_counter, self.width, self.height),
                                lambda: to_formatted_text(self.text, self.style))

    def preferred_width(self, max_available_width: int) -> int:
        return max_available_width  # it fits whatever it is given

    def create_content(self, width: int, height: int | None) -> UIContent:
        self.width, self.height = width, height or 0
        return super().create_content(width, height)


SCORES_FROM = 36  # a table this tall shows the scores beside the log


def side_width(width: int) -> int:
    """The log's column beside a table ``width`` cells wide: a third, from 24 to 64."""
    return max(24, min(64, width // 3))


class Measured(HSplit):
    """An HSplit that keeps the size it is drawn at, for a child whose height depends on
    it (the hand: card faces where the table keeps its room, a line of labels where not)."""

    size = (80, 22)

    def write_to_screen(self, screen: Screen, mouse_handlers: MouseHandlers,
                        write_position: WritePosition, parent_style: str, erase_bg: bool,
                        z_index: int | None) -> None:
        self.size = (write_position.width, write_position.height)
        super().write_to_screen(screen, mouse_handlers, write_position, parent_style, erase_bg, z_index)


class FrameClock:
    """Draws the table again while something on it moves: one timer on the event loop at
    a time, so motion never holds a key or the game back."""

    def __init__(self, state: UIState) -> None:
        self.state = state
        self.pending: asyncio.TimerHandle | None = None

    def schedule(self, app: Application[int]) -> None:
        if self.pending is not None:
            return
        delay = self.state.motion.next_frame(self.state.clock())
        if delay is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # drawn outside a loop (a test's screen): nothing to schedule
            return

        def frame() -> None:
            self.pending = None
            app.invalidate()

        self.pending = loop.call_later(max(delay, 0.0), frame)


def _too_small() -> Window:
    """What a pane shows where the terminal is smaller than the table can be drawn in."""
    return Window(FormattedTextControl(lambda: [("class:notice.error", " " + i18n._(
        "The window is too small: unolan needs at least {width}x{height}").format(
            width=render.MIN_WIDTH, height=render.MIN_HEIGHT))]), wrap_lines=True)


def _modal(box: Frame, shown: Filter, top: int | None = None) -> Float:
    """A pop-up box over the screen's whole width: the rows it takes are blanked beside
    it, so no cut piece of the log or the table (nor half of a wide character, which
    would take the box's border with it) shows along its edges."""
    return Float(ConditionalContainer(VSplit([Window(char=" "), box, Window(char=" ")]), filter=shown),
                 left=0, right=0, top=top)


def build_app(
    state: UIState,
    controller: Controller,
    on_quit: Callable[[], None] | None = None,
    **app_kwargs: Any,
) -> Application[int]:
    """The application. ``on_quit`` runs on Ctrl-C (and q in the lobby) before it exits."""
    s, c = state, controller
    keys = start.StartKeys(s, c.send)

    # -- filters -------------------------------------------------------------------
    typing = Condition(lambda: s.input_mode is not None)
    overlay = Condition(lambda: s.help_open)
    picking = Condition(lambda: s.picker is not None and not s.help_open)
    at_table = Condition(lambda: s.view is not None)
    free = ~typing & ~overlay & ~picking
    table = free & at_table
    scores_open = Condition(lambda: s.show_scores)
    in_form = free & ~at_table & Condition(lambda: s.form is not None)
    in_room = free & ~at_table & Condition(lambda: s.form is None and s.room is not None)
    finding = Condition(lambda: s.start is not None)  # the start screen: games on the LAN
    in_start = free & finding
    in_lobby = free & ~at_table & ~finding & Condition(lambda: s.form is None and s.room is None)

    # -- the input line (chat, room name) ---------------------------------------------
    def accept(buf: Buffer) -> bool:
        (keys.submit_address if s.input_mode == "address" else c.submit_input)(buf.text)
        app.layout.focus(home)
        return False  # clears the buffer

    input_buffer = Buffer(multiline=False, accept_handler=accept)

    def input_prompt() -> str:
        if s.input_mode == "form_value" and s.form is not None:
            return f" {label(s.form.field)}> "
        words = {"chat": i18n.N_("chat"), "address": i18n.N_("address"), "room_name": i18n.N_("room name"),
                 "room_password": i18n.N_("password (empty: none)"),
                 "join_password": i18n.N_("the room's password")}
        return f" {i18n._(words.get(s.input_mode or '', words['room_name']))}> "

    secret = Condition(lambda: s.input_mode in ("room_password", "join_password"))
    input_window = Window(
        BufferControl(input_buffer, input_processors=[  # the prompt itself is not masked
            ConditionalProcessor(PasswordProcessor(), secret), BeforeInput(input_prompt)]),
        height=1, style="class:input",
    )

    def follow_input(app: Application[int]) -> None:
        """The input line has the focus while it is open, also when the networking side
        opened it (a wrong password asks again)."""
        if s.input_mode is not None and not app.layout.has_focus(input_window):
            app.layout.focus(input_window)

    # -- layout -------------------------------------------------------------------------
    # Always in the layout, so focus can rest on it whichever screen is shown.
    home = Window(FittedText(render.header, s, focusable=True, show_cursor=False), height=1,
                  style="class:header")
    players_text = FittedText(lambda state, width: render.players(state, width, players_text.height), s)
    main_window = Window(players_text, wrap_lines=False)
    # 12 lines of log and 5 of chat at 80x24; a taller terminal gives both more, alike.
    log_window = Window(FittedText(render.log, s), wrap_lines=True,
                        height=D(min=3, preferred=12, weight=1))
    chat_window = Window(FittedText(render.chat, s), wrap_lines=True,
                         height=D(min=2, preferred=5, weight=1))
    # A two-table room: the other table in two lines under this one.
    other_window = ConditionalContainer(
        Window(FittedText(other_panel.panel, s), height=2, wrap_lines=False),
        filter=Condition(lambda: s.other_table is not None))
    tall = Condition(lambda: table_body.size[1] >= SCORES_FROM)
    # The column beside the table: one panel under the other (another panel, such as a
    # second table, goes in this list).
    side_panels: list[Container] = [
        log_window, Window(height=1, char="─", style="class:hint"), chat_window,
        ConditionalContainer(HSplit([
            Window(height=1, char="─", style="class:hint"),
            Window(FittedText(render.standings, s), dont_extend_height=True),
        ]), filter=tall),
    ]
    hand_text = FittedText(lambda state, width: render.hand(state, width, hand_text.height), s)
    table_body = Measured([
        VSplit([
            HSplit([main_window, other_window], width=D(weight=2, min=46), window_too_small=_too_small()),
            Window(width=1, char="│", style="class:hint"),
            HSplit(side_panels, width=lambda: D.exact(side_width(table_body.size[0])),
                   window_too_small=_too_small()),
        ], window_too_small=_too_small()),
        Window(_text(render.banners, s), height=D(min=0, max=2), wrap_lines=True,
               dont_extend_height=True),
        Window(hand_text, height=lambda: D.exact(render.hand_height(s, *table_body.size))),
        Window(FittedText(render.hint, s), height=1),
    ], window_too_small=_too_small())
    # It scrolls to the create form's field under the cursor, showing the lines below it.
    lobby_window = Window(FittedText(render.lobby, s), wrap_lines=True,
                          scroll_offsets=ScrollOffsets(top=1, bottom=3))
    in_a_room = Condition(lambda: s.room is not None and s.form is None)
    lobby_body = HSplit([
        VSplit([lobby_window, ConditionalContainer(VSplit([  # chat is a room's
            Window(width=1, char="│", style="class:hint"),
            Window(FittedText(render.chat, s), wrap_lines=True, width=D(weight=1, max=30)),
        ]), filter=in_a_room)]),
        Window(FittedText(render.lobby_keys, s), height=D(min=1, max=3), dont_extend_height=True),
    ], window_too_small=_too_small())

    start_body = Window(FittedText(start.render, s), wrap_lines=True)

    def body() -> HSplit | Window:
        if s.view is not None:
            return table_body
        return start_body if s.start is not None else lobby_body

    help_window = Window(FittedText(render.help_page, s), width=D(max=render.HELP_WIDTH))

    root = FloatContainer(
        content=HSplit([
            home,
            DynamicContainer(body),
            ConditionalContainer(input_window, filter=typing),
            Window(FittedText(render.notices, s), height=D(min=1, max=render.NOTICE_LINES),
                   dont_extend_height=True),
        ], window_too_small=_too_small()),
        floats=[
            _modal(Frame(Window(_text(render.scoreboard, s), width=render.SCOREBOARD_WIDTH, dont_extend_height=True),
                         style="class:overlay"),
                   scores_open & at_table & ~overlay & ~picking, top=2),
            _modal(Frame(Window(_text(render.picker, s), width=render.PICKER_WIDTH, dont_extend_height=True),
                         style="class:overlay"), picking),
            _modal(Frame(help_window, title=render.help_title, style="class:overlay"), overlay, top=0),
        ],
    )

    kb = KeyBindings()

    def quit_app(event: KeyPressEvent) -> None:
        s.quitting = True
        if on_quit is not None:
            on_quit()
        future = event.app.future
        if event.app.is_running and future is not None and not future.done():
            event.app.exit(result=0)

    kb.add("c-c", eager=True)(quit_app)
    kb.add(Keys.SIGINT, eager=True)(quit_app)  # kill -INT: as Ctrl-C
    kb.add("q", filter=in_lobby)(quit_app)

    # Mouse reports are off; a pasted escape sequence that looks like one (ESC [ 3 1 m)
    # is dropped here instead of reaching prompt_toolkit's mouse parser.
    @kb.add(Keys.Vt100MouseEvent, eager=True)
    def _(event: KeyPressEvent) -> None:
        pass

    @kb.add("?", filter=~typing)
    def _(event: KeyPressEvent) -> None:
        s.help_open = not s.help_open
        s.help_scroll = 0

    def scroll_help(step: int) -> None:
        info = help_window.render_info  # the width it was drawn at
        width = info.window_width if info is not None else get_app().output.get_size().columns - 2
        s.help_scroll = max(0, min(s.help_scroll + step, render.help_height(width) - 1))

    for key, step in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10)):
        kb.add(key, filter=overlay & ~typing)(lambda e, step=step: scroll_help(step))

    @kb.add("L", filter=overlay & ~typing)
    def _(event: KeyPressEvent) -> None:
        """The help overlay switches the language: every screen speaks it from the next frame."""
        i18n.set_language(i18n.next_language())
        s.relabel()

    @kb.add("escape", filter=~typing, eager=True)
    def _(event: KeyPressEvent) -> None:
        if s.form is not None and not s.help_open:
            c.close_form()
        elif s.room is not None and s.view is None and not s.help_open:
            c.leave()
        elif s.from_start and s.room is None and s.view is None and s.start is None and not s.help_open:
            c.send(Back())  # the lobby of a game chosen on the LAN: back to the list
        else:
            c.cancel()

    @kb.add("escape", filter=typing, eager=True)
    def _(event: KeyPressEvent) -> None:
        if s.input_mode == "join_password":
            s.joining = None  # back to the rooms
        s.input_mode = None
        input_buffer.reset()
        event.app.layout.focus(home)

    # -- the table ------------------------------------------------------------------
    for key, step in (("left", -1), ("h", -1), ("right", 1), ("l", 1)):
        kb.add(key, filter=table)(lambda e, step=step: c.move(step))
    for digit in range(10):
        kb.add(str(digit), filter=table)(lambda e, d=digit: c.select(d))
    kb.add("space", filter=table)(lambda e: c.toggle_mark())
    kb.add("enter", filter=table)(lambda e: c.play())
    kb.add("d", filter=table)(lambda e: c.draw())
    kb.add("k", filter=table)(lambda e: c.keep())
    kb.add("c", filter=table)(lambda e: c.challenge())
    kb.add("u", filter=table)(lambda e: c.uno())
    kb.add("x", filter=table)(lambda e: c.catch())
    kb.add("j", filter=table)(lambda e: c.jump_in())
    kb.add("b", filter=table)(lambda e: c.take_back())

    @kb.add("s", filter=table)
    def _(event: KeyPressEvent) -> None:
        s.show_scores = not s.show_scores

    @kb.add("t", filter=free & ~finding)
    def _(event: KeyPressEvent) -> None:
        s.input_mode = "chat"
        event.app.layout.focus(input_window)

    # -- pickers ----------------------------------------------------------------------
    for letter in "RYGB":
        kb.add(letter.lower(), filter=picking)(lambda e, v=letter: c.pick(v))

    def pick_digit(digit: int) -> None:
        p = s.picker
        if p is None:
            return
        if p.kind.names_color:
            if 1 <= digit <= len(p.options):
                c.pick(p.options[digit - 1])
        else:
            c.pick(digit)

    for digit in range(10):
        kb.add(str(digit), filter=picking)(lambda e, d=digit: pick_digit(d))
    for key, step in (("up", -1), ("left", -1), ("k", -1), ("down", 1), ("right", 1), ("j", 1)):
        kb.add(key, filter=picking)(lambda e, step=step: c.pick_move(step))
    kb.add("enter", filter=picking)(lambda e: c.pick())

    # -- the start screen -----------------------------------------------------------------
    kb.add("up", filter=in_start)(lambda e: keys.move(-1))
    kb.add("down", filter=in_start)(lambda e: keys.move(1))
    kb.add("enter", filter=in_start)(lambda e: keys.join())
    kb.add("r", filter=in_start)(lambda e: keys.rescan())
    kb.add("q", filter=in_start)(quit_app)

    @kb.add("a", filter=in_start)
    def _(event: KeyPressEvent) -> None:
        keys.type_address()
        if s.input_mode == "address":
            event.app.layout.focus(input_window)

    # -- the lobby ----------------------------------------------------------------------
    kb.add("up", filter=in_lobby)(lambda e: c.room_move(-1))
    kb.add("down", filter=in_lobby)(lambda e: c.room_move(1))
    kb.add("enter", filter=in_lobby)(lambda e: c.join_room("player"))
    kb.add("s", filter=in_lobby)(lambda e: c.join_room("spectator"))
    kb.add("c", filter=in_lobby)(lambda e: c.open_form())
    kb.add("r", filter=in_lobby)(lambda e: c.refresh_rooms())

    kb.add("up", filter=in_form)(lambda e: c.form_move(-1))
    kb.add("down", filter=in_form)(lambda e: c.form_move(1))
    kb.add("left", filter=in_form)(lambda e: c.form_change(-1))
    kb.add("right", filter=in_form)(lambda e: c.form_change(1))
    kb.add("enter", filter=in_form)(lambda e: c.create_room())

    @kb.add("e", filter=in_form)
    def _(event: KeyPressEvent) -> None:
        mode = c.form_edit()
        if mode is None or s.form is None:
            return
        s.input_mode = mode
        value = {"room_name": s.form.name, "room_password": s.form.password}.get(
            mode, s.form.value(s.form.field))
        input_buffer.set_document(Document(str(value)), bypass_readonly=True)
        event.app.layout.focus(input_window)

    kb.add("b", filter=in_room)(lambda e: c.add_bot())
    kb.add("-", filter=in_room)(lambda e: c.remove_bot())
    kb.add("space", filter=in_room)(lambda e: c.ready())
    kb.add("enter", filter=in_room)(lambda e: c.start())

    app: Application[int] = Application(
        layout=Layout(root, focused_element=home),
        key_bindings=kb,
        style=themes.style(state.theme),
        full_screen=True,
        mouse_support=False,
        refresh_interval=0.5,
        # Draw as soon as the table changes: the Trio guest keeps the loop busy with
        # callbacks, and prompt_toolkit would otherwise postpone the redraw behind them.
        max_render_postpone_time=0,
        **app_kwargs,
    )
    app.before_render += follow_input
    frames = FrameClock(s)
    app.after_render += frames.schedule
    app.ttimeoutlen = 0.05  # Escape answers at once instead of waiting half a second
    app.timeoutlen = 0.2
    return app
