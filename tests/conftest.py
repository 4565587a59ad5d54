import pytest
import trio.testing

# Shared helpers imported by the test modules: rewrite their asserts too, for clear failures.
pytest.register_assert_rewrite("scenario", "random_play")


@pytest.fixture
def thread_clock() -> trio.testing.MockClock:
    """Trio's mock clock for a test whose server works in threads (database writes,
    password hashes): it runs at the real pace and jumps ahead only when nothing
    happened for 50 ms, never while a thread is at work (the ``autojump_clock`` would
    jump at once, firing timers early)."""
    return trio.testing.MockClock(rate=1, autojump_threshold=0.05)
