"""The engine's errors: ``ValueError`` subclasses, so callers may catch either."""

from __future__ import annotations


class NotationError(ValueError):
    """Text that is not a valid card, action, rule option or position."""


class RulesError(ValueError):
    """An unknown rule option, or a value the option does not take."""


class IllegalAction(ValueError):
    """An action the rules do not allow now; the game is left unchanged.

    ``action`` and ``reason`` are kept apart from the message so that the server can
    send the reason to a client without the position (which holds hidden cards).
    """

    def __init__(self, action: object, reason: str | Reason, position: str = "",
                 code: str = "illegal") -> None:
        self.action = action
        self.reason = str(reason)  # the player's own words
        self.position = position
        self.code = code
        text = f"illegal action {action}: {reason}"
        if position:
            text += f"\nposition:\n{position}"
        super().__init__(text)


class Reason:
    """Why a play breaks the rules, as its player reads it (``private``: it may name the
    player's own cards), and the same fault told without them (``public``). A misplay
    under ``misplay_penalty`` is told to every seat, and other seats may not learn a
    card from its words. As text it is the player's own (``str``)."""

    __slots__ = ("private", "public")

    def __init__(self, private: str, public: str) -> None:
        self.private = private
        self.public = public

    def __str__(self) -> str:
        return self.private


def public_reason(reason: str | Reason) -> str:
    """What every seat may read of a refusal's reason."""
    return reason.public if isinstance(reason, Reason) else reason
