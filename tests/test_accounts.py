"""Sign-up, log-in, log-out, password change and the ?next redirects (pages)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "a-long-Secret-42"


def _signup(client: Client, username: str, **extra: str):
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post(reverse("signup"), data)


def test_signup_page_renders(client):
    response = client.get(reverse("signup"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="username"' in html and 'name="password1"' in html
    assert 'name="next"' in html


def test_signup_creates_the_user_logs_in_and_goes_home(client):
    response = _signup(client, "Anne")
    assert response.status_code == 302 and response["Location"] == reverse("home")
    assert User.objects.filter(username="Anne").exists()
    home = client.get(reverse("home"))
    assert "Anne" in home.content.decode() and "Create table" in home.content.decode()


def test_signup_with_next_comes_back_to_it(client):
    response = _signup(client, "anne", next="/rules/")
    assert response.status_code == 302 and response["Location"] == "/rules/"


def test_signup_ignores_an_offsite_next(client):
    response = _signup(client, "anne", next="https://evil.example/")
    assert response.status_code == 302 and response["Location"] == reverse("home")


def test_signup_duplicate_username_ignoring_case_is_refused(client):
    _signup(Client(), "Anne")
    response = _signup(client, "aNNE")
    assert response.status_code == 400
    assert "taken" in response.content.decode()
    assert User.objects.filter(username__iexact="anne").count() == 1


def test_signup_password_mismatch_shows_the_error(client):
    response = client.post(
        reverse("signup"),
        {"username": "anne", "password1": PASSWORD, "password2": PASSWORD + "x"},
    )
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert not User.objects.exists()


def test_log_in_and_out(client):
    User.objects.create_user("anne", password=PASSWORD)
    page = client.get(reverse("login"))
    assert page.status_code == 200 and reverse("signup") in page.content.decode()
    response = client.post(reverse("login"), {"username": "ANNE", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("home")
    html = client.get(reverse("home")).content.decode()
    assert "Log out" in html and reverse("password_change") in html
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    html = client.get(reverse("home")).content.decode()
    assert "Log out" not in html and reverse("login") in html


def test_log_in_wrong_password_stays_on_the_form(client):
    User.objects.create_user("anne", password=PASSWORD)
    response = client.post(reverse("login"), {"username": "anne", "password": "nope"})
    assert response.status_code == 200
    assert 'role="alert"' in response.content.decode()


def test_anonymous_users_are_sent_to_log_in_with_next(client):
    for url in (reverse("password_change"), "/tables/1/", "/join/abc/"):
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(f"{reverse('login')}?next="), url


def test_log_in_honours_next(client):
    User.objects.create_user("anne", password=PASSWORD)
    response = client.post(
        reverse("login"), {"username": "anne", "password": PASSWORD, "next": "/rules/"}
    )
    assert response.status_code == 302 and response["Location"] == "/rules/"


def test_log_in_page_carries_next_to_the_signup_link(client):
    response = client.get(reverse("login"), {"next": "/join/abc/"})
    html = response.content.decode()
    assert f"{reverse('signup')}?next=/join/abc/" in html
    assert 'name="next" value="/join/abc/"' in html


def test_home_is_public_and_rules_too(client):
    assert client.get(reverse("home")).status_code == 200
    assert client.get(reverse("rules")).status_code == 200


def test_password_change(client):
    user = User.objects.create_user("anne", password=PASSWORD)
    client.force_login(user)
    assert client.get(reverse("password_change")).status_code == 200
    response = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "another-Secret-77",
            "new_password2": "another-Secret-77",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("password_change_done")
    assert client.get(reverse("password_change_done")).status_code == 200
    user.refresh_from_db()
    assert user.check_password("another-Secret-77")


def test_logged_in_user_visiting_log_in_or_sign_up_is_sent_on(client):
    user = User.objects.create_user("anne", password=PASSWORD)
    client.force_login(user)
    assert client.get(reverse("login")).status_code == 302
    assert client.get(reverse("signup")).status_code == 302


def test_error_pages_render(client):
    response = client.get("/no/such/page/")
    assert response.status_code == 404
    assert "Not found" in response.content.decode()
