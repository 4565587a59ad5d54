"""``unolan.engine.cards`` is engine/cards.py (see [tool.setuptools.package-dir]): mypy reads it there."""

from engine.cards import *
