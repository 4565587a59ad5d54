"""Protocol errors, split by whose fault they are (the h11 way).

``LocalProtocolError``: *we* tried something the protocol forbids (built an invalid
message, sent a game action before the handshake). Nothing was sent; the connection is
unchanged, so the caller can fix its mistake.

``RemoteProtocolError``: the *peer* sent something invalid. It carries a stable ``code``
and, when ``fatal``, the connection stops reading; the server turns it into an ``error``
frame with :meth:`Connection.send_error` and closes.

Both carry ``code`` (stable, for programs), ``message`` (for people), ``fatal`` and the
``id`` of the request it answers, when known.
"""

from __future__ import annotations

# Every error code with its meaning and whether it ends the connection. The first group is
# raised by this package; the second is sent by the server when it refuses a request. The
# table is the single source for docs/protocol.md's error table (a test checks the two).
PROTOCOL_CODES: dict[str, tuple[bool, str]] = {
    "frame_too_large": (True, "a frame's declared length is over the limit"),
    "bad_frame": (True, "the body is not one msgpack map with a string `type` within the limits"),
    "bad_message": (False, "a known message type with a missing or invalid field"),
    "unknown_type": (False, "a message type this peer does not know"),
    "bad_state": (False, "a message not allowed now (fatal during the handshake)"),
    "unsupported_version": (True, "no protocol version in common; `versions` lists the server's"),
}
SERVER_CODES: dict[str, tuple[bool, str]] = {
    "too_late": (False, "the action's `seq` is older than the table, or a jump-in took the turn"),
    "not_your_turn": (False, "an in-turn action sent out of turn"),
    "illegal": (False, "the rules do not allow this action now; `message` says why"),
    # The engine's finer reasons for refusing an action (forwarded as they are).
    "wrong_phase": (False, "the action does not fit the turn's phase (e.g. pass before drawing)"),
    "bad_play": (False, "those cards may not be played on this table"),
    "misplay": (False, "a play of cards you hold that the rules refuse (with `misplay_penalty` on it costs a penalty instead)"),
    "bad_seat": (False, "a seat the room does not have (a play's or catch's target, a bot's seat), or remove_bot on a seat without a bot"),
    "bad_target": (False, "a play's or catch's target that does not fit: missing, needless, your own seat, or a seat out of the round"),
    "already_called": (False, "UNO was already called"),
    "false_uno": (False, "an UNO call that does not fit the hand"),
    "cannot_catch": (False, "that seat cannot be caught now"),
    "cannot_challenge": (False, "no Wild Draw Four that this seat may challenge"),
    "forced_play": (False, "forced_play: the drawn card must be played"),
    "out": (False, "this seat is out of the round"),
    "round_over": (False, "the round is over"),
    "match_over": (False, "the match is over"),
    "not_in_room": (False, "a room request from a connection that is not in a room"),
    "not_seated": (False, "a seat's request (a game action, ready) from a spectator"),
    "already_in_room": (False, "join or create_room while already in a room"),
    "no_such_room": (False, "no room with that id"),
    "room_full": (False, "no free seat"),
    "bad_password": (False, "the room's password does not match"),
    "not_host": (False, "only the host may do this"),
    "already_started": (False, "the match has started"),
    "not_started": (False, "the match has not started"),
    "not_ready": (False, "start while a seated human is not ready"),
    "unknown_level": (False, "add_bot names a bot level this server does not run; `message` lists those it does"),
    "bad_token": (False, "resume with a token the server does not know"),
    "needs_version": (False, "a two-table room takes clients of protocol version 4 only"),
    "not_restored": (False, "resume into a room that could not be restored after a restart (it is kept aside, not played)"),
    "rate_limited": (False, "too many requests, chat lines, joins or wrong passwords; slow down"),
    "too_many_rooms": (False, "create_room from an address that already has its most open rooms"),
    "paused": (False, "the server cannot save the game now; nothing is played until it can (see the `paused` event)"),
    "server_full": (True, "the server takes no more connections (or none more from your address)"),
    "replaced": (True, "your seat or spectator token was resumed from another connection"),
    "removed": (True, "the host removed the bot this connection played"),
    "timeout": (True, "no hello in time, nothing heard within the heartbeat allowance, or a frame too slow to arrive"),
    "shutting_down": (True, "the server is stopping"),
    "internal": (False, "a bug on the server; the request was not applied"),
}
ERROR_CODES: dict[str, tuple[bool, str]] = PROTOCOL_CODES | SERVER_CODES


class ProtocolError(Exception):
    """A protocol violation: ``code`` for programs, ``message`` for people."""

    def __init__(
        self,
        message: str,
        code: str = "bad_message",
        *,
        fatal: bool | None = None,
        id: int | None = None,
        versions: tuple[int, ...] | None = None,
    ) -> None:
        if type(self) is ProtocolError:
            raise TypeError("raise LocalProtocolError or RemoteProtocolError")
        super().__init__(message)
        self.message = message
        self.code = code
        self.fatal = ERROR_CODES.get(code, (True, ""))[0] if fatal is None else fatal
        self.id = id
        self.versions = versions

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code}: {self.message})"


class LocalProtocolError(ProtocolError):
    """We broke the protocol; nothing was sent."""


class RemoteProtocolError(ProtocolError):
    """The peer broke the protocol."""
