"""The package build: pure Python by default; ``UNOLAN_COMPILE=1`` compiles the engine.

Everything else about the package is in pyproject.toml. With ``UNOLAN_COMPILE=1`` the
modules of engine/ (installed as ``unolan.engine``) are compiled to C extensions by
mypyc, from the same source, and installed beside that source; a C compiler is needed
then, and mypy (which ships mypyc) joins the build's requirements by itself (see
build_backend.py). A compiled engine is a regular install only: an editable one would
leave the extensions in engine/, where they would hide the source from every later
pure install. README.md, "The compiled engine", says how to build it and go back.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

from build_backend import compile_requested

HERE = Path(__file__).parent
# The engine's modules under the import names they are installed with: typecheck/unolan
# is the installed tree as links (typecheck/unolan/engine -> engine), so mypyc names each
# module unolan.engine.* and the extensions land where the package does.
ENGINE = HERE / "typecheck" / "unolan" / "engine"


def _fail(message: str) -> None:
    sys.exit(f"UNOLAN_COMPILE=1: {message}\n"
             "Or leave UNOLAN_COMPILE unset for the pure-Python engine, which needs neither.")


def _check_c_compiler() -> None:
    """Fail with a clear line, before any work, when there is no C compiler to run."""
    command = os.environ.get("CC") or sysconfig.get_config_var("CC")
    if not command:  # Windows: setuptools finds MSVC itself, and says so if it cannot
        return
    program = shlex.split(command)[0]
    if shutil.which(program) is None:
        _fail(f"compiling the engine needs a C compiler, and {program!r} is not installed "
              "(on Debian or Ubuntu: apt install gcc; on macOS: xcode-select --install).")


def compiled_engine() -> list[Any]:  # setuptools' Extension values
    """The engine's extensions when compiling is asked for, else none."""
    if not compile_requested():
        return []
    _check_c_compiler()
    try:
        from mypyc.build import mypycify
    except ImportError:
        _fail("compiling the engine needs mypyc, which comes with mypy: pip install mypy, "
              "or build with pip's default build isolation (it installs mypy for the build).")
    sources = sorted(str(path.relative_to(HERE)) for path in ENGINE.glob("*.py"))
    if not sources:
        _fail(f"no engine sources under {ENGINE.relative_to(HERE)}: compile from a checkout of "
              "the repository, where that folder links to engine/.")
    # One shared library for all modules: calls between them stay native. MYPYC_OPT_LEVEL
    # (as for the mypyc command) trades speed for build time: 0 builds quickest.
    return mypycify(sources, opt_level=os.environ.get("MYPYC_OPT_LEVEL", "3"), group_name="unolan_engine")


class BuildExt(build_ext):
    """Refuses to compile the engine in place (an editable install); compiles afresh."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1
        # Always compile: the objects a previous build left in build/ look up to date
        # whatever the flags (MYPYC_OPT_LEVEL) they were compiled with.
        self.force = True

    def run(self) -> None:
        if self.extensions and (self.inplace or getattr(self, "editable_mode", False)):
            _fail("the compiled engine is built by a regular install (pip install .), not an "
                  "editable one (-e): in place its extensions would shadow engine/'s source "
                  "for every later install.")
        super().run()


setup(ext_modules=compiled_engine(), cmdclass={"build_ext": BuildExt})
