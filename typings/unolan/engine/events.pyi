"""``unolan.engine.events`` is engine/events.py (see [tool.setuptools.package-dir]): mypy reads it there."""

from engine.events import *
