"""After the game: rematch POSTs, player profiles (history and statistics), replay, exports.

The rematch views are thin like every action view (games.play.views._act answers them:
303 or the table fragment, the action's 4xx with a message on refusal). Replay and
exports exist only for FINISHED games and only for the players who sat at them: a
stranger gets 403 like the table page, a player of a game not finished 404 (R4: a
game in progress shows nothing outside its table).
"""

from __future__ import annotations

import csv
import json

from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from config.move_queue import queued_by
from games.after import history, record, replay, stats
from games.models import RoundScore, Seat, Table
from games.play import actions
from games.play.views import (
    BadInput,
    _act,
    _error_page,
    _field,
    _get_table,
    _not_found,
    _not_seated,
)

# Spreadsheets run a cell starting with one of these as a formula (CSV injection).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# ---------------------------------------------------------------------------
# rematch (games.play.actions does the work)
# ---------------------------------------------------------------------------


def _rematch_id(request: HttpRequest) -> int:
    return actions.parse_int(_field(request, "rematch") or None, _("rematch"))


@queued_by("table_id")
@require_POST
def propose_rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    def call() -> None:
        version = actions.parse_int(_field(request, "version") or None, "version")
        actions.propose_rematch(request.user, table_id, version)

    return _act(request, table_id, call)


@queued_by("table_id")
@require_POST
def accept_rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda: actions.accept_rematch(request.user, table_id, _rematch_id(request)),
    )


@queued_by("table_id")
@require_POST
def decline_rematch(request: HttpRequest, table_id: int) -> HttpResponse:
    return _act(
        request,
        table_id,
        lambda: actions.decline_rematch(request.user, table_id, _rematch_id(request)),
    )


# ---------------------------------------------------------------------------
# a player's profile: statistics and history
# ---------------------------------------------------------------------------


@require_safe
def player(request: HttpRequest, username: str) -> HttpResponse:
    user = get_user_model().objects.filter(username__iexact=username).first()
    if user is None:
        return _error_page(request, 404, _("There is no such player."))
    page, entries = history.history_page(user, request.user, request.GET.get("page"))
    context = {
        "player": user,
        "is_me": user.pk == request.user.pk,
        "stats": stats.player_stats(user),
        "page": page,
        "entries": entries,
    }
    return render(request, "games/player.html", context)


# ---------------------------------------------------------------------------
# replay and exports: finished games, for their players
# ---------------------------------------------------------------------------


def _finished_game(request: HttpRequest, table_id: int) -> tuple[Table, Seat] | HttpResponse:
    table = _get_table(table_id)
    if table is None:
        return _not_found(request)
    seat = Seat.objects.filter(table=table, user_id=request.user.pk).first()
    if seat is None:
        return _not_seated(request)
    if table.status != Table.Status.FINISHED:
        return _error_page(request, 404, _("Replays and downloads exist once a game is finished."))
    return table, seat


def _step_param(request: HttpRequest, name: str, default: int) -> int:
    value = request.GET.get(name)
    if value is None:
        return default
    try:
        return actions.parse_int(value, name)
    except actions.ActionError as error:
        raise BadInput(error.message) from None


@require_safe
def replay_game(request: HttpRequest, table_id: int) -> HttpResponse:
    found = _finished_game(request, table_id)
    if isinstance(found, HttpResponse):
        return found
    table, seat = found
    try:
        round_number = _step_param(request, "round", 1)
        trick_number = _step_param(request, "trick", 0)
    except BadInput as error:
        return _error_page(request, 400, error.message)
    try:
        context = replay.replay_context(table, seat, round_number, trick_number)
    except replay.NoSuchStep:
        return _error_page(request, 404, _("This game has no such round or trick."))
    return render(request, "games/replay.html", context)


@require_safe
def export_scores(request: HttpRequest, table_id: int) -> HttpResponse:
    """The score sheet as CSV: one line per round and player."""
    found = _finished_game(request, table_id)
    if isinstance(found, HttpResponse):
        return found
    table, _seat = found
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="skullking-table-{table.pk}-scores.csv"'
    )
    writer = csv.writer(response)
    writer.writerow(
        ["round", "seat", "player", "bid", "won", "base", "bonus", "round_total", "running_total"]
    )
    rows = (
        RoundScore.objects.filter(round__table=table)
        .select_related("round", "seat__user")
        .order_by("round__number", "seat__position")
    )
    for score in rows:
        name = score.seat.name
        if name.startswith(FORMULA_START):
            name = f"'{name}"
        writer.writerow(
            [
                score.round.number,
                score.seat.position,
                name,
                score.bid,
                score.won,
                score.base,
                score.bonus,
                score.total,
                score.running_total,
            ]
        )
    return response


@require_safe
def export_record(request: HttpRequest, table_id: int) -> HttpResponse:
    """The whole game as a JSON record (format: games.after.record) that verify_game re-checks."""
    found = _finished_game(request, table_id)
    if isinstance(found, HttpResponse):
        return found
    table, _seat = found
    body = json.dumps(record.build_record(table), indent=1, ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="skullking-table-{table.pk}.json"'
    return response
