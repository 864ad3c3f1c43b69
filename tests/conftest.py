import pytest

from tests.support.cache import clear_own_cache_keys, own_cache_prefix


@pytest.fixture(autouse=True, scope="session")
def _own_cache_keys():
    # The cache may be a shared Redis database: this run's keys carry a prefix of their own.
    with own_cache_prefix():
        yield


@pytest.fixture(autouse=True)
def _django_test_environment(settings):
    # Hashing passwords with PBKDF2's real cost dominates tests that create
    # users; the hasher is not what they test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Rate-limit and lock-out counters live in the cache; each test starts clean
    # (deleting only this run's keys, never flushing a shared database).
    clear_own_cache_keys()
    yield
    clear_own_cache_keys()
