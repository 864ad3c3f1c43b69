"""The account page and the e-mail address at sign-up (issue 49: accounts people can recover).

The address is optional everywhere; it is what a password reset is sent to
(tests/test_password_reset.py). Changing it asks for the current password, so an open
session alone cannot point the account's resets at another mailbox.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "a-long-Secret-42"


def sign_up(client: Client, username: str, **extra: str) -> Any:
    data = {"username": username, "password1": PASSWORD, "password2": PASSWORD, **extra}
    return client.post(reverse("signup"), data)


@pytest.fixture
def anne() -> Any:
    return User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)


@pytest.fixture
def logged_in(anne: Any) -> Client:
    client = Client()
    client.force_login(anne)
    return client


def change(client: Client, email: str, password: str = PASSWORD) -> Any:
    return client.post(reverse("profile"), {"email": email, "password": password})


# ---------------------------------------------------------------------------
# sign-up
# ---------------------------------------------------------------------------


def test_the_sign_up_form_offers_an_optional_address(client: Client) -> None:
    html = client.get(reverse("signup")).content.decode()
    assert 'name="email"' in html and 'type="email"' in html
    assert "forget your password" in html
    assert 'autocomplete="email"' in html


def test_signing_up_with_an_address_keeps_it_and_without_one_too(client: Client) -> None:
    assert sign_up(client, "anne", email="anne@example.org").status_code == 302
    assert User.objects.get(username="anne").email == "anne@example.org"
    assert sign_up(Client(), "bert").status_code == 302
    assert User.objects.get(username="bert").email == ""


def test_signing_up_with_a_malformed_address_says_so(client: Client) -> None:
    response = sign_up(client, "anne", email="not-an-address")
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert not User.objects.filter(username="anne").exists()


def test_two_accounts_may_share_an_address(client: Client) -> None:
    """The site's choice (accounts.forms.PasswordResetForm): a family's mailbox."""
    assert sign_up(client, "anne", email="home@example.org").status_code == 302
    assert sign_up(Client(), "bert", email="HOME@example.org").status_code == 302


# ---------------------------------------------------------------------------
# the account page
# ---------------------------------------------------------------------------


def test_the_account_page_is_for_logged_in_users(client: Client) -> None:
    response = client.get(reverse("profile"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


def test_the_header_leads_to_the_account_page_which_shows_the_address(logged_in: Client) -> None:
    assert reverse("profile") in logged_in.get(reverse("home")).content.decode()
    html = logged_in.get(reverse("profile")).content.decode()
    assert "Your account" in html and "<strong>anne</strong>" in html
    assert "<strong>anne@example.org</strong>" in html
    assert 'value="anne@example.org"' in html
    # The password and the statistics are one click away.
    assert reverse("password_change") in html
    assert reverse("player", args=["anne"]) in html


def test_changing_the_address_with_the_password(logged_in: Client, anne: Any) -> None:
    response = change(logged_in, "anne@new.example")
    assert response.status_code == 302 and response["Location"] == reverse("profile")
    anne.refresh_from_db()
    assert anne.email == "anne@new.example"
    html = logged_in.get(reverse("profile")).content.decode()
    assert "Your e-mail address was saved." in html
    assert "<strong>anne@new.example</strong>" in html


def test_removing_the_address_warns_that_no_reset_can_be_sent(logged_in: Client, anne: Any) -> None:
    assert change(logged_in, "").status_code == 302
    anne.refresh_from_db()
    assert anne.email == ""
    html = logged_in.get(reverse("profile")).content.decode()
    assert "Your e-mail address was removed." in html
    assert "Your account has no e-mail address" in html


@pytest.mark.parametrize(
    ("email", "password", "error"),
    [
        ("anne@new.example", "wrong-password", "That is not your password."),
        ("anne@new.example", "", "This field is required."),
        ("not-an-address", PASSWORD, "Enter a valid email address."),
    ],
)
def test_a_refused_change_says_why_and_changes_nothing(
    logged_in: Client, anne: Any, email: str, password: str, error: str
) -> None:
    response = change(logged_in, email, password)
    assert response.status_code == 400
    html = response.content.decode()
    assert error in html and 'role="alert"' in html
    # The address shown as saved is still the old one.
    assert "<strong>anne@example.org</strong>" in html
    anne.refresh_from_db()
    assert anne.email == "anne@example.org"


def test_the_password_cannot_be_guessed_on_the_account_page(logged_in: Client, anne: Any) -> None:
    for _ in range(10):
        assert change(logged_in, "x@evil.example", "guess").status_code == 400
    # Past the limit even the right password is not checked.
    refused = change(logged_in, "x@evil.example", PASSWORD)
    assert refused.status_code == 429
    assert "Too many attempts" in refused.content.decode()
    assert "That is not your password" not in refused.content.decode()
    anne.refresh_from_db()
    assert anne.email == "anne@example.org"


def test_the_account_page_answers_get_and_post_only(logged_in: Client) -> None:
    assert logged_in.put(reverse("profile")).status_code == 405
    assert logged_in.delete(reverse("profile")).status_code == 405
