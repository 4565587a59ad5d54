"""``unolan.engine.phases`` is engine/phases.py (see [tool.setuptools.package-dir]): mypy reads it there."""

from engine.phases import *
