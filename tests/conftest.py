import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _fresh_cache():
    # Rate-limit and lock-out counters live in the cache; each test starts clean.
    cache.clear()
    yield
    cache.clear()
