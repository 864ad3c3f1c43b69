"""Project-wide test set-up: Hypothesis profiles, per-process Redis names, CI strictness.

- Hypothesis: ``HYPOTHESIS_PROFILE=thorough`` runs every property with today's full
  example counts (CI does); the default profile runs a tenth of them (see
  ``tests.support.examples``).
- pytest-xdist: each worker gets its own database (pytest-django appends ``_gw<n>``
  to the test database's name), its own cache key prefix (tests.support.cache: one
  per process) and, with REDIS_URL, its own channel-layer prefix, so that tables with
  the same id in two workers' databases never share a channel group.
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
from django.test import override_settings
from django.utils import translation
from hypothesis import settings as hypothesis_settings

from config.catalogues import compile_all
from tests.support.cache import PREFIX, clear_own_cache_keys, own_cache_prefix

CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

# The computer players' moves (issue 48): a test makes them itself
# (games.computer.moves.run_due); only the server processes a test starts
# (tests.support.servers) run the background runner.
os.environ["COMPUTER_RUNNER"] = "0"

# The translations as Django reads them (issue 13): `make test` compiles them first
# (manage.py compile_catalogues); a bare pytest run compiles what is out of date.
for _locale_dir in django_settings.LOCALE_PATHS:
    compile_all(_locale_dir, only_stale=True)

hypothesis_settings.register_profile("default", deadline=None)
hypothesis_settings.register_profile("thorough", deadline=None, derandomize=CI)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(autouse=True, scope="session")
def _own_cache_keys() -> Iterator[None]:
    # The cache may be a shared Redis database: this run's keys carry a prefix of their own.
    with own_cache_prefix():
        yield


@pytest.fixture(autouse=True, scope="session")
def _own_channel_names() -> Iterator[None]:
    """With Redis as the channel layer: this process's own prefix for channels and groups."""
    layer = django_settings.CHANNEL_LAYERS["default"]
    if "redis" not in layer["BACKEND"]:
        yield
        return
    config = {**layer.get("CONFIG", {}), "prefix": PREFIX}
    # override_settings resets Channels' layer manager (its setting_changed handler).
    with override_settings(CHANNEL_LAYERS={"default": {**layer, "CONFIG": config}}):
        yield


@pytest.fixture(autouse=True)
def _django_test_environment(settings: Any) -> Iterator[None]:
    # Hashing passwords with PBKDF2's real cost dominates tests that create
    # users; the hasher is not what they test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # A computer player moves at once in tests (a person needs about a second to follow).
    settings.COMPUTER_MOVE_DELAY_MS = 0
    # A request's language stays active in its thread afterwards (the locale
    # middleware activates it, nothing deactivates it): each test starts in the
    # default language, whatever the previous test's requests read.
    translation.activate(settings.LANGUAGE_CODE)
    # Rate-limit and lock-out counters live in the cache; each test starts clean
    # (deleting only this run's keys, never flushing a shared database).
    clear_own_cache_keys()
    yield
    clear_own_cache_keys()
    translation.deactivate()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, where every service must be there: {reason}"
    return report


# -- pytest-xdist: what shares a worker, and what starts first -----------------------------

#: The longest scopes (modules, and the packages of ONE_WORKER_PACKAGES), longest first:
#: each worker takes the next one as it runs short, so the longest are handed out at the
#: start and the workers' last minutes are short modules, not one long game on a worker
#: while the other idles. The seconds (2 workers, PostgreSQL and Redis, 2026-12-03) are
#: only there to order the list; a module not listed runs after these.
LONG_FIRST = (
    "tests/security/test_hidden_information.py",  # 44 s: three socket games
    "tests/security/test_authorization_matrix.py",  # 41 s: 654 cells
    "tests/after/",  # 28 s: the package's finished games, then six modules
    "tests/games/test_simulate_tables.py",  # 26 s
    "tests/live/test_consumer.py",  # 22 s
    "tests/security/test_bad_input.py",  # 22 s
    "tests/games/test_views.py",  # 20 s
    "tests/security/test_concurrency.py",  # 20 s: one storm of tables
    "tests/games/test_hidden_information.py",  # 16 s
    "tests/security/test_faults.py",  # 14 s
    "tests/test_settings.py",  # 11 s: settings read in subprocesses
    "tests/live/test_multiprocess.py",  # 10 s
    "tests/games/test_driver.py",  # 10 s
    "tests/i18n/test_pages.py",  # 8 s
    "tests/games/test_lobby.py",  # 8 s
)
#: Packages whose package-scoped fixture (a set of complete games) must be built once:
#: all their modules run on one worker.
ONE_WORKER_PACKAGES = ("tests/after/",)


def _long_rank(nodeid: str) -> int:
    return next(
        (i for i, path in enumerate(LONG_FIRST) if nodeid.startswith(path)), len(LONG_FIRST)
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Stable: within a rank, collection order (and so each module's own order) stays.
    items.sort(key=lambda item: _long_rank(item.nodeid))


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """--dist loadscope: each package of ONE_WORKER_PACKAGES one scope, LONG_FIRST first."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class PackageScopes(LoadScopeScheduling):
        def __init__(self, config: pytest.Config, log: Any = None) -> None:
            super().__init__(config, log)
            # xdist's own order (--loadscope-reorder, its default) puts the scopes with
            # the most tests first, which is not the longest first: the authorization
            # matrix's 654 quick cells started before a module of three long games.
            # The collection order is already longest first (pytest_collection_modifyitems).
            config.option.loadscopereorder = False

        def _split_scope(self, nodeid: str) -> str:
            package = next((p for p in ONE_WORKER_PACKAGES if nodeid.startswith(p)), None)
            return package or super()._split_scope(nodeid)

    return PackageScopes(config, log)
