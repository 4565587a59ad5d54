"""kill -9 of a real server while four players play (and eight, at two tables): nothing acknowledged is lost, and
every table a player held (each resumed one too) is the stored game's ``view(seat)``.

The in-suite run is short (a few kills, within a minute); ``python bench/crash.py``
runs the long one whose figures are in docs/reliability.md.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import trio

BENCH = Path(__file__).resolve().parent.parent / "bench" / "crash.py"


def load_crash():
    spec = importlib.util.spec_from_file_location("crash", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["crash"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


async def test_kill_9_loses_no_acknowledged_action_and_no_table(tmp_path: Path) -> None:
    crash = load_crash()
    with trio.fail_after(60):  # the real subprocess, real kills: bounded
        report = await crash.run(kills=4, seed=7, workdir=tmp_path, budget=55)
    assert report.kills == 4 and report.after_ok == 2
    assert report.acked >= 20 and report.lost == 0
    assert report.stored >= report.acked
    assert report.resumes >= 4 * 4  # every player resumed after every kill, and was checked
    assert report.tables > report.resumes and report.wrong == []
    assert report.tracebacks == 0


@pytest.mark.slow
async def test_kill_9_in_a_two_table_room_loses_nothing_at_either_table(tmp_path: Path) -> None:
    crash = load_crash()
    with trio.fail_after(60):
        report = await crash.run(kills=2, seed=3, workdir=tmp_path, budget=55, players=8)
    assert report.kills == 2 and report.after_ok == 1
    assert report.acked >= 16 and report.lost == 0
    assert report.resumes >= 2 * 8  # all eight players resumed after each kill, and were checked
    assert report.tables > report.resumes and report.wrong == []
    assert report.tracebacks == 0
