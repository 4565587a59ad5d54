"""Compiled fast paths: one straight-line function per table, built once at import.

Every message and nested map is validated on decode, and the decode is the hot path of
every client and of the server. Calling one small checker per field costs more than
msgpack itself, so each table (a message's fields, an event kind's data, a view) is also
compiled into a single function whose checks are inline expressions (``type(v) is int
and 0 <= v <= 9``). It only *accepts*: any doubt (a missing key, a wrong type, an
unknown extra field, a value that needs normalising) returns to the table's slow path,
which checks field by field, normalises and says precisely what is wrong. So the fast
path never changes what is accepted or how errors read; it only skips work when the
input is already valid and canonical.

A checker takes part by carrying ``fast``: an expression template over ``{v}`` (see
:func:`inline`). A checker without one is called, and its result is used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

MISSING: Any = object()  # an absent key (``dict.get`` default)


def inline(check: Callable[..., Any], template: str, **consts: Any) -> Callable[..., Any]:
    """Give ``check`` an inline form: ``template`` is a Python expression over ``{v}`` that
    is true only when ``check(v)`` would return ``v`` itself; ``{name}`` refers to a
    constant in ``consts``."""
    check.fast = (template, consts)  # type: ignore[attr-defined]
    return check


def _expression(check: Any, var: str, tag: str, ns: dict[str, Any]) -> str | None:
    """The inline test of ``var`` for ``check``, its constants added to ``ns``; None if
    the checker has no inline form."""
    fast = getattr(check, "fast", None)
    if fast is None:
        return None
    template, consts = fast
    names = {}
    for key, const in consts.items():
        names[key] = f"_{tag}_{key}"
        ns[names[key]] = const
    return "(" + template.format(v=var, **names) + ")"


def compile_fields(
    name: str,
    fields: Iterable[tuple[str, Any, bool, Any]],
    source: str,
    accept: Callable[[list[tuple[int, str]]], list[str]],
    ns: dict[str, Any],
    extra_keys: frozenset[str] = frozenset(),
    prelude: Iterable[str] = (),
) -> str:
    """The source of a function ``name(source)`` that checks ``fields`` of the map
    ``source`` inline and, when all pass, runs the statements ``accept(converted)``
    returns: ``v0``, ``v1``... hold the checked values, and ``converted`` lists the
    (index, key) of the fields whose checker was called (its result may be a new object).

    ``fields`` are (key, checker, required, default), ``default`` MISSING for none; the map
    may also hold ``extra_keys`` (a message's ``type``). Any exception or failed test
    falls through to ``return _slow(source)``; ``prelude`` statements run first."""
    fields = list(fields)
    fetch, convert, tests = [], [], []
    always = len(extra_keys)  # known keys that are surely present...
    maybe: list[str] = []  # ...and a test per optional one: 1 if present
    converted: list[tuple[int, str]] = []
    for i, (key, check, required, default) in enumerate(fields):
        var = f"v{i}"
        if required:
            fetch.append(f"{var} = {source}[{key!r}]")
            always += 1
        else:
            ns[f"_d{i}"] = default
            fetch.append(f"{var} = {source}.get({key!r}, _d{i})")
            maybe.append(f"({var} is not _MISSING)" if default is MISSING else f"({key!r} in {source})")
        test = _expression(check, var, str(i), ns)
        if test is None:
            ns[f"_c{i}"] = check
            guard = "" if default is not MISSING or required else f"if {var} is not _MISSING: "
            convert.append(f"{guard}{var} = _c{i}({var})")
            converted.append((i, key))
        elif default is MISSING and not required:
            tests.append(f"({var} is _MISSING or {test})")
        else:
            tests.append(test)
    # No unknown field (they need checks): every key is a known one when the map holds
    # exactly as many keys as the known ones found in it. Cheaper than a set comparison.
    tests.append(f"len({source}) == {' + '.join([str(always), *maybe])}")
    ns["_MISSING"] = MISSING
    body = [*fetch, *convert, "if " + " and ".join(tests) + ":"]
    body += ["    " + line for line in accept(converted)]
    lines = [f"def {name}({source}):", *("    " + line for line in prelude), "    try:"]
    lines += ["        " + s for s in body]
    lines += ["    except (KeyError, ValueError, TypeError):", "        pass", f"    return _slow({source})"]
    return "\n".join(lines)


def build(source_code: str, name: str, ns: dict[str, Any], label: str) -> Callable[..., Any]:
    """Compile ``source_code`` in ``ns`` and return its function ``name``; ``label`` names
    it in tracebacks."""
    exec(compile(source_code, f"<fast path: {label}>", "exec"), ns)  # our own tables only
    return ns[name]  # type: ignore[no-any-return]
