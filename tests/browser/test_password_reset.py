"""A forgotten password, end to end in Chromium, in each of the four languages (issue 49).

A player with an e-mail address asks for a reset from the log-in page's "Forgot your
password?", reads the link in the mail the server sent (the server writes each mail
to a file: EMAIL_FILE_PATH, tests/browser/conftest.py), opens it, sets a new password
and logs in with it; the same link then no longer works. The mail and every page are
in the language the browser asks for. axe-core finds nothing on the new pages.
"""

from __future__ import annotations

import email
import email.policy
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import ACTION_TIMEOUT_MS, PASSWORD, Server, log_in
from .test_accessibility import describe, run_axe

pytestmark = pytest.mark.browser

NEW_PASSWORD = "Kraken-and-whale-73"
LOCALES = {"en": "en-US", "fr": "fr-FR", "de": "de-DE", "es": "es-ES"}
#: What each language's pages and mail say, word for word (the catalogues' translations).
SAYS = {
    "en": {
        "forgot": "Forgot your password?",
        "sent": "Check your e-mail",
        "subject": "Reset your password at ",
        "choose": "Choose a new password",
        "changed": "Password changed",
        "used": "This link no longer works",
    },
    "fr": {
        "forgot": "Mot de passe oublié ?",
        "sent": "Consultez vos e-mails",
        "subject": "Réinitialisez votre mot de passe sur ",
        "choose": "Choisissez un nouveau mot de passe",
        "changed": "Mot de passe changé",
        "used": "Ce lien ne fonctionne plus",
    },
    "de": {
        "forgot": "Passwort vergessen?",
        "sent": "Sehen Sie in Ihre E-Mails",
        "subject": "Passwort zurücksetzen auf ",
        "choose": "Neues Passwort wählen",
        "changed": "Passwort geändert",
        "used": "Dieser Link funktioniert nicht mehr",
    },
    "es": {
        "forgot": "¿Olvidaste tu contraseña?",
        "sent": "Revisa tu correo",
        "subject": "Restablece tu contraseña en ",
        "choose": "Elige una contraseña nueva",
        "changed": "Contraseña cambiada",
        "used": "Este enlace ya no funciona",
    },
}
LINK = re.compile(r"https?://\S+/accounts/password/reset/[^/\s]+/[^/\s]+/")


def mails_to(server: Server, address: str) -> list[email.message.EmailMessage]:
    """Every mail the server wrote for ``address`` (Django's file backend: one file per
    connection, messages separated by a line of 79 dashes)."""
    found = []
    for path in sorted(Path(server.env["EMAIL_FILE_PATH"]).glob("*.log")):
        for raw in path.read_bytes().split(b"\n" + b"-" * 79 + b"\n"):
            if not raw.strip():
                continue
            message = email.message_from_bytes(raw, policy=email.policy.default)
            if address in str(message["To"]):
                found.append(message)  # type: ignore[arg-type]
    return found


def new_page(
    browser: Browser,
    server: Server,
    locale: str,
    contexts: list[BrowserContext],
    watched_page: Callable[[BrowserContext], Page],
) -> Page:
    context = browser.new_context(base_url=server.url, locale=locale)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    contexts.append(context)
    return watched_page(context)


@pytest.mark.parametrize("language", list(LOCALES))
def test_a_forgotten_password_is_reset_from_the_mailed_link_once(
    browser: Browser,
    server: Server,
    watched_page: Callable[[BrowserContext], Page],
    language: str,
) -> None:
    says = SAYS[language]
    name = f"lost{language}{uuid.uuid4().hex[:6]}"
    address = f"{name}@example.org"
    server.shell(
        "from django.contrib.auth import get_user_model\n"
        f"get_user_model().objects.create_user({name!r}, email={address!r},"
        f" password={PASSWORD!r})\n"
    )
    contexts: list[BrowserContext] = []
    try:
        page = new_page(browser, server, LOCALES[language], contexts, watched_page)
        page.goto("/accounts/login/")
        expect(page.locator("html")).to_have_attribute("lang", language)
        page.get_by_role("link", name=says["forgot"]).click()
        expect(page.locator("h1")).to_have_text(says["forgot"])
        page.locator('input[name="email"]').fill(address.upper())  # addresses ignore case
        page.locator('main [type="submit"]').click()
        expect(page.locator("h1")).to_have_text(says["sent"])

        (mail,) = mails_to(server, address)
        assert str(mail["Subject"]).startswith(says["subject"]), mail["Subject"]
        body = mail.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
        assert name in body
        found = LINK.search(body)
        assert found, body
        link = found.group(0)

        page.goto(link)
        expect(page.locator("h1")).to_have_text(says["choose"])
        page.locator('input[name="new_password1"]').fill(NEW_PASSWORD)
        page.locator('input[name="new_password2"]').fill(NEW_PASSWORD)
        page.locator('main [type="submit"]').click()
        expect(page.locator("h1")).to_have_text(says["changed"])

        # Logged in with the new password, in another browser.
        other = new_page(browser, server, LOCALES[language], contexts, watched_page)
        log_in(other, name, NEW_PASSWORD)
        expect(other.locator(".nav__user")).to_have_text(name)

        # The same link, a second time, from either browser: refused, no form.
        for reader in (page, other):
            reader.goto(link)
            expect(reader.locator("h1")).to_have_text(says["used"])
            expect(reader.locator('input[name="new_password1"]')).to_have_count(0)
        assert len(mails_to(server, address)) == 1
    finally:
        for context in contexts:
            context.close()


def test_the_account_and_reset_pages_have_no_axe_violation(
    browser: Browser,
    server: Server,
    watched_page: Callable[[BrowserContext], Page],
    artifacts: Path,
) -> None:
    """Each page's picture goes to the test artifacts (account-*.png)."""
    name = f"axe{uuid.uuid4().hex[:6]}"
    server.shell(
        "from django.contrib.auth import get_user_model\n"
        f"get_user_model().objects.create_user({name!r}, password={PASSWORD!r})\n"
    )
    contexts: list[BrowserContext] = []
    try:
        page = new_page(browser, server, "en-US", contexts, watched_page)
        pages = {
            "reset": "/accounts/password/reset/",
            "reset-sent": "/accounts/password/reset/sent/",
            "reset-used-link": "/accounts/password/reset/MQ/not-a-token/",
            "login": "/accounts/login/",
        }
        for label, path in pages.items():
            page.goto(path)
            page.screenshot(path=artifacts / f"account-{label}.png", full_page=True)
            found = run_axe(page)["violations"]
            assert not found, f"{path}:\n{describe(found)}"
        log_in(page, name)
        page.goto("/accounts/profile/")
        # With a refused change showing its errors, too.
        page.locator('input[name="email"]').fill("new@example.org")
        page.locator('input[name="password"]').fill("not my password")
        page.locator('main [type="submit"]').click()
        expect(page.locator(".field__error").first).to_be_visible()
        page.screenshot(path=artifacts / "account-profile.png", full_page=True)
        found = run_axe(page)["violations"]
        assert not found, f"profile:\n{describe(found)}"
    finally:
        for context in contexts:
            context.close()
