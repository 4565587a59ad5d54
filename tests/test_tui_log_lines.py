"""Log lines read as English whether they are about you or another player."""

from __future__ import annotations

from unolan.client.tui.state import describe


def name_of(seat: int | None) -> str:
    return {0: "you", 1: "bob"}.get(seat, "someone") if seat is not None else "a spectator"


def test_verbs_agree_with_you_and_with_other_players() -> None:
    assert describe("skipped", {"seat": 0}, name_of, 0) == ("you are skipped", "")
    assert describe("skipped", {"seat": 1}, name_of, 0) == ("bob is skipped", "")
    assert describe("penalty", {"seat": 0, "amount": 4}, name_of, 0) == ("you owe 4 cards", "")
    assert describe("out", {"seat": 1, "reason": "mercy"}, name_of, 0) == ("bob is out (mercy)", "")
    line, _ = describe("round_started", {"round": 2, "dealer": 0}, name_of, 0)
    assert line == "— round 2 · dealer: you —"



def test_a_pause_and_its_end_get_a_line_each() -> None:
    assert describe("paused", {"reason": "the server cannot save the game; paused"}, name_of, 0) \
        == ("the server cannot save the game; paused", "error")
    assert describe("resumed", {"reason": "saving works again"}, name_of, 0) == ("saving works again", "info")
