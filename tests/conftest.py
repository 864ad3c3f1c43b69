"""Project-wide test set-up: Hypothesis profiles, per-worker Redis names, CI strictness.

- Hypothesis: ``HYPOTHESIS_PROFILE=thorough`` runs every property with today's full
  example counts (CI does); the default profile runs a tenth of them (see
  ``tests.support.examples``).
- pytest-xdist: each worker gets its own database (pytest-django appends ``_gw<n>``
  to the test database's name) and, when REDIS_URL is set, its own key prefix for
  the cache and the channel layer, so that workers sharing one Redis database never
  see (or delete) each other's keys, and tables with the same id in two workers'
  databases never share a channel group.
- ``CI=true``: a skip is a failure. A test that cannot find its service or binary
  (PostgreSQL, Redis, redis-server, chromium) must not pass silently in CI;
  locally it is skipped with the reason.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.test import override_settings
from hypothesis import settings as hypothesis_settings

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
REDIS_PREFIX = f"test-{WORKER}"

hypothesis_settings.register_profile("default", deadline=None)
hypothesis_settings.register_profile("thorough", deadline=None)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session", autouse=True)
def _redis_names_of_this_worker() -> Iterator[None]:
    """With REDIS_URL: this worker's own key prefix (cache) and channel prefix (layer)."""
    if not os.environ.get("REDIS_URL"):
        yield
        return
    caches = {**django_settings.CACHES}
    caches["default"] = {**caches["default"], "KEY_PREFIX": REDIS_PREFIX}
    layers = {**django_settings.CHANNEL_LAYERS}
    layer = layers["default"]
    layers["default"] = {**layer, "CONFIG": {**layer.get("CONFIG", {}), "prefix": REDIS_PREFIX}}
    # override_settings resets Django's cache handler and Channels' layer manager.
    with override_settings(CACHES=caches, CHANNEL_LAYERS=layers):
        yield


def clear_cache() -> None:
    """Empty this worker's part of the cache (never a whole Redis database: FLUSHDB)."""
    backend = getattr(cache, "_cache", None)
    if not os.environ.get("REDIS_URL") or not hasattr(backend, "get_client"):
        cache.clear()
        return
    client = backend.get_client(write=True)
    keys = list(client.scan_iter(match=f"{REDIS_PREFIX}:*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture(autouse=True)
def _django_test_environment(settings: Any) -> Iterator[None]:
    # Hashing passwords with PBKDF2's real cost dominates tests that create
    # users; the hasher is not what they test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Rate-limit and lock-out counters live in the cache; each test starts clean.
    clear_cache()
    yield
    clear_cache()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where every service must be there: {reason}"
    return report
