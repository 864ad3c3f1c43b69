"""Complete games through games.actions with seeded random legal choices (R2-R11)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games import actions, rules
from games.management.commands.simulate_tables import verify_table
from games.models import Bid, HandCard, Play, Round, RoundScore, Table, Trick
from games.state import GHOST, load_state

from .helpers import assert_refused, play_until, started_table

pytestmark = pytest.mark.django_db

GAMES = [
    pytest.param(2, True, 11, id="2-players-ghost"),
    pytest.param(2, False, 12, id="2-players-no-ghost"),
    pytest.param(3, False, 13, id="3-players"),
    pytest.param(8, False, 18, id="8-players"),
]


def _after_each_move(table: Table) -> None:
    # R8: the ghost plays on its own inside the action; a game never waits for it.
    if table.phase == Table.Phase.PLAYING:
        state = load_state(table)
        assert state.next_to_play() not in (None, GHOST)


@pytest.mark.parametrize(("players", "ghost", "seed"), GAMES)
def test_r2_to_r10_complete_game_r8_ghost_plays_automatically(
    players: int, ghost: bool, seed: int
) -> None:
    table, users = started_table(players, ghost=ghost, seed=seed)
    assert table.uses_ghost == (ghost and players == 2)
    after = _after_each_move if table.uses_ghost else None
    table = play_until(table, random.Random(seed), after=after)

    # R10: the game ends after round 10, finished.
    assert table.status == Table.Status.FINISHED
    assert table.round_number == rules.ROUNDS
    assert table.finished_at is not None
    # The full audit against the engine (deal, order, legality, tricks, scores, totals).
    report = verify_table(table.pk)
    assert report["players"] == [u.username for u in users]

    seats = list(table.seats.order_by("position"))
    rounds = list(Round.objects.filter(table=table).order_by("number"))
    assert [r.number for r in rounds] == list(range(1, 11))
    for game_round in rounds:
        n = rules.cards_per_round(game_round.number, players)
        # R2: n cards per hand (9 in rounds 9-10 with 8), a third hand for the ghost.
        per_holder = Counter(
            HandCard.objects.filter(round=game_round).values_list("seat_id", flat=True)
        )
        expected = {s.pk: n for s in seats}
        if table.uses_ghost:
            expected[None] = n
        assert per_holder == expected
        # R3: the creator deals round 1, the dealer rotates, the next seat opens.
        dealer = (game_round.number - 1) % players
        assert game_round.dealer_id == seats[dealer].pk
        assert game_round.opener_id == seats[(dealer + 1) % players].pk
        # R4 / R8: one bid per human, the ghost never bids.
        assert Bid.objects.filter(round=game_round).count() == players
        # every card dealt was played exactly once
        dealt = set(HandCard.objects.filter(round=game_round).values_list("card", flat=True))
        played = list(Play.objects.filter(round=game_round).values_list("card", flat=True))
        assert sorted(played) == sorted(dealt)
        # R9: recorded scores equal rules.score_round on the recorded bids and tricks.
        tricks = list(Trick.objects.filter(round=game_round))
        for score in RoundScore.objects.filter(round=game_round):
            won = [t for t in tricks if t.winner_id == score.seat_id and not t.destroyed_by]
            assert score.won == len(won)
            expected_score = rules.score_round(score.bid, len(won), n, sum(t.bonus for t in won))
            assert (score.base, score.bonus, score.total) == (
                expected_score.base,
                expected_score.bonus,
                expected_score.total,
            )
    if players == 2:
        # R3: with 2 humans (ghost or not) the humans open alternate rounds.
        openers = [r.opener_id for r in rounds]
        assert openers == [seats[1].pk, seats[0].pk] * 5
    if table.uses_ghost:
        _check_r8_ghost_rows(table)
    else:
        assert not HandCard.objects.filter(round__table=table, seat__isnull=True).exists()
        assert not Play.objects.filter(round__table=table, seat__isnull=True).exists()
    # R10: after round 10 there is no next round (nor trick); the host's buttons are refused.
    assert table.phase == Table.Phase.ROUND_DONE
    assert_refused(409, actions.next_round, users[0], table.pk, table.version)
    assert_refused(409, actions.next_trick, users[0], table.pk, table.version)
    # R10: running totals are the sums of the round totals.
    for seat in seats:
        rows = list(RoundScore.objects.filter(seat=seat).order_by("round__number"))
        assert len(rows) == rules.ROUNDS
        assert rows[-1].running_total == sum(r.total for r in rows)


def _check_r8_ghost_rows(table: Table) -> None:
    """R8 on a finished 2-player game with the ghost."""
    assert not Bid.objects.filter(round__table=table, seat__isnull=True).exists()
    ghost_plays = Play.objects.filter(round__table=table, seat__isnull=True)
    # R8: one ghost card per trick, recorded with seat NULL, in the ghost's deal order.
    assert ghost_plays.count() == sum(range(1, 11))
    for game_round in Round.objects.filter(table=table):
        pile = list(
            HandCard.objects.filter(round=game_round, seat__isnull=True)
            .order_by("deal_order")
            .values_list("card", flat=True)
        )
        plays = list(
            Play.objects.filter(round=game_round, seat__isnull=True).order_by("trick__number")
        )
        assert [p.card for p in plays] == pile
        for play in plays:
            assert play.tigress_as == ("escape" if play.card == "TIG" else "")  # R8
    # R8: after winning, the ghost leads the next trick (and plays first, by itself).
    ghost_wins = Trick.objects.filter(round__table=table, won_by_ghost=True)
    followed = 0
    for trick in ghost_wins:
        following = Trick.objects.filter(round=trick.round, number=trick.number + 1).first()
        if following is None:
            continue
        followed += 1
        assert trick.next_leader_id is None
        assert following.leader_id is None
        first = Play.objects.get(trick=following, order=0)
        assert first.seat_id is None
        # R8: when the ghost leads, the opener plays second.
        second = Play.objects.get(trick=following, order=1)
        assert second.seat_id == trick.round.opener_id
    assert followed > 0, "pick a seed where the ghost wins a trick before the last"


def test_r11_only_the_host_moves_the_table_on() -> None:
    table, users = started_table(3, ghost=False, seed=31)
    rng = random.Random(31)
    table = play_until(table, rng, done=lambda t: t.phase == Table.Phase.TRICK_DONE)
    for other in users[1:]:
        assert assert_refused(403, actions.next_trick, other, table.pk, table.version)
    table = actions.next_trick(users[0], table.pk, table.version)
    assert table.phase == Table.Phase.PLAYING
    table = play_until(table, rng, done=lambda t: t.phase == Table.Phase.ROUND_DONE)
    for other in users[1:]:
        assert_refused(403, actions.next_round, other, table.pk, table.version)
    number = table.round_number
    table = actions.next_round(users[0], table.pk, table.version)
    assert table.round_number == number + 1
    assert table.phase == Table.Phase.BIDDING
