"""Scripted deals for tests: chosen hands, so that a chosen trick (an R6/R7 case) happens.

    table, users = scripted_round([["SK"], ["PIR1"], ["G5"]])   # round 1, 3 players, no ghost
    table = play_script(table, ["SK", "PIR1", "G5"])             # played in that order

``hands`` are given in PLAY ORDER of the round's first trick (the opener first, R3), not in
seat order; ``ghost`` is the ghost's pile (R8: it plays its top card). A round ``n`` > 1 is
reached by random legal moves first (seeded), then its hands are replaced before any bid.
The only writes outside games.play.actions are the table's seed and the replaced hands: test
arrangement, like the deck seed of games.testing.factories.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from games import rules
from games.models import HandCard, Table
from games.play import actions
from games.play.state import load_state
from games.storage import state_cache

from .driver import at_phase, play_until
from .factories import started_table


def scripted_round(
    hands: Sequence[Sequence[str]],
    *,
    ghost: Sequence[str] = (),
    round_number: int = 1,
    users: Sequence[Any] | None = None,
    bids: Sequence[int] | None = None,
    seed: int = 5,
) -> tuple[Table, list[Any]]:
    """A table in round ``round_number`` with ``hands`` dealt (play order of its first
    trick); with ``bids`` (seat order) everyone bids, so the first trick is ready to play.
    """
    humans = len(hands)
    table, players = started_table(
        list(users) if users is not None else humans, ghost=bool(ghost), seed=seed
    )
    if round_number > 1:
        rng = random.Random(seed)  # noqa: S311 (a reproducible test game, no secret)
        table = play_until(table, rng, at_phase(Table.Phase.BIDDING, round_number))
    state = load_state(table)
    assert state.round is not None
    opener = state.player_index(state.round.opener_id)
    order = rules.play_order(opener, len(state.seats), state.uses_ghost, opener)
    humans_order = [i for i in order if i != rules.GHOST]
    HandCard.objects.filter(round=state.round).delete()
    rows = [
        HandCard(round=state.round, seat=state.seats[index], card=code, deal_order=n)
        for index, codes in zip(humans_order, hands, strict=True)
        for n, code in enumerate(codes)
    ]
    rows += [
        HandCard(round=state.round, seat=None, card=code, deal_order=n)
        for n, code in enumerate(ghost)
    ]
    HandCard.objects.bulk_create(rows)
    state_cache.mark_changed(state.table.pk)
    if bids is not None:
        for seat, value in zip(state.seats, bids, strict=True):
            table = actions.place_bid(seat.user, table.pk, table.version, value)
    return Table.objects.get(pk=table.pk), players


def play_script(table: Table, plays: Sequence[str]) -> Table:
    """Each human to move plays the next of ``plays`` ("G5", "TIG:pirate"); the ghost plays
    by itself (R8) and takes no entry.
    """
    for notation in plays:
        state = load_state(table)
        seat = state.seat_to_play()
        assert seat is not None, f"nobody to play {notation}"
        code, _, as_ = notation.partition(":")
        table = actions.play_card(seat.user, table.pk, table.version, code, as_)
    return table
