"""The player's settings kept between runs (the table's theme): ``config.json`` in the
user's config directory (``platformdirs``; on Linux ``~/.config/unolan``).

A file that cannot be read or holds something else is no settings at all, never an
error: the defaults apply, and the next setting chosen writes a good file again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import platformdirs


def default_path() -> Path:
    return platformdirs.user_config_path("unolan", appauthor=False) / "config.json"


def load(path: Path | None = None) -> dict[str, Any]:
    """The settings saved (empty when there are none, or the file is not ours)."""
    try:
        data = json.loads((path or default_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save(key: str, value: Any, path: Path | None = None) -> None:
    """Keep ``key``: ``value`` with the other settings (written whole, then renamed)."""
    path = path or default_path()
    settings = {**load(path), key: value}
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)
