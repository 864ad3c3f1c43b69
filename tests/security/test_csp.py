"""Content Security Policy: Django 6's middleware, no inline script or style anywhere."""

from html.parser import HTMLParser

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from games.play import actions

pytestmark = pytest.mark.django_db


class InlineFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []
        self.scripts: list[dict[str, str | None]] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "style":
            self.problems.append("<style> element")
        if "style" in attributes:
            self.problems.append(f"style attribute on <{tag}>")
        for name in attributes:
            if name.startswith("on"):
                self.problems.append(f"{name} handler on <{tag}>")
            if name.startswith("hx-on"):
                self.problems.append(f"{name} (needs eval) on <{tag}>")
        if tag == "script":
            self.scripts.append(attributes)
            self._in_script = True

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script and data.strip():
            self.problems.append("inline script body")


def _pages(client: Client) -> list[str]:
    user = get_user_model().objects.create_user("anne", password="pw-anne-12345")
    other = get_user_model().objects.create_user("bert", password="pw-bert-12345")
    table = actions.create_table(user, ghost=True)
    actions.join_table(other, table.invite_token)
    table = actions.start_game(user, table.pk, 1)
    anonymous = [reverse("home"), reverse("login"), reverse("signup"), reverse("rules")]
    anonymous += [reverse("password_reset"), reverse("password_reset_done")]
    member = [reverse("home"), reverse("table", args=[table.pk]), reverse("password_change")]
    member += [reverse("profile")]
    return [(None, url) for url in anonymous] + [(user, url) for url in member]


def test_every_page_has_a_strict_csp_with_a_nonce_and_no_inline_code():
    client = Client()
    for user, url in _pages(client):
        if user is not None:
            client.force_login(user)
        response = client.get(url)
        assert response.status_code == 200, url
        policy = response.headers["Content-Security-Policy"]
        assert "default-src 'self'" in policy
        assert "style-src 'self'" in policy and "unsafe-inline" not in policy
        assert "connect-src 'self'" in policy
        nonce = policy.split("'nonce-")[1].split("'")[0]
        finder = InlineFinder()
        finder.feed(response.content.decode())
        assert finder.problems == [], (url, finder.problems)
        assert finder.scripts, url
        for script in finder.scripts:
            assert script.get("src"), url
            if "htmx" in (script.get("src") or ""):
                assert script.get("nonce") == nonce, url
