"""Sign-up per IP: a club or a school behind one address can join; a script cannot.

The limit is a burst (SIGNUP_RATE_LIMIT attempts in any hour, a sliding window)
plus a sustained rate (SIGNUP_DAILY_LIMIT attempts in any day). Every POST
counts, so typing mistakes are part of the allowance.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from accounts import ratelimit

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "a-long pass 41"
CLUB_IP = "10.1.2.3"
MINUTE, HOUR = 60, 3600


class Clock:
    """The rate limiter's clock, moved by the test (the cache's own expiry only cleans up)."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(ratelimit, "clock", fake)
    return fake


def sign_up(name: str, *, ip: str = CLUB_IP, mistake: bool = False) -> Any:
    data = {
        "username": name,
        "password1": PASSWORD,
        "password2": PASSWORD + ("x" if mistake else ""),
    }
    return Client().post(reverse("signup"), data, REMOTE_ADDR=ip)


def test_a_club_of_30_joins_from_one_address_in_an_evening(clock: Clock) -> None:
    """30 members in 20 minutes, and 10 of them mistype their password once."""
    for number in range(30):
        if number % 3 == 0:
            assert sign_up(f"member{number}", mistake=True).status_code == 400
        assert sign_up(f"member{number}").status_code == 302, number
        clock.now += 40
    assert User.objects.count() == 30


def test_a_script_is_stopped_after_the_burst_with_a_message(clock: Clock) -> None:
    for number in range(settings.SIGNUP_RATE_LIMIT):
        assert sign_up(f"bot{number}").status_code == 302
    refused = sign_up("bot-extra")
    assert refused.status_code == 429
    assert "Too many sign-ups" in refused.content.decode()
    assert 'name="username"' in refused.content.decode()  # the form, with the message
    assert not User.objects.filter(username="bot-extra").exists()
    assert sign_up("neighbour", ip="10.9.9.9").status_code == 302  # another address
    clock.now += 30 * MINUTE
    assert sign_up("bot-later").status_code == 429  # the window slides, it does not reset


def test_the_burst_comes_back_with_time_but_the_day_has_a_ceiling(clock: Clock) -> None:
    created = 0
    while True:
        response = sign_up(f"bot{created}")
        if response.status_code == 429:
            clock.now += 2 * HOUR  # the hourly burst has slid out of the window
            response = sign_up(f"bot{created}")
            if response.status_code == 429:
                break
        assert response.status_code == 302
        created += 1
    assert created == settings.SIGNUP_DAILY_LIMIT
    assert settings.SIGNUP_DAILY_LIMIT > settings.SIGNUP_RATE_LIMIT
    clock.now += 2 * 24 * HOUR
    assert sign_up("bot-next-week").status_code == 302
