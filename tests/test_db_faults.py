"""A request whose database connection breaks is answered 503 "try again", never 500
(config.db_faults, issue 45). The move's own retry is in
tests/security/test_database_faults.py; here, a read outside any move."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

from accounts.models import User

MESSAGE = "The server lost its database connection for a moment and nothing changed. Try again."

pytestmark = pytest.mark.django_db


def _lost() -> OperationalError:
    return OperationalError("terminating connection due to administrator command")


def test_a_page_whose_connection_breaks_in_a_middleware_says_try_again() -> None:
    """Fault: the session's user read by a middleware fails on a broken connection."""
    user = User.objects.create_user("mia", password="pw-not-used-1234")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    with mock.patch("accounts.language.account_language", side_effect=_lost()):
        response = client.get("/", HTTP_HX_REQUEST="true")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert MESSAGE in response.content.decode()


def test_a_view_whose_connection_breaks_says_try_again_in_the_players_language() -> None:
    """Fault: the lobby's reads fail on a broken connection; the player's language."""
    user = User.objects.create_user("noe", password="pw-not-used-1234", language="fr")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    with mock.patch("games.play.lobby.lobby_context", side_effect=_lost()):
        response = client.get("/")
    assert response.status_code == 503
    page = response.content.decode()
    assert "Réessayez" in page, page
    assert MESSAGE not in page


def test_any_other_error_stays_a_500() -> None:
    """A bug is a bug: only a lost connection is a 503."""
    user = User.objects.create_user("ola", password="pw-not-used-1234")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    with mock.patch("accounts.language.account_language", side_effect=RuntimeError("bug")):
        response = client.get("/")
    assert response.status_code == 500
