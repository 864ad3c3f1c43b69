"""Suspended accounts (issue 50): staff keep an account out for a while, saying why.

- ``suspend`` writes an accounts.Suspension, marks it on the user's row
  (User.active_suspension) and has the user leave each open table through the
  table's own leave action (R11: a game in progress is cancelled for everyone, a
  waiting table loses the seat, or closes if they host it).
- Log-in (accounts.forms.LoginForm) checks the password first, then the suspension:
  a wrong password says only that; a right one says the reason and the end, in
  the account's language.
- ``SuspendedLogoutMiddleware`` ends a suspended user's sessions one by one: their
  next request logs them out and sends them to the log-in page, which says why.
  It reads User.active_suspension from the row every request loads already, so
  the accounts nobody suspended cost no query.
- ``lift`` ends a suspension now.

Staff do this from the admin (accounts.admin), which writes each action to
Django's admin log, on the user's history.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth import logout
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from .language import supported
from .models import Suspension, User


def in_force_for(user_id: int) -> Suspension | None:
    """The suspension that keeps ``user_id`` out longest, if any is in force."""
    found = list(Suspension.objects.in_force().filter(user_id=user_id))
    if not found:
        return None
    # Until lifted (no end) outlasts any end.
    return max(found, key=lambda s: (s.ends_at is None, s.ends_at or s.starts_at))


def _mark(user_id: int) -> Suspension | None:
    """Keep User.active_suspension in step with the suspensions in force."""
    current = in_force_for(user_id)
    User.objects.filter(pk=user_id).update(active_suspension=current)
    return current


def when(moment: datetime) -> str:
    """A date and time in the active language's format, in the site's time zone."""
    return formats.date_format(timezone.localtime(moment), "DATETIME_FORMAT")


def refusal(suspension: Suspension, language: str = "") -> str:
    """Why a suspended user cannot log in, in ``language`` (their account's) when given."""
    with translation.override(supported(language) or translation.get_language()):
        if suspension.ends_at is None:
            return _(
                "Your account is suspended until a moderator lifts the suspension. "
                "Reason: %(reason)s"
            ) % {"reason": suspension.reason}
        return _("Your account is suspended until %(date)s. Reason: %(reason)s") % {
            "date": when(suspension.ends_at),
            "reason": suspension.reason,
        }


def leave_open_tables(user: Any) -> int:
    """The user leaves every table they sit at that is waiting or in progress, through
    the table's leave action (R11). Returns how many they left."""
    from games.models import Seat, Table
    from games.play import actions

    open_tables = list(
        Seat.objects.filter(
            user=user, table__status__in=[Table.Status.WAITING, Table.Status.PLAYING]
        ).values_list("table_id", flat=True)
    )
    left = 0
    for table_id in open_tables:
        try:
            actions.leave_table(user, table_id, confirmed=True)
        except actions.ActionError:
            continue  # it ended meanwhile (another player left, staff cancelled it)
        left += 1
    return left


@transaction.atomic
def suspend(user: User, reason: str, ends_at: datetime | None, by: Any) -> Suspension:
    """Suspend ``user`` from now until ``ends_at`` (None: until lifted)."""
    suspension = Suspension.objects.create(user=user, reason=reason, ends_at=ends_at, created_by=by)
    return record(suspension)


def record(suspension: Suspension) -> Suspension:
    """After an admin's form saved ``suspension`` (created_by, reason, end set): mark the
    user and have them leave their open tables."""
    _mark(suspension.user_id)
    leave_open_tables(suspension.user)
    return suspension


@transaction.atomic
def lift(suspension: Suspension, by: Any) -> bool:
    """End ``suspension`` now; False when it was lifted already (nothing changes)."""
    locked = Suspension.objects.select_for_update().get(pk=suspension.pk)
    if locked.lifted_at is not None:
        return False
    locked.lifted_at = timezone.now()
    locked.lifted_by = by
    locked.save(update_fields=["lifted_at", "lifted_by"])
    suspension.lifted_at, suspension.lifted_by = locked.lifted_at, locked.lifted_by
    _mark(locked.user_id)
    return True


class SuspendedLogoutMiddleware:
    """A suspended user's next request logs them out and shows them why (on the log-in
    page). After the messages middleware: the reason travels as a message."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and getattr(user, "active_suspension_id", None) is not None:
            suspension = in_force_for(user.pk)
            if suspension is None:
                # Ended or lifted: the mark is stale, and the account free again.
                User.objects.filter(pk=user.pk).update(active_suspension=None)
                user.active_suspension_id = None
            else:
                return self._log_out(request, user, suspension)
        return self.get_response(request)

    @staticmethod
    def _log_out(request: HttpRequest, user: Any, suspension: Suspension) -> HttpResponse:
        text = refusal(suspension, getattr(user, "language", ""))
        logout(request)
        messages.error(request, text)
        target = reverse("login")
        if request.headers.get("HX-Request") == "true":
            # htmx follows a redirect inside the page; the whole page must go.
            response = HttpResponse(status=200)
            response["HX-Redirect"] = target
            return response
        return redirect(target)
