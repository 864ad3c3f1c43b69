import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def _django_test_environment(settings):
    # Hashing passwords with PBKDF2's real cost dominates tests that create
    # users; the hasher is not what they test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Rate-limit and lock-out counters live in the cache; each test starts clean.
    cache.clear()
    yield
    cache.clear()
