"""The player's language: English, Traditional Chinese (zh-Hant) or Simplified Chinese
(zh-Hans), through the standard library's :mod:`gettext`.

The catalogs ship with the package (``locale/<language>/LC_MESSAGES/unolan.mo``, compiled
from the ``.po`` files beside them), so an install needs nothing else. The language is
chosen once at start (:func:`choose`: ``--lang``, else ``LC_ALL`` / ``LC_MESSAGES`` /
``LANG``, else English) and may change while the UI runs (:func:`set_language`), so text
is translated where it is shown, never at import: a table of words made at import holds
:func:`N_`-marked English and is passed through :func:`_` when drawn.

The protocol stays in English: an error carries a ``code`` and an English ``message``;
:func:`error_text` gives the code's words in the player's language (:data:`ERROR_TEXTS`
has one for every code of the protocol's table; a test checks each is translated).
"""

from __future__ import annotations

import argparse
import gettext
import os
from collections.abc import Mapping
from pathlib import Path

DOMAIN = "unolan"
LOCALE_DIR = Path(__file__).with_name("locale")
ENGLISH = "en"
# Each language by its name in itself, in the order the help overlay cycles through them.
LANGUAGES: dict[str, str] = {"en": "English", "zh_Hant": "繁體中文", "zh_Hans": "简体中文"}
# How a language is written in --lang or a locale variable (lowercase, '-' as '_').
_ALIASES = {
    "en": "en", "c": "en", "posix": "en",
    "zh_hant": "zh_Hant", "zh_tw": "zh_Hant", "zh_hk": "zh_Hant", "zh_mo": "zh_Hant",
    "zh_hant_tw": "zh_Hant", "zh_hant_hk": "zh_Hant",
    "zh_hans": "zh_Hans", "zh_cn": "zh_Hans", "zh_sg": "zh_Hans", "zh_my": "zh_Hans",
    "zh_hans_cn": "zh_Hans", "zh": "zh_Hans",
}
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")

_translation: gettext.NullTranslations = gettext.NullTranslations()
_language = ENGLISH


def N_(message: str) -> str:
    """Mark ``message`` for the catalogs without translating it (it is translated where
    it is shown, in the language of that moment)."""
    return message


def _(message: str) -> str:
    """``message`` in the current language."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form for ``n`` in the current language."""
    return _translation.ngettext(singular, plural, n)


RULE_WORD = "rule value"  # the catalogs' context for the engine's words for rule values


def rule_word(value: str) -> str:
    """A rule option's value or a preset's name (``winner_takes``, ``house``) in the current
    language; English writes it as the engine does, with spaces. Its own context, since a
    value may be a word used elsewhere too (``penalty``: the scoring, or why cards were drawn)."""
    return _translation.pgettext(RULE_WORD, value.replace("_", " "))


def language() -> str:
    """The current language: a key of :data:`LANGUAGES`."""
    return _language


def read_language(text: str) -> str | None:
    """A language as ``--lang`` or a locale variable writes it (``zh-TW``, ``zh_CN.UTF-8``,
    ``zh-Hant``, ``en_GB``), as a key of :data:`LANGUAGES`; None for one we do not have."""
    tag = text.split(".", 1)[0].split("@", 1)[0].strip().replace("-", "_").lower()
    if not tag:
        return None
    if tag in _ALIASES:
        return _ALIASES[tag]
    if tag.startswith("en_"):
        return ENGLISH
    if tag.startswith("zh_hant") or tag.startswith("zh_hans"):
        return _ALIASES[tag[:7]]
    return None


def language_from(lang: str | None = None, environ: Mapping[str, str] = os.environ) -> str:
    """The language to start in: ``lang`` (``--lang``), else the first locale variable that
    is set (``LC_ALL`` wins over ``LC_MESSAGES`` over ``LANG``, as POSIX has it), else
    English. A locale in a language we do not have means English."""
    if lang:
        chosen = read_language(lang)
        if chosen is None:
            raise ValueError(_("unknown language {lang!r}: expected one of {choices}").format(
                lang=lang, choices=", ".join(tag.replace("_", "-") for tag in LANGUAGES)))
        return chosen
    for variable in LOCALE_VARIABLES:
        value = environ.get(variable, "")
        if value:
            return read_language(value) or ENGLISH
    return ENGLISH


def set_language(lang: str) -> None:
    """Speak ``lang`` (a key of :data:`LANGUAGES`) from now on."""
    global _translation, _language
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}")
    if lang == ENGLISH:
        _translation = gettext.NullTranslations()
    else:
        _translation = gettext.translation(DOMAIN, LOCALE_DIR, [lang])
    _language = lang
    # argparse words its own parts (usage:, options, its errors) through this module's
    # gettext; they are in our catalogs too (see ARGPARSE_WORDS).
    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


def choose(lang: str | None = None, environ: Mapping[str, str] = os.environ) -> str:
    """Set the language from ``--lang`` or the environment (:func:`language_from`)."""
    chosen = language_from(lang, environ)
    set_language(chosen)
    return chosen


def next_language() -> str:
    """The language after the current one, in :data:`LANGUAGES`' order (the help overlay's
    switch)."""
    order = list(LANGUAGES)
    return order[(order.index(_language) + 1) % len(order)]


def display_name(lang: str) -> str:
    """A language by its own name (``繁體中文``)."""
    return LANGUAGES[lang]


# argparse's own words that a player meets (usage, the option list, its errors).
ARGPARSE_WORDS = (
    N_("usage: "), N_("positional arguments"), N_("options"),
    N_("show this help message and exit"), N_("show program's version number and exit"),
    N_("%(prog)s: error: %(message)s\n"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("expected one argument"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("not allowed with argument %s"), N_("expected at least one argument"),
)


# -- the server's error codes, in the player's words --------------------------------------

# One text per code of the protocol's error table (unolan.protocol.ERROR_CODES).
ERROR_TEXTS: dict[str, str] = {
    "frame_too_large": N_("the message was too large for the server"),
    "bad_frame": N_("the server could not read a message from this client"),
    "bad_message": N_("the server could not understand a request from this client"),
    "unknown_type": N_("the server does not know this request"),
    "bad_state": N_("that request is not possible now"),
    "unsupported_version": N_("the server speaks another version of the protocol: update unolan"),
    "too_late": N_("Too late: the table had moved on"),
    "not_your_turn": N_("it is not your turn"),
    "illegal": N_("the rules do not allow that now"),
    "wrong_phase": N_("not possible at this point of the turn"),
    "bad_play": N_("those cards cannot be played now"),
    "misplay": N_("the rules do not allow that play"),
    "bad_seat": N_("there is no such seat"),
    "bad_target": N_("that player cannot be chosen"),
    "already_called": N_("UNO is already called"),
    "false_uno": N_("UNO is called only on your last card"),
    "cannot_catch": N_("that player cannot be caught now"),
    "cannot_challenge": N_("there is no Wild Draw Four to challenge"),
    "forced_play": N_("the card drawn must be played"),
    "out": N_("you are out of this round"),
    "round_over": N_("the round is over"),
    "match_over": N_("the match is over"),
    "not_in_room": N_("you are not in a room"),
    "not_seated": N_("spectators do not play: only a seated player may do that"),
    "already_in_room": N_("you are in a room already: leave it first"),
    "no_such_room": N_("that room is gone"),
    "room_full": N_("that room has no free seat: spectate it"),
    "bad_password": N_("wrong password for that room"),
    "not_host": N_("only the host may do that"),
    "already_started": N_("the match has started already"),
    "not_started": N_("the match has not started yet"),
    "not_ready": N_("a seat is empty or its player not ready"),
    "unknown_level": N_("this server has no bots of that level"),
    "bad_token": N_("your seat is no longer held"),
    "needs_version": N_("a room of two tables needs a newer client (protocol version 4): update unolan"),
    "not_restored": N_("that room could not be restored after the server restarted; its game is kept aside"),
    "too_many_rooms": N_("you have as many open rooms as the server allows; an empty room closes after a while: try again then"),
    "paused": N_("the server cannot save the game now; nothing is played until it can"),
    "replaced": N_("your seat was taken up from another connection"),
    "removed": N_("the host removed this bot"),
    "rate_limited": N_("too many requests: slow down"),
    "server_full": N_("the server takes no more players"),
    "timeout": N_("the connection went quiet and was closed"),
    "shutting_down": N_("the server is stopping"),
    "internal": N_("the server failed on that request (a bug); nothing was changed"),
}


def error_text(code: str, message: str = "") -> str:
    """A refusal in the player's language. In English the server's own message (it may say
    more, e.g. which card does not match), else the code's words; in another language the
    code's words, since the message is English. A code this client does not know (a newer
    server's) shows the message as it came."""
    words = ERROR_TEXTS.get(code)
    if words is None:
        return message or code
    if _language == ENGLISH and message:
        return message
    return _(words)
