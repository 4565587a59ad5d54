"""``unolan.engine`` is the folder engine/ (see [tool.setuptools.package-dir]): mypy reads it there."""

from engine import *
