"""Choosing the language in the browser (issue 13).

A first visit follows the browser's Accept-Language; the header's selector
switches the page (Django's set_language, a POST with its CSRF token) and the
choice stays: in the language cookie while logged out, on the account once
logged in, so another browser that logs in to the account reads that language.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import ACTION_TIMEOUT_MS, PASSWORD, Server, log_in, sign_up

pytestmark = pytest.mark.browser


def new_page(browser: Browser, server: Server, locale: str, contexts: list[Any]) -> Page:
    context = browser.new_context(base_url=server.url, locale=locale)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    contexts.append(context)
    return context.new_page()


def choose(page: Page, code: str) -> None:
    page.locator("#language-select").select_option(code)
    expect(page.locator("html")).to_have_attribute("lang", code)


def test_the_selector_switches_the_language_and_the_account_remembers_it(
    browser: Browser, server: Server
) -> None:
    contexts: list[Any] = []
    try:
        # First visit: the browser's language (a German browser).
        page = new_page(browser, server, "de-DE", contexts)
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
        other = new_page(browser, server, "en-US", contexts)
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
