"""Issue 13: how a page's language is chosen, and where the choice is kept.

Accept-Language on a first visit; the language cookie over it; the header's
selector (Django's set_language: POST only, CSRF-checked) sets the cookie and, for
a logged-in user, the account (User.language); the account's language is applied
at log-in and on every request; the live table (games.live.frames) reads the same.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games.live import frames
from games.testing.factories import make_user

pytestmark = pytest.mark.django_db

COOKIE = settings.LANGUAGE_COOKIE_NAME


def lang_of(response: Any) -> str:
    html = response.content.decode()
    return html.split('<html lang="', 1)[1].split('"', 1)[0]


def test_a_first_visit_follows_accept_language() -> None:
    client = Client(headers={"accept-language": "de-DE,de;q=0.9,en;q=0.5"})
    response = client.get(reverse("rules"))
    assert lang_of(response) == "de"
    assert "Regeln" in response.content.decode()
    assert lang_of(Client(headers={"accept-language": "it"}).get("/")) == "en"  # not spoken


def test_the_cookie_wins_over_accept_language() -> None:
    client = Client(headers={"accept-language": "de"})
    client.cookies[COOKIE] = "es"
    assert lang_of(client.get("/")) == "es"


def test_the_selector_posts_with_csrf_and_sets_the_cookie() -> None:
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("rules"))
    html = page.content.decode()
    assert 'action="/accounts/language/"' in html and 'name="language"' in html
    for code in ("fr", "en", "de", "es"):
        assert f'<option value="{code}" lang="{code}"' in html
    refused = client.post(reverse("set_language"), {"language": "fr", "next": "/rules/"})
    assert refused.status_code == 403  # no CSRF token
    token = client.cookies["csrftoken"].value
    response = client.post(
        reverse("set_language"),
        {"language": "fr", "next": "/rules/", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302 and response["Location"] == "/rules/"
    assert client.cookies[COOKIE].value == "fr"
    assert lang_of(client.get("/rules/")) == "fr"
    assert client.get(reverse("set_language")).status_code == 405


def test_a_logged_in_choice_is_kept_on_the_account() -> None:
    anne = make_user("anne")
    client = Client()
    client.force_login(anne)
    client.post(reverse("set_language"), {"language": "de", "next": "/"})
    anne.refresh_from_db()
    assert anne.language == "de"
    assert frames.language_of(anne) == "de"  # the live table speaks it too


def test_log_in_applies_the_account_language_over_the_browser_s() -> None:
    anne = make_user("anne", language="es")
    anne.set_password("Parrot-and-plank-42")
    anne.save()
    client = Client(headers={"accept-language": "fr"})
    assert lang_of(client.get(reverse("login"))) == "fr"
    response = client.post(
        reverse("login"), {"username": "anne", "password": "Parrot-and-plank-42"}
    )
    assert response.status_code == 302
    assert client.cookies[COOKIE].value == "es"
    assert lang_of(client.get("/")) == "es"
    # Logged out, the page stays as it was (the cookie).
    client.post(reverse("logout"))
    assert lang_of(client.get("/")) == "es"


def test_signing_up_keeps_the_language_the_visitor_reads() -> None:
    client = Client()
    client.cookies[COOKIE] = "fr"
    password = "Parrot-and-plank-42"
    response = client.post(
        reverse("signup"), {"username": "nina", "password1": password, "password2": password}
    )
    assert response.status_code == 302
    from accounts.models import User

    assert User.objects.get(username="nina").language == "fr"


def test_an_account_without_a_language_takes_its_browser_s() -> None:
    """An account made before the languages: its live table follows its browser."""
    bert = make_user("bert")
    client = Client(headers={"accept-language": "de"})
    client.force_login(bert)
    assert lang_of(client.get("/")) == "de"
    bert.refresh_from_db()
    assert bert.language == "de"
    # English, the default, needs no write: an empty language already means it.
    cleo = make_user("cleo")
    english = Client(headers={"accept-language": "en"})
    english.force_login(cleo)
    english.get("/")
    cleo.refresh_from_db()
    assert cleo.language == "" and frames.language_of(cleo) == "en"
