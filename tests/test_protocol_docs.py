"""docs/protocol.md and the code cannot drift: every example is checked both ways."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from unolan.protocol import (
    ERROR_CODES,
    EVENT_KINDS,
    MESSAGE_TYPES,
    Event,
    Hello,
    decode_body,
    decode_message,
    encode_frame,
)

DOC = Path(__file__).resolve().parent.parent / "docs" / "protocol.md"
EXAMPLE = re.compile(r"<!-- example: ([a-z_/]+) -->\n```json\n(.*?)\n```", re.S)


def doc_examples() -> list[tuple[str, dict[str, Any]]]:
    """Every ``<!-- example: NAME -->`` block: (NAME, the map it shows)."""
    return [(name, json.loads(body)) for name, body in EXAMPLE.findall(DOC.read_text())]


EXAMPLES = doc_examples()


def test_every_marker_is_followed_by_an_example() -> None:
    markers = re.findall(r"<!-- example: ", DOC.read_text())
    assert len(markers) == len(EXAMPLES) > 40


@pytest.mark.parametrize(("name", "data"), EXAMPLES, ids=[n for n, _ in EXAMPLES])
def test_example_decodes_and_re_encodes_to_the_same_map(name: str, data: dict[str, Any]) -> None:
    type_name, _, kind = name.partition("/")
    assert data["type"] == type_name
    if kind and kind != "future_kind":
        assert data["kind"] == kind
    # Through real frame bytes, as a peer would send it.
    msg = decode_message(decode_body(encode_frame(data)[4:]))
    assert type(msg) is MESSAGE_TYPES[type_name]
    assert json.loads(json.dumps(msg.to_wire())) == data


def test_every_message_type_and_event_kind_has_an_example() -> None:
    names = {name for name, _ in EXAMPLES}
    assert set(MESSAGE_TYPES) <= {n.partition("/")[0] for n in names}
    kinds = {data["kind"] for name, data in EXAMPLES if name.startswith("event/")}
    assert set(EVENT_KINDS) <= kinds
    assert kinds - set(EVENT_KINDS) == {"fireworks"}  # the one generic example


def test_error_code_table_matches_the_code() -> None:
    text = DOC.read_text()
    table = text[text.index("<!-- error-codes -->") :]
    rows = re.findall(r"^\| `([a-z_]+)` \| (yes|no) \| (.*?) \|$", table, re.M)
    assert {code: (fatal == "yes", meaning) for code, fatal, meaning in rows} == ERROR_CODES


def test_hex_frame_example_is_the_real_encoding() -> None:
    text = DOC.read_text()
    match = re.search(r"<!-- frame: hello -->\n```text\n(.*?)\n```", text)
    assert match
    expected = encode_frame(Hello(versions=(1,), name="ann").to_wire())
    assert bytes.fromhex(match.group(1)) == expected


def test_documented_generic_event_is_accepted() -> None:
    data = next(d for n, d in EXAMPLES if n == "event/future_kind")
    msg = Event.from_wire(data)
    assert msg.data["colors"] == ("R", "G")


def test_the_budgets_table_gives_the_servers_numbers() -> None:
    """Each row names the server's Limits fields and states their values, in order."""
    from unolan.server import Limits

    text = DOC.read_text()
    table = text[text.index("<!-- budgets -->"):].split("\n\n", 1)[0]
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")][2:]
    assert len(rows) >= 15
    limits = Limits()
    for _, fields, value, _ in rows:
        names = re.findall(r"`([a-z_]+)`", fields)
        numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", value)]
        assert names and numbers[:len(names)] == [getattr(limits, n) for n in names], (fields, value)
