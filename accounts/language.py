"""The language a page is shown in (issue 13).

Django's LocaleMiddleware picks the language cookie, else the browser's
Accept-Language. On top of it, a logged-in user's account remembers a language
(User.language), which wins on every device they log in from:

- the header's selector posts to ``set_language``: Django's view sets the cookie,
  and for a logged-in user this one also keeps the choice on the account;
- at log-in (``user_logged_in``) the account's language is applied; an account
  with none yet (a new sign-up) keeps the language the visitor was reading;
- ``UserLanguageMiddleware`` applies the account's language to each request and
  keeps the cookie in step, so that logging out leaves the page as it was.

The table's pushes read User.language too (games.live.frames.language_of): each player
reads a live table in their own language.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language


def supported(language: str | None) -> str:
    """``language`` if the site speaks it, else ""."""
    return language if language in dict(settings.LANGUAGES) else ""


def account_language(user: Any) -> str:
    if user is None or not user.is_authenticated:
        return ""
    return supported(getattr(user, "language", ""))


def _apply(request: HttpRequest, language: str) -> None:
    translation.activate(language)
    request.LANGUAGE_CODE = language  # type: ignore[attr-defined]


class UserLanguageMiddleware:
    """A logged-in user's account language wins over the cookie and the browser."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        language = account_language(user)
        if language and language != getattr(request, "LANGUAGE_CODE", ""):
            _apply(request, language)
        elif user is not None and user.is_authenticated and not language:
            _remember_browser_language(request, user)
        response = self.get_response(request)
        # Read again: this request may have logged in, or used the selector.
        language = account_language(getattr(request, "user", None))
        cookie = settings.LANGUAGE_COOKIE_NAME
        if language and request.COOKIES.get(cookie) != language and cookie not in response.cookies:
            _set_cookie(response, language)
        return response


def _remember_browser_language(request: HttpRequest, user: Any) -> None:
    """An account with no language yet (made before issue 13) takes the one its
    browser asks for, so that its live table speaks like its pages. The default
    language needs no write: an empty account language already means it."""
    current = supported(getattr(request, "LANGUAGE_CODE", ""))
    if current and current != settings.LANGUAGE_CODE:
        user.language = current
        user.save(update_fields=["language"])


def _set_cookie(response: HttpResponse, language: str) -> None:
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@login_not_required
@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The header's selector: Django's set_language, remembered on the account."""
    response = django_set_language(request)
    language = supported(request.POST.get("language"))
    user = request.user
    if language and user.is_authenticated and getattr(user, "language", "") != language:
        user.language = language  # type: ignore[union-attr]
        user.save(update_fields=["language"])
    return response


@receiver(user_logged_in, dispatch_uid="accounts.language.at_login")
def apply_account_language(
    sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any
) -> None:
    if request is None:
        return
    language = supported(getattr(user, "language", ""))
    if language:
        _apply(request, language)
        return
    # No language on the account yet: keep the one this visitor reads the site in.
    current = supported(getattr(request, "LANGUAGE_CODE", ""))
    if current:
        user.language = current
        user.save(update_fields=["language"])
