"""Seats kept on disk for ``uno join``: per server, name and room, readable by the owner only."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from unolan.client.saved import SavedSeat, SavedSeats, default_path
from unolan.server.store import default_path as database_path


def test_paths_come_from_the_users_directories(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    if sys.platform.startswith("linux"):
        assert default_path() == tmp_path / "state" / "unolan" / "seats.json"
        assert database_path() == tmp_path / "data" / "unolan" / "server.db"


def test_the_newest_seat_of_a_server_and_name_and_only_its_owner_reads_it(tmp_path: Path) -> None:
    seats = SavedSeats(tmp_path / "dir" / "seats.json")
    assert seats.latest("10.0.0.2:7117", "ann") is None
    seats.save("10.0.0.2:7117", "ann", "r1", "tok-1")
    seats.save("10.0.0.2:7117", "ann", "r2", "tok-2")
    seats.save("10.0.0.2:7117", "bob", "r2", "tok-b")
    seats.save("10.0.0.3:7117", "ann", "r9", "tok-9")
    assert seats.latest("10.0.0.2:7117", "ann") == SavedSeat("r2", "tok-2")
    assert seats.latest("10.0.0.2:7117", "bob") == SavedSeat("r2", "tok-b")
    assert stat.S_IMODE(os.stat(seats.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(seats.path.parent).st_mode) == 0o700
    seats.forget("10.0.0.2:7117", "ann", "r2")
    assert seats.latest("10.0.0.2:7117", "ann") == SavedSeat("r1", "tok-1")
    seats.forget("10.0.0.2:7117", "ann", "r1")
    assert seats.latest("10.0.0.2:7117", "ann") is None
    assert SavedSeats(seats.path).latest("10.0.0.3:7117", "ann") == SavedSeat("r9", "tok-9")


def test_a_seat_held_by_a_running_client_is_not_taken(tmp_path: Path) -> None:
    """Another ``uno join`` of the same name still runs: its seat is not resumed from under
    it; once that process has ended, it is."""
    path = tmp_path / "seats.json"
    code = ("import sys; from pathlib import Path; from unolan.client.saved import SavedSeats;"
            f"SavedSeats(Path({str(path)!r})).save('h:1', 'ann', 'r1', 'tok');"
            "sys.stdout.write('saved\\n'); sys.stdout.flush(); sys.stdin.read()")
    other = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert other.stdout is not None and other.stdout.readline() == "saved\n"
        assert SavedSeats(path).latest("h:1", "ann") is None  # held: it runs
    finally:
        other.communicate("", timeout=10)
    assert SavedSeats(path).latest("h:1", "ann") == SavedSeat("r1", "tok")


def test_a_broken_file_never_stops_a_game(tmp_path: Path) -> None:
    path = tmp_path / "seats.json"
    path.write_text("{not json")
    seats = SavedSeats(path)
    assert seats.latest("h:1", "ann") is None
    seats.save("h:1", "ann", "r1", "tok")
    assert seats.latest("h:1", "ann") == SavedSeat("r1", "tok")


def test_a_seat_is_found_whichever_way_the_server_is_spelled(tmp_path: Path) -> None:
    """Saved under the address typed first, found under another spelling of the same
    server: localhost, 127.0.0.1 and ::1 are one machine."""
    saved = SavedSeats(tmp_path / "seats.json")
    saved.save("localhost:7301", "ann", "r1", "t" * 24)
    data = (tmp_path / "seats.json").read_text()
    assert '"127.0.0.1:7301"' in data and "localhost" not in data
    (tmp_path / "seats.json").write_text(data.replace(f'"pid": {os.getpid()}', '"pid": null'))  # its client ended
    assert saved.latest("127.0.0.1:7301", "ann") == SavedSeat("r1", "t" * 24)
    saved.forget("[::1]:7301", "ann", "r1")
    assert '"r1"' not in (tmp_path / "seats.json").read_text()
    saved.save("nosuch.invalid:7301", "ann", "r2", "u" * 24)  # unresolvable: kept as typed
    assert '"nosuch.invalid:7301"' in (tmp_path / "seats.json").read_text()


def test_seats_are_kept_by_server_id_and_an_address_keyed_seat_is_still_found(tmp_path: Path) -> None:
    saved = SavedSeats(tmp_path / "seats.json")
    path = tmp_path / "seats.json"
    saved.save("192.0.2.9:7301", "ann", "r1", "t" * 24)  # a file from before server ids
    ended = lambda: path.write_text(path.read_text().replace(f'"pid": {os.getpid()}', '"pid": null'))  # noqa: E731
    ended()
    assert saved.latest("192.0.2.9:7301", "ann", "abc123") == SavedSeat("r1", "t" * 24)
    saved.save("192.0.2.9:7301", "ann", "r1", "u" * 24, "abc123")  # now under the id, once
    data = json.loads(path.read_text())
    assert list(data) == ["id:abc123"] and data["id:abc123"]["ann"]["r1"]["token"] == "u" * 24
    ended()
    assert saved.latest("10.1.1.1:7301", "ann", "abc123") == SavedSeat("r1", "u" * 24)  # any address
    assert saved.latest("10.1.1.1:7301", "ann", "other") is None  # another server
    saved.forget("10.1.1.1:7301", "ann", "r1", "abc123")
    assert json.loads(path.read_text()) == {}
