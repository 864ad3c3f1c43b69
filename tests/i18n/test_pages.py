"""Issue 13: every page, and the table in every phase, in French, German and Spanish.

Each page is rendered for a user whose account speaks the language (or, logged
out, with the language cookie) and checked by tests.i18n.untranslated: no msgid
of the site may show as-is. Each page also shows a word of its language, so a
page that silently fell back to English fails too. The table's phases cover
R2-R4 (deal, bids), R5-R7 (a trick in play, a trick done) and R9-R10 (a round
done, the game over).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games.models import Table
from games.play import actions
from games.testing.driver import at_phase, play_until
from games.testing.factories import make_user, seated_table
from tests.i18n.untranslated import untranslated

pytestmark = pytest.mark.django_db

LANGUAGES = ("fr", "de", "es")
NAMES = ("anne", "bert")
#: A word each language's pages show (in the header's navigation).
RULES_WORD = {"fr": "Règles", "de": "Regeln", "es": "Reglas", "en": "Rules"}


def client_for(user: Any, language: str) -> Client:
    user.language = language
    user.save(update_fields=["language"])
    client = Client()
    client.force_login(user)
    return client


def anonymous(language: str) -> Client:
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    return client


def check(html: str, language: str, page: str) -> None:
    assert f'<html lang="{language}">' in html, page
    assert RULES_WORD[language] in html, f"{page} is not in {language}"
    shown = untranslated(html, language, ignore=NAMES)
    assert not shown, f"{page} in {language} shows English: {shown}"


def get(client: Client, url: str, status: int = 200) -> str:
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response.content.decode()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_of_a_visitor_are_translated(language: str) -> None:
    client = anonymous(language)
    for name in (
        "home",
        "rules",
        "login",
        "signup",
        "password_reset",
        "password_reset_done",
        "password_reset_complete",
    ):
        check(get(client, reverse(name)), language, name)
    # A reset link that no longer works (issue 49).
    check(get(client, "/accounts/password/reset/MQ/not-a-token/", 400), language, "used link")
    check(get(client, "/no-such-page/", 404), language, "404")
    # A form error (Django's own and ours) in the language too.
    response = client.post(reverse("signup"), {"username": "", "password1": "a", "password2": "b"})
    check(response.content.decode(), language, "signup with errors")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_pages_of_a_player_are_translated(language: str) -> None:
    anne = make_user("anne")
    bert = make_user("bert")
    client = client_for(anne, language)
    table, _users = seated_table([anne], ghost=True)
    pages = {
        "lobby": reverse("home"),
        "rules": reverse("rules"),
        "player": reverse("player", args=["anne"]),
        "password": reverse("password_change"),
        "password done": reverse("password_change_done"),
        "account": reverse("profile"),
        "waiting table": reverse("table", args=[table.pk]),
    }
    for page, url in pages.items():
        check(get(client, url), language, page)
    join = reverse("join", args=[table.invite_token])
    check(get(client_for(bert, language), join), language, "join")


def _table_pages(table: Table, clients: dict[str, Client], phase: str) -> None:
    url = reverse("table", args=[table.pk])
    for language, client in clients.items():
        check(get(client, url), language, f"table ({phase})")


def test_every_phase_of_a_game_is_translated_for_each_player() -> None:
    """R2-R10 at a 2-player table with the ghost (R8): the page at each phase, in each language."""
    users = [make_user(name) for name in NAMES]
    table, users = seated_table(users, ghost=True)
    # Both seats see the table: one French, one German; Spanish takes the host's seat later.
    clients = {"fr": client_for(users[0], "fr"), "de": client_for(users[1], "de")}
    _table_pages(table, clients, "waiting")
    table = actions.start_game(users[0], table.pk, table.version)
    _table_pages(table, clients, "bidding")
    rng = random.Random(13)
    phases = [
        (Table.Phase.PLAYING, 2),
        (Table.Phase.TRICK_DONE, 2),
        (Table.Phase.ROUND_DONE, 2),
    ]
    for phase, round_number in phases:
        table = play_until(table, rng, at_phase(phase, round_number))
        _table_pages(table, clients, f"{phase} round {round_number}")
    clients["es"] = client_for(users[0], "es")
    del clients["fr"]
    table = play_until(table, rng)
    _table_pages(table, clients, "game over")
    for language, client in clients.items():
        check(get(client, reverse("replay", args=[table.pk])), language, "replay")
        check(get(client, reverse("player", args=[NAMES[0]])), language, "player with games")
        check(get(client, reverse("home")), language, "lobby with a finished game")


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_cancelled_game_and_the_leave_page_are_translated(language: str) -> None:
    users = [make_user(name) for name in NAMES]
    table, users = seated_table(users, ghost=True)
    table = actions.start_game(users[0], table.pk, table.version)
    client = client_for(users[1], language)
    leave = client.post(reverse("leave_table", args=[table.pk]))
    check(leave.content.decode(), language, "leave confirmation")
    actions.leave_table(users[0], table.pk, confirmed=True)
    check(get(client, reverse("table", args=[table.pk])), language, "cancelled table")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_admin_speaks_the_language(language: str) -> None:
    """The admin is usable in the four languages: Django's catalogues and ours."""
    staff = make_user("staff", is_staff=True, is_superuser=True)
    users = [make_user(name) for name in NAMES]
    table, _users = seated_table(users, ghost=True)
    client = client_for(staff, language)
    index = get(client, reverse("admin:index"))
    site_admin = {"fr": "Administration", "de": "Verwaltung", "es": "Administración"}[language]
    assert site_admin in index
    for url in (
        reverse("admin:index"),
        reverse("admin:games_table_changelist"),
        reverse("admin:games_table_change", args=[table.pk]),
        reverse("admin:accounts_user_changelist"),
        reverse("admin:accounts_user_change", args=[staff.pk]),
    ):
        html = get(client, url)
        assert f'lang="{language}"' in html
        # Permission names are rows, written in English when migrated: Django shows
        # them as stored in every language. Everything around them is checked.
        html = re.sub(r'<select name="user_permissions".*?</select>', "", html, flags=re.S)
        # The search box's icon: admin/search_form.html writes alt="Search" in English.
        html = html.replace('alt="Search"', "")
        shown = untranslated(html, language, ignore=(*NAMES, "staff"))
        assert not shown, f"{url} in {language} shows English: {shown}"
