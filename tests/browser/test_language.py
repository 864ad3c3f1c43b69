"""Choosing the language in the browser (issue 13).

A first visit follows the browser's Accept-Language; the header's selector
switches the page (Django's set_language, a POST with its CSRF token) and the
choice stays: in the language cookie while logged out, on the account once
logged in, so another browser that logs in to the account reads that language.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from .conftest import ACTION_TIMEOUT_MS, PASSWORD, Server, log_in, sign_up
from .test_layout import MID_TRICK, PHONE, assert_site_header, set_up

pytestmark = pytest.mark.browser


def new_page(
    browser: Browser,
    server: Server,
    locale: str,
    contexts: list[Any],
    watched_page: Callable[[BrowserContext], Page],
) -> Page:
    context = browser.new_context(base_url=server.url, locale=locale)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    contexts.append(context)
    return watched_page(context)


def choose(page: Page, code: str) -> None:
    # The page's scripts submit the selector on change: wait until they are loaded
    # (a redirect may have just replaced the document).
    page.wait_for_load_state("load")
    page.locator("#language-select").select_option(code)
    expect(page.locator("html")).to_have_attribute("lang", code)


def test_the_selector_switches_the_language_and_the_account_remembers_it(
    browser: Browser, server: Server, watched_page: Callable[[BrowserContext], Page]
) -> None:
    contexts: list[Any] = []
    try:
        # First visit: the browser's language (a German browser).
        page = new_page(browser, server, "de-DE", contexts, watched_page)
        page.goto("/rules/")
        expect(page.locator("html")).to_have_attribute("lang", "de")
        expect(page.locator(".site-header")).to_contain_text("Regeln")

        # The selector, logged out: French, kept by the cookie across pages.
        choose(page, "fr")
        expect(page).to_have_url(re.compile(r"/rules/$"))  # back on the same page
        expect(page.locator("h1")).to_contain_text("Comment jouer à Skull King")
        page.goto("/")
        expect(page.locator(".site-header")).to_contain_text("Règles")

        # Signing up keeps the language the visitor reads; the account remembers it.
        name = f"lang{uuid.uuid4().hex[:8]}"
        sign_up(page, name)
        expect(page.locator("html")).to_have_attribute("lang", "fr")
        choose(page, "es")
        expect(page.locator(".site-header")).to_contain_text("Reglas")

        # Another browser, in English, logs in to the account: Spanish at once.
        other = new_page(browser, server, "en-US", contexts, watched_page)
        other.goto("/rules/")
        expect(other.locator("html")).to_have_attribute("lang", "en")
        log_in(other, name, PASSWORD)
        expect(other.locator("html")).to_have_attribute("lang", "es")
        expect(other.locator(".site-header")).to_contain_text("Reglas")
        other.goto("/rules/")
        expect(other.locator("h1")).to_contain_text("Cómo se juega a Skull King")

        # And back to English with the selector.
        choose(other, "en")
        expect(other.locator(".site-header")).to_contain_text("Rules")
    finally:
        for context in contexts:
            context.close()


@pytest.mark.parametrize("locale", ["de-DE", "fr-FR", "es-ES"])
def test_the_phone_header_shows_your_name_and_language_whole_in_each_language(
    server: Server, open_as: Callable[..., Page], locale: str
) -> None:
    """The longer German, French and Spanish words still fit a phone: the links on one
    line, then the name and the language ("DE · Deutsch") whole (issue 49)."""
    setup = set_up(server, 2, MID_TRICK.format(plays=0), prefix=f"l{uuid.uuid4().hex[:4]}_")
    page = open_as(setup, setup.names[0], PHONE, locale=locale)
    expect(page.locator("html")).to_have_attribute("lang", locale[:2])
    assert_site_header(page, setup.names[0], rows=2)
