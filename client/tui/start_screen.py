"""What the start screen shows: the games found on the LAN and the one under the cursor.

Data only, so that the UI's state can hold it without importing the screen's keys and
networking (:mod:`.start`), which import the state.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the browsing itself, and python-zeroconf, load with the screen)
    from unolan.client.discovery import Game


@dataclass(slots=True)
class StartScreen:
    """What the start screen shows."""

    games: list[Game] = field(default_factory=list)
    cursor: int = 0
    searching: bool = True  # the first moments of a search: "searching…", not "none found"
    problem: str = ""  # why the LAN cannot be searched here
    joining: str = ""  # the address chosen, until its connection starts

    def selected(self) -> Game | None:
        return self.games[self.cursor] if self.games else None

    def show(self, games: list[Game]) -> None:
        """A new list; the cursor stays on the game it was on."""
        chosen = self.selected()
        self.games = games
        keys = [g.key for g in games]
        self.cursor = keys.index(chosen.key) if chosen and chosen.key in keys else \
            min(self.cursor, max(0, len(games) - 1))

    def restart(self) -> None:
        self.games, self.cursor, self.searching, self.problem = [], 0, True, ""
