"""The words of the server's command line (``uno host``, ``uno history``, ``uno stats``,
``uno audit``) in the person's language.

The catalogs and the choice of language belong to the client (``unolan.client.i18n``),
which the server must not import (imports point server -> protocol -> engine). So the
server marks its words here and translates them through whatever :func:`use` was given:
the app shell (``unolan/cli.py``) hands it the client's translation before it builds the
commands; until then, and for a server run on its own, the words are the English written
in the code. The server's log lines and everything it sends players stay English (the
protocol is language-neutral; a log is for whoever reads the code).

Text is translated where it is shown, never at import: a table of words made at import
holds :func:`N_`-marked English, passed through :func:`_` when printed.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable


def _english(message: str) -> str:
    return message


_translate: Callable[[str], str] = _english
_code_words: Callable[[str], str] | None = None


def use(translate: Callable[[str], str], code_words: Callable[[str], str] | None = None) -> None:
    """Say the server's command-line words through ``translate`` from now on (the client's
    ``i18n._``, which follows the language chosen with ``--lang`` or the locale), and an
    error code's words through ``code_words`` (the client's error catalog)."""
    global _translate, _code_words
    _translate = translate
    _code_words = code_words


def code_words(code: str) -> str | None:
    """An error code's words in the chosen language, None where no catalog was given (a
    server run on its own shows the code alone)."""
    return _code_words(code) if _code_words is not None else None


def _(message: str) -> str:
    """``message`` in the chosen language (English until :func:`use` says otherwise)."""
    return _translate(message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogs without translating it (it is translated where it
    is shown)."""
    return message


class Said(Exception):
    """An error whose message is words for a person: ``str()`` is the English (for logs and
    tests), :meth:`translated` the same in the chosen language (for the command line).
    ``text`` is :func:`N_`-marked English with ``{name}`` placeholders filled from
    ``fields``."""

    def __init__(self, text: str, **fields: object) -> None:
        super().__init__(text.format(**fields))
        self.text = text
        self.fields = fields

    def translated(self) -> str:
        return _(self.text).format(**self.fields)


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes: two for a wide (CJK) character."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def fit(text: str, width: int, right: bool = False) -> str:
    """``text`` cut to ``width`` cells and padded to exactly that (on the left if
    ``right``), so a table's columns stay put in every language."""
    while cells(text) > width:
        text = text[:-1]
    padding = " " * (width - cells(text))
    return padding + text if right else text + padding
