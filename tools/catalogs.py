"""The translation catalogs: extract the strings, merge them into each language, compile.

    python tools/catalogs.py update     # new strings into client/locale/*/unolan.po
    python tools/catalogs.py compile    # every .po to the .mo the package ships
    python tools/catalogs.py check      # strings without a translation (exit 1 if any)

Needs Babel (in the test extra). The strings are those marked in the code (``_``, ``N_``,
``ngettext``) under client/, server/ (its command line's, through server/words.py) and
unolan/, plus the engine's words that the create-room form and ``uno rules --options``
show: each rule option's name and meaning, the values it takes, and the presets' names. The engine itself stays free of translation (it imports nothing of
ours); its English is the message id. tests/test_i18n.py checks the same set.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
LOCALE = ROOT / "client" / "locale"
DOMAIN = "unolan"
LANGUAGES = ("zh_Hant", "zh_Hans")
SOURCES = ("client", "server", "unolan")
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


# (message id, file, line, context): the engine's words for rule values have a context.
Message = tuple[str | tuple[str, str], str, int | None, str | None]
RULE_WORD = "rule value"  # unolan.client.i18n.RULE_WORD


def code_messages() -> Iterator[Message]:
    """Every string marked in the code."""
    for folder in SOURCES:
        for filename, line, message, _comments, _context in extract_from_dir(
                ROOT / folder, method_map=[("**.py", "python")], keywords=KEYWORDS):
            yield message, f"{folder}/{filename}", line, None


def engine_messages() -> Iterator[Message]:
    """The engine's words the UI shows translated."""
    sys.path.insert(0, str(ROOT))
    from unolan.client.tui.form import ROOM_FIELDS
    from unolan.engine import OPTIONS, PRESETS

    for name in ROOM_FIELDS:
        yield name.replace("_", " "), "client/tui/form.py", None, None
    for option in OPTIONS:
        yield option.name.replace("_", " "), "engine/rules.py", None, None
        yield option.meaning, "engine/rules.py", None, None
        for value in option.choices:
            yield value.replace("_", " "), "engine/rules.py", None, RULE_WORD
    for preset in PRESETS:
        yield preset, "engine/rules.py", None, RULE_WORD


def template() -> Catalog:
    catalog = Catalog(project="unolan", domain=DOMAIN, charset="utf-8")
    for message, path, line, context in (*code_messages(), *engine_messages()):
        catalog.add(message, locations=[(path, line)], context=context)
    return catalog


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def update() -> None:
    pot = template()
    for lang in LANGUAGES:
        path = po_path(lang)
        if path.exists():
            with path.open("rb") as f:
                catalog = read_po(f, locale=lang)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=lang, domain=DOMAIN, project="unolan", charset="utf-8")
        catalog.update(pot, no_fuzzy_matching=True)
        catalog.fuzzy = False  # the header: a fuzzy one would be left out of the .mo
        catalog.header_comment = f"# unolan's messages in {lang}.\n# python tools/catalogs.py update"
        catalog.project, catalog.version = "unolan", "0.1"
        catalog.last_translator = catalog.language_team = "unolan"
        with path.open("wb") as f:
            write_po(f, catalog, width=100, omit_header=False, ignore_obsolete=True)


def compile_all() -> None:
    for lang in LANGUAGES:
        with po_path(lang).open("rb") as f:
            catalog = read_po(f, locale=lang)
        with po_path(lang).with_suffix(".mo").open("wb") as f:
            write_mo(f, catalog, use_fuzzy=False)


def missing() -> list[str]:
    """``lang: message`` for each string of the code with no usable translation."""
    wanted = {(message, context) for message, _path, _line, context in
              (*code_messages(), *engine_messages())}
    out = []
    for lang in LANGUAGES:
        with po_path(lang).open("rb") as f:
            catalog = read_po(f, locale=lang)
        for message, context in sorted(wanted, key=str):
            key = message[0] if isinstance(message, tuple) else message
            entry = catalog.get(key, context=context)
            strings = entry.string if entry is not None else ""
            texts = strings if isinstance(strings, tuple) else (strings,)
            if entry is None or entry.fuzzy or not all(texts):
                out.append(f"{lang}: {key!r}")
    return out


def main(argv: list[str]) -> int:
    match argv:
        case ["update"]:
            update()
        case ["compile"]:
            compile_all()
        case ["check"]:
            gaps = missing()
            print("\n".join(gaps) or "every string is translated")
            return 1 if gaps else 0
        case _:
            print(__doc__, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
