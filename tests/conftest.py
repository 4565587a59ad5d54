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
@pytest.fixture(autouse=True)
def english(monkeypatch: pytest.MonkeyPatch):
    """Every test starts in English whatever the developer's locale (the language comes
    from LC_ALL / LC_MESSAGES / LANG), and leaves English behind if it switched."""
    from unolan.client import i18n

    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    i18n.set_language(i18n.ENGLISH)
    yield
    i18n.set_language(i18n.ENGLISH)
