"""A player's statistics over their FINISHED games, in two queries whatever their number.

Games in progress (and cancelled ones) count for nothing here: their rounds are
not all played, and a game in progress must not leak anything (R4).

- games: finished games they sat at;
- wins: games where their final total is the highest, ties included (R10: a shared
  victory is a win for each);
- average score: their mean final total;
- exact-bid rate: rounds where tricks won == bid, over all their rounds;
- zero-bid success rate: rounds bid 0 and won 0, over their rounds bid 0;
- best round: their highest round total (R9).

Games with computer players (issue 48: practice) count in none of these: they are
counted apart (``computer_games``), in the same queries.

Finished score sheets (games played with real cards, games.sheets: seed 001) of a
registered player count too, in every figure but the average score, which counts
only 10-round games (a short sheet's 5 rounds are not comparable); ``card_games``
says how many of the games were played with cards. One more query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Avg, Count, Exists, F, Max, OuterRef, Q, Subquery

from games import rules
from games.models import RoundScore, Seat, Table
from games.sheets.stats import sheet_numbers


@dataclass(frozen=True)
class PlayerStats:
    games: int
    wins: int
    average_score: float | None  # None: no finished game yet
    rounds: int
    exact_bids: int
    zero_bids: int
    zero_bids_made: int
    best_round: int | None
    card_games: int = 0  # of ``games``, those played with real cards (a score sheet)
    # Finished games with computer players (practice): kept apart, counted in no figure above.
    computer_games: int = 0

    @property
    def exact_bid_rate(self) -> float | None:
        return self.exact_bids / self.rounds if self.rounds else None

    @property
    def zero_bid_rate(self) -> float | None:
        return self.zero_bids_made / self.zero_bids if self.zero_bids else None

    # For display: whole percents.
    @property
    def exact_bid_percent(self) -> int | None:
        rate = self.exact_bid_rate
        return None if rate is None else round(100 * rate)

    @property
    def zero_bid_percent(self) -> int | None:
        rate = self.zero_bid_rate
        return None if rate is None else round(100 * rate)


def player_stats(user: Any) -> PlayerStats:
    """Two aggregate queries: one over their final scores, one over all their rounds."""
    played = RoundScore.objects.filter(seat__user=user, round__table__status=Table.Status.FINISHED)
    # Games with computer players are practice (issue 48): they do not make a record.
    with_computers = Seat.objects.filter(table_id=OuterRef("round__table_id")).exclude(computer="")
    marked = played.annotate(with_computers=Exists(with_computers))
    theirs = marked.filter(with_computers=False)
    best_at_table = (
        RoundScore.objects.filter(round_id=OuterRef("round_id"))
        .order_by("-running_total")
        .values("running_total")[:1]
    )
    people_only = Q(with_computers=False)
    finals = (
        marked.filter(round__number=rules.ROUNDS)
        .annotate(best=Subquery(best_at_table))
        .aggregate(
            games=Count("pk", filter=people_only),
            wins=Count("pk", filter=people_only & Q(running_total=F("best"))),
            average=Avg("running_total", filter=people_only),
            computer_games=Count("pk", filter=Q(with_computers=True)),
        )
    )
    rounds = theirs.aggregate(
        rounds=Count("pk"),
        exact=Count("pk", filter=Q(won=F("bid"))),
        zero=Count("pk", filter=Q(bid=0)),
        zero_made=Count("pk", filter=Q(bid=0, won=0)),
        best=Max("total"),
    )
    cards = sheet_numbers(user)
    table_games = finals["games"]
    averaged = table_games + cards.full_games
    total = float(finals["average"] or 0) * table_games + cards.full_total
    bests = [b for b in (rounds["best"], cards.best_round) if b is not None]
    return PlayerStats(
        games=table_games + cards.games,
        wins=finals["wins"] + cards.wins,
        average_score=float(total / averaged) if averaged else None,
        rounds=rounds["rounds"] + cards.rounds,
        exact_bids=rounds["exact"] + cards.exact_bids,
        zero_bids=rounds["zero"] + cards.zero_bids,
        zero_bids_made=rounds["zero_made"] + cards.zero_bids_made,
        best_round=max(bests) if bests else None,
        card_games=cards.games,
        computer_games=finals["computer_games"],
    )
