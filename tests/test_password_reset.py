"""A forgotten password (issue 49): Django's reset views, the site's policy around them.

- The log-in page and the axes lock-out page lead to "Forgot your password?".
- No user enumeration: a known address, an unknown one, an account without an
  address, an inactive account and a computer player's all get the same answer.
- The link: single-use (a used link no longer works), expiring (PASSWORD_RESET_TIMEOUT),
  and it lifts the account's lock-out.
- The mail speaks the visitor's language; several accounts on one address each get
  their own; requests are limited per IP (429) and mails per address (silently).
- The e-mail settings: console by default, SMTP from the environment, files for tests.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse

pytestmark = pytest.mark.django_db

User = get_user_model()
ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "a-long-Secret-42"
NEW_PASSWORD = "Another-long-Secret-77"
LINK = re.compile(r"https?://[^/\s]+(/accounts/password/reset/[^/\s]+/[^/\s]+/)")


def ask(client: Client, email: str, **extra: Any) -> Any:
    return client.post(reverse("password_reset"), {"email": email}, **extra)


def link_in(message: Any) -> str:
    found = LINK.search(message.body)
    assert found, message.body
    return found.group(1)


def reset_with(client: Client, link: str, password: str = NEW_PASSWORD) -> Any:
    """Open the mail's link (Django swaps the token for a session and redirects), set
    ``password``: the last answer."""
    opened = client.get(link)
    assert opened.status_code == 302, opened.status_code
    form = opened["Location"]
    assert client.get(form).status_code == 200
    return client.post(form, {"new_password1": password, "new_password2": password})


def logs_in(username: str, password: str) -> bool:
    client = Client()
    response = client.post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302 and "_auth_user_id" in client.session


# ---------------------------------------------------------------------------
# the way in
# ---------------------------------------------------------------------------


def test_the_log_in_page_links_to_the_reset_page_which_anyone_may_open(client: Client) -> None:
    assert reverse("password_reset") in client.get(reverse("login")).content.decode()
    page = client.get(reverse("password_reset"))
    assert page.status_code == 200  # LoginRequiredMiddleware lets a visitor in
    html = page.content.decode()
    assert "Forgot your password?" in html and 'name="email"' in html
    for name in ("password_reset_done", "password_reset_complete"):
        assert client.get(reverse(name)).status_code == 200


def test_the_lock_out_page_leads_to_the_reset_and_a_new_password_lifts_the_lock() -> None:
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    player = Client()
    for _ in range(django_settings.AXES_FAILURE_LIMIT):
        locked = player.post(reverse("login"), {"username": "Anne", "password": "wrong"})
    assert locked.status_code == 429
    html = locked.content.decode()
    assert reverse("password_reset") in html and "Reset my password" in html
    # Even the right password, spelt as in the failed tries.
    assert (
        player.post(reverse("login"), {"username": "Anne", "password": PASSWORD}).status_code == 429
    )

    ask(player, "anne@example.org")
    assert reset_with(player, link_in(mail.outbox[0])).status_code == 302
    # At once, from the same address: the lock went with the old password.
    response = player.post(reverse("login"), {"username": "Anne", "password": NEW_PASSWORD})
    assert response.status_code == 302 and "_auth_user_id" in player.session


# ---------------------------------------------------------------------------
# the same answer for everyone
# ---------------------------------------------------------------------------


def _answer(email: str) -> tuple[int, str, str]:
    client = Client()
    response = ask(client, email)
    done = client.get(response["Location"]).content.decode()
    # What differs from one request to the next whatever the address: tokens, nonces.
    done = re.sub(r'value="[^"]{32,}"|"X-CSRFToken": "[^"]+"|nonce="[^"]+"', "", done)
    return response.status_code, response["Location"], done


def test_known_and_unknown_addresses_get_the_same_answer_and_only_an_account_a_mail() -> None:
    User.objects.create_user("anne", email="Anne@Example.org", password=PASSWORD)
    User.objects.create_user("nomail", email="", password=PASSWORD)
    User.objects.create_user("gone", email="gone@example.org", password=PASSWORD, is_active=False)
    User.objects.create_user("robot", email="robot@example.org")  # no usable password
    known = _answer("anne@example.org")  # addresses ignore case
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["Anne@example.org"]  # the domain as create_user normalised it
    assert "anne" in message.body and link_in(message)
    for address in ("nobody@example.org", "gone@example.org", "robot@example.org"):
        assert _answer(address) == known, address
    assert len(mail.outbox) == 1
    assert known[0] == 302 and known[1] == reverse("password_reset_done")
    assert "If an account has this e-mail address" in known[2]


def test_an_empty_or_malformed_address_is_bad_input_and_sends_nothing(client: Client) -> None:
    User.objects.create_user("nomail", email="", password=PASSWORD)
    for value in ("", "   ", "not-an-address"):
        response = ask(client, value)
        assert response.status_code == 400, value
        assert 'role="alert"' in response.content.decode()
    assert mail.outbox == []


def test_accounts_sharing_an_address_each_get_their_own_mail() -> None:
    """The site's choice (accounts.forms.PasswordResetForm): one address may serve
    several accounts; each mail names its account and resets only that one."""
    User.objects.create_user("anne", email="home@example.org", password=PASSWORD)
    User.objects.create_user("bert", email="home@example.org", password=PASSWORD)
    ask(Client(), "home@example.org")
    assert len(mail.outbox) == 2
    by_name = {}
    for message in mail.outbox:
        (name,) = re.findall(r"Your username is (\w+)\.", message.body)
        by_name[name] = link_in(message)
    assert set(by_name) == {"anne", "bert"}
    assert reset_with(Client(), by_name["bert"]).status_code == 302
    assert logs_in("bert", NEW_PASSWORD) and logs_in("anne", PASSWORD)


# ---------------------------------------------------------------------------
# the link
# ---------------------------------------------------------------------------


def test_a_link_sets_the_password_once_and_never_again() -> None:
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    elsewhere = Client()  # a session opened with the old password (a lost phone)
    assert (
        elsewhere.post(reverse("login"), {"username": "anne", "password": PASSWORD}).status_code
        == 302
    )
    ask(Client(), "anne@example.org")
    link = link_in(mail.outbox[0])
    done = reset_with(Client(), link)
    assert done.status_code == 302 and done["Location"] == reverse("password_reset_complete")
    assert logs_in("anne", NEW_PASSWORD) and not logs_in("anne", PASSWORD)
    # The old password's sessions end with it.
    assert elsewhere.get(reverse("profile")).status_code == 302
    # Used: the same link, in another browser or the same, no longer works.
    for client in (Client(), Client()):
        again = client.get(link, follow=True)
        assert again.status_code == 400
        html = again.content.decode()
        assert "This link no longer works" in html and 'name="new_password1"' not in html
    assert logs_in("anne", NEW_PASSWORD)


def test_a_link_expires_after_password_reset_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    assert django_settings.PASSWORD_RESET_TIMEOUT == 3 * 3600
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    ask(Client(), "anne@example.org")
    link = link_in(mail.outbox[0])
    real_now = PasswordResetTokenGenerator._now
    timeout = django_settings.PASSWORD_RESET_TIMEOUT

    def later(seconds: int) -> None:
        monkeypatch.setattr(
            PasswordResetTokenGenerator,
            "_now",
            lambda self: real_now(self) + timedelta(seconds=seconds),
        )

    later(timeout - 60)  # still within the time: the form opens
    assert Client().get(link, follow=True).status_code == 200
    later(timeout + 1)  # past it: refused, the password untouched
    response = Client().get(link, follow=True)
    assert response.status_code == 400
    assert "This link no longer works" in response.content.decode()
    assert logs_in("anne", PASSWORD)


def test_a_mangled_link_is_refused() -> None:
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    for uid, token in (("MQ", "x-y"), ("zzzz", "abc-def"), ("", "")):
        url = f"/accounts/password/reset/{uid}/{token}/" if uid else "/accounts/password/reset/x/"
        assert Client().get(url).status_code in (400, 404), url
    assert logs_in("anne", PASSWORD)


def test_a_refused_new_password_is_bad_input_and_the_link_still_works() -> None:
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    ask(Client(), "anne@example.org")
    client = Client()
    form = client.get(link_in(mail.outbox[0]))["Location"]
    refused = client.post(form, {"new_password1": "123", "new_password2": "123"})
    assert refused.status_code == 400
    assert 'role="alert"' in refused.content.decode()
    assert (
        client.post(
            form, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
        ).status_code
        == 302
    )


# ---------------------------------------------------------------------------
# the mail's language
# ---------------------------------------------------------------------------

SUBJECT = {
    "en": "Reset your password at testserver",
    "fr": "Réinitialisez votre mot de passe sur testserver",
    "de": "Passwort zurücksetzen auf testserver",
    "es": "Restablece tu contraseña en testserver",
}
USERNAME_LINE = {
    "en": "Your username is anne.",
    "fr": "Votre nom d'utilisateur est anne.",
    "de": "Ihr Benutzername ist anne.",
    "es": "Tu nombre de usuario es anne.",
}


@pytest.mark.parametrize("language", ["en", "fr", "de", "es"])
def test_the_mail_speaks_the_language_of_the_visitor(language: str) -> None:
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    client = Client()
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    ask(client, "anne@example.org")
    (message,) = mail.outbox
    assert message.subject == SUBJECT[language]
    assert USERNAME_LINE[language] in message.body
    assert link_in(message)


# ---------------------------------------------------------------------------
# limits
# ---------------------------------------------------------------------------


@override_settings(PASSWORD_RESET_RATE_LIMIT=3)
def test_requests_are_limited_per_ip_whatever_the_address() -> None:
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    client = Client()
    for address in ("a@example.org", "b@example.org", "c@example.org"):
        assert ask(client, address, REMOTE_ADDR="10.0.0.7").status_code == 302
    for address in ("anne@example.org", "d@example.org"):
        refused = ask(client, address, REMOTE_ADDR="10.0.0.7")
        assert refused.status_code == 429
        assert "Too many password reset requests" in refused.content.decode()
    assert mail.outbox == []
    # Another address still may.
    assert ask(client, "anne@example.org", REMOTE_ADDR="10.0.0.8").status_code == 302
    assert len(mail.outbox) == 1


def test_an_address_gets_a_few_mails_an_hour_and_the_answer_does_not_change() -> None:
    User.objects.create_user("anne", email="anne@example.org", password=PASSWORD)
    limit = django_settings.PASSWORD_RESET_MAILS_PER_ADDRESS
    answers = {
        (r.status_code, r["Location"])
        for n in range(limit + 2)
        for r in [ask(Client(), "ANNE@example.org", REMOTE_ADDR=f"10.0.1.{n}")]
    }
    assert answers == {(302, reverse("password_reset_done"))}
    assert len(mail.outbox) == limit


# ---------------------------------------------------------------------------
# the e-mail settings
# ---------------------------------------------------------------------------

PROBE = (
    "import json, django; from django.conf import settings; django.setup();"
    "print(json.dumps({'mailer': settings.MAILERS['default'],"
    " 'from': settings.DEFAULT_FROM_EMAIL}))"
)
EMAIL_VARIABLES = (
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_HOST_PASSWORD",
    "EMAIL_USE_TLS",
    "DEFAULT_FROM_EMAIL",
    "EMAIL_FILE_PATH",
)


def email_settings(**env: str) -> dict[str, Any]:
    base = {k: v for k, v in os.environ.items() if k not in EMAIL_VARIABLES}
    base.update({"DJANGO_SETTINGS_MODULE": "config.settings", **env})
    out = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", PROBE],
        cwd=ROOT,
        env=base,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_mail_goes_to_the_console_by_default_to_smtp_or_to_files_from_the_environment(
    tmp_path: Path,
) -> None:
    """Django 6.1's MAILERS, built from the environment's usual names (no deprecated
    EMAIL_* setting: the probe turns deprecation warnings into errors)."""
    default = email_settings()
    assert default["mailer"] == {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
    smtp = email_settings(
        EMAIL_HOST="smtp.example.org",
        EMAIL_PORT="2525",
        EMAIL_HOST_USER="table",
        EMAIL_HOST_PASSWORD="s3cret",
        EMAIL_USE_TLS="0",
        DEFAULT_FROM_EMAIL="Skull King <noreply@example.org>",
    )
    assert smtp == {
        "mailer": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": "smtp.example.org",
                "port": 2525,
                "username": "table",
                "password": "s3cret",
                "use_tls": False,
                "timeout": 10,
            },
        },
        "from": "Skull King <noreply@example.org>",
    }
    tls = email_settings(EMAIL_HOST="smtp.example.org")["mailer"]["OPTIONS"]
    assert tls["use_tls"] is True and tls["port"] == 587
    # Production never writes a mail to the console: the machine's own mail server
    # (manage.py check --deploy refuses the console: tests/test_settings.py).
    production = email_settings(
        DJANGO_ENV="production", SECRET_KEY="k" * 50, ALLOWED_HOSTS="skullking.example"
    )["mailer"]
    assert production["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert production["OPTIONS"]["host"] == "localhost"
    assert production["OPTIONS"]["port"] == 25 and production["OPTIONS"]["use_tls"] is False
    files = email_settings(EMAIL_FILE_PATH=str(tmp_path))["mailer"]
    assert files == {
        "BACKEND": "django.core.mail.backends.filebased.EmailBackend",
        "OPTIONS": {"file_path": str(tmp_path)},
    }
