"""A bot written from docs/protocol.md alone: a plain socket and msgpack, no unolan code.

It is what a bot in any other language looks like: frame, handshake, lobby, then read the
facts of each `turn` event (the event that closes every batch) after which the table
moved: when it names this seat, play; when it names a seat that may be caught, catch it. It opens a two-seat room against
a server bot, plays one match of the `house` rules and prints the result.

    uno host &            # in another terminal
    python examples/raw_bot.py [HOST] [PORT]
"""

import secrets
import socket
import struct
import sys
from collections import Counter

import msgpack

# The event kinds that move the table (protocol.md, the table of kinds): after one of
# them the closing event shows a new table to act on.
MOVES = {"round_started", "played", "drew", "passed", "color_chosen", "challenged", "caught",
         "false_uno", "swapped", "rotated", "misplay", "out", "round_over", "match_over"}


class Wire:
    """Frames: a 4-byte big-endian length, then one msgpack map."""

    def __init__(self, host: str, port: int) -> None:
        self.sock = socket.create_connection((host, port))
        self.backlog: list[dict] = []  # what arrived while waiting for a reply

    def send(self, **message) -> None:
        body = msgpack.packb(message)
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def _exactly(self, n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("the server closed the connection")
            data += chunk
        return data

    def receive(self) -> dict:
        if self.backlog:
            return self.backlog.pop(0)
        (length,) = struct.unpack(">I", self._exactly(4))
        message = msgpack.unpackb(self._exactly(length), raw=False)
        if message["type"] == "ping":  # heartbeat: answer at once, keep reading
            self.send(type="pong", id=message.get("id"))
            return self.receive()
        if message["type"] == "error" and message.get("fatal"):
            raise ConnectionError(f"{message['code']}: {message['message']}")
        return message

    def request(self, **message) -> dict:
        """Send a request with an id and return its reply; keep what comes in between."""
        self.send(id=99, **message)
        waiting, self.backlog = self.backlog, []
        while True:
            reply = self.receive()
            if reply.get("id") == 99:
                self.backlog = waiting + self.backlog
                if reply["type"] == "error":
                    raise RuntimeError(f"{reply['code']}: {reply['message']}")
                return reply
            waiting.append(reply)


def matches(card: str, view: dict) -> bool:
    """Whether a classic-deck card may go on the discard (RULES.md, "Matching")."""
    top = view["top"]
    if card.startswith("W"):
        return True
    same_symbol = not top.startswith("W") and card[1:] == top[1:]
    return card[0] == view["color"] or same_symbol


def decide(view: dict) -> dict:
    """The action for a seat in turn, as a protocol message without its seq."""
    hand = view["hand"]
    colors = Counter(c[0] for c in hand if not c.startswith("W"))
    best_color = colors.most_common(1)[0][0] if colors else "R"
    if view["phase"] == "color":
        return {"type": "choose_color", "color": best_color}
    if view["pending"]:
        return {"type": "draw"}  # this bot never stacks or challenges: it takes the cards
    if view["phase"] == "drawn":
        card = view["drawn"]
        if not matches(card, view):
            return {"type": "pass"}
        choice = [card]
    else:  # colored cards first, a Wild Draw Four only when nothing else fits
        choice = sorted((c for c in hand if matches(c, view)), key=lambda c: (c == "W4", c[0] == "W"))
        if not choice:
            return {"type": "draw"}
    play = {"type": "play", "cards": choice[:1], "uno": len(hand) == 2}
    if choice[0].startswith("W"):
        play["color"] = best_color
    return play


def main(host: str = "127.0.0.1", port: int = 7117) -> list:
    wire = Wire(host, int(port))
    wire.send(type="hello", versions=[3], name="rawbot", client="raw_bot.py")
    wire.receive()  # welcome (a fatal error would have raised)
    me = wire.request(type="create_room", name="raw bot", preset="house",
                      options={"target_score": 100}, seats=2)["seat"]
    wire.request(type="add_bot", level="greedy")
    wire.request(type="start")  # the host starts; it need not be ready
    acted = False  # an action sent on this table: wait until the table moves
    while True:
        message = wire.receive()
        if message["type"] != "event":
            continue
        kind, facts, seq = message["kind"], message["data"], message["seq"]
        if kind == "commitment":  # our share of the next round's seed: random, never reused
            wire.send(type="nonce", round=facts["round"], nonce=secrets.token_hex(16))
        if kind == "match_over":
            return list(facts["scores"])
        if kind in MOVES:
            acted = False
        if kind != "turn" or acted:  # a turn after an UNO call shows the table we acted on
            continue
        # A turn closes a batch: its facts say what each seat may do now.
        if facts["seat"] != me:
            # One card and no UNO call: anyone else may catch it. A catch moves the table,
            # so one catch per table, and nothing else on it.
            catchable = [seat for seat in facts["catchable"] if seat != me]
            if catchable:
                wire.send(type="catch", seq=seq, target=catchable[0])
                acted = True
            continue
        if facts["phase"] not in ("play", "drawn", "color"):
            continue
        snapshot = wire.request(type="sync")  # the whole table, as of its seq
        wire.send(seq=snapshot["seq"], **decide(snapshot["view"]))
        acted = True
        # a refusal (e.g. too_late) arrives as an error without id: the table moved, and
        # the turn that closes its batch is a new one to act on


if __name__ == "__main__":
    print("final scores:", main(*sys.argv[1:]))
