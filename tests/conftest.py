import pytest

# Shared helpers imported by the test modules: rewrite their asserts too, for clear failures.
pytest.register_assert_rewrite("scenario", "random_play")
