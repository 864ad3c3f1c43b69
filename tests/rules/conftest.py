"""The rules tests are pure: no Django settings, database or cache needed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _django_test_environment() -> Iterator[None]:
    # Overrides the project-wide autouse fixture (tests/conftest.py), which clears Django's
    # cache: the rules engine never touches it, so these tests also run with -p no:django.
    yield
