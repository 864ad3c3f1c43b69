"""A finished game, step by step, for the players who sat at it.

A step is (round, trick): trick 0 is the deal and the bids of the round, trick m
(1..cards dealt) is that trick played out, with every hand as it stood before it.
The game is over, so every hand (the ghost's pile too) and every bid is shown; the
views only build a replay of a FINISHED table (R4 still holds for games in progress:
they have no replay at all).

Loaded in 7 queries whatever the table size or the step.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from games import rules
from games.models import Bid, HandCard, Play, Round, RoundScore, Seat, Table, Trick


class NoSuchStep(Exception):
    """The round or trick asked for does not exist in this game."""


@dataclass(frozen=True)
class Step:
    round: int
    trick: int  # 0: the deal and the bids

    def url(self, table_id: int) -> str:
        return f"{reverse('replay', args=[table_id])}?round={self.round}&trick={self.trick}"


@dataclass(frozen=True)
class ReplayCard:
    code: str
    played_now: bool  # the card this player plays in the trick shown


@dataclass(frozen=True)
class ReplayPlayer:
    name: str
    is_ghost: bool
    is_you: bool
    is_dealer: bool
    is_opener: bool
    bid: int | None  # None for the ghost, which never bids (R8)
    won: int  # tricks won so far this round, the trick shown included
    hand: list[ReplayCard]
    computer_level: str = ""  # a computer player's level (issue 48)
    bid_by_computer: bool = False  # a person's bid the computer made (away, out of time)


@dataclass(frozen=True)
class ReplayPlay:
    name: str
    code: str
    as_: str
    is_ghost: bool
    is_you: bool
    is_winner: bool
    by_computer: bool = False  # a person's card the computer played (away, out of time)


@dataclass(frozen=True)
class ReplayTrick:
    number: int
    of: int
    leader_name: str
    plays: list[ReplayPlay]
    winner_name: str = ""  # "" when destroyed
    winner_is_you: bool = False
    destroyed_by: str = ""  # "kraken" / "whale" / ""
    bonus: int = 0
    next_leader_name: str = ""
    # Why the trick went that way, sentence by sentence (filled once games.rules explains).
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Names:
    """Display names by seat id (None: the ghost)."""

    by_seat: dict[int, str]

    def __call__(self, seat_id: int | None) -> str:
        return _("Graybeard") if seat_id is None else self.by_seat.get(seat_id, "?")


def steps(rounds: list[Round]) -> list[Step]:
    """Every step of the game, in order."""
    return [Step(r.number, t) for r in rounds for t in range(r.cards_dealt + 1)]


def replay_trick(
    trick: Trick,
    plays: list[Play],
    of: int,
    names: Names,
    me: Seat,
    computers: frozenset[int] = frozenset(),
) -> ReplayTrick:
    """The one place that says what is shown of a played trick (reasons go here too).
    ``computers``: the computer players' seats (their own moves are not marked)."""
    winner_id = None if trick.destroyed_by else trick.winner_id
    ghost_won = trick.won_by_ghost and not trick.destroyed_by
    return ReplayTrick(
        number=trick.number,
        of=of,
        leader_name=names(trick.leader_id),
        plays=[
            ReplayPlay(
                name=names(p.seat_id),
                code=p.card,
                as_=p.tigress_as,
                is_ghost=p.seat_id is None,
                is_you=p.seat_id == me.pk,
                is_winner=(p.seat_id is None)
                if ghost_won
                else (winner_id is not None and p.seat_id == winner_id),
                by_computer=p.by_computer and p.seat_id not in computers,
            )
            for p in plays
        ],
        winner_name="" if trick.destroyed_by else (names(None) if ghost_won else names(winner_id)),
        winner_is_you=winner_id is not None and not ghost_won and winner_id == me.pk,
        destroyed_by=trick.destroyed_by,
        bonus=0 if trick.destroyed_by else trick.bonus,
        next_leader_name=names(trick.next_leader_id),
    )


def replay_context(table: Table, me: Seat, round_number: int, trick_number: int) -> dict[str, Any]:
    """The context of games/replay.html at one step; NoSuchStep if it is not in the game."""
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("position"))
    names = Names({seat.pk: seat.name for seat in seats})
    rounds = list(Round.objects.filter(table=table).order_by("number"))
    game_round = next((r for r in rounds if r.number == round_number), None)
    if game_round is None or not 0 <= trick_number <= game_round.cards_dealt:
        raise NoSuchStep
    step = Step(round_number, trick_number)
    all_steps = steps(rounds)
    at = all_steps.index(step)

    tricks = list(Trick.objects.filter(round=game_round).order_by("number"))
    number_of = {t.pk: t.number for t in tricks}
    plays_by_trick: dict[int, list[Play]] = {}
    for play in Play.objects.filter(round=game_round).order_by("order"):
        plays_by_trick.setdefault(number_of[play.trick_id], []).append(play)
    # The hands as they stood before the trick shown: dealt minus what earlier tricks took.
    played_before = {
        p.card for n, plays in plays_by_trick.items() if n < trick_number for p in plays
    }
    played_now = {p.card for p in plays_by_trick.get(trick_number, [])}
    hands: dict[int | None, list[str]] = {}
    for hand_card in HandCard.objects.filter(round=game_round).order_by("deal_order"):
        if hand_card.card not in played_before:
            hands.setdefault(hand_card.seat_id, []).append(hand_card.card)
    bids = {b.seat_id: b for b in Bid.objects.filter(round=game_round)}
    won: Counter[int | None] = Counter(
        None if t.won_by_ghost else t.winner_id
        for t in tricks
        if t.number <= trick_number and t.complete and not t.destroyed_by
    )

    def hand_of(seat_id: int | None) -> list[ReplayCard]:
        codes = hands.get(seat_id, [])
        if seat_id is not None:  # the ghost's pile stays in deal order (R8): top card first
            codes = [str(c) for c in rules.sort_hand(rules.card(code) for code in codes)]
        return [ReplayCard(code, code in played_now) for code in codes]

    players = [
        ReplayPlayer(
            name=names(seat.pk),
            is_ghost=False,
            is_you=seat.pk == me.pk,
            is_dealer=seat.pk == game_round.dealer_id,
            is_opener=seat.pk == game_round.opener_id,
            bid=bids[seat.pk].value if seat.pk in bids else None,
            won=won[seat.pk],
            hand=hand_of(seat.pk),
            computer_level=seat.get_computer_display() if seat.is_computer else "",
            bid_by_computer=seat.pk in bids and bids[seat.pk].by_computer and not seat.is_computer,
        )
        for seat in seats
    ]
    if table.uses_ghost:
        ghost = ReplayPlayer(names(None), True, False, False, False, None, won[None], hand_of(None))
        players.insert(1, ghost)

    trick = None
    if trick_number:
        shown = tricks[trick_number - 1]
        trick = replay_trick(
            shown,
            plays_by_trick.get(trick_number, []),
            game_round.cards_dealt,
            names,
            me,
            frozenset(seat.pk for seat in seats if seat.is_computer),
        )

    # The score sheet as it stood: a round's scores appear once its last trick is shown.
    scored_through = round_number if trick_number == game_round.cards_dealt else round_number - 1
    scores = list(
        RoundScore.objects.filter(round__table=table, round__number__lte=scored_through)
        .select_related("round")
        .order_by("round__number", "seat__position")
    )
    return {
        "table": table,
        "table_id": table.pk,
        "step": step,
        "round_number": round_number,
        "trick_number": trick_number,
        "cards_dealt": game_round.cards_dealt,
        "rounds_total": rules.ROUNDS,
        "round_links": [
            {
                "number": r.number,
                "url": Step(r.number, 0).url(table.pk),
                "current": r.number == round_number,
            }
            for r in rounds
        ],
        "trick_links": [
            {"number": n, "url": Step(round_number, n).url(table.pk), "current": n == trick_number}
            for n in range(game_round.cards_dealt + 1)
        ],
        "prev_url": all_steps[at - 1].url(table.pk) if at > 0 else "",
        "next_url": all_steps[at + 1].url(table.pk) if at + 1 < len(all_steps) else "",
        "dealer_name": names(game_round.dealer_id),
        "opener_name": names(game_round.opener_id),
        "players": players,
        "trick": trick,
        "round_summary": [
            {"name": names(s.seat_id), "is_you": s.seat_id == me.pk, "score": s}
            for s in scores
            if s.round.number == round_number
        ],
        "sheet": score_sheet(scores, seats, me, names),
    }


def score_sheet(
    scores: list[RoundScore], seats: list[Seat], me: Seat, names: Names
) -> dict[str, Any]:
    """Rounds (rows) x seats (columns) of the given score rows, with the last running totals."""
    by_round: dict[int, dict[int, RoundScore]] = {}
    for score in scores:
        by_round.setdefault(score.round.number, {})[score.seat_id] = score
    totals = {seat.pk: 0 for seat in seats}
    rows = []
    for number in sorted(by_round):
        cells = [by_round[number].get(seat.pk) for seat in seats]
        for seat, cell in zip(seats, cells, strict=True):
            if cell is not None:
                totals[seat.pk] = cell.running_total
        rows.append({"number": number, "cells": cells})
    return {
        "columns": [{"name": names(s.pk), "is_you": s.pk == me.pk} for s in seats],
        "rows": rows,
        "totals": [totals[s.pk] for s in seats],
    }
