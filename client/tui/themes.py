"""The table's themes: dark (the default), light, and high contrast.

A theme is a style sheet over the same classes (``card.red``, ``turn``, ``banner.uno``…);
no theme carries a meaning by color alone: every card has its notation, every flag its
word, and the playable, marked and chosen cards their shape (raised, ``*``, reversed).
With ``NO_COLOR`` set prompt_toolkit draws without colors, and those still read.
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

THEMES = ("dark", "light", "high-contrast")

DARK: dict[str, str] = {
    "header": "bg:#303030 #d0d0d0",
    "header.title": "bg:#d70000 #ffffff bold",
    "header.fair": "bg:#303030 #5fd75f",
    "header.alarm": "bg:#ffff00 #d70000 bold blink",
    "status.ok": "bg:#303030 #5fd75f",
    "status.wait": "bg:#303030 #ffd75f",
    "status.bad": "bg:#303030 #ff5f5f bold",
    "card.red": "#ff5f5f",
    "card.yellow": "#ffd75f",
    "card.green": "#5fd75f",
    "card.blue": "#5f87ff",
    "card.wild": "#ffffff bg:#444444",
    "card.top": "bold",
    "playable": "bold",
    "playable.along": "italic",  # playable only after another card, in one multi-play
    "unplayable": "",
    "marked": "underline",
    "cursor": "reverse",
    "number": "#808080",
    "label": "bold",
    "turn": "bold",
    "turn.marker": "#ffd75f bold",
    "me": "#87d7ff",
    "team.t0": "#ff87d7 bold",
    "team.t1": "#87ffd7 bold",
    "tag": "#808080",
    "score": "#808080",
    "flag.uno": "#ff8700 bold",
    "flag.catch": "bg:#d70000 #ffffff bold",
    "flag.away": "#ff5f5f",
    "pending": "#ff8700 bold",
    "timer": "#87d7ff",
    "timer.low": "#ff5f5f bold",
    "banner.jump": "bg:#ffd700 #000000 bold",
    "banner.catch": "bg:#d70000 #ffffff bold",
    "banner.uno": "bg:#ff8700 #000000 bold",
    "banner.challenge": "bg:#af00d7 #ffffff bold",
    "hint": "#a8a8a8",
    "hint.turn": "#ffffff bold",
    "notice.error": "#ff5f5f bold",
    "notice.info": "#87d7ff",
    "pane.title": "bold underline",
    "log": "",
    "log.jump": "#ffd75f",
    "log.uno": "#ff8700",
    "log.win": "#5fd75f bold",
    "log.error": "#ff5f5f",
    "log.info": "#87d7ff",
    "chat.name": "#87d7ff bold",
    "overlay": "bg:#1c1c1c #e4e4e4",
    "overlay.title": "bg:#1c1c1c #ffffff bold",
    "overlay.section": "bg:#1c1c1c #ffd75f bold",
    "overlay.key": "bg:#1c1c1c #87d7ff bold",
    "overlay.hint": "bg:#1c1c1c #a8a8a8",
    "input": "bg:#262626 #ffffff",
    "seat": "",
    "face": "bold",
    "back": "#5f87af",
    "direction": "#ffd75f",
    "flash": "reverse",
    "flying": "bold",
}

# Darker inks for a light background; the rest as dark.
LIGHT: dict[str, str] = {
    **DARK,
    "header": "bg:#d0d0d0 #000000",
    "header.fair": "bg:#d0d0d0 #005f00",
    "status.ok": "bg:#d0d0d0 #005f00",
    "status.wait": "bg:#d0d0d0 #875f00",
    "status.bad": "bg:#d0d0d0 #af0000 bold",
    "card.red": "#d70000",
    "card.yellow": "#af8700",
    "card.green": "#008700",
    "card.blue": "#0000d7",
    "card.wild": "#000000 bg:#d0d0d0",
    "turn.marker": "#af5f00 bold",
    "me": "#005f87",
    "team.t0": "#af005f bold",
    "team.t1": "#008787 bold",
    "tag": "#585858",
    "score": "#585858",
    "flag.uno": "#af5f00 bold",
    "pending": "#af5f00 bold",
    "timer": "#005f87",
    "hint": "#585858",
    "hint.turn": "#000000 bold",
    "notice.info": "#005f87",
    "log.jump": "#875f00",
    "log.uno": "#af5f00",
    "log.win": "#005f00 bold",
    "log.info": "#005f87",
    "chat.name": "#005f87 bold",
    "back": "#005f87",
    "direction": "#875f00",
    "overlay": "bg:#eeeeee #000000",
    "overlay.title": "bg:#eeeeee #000000 bold",
    "overlay.section": "bg:#eeeeee #875f00 bold",
    "overlay.key": "bg:#eeeeee #005f87 bold",
    "overlay.hint": "bg:#eeeeee #585858",
    "input": "bg:#e4e4e4 #000000",
}

# Black and white and the four pure colors, all bold: the most contrast a terminal has.
HIGH_CONTRAST: dict[str, str] = {
    **{name: "#ffffff bold" if value else "" for name, value in DARK.items()},
    "header": "bg:#000000 #ffffff bold",
    "header.title": "bg:#ffffff #000000 bold",
    "header.fair": "bg:#000000 #00ff00 bold",
    "header.alarm": "bg:#ffff00 #000000 bold",
    "status.ok": "bg:#000000 #00ff00 bold",
    "status.wait": "bg:#000000 #ffff00 bold",
    "status.bad": "bg:#000000 #ff0000 bold",
    "card.red": "bg:#ff0000 #000000 bold",  # white on pure red is under 4.5:1
    "card.yellow": "bg:#ffff00 #000000 bold",
    "card.green": "bg:#00ff00 #000000 bold",
    "card.blue": "bg:#0000ff #ffffff bold",
    "card.wild": "bg:#ffffff #000000 bold",
    # What is drawn over a card's colors keeps the card's own ink: no white on yellow.
    "face": "bold",
    "card.top": "bold",
    "playable": "bold",
    "playable.along": "italic bold",
    "flying": "bold",
    "unplayable": "",
    "marked": "underline",
    "cursor": "reverse",
    "flag.catch": "bg:#ff0000 #ffffff bold",
    "banner.jump": "bg:#ffff00 #000000 bold",
    "banner.catch": "bg:#ff0000 #ffffff bold",
    "banner.uno": "bg:#ffffff #000000 bold",
    "banner.challenge": "bg:#ff00ff #000000 bold",
    "overlay": "bg:#000000 #ffffff",
    "input": "bg:#000000 #ffffff bold",
    "flash": "reverse",
}

_SHEETS = {"dark": DARK, "light": LIGHT, "high-contrast": HIGH_CONTRAST}


def style(theme: str) -> Style:
    """The style sheet of ``theme`` (an unknown name: the default's)."""
    return Style.from_dict(_SHEETS.get(theme, DARK))
