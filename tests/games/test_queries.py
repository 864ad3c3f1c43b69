"""Query counts of the hot paths are exact and the SAME for 3 and 8 players.

Every count below is asserted for both table sizes, so a query that grows with the
number of players (an N+1 over seats, hands, bids or scores) fails here.
Counts include the SAVEPOINT/RELEASE pair of the action's atomic block (the test
runs inside a transaction).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import rules
from games.models import Table
from games.pages import presenter
from games.play import actions
from games.play.state import load_state

from .helpers import at_phase, fresh, play_until, started_table

pytestmark = pytest.mark.django_db

PLAYERS = pytest.mark.parametrize("players", [3, 8])

#: On PostgreSQL an action's writes wait and go together (games.storage.transactions):
#: one round trip at the action's end, or with the read that follows them. On SQLite
#: (no round trips) each write is a query of its own.
BATCHED = connection.vendor == "postgresql"


def writes(sqlite: int, postgresql: int = 1) -> int:
    """The queries an action's writes take on the database the tests run on."""
    return postgresql if BATCHED else sqlite


# savepoint, lock with the seats and their users, load_state's other reads (4: round,
# hand cards, bids, tricks), release; the writes: insert bid, update table
PLACE_BID = 7 + writes(2)
# + the insert of trick 1 (led by the round's opener), whose key the state needs at
# once: on PostgreSQL the bid and the trick go together, the table's update after
PLACE_LAST_BID = 7 + writes(3, postgresql=2)
# savepoint, lock with the seats, load_state's other reads (5: + plays of the current
# trick), release; the writes: update hand card, insert play, update table
PLAY_CARD = 8 + writes(3)
PLAY_CARD_CLOSING_TRICK = 8 + writes(4)  # + update trick
# + read the scores so far (which carries the writes waiting on PostgreSQL); the writes:
# + update trick, insert the round's scores (one query)
PLAY_CARD_CLOSING_ROUND = 8 + 1 + writes(5)
LOAD_STATE_BIDDING = 5
LOAD_STATE_PLAYING = 6
# savepoint, lock with the seats, load_state's other reads (5), release; the writes:
# insert trick (its key is needed at once), update table
NEXT_TRICK = 8 + writes(2, postgresql=2)
# savepoint, lock with the seats (the deal's too), release; the writes: insert round,
# insert hand cards (one query), update table. On PostgreSQL the hand cards refer to
# the round, so the round goes first, alone. The push renders the new round from these rows.
NEXT_ROUND = 3 + writes(3, postgresql=2)


def in_round_two(players: int) -> tuple[Table, list[Any]]:
    """Round 2 (round 1 scored, so the score sheet is not empty), bidding."""
    table, users = started_table(players, ghost=False, seed=77, prefix=f"q{players}-")
    table = play_until(table, random.Random(77), at_phase(Table.Phase.BIDDING, 2))
    return table, users


def bid_all_but_last(table: Table) -> tuple[Table, Any]:
    state = load_state(fresh(table))
    for seat in state.seats[:-1]:
        if seat.pk not in state.bids:
            table = actions.place_bid(seat.user, table.pk, table.version, 1)
    return table, state.seats[-1]


def play_one(table: Table) -> Table:
    state = load_state(fresh(table))
    seat = state.seat_to_play()
    code = min(state.legal_cards(seat), key=lambda c: rules.card(c).index)
    tigress_as = "escape" if code == "TIG" else ""
    return actions.play_card(seat.user, table.pk, table.version, code, tigress_as)


def next_play_args(table: Table) -> tuple[Any, ...]:
    state = load_state(fresh(table))
    seat = state.seat_to_play()
    code = min(state.legal_cards(seat), key=lambda c: rules.card(c).index)
    return (seat.user, table.pk, table.version, code, "escape" if code == "TIG" else "")


@PLAYERS
def test_load_state_queries(players: int, django_assert_num_queries: Any) -> None:
    table, _ = in_round_two(players)
    table = fresh(table)
    with django_assert_num_queries(LOAD_STATE_BIDDING):
        load_state(table)
    table, last = bid_all_but_last(table)
    table = fresh(actions.place_bid(last.user, table.pk, table.version, 1))
    with django_assert_num_queries(LOAD_STATE_PLAYING):
        state = load_state(table)
    # the per-seat questions are answered from memory
    with django_assert_num_queries(0):
        for seat in state.seats:
            state.legal_cards(seat)
            state.hand_of(seat)
        state.tricks_won()
        state.next_to_play()


@PLAYERS
def test_place_bid_queries(players: int, django_assert_num_queries: Any) -> None:
    table, _ = in_round_two(players)
    state = load_state(fresh(table))
    with django_assert_num_queries(PLACE_BID):
        table = actions.place_bid(state.seats[0].user, table.pk, table.version, 1)
    table, last = bid_all_but_last(table)
    with django_assert_num_queries(PLACE_LAST_BID):
        table = actions.place_bid(last.user, table.pk, table.version, 1)
    assert table.phase == Table.Phase.PLAYING


@PLAYERS
def test_play_card_queries(players: int, django_assert_num_queries: Any) -> None:
    table, users = in_round_two(players)
    table, last = bid_all_but_last(table)
    table = actions.place_bid(last.user, table.pk, table.version, 1)
    for _ in range(players - 1):
        args = next_play_args(table)
        with django_assert_num_queries(PLAY_CARD):
            table = actions.play_card(*args)
    args = next_play_args(table)
    with django_assert_num_queries(PLAY_CARD_CLOSING_TRICK):
        table = actions.play_card(*args)
    assert table.phase == Table.Phase.TRICK_DONE
    with django_assert_num_queries(NEXT_TRICK):
        table = actions.next_trick(users[0], table.pk, table.version)
    # the last trick of round 2: play to its last card
    table = play_until(
        table,
        random.Random(1),
        lambda t: (
            t.phase == Table.Phase.PLAYING
            and load_state(t).trick.number == 2
            and len(load_state(t).plays) == players - 1
        ),
    )
    args = next_play_args(table)
    with django_assert_num_queries(PLAY_CARD_CLOSING_ROUND):
        table = actions.play_card(*args)
    assert table.phase == Table.Phase.ROUND_DONE
    with django_assert_num_queries(NEXT_ROUND):
        table = actions.next_round(users[0], table.pk, table.version)
    assert table.round_number == 3


def test_presenter_queries_do_not_grow_with_players() -> None:
    """One user's table context costs the same for 3 and 8 players."""
    counts = {}
    for players in (3, 8):
        table, users = in_round_two(players)
        table = Table.objects.select_related("host", "cancelled_by").get(pk=table.pk)
        with CaptureQueriesContext(connection) as captured:
            presenter.table_context(table, users[1])
        counts[players] = len(captured.captured_queries)
    assert counts[3] == counts[8], counts
