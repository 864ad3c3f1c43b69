"""Sessions survive a cache outage (accounts.sessions): a Redis restart costs a query, not a 500."""

from __future__ import annotations

from unittest import mock

import pytest
from django.core.cache import caches

from accounts.sessions import SessionStore

pytestmark = pytest.mark.django_db


class Down(Exception):
    pass


def test_a_session_is_read_from_the_database_while_the_cache_is_down() -> None:
    session = SessionStore()
    session["player"] = "anne"
    session.create()
    key = session.session_key
    cache = caches["default"]
    with (
        mock.patch.object(cache, "get", side_effect=Down),
        mock.patch.object(cache, "set", side_effect=Down),
        mock.patch.object(cache, "delete", side_effect=Down),
    ):
        again = SessionStore(key)
        assert again["player"] == "anne"
        assert again.exists(key)
        again.delete()  # logging out still works: the database row is gone
    from django.contrib.sessions.models import Session

    assert not Session.objects.filter(session_key=key).exists()


def test_with_the_cache_up_a_session_is_read_from_the_cache(django_assert_num_queries) -> None:
    session = SessionStore()
    session["player"] = "bert"
    session.create()
    with django_assert_num_queries(0):
        assert SessionStore(session.session_key)["player"] == "bert"
