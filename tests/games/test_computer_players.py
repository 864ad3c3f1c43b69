"""Computer players at the table (issue 48): seated, practising, moving by the same actions.

Computer moves are made by games.computer.moves.run_due (a server process's runner
calls it; here the test does), at once (COMPUTER_MOVE_DELAY_MS=0 in tests).
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.computer import moves
from games.computer.seat_views import view_of
from games.models import Bid, Play, Seat, Table
from games.play import actions, hosting, turns
from games.play.state import load_state
from games.storage import presence
from games.testing.driver import choose_move, options_of
from tests.games.helpers import make_user, make_users, seated_table

pytestmark = pytest.mark.django_db


def _fresh(table: Table) -> Table:
    return Table.objects.get(pk=table.pk)


def human_move(table: Table, rng: random.Random) -> bool:
    """One person's random legal move (the host's between tricks); False: none to make."""
    state = load_state(table)
    people = [s for s in state.seats if not s.played_by_computer]
    if table.phase in (Table.Phase.TRICK_DONE, Table.Phase.ROUND_DONE):
        people = [s for s in people if s.user_id == table.host_id]
    for seat in people:
        move = choose_move(rng, options_of(state, seat))
        if move is None:
            continue
        if move.kind == "bid":
            actions.place_bid(seat.user, table.pk, table.version, move.value)
        elif move.kind == "play":
            actions.play_card(seat.user, table.pk, table.version, move.card, move.tigress_as)
        elif move.kind == "next_trick":
            actions.next_trick(seat.user, table.pk, table.version)
        else:
            actions.next_round(seat.user, table.pk, table.version)
        return True
    return False


def play_to_the_end(table: Table, seed: int = 1, limit: int = 2000) -> Table:
    rng = random.Random(seed)
    for _ in range(limit):
        table = _fresh(table)
        if table.status != Table.Status.PLAYING:
            return table
        if moves.run_due():
            continue
        if not human_move(table, rng):
            raise AssertionError(f"nobody can move at {table.phase} of round {table.round_number}")
    raise AssertionError("the game did not end")


# -- practice ------------------------------------------------------------------------------


def test_a_practice_game_starts_at_once_and_computers_play_it_to_the_end_by_the_rules() -> None:
    """R2-R11: one person and three Strong computer players play a whole game."""
    anne = make_user("anne")
    table = actions.start_practice(anne, 3, "strong")
    assert table.status == Table.Status.PLAYING and table.phase == Table.Phase.BIDDING
    seats = list(table.seats.order_by("position"))
    assert [s.computer for s in seats] == ["", "strong", "strong", "strong"]
    assert [s.name for s in seats] == ["anne", "Computer 1", "Computer 2", "Computer 3"]
    assert all(not s.user.is_active and not s.user.has_usable_password() for s in seats[1:])
    # R4: the computers bid at once (no delay in tests); the person's bid is still awaited.
    assert moves.run_due() == 3
    state = load_state(_fresh(table))
    assert set(state.bids) == {s.pk for s in seats[1:]}
    assert all(b.by_computer for b in state.bids.values())

    table = play_to_the_end(table)
    assert table.status == Table.Status.FINISHED
    # Every move says who made it: the computer's seats by the computer, anne's by her.
    assert not Bid.objects.filter(seat=seats[0], by_computer=True).exists()
    assert not Play.objects.filter(seat=seats[0], by_computer=True).exists()
    assert Bid.objects.filter(seat__in=seats[1:], by_computer=False).count() == 0
    assert Play.objects.filter(seat__in=seats[1:], by_computer=True).count() == 3 * 55
    assert table.computer_due_at is None


@pytest.mark.parametrize(
    ("count", "level", "status", "message"),
    [
        (0, "normal", 400, "between 1 and 7"),
        (8, "normal", 400, "between 1 and 7"),
        ("two", "normal", 400, "whole number"),
        (2, "genius", 400, "Easy, Normal or Strong"),
    ],
)
def test_a_practice_game_refuses_a_bad_choice(
    count: Any, level: str, status: int, message: str
) -> None:
    anne = make_user("anne")
    with pytest.raises(actions.ActionError) as refused:
        actions.start_practice(anne, count, level)
    assert refused.value.status == status and message in refused.value.message
    assert not Table.objects.exists()


# -- the waiting room -------------------------------------------------------------------


def test_the_host_adds_and_removes_computer_players_before_the_start() -> None:
    anne, bert = make_users(2)
    table, _users = seated_table([anne, bert])
    table = actions.add_computer(anne, table.pk, table.version, "easy")
    table = actions.add_computer(anne, table.pk, table.version, "strong")
    seats = list(table.seats.order_by("position"))
    assert [(s.position, s.computer) for s in seats] == [
        (1, ""),
        (2, ""),
        (3, "easy"),
        (4, "strong"),
    ]
    table = actions.remove_computer(anne, table.pk, table.version, seats[2].pk)
    seats = list(table.seats.order_by("position"))
    assert [(s.position, s.computer) for s in seats] == [(1, ""), (2, ""), (3, "strong")]
    # The next one takes the lowest free number: never two "Computer 2" at a table.
    table = actions.add_computer(anne, table.pk, table.version, "normal")
    assert sorted(s.name for s in table.seats.all() if s.computer) == ["Computer 1", "Computer 2"]


def test_only_the_host_seats_a_computer_and_only_before_the_start() -> None:
    anne, bert = make_users(2)
    table, _users = seated_table([anne, bert])
    with pytest.raises(actions.ActionError) as refused:
        actions.add_computer(bert, table.pk, table.version, "normal")
    assert refused.value.status == 403
    with pytest.raises(actions.ActionError) as refused:
        actions.add_computer(anne, table.pk, table.version, "")
    assert refused.value.status == 400
    with pytest.raises(actions.ActionError) as refused:
        actions.add_computer(anne, table.pk, table.version - 1, "normal")
    assert refused.value.status == 409  # a stale form
    table = actions.add_computer(anne, table.pk, table.version, "normal")
    computer = table.seats.get(position=3)
    with pytest.raises(actions.ActionError) as refused:
        actions.remove_computer(anne, table.pk, table.version, table.seats.get(position=2).pk)
    assert refused.value.status == 404  # a person is not removed this way
    table = actions.start_game(anne, table.pk, table.version)
    for attempt in (
        lambda: actions.add_computer(anne, table.pk, table.version, "normal"),
        lambda: actions.remove_computer(anne, table.pk, table.version, computer.pk),
    ):
        with pytest.raises(actions.ActionError) as refused:
            attempt()
        assert refused.value.status == 409
    assert _fresh(table).version == table.version


def test_a_full_table_takes_no_computer() -> None:
    anne = make_user("anne")
    table, _users = seated_table([anne])
    for _ in range(7):
        table = actions.add_computer(anne, table.pk, table.version, "easy")
    with pytest.raises(actions.ActionError) as refused:
        actions.add_computer(anne, table.pk, table.version, "easy")
    assert refused.value.status == 409 and "full" in refused.value.message


def test_nobody_can_be_called_like_a_computer_player() -> None:
    from accounts.names import is_reserved

    for name in ("Computer", "computer-3", "Ordinateur2", "ORDENADOR", "C\u043emputer"):
        assert is_reserved(name), name  # the last: CYRILLIC SMALL LETTER O
    assert not is_reserved("Computerella")
    assert not is_reserved("bot1")


# -- due moves -----------------------------------------------------------------------------


def test_a_computer_move_that_is_not_due_is_refused() -> None:
    """A person's move is theirs: the computer cannot make it before a clock runs out."""
    anne = make_user("anne")
    table = actions.start_practice(anne, 1, "normal")
    state = load_state(table)
    with pytest.raises(actions.ActionError) as refused:
        actions.place_bid(anne, table.pk, table.version, 0, by_computer=True)
    assert refused.value.status == 409
    assert set(state.bids) == set(load_state(_fresh(table)).bids)


def time_passes(table: Table, seconds: float) -> None:
    """As if ``seconds`` had passed since the wait for the next move began."""
    table = _fresh(table)
    back = timedelta(seconds=seconds)
    Table.objects.filter(pk=table.pk).update(
        turn_started_at=table.turn_started_at - back,
        computer_due_at=table.computer_due_at and table.computer_due_at - back,
    )


def test_a_computer_move_waits_for_the_delay(settings: Any) -> None:
    settings.COMPUTER_MOVE_DELAY_MS = 10_000
    anne = make_user("anne")
    table = actions.start_practice(anne, 2, "easy")
    assert table.computer_due_at == table.turn_started_at + timedelta(seconds=10)
    assert moves.run_due() == 0
    time_passes(table, 9)
    assert moves.run_due() == 0
    time_passes(table, 1)
    assert moves.run_due() == 2


def test_two_runners_never_make_one_move_twice() -> None:
    """The second of two processes finding the same due move is refused by the version."""
    anne = make_user("anne")
    table = actions.start_practice(anne, 1, "normal")
    actions.place_bid(anne, table.pk, table.version, 0)
    table = _fresh(table)
    stale = load_state(table)  # what a second process read before the first moved
    moves.run_due()
    with pytest.raises(actions.ActionError):
        moves.make_move(stale, stale.seats[1])
    assert Bid.objects.filter(seat=stale.seats[1]).count() == 1


# -- the turn clock ---------------------------------------------------------------------


def test_the_turn_clock_makes_a_late_players_move(settings: Any) -> None:
    """Bids are simultaneous (R4): every bidding clock starts at the deal."""
    anne, bert = make_users(2)
    table = actions.create_table(anne, turn_clock=30)
    actions.join_table(bert, table.invite_token)
    table = actions.start_game(anne, table.pk, _fresh(table).version)
    deadline = table.turn_started_at + timedelta(seconds=30)
    assert table.computer_due_at == deadline
    actions.place_bid(anne, table.pk, table.version, 1)
    time_passes(table, 29)
    assert moves.run_due() == 0
    time_passes(table, 1)
    assert moves.run_due() == 1
    bids = load_state(_fresh(table)).bids
    assert not bids[table.seats.get(user=anne).pk].by_computer
    assert bids[table.seats.get(user=bert).pk].by_computer
    # A card's clock starts with that player's turn.
    table = _fresh(table)
    assert table.phase == Table.Phase.PLAYING
    assert table.computer_due_at == table.turn_started_at + timedelta(seconds=30)


def test_a_clock_must_be_one_of_the_choices() -> None:
    anne = make_user("anne")
    with pytest.raises(actions.ActionError) as refused:
        actions.create_table(anne, turn_clock=5)
    assert refused.value.status == 400
    assert not Table.objects.exists()


# -- away: handing a seat to the computer -----------------------------------------------


def _away_table(settings: Any) -> tuple[Table, list[Any]]:
    settings.AWAY_AFTER_SECONDS = 0  # nobody has a page open: everyone not present is away
    anne, bert, cleo = make_users(3)
    table, _users = seated_table([anne, bert, cleo])
    table = actions.start_game(anne, table.pk, table.version)
    return table, [anne, bert, cleo]


def _open_page(table: Table, user: Any) -> None:
    presence.touch(table.seats.get(user=user).pk, f"socket-of-{user.username}")


def test_the_host_hands_an_away_seat_to_the_computer_and_its_owner_takes_it_back(
    settings: Any,
) -> None:
    table, (anne, bert, cleo) = _away_table(settings)
    _open_page(table, anne)
    _open_page(table, bert)
    cleo_seat = table.seats.get(user=cleo)
    # Only an away seat; only the host (present); bert may not while the host is here.
    with pytest.raises(actions.ActionError) as refused:
        actions.hand_over(anne, table.pk, table.version, table.seats.get(user=bert).pk)
    assert refused.value.status == 409
    with pytest.raises(actions.ActionError) as refused:
        actions.hand_over(bert, table.pk, table.version, cleo_seat.pk)
    assert refused.value.status == 403
    table = actions.hand_over(anne, table.pk, table.version, cleo_seat.pk)
    assert Seat.objects.get(pk=cleo_seat.pk).handed_over
    assert moves.run_due() == 1  # cleo's bid, made by the computer
    assert Bid.objects.get(seat=cleo_seat).by_computer
    # cleo opens the table: the seat is hers again, her next move hers.
    table = actions.take_back(cleo, table.pk)
    assert not Seat.objects.get(pk=cleo_seat.pk).handed_over
    with pytest.raises(actions.ActionError) as refused:
        actions.take_back(cleo, table.pk)
    assert refused.value.status == 409


def test_while_the_host_is_away_the_others_hand_over_and_move_the_table_on(settings: Any) -> None:
    """R11: the host moves the table on; while the host is away, the next player present."""
    table, (anne, bert, cleo) = _away_table(settings)
    _open_page(table, bert)
    _open_page(table, cleo)
    anne_seat = table.seats.get(user=anne)
    table = actions.hand_over(cleo, table.pk, table.version, anne_seat.pk)
    actions.place_bid(bert, table.pk, _fresh(table).version, 0)
    actions.place_bid(cleo, table.pk, _fresh(table).version, 0)
    moves.run_due()  # anne's bid
    table = _fresh(table)
    rng = random.Random(3)
    while table.phase == Table.Phase.PLAYING:
        if not moves.run_due():
            human_move(table, rng)
        table = _fresh(table)
    assert table.phase == Table.Phase.ROUND_DONE  # round 1: one card each
    # cleo is not next after the host: bert is, and he is present.
    with pytest.raises(actions.ActionError) as refused:
        actions.next_round(cleo, table.pk, table.version)
    assert refused.value.status == 403
    actions.next_round(bert, table.pk, table.version)
    # The host is back: the table is theirs to move on again.
    _open_page(table, anne)
    assert hosting.acting_host(_fresh(table), list(table.seats.order_by("position"))).user == anne


def test_the_host_present_moves_the_table_on_alone(settings: Any) -> None:
    table, (anne, bert, cleo) = _away_table(settings)
    for user in (anne, bert, cleo):
        _open_page(table, user)
        actions.place_bid(user, table.pk, _fresh(table).version, 0)
    table = _fresh(table)
    rng = random.Random(4)
    while table.phase == Table.Phase.PLAYING:
        human_move(table, rng)
        table = _fresh(table)
    with pytest.raises(actions.ActionError) as refused:
        actions.next_trick(bert, table.pk, table.version)
    assert refused.value.status == 403


# -- what a computer player sees ------------------------------------------------------------


def test_a_computer_sees_its_own_hand_and_nothing_of_the_others() -> None:
    """R4, R8: the view holds one hand, and no bid before all are in."""
    anne = make_user("anne")
    table = actions.start_practice(anne, 2, "normal")
    actions.place_bid(anne, table.pk, table.version, 1)
    state = load_state(_fresh(table))
    seat = state.seats[1]
    view = view_of(state, seat)
    assert list(view.hand) == state.hand_of(seat)
    assert view.bids == (None, None, None)  # anne's bid stays secret until all are in
    others = {str(c) for s in state.seats if s != seat for c in state.hand_of(s)}
    assert not others & {str(c) for c in view.hand}


def test_due_seats_follow_the_game() -> None:
    anne = make_user("anne")
    table = actions.start_practice(anne, 2, "normal")
    state = load_state(table)
    now = timezone.now()
    assert [s.position for s in turns.due_now(state, now)] == [2, 3]
    assert [s.position for s in turns.waiting_for(state)] == [1, 2, 3]
