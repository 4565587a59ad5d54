"""Game actions on the wire: the engine's actions and the protocol's messages, mapped once.

A client turns the action it decided on into the message that asks for it
(:func:`to_message`); the server turns the message back into the engine's action for the
seat that sent it (:func:`to_action`). Cards travel as their notation, colors as their
letter; the seat is the sender's, never a field.
"""

from __future__ import annotations

from unolan import engine as en

from .messages import CallUno, Catch, Challenge, ChooseColor, Draw, Message, Pass, Play

ActionMessage = Play | Draw | Pass | CallUno | Catch | Challenge | ChooseColor
"""The messages that ask for a game action (each names the room ``seq`` it was decided on)."""


def to_message(action: en.Action, seq: int, id: int | None = None) -> ActionMessage:
    """The message asking for ``action``, decided on the table as of room ``seq``.

    A ``Deal`` has none (the server deals the next round by itself): ``ValueError``."""
    match action:
        case en.Play():
            return Play(seq=seq, cards=tuple(c.text for c in action.cards),
                        color=action.color.value if action.color else None,
                        target=action.target, uno=action.uno, id=id)
        case en.Draw():
            return Draw(seq=seq, id=id)
        case en.Pass():
            return Pass(seq=seq, id=id)
        case en.CallUno():
            return CallUno(seq=seq, id=id)
        case en.Catch():
            return Catch(seq=seq, target=action.target, id=id)
        case en.Challenge():
            return Challenge(seq=seq, id=id)
        case en.ChooseColor():
            return ChooseColor(seq=seq, color=action.color.value, id=id)
        case en.Deal():
            raise ValueError("a deal is the server's: no message asks for it")


def to_action(msg: Message, seat: int) -> en.Action:
    """The engine's action ``seat`` asks for with ``msg``; ``ValueError`` if ``msg`` asks
    for none (or names a card that does not exist)."""
    match msg:
        case Play():
            return en.Play(seat, tuple(en.Card.parse(c) for c in msg.cards),
                           en.Color(msg.color) if msg.color else None, msg.target, msg.uno)
        case Draw():
            return en.Draw(seat)
        case Pass():
            return en.Pass(seat)
        case CallUno():
            return en.CallUno(seat)
        case Catch():
            return en.Catch(seat, msg.target)
        case Challenge():
            return en.Challenge(seat)
        case ChooseColor():
            return en.ChooseColor(seat, en.Color(msg.color))
    raise ValueError(f"{msg.TYPE} is not a game action")
