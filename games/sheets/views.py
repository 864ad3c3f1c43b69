"""The score sheet's pages and POSTs: parse with django.forms, call one action, answer.

- plain POST: 303 back to the sheet (every form works without JavaScript);
- htmx POST: 200 with the sheet's live regions as out-of-band swaps (the page's
  forms say hx-swap="none"), the same frame its socket gets;
- a refusal (games.sheets.actions.SheetError, or a form's error): its status (400,
  403, 404, 409) with the message, and the form again with what was typed (a
  stale form gets the current sheet and the current version); nothing changed.

Who: anyone logged in with the sheet's link reads it (LoginRequiredMiddleware sends
the anonymous to log in); the creator and its registered players change it.
"""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from . import actions, export, live, presenter
from .forms import BidsForm, ResultsForm, SheetCreateForm
from .models import Sheet, SheetPlayer


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response


def _error_page(request: HttpRequest, status: int, message: str) -> HttpResponse:
    template = {403: "403.html", 404: "404.html"}.get(status, "400.html")
    return render(request, template, {"message": message}, status=status)


def _sheet(token: str) -> Sheet | None:
    return Sheet.objects.select_related("created_by").filter(token=token).first()


def _no_sheet(request: HttpRequest) -> HttpResponse:
    return _error_page(request, 404, _("There is no such score sheet."))


# ---------------------------------------------------------------------------
# create
# ---------------------------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def new_sheet(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        form = SheetCreateForm(initial={"name-1": request.user.get_username()})
        return render(request, "sheets/new.html", {"form": form})
    form = SheetCreateForm(request.POST)
    errors: list[str] = []
    if form.is_valid():
        try:
            sheet = actions.create_sheet(
                request.user, form.cleaned_data["rounds"], form.cleaned_data["players"]
            )
        except actions.SheetError as error:
            errors = [error.message]
        else:
            return _see_other(reverse("sheet", args=[sheet.token]))
    else:
        errors = [str(e) for field_errors in form.errors.values() for e in field_errors]
    return render(request, "sheets/new.html", {"form": form, "errors": errors}, status=400)


# ---------------------------------------------------------------------------
# the sheet
# ---------------------------------------------------------------------------


def _page(
    request: HttpRequest,
    sheet: Sheet,
    *,
    status: int = 200,
    correction: bool = False,
    **extra: Any,
) -> HttpResponse:
    context = presenter.sheet_context(sheet, request.user, **extra)
    context["correction"] = correction
    context["socket_url"] = (
        reverse("sheet_socket", urlconf="games.live.routing", args=[sheet.token])
        + f"?lang={get_language() or ''}"
    )
    return render(request, "sheets/sheet.html", context, status=status)


@require_safe
def sheet_page(request: HttpRequest, token: str) -> HttpResponse:
    sheet = _sheet(token)
    if sheet is None:
        return _no_sheet(request)
    return _page(request, sheet)


@require_safe
def correct_round(request: HttpRequest, token: str, number: str, kind: str) -> HttpResponse:
    """An earlier round's bids or results, to correct (a page of its own: no push replaces it)."""
    return _correct(request, token, int(number), kind)


def _correct(request: HttpRequest, token: str, number: int, kind: str) -> HttpResponse:
    sheet = _sheet(token)
    if sheet is None:
        return _no_sheet(request)
    players, rounds = presenter.load(sheet)
    if not actions.can_edit(sheet, request.user, players):
        return _error_page(
            request, 403, _("Only the sheet's creator and its registered players can change it.")
        )
    if not 1 <= number <= sheet.rounds or not rounds[number - 1].has_bids:
        return _error_page(request, 404, _("This round has nothing to correct yet."))
    view = rounds[number - 1]
    if kind == "results" and not view.has_results:
        return _error_page(request, 404, _("This round has nothing to correct yet."))
    make = presenter.bids_form if kind == "bids" else presenter.results_form
    return _page(request, sheet, form=make(players, sheet, view), correction=True)


def _players(sheet: Sheet) -> list[SheetPlayer]:
    return list(sheet.players.select_related("user").order_by("position"))


def _save(
    request: HttpRequest,
    token: str,
    form_class: type[BidsForm] | type[ResultsForm],
    save: Any,
) -> HttpResponse:
    sheet = _sheet(token)
    if sheet is None:
        return _no_sheet(request)
    players = _players(sheet)
    correction = request.POST.get("correction") == "1"
    form = form_class(players, request.POST)
    try:
        if not form.is_valid():
            raise actions.SheetError(form.messages()[0] if form.messages() else _("Invalid form."))
        save(form)
    except actions.SheetError as error:
        if error.status == 404:
            return _error_page(request, 404, error.message)
        if error.status == 403:
            return _error_page(request, 403, error.message)
        fresh = _sheet(token) or sheet
        messages = form.messages() if form.is_bound and form.errors else [error.message]
        # The form again with what was typed, at the current version (a stale form
        # was refused: saving it again is checked against the sheet as it is now).
        again = form_class(players, presenter.with_version(request.POST, fresh.version))
        again.full_clean()
        for field in list(again.errors):
            if field not in form.errors:
                del again.errors[field]
        extra = {"form": again, "errors": messages}
        if request.htmx and not correction:
            return _frame(request, fresh, error.status, **extra)
        return _page(request, fresh, status=error.status, correction=correction, **extra)
    if request.htmx and not correction:
        fresh = _sheet(token) or sheet
        return _frame(request, fresh, 200)
    return _see_other(reverse("sheet", args=[token]))


def _frame(request: HttpRequest, sheet: Sheet, status: int, **extra: Any) -> HttpResponse:
    html = live.render_frame(sheet, request.user, get_language() or "en", **extra)
    return HttpResponse(html, status=status)


@require_POST
def post_bids(request: HttpRequest, token: str) -> HttpResponse:
    def save(form: BidsForm) -> None:
        data = form.cleaned_data
        actions.save_bids(
            request.user, token, data["version"], data["round"], data["cards"], form.bids()
        )

    return _save(request, token, BidsForm, save)


@require_POST
def post_results(request: HttpRequest, token: str) -> HttpResponse:
    def save(form: ResultsForm) -> None:
        data = form.cleaned_data
        actions.save_results(request.user, token, data["version"], data["round"], form.lines())

    return _save(request, token, ResultsForm, save)


# ---------------------------------------------------------------------------
# exports
# ---------------------------------------------------------------------------


@require_safe
def sheet_csv(request: HttpRequest, token: str) -> HttpResponse:
    sheet = _sheet(token)
    if sheet is None:
        return _no_sheet(request)
    response = HttpResponse(export.as_csv(sheet), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="skullking-sheet-{sheet.pk}.csv"'
    return response


@require_safe
def sheet_json(request: HttpRequest, token: str) -> HttpResponse:
    sheet = _sheet(token)
    if sheet is None:
        return _no_sheet(request)
    body = json.dumps(export.as_json(sheet), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="skullking-sheet-{sheet.pk}.json"'
    return response
