"""The build backend: setuptools', asking for mypy too when the engine is to be compiled.

pip builds in an isolated environment holding only what the backend asks for. The
compiled build (``UNOLAN_COMPILE=1``, see setup.py) needs mypyc, which comes with mypy,
so the backend asks for it then, and only then.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403  # every other hook, as setuptools has it

MYPYC = "mypy>=1.11"


def compile_requested() -> bool:
    """Whether this build compiles the engine: ``UNOLAN_COMPILE`` set, and not to 0."""
    return os.environ.get("UNOLAN_COMPILE", "").strip().lower() not in ("", "0", "no", "off", "false")


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    # setuptools' own answer runs setup.py, which cannot compile anything before mypy is
    # there; the project asks for nothing else (setuptools 70.1 and later need no wheel).
    if compile_requested():
        return [MYPYC]
    return build_meta.get_requires_for_build_wheel(config_settings)


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    # Asked for here too, so that the build reaches setup.py's own word on editable installs.
    if compile_requested():
        return [MYPYC]
    return build_meta.get_requires_for_build_editable(config_settings)
