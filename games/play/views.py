"""HTTP in, one action call, template out.

Every POST view parses its form, calls ONE function of games.play.actions and then:

- plain POST: 303 back to the table (every form works without JavaScript);
- htmx POST: 200 with the actor's own frame, the very one its socket gets
  (games.live.frames: the regions the move changed, as out-of-band swaps), and
  ``HX-Reswap: none``: nothing else of the page is replaced;
- ActionError: answered with the error's status (409 for a stale version) and
  the error's message: for htmx, a frame as above with every region of the
  actor's seat and the error line (so a stale page catches up at once, and no
  answer ever replaces the page); for a plain POST, the full page.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django_htmx.http import HttpResponseClientRedirect

from config.move_queue import queued_by
from games.live import broadcast, frames
from games.models import MAX_DB_ID, MAX_SEATS, ChatMessage, Table
from games.pages import presenter, regions
from games.play import actions, forms, lobby
from games.play.state import load_shown_state, load_state

#: What staff watching a table see of it (issue 50): the public regions, nothing of a seat.
WATCHED_REGIONS = ("error", *frames.WATCHED_REGIONS, "watching")

# One line per refused action: its status, the posted version and the reason, so a
# 409 in the access log can be told apart (stale page, not your turn, wrong phase).
refusal_log = logging.getLogger("skullking.refused")


class BadInput(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def _origin(request: HttpRequest) -> str:
    return f"{request.scheme}://{request.get_host()}"


def _get_table(table_id: int) -> Table | None:
    if not 0 < table_id <= MAX_DB_ID:
        return None
    return Table.objects.select_related("host", "cancelled_by").filter(pk=table_id).first()


def _error_page(request: HttpRequest, status: int, message: str) -> HttpResponse:
    template = {403: "403.html", 404: "404.html"}.get(status, "400.html")
    # From htmx, the page keeps what it shows: static/js/live.js puts the page's
    # message (its role="alert") into the table's error line.
    return render(request, template, {"message": message}, status=status)


def _not_found(request: HttpRequest) -> HttpResponse:
    return _error_page(request, 404, _("There is no such table."))


def _not_seated(request: HttpRequest) -> HttpResponse:
    return _error_page(
        request, 403, _("Only the players seated at this table can see it. Ask for an invite link.")
    )


def _render_table(
    request: HttpRequest,
    table: Table,
    *,
    error: str = "",
    status: int = 200,
    fragment: bool = False,
    watch: bool = False,
) -> HttpResponse:
    try:
        context = presenter.table_context(table, request.user, error=error, origin=_origin(request))
    except presenter.NotSeated as not_seated:
        # Staff with games.watch_table open any table read-only (issue 50): the page
        # only, never after an action (their POSTs are refused as anyone's not seated).
        if not (watch and presenter.may_watch(request.user)):
            return _not_seated(request)
        context = presenter.watch_context(table, state=not_seated.state)
        context["regions"] = regions.page_regions(context, request, only=WATCHED_REGIONS)
    else:
        context["regions"] = regions.page_regions(context, request)
    template = f"{presenter.TABLE_TEMPLATE}#content" if fragment else presenter.TABLE_TEMPLATE
    # No HX-Retarget here: the forms inherit hx-target="#table-content" from the
    # page, resolved when the request starts. A retarget header is resolved from
    # the clicked form when the answer arrives, and a socket push may have
    # replaced that form by then (htmx then drops the answer).
    return render(request, template, context, status=status)


def _fail(request: HttpRequest, table_id: int, message: str, status: int) -> HttpResponse:
    table = _get_table(table_id)
    if table is None or status == 404:
        return _error_page(request, 404, message)
    if request.htmx:
        return _refusal_frame(request, table, message, status)
    return _render_table(request, table, error=message, status=status)


def _refusal_frame(request: HttpRequest, table: Table, message: str, status: int) -> HttpResponse:
    """A refused action's htmx answer: the actor's whole table and the reason, out of band."""
    state = load_shown_state(table)
    seat = state.seat_of(request.user.pk)
    if seat is None:
        return _not_seated(request)
    return _frame_response(frames.render_refusal(state, seat, message), status)


def _frame_response(html: str, status: int = 200) -> HttpResponse:
    """A frame as an htmx answer: its out-of-band regions only, nothing else replaced."""
    response = HttpResponse(html, status=status)
    response["HX-Reswap"] = "none"
    return response


def _posted_version(request: HttpRequest) -> str:
    """The form's version field as posted, cut short: it goes into a log line."""
    return request.POST.get("version", "")[:12].replace("\n", " ")


def _field(request: HttpRequest, name: str) -> str:
    value = request.POST.get(name, "")
    if "\x00" in value:
        raise BadInput(_("Invalid characters in the form."))
    return value


def _act(request: HttpRequest, table_id: int, call: Callable[[], Any]) -> HttpResponse:
    """Run one action; answer as the module docstring says."""
    if not 0 < table_id <= MAX_DB_ID:
        return _not_found(request)
    try:
        with broadcast.collecting(request.user.pk if request.htmx else None) as pushed:
            done = call()
    except (actions.ActionError, BadInput) as error:
        refusal_log.info(
            "action refused: %s",
            error.message,
            extra={"fields": {"status": error.status, "posted_version": _posted_version(request)}},
        )
        return _fail(request, table_id, error.message, error.status)
    if request.htmx:
        return _actor_frame(request, table_id, done, pushed.get(request.user.pk))
    return _see_other(reverse("table", args=[table_id]))


def _actor_frame(request: HttpRequest, table_id: int, done: Any, html: str | None) -> HttpResponse:
    """The actor's own frame of the version its action made (oob swaps only)."""
    if html is None:
        # Not rendered by the broadcast (chat, or no commit hook ran): render it.
        table = _get_table(table_id)
        if table is None:
            return _not_found(request)
        state = load_state(table)
        seat = state.seat_of(request.user.pk)
        if seat is None:
            return _not_seated(request)
        if isinstance(done, ChatMessage):
            html = frames.render_chat(state, seat)
        else:
            html = frames.render_snapshot(state, seat)
    # (An earlier refusal's reason is cleared by the page itself: static/js/live.js.)
    return _frame_response(html)


def _parsed[F: forms.Form](form_class: type[F], request: HttpRequest) -> F:
    """The POST through ``form_class``; its first error is a 400 with that message."""
    form = form_class(request.POST)
    if not form.is_valid():
        message = next(iter(form.errors.values()))[0]
        raise BadInput(str(message))
    return form


def _version(request: HttpRequest) -> int:
    return int(_parsed(forms.MoveForm, request).cleaned_data["version"])


# ---------------------------------------------------------------------------
# public pages
# ---------------------------------------------------------------------------


@login_not_required
@require_safe
def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return render(request, "home.html")
    return render(request, "home.html", lobby.lobby_context(request.user))


@login_not_required
@require_safe
def rules_page(request: HttpRequest) -> HttpResponse:
    return render(request, "games/rules.html")


# ---------------------------------------------------------------------------
# lobby and invites
# ---------------------------------------------------------------------------


def _lobby_refusal(request: HttpRequest, message: str, status: int) -> HttpResponse:
    context = lobby.lobby_context(request.user)
    context["error"] = message
    return render(request, "home.html", context, status=status)


@require_POST
def create_table(request: HttpRequest) -> HttpResponse:
    ghost = request.POST.get("ghost", "") in ("on", "1", "true", "yes")
    try:
        clock = _parsed(forms.NewTableForm, request).cleaned_data["turn_clock"]
        table = actions.create_table(request.user, ghost=ghost, turn_clock=clock)
    except (actions.ActionError, BadInput) as error:
        return _lobby_refusal(request, error.message, error.status)
    url = reverse("table", args=[table.pk])
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return _see_other(url)


@require_POST
def start_practice(request: HttpRequest) -> HttpResponse:
    """A practice game against the computer: seated and started at once (issue 48)."""
    try:
        data = _parsed(forms.PracticeForm, request).cleaned_data
        table = actions.start_practice(request.user, data["computers"], data["level"])
    except (actions.ActionError, BadInput) as error:
        return _lobby_refusal(request, error.message, error.status)
    url = reverse("table", args=[table.pk])
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return _see_other(url)


@login_not_required
@require_http_methods(["GET", "HEAD", "POST"])
def join(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation: who invites you to which table, and a seat to take. A visitor
    who is not logged in sees the host and how many seats are taken (not who sits
    there) and logs in or signs up from here, coming back to this page."""
    table = Table.objects.select_related("host").filter(invite_token=token).first()
    if table is None:
        return _error_page(
            request,
            404,
            _("This invitation link is not valid. The host may have replaced it with a new one."),
        )
    here = reverse("join", args=[token])
    if not request.user.is_authenticated and request.method == "POST":
        return redirect_to_login(here)
    seats = list(table.seats.select_related("user").order_by("position"))
    seated = any(seat.user_id == request.user.pk for seat in seats)
    error, status = "", 200
    if request.method == "POST":
        try:
            table = actions.join_table(request.user, token)
        except actions.ActionError as failure:
            error, status = failure.message, failure.status
        else:
            url = reverse("table", args=[table.pk])
            if request.htmx:
                return HttpResponseClientRedirect(url)
            return _see_other(url)
    elif seated:
        return HttpResponseRedirect(reverse("table", args=[table.pk]))
    elif (refusal := actions.join_refusal(table, len(seats))) is not None:
        error, status = refusal.message, refusal.status
    visitor = not request.user.is_authenticated
    context = {
        "table": table,
        "players": [] if visitor else [seat.name for seat in seats],
        "taken": len(seats),
        "error": error,
        "can_join": not error and not seated and not visitor,
        "visitor": visitor and not error,
        "auth_next": here,  # the header's "Log in" and "Sign up" come back here
        "max_seats": MAX_SEATS,
    }
    return render(request, "games/join.html", context, status=status)


# ---------------------------------------------------------------------------
# the table
# ---------------------------------------------------------------------------


@require_safe
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    found = _get_table(table_id)
    if found is None:
        return _not_found(request)
    return _render_table(request, found, fragment=bool(request.htmx), watch=True)


@queued_by("table_id")
@require_POST
def start_game(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda: actions.start_game(request.user, table_id, _version(request)),
    )


@queued_by("table_id")
@require_POST
def place_bid(request: HttpRequest, table_id: int) -> HttpResponse:
    def call() -> Table:
        form = _parsed(forms.BidForm, request)
        data = form.cleaned_data
        return actions.place_bid(request.user, table_id, data["version"], data["value"])

    return _act(request, table_id, call)


@queued_by("table_id")
@require_POST
def play_card(request: HttpRequest, table_id: int) -> HttpResponse:
    def call() -> Table:
        # The hand's buttons send "G14", or "TIG:pirate" for the Tigress (R7); a
        # form may also send the choice in its own field.
        form = _parsed(forms.PlayForm, request)
        card, tigress_as = form.play()
        version = form.cleaned_data["version"]
        return actions.play_card(request.user, table_id, version, card, tigress_as)

    return _act(request, table_id, call)


@queued_by("table_id")
@require_POST
def preselect_card(request: HttpRequest, table_id: int) -> HttpResponse:
    def call() -> Table:
        form = _parsed(forms.PreselectForm, request)
        card, tigress_as = form.play()
        version = form.cleaned_data["version"]
        return actions.preselect_card(request.user, table_id, version, card, tigress_as)

    return _act(request, table_id, call)


@queued_by("table_id")
@require_POST
def next_trick(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda: actions.next_trick(request.user, table_id, _version(request)),
    )


@queued_by("table_id")
@require_POST
def next_round(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda: actions.next_round(request.user, table_id, _version(request)),
    )


@queued_by("table_id")
@require_POST
def post_chat(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda: actions.post_chat(request.user, table_id, _field(request, "text")),
    )


@queued_by("table_id")
@require_POST
def rotate_invite(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(request, table_id, lambda: actions.rotate_invite(request.user, table_id))


@queued_by("table_id")
@require_POST
def leave_table(request: HttpRequest, table_id: int) -> HttpResponse:
    """Before the start: frees the seat. In progress: asks first, then cancels for everyone.

    The action decides under the table lock from what the user confirmed: reading
    the status here would race the host's "Start".
    """
    if not 0 < table_id <= MAX_DB_ID:
        return _not_found(request)
    confirmed = request.POST.get("confirm") == "yes"
    try:
        left = actions.leave_table(request.user, table_id, confirmed=confirmed)
    except actions.NeedsConfirmation as error:
        found = _get_table(table_id)
        if request.htmx or found is None:
            # The table fragment shows the message and the "Leave and cancel" form.
            return _fail(request, table_id, error.message, error.status)
        return render(
            request,
            "games/leave_confirm.html",
            {"table": found, "message": error.message},
            status=error.status,
        )
    except actions.ActionError as error:
        return _fail(request, table_id, error.message, error.status)
    if left.status == Table.Status.CANCELLED and left.seats.filter(user=request.user).exists():
        # Cancelled for everyone: the leaver still sees the table, marked cancelled.
        if request.htmx:
            state = load_state(left)
            seat = state.seat_of(request.user.pk)
            assert seat is not None  # still seated, as checked above
            return _frame_response(frames.render_snapshot(state, seat))
        return _see_other(reverse("table", args=[table_id]))
    messages.success(request, _("You left table #%(id)d.") % {"id": table_id})
    url = reverse("home")
    if request.htmx:
        return HttpResponseClientRedirect(url)
    return _see_other(url)


# ---------------------------------------------------------------------------
# computer players (issue 48)
# ---------------------------------------------------------------------------


@queued_by("table_id")
@require_POST
def add_computer(request: HttpRequest, table_id: int) -> HttpResponse:
    def call() -> Table:
        data = _parsed(forms.ComputerForm, request).cleaned_data
        return actions.add_computer(request.user, table_id, data["version"], data["level"])

    return _act(request, table_id, call)


@queued_by("table_id")
@require_POST
def remove_computer(request: HttpRequest, table_id: int) -> HttpResponse:
    def call() -> Table:
        data = _parsed(forms.SeatForm, request).cleaned_data
        return actions.remove_computer(request.user, table_id, data["version"], data["seat"])

    return _act(request, table_id, call)


@queued_by("table_id")
@require_POST
def hand_over(request: HttpRequest, table_id: int) -> HttpResponse:
    def call() -> Table:
        data = _parsed(forms.SeatForm, request).cleaned_data
        return actions.hand_over(request.user, table_id, data["version"], data["seat"])

    return _act(request, table_id, call)


@queued_by("table_id")
@require_POST
def take_back(request: HttpRequest, table_id: int) -> HttpResponse:
    """The owner of a seat the computer played takes it back (their page posts this as it opens)."""
    return _act(request, table_id, lambda: actions.take_back(request.user, table_id))
