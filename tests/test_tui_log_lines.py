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
    assert describe("rotation_over", {"champion": 0}, name_of, 0) == ("you are the champion!", "win")
    assert describe("rotation_over", {"champion": 1}, name_of, 0) == ("bob is the champion!", "win")



def test_presence_reads_as_sentences() -> None:
    assert describe("connection", {"seat": 0, "state": "autopilot"}, name_of, 0) == (
        "you are on autopilot: the server plays for you", "")
    assert describe("connection", {"seat": 1, "state": "autopilot"}, name_of, 0) == (
        "bob is on autopilot: the server plays for them", "")
    assert describe("connection", {"seat": 1, "state": "away"}, name_of, 0)[0] == (
        "bob lost the connection: the seat is held")
    assert describe("connection", {"seat": 1, "state": "connected"}, name_of, 0)[0] == "bob is back"


def test_a_challenge_reveal_says_what_each_seat_may_know() -> None:
    assert describe("revealed", {"seat": 1, "cards": ["R1", "G2"]}, name_of, 0) == (
        "bob held [R1] [G2]", "")  # the challenger sees the hand
    assert describe("revealed", {"seat": 1}, name_of, 2) == (
        "bob's hand was shown to the challenger", "")
    assert describe("revealed", {"seat": 0}, name_of, 0) == (
        "your hand was shown to the challenger", "")


def test_a_multi_play_says_which_color_continues_and_a_timeout_is_told() -> None:
    played = {"seat": 1, "cards": ["B8", "R8"], "color": "B", "target": None, "jump_in": False}
    assert describe("played", played, name_of, 0) == ("bob played [B8] [R8] → blue", "")
    same = {"seat": 1, "cards": ["R8"], "color": "R", "target": None, "jump_in": False}
    assert describe("played", same, name_of, 0) == ("bob played [R8]", "")
    assert describe("timeout", {"seat": 1}, name_of, 0) == (
        "bob's time ran out: the server played for them", "")
    assert describe("timeout", {"seat": 0}, name_of, 0)[0] == (
        "your time ran out: the server played for you")


def test_spectators_come_and_go_as_spectators_and_bots_as_bots() -> None:
    assert describe("player_joined", {"seat": None, "name": "cy", "bot": False}, name_of, 0) == (
        "cy is watching", "")
    assert describe("player_left", {"seat": None, "name": "cy"}, name_of, 0) == (
        "cy stopped watching", "")
    assert describe("player_joined", {"seat": 2, "name": "greedy1", "bot": True}, name_of, 0) == (
        "greedy1 joined (bot)", "")


def test_a_pause_and_its_end_get_a_line_each() -> None:
    assert describe("paused", {"reason": "the server cannot save the game; paused"}, name_of, 0) \
        == ("the server cannot save the game; paused", "error")
    assert describe("resumed", {"reason": "saving works again"}, name_of, 0) == (
        "the server can save the game again; play goes on", "info")  # the client's words, in its language


def test_a_seat_back_is_said_though_the_seats_showed_it_first() -> None:
    """A resume sends the room its seats, then the event that the seat is back: the log
    says it (the seats message had already shown the seat connected). A seat taken by
    someone new starts afresh."""
    from unolan.client.tui.state import UIState

    state = UIState(name="bob")

    def seats(*states: str) -> dict[str, object]:
        return {"room": "r1", "seats": [{"seat": i, "name": f"p{i}", "kind": "human" if s != "empty" else "empty",
                                         "state": s} for i, s in enumerate(states)]}

    state.set_seats(seats("connected", "connected"))
    state.my_seat = 1
    state.on_event("connection", {"seat": 0, "state": "away"})
    state.set_seats(seats("away", "connected"))
    state.set_seats(seats("connected", "connected"))  # the resume's seats, before its event
    state.on_event("connection", {"seat": 0, "state": "connected"})
    lines = [text for text, _ in state.log]
    assert lines == ["p0 lost the connection: the seat is held", "p0 is back"]
    assert state.presence[0] == "connected"
    state.set_seats(seats("empty", "connected"))  # p0 left; someone new sits down
    state.on_event("player_joined", {"seat": 0, "name": "cy"})
    state.set_seats(seats("connected", "connected"))
    state.on_event("connection", {"seat": 0, "state": "connected"})  # nothing new: no line
    assert [text for text, _ in state.log][-1] == "cy joined"
