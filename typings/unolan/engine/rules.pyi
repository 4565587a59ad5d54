"""``unolan.engine.rules`` is engine/rules.py (see [tool.setuptools.package-dir]): mypy reads it there."""

from engine.rules import *
