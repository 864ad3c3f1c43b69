"""The compiled writes (games.storage.compiled_writes) write what the ORM's save would.

A play's hand card, the play, the trick's result (R6, R7) and the table's next
version are written through them on every move: the rows must be the ORM's,
field for field, on the backend the suite runs on (SQLite locally, PostgreSQL in CI).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError
from django.db.models import Model
from django.db.models.signals import post_save, pre_save

from games.models import Bid, HandCard, Play, Round, RoundScore, Table, Trick
from games.play.state import load_state
from games.storage.compiled_writes import insert, insert_many, save_fields
from games.storage.transactions import action_transaction

from .helpers import bid_all, fresh, started_table
from .test_queries import BATCHED, writes

pytestmark = pytest.mark.django_db


def row(instance: Model) -> dict[str, Any]:
    """The row as the ORM reads it back."""
    again = type(instance).objects.get(pk=instance.pk)
    return {f.attname: getattr(again, f.attname) for f in again._meta.concrete_fields}


def own(instance: Model) -> dict[str, Any]:
    return {f.attname: getattr(instance, f.attname) for f in instance._meta.concrete_fields}


def test_nothing_listens_to_the_saves_the_compiled_writes_skip() -> None:
    for model in (Table, Round, HandCard, Play, Trick, Bid, RoundScore):
        assert not pre_save.has_listeners(model), model
        assert not post_save.has_listeners(model), model


def test_save_fields_writes_those_fields_and_auto_now_as_the_orm() -> None:
    table, _users = started_table(3)
    table = fresh(table)
    before = table.updated_at
    other = fresh(table)
    table.version += 1
    table.phase = Table.Phase.PLAYING
    table.round_number = 7  # not among the fields saved: stays as it was
    save_fields(table, ("version", "phase", "updated_at"))
    written = row(table)
    assert written["version"] == other.version + 1
    assert written["phase"] == Table.Phase.PLAYING
    assert written["round_number"] == other.round_number
    assert written["updated_at"] == table.updated_at > before  # auto_now, as save() sets it


def test_insert_writes_the_row_objects_create_would() -> None:
    table, _users = started_table(3, ghost=False)
    table = bid_all(fresh(table))
    state = load_state(table)
    assert state.trick is not None and state.round is not None
    seat, other = state.seats[:2]
    same = {"trick": state.trick, "round": state.round, "tigress_as": ""}
    mine = insert(Play(seat=seat, card=str(state.hand_of(seat)[0]), order=0, **same))
    theirs = Play.objects.create(seat=other, card=str(state.hand_of(other)[0]), order=1, **same)
    assert mine.pk is not None and not mine._state.adding
    assert row(mine) == own(mine)  # every field, created_at (auto_now_add) included
    different = {"id", "seat_id", "card", "order", "created_at"}
    assert {k: v for k, v in row(mine).items() if k not in different} == {
        k: v for k, v in row(theirs).items() if k not in different
    }


def test_a_row_that_is_gone_fails_as_with_the_orm() -> None:
    table, _users = started_table(2)
    trick_less = Trick(pk=10**9, number=1)
    with pytest.raises(DatabaseError):
        save_fields(trick_less, ("complete",))
    assert fresh(table) is not None


def test_insert_many_writes_the_rows_bulk_create_would_with_their_keys_in_order() -> None:
    """R2: a deal's hand cards, written at once, each with its own key read back."""
    table, _users = started_table(3, ghost=False)
    state = load_state(fresh(table))
    assert state.round is not None
    seat, other = state.seats[:2]
    cards = ["G1", "G2", "G3", "Y1", "Y2"]
    state.round.hand_cards.all().delete()
    mine = [
        HandCard(round=state.round, seat=seat, card=card, deal_order=order)
        for order, card in enumerate(cards[:3])
    ]
    insert_many(mine)
    theirs = HandCard.objects.bulk_create(
        [
            HandCard(round=state.round, seat=other, card=c, deal_order=n)
            for n, c in enumerate(cards[3:])
        ]
    )
    assert [card.pk for card in mine] == sorted(card.pk for card in mine)
    for card, code in zip(mine, cards[:3], strict=True):
        assert not card._state.adding
        assert row(card) == own(card) and row(card)["card"] == code
    different = {"id", "seat_id", "card", "deal_order"}
    assert {k: v for k, v in row(mine[0]).items() if k not in different} == {
        k: v for k, v in row(theirs[0]).items() if k not in different
    }
    insert_many([])  # nothing to write: no statement


# -- batches (every action runs in one: a play's writes in one round trip) -------------


def _next_play(state: Any) -> Play:
    seat = state.seat_to_play()
    card = str(sorted(state.legal_cards(seat))[0])
    return Play(trick=state.trick, round=state.round, seat=seat, card=card, order=0)


def test_a_batch_sends_its_writes_in_one_round_trip_before_it_ends(
    django_assert_num_queries: Any,
) -> None:
    """R5: a play's hand card, the play and the table's version, as one move writes them."""
    table, _users = started_table(3, ghost=False)
    state = load_state(bid_all(fresh(table)))
    hand_card = next(h for h in state.hands[state.seat_to_play().pk])
    play = _next_play(state)
    play.card = hand_card.card
    # savepoint and release (the test runs in a transaction), and the writes
    with django_assert_num_queries(2 + writes(3)), action_transaction():
        hand_card.played = True
        save_fields(hand_card, ("played",))
        insert(play)
        state.table.version += 1
        save_fields(state.table, ("version",))
        # On PostgreSQL nothing has gone yet: the play's key comes with the round trip.
        assert (play.pk is None) == BATCHED
    assert play.pk is not None and row(play) == own(play)
    assert row(hand_card)["played"] is True
    assert fresh(table).version == state.table.version


def test_a_read_in_a_batch_sees_the_writes_waiting_before_it() -> None:
    table, _users = started_table(2)
    table = fresh(table)
    with action_transaction():
        table.version += 5
        save_fields(table, ("version",))
        assert Table.objects.get(pk=table.pk).version == table.version


def test_a_write_that_needs_a_waiting_row_s_key_goes_after_it() -> None:
    """A trick inserted, then updated (R6: its winner) and played to, in one batch."""
    table, _users = started_table(3, ghost=False)
    state = load_state(bid_all(fresh(table)))
    assert state.round is not None and state.trick is not None
    with action_transaction():
        trick = insert(Trick(round=state.round, number=2, leader_id=state.trick.leader_id))
        play = _next_play(state)
        play.trick, play.order = trick, 0
        insert(play)
        trick.complete = True
        save_fields(trick, ("complete",))
    assert row(play)["trick_id"] == trick.pk is not None
    assert row(trick)["complete"] is True


def test_a_row_that_is_gone_fails_in_a_batch_as_alone() -> None:
    started_table(2)
    with pytest.raises(DatabaseError), action_transaction():
        save_fields(Trick(pk=10**9, number=1), ("complete",))
