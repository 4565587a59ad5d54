"""The benchmarks still run and report their figures (tiny sizes: not a measurement).

The figures the issues and docs/reliability.md quote come from these scripts; a script
that broke would go unnoticed until someone needed a figure.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _run(script: str, *args: str, timeout: float) -> str:
    done = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_engine_bench_reports_games_and_actions() -> None:
    out = _run("engine.py", "--seconds", "0.2", "--presets", "official,house", "--slices", "1",
               timeout=60)
    for preset in ("official", "house"):
        line = re.search(rf"unolan pure {preset}\s+(\d+) games/s\s+([\d.]+) us/action", out)
        assert line is not None, out
        assert int(line[1]) > 0 and float(line[2]) > 0


@pytest.mark.slow
def test_server_bench_reports_every_server_and_the_ratios() -> None:
    out = _run("server.py", "--rooms", "4", "--warmup", "0.3", "--duration", "2", timeout=120)
    header = out.splitlines()[1].split()
    assert header == ["server", "server", "--no-db", "baseline"], out
    actions = re.search(r"^actions_per_s\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M)
    assert actions is not None and all(float(x) > 0 for x in actions.groups()), out
    # The event loop's share and the other threads' add up to the whole (the store's
    # thread only works when a match ends or every 500th transaction: maybe not in 2 s).
    cpu = re.search(r"^cpu_us_per_action\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M)
    loop = re.search(r"^loop_thread_us\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M)
    split = re.search(r"^other_threads_us\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)$", out, re.M)
    assert cpu is not None and loop is not None and split is not None, out
    for column in (1, 2, 3):
        total = float(loop[column]) + float(split[column])
        assert abs(total - float(cpu[column])) <= 0.2 and float(loop[column]) > 0, out
    assert float(split[2]) == float(split[3]) == 0, out  # no store, no thread
    rss = re.search(r"^rss_end_per_client_kib\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)$", out, re.M)
    assert rss is not None and "after the window" in out, out
    dropped = re.search(r"^dropped\s+(\d+)\s+(\d+)\s+(\d+)$", out, re.M)
    assert dropped is not None and dropped.groups() == ("0", "0", "0"), out
    for ratio in ("server/baseline", "database/--no-db"):
        assert re.search(rf"ratio cpu/action {ratio}: +[\d.]+", out), out
