"""A player's finished score sheets (games played with cards) for games.after.stats: one query.

Counted as the table's are (games.after.stats): games, wins (R10, a shared top is a win),
rounds, exact bids, zero bids made, best round; and the sum and number of final
totals of full 10-round sheets, for the average (a short game's total of 5 rounds
is not comparable, so it stays out of the average).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Exists, F, Max, OuterRef, Q, Sum

from .models import FULL_GAME, Sheet, SheetEntry


@dataclass(frozen=True)
class SheetNumbers:
    games: int = 0
    wins: int = 0
    full_games: int = 0
    full_total: int = 0
    rounds: int = 0
    exact_bids: int = 0
    zero_bids: int = 0
    zero_bids_made: int = 0
    best_round: int | None = None


def sheet_numbers(user: Any) -> SheetNumbers:
    # A win: nobody on the sheet ends higher (R10: a shared top is a win for each).
    beaten = Exists(
        SheetEntry.objects.filter(
            round_id=OuterRef("round_id"), running_total__gt=OuterRef("running_total")
        )
    )
    last = Q(round__number=F("round__sheet__rounds"))
    full = last & Q(round__sheet__rounds=FULL_GAME)
    found = (
        SheetEntry.objects.filter(
            player__user=user,
            round__sheet__status=Sheet.Status.FINISHED,
            tricks__isnull=False,
        )
        .annotate(beaten=beaten)
        .aggregate(
            games=Count("pk", filter=last),
            wins=Count("pk", filter=last & Q(beaten=False)),
            full_games=Count("pk", filter=full),
            full_total=Sum("running_total", filter=full),
            rounds=Count("pk"),
            exact=Count("pk", filter=Q(tricks=F("bid"))),
            zero=Count("pk", filter=Q(bid=0)),
            zero_made=Count("pk", filter=Q(bid=0, tricks=0)),
            best=Max("total"),
        )
    )
    return SheetNumbers(
        games=found["games"],
        wins=found["wins"],
        full_games=found["full_games"],
        full_total=found["full_total"] or 0,
        rounds=found["rounds"],
        exact_bids=found["exact"],
        zero_bids=found["zero"],
        zero_bids_made=found["zero_made"],
        best_round=found["best"],
    )
