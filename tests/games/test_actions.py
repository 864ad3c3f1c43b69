"""games.play.actions: each action's success and each refusal (status, and nothing written)."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth.models import Permission

from games.models import CHAT_MAX_LENGTH, Bid, ChatMessage, Play, Seat, Table, Trick
from games.play import actions

from .helpers import (
    assert_refused,
    at_phase,
    bid_all,
    make_users,
    play_until,
    rig_hands,
    seated_table,
    started_table,
    state_of,
)

pytestmark = pytest.mark.django_db

UNKNOWN_TABLE = 987654321


def round_two(hands: dict[int, list[str]], ghost: list[str] = (), *, use_ghost: bool = False):
    """A 2-player table in round 2 (seat 1, users[0], opens) with rigged hands, all bid 1."""
    table, users = started_table(2, ghost=use_ghost, seed=7)
    table = play_until(table, random.Random(7), at_phase(Table.Phase.BIDDING, 2))
    assert state_of(table).round.opener.position == 1
    rig_hands(table, hands, ghost)
    table = bid_all(table, 1)
    assert table.phase == Table.Phase.PLAYING
    return table, users


# -- tables and seats --------------------------------------------------------------------


def test_create_table_seats_the_host_at_position_1() -> None:
    (host,) = make_users(1)
    table = actions.create_table(host, ghost=False)
    assert table.host == host
    assert table.status == Table.Status.WAITING
    assert not table.ghost
    assert list(table.seats.values_list("user", "position")) == [(host.pk, 1)]


def test_join_table_seats_players_in_join_order() -> None:
    table, users = seated_table(3)
    assert list(table.seats.order_by("position").values_list("user", flat=True)) == [
        u.pk for u in users
    ]
    assert table.version == 2


def test_join_twice_is_harmless() -> None:
    table, users = seated_table(2)
    again = actions.join_table(users[1], table.invite_token)
    assert again.version == table.version
    assert Seat.objects.filter(table=table).count() == 2


def test_join_bad_invite_token_is_404() -> None:
    seated_table(2)
    (stranger,) = make_users(1, "stranger")
    assert_refused(404, actions.join_table, stranger, "not-a-token")
    assert_refused(404, actions.join_table, stranger, "")


def test_r2_join_full_table_is_refused() -> None:
    table, _ = seated_table(8)
    (ninth,) = make_users(1, "ninth")
    assert_refused(409, actions.join_table, ninth, table.invite_token)


def test_join_started_table_is_refused() -> None:
    table, users = started_table(3)
    (late,) = make_users(1, "late")
    assert_refused(409, actions.join_table, late, table.invite_token)
    # a seated player opening the link again just gets the table back
    assert actions.join_table(users[1], table.invite_token).version == table.version


def test_rotate_invite_by_host_replaces_the_link() -> None:
    table, users = seated_table(2)
    old = table.invite_token
    rotated = actions.rotate_invite(users[0], table.pk)
    assert rotated.invite_token != old
    assert rotated.version == table.version + 1
    (newcomer,) = make_users(1, "newcomer")
    assert_refused(404, actions.join_table, newcomer, old)
    actions.join_table(newcomer, rotated.invite_token)


def test_rotate_invite_refusals() -> None:
    table, users = seated_table(2)
    (stranger,) = make_users(1, "stranger")
    assert_refused(403, actions.rotate_invite, users[1], table.pk)  # not the host
    assert_refused(403, actions.rotate_invite, stranger, table.pk)  # not seated
    assert_refused(404, actions.rotate_invite, users[0], UNKNOWN_TABLE)
    actions.start_game(users[0], table.pk, table.version)
    assert_refused(409, actions.rotate_invite, users[0], table.pk)  # started


def test_leave_before_start_frees_the_seat_and_keeps_positions_contiguous() -> None:
    table, users = seated_table(4)
    left = actions.leave_table(users[1], table.pk)
    assert left.status == Table.Status.WAITING
    assert left.version == table.version + 1
    seats = list(Seat.objects.filter(table=table).order_by("position"))
    assert [(s.user_id, s.position) for s in seats] == [
        (users[0].pk, 1),
        (users[2].pk, 2),
        (users[3].pk, 3),
    ]
    # the freed seat can be taken again; the returning player sits last
    actions.join_table(users[1], table.invite_token)
    assert Seat.objects.get(table=table, user=users[1]).position == 4
    # and the game starts with contiguous engine indexes
    table = actions.start_game(users[0], table.pk, Table.objects.get(pk=table.pk).version)
    assert table.status == Table.Status.PLAYING


def test_host_leaving_before_start_cancels_the_table() -> None:
    table, users = seated_table(3)
    left = actions.leave_table(users[0], table.pk)
    assert left.status == Table.Status.CANCELLED
    assert left.cancelled_by == users[0]
    assert_refused(409, actions.start_game, users[0], table.pk, left.version)
    (late,) = make_users(1, "late")
    assert_refused(409, actions.join_table, late, table.invite_token)


def test_r11_leave_during_game_cancels_it_for_everyone() -> None:
    table, users = started_table(3, seed=5)
    left = actions.leave_table(users[2], table.pk, confirmed=True)
    assert left.status == Table.Status.CANCELLED
    assert left.cancelled_by == users[2]
    assert left.version == table.version + 1
    assert Seat.objects.filter(table=table).count() == 3  # the evidence stays
    for user in users:
        assert_refused(409, actions.place_bid, user, table.pk, left.version, 0)
        assert_refused(409, actions.leave_table, user, table.pk)  # over already


def test_leave_refusals() -> None:
    table, users = seated_table(2)
    (stranger,) = make_users(1, "stranger")
    assert_refused(403, actions.leave_table, stranger, table.pk)
    assert_refused(404, actions.leave_table, users[0], UNKNOWN_TABLE)
    assert_refused(404, actions.leave_table, users[0], "not-a-number")


def test_cancel_table_is_for_staff() -> None:
    table, users = started_table(2)
    assert_refused(403, actions.cancel_table, users[0], table.pk)
    (staff,) = make_users(1, "staff")
    staff.is_staff = True
    staff.save()
    # Staff may cancel with the permission games.cancel_table only (issue 50).
    assert_refused(403, actions.cancel_table, staff, table.pk)
    staff.user_permissions.add(Permission.objects.get(codename="cancel_table"))
    staff = type(staff).objects.get(pk=staff.pk)  # permissions are cached on the user
    cancelled = actions.cancel_table(staff, table.pk)
    assert cancelled.status == Table.Status.CANCELLED
    assert cancelled.cancelled_by == staff
    assert_refused(409, actions.cancel_table, staff, table.pk)
    assert_refused(404, actions.cancel_table, staff, UNKNOWN_TABLE)


# -- starting ------------------------------------------------------------------------------


def test_start_game_deals_round_1() -> None:
    table, users = seated_table(3)
    started = actions.start_game(users[0], table.pk, table.version)
    assert started.status == Table.Status.PLAYING
    assert started.phase == Table.Phase.BIDDING
    assert started.round_number == 1
    assert started.version == table.version + 1
    assert not started.uses_ghost  # R8: never from 3 players
    state = state_of(started)
    assert {len(state.hands[s.pk]) for s in state.seats} == {1}


@pytest.mark.parametrize("ghost", [True, False])
def test_r8_ghost_option_with_two_players(ghost: bool) -> None:
    table, _ = started_table(2, ghost=ghost)
    assert table.uses_ghost is ghost
    state = state_of(table)
    assert (None in state.hands) is ghost


def test_start_game_refusals() -> None:
    table, users = seated_table(2)
    (stranger,) = make_users(1, "stranger")
    assert_refused(403, actions.start_game, users[1], table.pk, table.version)  # not the host
    assert_refused(403, actions.start_game, stranger, table.pk, table.version)  # not seated
    assert_refused(409, actions.start_game, users[0], table.pk, table.version - 1)  # stale
    assert_refused(404, actions.start_game, users[0], UNKNOWN_TABLE, 0)
    started = actions.start_game(users[0], table.pk, table.version)
    assert_refused(409, actions.start_game, users[0], table.pk, started.version)  # started


def test_r2_start_game_needs_two_players() -> None:
    (host,) = make_users(1)
    table = actions.create_table(host)
    assert_refused(409, actions.start_game, host, table.pk, table.version)


# -- bidding (R4) ------------------------------------------------------------------------------


def test_r4_bid_is_recorded_and_the_last_bid_opens_play() -> None:
    table, users = started_table(3)
    table = actions.place_bid(users[1], table.pk, table.version, 1)
    assert table.phase == Table.Phase.BIDDING
    table = actions.place_bid(users[0], table.pk, table.version, 0)
    assert table.phase == Table.Phase.BIDDING
    assert not Trick.objects.filter(round__table=table).exists()
    table = actions.place_bid(users[2], table.pk, table.version, 1)
    assert table.phase == Table.Phase.PLAYING
    trick = Trick.objects.get(round__table=table)
    # R3: the opener (the seat after the dealer, seat 1 deals round 1) leads trick 1.
    assert trick.leader.position == 2
    assert dict(Bid.objects.filter(round__table=table).values_list("seat__user", "value")) == {
        users[0].pk: 0,
        users[1].pk: 1,
        users[2].pk: 1,
    }


@pytest.mark.parametrize("value", [2, -1, 10**9, 10**30])
def test_r4_bid_out_of_range_is_refused(value: int) -> None:
    table, users = started_table(2)  # round 1: bids 0..1
    assert_refused(400, actions.place_bid, users[0], table.pk, table.version, value)


def test_r4_bid_is_final() -> None:
    table, users = started_table(3)
    table = actions.place_bid(users[0], table.pk, table.version, 1)
    assert_refused(409, actions.place_bid, users[0], table.pk, table.version, 0)
    assert Bid.objects.get(seat__user=users[0]).value == 1


def test_r4_bid_refusals() -> None:
    table, users = started_table(2)
    (stranger,) = make_users(1, "stranger")
    assert_refused(403, actions.place_bid, stranger, table.pk, table.version, 0)
    assert_refused(409, actions.place_bid, users[0], table.pk, table.version - 1, 0)  # stale
    assert_refused(409, actions.place_bid, users[0], table.pk, table.version + 1, 0)
    assert_refused(404, actions.place_bid, users[0], UNKNOWN_TABLE, 0, 0)
    table = bid_all(table, 0)
    assert table.phase == Table.Phase.PLAYING
    assert_refused(409, actions.place_bid, users[0], table.pk, table.version, 0)  # wrong phase


def test_r4_bid_before_the_start_is_refused() -> None:
    table, users = seated_table(2)
    assert_refused(409, actions.place_bid, users[0], table.pk, table.version, 0)


def test_r8_ghost_never_bids() -> None:
    table, _ = started_table(2, ghost=True)
    table = bid_all(table, 0)
    assert table.phase == Table.Phase.PLAYING  # two human bids were enough
    assert Bid.objects.filter(round__table=table).count() == 2


# -- playing (R5, R8) -----------------------------------------------------------------------------


def test_r5_play_card_and_follow_suit() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    table = actions.play_card(users[0], table.pk, table.version, "G5")
    assert_refused(400, actions.play_card, users[1], table.pk, table.version, "Y9")
    table = actions.play_card(users[1], table.pk, table.version, "G7")
    assert table.phase == Table.Phase.TRICK_DONE
    trick = Trick.objects.get(round__table=table, round__number=2, number=1)
    assert trick.winner.user == users[1]
    assert list(Play.objects.filter(trick=trick).values_list("card", flat=True)) == ["G5", "G7"]


def test_r5_special_card_may_be_played_even_when_able_to_follow() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "ESC1"]})
    table = actions.play_card(users[0], table.pk, table.version, "G5")
    table = actions.play_card(users[1], table.pk, table.version, "ESC1")
    assert Trick.objects.get(round__table=table, round__number=2, number=1).winner.user == users[0]


def test_r5_without_the_lead_suit_anything_goes_black_included() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["B2", "Y9"]})
    table = actions.play_card(users[0], table.pk, table.version, "G5")
    table = actions.play_card(users[1], table.pk, table.version, "B2")
    assert (
        Trick.objects.get(round__table=table, round__number=2, number=1).winner.user == users[1]
    )  # R6.5


def test_r5_black_led_must_be_followed() -> None:
    table, users = round_two({0: ["B5", "Y3"], 1: ["B2", "Y9"]})
    table = actions.play_card(users[0], table.pk, table.version, "B5")
    assert_refused(400, actions.play_card, users[1], table.pk, table.version, "Y9")


def test_r5_not_your_turn() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    assert_refused(409, actions.play_card, users[1], table.pk, table.version, "G7")
    table = actions.play_card(users[0], table.pk, table.version, "G5")
    assert_refused(409, actions.play_card, users[0], table.pk, table.version, "Y3")


@pytest.mark.parametrize("code", ["B14", "X99", "", "g5", "G5:pirate", "TIG", "G55"])
def test_r5_card_not_playable_from_this_hand(code: str) -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    assert_refused(400, actions.play_card, users[0], table.pk, table.version, code, "")


def test_r5_unknown_card_code_message() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    message = assert_refused(400, actions.play_card, users[0], table.pk, table.version, "X99")
    assert "no such card" in message


def test_r5_card_not_in_hand_message() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    message = assert_refused(400, actions.play_card, users[0], table.pk, table.version, "G7")
    assert "not in your hand" in message


@pytest.mark.parametrize("choice", ["", "sideways", "PIRATE"])
def test_r5_tigress_needs_a_valid_choice(choice: str) -> None:
    table, users = round_two({0: ["TIG", "Y3"], 1: ["G7", "Y9"]})
    assert_refused(400, actions.play_card, users[0], table.pk, table.version, "TIG", choice)


@pytest.mark.parametrize("choice", ["pirate", "escape"])
def test_r5_choice_on_a_non_tigress_is_refused(choice: str) -> None:
    table, users = round_two({0: ["TIG", "Y3"], 1: ["G7", "Y9"]})
    assert_refused(400, actions.play_card, users[0], table.pk, table.version, "Y3", choice)


@pytest.mark.parametrize(("choice", "winner"), [("pirate", 0), ("escape", 1)])
def test_r5_tigress_choice_is_recorded(choice: str, winner: int) -> None:
    table, users = round_two({0: ["TIG", "Y3"], 1: ["G7", "Y9"]})
    table = actions.play_card(users[0], table.pk, table.version, "TIG", choice)
    table = actions.play_card(users[1], table.pk, table.version, "G7")
    play = Play.objects.get(round__table=table, round__number=2, card="TIG")
    assert play.tigress_as == choice
    assert play.notation == f"TIG:{choice}"
    assert (
        Trick.objects.get(round__table=table, round__number=2, number=1).winner.user
        == users[winner]
    )


def test_r5_play_card_refusals() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    (stranger,) = make_users(1, "stranger")
    assert_refused(403, actions.play_card, stranger, table.pk, table.version, "G5")
    assert_refused(409, actions.play_card, users[0], table.pk, table.version - 1, "G5")
    assert_refused(404, actions.play_card, users[0], UNKNOWN_TABLE, table.version, "G5")


def test_r5_play_card_during_bidding_is_refused() -> None:
    table, users = started_table(2, ghost=False)
    card = state_of(table).hands[Seat.objects.get(table=table, position=2).pk][0].card
    assert_refused(409, actions.play_card, users[1], table.pk, table.version, card)


def test_r8_ghost_plays_in_the_same_action_without_following_suit() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]}, ["Y4", "G9"], use_ghost=True)
    table = actions.play_card(users[0], table.pk, table.version, "G5")
    plays = list(Play.objects.filter(round__table=table, round__number=2).order_by("order"))
    # R8: the ghost plays second, its top card, though it holds green: no duty to follow.
    assert [(p.seat_id, p.card) for p in plays] == [(plays[0].seat_id, "G5"), (None, "Y4")]
    assert table.phase == Table.Phase.PLAYING
    assert state_of(table).seat_to_play().user == users[1]
    assert_refused(400, actions.play_card, users[1], table.pk, table.version, "Y9")
    table = actions.play_card(users[1], table.pk, table.version, "G7")
    trick = Trick.objects.get(round__table=table, round__number=2, number=1)
    assert trick.winner.user == users[1]


def test_r8_ghost_leads_after_winning_and_the_opener_follows() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]}, ["PIR1", "Y12"], use_ghost=True)
    table = actions.play_card(users[0], table.pk, table.version, "G5")
    table = actions.play_card(users[1], table.pk, table.version, "G7")
    first = Trick.objects.get(round__table=table, round__number=2, number=1)
    assert first.won_by_ghost and first.winner is None and first.next_leader is None
    table = actions.next_trick(users[0], table.pk, table.version)
    second = Trick.objects.get(round__table=table, round__number=2, number=2)
    assert second.leader is None
    assert list(Play.objects.filter(trick=second).values_list("seat", "card")) == [(None, "Y12")]
    # R8: when the ghost leads, the human who opened the round plays second.
    assert state_of(table).seat_to_play().user == users[0]
    assert_refused(409, actions.play_card, users[1], table.pk, table.version, "Y9")


# -- the host moves the table on (R11) -------------------------------------------------------------


def test_r11_next_trick_and_next_round_refusals() -> None:
    table, users = round_two({0: ["G5", "Y3"], 1: ["G7", "Y9"]})
    (stranger,) = make_users(1, "stranger")
    assert_refused(409, actions.next_trick, users[0], table.pk, table.version)  # trick running
    assert_refused(409, actions.next_round, users[0], table.pk, table.version)
    table = actions.play_card(users[0], table.pk, table.version, "G5")
    table = actions.play_card(users[1], table.pk, table.version, "G7")
    assert table.phase == Table.Phase.TRICK_DONE
    assert_refused(403, actions.next_trick, users[1], table.pk, table.version)
    assert_refused(403, actions.next_trick, stranger, table.pk, table.version)
    assert_refused(409, actions.next_trick, users[0], table.pk, table.version - 1)
    assert_refused(409, actions.next_round, users[0], table.pk, table.version)  # wrong phase
    assert_refused(404, actions.next_trick, users[0], UNKNOWN_TABLE, table.version)
    table = actions.next_trick(users[0], table.pk, table.version)
    # R6: the winner of trick 1 (users[1]) leads trick 2
    assert state_of(table).seat_to_play().user == users[1]
    table = actions.play_card(users[1], table.pk, table.version, "Y9")
    table = actions.play_card(users[0], table.pk, table.version, "Y3")
    assert table.phase == Table.Phase.ROUND_DONE
    assert_refused(403, actions.next_round, users[1], table.pk, table.version)
    assert_refused(409, actions.next_round, users[0], table.pk, table.version - 1)
    assert_refused(409, actions.next_trick, users[0], table.pk, table.version)
    table = actions.next_round(users[0], table.pk, table.version)
    assert (table.round_number, table.phase) == (3, Table.Phase.BIDDING)


# -- chat (R11) --------------------------------------------------------------------------


def test_r11_chat_for_seated_players() -> None:
    table, users = started_table(2)
    message = actions.post_chat(users[1], table.pk, "  ahoy  ")
    assert message.text == "ahoy"
    assert message.author == users[1]
    assert Table.objects.get(pk=table.pk).version == table.version  # chat never stales a move
    actions.post_chat(users[0], table.pk, "x" * CHAT_MAX_LENGTH)
    assert ChatMessage.objects.count() == 2


def test_r11_chat_flood_is_refused_with_429_and_stores_nothing() -> None:
    table, users = started_table(2)
    for i in range(actions.CHAT_BURST):
        actions.post_chat(users[0], table.pk, f"message {i}")
    assert_refused(429, actions.post_chat, users[0], table.pk, "one too many")
    # The limit is per player: the other one still talks.
    actions.post_chat(users[1], table.pk, "ahoy")
    assert ChatMessage.objects.filter(table=table).count() == actions.CHAT_BURST + 1


def test_r11_chat_refusals() -> None:
    table, users = seated_table(2)
    (stranger,) = make_users(1, "stranger")
    assert_refused(403, actions.post_chat, stranger, table.pk, "hello")
    assert_refused(400, actions.post_chat, users[0], table.pk, "")
    assert_refused(400, actions.post_chat, users[0], table.pk, "   \n ")
    assert_refused(400, actions.post_chat, users[0], table.pk, None)
    assert_refused(400, actions.post_chat, users[0], table.pk, "x" * (CHAT_MAX_LENGTH + 1))
    assert_refused(404, actions.post_chat, users[0], UNKNOWN_TABLE, "hello")
