"""Log-in and sign-up are rate limited per IP and per account, with a clear message."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db


def _login(client: Client, username: str, password: str, ip: str = "10.0.0.1"):
    return client.post(
        reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=ip
    )


def test_login_locks_an_account_after_repeated_failures_from_one_ip(settings):
    get_user_model().objects.create_user("anne", password="correct horse battery")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, "anne", "wrong").status_code == 200
    locked = _login(client, "anne", "wrong")
    assert locked.status_code == 429
    assert b"Too many failed log-in attempts" in locked.content
    # Even the right password is refused while locked, and no session is made.
    again = _login(client, "anne", "correct horse battery")
    assert again.status_code == 429
    assert "_auth_user_id" not in client.session


def test_login_lock_is_per_account_and_ip_so_others_still_log_in(settings):
    get_user_model().objects.create_user("anne", password="correct horse battery")
    get_user_model().objects.create_user("bert", password="correct horse battery")
    client = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT):
        _login(client, "anne", "wrong")
    # Another account from the same address, and the same account from elsewhere, still work.
    assert _login(Client(), "bert", "correct horse battery").status_code == 302
    assert _login(Client(), "anne", "correct horse battery", ip="10.0.0.2").status_code == 302


@override_settings(SIGNUP_RATE_LIMIT=3)
def test_signup_is_limited_per_ip_with_a_message():
    client = Client()
    for i in range(3):
        response = client.post(
            reverse("signup"),
            {"username": f"user{i}", "password1": "a-long pass 41", "password2": "a-long pass 41"},
            REMOTE_ADDR="10.0.0.9",
        )
        assert response.status_code == 302
        client.logout()
    refused = client.post(
        reverse("signup"),
        {"username": "user9", "password1": "a-long pass 41", "password2": "a-long pass 41"},
        REMOTE_ADDR="10.0.0.9",
    )
    assert refused.status_code == 429
    assert b"Too many sign-ups" in refused.content
    assert not get_user_model().objects.filter(username="user9").exists()
    # Another address may still sign up.
    other = Client().post(
        reverse("signup"),
        {"username": "user9", "password1": "a-long pass 41", "password2": "a-long pass 41"},
        REMOTE_ADDR="10.0.0.10",
    )
    assert other.status_code == 302
